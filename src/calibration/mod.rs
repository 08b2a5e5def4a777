//! Calibration: lens intrinsics from ChArUco views, and `table_from_image`
//! from the four ArUco corner markers.
//!
//! # Conventions
//! - Table frame and marker corner order as in `TABLE_KIT.md` (see
//!   [`layout`]).
//! - Image pixels with the origin at the centre of the top-left pixel.
//! - OpenCV is used only inside [`cv`]; everything else speaks nalgebra.

pub mod charuco;
pub mod corners;
pub mod cv;
pub mod homography;
pub mod kit;
pub mod layout;
pub mod lens;
pub mod lens_calibration;
pub mod pdf;
pub mod table;

pub use layout::{TableLayout, TableMarker};
pub use lens::Lens;
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
}

/// Finds the table markers in a grey frame, with corners from a fit of
/// each marker's whole pattern in linear light (see [`corners`]). Markers
/// whose pattern cannot be measured keep OpenCV's corners.
pub fn detect_table_markers(
    gray: &image::GrayImage,
    layout: &TableLayout,
    lens: Option<&Lens>,
) -> Result<Vec<MarkerObservation>, CalibrationError> {
    let raw = cv::detect_markers(gray, cv::ArucoDictionary::Dict4x4_50)?;
    let linear = corners::LinearImage::new(gray);
    let params = corners::EdgeRefineParams::default();
    Ok(raw
        .into_iter()
        .filter(|m| layout.marker(m.id).is_some())
        .map(|m| {
            let refined = cv::marker_cells(cv::ArucoDictionary::Dict4x4_50, m.id)
                .ok()
                .and_then(|bits| corners::fit_marker_pattern(&linear, &m, &bits, lens, &params));
            refined.unwrap_or(m)
        })
        .collect())
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
