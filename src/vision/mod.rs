//! Vision: pure functions of (frame, calibration, parameters) -> detections,
//! and the tracker over the stream of detections.
//!
//! # Conventions
//! - Positions are base centres on the table plane (z = 0), in table inches,
//!   in the table frame of `TABLE_KIT.md` (x right, y up seen from above).
//! - `facing_deg` is counter-clockwise from +x, in [0, 360).

pub mod track;

use nalgebra::Point2;
use serde::{Deserialize, Serialize};

/// The painted edge colour of a base: the figure's experience.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum EdgeColour {
    Green,
    White,
    Blue,
    Red,
}

impl EdgeColour {
    pub const ALL: [Self; 4] = [Self::Green, Self::White, Self::Blue, Self::Red];

    pub fn name(self) -> &'static str {
        match self {
            Self::Green => "green",
            Self::White => "white",
            Self::Blue => "blue",
            Self::Red => "red",
        }
    }
}

/// Round foot base or rectangular mounted base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BaseKind {
    Foot,
    Mounted,
}

impl BaseKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::Foot => "foot",
            Self::Mounted => "mounted",
        }
    }
}

/// One figure found in one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Detection {
    /// Centre of the base footprint on the table plane, inches.
    pub center_in_table: Point2<f64>,
    /// Facing from the front mark; `None` when the mark is not seen.
    pub facing_deg: Option<f64>,
    pub edge: EdgeColour,
    pub base: BaseKind,
    /// 0..1: how sure the detector is that this is a figure.
    pub confidence: f64,
    /// 1-sigma position uncertainty, inches.
    pub position_sigma_in: f64,
    /// The base's own look (groundwork, band), for identity; `None` when not
    /// measured (see [`appearance`]).
    pub appearance: Option<appearance::Appearance>,
    /// What its fit measured of the base's painted side, and how far its
    /// centre was moved for the frame's share (see [`side`]).
    pub side: side::SideSeen,
}

pub mod appearance;
pub mod confidence;
pub mod crowd;
pub mod cv;
pub mod detect;
pub mod eval;
mod fit;
pub mod hands;
pub mod incremental;
pub mod params;
pub mod rectify;
pub mod report;
mod search;
pub mod segment;
pub mod side;
pub mod terrain;

/// What can go wrong while looking for figures.
#[derive(Debug, thiserror::Error)]
pub enum VisionError {
    #[error("cannot read image {path}: {reason}")]
    Image { path: String, reason: String },
    #[error(
        "the image is {got_w}x{got_h} but the camera file is for {want_w}x{want_h}; calibrate the lens at this resolution"
    )]
    ImageSize {
        got_w: u32,
        got_h: u32,
        want_w: u32,
        want_h: u32,
    },
    #[error("the table mapping cannot give a camera pose: {0}")]
    Pose(String),
    #[error("OpenCV failed: {0}")]
    OpenCv(String),
    #[error("{0}")]
    Spec(#[from] crate::spec::SpecError),
    #[error("cannot read truth file {path}: {reason}")]
    Truth { path: String, reason: String },
}
