//! The capture thread: pulls frames from a [`FrameSource`] and hands them on
//! through a bounded channel. When the consumer is busy the newest frame is
//! kept and older ones are dropped, so latency stays at one frame instead of
//! growing. When the source fails the thread says so, keeps running, and
//! retries on request or every [`RETRY_INTERVAL`].
//!
//! # Conventions
//! Every [`Frame`] is stamped with the [`Instant`] it left the source.

use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError, TrySendError, bounded};

use image::RgbImage;

use super::{FROZEN_AFTER, Frame, FrameSource, SourceOpener};

/// Frames waiting for the consumer. One: a newer frame is worth more than an
/// older one.
pub const FRAME_QUEUE: usize = 1;
/// How often a lost source is retried without being asked.
pub const RETRY_INTERVAL: Duration = Duration::from_secs(2);

/// How long stopping the capture thread waits for it. A source stuck in
/// `next_frame` (an unplugged camera whose driver never returns) is left
/// behind rather than hanging the app that switches away from it.
pub const JOIN_PATIENCE: Duration = Duration::from_secs(2);

/// What the capture thread reports.
#[derive(Debug, Clone)]
pub enum CaptureEvent {
    /// The source is open; frames follow.
    Opened {
        source: String,
    },
    Frame(Frame),
    /// The source failed; the thread waits and retries.
    Lost {
        source: String,
        reason: String,
    },
    /// A retry worked; frames follow.
    Reconnected {
        source: String,
    },
}

enum Control {
    Reconnect,
    Stop,
}

/// When the source last delivered a frame, whether or not the consumer
/// took it: a slow consumer still knows the camera is alive.
#[derive(Debug, Clone, Default)]
pub struct DeliveryClock(Arc<Mutex<Option<Instant>>>);

impl DeliveryClock {
    /// When the newest frame left the source, if one has.
    pub fn last(&self) -> Option<Instant> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn stamp(&self, at: Instant) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(at);
    }
}

/// Handle on the capture thread. Dropping it stops the thread.
pub struct CaptureWorker {
    pub events: Receiver<CaptureEvent>,
    control: Sender<Control>,
    handle: Option<JoinHandle<()>>,
    delivered: DeliveryClock,
}

impl CaptureWorker {
    /// Starts the thread, which opens the source with `open`. `on_event` is
    /// called after each event is queued (the UI passes its repaint
    /// request).
    pub fn spawn(
        open: SourceOpener,
        on_event: Arc<dyn Fn() + Send + Sync>,
    ) -> std::io::Result<Self> {
        let (event_tx, events) = bounded(FRAME_QUEUE);
        // The thread holds a receiver too, to take out a stale frame that the
        // consumer has not picked up yet.
        let stale_rx = events.clone();
        // Status events must not be lost when the frame queue is full: they
        // go through a blocking send, frames through `try_send`.
        let (control, control_rx) = bounded(4);
        let delivered = DeliveryClock::default();
        let clock = delivered.clone();
        let handle = thread::Builder::new()
            .name("capture".into())
            .spawn(move || {
                let on_event = on_event.as_ref();
                let mut source = match open() {
                    Ok(s) => s,
                    Err(err) => {
                        if event_tx
                            .send(CaptureEvent::Lost {
                                source: "(not opened)".into(),
                                reason: err.to_string(),
                            })
                            .is_ok()
                        {
                            on_event();
                        }
                        return;
                    }
                };
                if event_tx
                    .send(CaptureEvent::Opened {
                        source: source.name(),
                    })
                    .is_ok()
                {
                    on_event();
                    run(
                        source.as_mut(),
                        &event_tx,
                        &stale_rx,
                        &control_rx,
                        &clock,
                        on_event,
                    );
                }
            })?;
        Ok(Self {
            events,
            control,
            handle: Some(handle),
            delivered,
        })
    }

    /// When the source last delivered a frame (see [`DeliveryClock`]).
    pub fn delivery_clock(&self) -> DeliveryClock {
        self.delivered.clone()
    }

    /// Asks the thread to reopen a lost source now.
    pub fn reconnect(&self) {
        // A full control queue already holds a request.
        let _ = self.control.try_send(Control::Reconnect);
    }
}

impl Drop for CaptureWorker {
    fn drop(&mut self) {
        let _ = self.control.send(Control::Stop);
        // Unblock a thread waiting to queue a status event.
        while self.events.try_recv().is_ok() {}
        if let Some(h) = self.handle.take() {
            // Drain while joining: the thread may be blocked on a send.
            let give_up = Instant::now() + JOIN_PATIENCE;
            while !h.is_finished() {
                if Instant::now() >= give_up {
                    // Stuck inside the source (a camera that stopped
                    // answering): leave it; it ends when the source returns
                    // and finds no one listening.
                    return;
                }
                while self.events.try_recv().is_ok() {}
                thread::sleep(Duration::from_millis(1));
            }
            let _ = h.join();
        }
    }
}

fn run(
    source: &mut dyn FrameSource,
    events: &Sender<CaptureEvent>,
    stale: &Receiver<CaptureEvent>,
    control: &Receiver<Control>,
    delivered: &DeliveryClock,
    on_event: &(dyn Fn() + Send + Sync),
) {
    let mut seq = 0_u64;
    let mut still = SamePicture::default();
    loop {
        match control.try_recv() {
            Ok(Control::Stop) | Err(TryRecvError::Disconnected) => return,
            Ok(Control::Reconnect) | Err(TryRecvError::Empty) => {}
        }
        if !wait_until_due(source, control) {
            return;
        }
        match source.next_frame() {
            Ok((image, label)) => {
                let image = Arc::new(image);
                let changes = source.changes().map(Arc::new);
                let captured_at = Instant::now();
                delivered.stamp(captured_at);
                let frozen_since = still.frozen_since(&image, captured_at, source.holds_still());
                let frame = Frame {
                    seq,
                    captured_at,
                    image,
                    label,
                    frozen_since,
                    changes,
                };
                seq += 1;
                if !queue_newest(events, stale, frame) {
                    return;
                }
                on_event();
            }
            Err(err) => {
                let name = source.name();
                if events
                    .send(CaptureEvent::Lost {
                        source: name.clone(),
                        reason: err.to_string(),
                    })
                    .is_err()
                {
                    return;
                }
                on_event();
                // Wait for a request or the retry interval, then retry until
                // the source is back.
                loop {
                    match control.recv_timeout(RETRY_INTERVAL) {
                        Ok(Control::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                        Ok(Control::Reconnect) | Err(RecvTimeoutError::Timeout) => {}
                    }
                    if source.reconnect().is_ok() {
                        still = SamePicture::default();
                        if events
                            .send(CaptureEvent::Reconnected { source: name })
                            .is_err()
                        {
                            return;
                        }
                        on_event();
                        break;
                    }
                }
            }
        }
    }
}

/// The newest picture and since when the source has delivered it unchanged.
#[derive(Default)]
struct SamePicture {
    last: Option<(Arc<RgbImage>, Instant)>,
}

impl SamePicture {
    /// Takes the next frame's picture; returns since when the picture is
    /// frozen, when it is (see [`FROZEN_AFTER`]).
    fn frozen_since(
        &mut self,
        image: &Arc<RgbImage>,
        now: Instant,
        hold: Duration,
    ) -> Option<Instant> {
        let since = match &self.last {
            Some((prev, since)) if **prev == **image => *since,
            _ => now,
        };
        self.last = Some((image.clone(), since));
        (now.duration_since(since) > FROZEN_AFTER + hold).then_some(since)
    }
}

/// Waits until the source's next frame is due, on the control channel so
/// that a stop ends the wait at once. False when asked to stop.
fn wait_until_due(source: &dyn FrameSource, control: &Receiver<Control>) -> bool {
    while let Some(wait) = source
        .next_due()
        .and_then(|due| due.checked_duration_since(Instant::now()))
    {
        match control.recv_timeout(wait) {
            Ok(Control::Stop) | Err(RecvTimeoutError::Disconnected) => return false,
            // A reconnect request means nothing to a running source.
            Ok(Control::Reconnect) | Err(RecvTimeoutError::Timeout) => {}
        }
    }
    true
}

/// Queues `frame`, replacing a frame the consumer has not taken yet so that
/// the consumer always gets the newest one. A queued status event is never
/// replaced (the new frame is dropped instead). False when the consumer has
/// gone.
fn queue_newest(
    events: &Sender<CaptureEvent>,
    stale: &Receiver<CaptureEvent>,
    frame: Frame,
) -> bool {
    let mut item = CaptureEvent::Frame(frame);
    loop {
        match events.try_send(item) {
            Ok(()) => return true,
            Err(TrySendError::Disconnected(_)) => return false,
            Err(TrySendError::Full(back)) => {
                item = back;
                match stale.try_recv() {
                    // The stale frame is dropped; try again with the new one.
                    Ok(CaptureEvent::Frame(_)) | Err(_) => {}
                    // A status event: put it back, drop the new frame.
                    Ok(status) => return events.send(status).is_ok(),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{CaptureError, FailingSource};
    use image::RgbImage;

    struct Still;
    impl FrameSource for Still {
        fn name(&self) -> String {
            "still".into()
        }
        fn next_frame(&mut self) -> Result<(RgbImage, String), CaptureError> {
            thread::sleep(Duration::from_millis(2));
            Ok((RgbImage::new(4, 4), "still".into()))
        }
        fn reconnect(&mut self) -> Result<(), CaptureError> {
            Ok(())
        }
    }

    fn next_non_frame(w: &CaptureWorker) -> CaptureEvent {
        loop {
            let ev = w
                .events
                .recv_timeout(Duration::from_secs(10))
                .expect("event");
            if !matches!(ev, CaptureEvent::Frame(_)) {
                return ev;
            }
        }
    }

    #[test]
    fn frames_flow_then_loss_is_reported_and_reconnect_resumes() {
        let open: SourceOpener = Box::new(|| Ok(Box::new(FailingSource::new(Still, 5, 0))));
        let w = CaptureWorker::spawn(open, Arc::new(|| {})).unwrap();
        assert!(matches!(
            w.events.recv_timeout(Duration::from_secs(10)).unwrap(),
            CaptureEvent::Opened { .. }
        ));
        let CaptureEvent::Frame(first) = w.events.recv_timeout(Duration::from_secs(10)).unwrap()
        else {
            panic!("expected a frame first");
        };
        assert_eq!(first.image.dimensions(), (4, 4));
        assert!(matches!(next_non_frame(&w), CaptureEvent::Lost { .. }));
        w.reconnect();
        assert!(matches!(
            next_non_frame(&w),
            CaptureEvent::Reconnected { .. }
        ));
        assert!(matches!(
            w.events.recv_timeout(Duration::from_secs(10)).unwrap(),
            CaptureEvent::Frame(_)
        ));
    }

    /// A source that knows where each frame changed (as the camera's
    /// partial decoder does).
    struct Changing(u64);
    impl FrameSource for Changing {
        fn name(&self) -> String {
            "changing".into()
        }
        fn next_frame(&mut self) -> Result<(RgbImage, String), CaptureError> {
            thread::sleep(Duration::from_millis(2));
            self.0 += 1;
            Ok((RgbImage::new(4, 4), "changing".into()))
        }
        fn changes(&self) -> Option<crate::capture::FrameChanges> {
            Some(crate::capture::FrameChanges {
                stream: 7,
                serial: self.0,
                cell_px: [4, 4],
                cols: 1,
                rows: 1,
                made_at: vec![self.0],
            })
        }
        fn reconnect(&mut self) -> Result<(), CaptureError> {
            Ok(())
        }
    }

    #[test]
    fn a_frame_carries_where_the_source_says_it_changed() {
        let open: SourceOpener = Box::new(|| Ok(Box::new(Changing(0))));
        let w = CaptureWorker::spawn(open, Arc::new(|| {})).unwrap();
        assert!(matches!(
            w.events.recv_timeout(Duration::from_secs(10)).unwrap(),
            CaptureEvent::Opened { .. }
        ));
        let CaptureEvent::Frame(f) = w.events.recv_timeout(Duration::from_secs(10)).unwrap() else {
            panic!("expected a frame");
        };
        let changes = f.changes.expect("the source's changes");
        // The changes of the very frame: made on its own serial.
        assert!(changes.serial >= 1);
        assert_eq!(changes.made_at, vec![changes.serial]);
    }

    /// A camera whose driver stopped answering: `next_frame` does not
    /// return until released.
    struct Stuck(Arc<std::sync::atomic::AtomicBool>);
    impl FrameSource for Stuck {
        fn name(&self) -> String {
            "stuck".into()
        }
        fn next_frame(&mut self) -> Result<(RgbImage, String), CaptureError> {
            while !self.0.load(std::sync::atomic::Ordering::Relaxed) {
                thread::sleep(Duration::from_millis(5));
            }
            Err(CaptureError::Disconnected {
                name: "stuck".into(),
                reason: "released".into(),
            })
        }
        fn reconnect(&mut self) -> Result<(), CaptureError> {
            Ok(())
        }
    }

    #[test]
    fn stopping_a_worker_whose_source_never_returns_does_not_hang() {
        let release = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let held = release.clone();
        let open: SourceOpener = Box::new(move || Ok(Box::new(Stuck(held))));
        let w = CaptureWorker::spawn(open, Arc::new(|| {})).unwrap();
        assert!(matches!(
            w.events.recv_timeout(Duration::from_secs(10)).unwrap(),
            CaptureEvent::Opened { .. }
        ));
        // The thread is inside next_frame now.
        thread::sleep(Duration::from_millis(50));
        let (done_tx, done) = bounded(1);
        thread::spawn(move || {
            drop(w);
            let _ = done_tx.send(());
        });
        let stopped = done.recv_timeout(JOIN_PATIENCE + Duration::from_secs(20));
        release.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(
            stopped.is_ok(),
            "dropping the worker hung on its stuck source"
        );
    }

    #[test]
    fn the_same_picture_for_longer_than_the_hold_is_frozen() {
        let mut still = SamePicture::default();
        let t0 = Instant::now();
        let a = Arc::new(RgbImage::new(4, 4));
        let hold = Duration::from_secs(1);
        assert_eq!(still.frozen_since(&a, t0, hold), None);
        // A copy with the same bytes is the same picture.
        let again = Arc::new((*a).clone());
        let late = t0 + hold + FROZEN_AFTER + Duration::from_millis(1);
        assert_eq!(still.frozen_since(&again, t0 + hold, hold), None);
        assert_eq!(still.frozen_since(&again, late, hold), Some(t0));
        let mut b = (*a).clone();
        b.put_pixel(3, 3, image::Rgb([1, 0, 0]));
        assert_eq!(still.frozen_since(&Arc::new(b), late, hold), None);
    }

    #[test]
    fn a_busy_consumer_gets_the_newest_frame_not_the_first() {
        let open: SourceOpener = Box::new(|| Ok(Box::new(Still)));
        let w = CaptureWorker::spawn(open, Arc::new(|| {})).unwrap();
        assert!(matches!(
            w.events.recv_timeout(Duration::from_secs(10)).unwrap(),
            CaptureEvent::Opened { .. }
        ));
        // The consumer is busy while the source makes several frames.
        thread::sleep(Duration::from_millis(300));
        let CaptureEvent::Frame(frame) = w.events.recv_timeout(Duration::from_secs(10)).unwrap()
        else {
            panic!("expected a frame");
        };
        assert!(frame.seq > 0, "the stale first frame was kept");
    }
}
