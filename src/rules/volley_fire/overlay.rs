//! What Volley Fire! draws around a selected figure: his weapon's 45 degree
//! cone with its three range bands, the 24 in within which a Dervish leader
//! keeps Dervish groups moving at full dice, the melee contact distance and
//! the enemies in it, how far his unit's move dice take it (the mean and the
//! most), and line of sight, range and band to each enemy figure.
//!
//! # Conventions
//! Volley Fire! measures in table inches (its feet are 12 table inches), so
//! the shapes need no scale. Cover in this rule set is a unit's status, set
//! by the players; the sight lines still show which terrain lies between.

use crate::game::{Figure, FigureId, GameState, Unit};
use crate::rules::overlay::{
    BandEdge, OverlayShape, Purpose, RangeRing, centre_range, grown_base_outline, members_within,
    movement_circles, sights_to_enemies,
};

use super::engine::{CONTACT_EXTRA_IN, VolleyFireRules, status_is};

/// The bands of the firing table, index 0 first (module docs of
/// [`crate::rules::volley_fire`]).
const BAND_NAMES: [&str; 3] = ["point blank", "deadly", "close"];

/// How far in front of a target the sight lines look for terrain, in.
const COVER_REACH_IN: f64 = 1.0;

/// Mean face of a d6.
const MEAN_D6: f64 = 3.5;

fn band_name(i: usize) -> String {
    BAND_NAMES
        .get(i)
        .map_or_else(|| format!("band {}", i + 1), |n| (*n).to_owned())
}

impl VolleyFireRules {
    /// The overlay of [`crate::rules::RuleSet::overlays`] for Volley Fire!.
    pub fn overlay_shapes(&self, state: &GameState, id: FigureId) -> Vec<OverlayShape> {
        let Some(me) = state.figure(id).filter(|f| f.alive()) else {
            return Vec::new();
        };
        let unit = state.units.iter().find(|u| u.figures.contains(&id));
        let mut out = Vec::new();
        let weapon = self.data.weapon.get(&me.weapon);
        let mut bands = Vec::new();
        if let Some(w) = weapon.filter(|w| !w.range_ft.is_empty()) {
            let edges = self.data.band_edges_in(w);
            bands = edges
                .iter()
                .enumerate()
                .map(|(i, e)| BandEdge {
                    name: band_name(i),
                    edge: *e,
                })
                .collect();
            out.push(OverlayShape::FireArc {
                figure: id,
                origin_in: me.placement.center_in_table,
                facing_deg: me.placement.facing_deg,
                half_angle_deg: self.data.fire.cone_deg / 2.0,
                weapon: me.weapon.clone(),
                bands: w
                    .range_ft
                    .iter()
                    .zip(&edges)
                    .enumerate()
                    .filter(|(_, (_, e))| e.is_finite())
                    .map(|(i, (ft, e))| RangeRing {
                        name: format!("{} {ft:.0} ft", band_name(i)),
                        radius_in: *e,
                    })
                    .collect(),
            });
        }
        if let Some(u) = unit {
            let troops = u.status.get("troops").map_or("", String::as_str);
            if me.leader && troops.starts_with("dervish") {
                let r = self.data.movement.dervish_leader_radius_in;
                out.push(OverlayShape::Circle {
                    purpose: Purpose::Command,
                    center_in: me.placement.center_in_table,
                    radius_in: r,
                    label: format!("leader {r:.0}\""),
                    members: members_within(
                        state
                            .figures
                            .iter()
                            .filter(|f| f.side == me.side && f.id != id && f.active()),
                        r,
                        |f| centre_range(me, f),
                    ),
                });
            }
            out.extend(self.move_circles(state, me, u, troops));
        }
        out.push(self.melee_zone(state, me));
        out.extend(sights_to_enemies(state, me, COVER_REACH_IN, &bands, |t| {
            centre_range(me, t)
        }));
        out
    }

    /// The contact distance between base centres, and the enemies within it.
    fn melee_zone(&self, state: &GameState, me: &Figure) -> OverlayShape {
        let gap = self.data.movement.melee_contact_gap_in;
        let contact = gap + CONTACT_EXTRA_IN;
        OverlayShape::Outline {
            purpose: Purpose::Melee,
            outline_in: grown_base_outline(
                me.placement.center_in_table,
                0.0,
                crate::geometry::BaseShape::Round { diameter_in: 0.0 },
                contact,
            ),
            label: format!("contact {gap:.0}\" gap"),
            members: members_within(
                state
                    .figures
                    .iter()
                    .filter(|f| f.side != me.side && f.active()),
                contact,
                |f| centre_range(me, f),
            ),
        }
    }

    /// The unit's move: its dice (fewer without a leader, two when shaken),
    /// drawn at the mean and at the most they can throw.
    fn move_circles(
        &self,
        state: &GameState,
        me: &Figure,
        u: &Unit,
        troops: &str,
    ) -> Vec<OverlayShape> {
        let (from, members) = self.front_of(state, u);
        if members.is_empty() {
            return Vec::new();
        }
        let n = if status_is(&u.status, "shaken") {
            Some(self.data.melee.shaken_move_dice)
        } else {
            let has_leader = self.has_leader(state, u, troops, from, &members);
            self.data.move_dice(troops, &u.formation, has_leader)
        };
        let Some(n) = n.filter(|n| *n > 0) else {
            return Vec::new();
        };
        let mean = MEAN_D6 * f64::from(n);
        let most = 6.0 * f64::from(n);
        movement_circles(
            me,
            vec![
                (format!("move {n}d6, mean {mean:.1}\""), mean),
                (format!("move {n}d6, most {most:.0}\""), most),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Scenario;
    use crate::rules::Registry;
    use crate::rules::overlay::{Member, SightKind};
    use nalgebra::Point2;

    fn patrol() -> (VolleyFireRules, GameState) {
        let registry = Registry::builtin().unwrap();
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/vf-sudan-patrol.toml");
        let sc = Scenario::load(&path, &registry).unwrap();
        (VolleyFireRules::builtin().unwrap(), sc.state)
    }

    fn first_of_side(state: &GameState, side: usize) -> FigureId {
        state.figures.iter().find(|f| f.side == side).unwrap().id
    }

    #[test]
    fn the_cone_and_bands_follow_the_weapon_and_each_enemy_has_a_sight() {
        let (rules, state) = patrol();
        let me = first_of_side(&state, 0);
        let shapes = rules.overlay_shapes(&state, me);
        let f = state.figure(me).unwrap();
        let w = rules.data.weapon.get(&f.weapon).unwrap();
        let (half, rings) = shapes
            .iter()
            .find_map(|s| match s {
                OverlayShape::FireArc {
                    half_angle_deg,
                    bands,
                    ..
                } => Some((*half_angle_deg, bands.clone())),
                _ => None,
            })
            .expect("a fire arc");
        assert_eq!(half, rules.data.fire.cone_deg / 2.0);
        let finite: Vec<f64> = rules
            .data
            .band_edges_in(w)
            .into_iter()
            .filter(|e| e.is_finite())
            .collect();
        assert_eq!(
            rings.iter().map(|r| r.radius_in).collect::<Vec<_>>(),
            finite
        );
        let enemies = state
            .figures
            .iter()
            .filter(|g| g.side != f.side && g.alive())
            .count();
        let sights = shapes
            .iter()
            .filter(|s| matches!(s, OverlayShape::Sight { .. }))
            .count();
        assert_eq!(sights, enemies);
    }

    #[test]
    fn an_enemy_at_one_foot_is_point_blank_and_in_contact_range_is_in_the_melee_zone() {
        let (rules, mut state) = patrol();
        let me = first_of_side(&state, 0);
        let foe = first_of_side(&state, 1);
        let at = state.figure(me).unwrap().placement.center_in_table;
        let w = rules
            .data
            .weapon
            .get(&state.figure(me).unwrap().weapon)
            .unwrap();
        let first_edge = rules.data.band_edges_in(w)[0];
        state.figures[foe.index()].placement.center_in_table =
            at + nalgebra::Vector2::new(first_edge - 0.5, 0.0);
        let band = rules
            .overlay_shapes(&state, me)
            .into_iter()
            .find_map(|s| match s {
                OverlayShape::Sight { to, band, .. } if to == foe => Some(band),
                _ => None,
            })
            .unwrap();
        assert_eq!(band.as_deref(), Some("point blank"));

        state.figures[foe.index()].placement.center_in_table =
            at + nalgebra::Vector2::new(1.5, 0.0);
        let members = rules
            .overlay_shapes(&state, me)
            .into_iter()
            .find_map(|s| match s {
                OverlayShape::Outline {
                    purpose: Purpose::Melee,
                    members,
                    ..
                } => Some(members),
                _ => None,
            })
            .unwrap();
        assert!(members.contains(&Member {
            figure: foe,
            too_close_to_call: false
        }));
        // Far away: out of the zone.
        state.figures[foe.index()].placement.center_in_table = Point2::new(at.x + 40.0, at.y);
        let shapes = rules.overlay_shapes(&state, me);
        assert!(shapes.iter().any(|s| matches!(
            s,
            OverlayShape::Outline { purpose: Purpose::Melee, members, .. } if members.is_empty()
        )));
        // The scrub is far from both: the line is clear.
        assert!(shapes.iter().any(|s| matches!(
            s,
            OverlayShape::Sight { to, sight: SightKind::Clear, .. } if *to == foe
        )));
    }

    #[test]
    fn the_move_circles_are_the_units_dice() {
        let (rules, state) = patrol();
        let me = first_of_side(&state, 0);
        let u = state
            .units
            .iter()
            .find(|u| u.figures.contains(&me))
            .unwrap();
        let troops = u.status.get("troops").unwrap();
        let (from, members) = rules.front_of(&state, u);
        let lead = rules.has_leader(&state, u, troops, from, &members);
        let n = rules.data.move_dice(troops, &u.formation, lead).unwrap();
        let radii: Vec<f64> = rules
            .overlay_shapes(&state, me)
            .into_iter()
            .filter_map(|s| match s {
                OverlayShape::Circle {
                    purpose: Purpose::Movement,
                    radius_in,
                    ..
                } => Some(radius_in),
                _ => None,
            })
            .collect();
        assert_eq!(radii, vec![3.5 * f64::from(n), 6.0 * f64::from(n)]);
    }
}
