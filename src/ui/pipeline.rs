//! The perception thread: takes frames from the capture thread, finds the
//! table and the figures on them, and hands each frame with what was seen on
//! it to the UI. The UI thread only paints.
//!
//! # Conventions
//! - Times are [`Instant`]s; `captured_at` comes from the capture thread, so
//!   `processed_at - captured_at` is the detection latency and the UI adds
//!   its own paint time to get the overlay latency.
//! - Figure positions are in table inches (table frame of `TABLE_KIT.md`).

use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded, select};
use image::RgbImage;

use crate::calibration::{MarkerObservation, TableMapping};
use crate::capture::worker::DeliveryClock;
use crate::capture::{CaptureEvent, CaptureWorker, Frame, SourceOpener};
use crate::vision::Detection;

/// Processed frames waiting for the UI. Two: one being painted, one ready.
pub const PROCESSED_QUEUE: usize = 2;
/// Widest preview sent to the UI, pixels. The live view is rarely wider on
/// screen, and a smaller texture keeps the upload off the UI's frame time.
pub const PREVIEW_MAX_WIDTH_PX: u32 = 1280;

/// One figure seen on one frame, with the identity the tracker gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct SeenFigure {
    /// Stable across frames when a tracker runs; otherwise the index in the
    /// frame's detections.
    pub id: u32,
    pub detection: Detection,
    /// The tracker cannot yet tell this figure from that one (they may have
    /// been swapped): shown as a question until the player or later frames
    /// settle it.
    pub ambiguous_with: Option<u32>,
}

/// The state of the table lock after a frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LockSummary {
    /// Table markers (by id) found on this frame.
    pub markers_found: Vec<u32>,
    /// Marker ids the layout expects.
    pub markers_expected: Vec<u32>,
    /// Table width and depth, inches (from the layout).
    pub table_in: [f64; 2],
    /// The mapping the game is measured against.
    pub locked: Option<TableMapping>,
    /// The newest mapping jumped away from the locked one.
    pub camera_moved: bool,
    /// How far it jumped, pixels at the table corners.
    pub moved_px: f64,
    /// Why there is no mapping on this frame, when there is none.
    pub problem: Option<String>,
}

/// What was seen on one frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Perception {
    pub lock: LockSummary,
    /// Marker corners as seen, image pixels (for the calibration view).
    pub markers: Vec<MarkerObservation>,
    pub figures: Vec<SeenFigure>,
    /// Terrain pieces the camera sees (the player says what each is).
    pub terrain: Vec<crate::vision::terrain::SeenTerrain>,
    /// Why the detector gave nothing, when it failed.
    pub detector_problem: Option<String>,
    /// Time spent finding markers and figures, milliseconds.
    pub work_ms: f64,
}

/// Finds the table and the figures on a frame. Implemented over the
/// calibration and vision modules; tests use their own.
pub trait Perceiver: Send {
    fn perceive(&mut self, image: &RgbImage) -> Perception;
    /// As [`Perceiver::perceive`], told where the pixels may differ from the
    /// earlier frames (a perceiver that cannot use it perceives the frame).
    fn perceive_changed(
        &mut self,
        image: &RgbImage,
        changes: Option<&crate::vision::incremental::FrameChanges>,
    ) -> Perception {
        let _ = changes;
        self.perceive(image)
    }
    /// Accepts the current table mapping after the camera moved.
    fn relock(&mut self);
}

/// A frame and what was seen on it.
#[derive(Debug, Clone)]
pub struct Processed {
    pub frame: Frame,
    /// The frame shrunk for display, ready to upload as a texture (built on
    /// the perception thread, not the UI thread).
    pub preview: Arc<egui::ColorImage>,
    pub perception: Perception,
    pub processed_at: Instant,
    /// What is wrong with the picture, when something is: a frame with a
    /// fault never moves a figure.
    pub fault: Option<PictureFault>,
}

/// A picture that cannot be trusted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PictureFault {
    /// Black (lens cap, lights out, a hand over the lens) since then: the
    /// frame is not looked at, the table lock and the figures are kept as
    /// last seen.
    Dark { since: Instant },
    /// The same picture since then (see [`crate::capture::FROZEN_AFTER`]).
    Frozen { since: Instant },
}

/// A frame is black when fewer than this share of its sampled pixels are
/// brighter than [`DARK_LUMA`].
pub const DARK_BRIGHT_SHARE: f64 = 0.005;
/// Grey level (0-255) under which a pixel counts as black.
pub const DARK_LUMA: u32 = 32;
/// Pixels sampled per frame for the black test.
const DARK_SAMPLES: u32 = 4096;

/// Is the picture black? A sample of pixels on a grid, so that a 4K frame
/// costs what a small one does.
pub fn is_dark(image: &RgbImage) -> bool {
    let (w, h) = image.dimensions();
    let n = u64::from(w) * u64::from(h);
    if n == 0 {
        return true;
    }
    let step = (n / u64::from(DARK_SAMPLES)).max(1);
    let (mut seen, mut bright) = (0_u64, 0_u64);
    let mut i = 0_u64;
    while i < n {
        // i < w * h, so both fit in u32.
        let (x, y) = ((i % u64::from(w)) as u32, (i / u64::from(w)) as u32);
        let [r, g, b] = image.get_pixel(x, y).0;
        let luma = (u32::from(r) * 3 + u32::from(g) * 6 + u32::from(b)) / 10;
        seen += 1;
        if luma > DARK_LUMA {
            bright += 1;
        }
        i += step;
    }
    (bright as f64) < DARK_BRIGHT_SHARE * seen as f64
}

/// The perception thread's work on one frame: a black frame is not looked
/// at (the last perception is kept: the lock and the figures as last seen),
/// any other is perceived.
struct Seer {
    perceiver: Box<dyn Perceiver>,
    last: Option<Perception>,
    dark_since: Option<Instant>,
}

impl Seer {
    fn new(perceiver: Box<dyn Perceiver>) -> Self {
        Self {
            perceiver,
            last: None,
            dark_since: None,
        }
    }

    fn process(&mut self, frame: Frame) -> Processed {
        let started = Instant::now();
        self.dark_since = if is_dark(&frame.image) {
            self.dark_since.or(Some(frame.captured_at))
        } else {
            None
        };
        let mut perception = match (self.dark_since, &self.last) {
            (Some(_), Some(last)) => last.clone(),
            _ => {
                let p = self
                    .perceiver
                    .perceive_changed(&frame.image, frame.changes.as_deref());
                self.last = Some(p.clone());
                p
            }
        };
        perception.work_ms = started.elapsed().as_secs_f64() * 1e3;
        let fault = match (self.dark_since, frame.frozen_since) {
            (Some(since), _) => Some(PictureFault::Dark { since }),
            (None, Some(since)) => Some(PictureFault::Frozen { since }),
            (None, None) => None,
        };
        let preview = Arc::new(preview_of(&frame.image));
        Processed {
            frame,
            preview,
            perception,
            processed_at: Instant::now(),
            fault,
        }
    }
}

/// Shrinks a frame by a whole factor (box filter) so it is at most
/// [`PREVIEW_MAX_WIDTH_PX`] wide, as an egui image.
pub fn preview_of(image: &RgbImage) -> egui::ColorImage {
    let (w, h) = image.dimensions();
    let factor = w.div_ceil(PREVIEW_MAX_WIDTH_PX).max(1);
    if factor == 1 {
        return egui::ColorImage::from_rgb([w as usize, h as usize], image.as_raw());
    }
    let (pw, ph) = (w / factor, h / factor);
    let n = factor * factor;
    let raw = image.as_raw();
    let stride = w as usize * 3;
    let mut out = Vec::with_capacity((pw * ph * 3) as usize);
    for py in 0..ph {
        for px in 0..pw {
            let mut sum = [0_u32; 3];
            for dy in 0..factor {
                let row = (py * factor + dy) as usize * stride;
                for dx in 0..factor {
                    let i = row + (px * factor + dx) as usize * 3;
                    for (c, s) in sum.iter_mut().enumerate() {
                        *s += u32::from(raw[i + c]);
                    }
                }
            }
            // The mean of u8 values fits in u8.
            out.extend(sum.map(|s| u8::try_from(s / n).unwrap_or(u8::MAX)));
        }
    }
    egui::ColorImage::from_rgb([pw as usize, ph as usize], &out)
}

/// What the perception thread reports to the UI.
#[derive(Debug, Clone)]
pub enum PipelineEvent {
    Opened { source: String },
    Processed(Box<Processed>),
    Lost { source: String, reason: String },
    Reconnected { source: String },
}

enum Control {
    Relock,
    Reconnect,
    Stop,
}

/// Handle on the capture and perception threads.
pub struct Pipeline {
    pub events: Receiver<PipelineEvent>,
    control: Sender<Control>,
    handle: Option<JoinHandle<()>>,
    delivered: DeliveryClock,
}

impl Pipeline {
    /// Starts capture (opening the source on its thread) and perception.
    /// `wake` is called whenever an event is ready (the UI's repaint).
    pub fn spawn(
        open: SourceOpener,
        perceiver: Box<dyn Perceiver>,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> std::io::Result<Self> {
        // The capture thread wakes the perception thread through its
        // channel; it needs no callback of its own.
        let capture = CaptureWorker::spawn(open, Arc::new(|| {}))?;
        let delivered = capture.delivery_clock();
        let (tx, events) = bounded(PROCESSED_QUEUE);
        let (control, control_rx) = bounded::<Control>(4);
        let handle = thread::Builder::new().name("perception".into()).spawn(move || {
            let mut seer = Seer::new(perceiver);
            loop {
                select! {
                    recv(control_rx) -> msg => match msg {
                        Ok(Control::Relock) => seer.perceiver.relock(),
                        Ok(Control::Reconnect) => capture.reconnect(),
                        Ok(Control::Stop) | Err(_) => return,
                    },
                    recv(capture.events) -> ev => {
                        let Ok(ev) = ev else { return };
                        let out = match ev {
                            CaptureEvent::Opened { source } => PipelineEvent::Opened { source },
                            CaptureEvent::Lost { source, reason } => PipelineEvent::Lost { source, reason },
                            CaptureEvent::Reconnected { source } => PipelineEvent::Reconnected { source },
                            CaptureEvent::Frame(frame) => {
                                PipelineEvent::Processed(Box::new(seer.process(frame)))
                            }
                        };
                        if tx.send(out).is_err() {
                            return;
                        }
                        wake();
                    }
                }
            }
        })?;
        Ok(Self {
            events,
            control,
            handle: Some(handle),
            delivered,
        })
    }

    /// When the source last delivered a frame, processed yet or not: a
    /// slow detector does not make a live camera look stopped.
    pub fn last_delivered(&self) -> Option<Instant> {
        self.delivered.last()
    }

    /// Accepts the current table mapping (one-click re-lock).
    pub fn relock(&self) {
        let _ = self.control.try_send(Control::Relock);
    }

    /// Asks the capture thread to reopen a lost source now.
    pub fn reconnect(&self) {
        let _ = self.control.try_send(Control::Reconnect);
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        let _ = self.control.send(Control::Stop);
        if let Some(h) = self.handle.take() {
            // The thread may be blocked sending to a full queue: drain it.
            // It stops its capture thread within JOIN_PATIENCE; a perceiver
            // stuck for longer is left behind rather than hanging the app.
            let give_up = Instant::now() + 2 * crate::capture::worker::JOIN_PATIENCE;
            while !h.is_finished() {
                if Instant::now() >= give_up {
                    return;
                }
                while self.events.try_recv().is_ok() {}
                thread::sleep(Duration::from_millis(1));
            }
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_black_picture_is_dark_and_a_dim_table_is_not() {
        let mut noisy_black = RgbImage::new(640, 480);
        for (i, p) in noisy_black.pixels_mut().enumerate() {
            // Sensor noise in the dark: a few grey levels.
            let v = u8::try_from(i % 7).unwrap_or(0) * 3;
            *p = image::Rgb([v, v, v]);
        }
        assert!(is_dark(&noisy_black));
        assert!(is_dark(&RgbImage::new(0, 0)));
        let dim = RgbImage::from_pixel(640, 480, image::Rgb([60, 50, 40]));
        assert!(!is_dark(&dim));
        // A black picture with a lit marker in a corner is not black.
        let mut lit = RgbImage::new(640, 480);
        for y in 0..120 {
            for x in 0..160 {
                lit.put_pixel(x, y, image::Rgb([255, 255, 255]));
            }
        }
        assert!(!is_dark(&lit));
    }

    #[test]
    fn preview_averages_whole_blocks() {
        let w = PREVIEW_MAX_WIDTH_PX + 2;
        let mut img = RgbImage::new(w, 4);
        img.put_pixel(0, 0, image::Rgb([200, 0, 0]));
        img.put_pixel(1, 1, image::Rgb([200, 0, 0]));
        let p = preview_of(&img);
        assert_eq!(p.size, [(w / 2) as usize, 2]);
        assert_eq!(p.pixels[0], egui::Color32::from_rgb(100, 0, 0));
        assert_eq!(p.pixels[1], egui::Color32::BLACK);
    }
}
