//! Capture: frames in, from a webcam ([`camera`], the only module that sees
//! nokhwa), a recorded folder of photos ([`folder`]), a video file
//! ([`video`], through OpenCV's `videoio`), or a simulated source that fails
//! ([`failing`]); and the capture thread ([`worker`]) that pulls them off
//! the UI thread.
//!
//! # Conventions
//! - Frames are 8-bit sRGB [`image::RgbImage`]s in the image frame: pixels,
//!   origin at the top-left pixel, x right, y down.
//! - Every frame carries the [`Instant`] it was captured at; latency is
//!   measured from there.
//! - A recorded game is a folder of numbered JPEG (or PNG) photos, or a
//!   video file in any format the system's OpenCV (FFmpeg) decodes.

pub mod blocks;
pub mod camera;
pub mod decode;
pub mod failing;
pub mod folder;
pub mod huffman;
pub mod video;
pub mod worker;

use std::sync::Arc;
use std::time::{Duration, Instant};

use image::RgbImage;

pub use failing::FailingSource;
pub use folder::FolderSource;
pub use video::VideoSource;
pub use worker::{CaptureEvent, CaptureWorker};

/// What can go wrong while capturing.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("no camera found: plug a webcam in, or open a recorded folder")]
    NoCamera,
    #[error("camera {name}: {reason}")]
    Camera { name: String, reason: String },
    #[error("the source {name} stopped delivering frames: {reason}")]
    Disconnected { name: String, reason: String },
    #[error("folder {path} holds no .jpg, .jpeg or .png photos")]
    EmptyFolder { path: String },
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
}

/// How long a source may deliver the very same picture (byte for byte,
/// after decoding) before it is called frozen, on top of the time the
/// source itself shows one picture ([`FrameSource::holds_still`]). A live
/// camera's noise changes some pixel on every frame; a driver or cable
/// fault repeats the last buffer.
pub const FROZEN_AFTER: Duration = Duration::from_secs(3);

/// Opens a source on the capture thread.
pub type SourceOpener = Box<dyn FnOnce() -> Result<Box<dyn FrameSource>, CaptureError> + Send>;

/// One captured frame.
#[derive(Debug, Clone)]
pub struct Frame {
    /// Counts up from 0 over the life of a source.
    pub seq: u64,
    /// When the frame left the source.
    pub captured_at: Instant,
    /// Shared, because the UI and the detector both read it.
    pub image: Arc<RgbImage>,
    /// Where the frame came from, for the status line (file name or camera).
    pub label: String,
    /// Set when the picture is frozen: this frame is identical to every
    /// frame since then, for longer than [`FROZEN_AFTER`] beyond the
    /// source's own hold. A frozen frame never moves a figure.
    pub frozen_since: Option<Instant>,
    /// Where the pixels may differ from the source's earlier frames, when
    /// the source knows (a camera's MJPEG through the partial decoder).
    pub changes: Option<Arc<FrameChanges>>,
}

/// Where a frame's pixels may differ from the earlier frames of the same
/// stream, as a decoder that makes again only what changed knows it
/// ([`blocks::PartialDecoder::changes`]): the frame is cut
/// into cells (a JPEG's MCUs), and each cell holds the serial of the last
/// frame on which its pixels were made. A cell made on no later frame than
/// one the detector saw has exactly the pixels it had then, so the change
/// test takes its colours from that frame instead of reading them again.
/// Serials survive dropped frames: a consumer that skipped some compares
/// with the last serial it saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameChanges {
    /// A stream shares nothing with another (the decoder started again, a
    /// new camera or frame size).
    pub stream: u64,
    /// This frame's serial in the stream.
    pub serial: u64,
    /// A cell's width and height, pixels.
    pub cell_px: [u32; 2],
    /// Cells across and down (covering the frame).
    pub cols: usize,
    pub rows: usize,
    /// Per cell, row-major: the serial of the frame its pixels were last
    /// made on.
    pub made_at: Vec<u64>,
}

impl FrameChanges {
    /// Whether the changes describe a frame of this size.
    pub fn fits(&self, size: [u32; 2]) -> bool {
        let [cw, ch] = self.cell_px;
        cw > 0
            && ch > 0
            && self.made_at.len() == self.cols * self.rows
            && self.cols as u64 * u64::from(cw) >= u64::from(size[0])
            && self.rows as u64 * u64::from(ch) >= u64::from(size[1])
    }

    /// Summed counts of the cells made after `serial`: `(cols + 1) x (rows
    /// + 1)`, so any rectangle of cells is four lookups.
    pub fn made_after(&self, serial: u64) -> Vec<u32> {
        let w = self.cols + 1;
        let mut sums = vec![0u32; w * (self.rows + 1)];
        for j in 0..self.rows {
            let mut run = 0;
            for i in 0..self.cols {
                run += u32::from(self.made_at[j * self.cols + i] > serial);
                sums[(j + 1) * w + i + 1] = sums[j * w + i + 1] + run;
            }
        }
        sums
    }
}

/// A source of frames. `next_frame` blocks until the next frame is due
/// (a camera's frame period, or a recording's playback rate). Sources are
/// opened on the capture thread (cameras may not move between threads), so
/// the trait does not require `Send`.
pub trait FrameSource {
    /// A short human name: "Logitech C920 1920x1080 @30" or "demo (7 photos)".
    fn name(&self) -> String;

    /// The next frame's pixels and a label for it.
    fn next_frame(&mut self) -> Result<(RgbImage, String), CaptureError>;

    /// Where the last frame's pixels may differ from the earlier frames,
    /// when the source knows (see [`FrameChanges`]).
    fn changes(&self) -> Option<FrameChanges> {
        None
    }

    /// When the next frame is due, for a source that paces itself (a
    /// recording). The capture thread waits for it where a stop interrupts
    /// the wait, so that `next_frame` then returns at once however long the
    /// frame period. `None` (a camera): `next_frame` blocks on its own.
    fn next_due(&self) -> Option<Instant> {
        None
    }

    /// How long the source itself shows one picture: a recording's hold,
    /// during which identical frames are expected. Zero for a camera.
    fn holds_still(&self) -> Duration {
        Duration::ZERO
    }

    /// Tries to open the source again after it failed.
    fn reconnect(&mut self) -> Result<(), CaptureError>;
}
