//! What a rule set wants drawn around a selected figure, described without
//! any drawing library: its fire arc and range bands, its command radius and
//! who hears an order, its melee zone and who is engaged, line of sight and
//! range to each enemy, and how far it may move. The app paints these over
//! the live view and the top-down view; tests check them as data.
//!
//! # Conventions
//! - Every position and length here is in **table inches** (table frame of
//!   `TABLE_KIT.md`), already scaled from rule inches with the game's
//!   [`crate::geometry::Scale`]; labels give the rule distance.
//! - Angles are degrees counter-clockwise from +x.
//! - A member or a sight whose call the measurement uncertainty could flip
//!   carries `too_close_to_call`; the painter must show it.

use nalgebra::{Point2, Vector2};
use serde::{Deserialize, Serialize};

use crate::geometry::{self, Band, BaseShape, Cover, Measured, line_of_sight};
use crate::rules::{Figure, FigureId, GameState};

/// One range band of a weapon, drawn as a ring.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RangeRing {
    /// Band name from the rule set ("short", "medium", "long").
    pub name: String,
    /// Outer edge of the band from the base centre, table inches.
    pub radius_in: f64,
}

/// What a circle or an outline stands for (the painter picks the colour).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Purpose {
    /// Which friends hear an order.
    Command,
    /// The melee engagement zone.
    Melee,
    /// How far the figure may move this turn at a pace.
    Movement,
    /// A scout's observation circle.
    Observation,
}

/// A figure inside a circle or zone, and whether that is certain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    pub figure: FigureId,
    pub too_close_to_call: bool,
}

/// What the figure sees of an enemy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SightKind {
    Clear,
    /// Seen, in soft cover.
    Soft,
    /// Seen, in hard cover.
    Hard,
    /// Not seen: terrain blocks the line.
    Blocked,
}

impl SightKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::Clear => "clear",
            Self::Soft => "soft cover",
            Self::Hard => "hard cover",
            Self::Blocked => "blocked",
        }
    }
}

/// One thing to draw for the selected figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum OverlayShape {
    /// Where the figure's weapon reaches: a sector of `half_angle_deg`
    /// either side of the facing (180 for a man who turns to fire), with one
    /// ring per range band.
    FireArc {
        figure: FigureId,
        origin_in: Point2<f64>,
        facing_deg: f64,
        half_angle_deg: f64,
        weapon: String,
        bands: Vec<RangeRing>,
    },
    /// A circle about a point (command radius, movement allowance, a
    /// scout's circle), with the figures inside it.
    Circle {
        purpose: Purpose,
        center_in: Point2<f64>,
        radius_in: f64,
        label: String,
        members: Vec<Member>,
    },
    /// A closed outline (the melee zone around a base), with the figures
    /// inside it.
    Outline {
        purpose: Purpose,
        outline_in: Vec<Point2<f64>>,
        label: String,
        members: Vec<Member>,
    },
    /// Line of sight and range from the figure to one enemy.
    Sight {
        from: FigureId,
        to: FigureId,
        from_in: Point2<f64>,
        to_in: Point2<f64>,
        sight: SightKind,
        /// The sight or cover call could go either way.
        sight_too_close_to_call: bool,
        /// Range as the rules measure it, rule inches.
        range_in: f64,
        /// The weapon's band at that range; `None` when out of range.
        band: Option<String>,
        /// Its index, nearest band 0 (the painter's colour).
        band_index: Option<usize>,
        /// The range is within its uncertainty of a band edge.
        band_too_close_to_call: bool,
        /// Terrain areas giving the cover or blocking the view.
        areas: Vec<String>,
    },
}

/// Points sampled per quarter turn on rounded outlines.
const QUARTER_SEGMENTS: usize = 8;

/// The outline of a base grown by `reach_in` all round (the set of points
/// within `reach_in` of the base), table inches, counter-clockwise, closed
/// (the last point is not repeated).
pub fn grown_base_outline(
    center_in: Point2<f64>,
    facing_deg: f64,
    shape: BaseShape,
    reach_in: f64,
) -> Vec<Point2<f64>> {
    let (half_len, half_wid, r) = match shape {
        BaseShape::Round { diameter_in } => (0.0, 0.0, diameter_in / 2.0 + reach_in),
        BaseShape::Rect {
            width_in,
            length_in,
        } => (length_in / 2.0, width_in / 2.0, reach_in),
    };
    let f = facing_deg.to_radians();
    let along = Vector2::new(f.cos(), f.sin());
    let across = Vector2::new(-along.y, along.x);
    // The four corners of the core rectangle (a point for a round base),
    // each with a quarter circle of radius r around it.
    let corners = [
        (half_len, -half_wid, 0.0),
        (half_len, half_wid, 90.0),
        (-half_len, half_wid, 180.0),
        (-half_len, -half_wid, 270.0),
    ];
    let mut pts = Vec::with_capacity(4 * (QUARTER_SEGMENTS + 1));
    for (a, b, start_deg) in corners {
        let corner = center_in + along * a + across * b;
        for i in 0..=QUARTER_SEGMENTS {
            let t = (start_deg - 90.0 + 90.0 * i as f64 / QUARTER_SEGMENTS as f64).to_radians();
            pts.push(corner + (along * t.cos() + across * t.sin()) * r);
        }
    }
    pts
}

/// One range band of a weapon for [`sights_to_enemies`]: its name and its
/// outer edge, in the unit the rule set's range measure returns.
#[derive(Debug, Clone, PartialEq)]
pub struct BandEdge {
    pub name: String,
    pub edge: f64,
}

/// The figures of `candidates` whose `measure` from the selected figure is
/// at most `limit`, with those the uncertainty could put either side marked
/// too close to call.
pub fn members_within<'a>(
    candidates: impl Iterator<Item = &'a Figure>,
    limit: f64,
    measure: impl Fn(&Figure) -> Measured,
) -> Vec<Member> {
    candidates
        .filter_map(|f| {
            let call = measure(f).at_most(limit);
            (call.value || call.too_close_to_call).then_some(Member {
                figure: f.id,
                too_close_to_call: call.too_close_to_call,
            })
        })
        .collect()
}

/// Centre to centre, table inches, with both positions' uncertainty.
pub fn centre_range(a: &Figure, b: &Figure) -> Measured {
    Measured::new(
        (a.placement.center_in_table - b.placement.center_in_table).norm(),
        a.placement.sigma_in.hypot(b.placement.sigma_in),
    )
}

/// Line of sight, cover, range and range band from `me` to every living
/// enemy. `cover_reach_in` (table inches) is how far in front of a target
/// cover still covers him; `range` measures as the rule set does, in the
/// unit of the band edges (the last band's edge is the weapon's reach; no
/// bands: no band is named).
pub fn sights_to_enemies(
    state: &GameState,
    me: &Figure,
    cover_reach_in: f64,
    bands: &[BandEdge],
    range: impl Fn(&Figure) -> Measured,
) -> Vec<OverlayShape> {
    let edges: Vec<f64> = bands.iter().map(|b| b.edge).collect();
    state
        .figures
        .iter()
        .filter(|f| f.side != me.side && f.alive())
        .map(|t| {
            let seen = line_of_sight(&me.placement, &t.placement, &state.terrain, cover_reach_in);
            let sight = if !seen.clear.value {
                SightKind::Blocked
            } else {
                match seen.cover.value {
                    Cover::None => SightKind::Clear,
                    Cover::Soft => SightKind::Soft,
                    Cover::Hard => SightKind::Hard,
                }
            };
            let measured = range(t);
            let (band_index, band_too_close_to_call) = if edges.is_empty() {
                (None, false)
            } else {
                let call = geometry::band_of(measured, &edges);
                let index = match call.value {
                    Band::Within(i) => Some(i),
                    Band::OutOfRange => None,
                };
                (index, call.too_close_to_call)
            };
            let band = band_index
                .and_then(|i| bands.get(i))
                .map(|b| b.name.clone());
            OverlayShape::Sight {
                from: me.id,
                to: t.id,
                from_in: me.placement.center_in_table,
                to_in: t.placement.center_in_table,
                sight,
                sight_too_close_to_call: seen.clear.too_close_to_call
                    || seen.cover.too_close_to_call,
                range_in: measured.value_in,
                band,
                band_index,
                band_too_close_to_call,
                areas: seen.areas,
            }
        })
        .collect()
}

/// The zone within `reach_in` of the figure's base (table inches), with
/// who is inside it.
pub fn zone_around_base(
    me: &Figure,
    purpose: Purpose,
    reach_in: f64,
    label: String,
    members: Vec<Member>,
) -> OverlayShape {
    let p = &me.placement;
    OverlayShape::Outline {
        purpose,
        outline_in: grown_base_outline(p.center_in_table, p.facing_deg, p.shape, reach_in),
        label,
        members,
    }
}

/// The zone within `radius_in` of the figure's base centre (rules that
/// measure centre to centre), with who is inside it.
pub fn zone_about_centre(
    me: &Figure,
    purpose: Purpose,
    radius_in: f64,
    label: String,
    members: Vec<Member>,
) -> OverlayShape {
    OverlayShape::Outline {
        purpose,
        outline_in: grown_base_outline(
            me.placement.center_in_table,
            0.0,
            BaseShape::Round { diameter_in: 0.0 },
            radius_in,
        ),
        label,
        members,
    }
}

/// Mean face of a d6 (a move thrown on dice is drawn at its mean).
pub const MEAN_D6: f64 = 3.5;

/// The name of band `i` from a rule set's list, "band N" beyond it.
pub fn band_name(names: &[&str], i: usize) -> String {
    names
        .get(i)
        .map_or_else(|| format!("band {}", i + 1), |n| (*n).to_owned())
}

/// Readers of shape lists, for the rule sets' overlay tests.
#[cfg(test)]
pub(crate) mod probe {
    use super::*;

    /// The fire arc's half angle and rings.
    pub fn fire_arc(shapes: &[OverlayShape]) -> Option<(f64, Vec<RangeRing>)> {
        shapes.iter().find_map(|s| match s {
            OverlayShape::FireArc {
                half_angle_deg,
                bands,
                ..
            } => Some((*half_angle_deg, bands.clone())),
            _ => None,
        })
    }

    /// The sight line to `to`.
    pub fn sight(shapes: &[OverlayShape], to: FigureId) -> Option<&OverlayShape> {
        shapes
            .iter()
            .find(|s| matches!(s, OverlayShape::Sight { to: t, .. } if *t == to))
    }

    /// The band named on the sight line to `to`.
    pub fn band_to(shapes: &[OverlayShape], to: FigureId) -> Option<String> {
        match sight(shapes, to) {
            Some(OverlayShape::Sight { band, .. }) => band.clone(),
            _ => None,
        }
    }

    /// The radii of the movement circles, in order.
    pub fn movement_radii(shapes: &[OverlayShape]) -> Vec<f64> {
        shapes
            .iter()
            .filter_map(|s| match s {
                OverlayShape::Circle {
                    purpose: Purpose::Movement,
                    radius_in,
                    ..
                } => Some(*radius_in),
                _ => None,
            })
            .collect()
    }

    /// The members of the first circle or outline for `purpose`.
    pub fn members(shapes: &[OverlayShape], purpose: Purpose) -> Option<Vec<Member>> {
        shapes.iter().find_map(|s| match s {
            OverlayShape::Circle {
                purpose: p,
                members,
                ..
            }
            | OverlayShape::Outline {
                purpose: p,
                members,
                ..
            } if *p == purpose => Some(members.clone()),
            _ => None,
        })
    }
}

/// A built-in scenario's state, for the rule sets' overlay tests.
#[cfg(test)]
pub(crate) fn scenario_state(file: &str) -> GameState {
    let registry = crate::rules::Registry::builtin().expect("built-in rule sets");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(file);
    crate::game::Scenario::load(&path, &registry)
        .expect("built-in scenario")
        .state
}

/// Movement circles about the figure, one per (label, radius in table
/// inches); radii that are not finite and positive are left out.
pub fn movement_circles(me: &Figure, paces: Vec<(String, f64)>) -> Vec<OverlayShape> {
    paces
        .into_iter()
        .filter(|(_, r)| r.is_finite() && *r > 0.0)
        .map(|(label, radius_in)| OverlayShape::Circle {
            purpose: Purpose::Movement,
            center_in: me.placement.center_in_table,
            radius_in,
            label,
            members: Vec::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn grown_round_base_is_a_circle() {
        let c = Point2::new(5.0, 5.0);
        for p in grown_base_outline(c, 30.0, BaseShape::FOOT, 1.0) {
            assert_relative_eq!((p - c).norm(), 1.5, epsilon = 1e-12);
        }
    }

    #[test]
    fn grown_rect_base_keeps_its_distance_from_the_base() {
        let c = Point2::new(0.0, 0.0);
        let pts = grown_base_outline(c, 90.0, BaseShape::MOUNTED, 1.0);
        // Along the facing (+y) the base reaches 1 in, so the zone 2 in;
        // across it 0.5 in, so 1.5 in.
        let max_y = pts.iter().map(|p| p.y).fold(f64::MIN, f64::max);
        let max_x = pts.iter().map(|p| p.x).fold(f64::MIN, f64::max);
        assert_relative_eq!(max_y, 2.0, epsilon = 1e-9);
        assert_relative_eq!(max_x, 1.5, epsilon = 1e-9);
        // Every point is exactly 1 in from the rectangle.
        for p in pts {
            let dx = (p.x.abs() - 0.5).max(0.0);
            let dy = (p.y.abs() - 1.0).max(0.0);
            assert_relative_eq!(dx.hypot(dy), 1.0, epsilon = 1e-9);
        }
    }
}
