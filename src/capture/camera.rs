//! The webcam, through nokhwa: the device list, the choice of resolution and
//! frame rate, and exposure and white balance locked where the camera
//! allows (auto modes settle first, then are switched off at the values
//! they reached, so the edge colours do not drift during a game).
//!
//! # Conventions
//! Resolutions are width x height in pixels; frame rates in frames per
//! second. This is the only module in the crate that imports nokhwa.

use image::RgbImage;
use nokhwa::Camera;
use nokhwa::pixel_format::RgbFormat;
use nokhwa::utils::{
    ApiBackend, CameraFormat, CameraIndex, ControlValueSetter, FrameFormat, KnownCameraControl,
    RequestedFormat, RequestedFormatType, Resolution,
};

use super::{CaptureError, FrameSource};

/// Frames to let auto exposure and auto white balance settle before they
/// are locked.
const SETTLE_FRAMES: usize = 30;

/// V4L2 control ids (linux/v4l2-controls.h) for the auto modes; nokhwa
/// names only the manual values.
#[cfg(target_os = "linux")]
mod v4l2 {
    /// `V4L2_CID_EXPOSURE_AUTO`; value 1 is `V4L2_EXPOSURE_MANUAL`.
    pub const EXPOSURE_AUTO: u128 = 0x009a_0901;
    pub const EXPOSURE_MANUAL: i64 = 1;
    /// `V4L2_CID_AUTO_WHITE_BALANCE`; 0 is off.
    pub const AUTO_WHITE_BALANCE: u128 = 0x0098_090c;
}

/// One camera the system offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CameraEntry {
    /// Position in the system's list (the id used to open it).
    pub index: u32,
    pub name: String,
}

/// A resolution and frame rate the camera offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mode {
    pub width_px: u32,
    pub height_px: u32,
    pub fps: u32,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{} @{}", self.width_px, self.height_px, self.fps)
    }
}

/// What to open: which camera, and the mode (`None`: the highest
/// resolution it offers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CameraChoice {
    pub index: u32,
    pub mode: Option<Mode>,
}

/// What the lock did, per control: the UI shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LockReport {
    pub exposure_locked: bool,
    pub white_balance_locked: bool,
    /// Why a control could not be locked.
    pub notes: Vec<String>,
}

fn camera_error(name: &str, err: impl std::fmt::Display) -> CaptureError {
    CaptureError::Camera {
        name: name.to_string(),
        reason: err.to_string(),
    }
}

/// The cameras the system offers.
pub fn list_cameras() -> Result<Vec<CameraEntry>, CaptureError> {
    let infos = nokhwa::query(ApiBackend::Auto).map_err(|e| camera_error("(query)", e))?;
    Ok(infos
        .iter()
        .filter_map(|info| match info.index() {
            CameraIndex::Index(i) => Some(CameraEntry {
                index: *i,
                name: info.human_name(),
            }),
            CameraIndex::String(_) => None,
        })
        .collect())
}

/// The resolutions and frame rates one camera offers, largest first.
pub fn list_modes(index: u32) -> Result<Vec<Mode>, CaptureError> {
    let format = RequestedFormat::new::<RgbFormat>(RequestedFormatType::AbsoluteHighestResolution);
    let mut cam = Camera::new(CameraIndex::Index(index), format)
        .map_err(|e| camera_error(&index.to_string(), e))?;
    let formats = cam
        .compatible_camera_formats()
        .map_err(|e| camera_error(&cam.info().human_name(), e))?;
    let mut modes: Vec<Mode> = formats
        .iter()
        .map(|f| Mode {
            width_px: f.width(),
            height_px: f.height(),
            fps: f.frame_rate(),
        })
        .collect();
    modes.sort_unstable_by(|a, b| b.cmp(a));
    modes.dedup();
    Ok(modes)
}

/// A live webcam.
pub struct CameraSource {
    choice: CameraChoice,
    camera: Option<Camera>,
    name: String,
    pub lock_report: LockReport,
    /// MJPEG frames in order: only what changed is decoded again.
    partial: super::blocks::PartialDecoder,
}

impl CameraSource {
    /// Opens a camera, starts its stream and locks exposure and white
    /// balance where it can.
    pub fn open(choice: CameraChoice) -> Result<Self, CaptureError> {
        let mut src = Self {
            choice,
            camera: None,
            name: format!("camera {}", choice.index),
            lock_report: LockReport::default(),
            partial: super::blocks::PartialDecoder::new(Default::default()),
        };
        src.start()?;
        Ok(src)
    }

    fn start(&mut self) -> Result<(), CaptureError> {
        let requested = match self.choice.mode {
            // MJPEG is what webcams deliver at full HD and 30 fps over USB 2.
            Some(m) => RequestedFormatType::Closest(CameraFormat::new(
                Resolution::new(m.width_px, m.height_px),
                FrameFormat::MJPEG,
                m.fps,
            )),
            None => RequestedFormatType::AbsoluteHighestResolution,
        };
        let mut cam = Camera::new(
            CameraIndex::Index(self.choice.index),
            RequestedFormat::new::<RgbFormat>(requested),
        )
        .map_err(|e| camera_error(&self.name, e))?;
        cam.open_stream().map_err(|e| camera_error(&self.name, e))?;
        let fmt = cam.camera_format();
        self.name = format!(
            "{} {}x{} @{}",
            cam.info().human_name(),
            fmt.width(),
            fmt.height(),
            fmt.frame_rate()
        );
        for _ in 0..SETTLE_FRAMES {
            // Frames while the auto modes settle are thrown away.
            cam.frame().map_err(|e| camera_error(&self.name, e))?;
        }
        self.lock_report = lock_auto_modes(&mut cam);
        self.camera = Some(cam);
        Ok(())
    }
}

/// Reads the values the auto modes settled on, switches the auto modes off
/// and writes the values back.
fn lock_auto_modes(cam: &mut Camera) -> LockReport {
    let mut report = LockReport::default();
    for (control, what) in [
        (KnownCameraControl::Exposure, "exposure"),
        (KnownCameraControl::WhiteBalance, "white balance"),
    ] {
        let value = match cam.camera_control(control) {
            Ok(c) => c.value(),
            Err(e) => {
                report
                    .notes
                    .push(format!("{what}: not offered by this camera ({e})"));
                continue;
            }
        };
        let switched_off = switch_auto_off(cam, control);
        let written = cam
            .set_camera_control(control, value)
            .map_err(|e| e.to_string());
        match (switched_off, written) {
            (Ok(()), Ok(())) => match control {
                KnownCameraControl::Exposure => report.exposure_locked = true,
                _ => report.white_balance_locked = true,
            },
            (Err(e), _) | (_, Err(e)) => report.notes.push(format!("{what}: cannot lock ({e})")),
        }
    }
    report
}

#[cfg(target_os = "linux")]
fn switch_auto_off(cam: &mut Camera, control: KnownCameraControl) -> Result<(), String> {
    let (id, value) = match control {
        KnownCameraControl::Exposure => (
            v4l2::EXPOSURE_AUTO,
            ControlValueSetter::Integer(v4l2::EXPOSURE_MANUAL),
        ),
        _ => (v4l2::AUTO_WHITE_BALANCE, ControlValueSetter::Boolean(false)),
    };
    cam.set_camera_control(KnownCameraControl::Other(id), value)
        .map_err(|e| e.to_string())
}

#[cfg(not(target_os = "linux"))]
fn switch_auto_off(_cam: &mut Camera, _control: KnownCameraControl) -> Result<(), String> {
    // Other platforms expose the auto flag through the control itself:
    // writing a manual value switches them to manual.
    Ok(())
}

impl FrameSource for CameraSource {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn next_frame(&mut self) -> Result<(RgbImage, String), CaptureError> {
        let Some(cam) = self.camera.as_mut() else {
            return Err(CaptureError::Disconnected {
                name: self.name.clone(),
                reason: "not open".into(),
            });
        };
        let buffer = cam.frame().map_err(|e| CaptureError::Disconnected {
            name: self.name.clone(),
            reason: e.to_string(),
        })?;
        // MJPEG through the partial decoder (only what changed since the
        // last frame is decoded again), or, for a frame it does not take
        // (an unusual sampling), the fastest whole decoder measured
        // (`spotter bench`); other formats through nokhwa's own conversion.
        if buffer.source_frame_format() == nokhwa::utils::FrameFormat::MJPEG {
            if let Ok(image) = self.partial.decode(buffer.buffer()) {
                return Ok((image.clone(), self.name.clone()));
            }
            self.partial.reset();
            let image = super::decode::decode_jpeg(buffer.buffer(), super::decode::FASTEST)
                .map_err(|e| camera_error(&self.name, e))?;
            return Ok((image, self.name.clone()));
        }
        let decoded = buffer
            .decode_image::<RgbFormat>()
            .map_err(|e| camera_error(&self.name, e))?;
        let (w, h) = decoded.dimensions();
        let image = RgbImage::from_raw(w, h, decoded.into_raw())
            .ok_or_else(|| camera_error(&self.name, "frame buffer of the wrong size"))?;
        Ok((image, self.name.clone()))
    }

    fn changes(&self) -> Option<crate::capture::FrameChanges> {
        self.partial.changes()
    }

    fn reconnect(&mut self) -> Result<(), CaptureError> {
        if let Some(mut cam) = self.camera.take() {
            // The device may be gone; closing it can fail and that is fine.
            let _ = cam.stop_stream();
        }
        self.partial.reset();
        self.start()
    }
}
