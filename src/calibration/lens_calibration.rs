//! Lens calibration from photos of the ChArUco board: corners per view,
//! coverage of the frame, outlier views, and the final camera matrix and
//! distortion.
//!
//! # Conventions
//! Board frame of [`super::charuco`]; pixels with the origin at the centre
//! of the top-left pixel.

use image::GrayImage;
use nalgebra::{Point2, Point3};

use super::CalibrationError;
use super::charuco::CharucoBoard;
use super::cv;
use super::lens::Lens;
use super::lens_model::{self, DistortionModel, SIGMA_TERMS};

/// Gaussian smoothing of the photo before the chessboard corners are
/// refined, pixels: it averages the sensor and JPEG noise out of the
/// gradients the refinement weighs. Measured on the rendered ChArUco views
/// of the tune set (`measure_corner_variants`, corner error against the
/// truth, median / p95, without and with): cam01 0.080 / 0.179 and
/// 0.077 / 0.172 px; cam02 0.088 / 0.177 and 0.081 / 0.151; cam03
/// 0.123 / 0.291 and 0.108 / 0.246; random-31 (2560 x 1440) 0.081 / 0.232
/// and 0.073 / 0.190. 1.4 px is no better on the whole.
const CORNER_PRESMOOTH_SIGMA_PX: f64 = 1.0;
/// Half-window of the corner refinement, pixels: at least this, so the
/// window holds the saddle at all, and at most this. A cap of 16 lowers the
/// corner error on the 2560 px camera (p95 0.147 px) but not on the
/// others, and moves cam02's cy 0.06% further off.
const CORNER_HALF_WINDOW_PX: (f64, f64) = (2.0, 8.0);

/// Thresholds of the lens calibration.
#[derive(Debug, Clone, PartialEq)]
pub struct LensCalibrationParams {
    /// Views with board corners needed (TABLE_KIT asks for 8 or more).
    pub min_views: usize,
    /// Chessboard corners a view needs to count.
    pub min_corners_per_view: usize,
    /// The frame is cut into `coverage_grid` x `coverage_grid` cells; corners
    /// must fall in at least `min_coverage_frac` of them.
    pub coverage_grid: u32,
    pub min_coverage_frac: f64,
    /// A view whose RMS is above `outlier_factor` x the median view RMS (and
    /// above `outlier_floor_px`) is dropped and the calibration run again.
    pub outlier_factor: f64,
    pub outlier_floor_px: f64,
    /// Largest overall RMS accepted, pixels.
    pub max_rms_px: f64,
    /// A corner that cornerSubPix moves further than this fraction of a
    /// square from its prediction is a false corner (a finger, a shadow).
    pub max_corner_shift_frac: f64,
}

impl Default for LensCalibrationParams {
    fn default() -> Self {
        Self {
            min_views: 8,
            min_corners_per_view: 8,
            coverage_grid: 4,
            min_coverage_frac: 0.6,
            outlier_factor: 3.0,
            outlier_floor_px: 0.5,
            max_rms_px: 1.0,
            max_corner_shift_frac: 0.15,
        }
    }
}

/// Board corners found in one view.
#[derive(Debug, Clone)]
pub struct BoardView {
    pub name: String,
    /// Corner ids with their board points and refined pixels.
    pub corners: Vec<(u32, Point2<f64>, Point2<f64>)>,
}

/// How one view fared.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewReport {
    pub name: String,
    pub corners: usize,
    /// RMS reprojection error in the final fit (or in the fit that rejected
    /// it), pixels; `None` when the view was never used.
    pub rms_px: Option<f64>,
    pub used: bool,
    /// Why the view was not used.
    pub reason: Option<String>,
    /// The view's coverage weight in judging the distortion model (see
    /// [`lens_model::coverage_weights`]); `None` when the view was not used.
    pub weight: Option<f64>,
}

/// The result of a lens calibration.
#[derive(Debug, Clone)]
pub struct LensCalibration {
    pub lens: Lens,
    pub views: Vec<ViewReport>,
    /// Fraction of the coverage grid cells that hold corners.
    pub coverage_frac: f64,
    /// The distortion model the views support (see [`lens_model`]).
    pub model: DistortionModel,
    /// Each model tried and its RMS on views held back from its fit, pixels.
    pub held_out_rms_px: Vec<(DistortionModel, f64)>,
    /// 1-sigma of fx, fy, cx, cy (pixels), k1, k2, p1, p2, k3, k4, k5, k6
    /// (0 when the model holds it at zero; names in
    /// [`lens_model::SIGMA_NAMES`]).
    pub sigma: [f64; SIGMA_TERMS],
    /// What the views leave open and the photos that would pin it down
    /// (empty when the lens is pinned down).
    pub advice: Vec<String>,
}

impl LensCalibration {
    pub fn views_used(&self) -> usize {
        self.views.iter().filter(|v| v.used).count()
    }
    pub fn views_rejected(&self) -> Vec<String> {
        self.views
            .iter()
            .filter(|v| !v.used)
            .map(|v| v.name.clone())
            .collect()
    }
}

/// Finds the board's chessboard corners in one photo.
pub fn find_board_corners(
    name: &str,
    gray: &GrayImage,
    board: &CharucoBoard,
    params: &LensCalibrationParams,
) -> Result<BoardView, CalibrationError> {
    let n_markers = board.marker_count();
    let seen: Vec<_> = cv::detect_markers(gray, board.dictionary)?
        .into_iter()
        .filter(|m| m.id >= board.first_id && m.id < board.first_id + n_markers)
        .collect();
    let predicted = board.predict_corners(&seen);
    let mut corners = Vec::new();
    if !predicted.is_empty() {
        // One window for the view: a quarter of the smallest square, so the
        // window never reaches the next corner, and inside the white margin
        // round the markers, so no marker edge pulls the saddle point.
        let square_px = predicted.iter().map(|p| p.3).fold(f64::INFINITY, f64::min);
        let margin_frac = (board.square_in - board.marker_in) / (2.0 * board.square_in);
        let half_win = (square_px / 4.0)
            .min(square_px * margin_frac - 0.5)
            .clamp(CORNER_HALF_WINDOW_PX.0, CORNER_HALF_WINDOW_PX.1)
            .round() as i32;
        let guesses: Vec<Point2<f64>> = predicted.iter().map(|p| p.2).collect();
        let refined =
            cv::corner_sub_pix_smoothed(gray, &guesses, half_win, CORNER_PRESMOOTH_SIGMA_PX)?;
        for ((id, board_pt, guess, sq_px), r) in predicted.into_iter().zip(refined) {
            if (r - guess).norm() <= params.max_corner_shift_frac * sq_px {
                corners.push((id, board_pt, r));
            }
        }
    }
    Ok(BoardView {
        name: name.to_owned(),
        corners,
    })
}

fn coverage(views: &[&BoardView], size: [u32; 2], grid: u32) -> f64 {
    let mut cells = vec![false; (grid * grid) as usize];
    for v in views {
        for (_, _, p) in &v.corners {
            let cx = ((p.x / f64::from(size[0])) * f64::from(grid)).clamp(0.0, f64::from(grid - 1))
                as u32;
            let cy = ((p.y / f64::from(size[1])) * f64::from(grid)).clamp(0.0, f64::from(grid - 1))
                as u32;
            cells[(cy * grid + cx) as usize] = true;
        }
    }
    cells.iter().filter(|c| **c).count() as f64 / cells.len() as f64
}

/// Plain OpenCV calibration (k1 k2 p1 p2 k3) of these views: the lens and
/// each view's RMS reprojection error, pixels.
pub fn run_calibration(
    views: &[&BoardView],
    size: [u32; 2],
) -> Result<(Lens, Vec<f64>), CalibrationError> {
    let object: Vec<Vec<Point3<f64>>> = views
        .iter()
        .map(|v| {
            v.corners
                .iter()
                .map(|c| Point3::new(c.1.x, c.1.y, 0.0))
                .collect()
        })
        .collect();
    let image: Vec<Vec<Point2<f64>>> = views
        .iter()
        .map(|v| v.corners.iter().map(|c| c.2).collect())
        .collect();
    cv::calibrate_camera(&object, &image, size)
}

/// Calibrates the lens from board views. Refuses, saying what to do, when
/// too few views or corners are found, the views do not cover the frame, or
/// the fit stays poor.
pub fn calibrate(
    views: Vec<BoardView>,
    image_size: [u32; 2],
    params: &LensCalibrationParams,
) -> Result<LensCalibration, CalibrationError> {
    let mut reports: Vec<ViewReport> = views
        .iter()
        .map(|v| ViewReport {
            name: v.name.clone(),
            corners: v.corners.len(),
            rms_px: None,
            used: v.corners.len() >= params.min_corners_per_view,
            weight: None,
            reason: (v.corners.len() < params.min_corners_per_view).then(|| {
                format!(
                    "only {} board corners found (need {})",
                    v.corners.len(),
                    params.min_corners_per_view
                )
            }),
        })
        .collect();
    let usable = reports.iter().filter(|r| r.used).count();
    if usable < params.min_views {
        return Err(CalibrationError::LensRefused(format!(
            "the board was found in {usable} of {} photos (need {}). Take more photos of the ChArUco board: whole board in view, in focus, well lit, tilted different ways and spread over the picture.",
            views.len(),
            params.min_views
        )));
    }
    let used_views = |reports: &[ViewReport]| -> Vec<&BoardView> {
        views
            .iter()
            .zip(reports)
            .filter(|(_, r)| r.used)
            .map(|(v, _)| v)
            .collect()
    };
    let cov = coverage(&used_views(&reports), image_size, params.coverage_grid);
    if cov < params.min_coverage_frac {
        return Err(CalibrationError::LensRefused(format!(
            "the board corners cover {:.0}% of the picture (need {:.0}%). Take photos with the board near each edge and corner of the picture, not only in the middle.",
            cov * 100.0,
            params.min_coverage_frac * 100.0
        )));
    }
    let (_, per_view) = run_calibration(&used_views(&reports), image_size)?;
    // Drop outlier views once and calibrate again.
    let mut sorted = per_view.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let limit = (params.outlier_factor * median).max(params.outlier_floor_px);
    let used_idx: Vec<usize> = (0..reports.len()).filter(|&i| reports[i].used).collect();
    let mut rejected_any = false;
    for (k, &i) in used_idx.iter().enumerate() {
        reports[i].rms_px = Some(per_view[k]);
        if per_view[k] > limit {
            reports[i].used = false;
            reports[i].reason = Some(format!(
                "outlier: {:.2} px RMS against a median of {median:.2} px (board bent or moved, or motion blur)",
                per_view[k]
            ));
            rejected_any = true;
        }
    }
    if rejected_any {
        let still = reports.iter().filter(|r| r.used).count();
        if still < params.min_views {
            return Err(CalibrationError::LensRefused(format!(
                "after dropping outlier views only {still} remain (need {}). Take more sharp photos of the flat board.",
                params.min_views
            )));
        }
    }
    // The distortion model the used views support, judged on views held
    // back from the fit; its lens replaces the full model's.
    let used = used_views(&reports);
    let object: Vec<Vec<Point3<f64>>> = used
        .iter()
        .map(|v| {
            v.corners
                .iter()
                .map(|c| Point3::new(c.1.x, c.1.y, 0.0))
                .collect()
        })
        .collect();
    let image: Vec<Vec<Point2<f64>>> = used
        .iter()
        .map(|v| v.corners.iter().map(|c| c.2).collect())
        .collect();
    let choice = lens_model::choose_model(&object, &image, image_size)?;
    let fit = choice.fit();
    let lens = fit.lens.clone();
    let used_idx: Vec<usize> = (0..reports.len()).filter(|&i| reports[i].used).collect();
    for (k, &i) in used_idx.iter().enumerate() {
        reports[i].rms_px = fit.per_view_rms_px.get(k).copied();
        reports[i].weight = choice.weights.get(k).copied();
    }
    if lens.rms_px > params.max_rms_px {
        return Err(CalibrationError::LensRefused(format!(
            "the fit is poor ({:.2} px RMS, need at most {:.2}). Make sure the board is flat and the photos are sharp, then try again.",
            lens.rms_px, params.max_rms_px
        )));
    }
    Ok(LensCalibration {
        lens,
        views: reports,
        coverage_frac: cov,
        model: fit.model,
        held_out_rms_px: choice
            .fits
            .iter()
            .map(|f| (f.model, f.held_out_rms_px))
            .collect(),
        sigma: fit.sigma,
        advice: choice.advice.clone(),
    })
}
