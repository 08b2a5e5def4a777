//! What Volley Fire! draws around a selected figure: his weapon's 45 degree
//! cone with its three range bands, the 24 in within which a Dervish leader
//! keeps Dervish groups moving at full dice, the melee contact distance and
//! the enemies in it, how far his unit's move dice take it (the mean and the
//! most), and line of sight, range and band to each enemy figure.
//!
//! # Conventions
//! Volley Fire! measures in table inches (its feet are 12 table inches), so
//! the shapes need no scale. Cover is read from the terrain a unit stands
//! in (or the player's word); the sight lines show which terrain lies
//! between.

use crate::rules::overlay::{
    BandEdge, MEAN_D6, OverlayShape, Purpose, RangeRing, centre_range, members_within,
    movement_circles, sights_to_enemies, zone_about_centre,
};
use crate::rules::{Figure, FigureId, GameState, Unit};

use super::engine::{CONTACT_EXTRA_IN, VolleyFireRules, ust};

/// The bands of the firing table, index 0 first (module docs of
/// [`crate::rules::volley_fire`]).
const BAND_NAMES: [&str; 3] = ["point blank", "deadly", "close"];

/// How far in front of a target the sight lines look for terrain, in.
const COVER_REACH_IN: f64 = 1.0;

fn band_name(i: usize) -> String {
    crate::rules::overlay::band_name(&BAND_NAMES, i)
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
            let troops = ust(u).troops;
            if me.leader && troops.is_some_and(super::status::Troops::dervish) {
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
            if let Some(troops) = troops {
                out.extend(self.move_circles(state, me, u, troops));
            }
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
        let contact = gap + CONTACT_EXTRA_IN + self.data.movement.contact_slack_in;
        let members = members_within(
            state
                .figures
                .iter()
                .filter(|f| f.side != me.side && f.active()),
            contact,
            |f| centre_range(me, f),
        );
        zone_about_centre(
            me,
            Purpose::Melee,
            contact,
            format!("contact {gap:.0}\" gap"),
            members,
        )
    }

    /// The unit's move: its dice (fewer without a leader, two when shaken),
    /// drawn at the mean and at the most they can throw.
    fn move_circles(
        &self,
        state: &GameState,
        me: &Figure,
        u: &Unit,
        troops: super::status::Troops,
    ) -> Vec<OverlayShape> {
        let (from, members) = self.front_of(state, u);
        if members.is_empty() {
            return Vec::new();
        }
        let n = if ust(u).shaken {
            Some(self.data.melee.shaken_move_dice)
        } else {
            let has_leader = self.has_leader(state, u, troops, from, &members);
            self.data.move_dice(troops.name(), &u.formation, has_leader)
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
    use crate::core::{Inch, Length};
    use crate::rules::overlay::probe::{band_to, fire_arc, members, movement_radii, sight};
    use crate::rules::overlay::{Member, SightKind};
    use nalgebra::Vector2;

    fn patrol() -> (VolleyFireRules, GameState) {
        (
            VolleyFireRules::builtin().unwrap(),
            crate::rules::overlay::scenario_state("vf-sudan-patrol.toml"),
        )
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
        let (half, rings) = fire_arc(&shapes).expect("a fire arc");
        assert_eq!(half, rules.data.fire.cone_deg / 2.0);
        let finite: Vec<f64> = rules
            .data
            .band_edges_in(w)
            .into_iter()
            .filter(|e| e.is_finite())
            .collect();
        let radii: Vec<f64> = rings.iter().map(|r| r.radius_in).collect();
        assert_eq!(radii, finite);
        let enemies: Vec<FigureId> = state
            .figures
            .iter()
            .filter(|g| g.side != f.side && g.alive())
            .map(|g| g.id)
            .collect();
        assert!(enemies.iter().all(|e| sight(&shapes, *e).is_some()));
    }

    #[test]
    fn an_enemy_at_one_foot_is_point_blank_and_in_contact_range_is_in_the_melee_zone() {
        let (rules, mut state) = patrol();
        let me = first_of_side(&state, 0);
        let foe = first_of_side(&state, 1);
        let at = state.figure(me).unwrap().placement.center_in_table;
        let weapon = state.figure(me).unwrap().weapon.clone();
        let first_edge = rules.data.band_edges_in(&rules.data.weapon[&weapon])[0];
        let place = |state: &mut GameState, dx: f64| {
            state.figures[foe.index()].placement.center_in_table = at + Vector2::new(dx, 0.0);
        };
        place(&mut state, first_edge - 0.5);
        let shapes = rules.overlay_shapes(&state, me);
        assert_eq!(band_to(&shapes, foe).as_deref(), Some("point blank"));

        place(&mut state, 1.5);
        let engaged = members(&rules.overlay_shapes(&state, me), Purpose::Melee).unwrap();
        let contact = rules.data.movement.melee_contact_gap_in
            + CONTACT_EXTRA_IN
            + rules.data.movement.contact_slack_in;
        let (a, b) = (state.figure(me).unwrap(), state.figure(foe).unwrap());
        let measured = Length::<Inch>::centre_to_centre(&a.placement, &b.placement);
        assert!(engaged.contains(&Member {
            figure: foe,
            too_close_to_call: measured.near(contact)
        }));
        // Far away: out of the zone, and the scrub is far from both: the
        // line is clear.
        place(&mut state, 40.0);
        let shapes = rules.overlay_shapes(&state, me);
        assert_eq!(members(&shapes, Purpose::Melee), Some(Vec::new()));
        assert!(matches!(
            sight(&shapes, foe),
            Some(OverlayShape::Sight {
                sight: SightKind::Clear,
                ..
            })
        ));
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
        let troops = ust(u).troops.unwrap();
        let (from, front) = rules.front_of(&state, u);
        let lead = rules.has_leader(&state, u, troops, from, &front);
        let n = f64::from(
            rules
                .data
                .move_dice(troops.name(), &u.formation, lead)
                .unwrap(),
        );
        assert_eq!(
            movement_radii(&rules.overlay_shapes(&state, me)),
            vec![3.5 * n, 6.0 * n]
        );
    }
}
