//! Calibration: lens intrinsics from ChArUco views, and `table_from_image`
//! from the four ArUco corner markers.
//!
//! # Conventions
//! - Table frame and marker corner order as in `TABLE_KIT.md` (see
//!   [`layout`]).
//! - Image pixels with the origin at the centre of the top-left pixel.
//! - OpenCV is used only inside [`cv`]; everything else speaks nalgebra.

pub mod homography;
pub mod layout;
pub mod lens;
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
