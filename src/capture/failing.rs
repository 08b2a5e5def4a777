//! Sources that fail on purpose. [`FailingSource`]: the camera pulled out
//! mid-game; it delivers frames from an inner source, then errors until
//! reconnected, and can refuse a number of reconnects (the cable is still
//! out). [`ScriptedSource`]: a camera whose every fault (unplugged, stopped
//! answering, black, frozen) is switched on and off while the app runs.
//!
//! # Conventions
//! Counts are frames delivered and reconnect attempts made; the scripted
//! source paces itself at its frame period.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use image::RgbImage;

use super::{CaptureError, FrameSource};

/// Wraps a source and cuts it off after `frames_before_failure` frames.
pub struct FailingSource<S> {
    inner: S,
    frames_before_failure: u64,
    refused_reconnects: u32,
    delivered: u64,
    failed: bool,
}

impl<S: FrameSource> FailingSource<S> {
    /// Fails after `frames_before_failure` frames; the first
    /// `refused_reconnects` reconnect attempts fail too.
    pub fn new(inner: S, frames_before_failure: u64, refused_reconnects: u32) -> Self {
        Self {
            inner,
            frames_before_failure,
            refused_reconnects,
            delivered: 0,
            failed: false,
        }
    }
}

impl<S: FrameSource> FrameSource for FailingSource<S> {
    fn name(&self) -> String {
        format!(
            "{} (fails after {} frames)",
            self.inner.name(),
            self.frames_before_failure
        )
    }

    fn next_frame(&mut self) -> Result<(RgbImage, String), CaptureError> {
        if self.failed || self.delivered >= self.frames_before_failure {
            self.failed = true;
            return Err(CaptureError::Disconnected {
                name: self.inner.name(),
                reason: "the camera was unplugged (simulated)".into(),
            });
        }
        self.delivered += 1;
        self.inner.next_frame()
    }

    fn next_due(&self) -> Option<std::time::Instant> {
        self.inner.next_due()
    }

    fn changes(&self) -> Option<crate::capture::FrameChanges> {
        self.inner.changes()
    }

    fn holds_still(&self) -> std::time::Duration {
        self.inner.holds_still()
    }

    fn reconnect(&mut self) -> Result<(), CaptureError> {
        if self.refused_reconnects > 0 {
            self.refused_reconnects -= 1;
            return Err(CaptureError::Disconnected {
                name: self.inner.name(),
                reason: "still unplugged (simulated)".into(),
            });
        }
        self.inner.reconnect()?;
        self.failed = false;
        // A reconnected camera runs until pulled out again.
        self.frames_before_failure = u64::MAX;
        Ok(())
    }
}

/// What a [`ScriptedSource`] shows; changed while the app runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Scene {
    /// A live picture: this image with a camera's noise (one pixel of the
    /// bottom row changes on every frame, so no two frames are the same).
    Live(Arc<RgbImage>),
    /// The last frame again and again, byte for byte.
    Frozen,
    /// All black, the size of the last picture.
    Black,
    /// `next_frame` does not return (a driver that stopped answering) until
    /// the scene changes.
    Stalled,
    /// `next_frame` and `reconnect` fail: the cable is out.
    Unplugged,
}

/// How often a stalled [`ScriptedSource`] looks whether its scene changed.
const STALL_POLL: Duration = Duration::from_millis(10);

/// A camera played from a [`Scene`] that the test changes.
pub struct ScriptedSource {
    name: String,
    scene: Arc<Mutex<Scene>>,
    period: Duration,
    next_due: Option<Instant>,
    last: Option<RgbImage>,
    frames: u64,
}

impl ScriptedSource {
    /// A source named `name` delivering a frame every `period`.
    pub fn new(name: &str, scene: Arc<Mutex<Scene>>, period: Duration) -> Self {
        Self {
            name: name.to_string(),
            scene,
            period,
            next_due: None,
            last: None,
            frames: 0,
        }
    }

    fn scene(&self) -> Scene {
        self.scene
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn unplugged(&self) -> CaptureError {
        CaptureError::Disconnected {
            name: self.name.clone(),
            reason: "the camera was unplugged (scripted)".into(),
        }
    }
}

impl FrameSource for ScriptedSource {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn next_due(&self) -> Option<Instant> {
        self.next_due
    }

    fn next_frame(&mut self) -> Result<(RgbImage, String), CaptureError> {
        self.next_due = Some(Instant::now() + self.period);
        let scene = loop {
            match self.scene() {
                Scene::Stalled => std::thread::sleep(STALL_POLL),
                other => break other,
            }
        };
        let (w, h) = self.last.as_ref().map_or((4, 4), RgbImage::dimensions);
        let image = match scene {
            Scene::Live(picture) => {
                let mut img = (*picture).clone();
                let (pw, ph) = img.dimensions();
                if pw > 0 && ph > 0 {
                    // Truncation is the point: the noise walks along the row.
                    let x = (self.frames % u64::from(pw)) as u32;
                    let p = img.get_pixel_mut(x, ph - 1);
                    p.0[0] = p.0[0].wrapping_add(1);
                }
                img
            }
            Scene::Frozen => self.last.clone().unwrap_or_else(|| RgbImage::new(w, h)),
            Scene::Black => RgbImage::new(w, h),
            Scene::Unplugged | Scene::Stalled => return Err(self.unplugged()),
        };
        self.frames += 1;
        self.last = Some(image.clone());
        Ok((image, format!("frame {}", self.frames)))
    }

    fn reconnect(&mut self) -> Result<(), CaptureError> {
        match self.scene() {
            Scene::Unplugged => Err(self.unplugged()),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counter(u8);
    impl FrameSource for Counter {
        fn name(&self) -> String {
            "counter".into()
        }
        fn next_frame(&mut self) -> Result<(RgbImage, String), CaptureError> {
            self.0 = self.0.wrapping_add(1);
            Ok((
                RgbImage::from_pixel(2, 2, image::Rgb([self.0, 0, 0])),
                self.0.to_string(),
            ))
        }
        fn reconnect(&mut self) -> Result<(), CaptureError> {
            Ok(())
        }
    }

    #[test]
    fn fails_after_n_frames_until_reconnected() {
        let mut src = FailingSource::new(Counter(0), 2, 1);
        assert!(src.next_frame().is_ok());
        assert!(src.next_frame().is_ok());
        assert!(matches!(
            src.next_frame(),
            Err(CaptureError::Disconnected { .. })
        ));
        assert!(src.reconnect().is_err(), "first reconnect is refused");
        assert!(src.next_frame().is_err());
        assert!(src.reconnect().is_ok());
        assert_eq!(src.next_frame().unwrap().1, "3");
    }
}
