//! What Stand To! draws around a selected figure: the range bands of his
//! weapon (all round for a man, who turns to fire; the 15 degree cone for a
//! gun), the shouting radius of an order giver and the friends who hear
//! him, the 1 in melee zone and the enemies in it, line of sight, cover and
//! range band to each enemy, and how far he may walk, doubletime and charge
//! (or ride at his mount's speed) this turn.
//!
//! # Conventions
//! Shapes are in table inches ([`crate::rules::overlay`]); the rule data is
//! in rule inches and is scaled with the game's scale here. Labels give rule
//! inches, as the players read them in the book.

use crate::geometry::line_of_sight;
use crate::rules::overlay::{
    BandEdge, OverlayShape, Purpose, RangeRing, members_within, movement_circles,
    sights_to_enemies, zone_around_base,
};
use crate::rules::{Figure, FigureId, GameState, SideKind};

use super::engine::{BAND_NAMES, StandToRules};
use super::status;

/// A man turns to fire: his arc is all round.
const ALL_ROUND_HALF_ANGLE_DEG: f64 = 180.0;

impl StandToRules {
    /// The overlay of [`crate::rules::RuleSet::overlays`] for Stand To!.
    pub fn overlay_shapes(&self, state: &GameState, id: FigureId) -> Vec<OverlayShape> {
        let Some(me) = state.figure(id).filter(|f| f.alive()) else {
            return Vec::new();
        };
        let table_in = |rule_in: f64| state.scale.table_from_rule_in(rule_in);
        let mut out = Vec::new();
        let weapon = self.data.weapon(&me.weapon);
        if let Some(w) = weapon {
            let half_angle_deg = if w.gun {
                self.data.artillery.cone_deg / 2.0
            } else {
                ALL_ROUND_HALF_ANGLE_DEG
            };
            out.push(OverlayShape::FireArc {
                figure: id,
                origin_in: me.placement.center_in_table,
                facing_deg: me.placement.facing_deg,
                half_angle_deg,
                weapon: w.name.clone(),
                bands: BAND_NAMES
                    .iter()
                    .zip(w.range_in)
                    .map(|(name, r)| RangeRing {
                        name: format!("{name} {r:.0}\""),
                        radius_in: table_in(r),
                    })
                    .collect(),
            });
        }
        if self.data.orders.givers.iter().any(|g| g == me.rank.name()) {
            out.extend(self.order_circles(state, me));
        }
        out.push(self.melee_zone(state, me));
        out.extend(self.movement_circles(state, me));
        out.extend(self.sights(state, me));
        out
    }

    /// The 1 in engagement zone around the base and the enemies in it.
    fn melee_zone(&self, state: &GameState, me: &Figure) -> OverlayShape {
        let reach = self.data.melee.engagement_in;
        let members = members_within(
            state
                .figures
                .iter()
                .filter(|f| f.side != me.side && f.active()),
            reach,
            |f| self.rule_range(state, me, f, self.data.measure.melee),
        );
        zone_around_base(
            me,
            Purpose::Melee,
            state.scale.table_from_rule_in(reach),
            format!("melee {reach:.0}\""),
            members,
        )
    }

    /// Circles of the distances he may move this turn: his mount's speed
    /// and one level up, or walk, doubletime and (while he may) charge.
    fn movement_circles(&self, state: &GameState, me: &Figure) -> Vec<OverlayShape> {
        if status::st(me)
            .idle_until_turn
            .is_some_and(|t| t >= state.turn)
            || !me.active()
        {
            return Vec::new();
        }
        let mut paces: Vec<(String, f64)> = Vec::new();
        if let Some(level) = me.mount_level.filter(|_| me.mounted()) {
            let now = usize::from(level);
            let up = now + self.data.mount.up_levels as usize;
            for s in self.data.mount.speed.iter().take(up + 1).skip(now) {
                paces.push((s.name.clone(), s.max_in));
            }
        } else {
            let kind = Self::side_kind(state, me);
            let rates = match kind {
                SideKind::European => &self.data.movement.european,
                SideKind::Native => &self.data.movement.native,
            };
            paces.push(("walk".into(), rates.walk));
            paces.push(("doubletime".into(), rates.doubletime));
            let may_charge = kind == SideKind::Native
                || status::st(me).charge_turns_used < self.data.movement.european_charge_turns;
            if may_charge {
                paces.push(("charge".into(), rates.charge));
            }
        }
        let paces = paces
            .into_iter()
            .map(|(name, rule_in)| {
                (
                    format!("{name} {rule_in:.0}\""),
                    state.scale.table_from_rule_in(rule_in),
                )
            })
            .collect();
        movement_circles(me, paces)
    }

    /// Who hears an order giver: the friends within shouting range, and
    /// those within hand-signal range who can see him (a man firing, aiming
    /// or in melee is too busy to watch; the engine checks that when the
    /// order is given).
    fn order_circles(&self, state: &GameState, me: &Figure) -> Vec<OverlayShape> {
        let friends = || {
            state
                .figures
                .iter()
                .filter(move |f| f.side == me.side && f.id != me.id && f.active())
        };
        let orders = &self.data.orders;
        let range = |f: &Figure| self.rule_range(state, me, f, self.data.measure.orders);
        let shout = orders.shout_in;
        let mut out = vec![OverlayShape::Circle {
            purpose: Purpose::Command,
            center_in: me.placement.center_in_table,
            radius_in: state.scale.table_from_rule_in(shout),
            label: format!("shout {shout:.0}\""),
            members: members_within(friends(), shout, range),
        }];
        let signal = orders.hand_signal_in;
        let reach = state
            .scale
            .table_from_rule_in(self.data.measure.cover_reach_in);
        let seen = friends().filter(|f| {
            line_of_sight(&f.placement, &me.placement, &state.terrain, reach)
                .clear
                .value
        });
        out.push(OverlayShape::Circle {
            purpose: Purpose::Command,
            center_in: me.placement.center_in_table,
            radius_in: state.scale.table_from_rule_in(signal),
            label: format!("hand signal {signal:.0}\""),
            members: members_within(seen, signal, range),
        });
        out
    }

    /// Line of sight, cover and the range band of his weapon to each enemy.
    fn sights(&self, state: &GameState, me: &Figure) -> Vec<OverlayShape> {
        let bands: Vec<BandEdge> = self
            .data
            .weapon(&me.weapon)
            .map(|w| {
                BAND_NAMES
                    .iter()
                    .zip(w.range_in)
                    .map(|(name, edge)| BandEdge {
                        name: (*name).to_owned(),
                        edge,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let reach = state
            .scale
            .table_from_rule_in(self.data.measure.cover_reach_in);
        sights_to_enemies(state, me, reach, &bands, |t| {
            self.rule_range(state, me, t, self.data.measure.fire)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{Scale, TerrainArea, TerrainKind};
    use crate::rules::overlay::{Member, SightKind};
    use nalgebra::Point2;

    fn dragoon() -> (StandToRules, GameState) {
        (
            StandToRules::builtin().unwrap(),
            crate::rules::overlay::scenario_state("dragoon.toml"),
        )
    }

    fn id_of(state: &GameState, name: &str) -> FigureId {
        state.figure_named(name).unwrap().id
    }

    fn sight_to(shapes: &[OverlayShape], to: FigureId) -> OverlayShape {
        shapes
            .iter()
            .find(|s| matches!(s, OverlayShape::Sight { to: t, .. } if *t == to))
            .cloned()
            .expect("a sight shape to the enemy")
    }

    #[test]
    fn dragoon_sees_the_warrior_clear_at_medium_range() {
        let (rules, state) = dragoon();
        let hobbs = id_of(&state, "Trooper Hobbs");
        let warrior = id_of(&state, "Hadendowa warrior");
        let shapes = rules.overlay_shapes(&state, hobbs);
        let OverlayShape::Sight {
            sight,
            range_in,
            band,
            band_too_close_to_call,
            ..
        } = sight_to(&shapes, warrior)
        else {
            unreachable!()
        };
        assert_eq!(sight, SightKind::Clear);
        assert!((range_in - 18.0).abs() < 1e-9);
        // RULES.md: carbine at 18 in is medium range.
        assert_eq!(band.as_deref(), Some("medium"));
        assert!(!band_too_close_to_call);
        // A private gives no orders: no command radius.
        assert!(!shapes.iter().any(|s| matches!(
            s,
            OverlayShape::Circle {
                purpose: Purpose::Command,
                ..
            }
        )));
        // The carbine's arc is all round, its rings the weapon's bands.
        let arc = shapes
            .iter()
            .find_map(|s| match s {
                OverlayShape::FireArc {
                    half_angle_deg,
                    bands,
                    ..
                } => Some((*half_angle_deg, bands.clone())),
                _ => None,
            })
            .unwrap();
        assert_eq!(arc.0, 180.0);
        let w = rules.data.weapon("breech-loading-carbine").unwrap();
        let radii: Vec<f64> = arc.1.iter().map(|b| b.radius_in).collect();
        assert_eq!(radii, w.range_in.to_vec());
    }

    #[test]
    fn terrain_blocks_or_covers_and_54mm_doubles_the_rings() {
        let (rules, mut state) = dragoon();
        let hobbs = id_of(&state, "Trooper Hobbs");
        let warrior = id_of(&state, "Hadendowa warrior");
        let square = |x0: f64, x1: f64| {
            vec![
                Point2::new(x0, 15.0),
                Point2::new(x1, 15.0),
                Point2::new(x1, 25.0),
                Point2::new(x0, 25.0),
            ]
        };
        state.terrain = vec![TerrainArea {
            name: "house".into(),
            kinds: vec![TerrainKind::Blocking],
            polygon_in: square(18.0, 20.0),
        }];
        let OverlayShape::Sight { sight, areas, .. } =
            sight_to(&rules.overlay_shapes(&state, hobbs), warrior)
        else {
            unreachable!()
        };
        assert_eq!(sight, SightKind::Blocked);
        assert_eq!(areas, vec!["house".to_owned()]);

        // A wall just in front of the warrior: hard cover.
        state.terrain = vec![TerrainArea {
            name: "wall".into(),
            kinds: vec![TerrainKind::HardCover],
            polygon_in: square(27.0, 27.3),
        }];
        let OverlayShape::Sight { sight, .. } =
            sight_to(&rules.overlay_shapes(&state, hobbs), warrior)
        else {
            unreachable!()
        };
        assert_eq!(sight, SightKind::Hard);

        state.scale = Scale::Mm54;
        let walk = rules
            .overlay_shapes(&state, hobbs)
            .into_iter()
            .find_map(|s| match s {
                OverlayShape::Circle {
                    purpose: Purpose::Movement,
                    radius_in,
                    label,
                    ..
                } if label.starts_with("walk") => Some(radius_in),
                _ => None,
            })
            .unwrap();
        assert_eq!(walk, 2.0 * rules.data.movement.european.walk);
    }

    #[test]
    fn a_range_at_a_band_edge_is_too_close_to_call() {
        let (rules, mut state) = dragoon();
        let hobbs = id_of(&state, "Trooper Hobbs");
        let warrior = id_of(&state, "Hadendowa warrior");
        let w = rules.data.weapon("breech-loading-carbine").unwrap();
        let edge = w.range_in[0];
        for f in &mut state.figures {
            f.placement.sigma_in = 0.05;
        }
        state.figures[warrior.index()].placement.center_in_table = Point2::new(10.0 + edge, 20.0);
        let OverlayShape::Sight {
            band_too_close_to_call,
            ..
        } = sight_to(&rules.overlay_shapes(&state, hobbs), warrior)
        else {
            unreachable!()
        };
        assert!(band_too_close_to_call);
    }

    #[test]
    fn melee_zone_holds_the_enemy_within_an_inch() {
        let (rules, mut state) = dragoon();
        let hobbs = id_of(&state, "Trooper Hobbs");
        let warrior = id_of(&state, "Hadendowa warrior");
        // Bases 1 in across: centres 1.8 in apart leave a 0.8 in gap.
        state.figures[warrior.index()].placement.center_in_table = Point2::new(11.8, 20.0);
        let members = rules
            .overlay_shapes(&state, hobbs)
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
        assert_eq!(
            members,
            vec![Member {
                figure: warrior,
                too_close_to_call: false
            }]
        );
    }

    #[test]
    fn a_leaders_hand_signals_reach_the_friends_who_see_him() {
        let (rules, mut state) = dragoon();
        let hobbs = id_of(&state, "Trooper Hobbs");
        let other = id_of(&state, "Hadendowa warrior");
        // Make Hobbs an NCO and the other man his friend, 18 in away:
        // beyond a shout, within a hand signal.
        state.figures[hobbs.index()].rank = crate::rules::Rank::Nco;
        state.figures[other.index()].side = state.figures[hobbs.index()].side;
        let circles = |state: &GameState| -> Vec<(String, Vec<Member>)> {
            rules
                .overlay_shapes(state, hobbs)
                .into_iter()
                .filter_map(|s| match s {
                    OverlayShape::Circle {
                        purpose: Purpose::Command,
                        label,
                        members,
                        ..
                    } => Some((label, members)),
                    _ => None,
                })
                .collect()
        };
        let c = circles(&state);
        assert_eq!(c.len(), 2);
        assert!(c[0].0.starts_with("shout") && c[0].1.is_empty());
        assert!(c[1].0.starts_with("hand signal"));
        assert_eq!(
            c[1].1,
            vec![Member {
                figure: other,
                too_close_to_call: false
            }]
        );
        // A house between them: he cannot see the signal.
        state.terrain = vec![TerrainArea {
            name: "house".into(),
            kinds: vec![TerrainKind::Blocking],
            polygon_in: vec![
                Point2::new(18.0, 15.0),
                Point2::new(20.0, 15.0),
                Point2::new(20.0, 25.0),
                Point2::new(18.0, 25.0),
            ],
        }];
        assert!(circles(&state)[1].1.is_empty());
    }
}
