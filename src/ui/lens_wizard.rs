//! The lens step of the calibration wizard: the player holds a calibration
//! board (the kit's ChArUco board, or any board `--board` names: a
//! chessboard, a circle grid, another ChArUco board) in front of the camera
//! and captures views; each view's corners are
//! found off the UI thread, the coverage of the picture is shown as it
//! grows, and once there are enough views the lens is fitted again after
//! every capture so the RMS is live. Save writes the camera file that
//! `spotter app --camera` and `spotter detect --camera` read.
//!
//! # Conventions
//! Pixels of the full camera frame, origin at the centre of the top-left
//! pixel; the coverage grid is `params.coverage_grid` cells square over the
//! frame, row-major from the top-left.

use std::path::{Path, PathBuf};
use std::thread;

use anyhow::Context;
use crossbeam_channel::{Receiver, bounded};
use image::RgbImage;

use crate::calibration::board::CalibrationBoard;
use crate::calibration::lens::Lens;
use crate::calibration::lens_calibration::{BoardView, LensCalibration, LensCalibrationParams};

/// Where the wizard saves the camera file unless told otherwise.
pub const DEFAULT_CAMERA_PATH: &str = "calibration/camera.toml";

/// The newest fit, for the panel.
#[derive(Debug, Clone)]
pub struct LensFit {
    pub lens: Lens,
    pub views_used: usize,
    pub rejected: Vec<String>,
}

/// What a capture job sends back.
struct Captured {
    view: Result<BoardView, String>,
    fit: Option<Result<LensCalibration, String>>,
}

/// The lens step's state. Driven by [`super::logic::AppLogic`]; tests drive
/// it directly.
pub struct LensWizard {
    board: CalibrationBoard,
    /// The board spec being typed in the panel.
    pub board_text: String,
    pub params: LensCalibrationParams,
    views: Vec<BoardView>,
    image_size: Option<[u32; 2]>,
    job: Option<Receiver<Captured>>,
    /// The newest fit, or why the views do not make one yet.
    pub fit: Option<Result<LensFit, String>>,
    /// What happened to the last capture, for the panel.
    pub message: Option<String>,
    pub out_path: PathBuf,
}

impl Default for LensWizard {
    fn default() -> Self {
        let board = CalibrationBoard::default();
        Self {
            board_text: board.to_string(),
            board,
            params: LensCalibrationParams::default(),
            views: Vec::new(),
            image_size: None,
            job: None,
            fit: None,
            message: None,
            out_path: PathBuf::from(DEFAULT_CAMERA_PATH),
        }
    }
}

impl LensWizard {
    /// The board being looked for.
    pub fn board(&self) -> &CalibrationBoard {
        &self.board
    }

    /// Looks for another board (a spec as `--board` takes it). The views so
    /// far are of the old board, so they are dropped; refused while a
    /// capture is being processed.
    pub fn set_board(&mut self, spec: &str) -> Result<(), String> {
        if self.busy() {
            return Err("still finding the board on the last view".into());
        }
        let board: CalibrationBoard = spec.parse().map_err(|e| format!("{e}"))?;
        self.reset();
        self.board_text = board.to_string();
        self.message = Some(format!("looking for {}", board.describe()));
        self.board = board;
        Ok(())
    }

    /// Views with enough corners to count.
    pub fn usable_views(&self) -> usize {
        self.views
            .iter()
            .filter(|v| v.corners.len() >= self.params.min_corners_per_view)
            .count()
    }

    /// Views captured so far.
    pub fn views(&self) -> usize {
        self.views.len()
    }

    /// A capture is being processed.
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// The frame size the views were taken at.
    pub fn image_size(&self) -> Option<[u32; 2]> {
        self.image_size
    }

    /// Which coverage cells hold a corner of a usable view.
    pub fn coverage_cells(&self) -> Vec<bool> {
        let grid = self.params.coverage_grid.max(1);
        let mut cells = vec![false; (grid * grid) as usize];
        let Some([w, h]) = self.image_size else {
            return cells;
        };
        let cell = |v: f64, size: u32| -> u32 {
            let i = (v / f64::from(size) * f64::from(grid)).floor();
            // Clamped into the grid, so the cast cannot truncate.
            i.clamp(0.0, f64::from(grid - 1)) as u32
        };
        for v in self
            .views
            .iter()
            .filter(|v| v.corners.len() >= self.params.min_corners_per_view)
        {
            for (_, _, p) in &v.corners {
                cells[(cell(p.y, h) * grid + cell(p.x, w)) as usize] = true;
            }
        }
        cells
    }

    /// Fraction of the coverage cells holding corners.
    pub fn coverage_frac(&self) -> f64 {
        let cells = self.coverage_cells();
        cells.iter().filter(|c| **c).count() as f64 / cells.len().max(1) as f64
    }

    /// Finds the board on `image` off the calling thread and, once there
    /// are enough views, fits the lens again. Refused while a capture is
    /// being processed or when the frame size changed.
    pub fn capture(&mut self, name: &str, image: &RgbImage) -> Result<(), String> {
        if self.busy() {
            return Err("still finding the board on the last view".into());
        }
        let size = [image.width(), image.height()];
        if let Some(s) = self.image_size
            && s != size
        {
            return Err(format!(
                "this frame is {}x{} but the views so far are {}x{}: keep one resolution, or start again",
                size[0], size[1], s[0], s[1]
            ));
        }
        self.image_size = Some(size);
        let gray = image::DynamicImage::ImageRgb8(image.clone()).to_luma8();
        let (board, params, mut views) =
            (self.board.clone(), self.params.clone(), self.views.clone());
        let name = name.to_owned();
        let (tx, rx) = bounded(1);
        thread::Builder::new()
            .name("lens-wizard".into())
            .spawn(move || {
                let view = board
                    .find_view(&name, &gray, &params)
                    .map_err(|e| e.to_string());
                let fit = view.as_ref().ok().and_then(|v| {
                    views.push(v.clone());
                    let usable = views
                        .iter()
                        .filter(|v| v.corners.len() >= params.min_corners_per_view)
                        .count();
                    (usable >= params.min_views).then(|| {
                        board
                            .calibrate(views, size, &params)
                            .map_err(|e| e.to_string())
                    })
                });
                let _ = tx.send(Captured { view, fit });
            })
            .map_err(|e| format!("cannot start the board finder: {e}"))?;
        self.job = Some(rx);
        Ok(())
    }

    /// Takes a finished capture, if any. Returns true when one finished.
    pub fn poll(&mut self) -> bool {
        let Some(rx) = &self.job else { return false };
        let Ok(done) = rx.try_recv() else {
            return false;
        };
        self.job = None;
        match done.view {
            Ok(v) => {
                let n = v.corners.len();
                self.message = Some(if n >= self.params.min_corners_per_view {
                    format!("{}: {n} board points", v.name)
                } else {
                    format!(
                        "{}: only {n} board points (need {}): hold the whole board in view, in focus",
                        v.name, self.params.min_corners_per_view
                    )
                });
                self.views.push(v);
            }
            Err(e) => self.message = Some(format!("board not found: {e}")),
        }
        if let Some(fit) = done.fit {
            self.fit = Some(fit.map(|c| LensFit {
                views_used: c.views_used(),
                rejected: c.views_rejected(),
                lens: c.lens,
            }));
        }
        true
    }

    /// Writes the fitted lens to `self.out_path`.
    pub fn save(&self) -> anyhow::Result<PathBuf> {
        let fit = match &self.fit {
            Some(Ok(f)) => f,
            Some(Err(why)) => anyhow::bail!("no lens to save: {why}"),
            None => anyhow::bail!(
                "no lens to save yet: capture {} views of the board",
                self.params.min_views
            ),
        };
        write_lens(&self.out_path, fit)?;
        Ok(self.out_path.clone())
    }

    /// Forgets every view (the board and the camera file stay).
    pub fn reset(&mut self) {
        let out_path = std::mem::take(&mut self.out_path);
        let board = self.board.clone();
        *self = Self {
            out_path,
            board_text: board.to_string(),
            board,
            ..Self::default()
        };
    }
}

fn write_lens(path: &Path, fit: &LensFit) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(path, fit.lens.to_toml(fit.views_used, &fit.rejected))
        .with_context(|| format!("writing {}", path.display()))
}
