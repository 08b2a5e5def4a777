//! A recorded game as a video file (MP4, AVI, MKV ... whatever the system's
//! OpenCV and FFmpeg decode), played back at the file's own frame rate as a
//! camera would deliver it. This is the only module that sees OpenCV's
//! `videoio`.
//!
//! # Conventions
//! - Frames come out as 8-bit sRGB [`RgbImage`]s (OpenCV decodes to BGR; the
//!   channels are swapped here).
//! - Playback loops when `looped`, like a folder of photos; otherwise the end
//!   of the file is reported as a lost source.
//! - A file whose frame rate is unknown plays at the [`Playback`] rate.

use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use image::RgbImage;
use opencv::core::{Mat, MatTraitConst, MatTraitConstManual};
use opencv::imgproc;
use opencv::videoio::{self, VideoCapture, VideoCaptureTrait, VideoCaptureTraitConst};

use super::folder::{Playback, clamp_fps};
use super::{CaptureError, FrameSource};
use crate::spec::flag;

/// File extensions the app treats as video (lower case).
pub const VIDEO_EXTENSIONS: [&str; 7] = ["mp4", "avi", "mkv", "mov", "webm", "m4v", "mpg"];

/// Is this path a video file, by its extension?
pub fn is_video(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| VIDEO_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Plays a video file back as frames.
pub struct VideoSource {
    path: PathBuf,
    capture: VideoCapture,
    playback: Playback,
    /// The file's frame period (the playback rate's when it has none).
    period: Duration,
    frames: Option<u64>,
    next_due: Option<Instant>,
    /// Frames read since the file was (re)started.
    index: u64,
}

fn read_error(path: &Path, reason: impl Into<String>) -> CaptureError {
    CaptureError::Read {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

fn open_capture(path: &Path) -> Result<VideoCapture, CaptureError> {
    if !path.is_file() {
        return Err(read_error(path, "no such file"));
    }
    let name = path
        .to_str()
        .ok_or_else(|| read_error(path, "the file name is not UTF-8: rename it"))?;
    // FFmpeg first (it reads the common files without GStreamer's console
    // noise), then whatever backend this OpenCV has.
    let mut capture = VideoCapture::from_file(name, videoio::CAP_FFMPEG)
        .map_err(|e| read_error(path, e.message))?;
    if !capture.is_opened().unwrap_or(false) {
        capture = VideoCapture::from_file(name, videoio::CAP_ANY)
            .map_err(|e| read_error(path, e.message))?;
    }
    if !capture.is_opened().unwrap_or(false) {
        return Err(read_error(
            path,
            "not a video this system can decode (try MP4 or AVI, or a folder of photos)",
        ));
    }
    Ok(capture)
}

impl VideoSource {
    /// Opens the file and reads its frame rate and length.
    pub fn open(path: &Path, playback: Playback) -> Result<Self, CaptureError> {
        let capture = open_capture(path)?;
        let fps = capture.get(videoio::CAP_PROP_FPS).unwrap_or(0.0);
        // A rate the file gives outside the range `--fps` accepts (0, NaN,
        // a million) is not trusted: the playback rate is used instead.
        let fps = if (flag::MIN_FPS..=flag::MAX_FPS).contains(&fps) {
            fps
        } else {
            clamp_fps(playback.fps)
        };
        let count = capture.get(videoio::CAP_PROP_FRAME_COUNT).unwrap_or(0.0);
        Ok(Self {
            path: path.to_path_buf(),
            capture,
            playback,
            period: Duration::from_secs_f64(1.0 / fps),
            frames: (count.is_finite() && count >= 1.0).then_some(count as u64),
            next_due: None,
            index: 0,
        })
    }

    /// Frames per second the file is played at.
    pub fn fps(&self) -> f64 {
        1.0 / self.period.as_secs_f64()
    }

    /// Reads the next decoded frame, `None` at the end of the file.
    fn read(&mut self) -> Result<Option<RgbImage>, CaptureError> {
        let mut bgr = Mat::default();
        let got = self
            .capture
            .read(&mut bgr)
            .map_err(|e| read_error(&self.path, e.message))?;
        if !got || bgr.empty() {
            return Ok(None);
        }
        rgb_from_bgr(&bgr)
            .map(Some)
            .map_err(|e| read_error(&self.path, format!("frame {}: {e}", self.index)))
    }

    /// Back to the first frame.
    fn rewind(&mut self) -> Result<(), CaptureError> {
        let ok = self
            .capture
            .set(videoio::CAP_PROP_POS_FRAMES, 0.0)
            .unwrap_or(false);
        if !ok {
            // Some containers cannot seek: open the file again.
            self.capture = open_capture(&self.path)?;
        }
        self.index = 0;
        Ok(())
    }

    fn file_name(&self) -> String {
        self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }
}

/// An 8-bit BGR (or grey) OpenCV image as sRGB pixels.
fn rgb_from_bgr(bgr: &Mat) -> Result<RgbImage, String> {
    let mut rgb = Mat::default();
    let code = match bgr.channels() {
        3 => imgproc::COLOR_BGR2RGB,
        4 => imgproc::COLOR_BGRA2RGB,
        1 => imgproc::COLOR_GRAY2RGB,
        n => return Err(format!("{n} colour channels")),
    };
    imgproc::cvt_color_def(bgr, &mut rgb, code).map_err(|e| e.message)?;
    let (w, h) = (rgb.cols(), rgb.rows());
    let rgb = if rgb.is_continuous() {
        rgb
    } else {
        rgb.try_clone().map_err(|e| e.message)?
    };
    let bytes = rgb.data_bytes().map_err(|e| e.message)?.to_vec();
    let (w, h) = (
        u32::try_from(w).map_err(|_| "negative width".to_owned())?,
        u32::try_from(h).map_err(|_| "negative height".to_owned())?,
    );
    RgbImage::from_raw(w, h, bytes).ok_or_else(|| "a frame of the wrong size".to_owned())
}

impl FrameSource for VideoSource {
    fn name(&self) -> String {
        match self.frames {
            Some(n) => format!("{} ({n} frames @{:.0} fps)", self.file_name(), self.fps()),
            None => format!("{} (@{:.0} fps)", self.file_name(), self.fps()),
        }
    }

    fn next_due(&self) -> Option<Instant> {
        self.next_due
    }

    fn next_frame(&mut self) -> Result<(RgbImage, String), CaptureError> {
        let now = Instant::now();
        let due = self.next_due.unwrap_or(now);
        if due > now {
            thread::sleep(due - now);
        }
        // A steady cadence; when behind, do not try to catch up.
        self.next_due = Some((due + self.period).max(Instant::now()));
        let image = match self.read()? {
            Some(img) => img,
            None if self.playback.looped && self.index > 0 => {
                self.rewind()?;
                self.read()?
                    .ok_or_else(|| read_error(&self.path, "no frame after rewinding"))?
            }
            None => {
                return Err(CaptureError::Disconnected {
                    name: self.name(),
                    reason: if self.index == 0 {
                        "the file holds no frames".into()
                    } else {
                        "end of the recording".into()
                    },
                });
            }
        };
        let label = format!("{} frame {}", self.file_name(), self.index + 1);
        self.index += 1;
        Ok((image, label))
    }

    fn reconnect(&mut self) -> Result<(), CaptureError> {
        self.capture = open_capture(&self.path)?;
        self.index = 0;
        self.next_due = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{CV_8UC3, Scalar, Size};
    use opencv::videoio::{VideoWriter, VideoWriterTrait, VideoWriterTraitConst};

    /// Writes `n` frames of 64 x 48, frame k filled with BGR (0, 0, 40 k):
    /// red rising in RGB.
    fn write_video(path: &Path, n: i32) {
        let fourcc = VideoWriter::fourcc('M', 'J', 'P', 'G').unwrap();
        let mut w = VideoWriter::new(
            path.to_str().unwrap(),
            fourcc,
            25.0,
            Size::new(64, 48),
            true,
        )
        .unwrap();
        assert!(w.is_opened().unwrap(), "this OpenCV writes MJPG AVI");
        for k in 0..n {
            let frame = Mat::new_rows_cols_with_default(
                48,
                64,
                CV_8UC3,
                Scalar::new(0.0, 0.0, f64::from(40 * k), 0.0),
            )
            .unwrap();
            w.write(&frame).unwrap();
        }
        w.release().unwrap();
    }

    fn playback(looped: bool) -> Playback {
        Playback {
            fps: 30.0,
            hold: Duration::from_secs(1),
            looped,
        }
    }

    #[test]
    fn a_video_plays_its_frames_in_order_as_rgb_then_loops() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.avi");
        write_video(&path, 4);
        assert!(is_video(&path));
        let mut src = VideoSource::open(&path, playback(true)).unwrap();
        assert!((src.fps() - 25.0).abs() < 0.5, "{}", src.fps());
        assert!(src.name().contains("game.avi"), "{}", src.name());
        let mut reds = Vec::new();
        for _ in 0..6 {
            let (img, label) = src.next_frame().unwrap();
            assert_eq!(img.dimensions(), (64, 48));
            assert!(label.starts_with("game.avi frame "), "{label}");
            let p = img.get_pixel(32, 24).0;
            // JPEG in the file: within a few levels; blue and green stay low.
            assert!(p[1] < 12 && p[2] < 12, "{p:?}");
            reds.push(i32::from(p[0]));
        }
        for (k, r) in reds.iter().enumerate() {
            let want = 40 * (k as i32 % 4);
            assert!((r - want).abs() <= 8, "frame {k}: red {r}, want {want}");
        }
    }

    #[test]
    fn the_end_of_an_unlooped_video_is_a_lost_source() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("short.avi");
        write_video(&path, 2);
        let mut src = VideoSource::open(&path, playback(false)).unwrap();
        src.next_frame().unwrap();
        src.next_frame().unwrap();
        let err = src.next_frame().unwrap_err();
        assert!(matches!(err, CaptureError::Disconnected { .. }), "{err}");
        // Reconnecting starts it again.
        src.reconnect().unwrap();
        assert!(src.next_frame().is_ok());
    }

    #[test]
    fn a_file_that_is_not_a_video_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.mp4");
        std::fs::write(&path, b"this is not a video").unwrap();
        let err = VideoSource::open(&path, playback(true))
            .err()
            .expect("not a video");
        let text = err.to_string();
        assert!(text.contains("notes.mp4"), "{text}");
        let missing = VideoSource::open(&dir.path().join("gone.mp4"), playback(true))
            .err()
            .expect("missing");
        assert!(missing.to_string().contains("no such file"), "{missing}");
    }
}
