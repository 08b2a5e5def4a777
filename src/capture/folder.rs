//! A recorded game: a folder of photos played back as a camera would deliver
//! them. Each photo is one moment of the game; it is repeated at the frame
//! rate for `hold` before the next one, so that the detector downstream works
//! under the load of a live camera.
//!
//! # Conventions
//! Photos are ordered by file name (`frame-01.jpg`, `frame-02.jpg`, ...);
//! playback loops. Decoded photos are kept in memory (a recording is a few
//! dozen stills, not a video).

use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use image::RgbImage;

use super::{CaptureError, FrameChanges, FrameSource};
use crate::spec::flag;

/// File extensions read as photos (lower case).
const PHOTO_EXTENSIONS: [&str; 3] = ["jpg", "jpeg", "png"];

/// How a recording is played back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Playback {
    /// Frames delivered per second.
    pub fps: f64,
    /// How long each photo is shown before the next.
    pub hold: Duration,
    /// Start over after the last photo.
    pub looped: bool,
}

impl Playback {
    /// The frame period, never endless nor zero: the rate is held to the
    /// range the `--fps` flag accepts (see [`clamp_fps`]).
    pub fn period(&self) -> Duration {
        Duration::from_secs_f64(1.0 / clamp_fps(self.fps))
    }
}

/// A frame rate held to [`flag::MIN_FPS`]..=[`flag::MAX_FPS`]; one that is
/// not a number is the default 30 fps. Flags and files are checked where
/// they are parsed; this keeps a rate set in code from giving a period of
/// years (a capture thread asleep for ever) or of nothing.
pub fn clamp_fps(fps: f64) -> f64 {
    if fps.is_nan() {
        Playback::default().fps
    } else {
        fps.clamp(flag::MIN_FPS, flag::MAX_FPS)
    }
}

impl Default for Playback {
    /// A 30 fps webcam, and long enough per photo to read the overlay.
    fn default() -> Self {
        Self {
            fps: 30.0,
            hold: Duration::from_secs(4),
            looped: true,
        }
    }
}

/// Plays a folder of photos back as frames.
pub struct FolderSource {
    dir: PathBuf,
    paths: Vec<PathBuf>,
    decoded: Vec<Option<RgbImage>>,
    playback: Playback,
    started: Option<Instant>,
    next_due: Option<Instant>,
    /// A manual step (previous/next photo) moves the playback start.
    offset_photos: i64,
    /// JPEG photos are decoded in the order shown, as a camera's MJPEG
    /// stream is: only what changed since the photo shown before is made
    /// again, and the detector is told where (`changes`).
    partial: super::blocks::PartialDecoder,
    /// The photo the partial decoder holds, and where it changed.
    shown: Option<usize>,
    changes: Option<FrameChanges>,
}

/// The photos in a folder, sorted by name.
pub fn list_photos(dir: &Path) -> Result<Vec<PathBuf>, CaptureError> {
    let entries = std::fs::read_dir(dir).map_err(|e| CaptureError::Read {
        path: dir.display().to_string(),
        reason: e.to_string(),
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| PHOTO_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        })
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(CaptureError::EmptyFolder {
            path: dir.display().to_string(),
        });
    }
    Ok(paths)
}

/// A photo's bytes, capped like every photo Spotter reads: a huge file is
/// refused before it is read, naming the cap.
fn read_photo(path: &Path) -> Result<Vec<u8>, CaptureError> {
    crate::spec::read_capped(path, crate::spec::MAX_PHOTO_BYTES).map_err(|e| CaptureError::Read {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

fn is_jpeg(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("jpg") || e.eq_ignore_ascii_case("jpeg"))
}

impl FolderSource {
    /// Opens a folder; photos are decoded on first use.
    pub fn open(dir: &Path, playback: Playback) -> Result<Self, CaptureError> {
        let paths = list_photos(dir)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            decoded: vec![None; paths.len()],
            paths,
            playback,
            started: None,
            next_due: None,
            offset_photos: 0,
            partial: super::blocks::PartialDecoder::new(Default::default()),
            shown: None,
            changes: None,
        })
    }

    /// Number of photos in the recording.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Always false: an empty folder does not open.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// Which photo is shown at `elapsed` after the start, or `None` after
    /// the end of a recording that does not loop.
    pub fn photo_at(&self, elapsed: Duration) -> Option<usize> {
        let n = self.paths.len() as i64;
        let hold_s = self.playback.hold.as_secs_f64().max(f64::EPSILON);
        // Truncation is the point: photo k is shown during [k*hold, (k+1)*hold).
        #[allow(
            clippy::cast_possible_truncation,
            reason = "floor of a small positive ratio"
        )]
        let k = (elapsed.as_secs_f64() / hold_s).floor() as i64 + self.offset_photos;
        if self.playback.looped {
            Some(k.rem_euclid(n) as usize)
        } else if (0..n).contains(&k) {
            Some(k as usize)
        } else {
            None
        }
    }

    /// Steps the playback by `photos` (negative: back).
    pub fn step(&mut self, photos: i64) {
        self.offset_photos += photos;
    }

    /// Photo `index` as shown next: a JPEG through the partial decoder (the
    /// photo shown again costs nothing), anything else, or a JPEG it does
    /// not take, decoded whole (and kept).
    fn shown_photo(&mut self, index: usize) -> Result<RgbImage, CaptureError> {
        if self.shown == Some(index)
            && let Some(frame) = self.partial.frame()
        {
            return Ok(frame.clone());
        }
        self.shown = None;
        self.changes = None;
        if is_jpeg(&self.paths[index]) {
            let bytes = read_photo(&self.paths[index])?;
            if let Ok(frame) = self.partial.decode(&bytes) {
                let frame = frame.clone();
                self.shown = Some(index);
                self.changes = self.partial.changes();
                return Ok(frame);
            }
            self.partial.reset();
        }
        self.photo(index).cloned()
    }

    fn photo(&mut self, index: usize) -> Result<&RgbImage, CaptureError> {
        if self.decoded[index].is_none() {
            let path = &self.paths[index];
            let read = |reason: String| CaptureError::Read {
                path: path.display().to_string(),
                reason,
            };
            let jpeg = is_jpeg(path);
            let bytes = read_photo(path)?;
            let img = if jpeg {
                super::decode::decode_jpeg(&bytes, super::decode::FASTEST)
                    .map_err(|e| read(e.to_string()))?
            } else {
                match image::ImageFormat::from_path(path) {
                    Ok(format) => image::load_from_memory_with_format(&bytes, format),
                    Err(_) => image::load_from_memory(&bytes),
                }
                .map_err(|e| read(e.to_string()))?
                .to_rgb8()
            };
            self.decoded[index] = Some(img);
        }
        self.decoded[index]
            .as_ref()
            .ok_or_else(|| CaptureError::Read {
                path: self.paths[index].display().to_string(),
                reason: "decoding failed".into(),
            })
    }
}

impl FrameSource for FolderSource {
    fn name(&self) -> String {
        let folder = self.dir.file_name().map_or_else(
            || self.dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        format!(
            "{folder} ({} photos @{:.0} fps)",
            self.paths.len(),
            clamp_fps(self.playback.fps)
        )
    }

    fn next_due(&self) -> Option<Instant> {
        self.next_due
    }

    fn holds_still(&self) -> Duration {
        self.playback.hold
    }

    fn next_frame(&mut self) -> Result<(RgbImage, String), CaptureError> {
        let now = Instant::now();
        let started = *self.started.get_or_insert(now);
        let period = self.playback.period();
        let due = self.next_due.unwrap_or(now);
        if due > now {
            thread::sleep(due - now);
        }
        // Keep a steady cadence; if we fell behind, do not try to catch up.
        self.next_due = Some((due + period).max(Instant::now()));
        let index =
            self.photo_at(Instant::now() - started)
                .ok_or_else(|| CaptureError::Disconnected {
                    name: self.name(),
                    reason: "end of the recording".into(),
                })?;
        let label = self.paths[index]
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let image = self.shown_photo(index)?;
        Ok((image, label))
    }

    fn changes(&self) -> Option<FrameChanges> {
        self.changes.clone()
    }

    fn reconnect(&mut self) -> Result<(), CaptureError> {
        // A folder is always there unless it was deleted: check it still is.
        self.paths = list_photos(&self.dir)?;
        self.decoded = vec![None; self.paths.len()];
        self.partial.reset();
        self.shown = None;
        self.changes = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_photos(dir: &Path, n: usize) {
        for i in 0..n {
            let img = RgbImage::from_pixel(8, 4, image::Rgb([u8::try_from(i * 40).unwrap(), 0, 0]));
            img.save(dir.join(format!("frame-{i:02}.png"))).unwrap();
        }
        std::fs::write(dir.join("notes.txt"), "not a photo").unwrap();
    }

    #[test]
    fn plays_photos_in_name_order_and_loops() {
        let dir = tempfile::tempdir().unwrap();
        write_photos(dir.path(), 3);
        let playback = Playback {
            fps: 30.0,
            hold: Duration::from_secs(2),
            looped: true,
        };
        let src = FolderSource::open(dir.path(), playback).unwrap();
        assert_eq!(src.len(), 3);
        assert_eq!(src.photo_at(Duration::from_millis(100)), Some(0));
        assert_eq!(src.photo_at(Duration::from_millis(2100)), Some(1));
        assert_eq!(src.photo_at(Duration::from_millis(6100)), Some(0));
    }

    #[test]
    fn without_loop_the_recording_ends() {
        let dir = tempfile::tempdir().unwrap();
        write_photos(dir.path(), 2);
        let playback = Playback {
            fps: 30.0,
            hold: Duration::from_secs(1),
            looped: false,
        };
        let mut src = FolderSource::open(dir.path(), playback).unwrap();
        assert_eq!(src.photo_at(Duration::from_millis(2500)), None);
        src.step(-1);
        assert_eq!(src.photo_at(Duration::from_millis(2500)), Some(1));
    }

    #[test]
    fn delivers_decoded_frames_with_their_file_name() {
        let dir = tempfile::tempdir().unwrap();
        write_photos(dir.path(), 2);
        let mut src = FolderSource::open(dir.path(), Playback::default()).unwrap();
        let (img, label) = src.next_frame().unwrap();
        assert_eq!(img.dimensions(), (8, 4));
        assert_eq!(label, "frame-00.png");
    }

    #[test]
    fn jpeg_photos_tell_the_detector_which_cells_were_made_again() {
        // Two 64x48 JPEGs that differ in their top-left 16x16 only: shown in
        // turn, the second photo's changes mark that MCU as made on the new
        // frame and the others as made before; the same photo shown again
        // changes nothing.
        let dir = tempfile::tempdir().unwrap();
        let base = RgbImage::from_fn(64, 48, |x, y| {
            image::Rgb([(x * 3) as u8, (y * 5) as u8, 90])
        });
        let mut moved = base.clone();
        for y in 0..16 {
            for x in 0..16 {
                moved.put_pixel(x, y, image::Rgb([250, 20, 20]));
            }
        }
        base.save(dir.path().join("frame-00.jpg")).unwrap();
        moved.save(dir.path().join("frame-01.jpg")).unwrap();
        let playback = Playback {
            fps: 1000.0,
            hold: Duration::from_secs(3600),
            looped: true,
        };
        let mut src = FolderSource::open(dir.path(), playback).unwrap();
        let (first, label) = src.next_frame().unwrap();
        assert_eq!(label, "frame-00.jpg");
        assert_eq!(first.dimensions(), (64, 48));
        let c0 = src.changes().expect("a JPEG photo carries its changes");
        let (again, _) = src.next_frame().unwrap();
        assert_eq!(again, first);
        assert_eq!(src.changes(), Some(c0.clone()), "shown again: nothing new");
        src.step(1);
        let (second, label) = src.next_frame().unwrap();
        assert_eq!(label, "frame-01.jpg");
        let c1 = src.changes().unwrap();
        assert_eq!(c1.stream, c0.stream);
        assert!(c1.serial > c0.serial);
        let [cw, ch] = c1.cell_px;
        let mut made_now = Vec::new();
        for r in 0..c1.rows {
            for c in 0..c1.cols {
                if c1.made_at[r * c1.cols + c] == c1.serial {
                    made_now.push((c as u32 * cw, r as u32 * ch));
                }
            }
        }
        // Made again: the square, its ring (neighbours read its chroma) and
        // one row of the rolling refresh; the rest of the frame is kept.
        for corner in [(0, 0), (8, 0), (0, 8), (8, 8)] {
            assert!(made_now.contains(&corner), "{corner:?} in {made_now:?}");
        }
        assert!(made_now.len() * 2 < c1.rows * c1.cols, "{made_now:?}");
        assert!(made_now.iter().all(|&(_, y)| y < 40), "{made_now:?}");
        let red = second.get_pixel(8, 8);
        assert!(red[0] > 200 && red[1] < 60, "{red:?}");
        assert_eq!(second.get_pixel(40, 40), first.get_pixel(40, 40));
    }

    #[test]
    fn an_empty_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            FolderSource::open(dir.path(), Playback::default()),
            Err(CaptureError::EmptyFolder { .. })
        ));
    }
}
