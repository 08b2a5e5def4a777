//! Every colour and size the app paints with lives here, so that a colour
//! change is one edit and the overlay stays readable on any table mat.
//!
//! # Conventions
//! Colours are sRGB [`Color32`]; sizes are egui points (logical pixels).

use egui::{Color32, Stroke};

use crate::vision::EdgeColour;

/// Ring drawn around a figure in its painted edge colour. The paint colours
/// of `TABLE_KIT.md`, brightened a little so they read on a dark overlay.
pub fn edge_colour(edge: EdgeColour) -> Color32 {
    match edge {
        EdgeColour::Green => Color32::from_rgb(40, 200, 80),
        EdgeColour::White => Color32::from_rgb(245, 245, 240),
        EdgeColour::Blue => Color32::from_rgb(70, 120, 255),
        EdgeColour::Red => Color32::from_rgb(235, 50, 50),
    }
}

/// Range bands, short to long (`band_colour(0)` is short range).
pub const BAND_COLOURS: [Color32; 4] = [
    Color32::from_rgb(60, 220, 90),   // short
    Color32::from_rgb(250, 210, 40),  // medium
    Color32::from_rgb(250, 130, 30),  // long
    Color32::from_rgb(160, 160, 160), // out of range
];

/// Colour of range band `index` (0 short, 1 medium, 2 long, 3+ out of range).
pub fn band_colour(index: usize) -> Color32 {
    BAND_COLOURS[index.min(BAND_COLOURS.len() - 1)]
}

/// A measurement within its uncertainty of a band edge.
pub const TOO_CLOSE_TO_CALL: Color32 = Color32::from_rgb(255, 0, 255);

/// Line of sight.
pub const LOS_CLEAR: Color32 = Color32::from_rgb(60, 220, 90);
pub const LOS_SOFT: Color32 = Color32::from_rgb(250, 210, 40);
pub const LOS_HARD: Color32 = Color32::from_rgb(250, 130, 30);
pub const LOS_BLOCKED: Color32 = Color32::from_rgb(220, 30, 30);

/// Fill of the fire arc, the command radius and the melee zone.
pub const FIRE_ARC_FILL: Color32 = Color32::from_rgba_premultiplied(60, 40, 0, 60);
pub const FIRE_ARC_STROKE: Color32 = Color32::from_rgb(250, 170, 40);
pub const COMMAND_RADIUS: Color32 = Color32::from_rgb(120, 200, 255);
pub const MELEE_ZONE: Color32 = Color32::from_rgb(255, 90, 90);
pub const MOVE_ALLOWANCE: Color32 = Color32::from_rgb(180, 255, 180);
pub const OBSERVATION: Color32 = Color32::from_rgb(200, 160, 255);

/// The selected figure and the chosen target.
pub const SELECTED: Color32 = Color32::from_rgb(255, 255, 0);
pub const TARGET: Color32 = Color32::from_rgb(255, 0, 255);

/// Labels over the live image: light text on a dark plate.
pub const LABEL_TEXT: Color32 = Color32::from_rgb(250, 250, 250);
pub const LABEL_PLATE: Color32 = Color32::from_rgba_premultiplied(0, 0, 0, 170);

/// Where the last action happened, and its result.
pub const LAST_ACTION: Color32 = Color32::from_rgb(255, 160, 220);

/// Table markers: found, and expected but missing.
pub const MARKER_FOUND: Color32 = Color32::from_rgb(0, 230, 230);
pub const MARKER_MISSING: Color32 = Color32::from_rgb(220, 30, 30);

/// The table outline and the inch grid of the top-down view.
pub const TABLE_OUTLINE: Color32 = Color32::from_rgb(0, 200, 200);
pub const TABLE_MAT: Color32 = Color32::from_rgb(38, 60, 38);
pub const GRID_LINE: Color32 = Color32::from_rgba_premultiplied(40, 40, 40, 60);

/// Terrain areas in the top-down view.
pub const TERRAIN_FILL: Color32 = Color32::from_rgba_premultiplied(90, 70, 40, 120);
pub const TERRAIN_STROKE: Color32 = Color32::from_rgb(170, 140, 90);
/// Terrain the camera sees that the player has not named yet: a dashed
/// cyan that no mat or paint is likely to be.
pub const SEEN_TERRAIN: Color32 = Color32::from_rgb(80, 220, 235);

/// Lens wizard: cells of the picture the board's corners have covered.
pub const COVERAGE_CELL: Color32 = Color32::from_rgba_premultiplied(0, 90, 40, 90);

/// Status texts.
pub const STATUS_OK: Color32 = Color32::from_rgb(90, 220, 110);
pub const STATUS_WARN: Color32 = Color32::from_rgb(250, 200, 40);
pub const STATUS_ALARM: Color32 = Color32::from_rgb(255, 70, 70);
/// The line that says what the player can do next.
pub const NEXT_STEP: Color32 = Color32::from_rgb(120, 200, 255);

/// Background behind the live image while there is no frame.
pub const NO_FRAME: Color32 = Color32::from_rgb(20, 20, 24);

/// Ring width around figures, points.
pub const RING_WIDTH: f32 = 3.0;
/// Width of measurement lines, points.
pub const LINE_WIDTH: f32 = 2.0;
/// Width of range-band rings, points.
pub const THIN_LINE_WIDTH: f32 = 1.5;
/// Radius of the line-of-sight dot by each enemy, points.
pub const LOS_DOT_RADIUS: f32 = 6.0;
/// Overlay label size, points, at normal and large text.
pub const LABEL_SIZE: f32 = 13.0;
pub const LABEL_SIZE_LARGE: f32 = 22.0;
/// Whole-UI zoom of the large-text option (arm's length from a screen).
pub const LARGE_TEXT_ZOOM: f32 = 1.6;

/// A stroke of the usual line width.
pub fn line(colour: Color32) -> Stroke {
    Stroke::new(LINE_WIDTH, colour)
}

/// A ring stroke.
pub fn ring(colour: Color32) -> Stroke {
    Stroke::new(RING_WIDTH, colour)
}
