//! What Little Colonial Rules draws around a selected figure: his rifle's
//! range bands with the face each needs (all round for a man firing alone,
//! the 90 degree arc in a formed unit) or a gun's grapeshot and shot range,
//! an officer's, NCO's or leader's command radius with the men inside it,
//! the close-combat contact distance and the enemies in it, how far he may
//! move (the regular 20 cm, a raw man's dice, a horseman's base and dice),
//! and line of sight, range and band to each enemy.
//!
//! # Conventions
//! The rules measure in centimetres; the shapes are in table inches (the
//! data's `cm_per_in`) and the labels in centimetres, as the players read
//! them off their rods. Ranges and command radii are centre to centre,
//! contact base edge to base edge, as in the engine.

use crate::geometry::{RangeMethod, range_in};
use crate::rules::overlay::{
    BandEdge, MEAN_D6, OverlayShape, Purpose, RangeRing, band_name, centre_range, members_within,
    movement_circles, sights_to_enemies, zone_around_base,
};
use crate::rules::{FigureId, GameState, Rank};

use super::engine::{LittleColonialRules, cavalry, in_the_fight, st};
use super::status::Level;

/// A man firing alone turns to fire: his arc is all round.
const ALL_ROUND_HALF_ANGLE_DEG: f64 = 180.0;

/// How far in front of a target the sight lines look for terrain, in.
const COVER_REACH_IN: f64 = 1.0;

/// Names of the three fire bands, nearest first.
const BAND_NAMES: [&str; 3] = ["short", "medium", "long"];

impl LittleColonialRules {
    /// The overlay of [`crate::rules::RuleSet::overlays`] for Little
    /// Colonial Rules.
    pub fn overlay_shapes(&self, state: &GameState, id: FigureId) -> Vec<OverlayShape> {
        let Some(me) = state.figure(id).filter(|f| in_the_fight(f)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let weapon = self.data.weapons.get(&me.weapon);
        let fire = &self.data.fire;
        let art = &self.data.artillery;
        // (name, edge cm, label)
        let mut bands_cm: Vec<(String, f64, String)> = Vec::new();
        let mut half_angle_deg = ALL_ROUND_HALF_ANGLE_DEG;
        if let Some(w) = weapon {
            if w.gun.is_some() {
                bands_cm.push((
                    "grapeshot".into(),
                    art.grapeshot_range_cm,
                    format!("grapeshot {:.0} cm", art.grapeshot_range_cm),
                ));
                bands_cm.push((
                    "shot".into(),
                    art.range_cm,
                    format!("shot {:.0} cm", art.range_cm),
                ));
            } else if w.dice > 0 {
                bands_cm = fire
                    .band_edges_cm
                    .iter()
                    .zip(&fire.to_hit)
                    .enumerate()
                    .map(|(i, (cm, need))| {
                        let name = band_name(&BAND_NAMES, i);
                        let label = format!("{name} {cm:.0} cm, {need}+");
                        (name, *cm, label)
                    })
                    .collect();
                let formed = state
                    .units
                    .iter()
                    .any(|u| u.formation != "loose" && u.figures.contains(&id));
                if formed {
                    half_angle_deg = fire.arc_deg / 2.0;
                }
            }
        }
        if !bands_cm.is_empty() {
            out.push(OverlayShape::FireArc {
                figure: id,
                origin_in: me.placement.center_in_table,
                facing_deg: me.placement.facing_deg,
                half_angle_deg,
                weapon: me.weapon.clone(),
                bands: bands_cm
                    .iter()
                    .map(|(_, cm, label)| RangeRing {
                        name: label.clone(),
                        radius_in: self.inches(*cm),
                    })
                    .collect(),
            });
        }
        if self.cards_of(me) > 0 {
            let r_in = self.radius_in(me);
            if r_in > 0.0 {
                let members = members_within(
                    state.figures.iter().filter(|f| {
                        f.side == me.side
                            && f.id != id
                            && in_the_fight(f)
                            && cavalry(f) == cavalry(me)
                    }),
                    r_in,
                    |f| centre_range(me, f),
                );
                out.push(OverlayShape::Circle {
                    purpose: Purpose::Command,
                    center_in: me.placement.center_in_table,
                    radius_in: r_in,
                    label: format!("command {:.0} cm", r_in * self.data.scale.cm_per_in),
                    members,
                });
            }
        }
        // Contact: base edge to base edge within the contact distance.
        let cc = &self.data.close_combat;
        let contact_in = self.inches(cc.contact_cm);
        let engaged = members_within(
            state
                .figures
                .iter()
                .filter(|f| f.side != me.side && in_the_fight(f)),
            contact_in,
            |f| range_in(&me.placement, &f.placement, RangeMethod::EdgeToEdge),
        );
        out.push(zone_around_base(
            me,
            Purpose::Melee,
            contact_in,
            format!("contact {:.1} cm", cc.contact_cm),
            engaged,
        ));
        out.extend(movement_circles(me, self.paces(me)));
        let bands: Vec<BandEdge> = bands_cm
            .into_iter()
            .map(|(name, cm, _)| BandEdge {
                name,
                edge: self.inches(cm),
            })
            .collect();
        out.extend(sights_to_enemies(state, me, COVER_REACH_IN, &bands, |t| {
            centre_range(me, t)
        }));
        out
    }

    /// Labels and radii (table inches) of his move: a horseman's base and
    /// dice (mean and most), a raw soldier's dice up to their cap, else the
    /// regular move.
    fn paces(&self, me: &crate::rules::Figure) -> Vec<(String, f64)> {
        let level = st(me).level;
        let officer = matches!(me.rank, Rank::Officer | Rank::Chief | Rank::Nco);
        let mv = &self.data.movement;
        let cm_circle = |what: &str, cm: f64| (format!("{what} {cm:.0} cm"), self.inches(cm));
        if cavalry(me) && me.mounted() {
            return match self.data.cavalry.movement.get(level.name()) {
                Some(m) => {
                    let n = f64::from(m.dice);
                    vec![
                        cm_circle(
                            &format!("{}+{}d6, mean", m.base_cm, m.dice),
                            m.base_cm + MEAN_D6 * n,
                        ),
                        cm_circle(
                            &format!("{}+{}d6, most", m.base_cm, m.dice),
                            m.base_cm + 6.0 * n,
                        ),
                    ]
                }
                None => Vec::new(),
            };
        }
        if level == Level::Raw && !officer {
            let n = f64::from(mv.raw_dice);
            return vec![
                cm_circle(
                    &format!("raw {}d6, mean", mv.raw_dice),
                    (MEAN_D6 * n).min(mv.raw_max_cm),
                ),
                cm_circle(
                    &format!("raw {}d6, most", mv.raw_dice),
                    self.data.raw_move_cm(6 * mv.raw_dice),
                ),
            ];
        }
        vec![cm_circle("move", mv.regular_cm)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::overlay::Member;
    use crate::rules::overlay::probe::{band_to, fire_arc, members, movement_radii};
    use nalgebra::Vector2;

    fn baler() -> (LittleColonialRules, GameState) {
        (
            LittleColonialRules::builtin().unwrap(),
            crate::rules::overlay::scenario_state("lcr-baler.toml"),
        )
    }

    fn named(state: &GameState, name: &str) -> FigureId {
        state.figure_named(name).unwrap().id
    }

    #[test]
    fn the_officers_command_radius_holds_his_men() {
        let (rules, mut state) = baler();
        let lt = named(&state, "Lt Toledo");
        let me = state.figure(lt).unwrap().clone();
        let r = rules.radius_in(&me);
        assert!(r > 0.0);
        let man = state
            .figures
            .iter()
            .find(|f| f.side == me.side && f.id != lt && !cavalry(f) && f.rank == Rank::Private)
            .unwrap()
            .id;
        let command =
            |state: &GameState| members(&rules.overlay_shapes(state, lt), Purpose::Command);
        state.figures[man.index()].placement.center_in_table =
            me.placement.center_in_table + Vector2::new(r - 0.5, 0.0);
        assert!(command(&state).unwrap().contains(&Member {
            figure: man,
            too_close_to_call: false
        }));
        state.figures[man.index()].placement.center_in_table =
            me.placement.center_in_table + Vector2::new(r + 0.5, 0.0);
        assert!(!command(&state).unwrap().iter().any(|m| m.figure == man));
    }

    #[test]
    fn the_bands_are_the_rods_and_each_names_its_face() {
        let (rules, mut state) = baler();
        let lt = named(&state, "Lt Toledo");
        let foe = state.figures.iter().find(|f| f.side == 1).unwrap().id;
        let at = state.figure(lt).unwrap().placement.center_in_table;
        let edges = rules.data.fire.band_edges_cm.clone();
        // Midway between the first and second rods: medium range.
        let mid_cm = (edges[0] + edges[1]) / 2.0;
        state.figures[foe.index()].placement.center_in_table =
            at + Vector2::new(0.0, rules.inches(mid_cm));
        let shapes = rules.overlay_shapes(&state, lt);
        assert_eq!(band_to(&shapes, foe).as_deref(), Some("medium"));
        let (_, rings) = fire_arc(&shapes).unwrap();
        let radii: Vec<f64> = rings.iter().map(|r| r.radius_in).collect();
        let want: Vec<f64> = edges.iter().map(|cm| rules.inches(*cm)).collect();
        assert_eq!(radii, want);
        assert!(
            rings[2]
                .name
                .contains(&format!("{}+", rules.data.fire.to_hit[2]))
        );
    }

    #[test]
    fn a_regular_moves_twenty_centimetres() {
        let (rules, state) = baler();
        let lt = named(&state, "Lt Toledo");
        assert_eq!(
            movement_radii(&rules.overlay_shapes(&state, lt)),
            vec![rules.inches(rules.data.movement.regular_cm)]
        );
    }
}
