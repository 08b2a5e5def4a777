//! Volley Fire! guns left on the table: "D. If a gun crew loses a melee
//! they rout to their direct rear, disordered, the gun stays in place.
//! Guns that are abandoned, crewless, or captured can be manned by infantry
//! or Dervish foot but, always fire as if target is in cover."
//!
//! # Conventions
//! A gun left behind is a [`GunPiece`] of the game's state: where it stood
//! and its facing. A unit mans it with a man within the melee's contact
//! distance (house); it fires from the gun's place in the gun's 45 degree
//! cone, one d20 on the gun's line, as into cover. Table inches.

use nalgebra::{Point2, Vector2};

use super::action::{FireParams, ManGunParams};
use super::engine::{
    VolleyFireRules, alive, centroid, ids, pos, quantized, refuse, standing_this_phase, troops,
    unit, ust,
};
use super::event::Event as VfEvent;
use super::fire::FirePlan;
use super::status::{GunPiece, Troops};
use crate::core::{Inch, Length, RefusalKind};
use crate::geometry::angle_off_facing_deg;
use crate::rules::{Event, GameState, RuleError, Unit};

/// The gun a unit would man: an index into the game's guns, or a crewless
/// crew's gun not yet on the list.
#[derive(Debug, Clone)]
pub struct ManPlan {
    pub gun: Option<usize>,
    pub piece: GunPiece,
}

fn guns(state: &GameState) -> &[GunPiece] {
    state.rules.volley_fire().map_or(&[], |g| g.guns.as_slice())
}

impl VolleyFireRules {
    /// How near a man must stand to a gun to man it (house: the melee's
    /// contact distance).
    fn gun_reach_in(&self) -> f64 {
        self.contact_in() + self.data.movement.contact_slack_in
    }

    /// The gun a crew leaves where it stands, if it has one to leave (not
    /// destroyed, not left already).
    pub(super) fn gun_left_by(&self, state: &GameState, ci: usize) -> Option<Event> {
        let c = state.units.get(ci)?;
        if !ust(c).gun
            || ust(c).gun_destroyed == Some(true)
            || guns(state).iter().any(|g| g.crew == ci)
        {
            return None;
        }
        let men = alive(state, c);
        let at = if men.is_empty() {
            centroid(state, &c.figures)
        } else {
            centroid(state, &ids(&men))
        };
        let first = c.figures.first().and_then(|id| state.figure(*id))?;
        Some(Event::VolleyFire(VfEvent::GunLeft {
            gun: GunPiece {
                crew: ci,
                weapon: first.weapon.clone(),
                at_in: quantized(at),
                facing_deg: first.placement.facing_deg,
                manned_by: None,
            },
        }))
    }

    /// A crew whose gun stands on the table without it does not fire it.
    pub(super) fn check_crew_has_gun(&self, state: &GameState, u: &Unit) -> Result<(), RuleError> {
        let (ui, _) = unit(state, &u.name)?;
        if guns(state).iter().any(|g| g.crew == ui) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} lost its gun: the gun stayed in place when the crew routed",
                    u.name
                ),
            ));
        }
        Ok(())
    }

    /// The distance from the unit's nearest man to a point.
    fn nearest_man_in(&self, state: &GameState, u: &Unit, at: Point2<f64>) -> f64 {
        alive(state, u)
            .iter()
            .map(|(_, id)| (pos(state, *id) - at).norm())
            .fold(f64::INFINITY, f64::min)
    }

    /// Can the unit man a gun now, and which? (No dice.)
    pub(super) fn man_gun_plan(
        &self,
        state: &GameState,
        p: &ManGunParams,
    ) -> Result<ManPlan, RuleError> {
        let (ui, u) = unit(state, &p.unit)?;
        self.check_may_act(state, u)?;
        if !matches!(troops(u)?, Troops::Sudanese | Troops::DervishFoot) || ust(u).gun {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} cannot man a gun: guns left on the table are manned by infantry or Dervish foot",
                    u.name
                ),
            ));
        }
        let mut found: Vec<ManPlan> = guns(state)
            .iter()
            .enumerate()
            .filter(|(_, g)| {
                g.manned_by.is_none_or(|m| {
                    m != ui
                        && state.units.get(m).is_none_or(|o| {
                            self.nearest_man_in(state, o, g.at_in) > self.gun_reach_in()
                        })
                })
            })
            .map(|(i, g)| ManPlan {
                gun: Some(i),
                piece: g.clone(),
            })
            .collect();
        // Crewless guns: every man of the crew is down.
        for (ci, c) in state.units.iter().enumerate() {
            if alive(state, c).is_empty()
                && let Some(Event::VolleyFire(VfEvent::GunLeft { gun })) =
                    self.gun_left_by(state, ci)
            {
                found.push(ManPlan {
                    gun: None,
                    piece: gun,
                });
            }
        }
        found
            .into_iter()
            .map(|m| (self.nearest_man_in(state, u, m.piece.at_in), m))
            .filter(|(d, _)| *d <= self.gun_reach_in())
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, m)| m)
            .ok_or_else(|| {
                refuse(
                    RefusalKind::TooFar,
                    format!(
                        "no gun without its crew stands within {} in of a man of {}",
                        self.gun_reach_in(),
                        u.name
                    ),
                )
            })
    }

    /// The unit mans the gun, turned to the facing asked for.
    pub(super) fn resolve_man_gun(
        &self,
        state: &GameState,
        p: &ManGunParams,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.man_gun_plan(state, p)?;
        let (ui, u) = unit(state, &p.unit)?;
        let mut ev = vec![Self::acted(state, ui)];
        let gun = match plan.gun {
            Some(i) => i,
            None => {
                ev.push(Event::VolleyFire(VfEvent::GunLeft {
                    gun: plan.piece.clone(),
                }));
                guns(state).len()
            }
        };
        let facing_deg = p.facing_deg.unwrap_or(plan.piece.facing_deg);
        ev.push(Event::VolleyFire(VfEvent::GunManned {
            gun,
            unit: ui,
            facing_deg,
        }));
        let crew = state
            .units
            .get(plan.piece.crew)
            .map_or("?", |c| c.name.as_str());
        ev.push(Event::Note {
            text: format!(
                "{} mans {crew}'s gun, facing {facing_deg:.0} degrees; it fires as if the target is in cover",
                u.name
            ),
        });
        Ok(ev)
    }

    /// The gun the unit mans, with a man at it.
    fn manned_gun(&self, state: &GameState, u: &Unit) -> Result<(usize, GunPiece), RuleError> {
        let (ui, _) = unit(state, &u.name)?;
        let (gi, g) = guns(state)
            .iter()
            .enumerate()
            .find(|(_, g)| g.manned_by == Some(ui))
            .ok_or_else(|| {
                refuse(
                    RefusalKind::CannotDo,
                    format!("{} mans no gun (`man-gun` first)", u.name),
                )
            })?;
        if self.nearest_man_in(state, u, g.at_in) > self.gun_reach_in() {
            return Err(refuse(
                RefusalKind::TooFar,
                format!("no man of {} stands at the gun", u.name),
            ));
        }
        Ok((gi, g.clone()))
    }

    /// A captured gun's fire: from the gun, in its cone, to the nearest
    /// target man a man of the unit sees; one d20, always as into cover.
    pub(super) fn captured_gun_plan(
        &self,
        state: &GameState,
        p: &FireParams,
    ) -> Result<FirePlan, RuleError> {
        let (u, t) = self.check_fire_units(state, p)?;
        let (_, g) = self.manned_gun(state, u)?;
        let w = self.data.weapon.get(&g.weapon).ok_or(RuleError::Unknown {
            what: "weapon",
            name: g.weapon.clone(),
        })?;
        let edges = self.data.band_edges_in(w);
        let max_in = edges.last().copied().unwrap_or(0.0);
        let exposed = self.exposed(state, t);
        let viewers: Vec<_> = alive(state, u)
            .into_iter()
            .filter_map(|(_, id)| state.figure(id))
            .collect();
        let (mut best, mut hidden): (Option<f64>, bool) = (None, false);
        for to in standing_this_phase(state, t)
            .into_iter()
            .filter_map(|(_, id)| state.figure(id))
            .filter(|to| !(to.leader && to.mounted()))
        {
            let at = to.placement.center_in_table;
            if angle_off_facing_deg(g.at_in, g.facing_deg, at) > self.data.fire.cone_deg / 2.0 {
                continue;
            }
            if !viewers
                .iter()
                .any(|f| self.sees(state, f, to, exposed).0.value)
            {
                hidden = true;
                continue;
            }
            let limit = self
                .woods_range_in(state, to, true)
                .map_or(max_in, |l| l.min(max_in));
            let d = (at - g.at_in).norm();
            if d <= limit && best.is_none_or(|b| d < b) {
                best = Some(d);
            }
        }
        let Some(range) = best else {
            return Err(refuse(
                if hidden {
                    RefusalKind::OutOfSight
                } else {
                    RefusalKind::OutOfRange
                },
                format!(
                    "the gun {} mans has no man of {} seen, in range and in its {} degree cone",
                    u.name, t.name, self.data.fire.cone_deg
                ),
            ));
        };
        let band = edges.iter().position(|e| range <= *e).unwrap_or(0);
        let hit_max = w.hit_max.get(band).copied().unwrap_or(0);
        let dice = self.fire_dice(state, t, w, u32::MAX, hit_max, true);
        let notes = vec![
            Event::Measured(
                Length::<Inch>::exact(range)
                    .reading(format!("the gun {} mans to {}", u.name, t.name), &edges),
            ),
            Event::Note {
                text: format!(
                    "{} fires the gun it mans, band {band}, hits on 1-{hit_max}, half for cover (a captured gun)",
                    u.name
                ),
            },
        ];
        Ok(FirePlan { dice, notes })
    }

    /// "Gun and crew fall back 12" to clear the jam": the gun goes back
    /// with the men who man it.
    pub(super) fn captured_gun_falls_back(
        &self,
        state: &GameState,
        ui: usize,
        u: &Unit,
    ) -> Option<Event> {
        let (gi, g) = guns(state)
            .iter()
            .enumerate()
            .find(|(_, g)| g.manned_by == Some(ui))?;
        let a = g.facing_deg.to_radians();
        let back = -Vector2::new(a.cos(), a.sin());
        let to = g.at_in + back * self.jam_fall_back_in(state, u, back);
        Some(Event::VolleyFire(VfEvent::GunMoved {
            gun: gi,
            at_in: quantized(Point2::new(
                to.x.clamp(0.0, state.table.width_in),
                to.y.clamp(0.0, state.table.depth_in),
            )),
        }))
    }
}
