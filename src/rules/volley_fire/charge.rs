//! Volley Fire! charges: "The attacker announces a charge (before rolling
//! the movement dice), points out the target, and rolls his movement dice.
//! ... The attacker will close in on the target halting 1" away and take any
//! and all defensive fire as he closes in. The attacker cannot fire as he
//! closes into combat." The charged unit's response comes first: reform,
//! evade or counter-charge (failing on a 6), Dervishes avoid the charge.
//! The melee itself is fought in the melee phase.
//!
//! # Conventions
//! Table inches; the charger halts with its front men at contact distance
//! (the 1 in gap plus a base, centre to centre) from the nearest target man.

use nalgebra::Vector2;

use super::action::{ChargeParams, FireParams, MoveParams, Response};
use super::engine::{VolleyFireRules, alive, ids, quantized, refuse, troops, unit, ust};
use crate::core::dice::{Dice, total};
use crate::core::{Inch, Length, RefusalKind};
use crate::geometry::bearing_deg;
use crate::rules::{Event, GameState, Pace, RuleError};

/// A d6 at or above this face makes the charged unit's response fail.
const RESPONSE_FAILS_FACE: u32 = 6;

impl VolleyFireRules {
    /// Can the unit charge the target now? Returns the charger's move
    /// dice. (No dice rolled.)
    pub(super) fn charge_plan(
        &self,
        state: &GameState,
        p: &ChargeParams,
    ) -> Result<u32, RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        let (_, t) = unit(state, &p.target)?;
        if u.side == t.side {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                "a unit does not charge its own side",
            ));
        }
        if ust(u).shaken {
            return Err(refuse(
                RefusalKind::Morale,
                format!("{} is shaken and cannot initiate a melee", u.name),
            ));
        }
        if u.formation == "square" {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is in square: a square cannot initiate a melee", u.name),
            ));
        }
        if alive(state, t).is_empty() {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} has nobody left", t.name),
            ));
        }
        if let Response::Reform { formation } = &p.response {
            let tt = troops(t)?;
            if !self
                .data
                .movement
                .dice
                .get(tt.name())
                .is_some_and(|f| f.contains_key(formation))
            {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!("{} cannot reform into {formation}", t.name),
                ));
            }
        }
        let mv = MoveParams {
            unit: p.unit.clone(),
            to_in: [0.0, 0.0],
            rough: p.rough,
            double_time: false,
            fire_after: false,
        };
        Ok(self.move_plan(state, &mv)?.dice)
    }

    /// The charge's move: the dice, then the front closes on the nearest
    /// target man, halting at contact. Returns the events and whether it
    /// reached.
    fn close_in(
        &self,
        state: &GameState,
        p: &ChargeParams,
        dice: &mut dyn Dice,
        rough: bool,
    ) -> Result<(Vec<Event>, bool), RuleError> {
        let (ui, u) = unit(state, &p.unit)?;
        let (_, t) = unit(state, &p.target)?;
        let n = self.charge_plan(state, p)?;
        let rolls = dice.roll_n(n as usize, 6)?;
        let mut allowed = total(&rolls);
        if rough {
            allowed = allowed.div_ceil(self.data.movement.terrain_divisor.max(1));
        }
        let (from, members) = self.front_of(state, u);
        let nearest = ids(&alive(state, t))
            .into_iter()
            .filter_map(|id| state.figure(id))
            .map(|f| f.placement.center_in_table)
            .min_by(|a, b| (a - from).norm().total_cmp(&(b - from).norm()))
            .unwrap_or(from);
        let gap = nearest - from;
        let dir = if gap.norm() > 0.0 {
            gap / gap.norm()
        } else {
            Vector2::new(1.0, 0.0)
        };
        let needed = self
            .travel_to_contact(state, &members, &ids(&alive(state, t)), dir)
            .unwrap_or_else(|| (gap.norm() - self.contact_in()).max(0.0));
        let reached = f64::from(allowed) >= needed;
        let step = dir * needed.min(f64::from(allowed));
        let facing = bearing_deg(from, nearest);
        let mut ev = vec![
            Event::Rolled {
                purpose: format!("{} charges {} ({n} d6)", u.name, t.name),
                figure: None,
                dice: rolls,
            },
            Event::Measured(
                Length::<Inch>::exact(gap.norm()).reading(format!("{} to {}", u.name, t.name), &[]),
            ),
            Self::acted(state, ui),
        ];
        for (_, id) in members {
            if let Some(f) = state.figure(id) {
                ev.push(Event::Moved {
                    figure: id,
                    to_in: quantized(f.placement.center_in_table + step),
                    facing_deg: facing,
                    pace: Pace::Charge,
                    distance_in: step.norm(),
                    through_rough: rough,
                });
            }
        }
        ev.push(Event::Note {
            text: if reached {
                format!(
                    "{} closes on {} and halts {:.0} in away",
                    u.name, t.name, self.data.movement.melee_contact_gap_in
                )
            } else {
                format!(
                    "{} falls short of {}: {allowed} in of the {needed:.1} in needed",
                    u.name, t.name
                )
            },
        });
        Ok((ev, reached))
    }

    /// How far the charger travels along `dir` until its first man comes
    /// within contact of a target man (None: none ever does).
    fn travel_to_contact(
        &self,
        state: &GameState,
        chargers: &[(usize, crate::rules::FigureId)],
        targets: &[crate::rules::FigureId],
        dir: Vector2<f64>,
    ) -> Option<f64> {
        let c = self.contact_in();
        let mut best: Option<f64> = None;
        for (_, a) in chargers {
            let pa = super::engine::pos(state, *a);
            for t in targets {
                let w = super::engine::pos(state, *t) - pa;
                let along = dir.dot(&w);
                let disc = along * along - w.norm_squared() + c * c;
                if disc < 0.0 {
                    continue;
                }
                let s = (along - disc.sqrt()).max(0.0);
                if along + disc.sqrt() >= 0.0 {
                    best = Some(best.map_or(s, |b: f64| b.min(s)));
                }
            }
        }
        best
    }

    /// Does rough ground halve the charge (front to the target's front)?
    fn charge_rough(&self, state: &GameState, p: &ChargeParams) -> Result<bool, RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        let (_, t) = unit(state, &p.target)?;
        let path = (self.front_of(state, u).0, self.front_of(state, t).0);
        Ok(self.rough_halves(state, u, troops(u)?, path, p.rough))
    }

    /// The charged unit tries its response: Dervish groups avoid
    /// automatically; others fail on a 6. Returns the response carried out.
    fn try_response(
        &self,
        state: &GameState,
        p: &ChargeParams,
        dice: &mut dyn Dice,
        ev: &mut Vec<Event>,
    ) -> Result<Response, RuleError> {
        let (_, t) = unit(state, &p.target)?;
        if p.response == Response::Stand {
            return Ok(Response::Stand);
        }
        let dervish = troops(t)?.dervish();
        if dervish && p.response == Response::Evade {
            return Ok(Response::Evade);
        }
        let roll = dice.roll(6)?;
        ev.push(Event::Rolled {
            purpose: format!("{} responds to the charge (fails on a 6)", t.name),
            figure: None,
            dice: vec![roll],
        });
        if roll.face >= RESPONSE_FAILS_FACE {
            ev.push(Event::Note {
                text: format!("{} fails to respond and stands", t.name),
            });
            return Ok(Response::Stand);
        }
        Ok(p.response.clone())
    }

    /// The charged unit moves one normal move directly away from the
    /// charger ("if out of range, they are safe"; Dervishes "will now have
    /// backs to the enemy").
    fn evade(
        &self,
        state: &GameState,
        p: &ChargeParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        let (_, t) = unit(state, &p.target)?;
        let tt = troops(t)?;
        let (tf, members) = self.front_of(state, t);
        let has_leader = self.has_leader(state, t, tt, tf, &members);
        let n = self
            .data
            .move_dice(tt.name(), &t.formation, has_leader)
            .unwrap_or(0);
        let rolls = dice.roll_n(n as usize, 6)?;
        let dist = f64::from(total(&rolls));
        let mut ev = vec![Event::Rolled {
            purpose: format!("{} evades ({n} d6)", t.name),
            figure: None,
            dice: rolls,
        }];
        ev.extend(self.move_away(state, t, u, dist, tt.dervish()));
        ev.push(Event::Note {
            text: format!("{} evades {dist} in away from the charge", t.name),
        });
        Ok(ev)
    }

    /// The charged unit changes formation in place.
    fn reform(
        &self,
        state: &GameState,
        p: &ChargeParams,
        formation: &str,
    ) -> Result<Vec<Event>, RuleError> {
        let (ti, t) = unit(state, &p.target)?;
        let (front, members) = self.front_of(state, t);
        let facing = members
            .first()
            .and_then(|(_, id)| state.figure(*id))
            .map_or(0.0, |f| f.placement.facing_deg);
        let (spots, frontage) = self.layout(formation, members.len(), front, facing)?;
        let mut ev = vec![Event::Formed {
            unit: ti,
            formation: formation.to_owned(),
            frontage,
        }];
        for ((_, id), (to, f)) in members.iter().zip(spots) {
            ev.push(Event::Moved {
                figure: *id,
                to_in: to,
                facing_deg: f,
                pace: Pace::Walk,
                distance_in: 0.0,
                through_rough: false,
            });
        }
        Ok(ev)
    }

    /// The charge: the response, the charger's move, defensive fire.
    pub(super) fn resolve_charge(
        &self,
        state: &GameState,
        p: &ChargeParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.charge_plan(state, p)?;
        let mut ev = vec![Event::Note {
            text: format!("{} charges {}", p.unit, p.target),
        }];
        let response = self.try_response(state, p, dice, &mut ev)?;
        let apply = |s: &GameState, ev: &[Event]| {
            let mut s = s.clone();
            for e in ev {
                s.apply(e);
            }
            s
        };
        match &response {
            Response::Evade => ev.extend(self.evade(state, p, dice)?),
            Response::Reform { formation } => ev.extend(self.reform(state, p, formation)?),
            Response::Countercharge => {
                // The charged unit closes first with its own dice.
                let meet = ChargeParams {
                    unit: p.target.clone(),
                    target: p.unit.clone(),
                    response: Response::Stand,
                    rough: None,
                };
                let rough = self.charge_rough(state, &meet)?;
                ev.extend(self.close_in(state, &meet, dice, rough)?.0);
            }
            Response::Stand => {}
        }
        let now = apply(state, &ev);
        let rough = self.charge_rough(&now, p)?;
        let (closing, reached) = self.close_in(&now, p, dice, rough)?;
        ev.extend(closing);
        if matches!(response, Response::Countercharge) {
            ev.push(Event::Note {
                text: format!("{} charges to meet the charge: no fire", p.target),
            });
            return Ok(ev);
        }
        if matches!(response, Response::Evade) && !reached {
            ev.push(Event::Note {
                text: format!("{} is out of reach: safe", p.target),
            });
            return Ok(ev);
        }
        let closed = apply(state, &ev);
        let fire = FireParams {
            unit: p.target.clone(),
            target: p.unit.clone(),
            evade: false,
            gun: false,
        };
        match self.check_fire(&closed, &fire) {
            Ok(()) if !matches!(response, Response::Evade) => {
                ev.push(Event::Note {
                    text: format!("{} gives defensive fire", p.target),
                });
                ev.extend(self.resolve_fire(&closed, &fire, dice)?);
            }
            Ok(()) => {}
            Err(RuleError::Refused(r)) => ev.push(Event::Note {
                text: format!("no defensive fire: {}", r.why),
            }),
            Err(e) => return Err(e),
        }
        Ok(ev)
    }
}
