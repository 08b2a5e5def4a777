//! What Soldiers in Time draws around a selected figure: his weapon's range
//! (all round for a musket or a bow; the gun's arc for artillery), a
//! leader's command range and a flag bearer's radius with the friends
//! inside them, the adjacent distance at which men fight hand to hand and
//! the enemies in it, how far he may walk and run (or ride at his horse's
//! speeds, or drag a gun), and line of sight and range to each enemy.
//!
//! # Conventions
//! Soldiers in Time measures in table inches, so the shapes need no scale.
//! Command, flag and melee distances are base edge to base edge, firing
//! range centre to centre, as in the engine.

use crate::geometry::{RangeMethod, range_in};
use crate::rules::overlay::{
    BandEdge, OverlayShape, Purpose, RangeRing, centre_range, members_within, movement_circles,
    sights_to_enemies, zone_around_base,
};
use crate::rules::{Figure, FigureId, GameState};

use super::engine::{SoldiersInTimeRules, in_play};

/// A man turns to shoot: his arc is all round.
const ALL_ROUND_HALF_ANGLE_DEG: f64 = 180.0;

/// How far in front of a target the sight lines look for terrain, in.
const COVER_REACH_IN: f64 = 1.0;

/// The band name of a weapon's single range.
const IN_RANGE: &str = "in range";

impl SoldiersInTimeRules {
    /// The overlay of [`crate::rules::RuleSet::overlays`] for Soldiers in Time.
    pub fn overlay_shapes(&self, state: &GameState, id: FigureId) -> Vec<OverlayShape> {
        let Some(me) = state.figure(id).filter(|f| f.alive()) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let weapon = self.data.weapons.get(&me.weapon);
        let mut bands = Vec::new();
        if let Some(w) = weapon {
            bands.push(BandEdge {
                name: IN_RANGE.into(),
                edge: w.range_in,
            });
            out.push(OverlayShape::FireArc {
                figure: id,
                origin_in: me.placement.center_in_table,
                facing_deg: me.placement.facing_deg,
                half_angle_deg: if w.artillery.is_some() {
                    self.data.special.artillery_arc_deg / 2.0
                } else {
                    ALL_ROUND_HALF_ANGLE_DEG
                },
                weapon: me.weapon.clone(),
                bands: vec![RangeRing {
                    name: format!("{} {:.0}\"", me.weapon, w.range_in),
                    radius_in: w.range_in,
                }],
            });
        }
        let edge_gap = |f: &Figure| range_in(&me.placement, &f.placement, RangeMethod::EdgeToEdge);
        let friends = || {
            state
                .figures
                .iter()
                .filter(move |f| f.side == me.side && f.id != id && in_play(f))
        };
        if me.leader {
            let r = self.data.command.range_in;
            out.push(zone_around_base(
                me,
                Purpose::Command,
                r,
                format!("command {r:.0}\""),
                members_within(friends(), r, edge_gap),
            ));
        }
        if super::status::of(me).flag {
            let r = self.data.special.flag_bearer_radius_in;
            out.push(zone_around_base(
                me,
                Purpose::Command,
                r,
                format!("flag {r:.0}\""),
                members_within(friends(), r, edge_gap),
            ));
        }
        let adjacent = self.data.fire.adjacent_in;
        let engaged = members_within(
            state
                .figures
                .iter()
                .filter(|f| f.side != me.side && in_play(f)),
            adjacent,
            edge_gap,
        );
        out.push(zone_around_base(
            me,
            Purpose::Melee,
            adjacent,
            format!("adjacent {adjacent:.0}\""),
            engaged,
        ));
        out.extend(movement_circles(me, self.paces(me)));
        out.extend(sights_to_enemies(state, me, COVER_REACH_IN, &bands, |t| {
            centre_range(me, t)
        }));
        out
    }

    /// The distances he may move: a gun's drag, a horse's speeds from the
    /// present one up as far as an order lets it change, or walk and run.
    fn paces(&self, me: &Figure) -> Vec<(String, f64)> {
        let mv = &self.data.movement;
        let gun = self
            .data
            .weapons
            .get(&me.weapon)
            .is_some_and(|w| w.artillery.is_some());
        if gun {
            return vec![(
                format!("gun {:.0}\"", mv.artillery_move_in),
                mv.artillery_move_in,
            )];
        }
        if me.mounted() {
            let now = me.mount_level.unwrap_or(0);
            let top = now.saturating_add(mv.horse_change_levels);
            return (now..=top)
                .filter_map(|level| {
                    let name = mv.horse_speeds.get(usize::from(level))?;
                    let r = self.data.horse_speed_in(level);
                    Some((format!("{name} {r:.0}\""), r))
                })
                .collect();
        }
        vec![
            (format!("walk {:.0}\"", mv.foot_in), mv.foot_in),
            (format!("run {:.0}\"", mv.run_in), mv.run_in),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::overlay::probe::{band_to, fire_arc, members, movement_radii};
    use nalgebra::Vector2;

    fn skirmish() -> (SoldiersInTimeRules, GameState) {
        (
            SoldiersInTimeRules::builtin().unwrap(),
            crate::rules::overlay::scenario_state("sit-skirmish.toml"),
        )
    }

    fn named(state: &GameState, name: &str) -> FigureId {
        state.figure_named(name).unwrap().id
    }

    #[test]
    fn the_leaders_command_range_holds_the_men_near_him() {
        let (rules, mut state) = skirmish();
        let hale = named(&state, "Sgt Hale");
        let adams = named(&state, "Private Adams");
        let at = state.figure(hale).unwrap().placement.center_in_table;
        let command =
            |state: &GameState| members(&rules.overlay_shapes(state, hale), Purpose::Command);
        // Bases 1 in across: centres 3.5 in apart leave a 2.5 in gap.
        state.figures[adams.index()].placement.center_in_table = at + Vector2::new(3.5, 0.0);
        // Measured with the positions' uncertainty: the member carries the
        // shared call, which is sure 0.5 in inside the edge.
        let inside = command(&state).unwrap();
        let adams_in = inside.iter().find(|m| m.figure == adams).expect("in range");
        let gap = crate::core::Length::<crate::core::Inch>::between(
            &state.figure(adams).unwrap().placement,
            &state.figure(hale).unwrap().placement,
            RangeMethod::EdgeToEdge,
        );
        assert_eq!(
            adams_in.too_close_to_call,
            gap.near(rules.data.command.range_in)
        );
        // 5 in apart: a 4 in gap, outside the 3 in command range.
        state.figures[adams.index()].placement.center_in_table = at + Vector2::new(5.0, 0.0);
        assert!(!command(&state).unwrap().iter().any(|m| m.figure == adams));
        // A private has no command range.
        assert!(members(&rules.overlay_shapes(&state, adams), Purpose::Command).is_none());
    }

    #[test]
    fn a_musket_reaches_all_round_and_the_sights_say_in_range_or_not() {
        let (rules, mut state) = skirmish();
        let hale = named(&state, "Sgt Hale");
        let (half, rings) = fire_arc(&rules.overlay_shapes(&state, hale)).unwrap();
        let musket = rules.data.weapons.get("musket").unwrap().range_in;
        assert_eq!(half, 180.0);
        assert_eq!(rings[0].radius_in, musket);
        let at = state.figure(hale).unwrap().placement.center_in_table;
        let foe = state.figures.iter().find(|f| f.side == 1).unwrap().id;
        for (dy, want) in [(musket + 2.0, None), (musket - 2.0, Some(IN_RANGE))] {
            state.figures[foe.index()].placement.center_in_table = at + Vector2::new(0.0, dy);
            let band = band_to(&rules.overlay_shapes(&state, hale), foe);
            assert_eq!(band.as_deref(), want, "{dy} in away");
        }
    }

    #[test]
    fn a_man_on_foot_walks_and_runs() {
        let (rules, state) = skirmish();
        let adams = named(&state, "Private Adams");
        let mv = &rules.data.movement;
        assert_eq!(
            movement_radii(&rules.overlay_shapes(&state, adams)),
            vec![mv.foot_in, mv.run_in]
        );
    }
}
