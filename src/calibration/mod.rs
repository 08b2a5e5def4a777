//! Calibration: lens intrinsics from ChArUco views, and `table_from_image`
//! from the four ArUco corner markers.
//!
//! # Conventions
//! - Table frame and marker corner order as in `TABLE_KIT.md` (see
//!   [`layout`]).
//! - Image pixels with the origin at the centre of the top-left pixel.
//! - OpenCV is used only inside [`cv`]; everything else speaks nalgebra.

pub mod board;
pub mod charuco;
pub mod corners;
pub mod cv;
pub mod gray;
pub mod homography;
pub mod kit;
pub mod layout;
pub mod lens;
pub mod lens_calibration;
pub mod lens_model;
pub mod live;
pub mod pdf;
pub mod table;

pub use layout::{TableLayout, TableMarker};
pub use lens::Lens;
pub use live::{MarkerTracker, SearchKind};
use nalgebra::Point2;
pub use table::{LockStatus, MarkerObservation, TableLock, TableMapping};

/// What can go wrong while calibrating or mapping the table.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    #[error(
        "found table markers {found:?}, need at least {needed}: make sure the corner markers are in view, flat, lit and not covered"
    )]
    TooFewMarkers { found: Vec<u32>, needed: usize },
    #[error("the table markers found lie on a line; check the layout file matches the table")]
    DegenerateMarkers,
    #[error("cannot read image {path}: {reason}")]
    Image { path: String, reason: String },
    #[error("{0}")]
    Spec(#[from] crate::spec::SpecError),
    #[error("OpenCV failed: {0}")]
    OpenCv(String),
    #[error("lens calibration refused: {0}")]
    LensRefused(String),
    #[error("{0}")]
    ImageSize(#[from] lens::ImageSizeMismatch),
}

/// How the table markers are searched for. The ArUco search (adaptive
/// thresholds and contours over the whole frame) is most of the cost, and
/// a marker's corners only need to be good to a pixel or so before the
/// pattern fit measures them at full size; so the search runs on a shrunk
/// frame, and again at full size only when it misses a layout marker there
/// (a marker too small or too far to read shrunk).
#[derive(Debug, Clone, PartialEq)]
pub struct MarkerSearch {
    /// The frame is shrunk by this integer factor for the first search
    /// (1: full size only).
    pub shrink: u32,
    /// ArUco tuning of the shrunk search.
    pub shrunk: cv::ArucoTuning,
    /// ArUco tuning of the full-size search (the first when `shrink` is 1,
    /// else the fallback).
    pub full: cv::ArucoTuning,
}

impl Default for MarkerSearch {
    fn default() -> Self {
        Self {
            shrink: 2,
            // Two threshold windows (10 and 30 px at full size) instead of
            // three; corners come from `sharpen_corners` and the pattern fit,
            // so OpenCV's own sub-pixel step (whose fixed window spans more
            // than a cell once shrunk) is skipped.
            shrunk: cv::ArucoTuning {
                threshold_windows_px: (5, 15, 10),
                subpixel: false,
                ..cv::ArucoTuning::default()
            },
            full: cv::ArucoTuning::default(),
        }
    }
}

/// The pattern fit looks this many cells beyond a marker's border (its
/// profiles reach 0.45 cells out), plus [`PATTERN_WINDOW_PAD_PX`], so only
/// that window of the frame is linearised.
const PATTERN_WINDOW_CELLS: f64 = 1.0;
const PATTERN_WINDOW_PAD_PX: f64 = 4.0;

/// Finds the table markers in a grey frame, with corners from a fit of
/// each marker's whole pattern in linear light (see [`corners`]). Markers
/// whose pattern cannot be measured keep OpenCV's corners.
pub fn detect_table_markers(
    gray: &image::GrayImage,
    layout: &TableLayout,
    lens: Option<&Lens>,
) -> Result<Vec<MarkerObservation>, CalibrationError> {
    detect_table_markers_with(gray, layout, lens, &MarkerSearch::default())
}

/// The layout markers among ArUco detections, each id once.
fn layout_markers(raw: Vec<MarkerObservation>, layout: &TableLayout) -> Vec<MarkerObservation> {
    let mut out: Vec<MarkerObservation> = Vec::new();
    for m in raw {
        if layout.marker(m.id).is_some() && out.iter().all(|o| o.id != m.id) {
            out.push(m);
        }
    }
    out
}

/// [`detect_table_markers`] with an explicit search.
pub fn detect_table_markers_with(
    gray: &image::GrayImage,
    layout: &TableLayout,
    lens: Option<&Lens>,
    search: &MarkerSearch,
) -> Result<Vec<MarkerObservation>, CalibrationError> {
    markers_in(&mut GrayFrame::Gray(gray), layout, lens, search)
}

/// [`detect_table_markers`] on the colour frame: the grey frame is made
/// only where the search reads it (shrunk for the first search, full size
/// around each marker found, whole only for the full-size fallback). The
/// same markers as on `gray::gray_from_rgb(rgb)`.
pub fn detect_table_markers_rgb(
    rgb: &image::RgbImage,
    layout: &TableLayout,
    lens: Option<&Lens>,
) -> Result<Vec<MarkerObservation>, CalibrationError> {
    let mut frame = GrayFrame::Colour {
        rgb,
        gray: image::GrayImage::new(rgb.width(), rgb.height()),
        whole: false,
    };
    markers_in(&mut frame, layout, lens, &MarkerSearch::default())
}

/// The grey frame of the marker search: given, or made from the colour
/// frame where it is read.
enum GrayFrame<'a> {
    Gray(&'a image::GrayImage),
    Colour {
        rgb: &'a image::RgbImage,
        /// Full size; the luma is filled in where asked (zero elsewhere).
        gray: image::GrayImage,
        /// Filled in everywhere.
        whole: bool,
    },
}

impl GrayFrame<'_> {
    fn shrunk(&self, factor: u32) -> image::GrayImage {
        match self {
            Self::Gray(g) => gray::shrink(g, factor),
            Self::Colour { rgb, .. } => gray::shrunk_gray_from_rgb(rgb, factor),
        }
    }

    /// The grey frame, filled in at least inside `bounds` (`None`: all).
    fn gray(&mut self, bounds: Option<[u32; 4]>) -> &image::GrayImage {
        match self {
            Self::Gray(g) => g,
            Self::Colour { rgb, gray, whole } => {
                if !*whole {
                    match bounds {
                        Some(b) => gray::fill_gray_from_rgb(rgb, gray, b),
                        None => {
                            *gray = gray::gray_from_rgb(rgb);
                            *whole = true;
                        }
                    }
                }
                gray
            }
        }
    }
}

fn markers_in(
    frame: &mut GrayFrame<'_>,
    layout: &TableLayout,
    lens: Option<&Lens>,
    search: &MarkerSearch,
) -> Result<Vec<MarkerObservation>, CalibrationError> {
    let dict = cv::ArucoDictionary::Dict4x4_50;
    let mut found = Vec::new();
    if search.shrink > 1 {
        let small = frame.shrunk(search.shrink);
        let raw = cv::detect_markers_tuned(&small, dict, &search.shrunk)?;
        found = layout_markers(raw, layout)
            .into_iter()
            .map(|m| {
                let rough = MarkerObservation {
                    id: m.id,
                    corners_px: m
                        .corners_px
                        .map(|p| gray::full_from_shrunk(p, search.shrink)),
                };
                let window = sharpen_window(&rough.corners_px);
                sharpen_corners(frame.gray(Some(window)), rough)
            })
            .collect();
    }
    if found.len() < layout.markers.len() {
        let full = layout_markers(
            cv::detect_markers_tuned(frame.gray(None), dict, &search.full)?,
            layout,
        );
        if full.len() > found.len() {
            found = full;
        }
    }
    let cells = dict.marker_bits() as usize + 2;
    Ok(found
        .into_iter()
        .map(|m| {
            let window = pattern_window(&m, cells);
            refine_marker(frame.gray(Some(window)), m, lens)
        })
        .collect())
}

/// The corner search window of [`sharpen_corners`], as a share of a cell.
const SHARPEN_WINDOW_CELLS: f64 = 0.6;
/// ... and its least and largest half-size, pixels.
const SHARPEN_HALF_WINDOW_PX: (f64, f64) = (2.0, 12.0);
/// Cells of a table marker a side, border included.
const TABLE_MARKER_CELLS: f64 = 6.0;

/// Half-size of the corner search window of [`sharpen_corners`], pixels.
fn sharpen_half_window(c: &[Point2<f64>; 4]) -> f64 {
    let side = (0..4).map(|k| (c[(k + 1) % 4] - c[k]).norm()).sum::<f64>() / 4.0;
    (side / TABLE_MARKER_CELLS * SHARPEN_WINDOW_CELLS)
        .round()
        .clamp(SHARPEN_HALF_WINDOW_PX.0, SHARPEN_HALF_WINDOW_PX.1)
}

/// The pixels [`sharpen_corners`] reads: `[x0, y0, x1, y1)`, unclipped at
/// the right and bottom. Only the marker's neighbourhood is handed to
/// OpenCV.
fn sharpen_window(c: &[Point2<f64>; 4]) -> [u32; 4] {
    bounds_around(c, sharpen_half_window(c) + 2.0)
}

/// Corners found on a shrunk frame are a pixel or two off at full size (a
/// contour corner of a shrunk, thresholded picture); cornerSubPix on the
/// full-size frame, in a window smaller than a cell so that only the
/// border's own corner is seen, brings them within a pixel, well inside
/// what the pattern fit starts from. A corner that moves further than the
/// window is left where it was.
fn sharpen_corners(gray: &image::GrayImage, m: MarkerObservation) -> MarkerObservation {
    let c = &m.corners_px;
    let half = sharpen_half_window(c);
    let [x0, y0, x1, y1] = sharpen_window(c);
    let (x1, y1) = (x1.min(gray.width()), y1.min(gray.height()));
    if x1 <= x0 || y1 <= y0 {
        return m;
    }
    let crop = image::imageops::crop_imm(gray, x0, y0, x1 - x0, y1 - y0).to_image();
    let origin = nalgebra::Vector2::new(f64::from(x0), f64::from(y0));
    let guesses: Vec<Point2<f64>> = c.iter().map(|p| p - origin).collect();
    // Small positive by the clamp above.
    let Ok(found) = cv::corner_sub_pix(&crop, &guesses, half as i32) else {
        return m;
    };
    let mut corners = m.corners_px;
    for (k, (f, g)) in found.iter().zip(&guesses).enumerate() {
        if (f - g).norm() <= half {
            corners[k] = f + origin;
        }
    }
    MarkerObservation {
        id: m.id,
        corners_px: corners,
    }
}

/// `[x0, y0, x1, y1)` around points, `pad` pixels beyond them, clamped at 0.
fn bounds_around(points: &[Point2<f64>], pad: f64) -> [u32; 4] {
    let lo_x = points.iter().map(|p| p.x).fold(f64::MAX, f64::min) - pad;
    let lo_y = points.iter().map(|p| p.y).fold(f64::MAX, f64::min) - pad;
    let hi_x = points.iter().map(|p| p.x).fold(f64::MIN, f64::max) + pad;
    let hi_y = points.iter().map(|p| p.y).fold(f64::MIN, f64::max) + pad;
    // Clamped to the u32 range; callers clip to the image.
    let to_u32 = |v: f64| v.clamp(0.0, f64::from(u32::MAX)) as u32;
    [
        to_u32(lo_x.floor()),
        to_u32(lo_y.floor()),
        to_u32(hi_x.ceil() + 1.0),
        to_u32(hi_y.ceil() + 1.0),
    ]
}

/// Most passes of the pattern fit; each measures the boundaries again where
/// the last pass put them, so the result does not depend on how rough the
/// starting corners were.
const PATTERN_PASSES: usize = 3;
/// The passes stop when no corner moves further than this, pixels.
const PATTERN_CONVERGED_PX: f64 = 0.01;

/// A marker's corners from the pattern fit, or OpenCV's when the pattern
/// cannot be measured.
fn refine_marker(
    gray: &image::GrayImage,
    m: MarkerObservation,
    lens: Option<&Lens>,
) -> MarkerObservation {
    fit_marker(gray, &m, lens, false).unwrap_or(m)
}

/// The pattern fit of a marker from rough corners `m`: `None` when the
/// pattern cannot be measured there or the refinement wanders further than
/// one pass may. With `check_cells`, also `None` unless every cell of the
/// fitted marker reads as its id's pattern (dark cells darker than light
/// ones): this confirms a marker followed from the last frame without an
/// ArUco search.
fn fit_marker(
    gray: &image::GrayImage,
    m: &MarkerObservation,
    lens: Option<&Lens>,
    check_cells: bool,
) -> Option<MarkerObservation> {
    let bits = cv::marker_cells(cv::ArucoDictionary::Dict4x4_50, m.id).ok()?;
    let linear = corners::LinearImage::window(gray, pattern_window(m, bits.len()));
    let params = corners::EdgeRefineParams::default();
    let mut current = m.clone();
    for pass in 0..PATTERN_PASSES {
        let Some(next) = corners::fit_marker_pattern(&linear, &current, &bits, lens, &params)
        else {
            if pass == 0 {
                return None;
            }
            break;
        };
        let moved = next
            .corners_px
            .iter()
            .zip(&current.corners_px)
            .map(|(a, b)| (a - b).norm())
            .fold(0.0, f64::max);
        current = next;
        if moved < PATTERN_CONVERGED_PX {
            break;
        }
    }
    // The whole refinement may not wander further than one pass may.
    let total = current
        .corners_px
        .iter()
        .zip(&m.corners_px)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    if total > params.max_shift_px {
        return None;
    }
    if check_cells && !corners::cells_match(&linear, &current, &bits, lens, params.min_contrast) {
        return None;
    }
    Some(current)
}

/// The pixels the pattern fit of a marker of `cells` cells a side may
/// sample: `[x0, y0, x1, y1)`.
fn pattern_window(m: &MarkerObservation, cells: usize) -> [u32; 4] {
    let c = &m.corners_px;
    let side = (0..4)
        .map(|k| (c[(k + 1) % 4] - c[k]).norm())
        .fold(0.0, f64::max);
    bounds_around(
        c,
        side / cells.max(1) as f64 * PATTERN_WINDOW_CELLS + PATTERN_WINDOW_PAD_PX,
    )
}

/// [`detect_table`] on the colour frame (see [`detect_table_markers_rgb`]).
pub fn detect_table_rgb(
    rgb: &image::RgbImage,
    layout: &TableLayout,
    lens: Option<&Lens>,
) -> Result<TableMapping, CalibrationError> {
    let markers = detect_table_markers_rgb(rgb, layout, lens)?;
    TableMapping::fit(&markers, layout, lens)
}

/// Detects the markers in a frame and fits `table_from_image`.
pub fn detect_table(
    gray: &image::GrayImage,
    layout: &TableLayout,
    lens: Option<&Lens>,
) -> Result<TableMapping, CalibrationError> {
    let markers = detect_table_markers(gray, layout, lens)?;
    TableMapping::fit(&markers, layout, lens)
}

/// Leave-one-out check of a table mapping: for each marker, fit on the
/// others and measure how far the left-out marker's corners land from the
/// layout, inches. Returns the marker id and its four corner errors for
/// each marker that could be left out.
pub fn leave_one_out_in(
    markers: &[MarkerObservation],
    layout: &TableLayout,
    lens: Option<&Lens>,
) -> Vec<(u32, [f64; 4])> {
    let mut out = Vec::new();
    for (i, left) in markers.iter().enumerate() {
        let Some(marker) = layout.marker(left.id) else {
            continue;
        };
        let others: Vec<MarkerObservation> = markers
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, m)| m.clone())
            .collect();
        let Ok(mapping) = TableMapping::fit(&others, layout, lens) else {
            continue;
        };
        let table = marker.corners_in_table();
        let errors: [f64; 4] = std::array::from_fn(|k| {
            (mapping.table_from_pixel(left.corners_px[k]) - table[k]).norm()
        });
        out.push((left.id, errors));
    }
    out
}
