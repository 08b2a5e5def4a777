//! The player's word on the terrain: a piece on the table (one the camera
//! sees, or any other) marked as an area of the game's terrain, or taken
//! off. Checked here so that only a well-formed area on the table, with
//! finite numbers, reaches the log.
//!
//! # Conventions
//! Outlines are in table inches (frame of `TABLE_KIT.md`).

use nalgebra::Point2;

use crate::core::{Refusal, RefusalKind};
use crate::geometry::{TerrainKind, polygon_area_in2};
use crate::rules::{GameState, RuleError};

/// What the player can say a seen piece is, with the kinds the rules read
/// from it: woods are soft cover and rough ground (Volley Fire!'s "woods,
/// scrub" are cover, Stand To!'s "dense scrub, jungle" rough); a building
/// is also hard cover for the rule sets that read only cover; "not
/// terrain" marks it with no kinds, so that the camera stops asking.
pub const CHOICES: [(&str, &[TerrainKind]); 9] = [
    ("woods", &[TerrainKind::SoftCover, TerrainKind::Rough]),
    ("soft cover", &[TerrainKind::SoftCover]),
    ("hard cover", &[TerrainKind::HardCover]),
    ("rough", &[TerrainKind::Rough]),
    ("blocking", &[TerrainKind::Blocking]),
    ("obstacle", &[TerrainKind::Obstacle]),
    ("building", &[TerrainKind::Building, TerrainKind::HardCover]),
    ("hill", &[TerrainKind::Hill]),
    ("not terrain", &[]),
];

/// The name a seen piece is marked by: where it stands, to the inch.
pub fn seen_name(center_in: Point2<f64>) -> String {
    format!("seen at ({:.0}, {:.0})", center_in.x, center_in.y)
}

/// Has the player said what the piece around `center_in` is (it lies in an
/// area of the game's terrain)?
pub fn is_marked(state: &GameState, center_in: Point2<f64>) -> bool {
    state
        .terrain
        .iter()
        .any(|a| crate::geometry::point_in_polygon(&a.polygon_in, center_in))
}

/// Who refuses a malformed mark: the game, not a rule set.
const BY: &str = "game";
/// Most vertices an outline may have (the camera's have at most a few
/// dozen; a hand-drawn one fewer).
pub const MAX_OUTLINE_POINTS: usize = 256;
/// Longest name of an area, characters.
pub const MAX_NAME_CHARS: usize = 80;
/// Smallest area of an outline, square inches (three points in a row are
/// no area).
const MIN_AREA_IN2: f64 = 1e-3;

fn refuse(kind: RefusalKind, why: String) -> RuleError {
    RuleError::Refused(Refusal::new(BY, kind, why))
}

/// Can the area `name` with this outline join the terrain?
pub(super) fn check_mark(
    state: &GameState,
    name: &str,
    polygon_in: &[Point2<f64>],
) -> Result<(), RuleError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(refuse(
            RefusalKind::Malformed,
            format!("a terrain area needs a name of 1 to {MAX_NAME_CHARS} characters"),
        ));
    }
    if !(3..=MAX_OUTLINE_POINTS).contains(&polygon_in.len()) {
        return Err(refuse(
            RefusalKind::Malformed,
            format!(
                "the outline of `{name}` has {} points; it needs 3 to {MAX_OUTLINE_POINTS}",
                polygon_in.len()
            ),
        ));
    }
    if let Some(p) = polygon_in
        .iter()
        .find(|p| !(p.x.is_finite() && p.y.is_finite()))
    {
        return Err(refuse(
            RefusalKind::Malformed,
            format!(
                "the outline of `{name}` has a point that is not a number ({}, {})",
                p.x, p.y
            ),
        ));
    }
    if let Some(p) = polygon_in.iter().find(|p| !state.on_table(**p)) {
        return Err(refuse(
            RefusalKind::OffTable,
            format!(
                "the outline of `{name}` reaches ({:.1}, {:.1}) in, off the {} x {} in table",
                p.x, p.y, state.table.width_in, state.table.depth_in
            ),
        ));
    }
    if polygon_area_in2(polygon_in) < MIN_AREA_IN2 {
        return Err(refuse(
            RefusalKind::Malformed,
            format!("the outline of `{name}` encloses no area"),
        ));
    }
    Ok(())
}

/// Is there an area `name` to take off?
pub(super) fn check_clear(state: &GameState, name: &str) -> Result<(), RuleError> {
    if state.terrain.iter().any(|a| a.name == name) {
        Ok(())
    } else {
        Err(RuleError::Unknown {
            what: "terrain area",
            name: name.to_owned(),
        })
    }
}
