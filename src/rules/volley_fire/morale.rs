//! Volley Fire! morale: shaken units regrouping, and army morale with who
//! tests first.
//!
//! # Conventions
//! A force is a side; its starting strength is every figure it began with.

use super::action::{SideParams, UnitParams};
use super::engine::{VolleyFireRules, refuse, sst, unit, ust};
use super::event::Event as VfEvent;
use super::{MoraleResult, status::Nationality};
use crate::core::RefusalKind;
use crate::core::dice::Dice;
use crate::rules::{Event, GameState, RuleError};

/// Rolls of the who-tests-first dice before a tie is left to the named
/// side (house: the text does not say how ties go).
const MAX_WHO_FIRST_ROLLS: usize = 20;

impl VolleyFireRules {
    /// Can the unit roll to regroup? Once a turn, when shaken.
    pub(super) fn check_regroup(
        &self,
        state: &GameState,
        p: &UnitParams,
    ) -> Result<usize, RuleError> {
        let (ui, u) = unit(state, &p.unit)?;
        if !ust(u).shaken {
            return Err(refuse(
                RefusalKind::Morale,
                format!("{} is not shaken", u.name),
            ));
        }
        if ust(u).regroup_rolled == Some(state.turn) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has rolled to regroup this turn", u.name),
            ));
        }
        Ok(ui)
    }

    /// "Regroup on the next turn unless they roll a 5 or 6 on a D6, in which
    /// case they are still shaken."
    pub(super) fn resolve_regroup(
        &self,
        state: &GameState,
        p: &UnitParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let ui = self.check_regroup(state, p)?;
        let roll = dice.roll(6)?;
        let mut ev = vec![
            Event::Rolled {
                purpose: format!("{} regroups", p.unit),
                figure: None,
                dice: vec![roll],
            },
            Event::VolleyFire(VfEvent::RegroupRolled {
                unit: ui,
                turn: state.turn,
            }),
        ];
        if roll.face < self.data.melee.still_shaken_min {
            ev.push(Event::VolleyFire(VfEvent::Shaken {
                unit: ui,
                shaken: false,
            }));
        }
        Ok(ev)
    }

    /// Is the side's force below the testing fraction of its starting
    /// strength? Returns (men up, men at the start).
    fn below_half(&self, state: &GameState, si: usize) -> (bool, usize, usize) {
        let all = state.figures.iter().filter(|f| f.side == si).count();
        let up = state
            .figures
            .iter()
            .filter(|f| f.side == si && f.active())
            .count();
        let below = all > 0 && (up as f64) < self.data.morale.test_below_fraction * all as f64;
        (below, up, all)
    }

    /// Must the side test now? Returns the sides that test, the named one
    /// first (more than one: the who-tests-first roll decides).
    pub(super) fn morale_plan(
        &self,
        state: &GameState,
        p: &SideParams,
    ) -> Result<Vec<usize>, RuleError> {
        let si = state
            .sides
            .iter()
            .position(|s| s.name == p.side)
            .ok_or(RuleError::Unknown {
                what: "side",
                name: p.side.clone(),
            })?;
        let (below, up, all) = self.below_half(state, si);
        if !below {
            return Err(refuse(
                RefusalKind::Morale,
                format!("{} has {up} of {all} men: no morale test", p.side),
            ));
        }
        if sst(state, si).morale_turn == Some(state.turn) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has tested army morale this turn", p.side),
            ));
        }
        let mut sides = vec![si];
        sides.extend((0..state.sides.len()).filter(|&o| {
            o != si && self.below_half(state, o).0 && sst(state, o).morale_turn != Some(state.turn)
        }));
        for &s in &sides {
            self.nationality(state, s)?;
        }
        Ok(sides)
    }

    fn nationality(&self, state: &GameState, si: usize) -> Result<Nationality, RuleError> {
        sst(state, si).nationality.ok_or_else(|| {
            refuse(
                RefusalKind::NotInTables,
                format!(
                    "{} has no nationality (the scenario's side status: sudanese or dervish)",
                    state.sides[si].name
                ),
            )
        })
    }

    /// "If both Forces are testing morale, roll low die for who tests first
    /// - if this test fails, other Force need not test!!"
    fn who_tests_first(
        state: &GameState,
        sides: &mut [usize],
        dice: &mut dyn Dice,
        ev: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        for _ in 0..MAX_WHO_FIRST_ROLLS {
            let rolls = dice.roll_n(sides.len(), 6)?;
            ev.push(Event::Rolled {
                purpose: "who tests army morale first (low die)".into(),
                figure: None,
                dice: rolls.clone(),
            });
            let mut order: Vec<(u32, usize)> = rolls
                .iter()
                .map(|r| r.face)
                .zip(sides.iter().copied())
                .collect();
            order.sort_by_key(|(face, _)| *face);
            let low = order[0].0;
            if order.iter().filter(|(f, _)| *f == low).count() == 1 {
                for (slot, (_, s)) in sides.iter_mut().zip(order) {
                    *slot = s;
                }
                break;
            }
        }
        let first = &state.sides[sides[0]].name;
        ev.push(Event::Note {
            text: format!("both forces test army morale: {first} tests first"),
        });
        Ok(())
    }

    /// "When a Force reaches less than 50% of its' starting strength, morale
    /// must be tested each turn. Roll one D10 and read chart below".
    pub(super) fn resolve_morale(
        &self,
        state: &GameState,
        p: &SideParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let mut sides = self.morale_plan(state, p)?;
        let mut ev = Vec::new();
        if sides.len() > 1 {
            Self::who_tests_first(state, &mut sides, dice, &mut ev)?;
        }
        for si in sides {
            let name = &state.sides[si].name;
            let nationality = self.nationality(state, si)?;
            let roll = dice.roll(self.data.morale.die)?;
            let result = self
                .data
                .morale_result(nationality.name(), roll.face)
                .ok_or_else(|| {
                    refuse(
                        RefusalKind::NotInTables,
                        format!("no morale table for `{}`", nationality.name()),
                    )
                })?;
            ev.push(Event::Rolled {
                purpose: format!("{name} army morale"),
                figure: None,
                dice: vec![roll],
            });
            ev.push(Event::VolleyFire(VfEvent::Morale {
                side: si,
                turn: state.turn,
                result,
            }));
            ev.push(Event::Note {
                text: format!("{name}: {}", morale_text(nationality, result)),
            });
            if result != MoraleResult::Holds {
                ev.push(Event::Note {
                    text: "the test failed: the other force need not test".into(),
                });
                break;
            }
        }
        Ok(ev)
    }
}

/// The morale chart's result, as printed.
fn morale_text(n: Nationality, r: MoraleResult) -> &'static str {
    match (n, r) {
        (_, MoraleResult::Holds) => "morale holds, carry on the fight",
        (Nationality::Sudanese, MoraleResult::Routs) => {
            "the force routs from the table leaving all guns"
        }
        (Nationality::Dervish, MoraleResult::Routs) => "the force routs from the table - game ends",
        (Nationality::Sudanese, MoraleResult::Disaster) => {
            "disaster, the force is annihilated; officers captured"
        }
        (Nationality::Dervish, MoraleResult::Disaster) => {
            "leaders kill themselves, tribesmen throw down their weapons and surrender"
        }
    }
}
