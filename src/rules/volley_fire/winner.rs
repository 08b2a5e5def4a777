//! Volley Fire! the melee winner's bonus: "The winner of the melee can
//! reform and or reface on the objective, or move one normal move distance
//! and reface and reform. Winner cannot use this bonus move to initiate
//! another melee'." The `winner-move` action, in the melee phase that the
//! unit won its melee in, once.
//!
//! # Conventions
//! Table inches; facings in degrees counter-clockwise from +x; the unit's
//! front centre goes toward `to_in` by at most one normal move (its move
//! dice, halved as any move).

use nalgebra::{Point2, Vector2};

use super::action::{MoveParams, WinnerMoveParams};
use super::engine::{VolleyFireRules, alive, pos, quantized, refuse, sst, troops, unit, ust};
use super::event::Event as VfEvent;
use super::movement::MovePlan;
use crate::core::dice::{Dice, total};
use crate::core::{Inch, Length, RefusalKind};
use crate::rules::{Event, FigureId, GameState, Pace, RuleError, Unit};

/// The winner's bonus before the dice.
#[derive(Debug, Clone)]
pub struct WinnerPlan {
    pub unit: usize,
    pub formation: String,
    pub facing_deg: f64,
    /// The front centre now, table inches.
    pub from: Point2<f64>,
    /// The normal move, when it moves.
    pub mv: Option<MovePlan>,
}

impl VolleyFireRules {
    /// May the unit take its winner's bonus now? (No dice.)
    pub(super) fn winner_plan(
        &self,
        state: &GameState,
        p: &WinnerMoveParams,
    ) -> Result<WinnerPlan, RuleError> {
        let (ui, u) = unit(state, &p.unit)?;
        crate::rules::common::require_on_table(super::NAME, state, p.to_in)?;
        if ust(u).won_melee != Some(state.clock()) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} has not won a melee in this melee phase: only the winner reforms or moves one normal move",
                    u.name
                ),
            ));
        }
        if sst(state, u.side)
            .morale
            .is_some_and(|m| m != super::MoraleResult::Holds)
        {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{}'s force has left the fight", u.name),
            ));
        }
        let formation = p.formation.clone().unwrap_or_else(|| u.formation.clone());
        self.check_winner_formation(u, &formation)?;
        let (from, members) = self.front_of(state, u);
        let facing_deg = p.facing_deg.unwrap_or_else(|| {
            members
                .first()
                .and_then(|(_, id)| state.figure(*id))
                .map_or(0.0, |f| f.placement.facing_deg)
        });
        let mv = match p.to_in {
            Some(to_in) => Some(self.unit_move_plan(
                state,
                &MoveParams {
                    unit: p.unit.clone(),
                    to_in,
                    rough: p.rough,
                    double_time: false,
                    fire_after: false,
                },
            )?),
            None => None,
        };
        let end = p.to_in.map_or(from, |t| Point2::new(t[0], t[1]));
        // "To enter, must spend one turn halted outside": the bonus move
        // is a move, and does not walk into a building either.
        if p.to_in.is_some() && self.building_of(state, u).is_none() {
            self.check_not_walking_in(state, u, (from, end))?;
        }
        let spots = self.winner_spots(state, u, &formation, from, end, facing_deg)?;
        self.check_no_new_melee(state, u, &spots)?;
        Ok(WinnerPlan {
            unit: ui,
            formation,
            facing_deg,
            from,
            mv,
        })
    }

    /// The winner reforms into a formation of its troops' move table (or
    /// keeps its own).
    fn check_winner_formation(&self, u: &Unit, formation: &str) -> Result<(), RuleError> {
        if formation == u.formation {
            return Ok(());
        }
        let t = troops(u)?;
        let allowed = self
            .data
            .movement
            .dice
            .get(t.name())
            .is_some_and(|f| f.contains_key(formation));
        if formation == self.data.formation.scouts || !allowed {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} ({}) cannot form {formation}", u.name, t.name()),
            ));
        }
        Ok(())
    }

    /// "Winner cannot use this bonus move to initiate another melee'": no
    /// man may end in contact with an enemy.
    fn check_no_new_melee(
        &self,
        state: &GameState,
        u: &Unit,
        spots: &[(FigureId, Point2<f64>, f64)],
    ) -> Result<(), RuleError> {
        let contact = self.contact_in() + self.data.movement.contact_slack_in;
        let touches = state
            .units
            .iter()
            .filter(|o| o.side != u.side)
            .flat_map(|o| alive(state, o))
            .any(|(_, e)| {
                spots
                    .iter()
                    .any(|(_, p, _)| (pos(state, e) - p).norm() <= contact)
            });
        if touches {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} cannot use the winner's bonus move to initiate another melee: it would end in contact",
                    u.name
                ),
            ));
        }
        Ok(())
    }

    /// Where each alive man stands after the bonus: the formation laid out
    /// at the new front centre, or (scouts, who have no layout) each man
    /// moved with the front and refaced.
    fn winner_spots(
        &self,
        state: &GameState,
        u: &Unit,
        formation: &str,
        from: Point2<f64>,
        to: Point2<f64>,
        facing_deg: f64,
    ) -> Result<Vec<(FigureId, Point2<f64>, f64)>, RuleError> {
        let members = alive(state, u);
        if !self.data.formation.layout.contains_key(formation) {
            let step: Vector2<f64> = to - from;
            return Ok(members
                .iter()
                .map(|(_, id)| (*id, quantized(pos(state, *id) + step), facing_deg))
                .collect());
        }
        let (spots, _) = self.layout(formation, members.len(), to, facing_deg)?;
        Ok(members
            .iter()
            .zip(spots)
            .map(|((_, id), (p, f))| (*id, p, f))
            .collect())
    }

    /// The bonus: the normal move's dice if it moves, then the new
    /// formation and facing.
    pub(super) fn resolve_winner_move(
        &self,
        state: &GameState,
        p: &WinnerMoveParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.winner_plan(state, p)?;
        let (_, u) = unit(state, &p.unit)?;
        let mut ev = Vec::new();
        let mut front = plan.from;
        if let (Some(mv), Some(to)) = (&plan.mv, p.to_in) {
            let rolls = dice.roll_n(mv.dice as usize, 6)?;
            let allowed = f64::from(self.allowed_in(mv, total(&rolls)));
            let want = Point2::new(to[0], to[1]) - plan.from;
            let step = if want.norm() > allowed && want.norm() > 0.0 {
                want * (allowed / want.norm())
            } else {
                want
            };
            front = plan.from + step;
            ev.push(Event::Rolled {
                purpose: format!("{} (melee winner) moves ({} d6)", u.name, mv.dice),
                figure: None,
                dice: rolls,
            });
            ev.push(Event::Measured(Length::<Inch>::exact(step.norm()).reading(
                format!("{} moves after its melee", u.name),
                &[allowed],
            )));
        }
        let spots =
            self.winner_spots(state, u, &plan.formation, plan.from, front, plan.facing_deg)?;
        if plan.formation != u.formation {
            let frontage = self
                .layout(&plan.formation, spots.len(), front, plan.facing_deg)
                .map_or(u.frontage, |(_, f)| f);
            ev.push(Event::Formed {
                unit: plan.unit,
                formation: plan.formation.clone(),
                frontage,
            });
        }
        for (id, to, facing_deg) in spots {
            ev.push(Event::Moved {
                figure: id,
                to_in: to,
                facing_deg,
                pace: Pace::Walk,
                distance_in: (to - pos(state, id)).norm(),
                through_rough: plan.mv.as_ref().is_some_and(|m| m.rough),
            });
        }
        ev.push(Event::VolleyFire(VfEvent::MeleeWon {
            unit: plan.unit,
            at: None,
        }));
        ev.push(Self::acted(state, plan.unit));
        ev.push(Event::Note {
            text: format!(
                "{} wins its melee and reforms in {} facing {:.0} degrees",
                u.name, plan.formation, plan.facing_deg
            ),
        });
        Ok(ev)
    }
}
