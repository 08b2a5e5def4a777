//! A source that fails on purpose: the camera pulled out mid-game. It
//! delivers frames from an inner source, then errors until reconnected,
//! and can refuse a number of reconnects (the cable is still out).
//!
//! # Conventions
//! Counts are frames delivered and reconnect attempts made; no clocks.

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
