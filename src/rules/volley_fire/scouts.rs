//! Volley Fire! scouts: "Sudanese/British units can choose up to 3 figures
//! as scouts who move independently from their unit", and "Scouts can
//! attempt to evade fire and melee' combat by rolling three D6. An even
//! number, they can move away that distance, an odd number and they stand
//! in place, surprised." (Their move, fire and melee rows are in
//! `movement.rs`, `fire.rs` and the data file.)
//!
//! # Conventions
//! Scouts are a unit in the `formation.scouts` formation; they evade
//! directly away from the unit that fires at them or attacks them, table
//! inches.

use super::engine::{VolleyFireRules, refuse};
use crate::core::RefusalKind;
use crate::core::dice::{Dice, total};
use crate::rules::{Event, GameState, RuleError, Unit};

impl VolleyFireRules {
    /// "Sudanese/British units can choose up to 3 figures as scouts": a
    /// unit of scouts with more figures than `fire.scouts_max` is refused
    /// when the game is prepared.
    pub(super) fn check_scouts_max(&self, state: &GameState) -> Result<(), RuleError> {
        let max = self.data.fire.scouts_max as usize;
        for u in &state.units {
            if u.formation == self.data.formation.scouts && u.figures.len() > max {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!(
                        "{} has {} figures as scouts: a unit can choose up to {max} figures as scouts (put the others in a unit of their own)",
                        u.name,
                        u.figures.len()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Only scouts evade fire and melee on three d6.
    pub(super) fn check_scouts_evade(&self, t: &Unit) -> Result<(), RuleError> {
        if t.formation == self.data.formation.scouts {
            return Ok(());
        }
        Err(refuse(
            RefusalKind::CannotDo,
            format!(
                "{} are not scouts: only scouts attempt to evade fire and melee on {} d6",
                t.name, self.data.fire.scout_evade_dice
            ),
        ))
    }

    /// The scouts `t` try to evade `from`: three d6, an even total moves
    /// them that far directly away, an odd one leaves them standing,
    /// surprised. Returns the events and whether they moved.
    pub(super) fn scouts_evade(
        &self,
        state: &GameState,
        t: &Unit,
        from: &Unit,
        dice: &mut dyn Dice,
    ) -> Result<(Vec<Event>, bool), RuleError> {
        let n = self.data.fire.scout_evade_dice as usize;
        let rolls = dice.roll_n(n, 6)?;
        let dist = total(&rolls);
        let mut ev = vec![Event::Rolled {
            purpose: format!(
                "{} (scouts) try to evade {} ({n} d6, even moves)",
                t.name, from.name
            ),
            figure: None,
            dice: rolls,
        }];
        if dist % 2 == 1 {
            ev.push(Event::Note {
                text: format!(
                    "{} roll {dist}, odd: they stand in place, surprised",
                    t.name
                ),
            });
            return Ok((ev, false));
        }
        ev.push(Event::Note {
            text: format!("{} roll {dist}, even: they move {dist} in away", t.name),
        });
        ev.extend(self.move_away(state, t, from, f64::from(dist), false));
        Ok((ev, true))
    }
}

/// The state after the events.
pub(super) fn applied(state: &GameState, ev: &[Event]) -> GameState {
    let mut s = state.clone();
    for e in ev {
        s.apply(e);
    }
    s
}
