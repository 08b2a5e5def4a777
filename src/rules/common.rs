//! Helpers the figure-by-figure rule sets share (Soldiers in Time, Little
//! Colonial Rules): looking figures up, phase checks, and a working copy of
//! the state that records every roll and card as an event while an action
//! resolves.
//!
//! # Conventions
//! Figures are named by their scenario names. A [`Work`] starts from the
//! state a command sees; each event pushed is applied to its copy at once,
//! so later steps of the same action (a morale check after a kill, the
//! next card of a deck) see the earlier ones. The events come back in the
//! order they were pushed; applying them to the original state gives the
//! copy's state.

use std::collections::BTreeMap;

use super::RuleError;
use crate::core::dice::{Dice, DieRoll};
use crate::core::{Refusal, RefusalKind};
use crate::geometry::{RangeMethod, range_in};
use crate::rules::{Event, Figure, FigureId, GameState};

/// `house` tables of rule-set data files: value name -> where it comes from.
pub type House = BTreeMap<String, String>;

/// The rule set `rule_set` forbids the command now, for a rule of `kind`.
pub fn refusal(rule_set: &'static str, kind: RefusalKind, why: impl Into<String>) -> RuleError {
    RuleError::Refused(Refusal::new(rule_set, kind, why))
}

/// A figure by scenario name.
pub fn figure<'a>(state: &'a GameState, name: &str) -> Result<&'a Figure, RuleError> {
    state.figure_named(name).ok_or(RuleError::Unknown {
        what: "figure",
        name: name.to_owned(),
    })
}

/// Base edge to base edge, table inches.
pub fn edge_gap_in(a: &Figure, b: &Figure) -> f64 {
    range_in(&a.placement, &b.placement, RangeMethod::EdgeToEdge).value_in
}

/// Centre to centre, table inches.
pub fn centre_gap_in(a: &Figure, b: &Figure) -> f64 {
    (a.placement.center_in_table - b.placement.center_in_table).norm()
}

/// The name of the current phase.
pub fn phase_name<'a>(phases: &'a [String], state: &GameState) -> &'a str {
    phases.get(state.phase).map_or("?", String::as_str)
}

/// The action is allowed only in one of `allowed` phases of the turn.
pub fn require_phase(
    rule_set: &'static str,
    phases: &[String],
    state: &GameState,
    action: &str,
    allowed: &[&str],
) -> Result<(), RuleError> {
    let now = phase_name(phases, state);
    if allowed.contains(&now) {
        Ok(())
    } else {
        Err(refusal(
            rule_set,
            RefusalKind::WrongPhase,
            format!(
                "`{action}` belongs to the {} phase; this is the {now} phase (end the phase to move on)",
                allowed.join(" or ")
            ),
        ))
    }
}

/// The figure must belong to the side whose turn it is.
pub fn require_active_side(
    rule_set: &'static str,
    state: &GameState,
    f: &Figure,
) -> Result<(), RuleError> {
    if f.side == state.active_side {
        Ok(())
    } else {
        let side = |i: usize| state.sides.get(i).map_or("?", |s| s.name.as_str());
        Err(refusal(
            rule_set,
            RefusalKind::NotYourTurn,
            format!(
                "{} belongs to {}; it is {}'s turn",
                f.name,
                side(f.side),
                side(state.active_side)
            ),
        )
        .by(f.id))
    }
}

/// A working copy of the state and the events of an action so far.
#[derive(Debug, Clone)]
pub struct Work {
    pub now: GameState,
    pub ev: Vec<Event>,
}

impl Work {
    pub fn new(state: &GameState) -> Self {
        Self {
            now: state.clone(),
            ev: Vec::new(),
        }
    }

    /// Records an event and applies it to the copy.
    pub fn push(&mut self, e: Event) {
        self.now.apply(&e);
        self.ev.push(e);
    }

    /// A note for the player.
    pub fn note(&mut self, text: impl Into<String>) {
        self.push(Event::Note { text: text.into() });
    }

    /// Rolls `n` d`sides` and records them.
    pub fn roll(
        &mut self,
        dice: &mut dyn Dice,
        n: usize,
        sides: u32,
        purpose: impl Into<String>,
        figure: Option<FigureId>,
    ) -> Result<Vec<DieRoll>, RuleError> {
        let rolls = dice.roll_n(n, sides)?;
        self.push(Event::Rolled {
            purpose: purpose.into(),
            figure,
            dice: rolls.clone(),
        });
        Ok(rolls)
    }

    /// Rolls one die and records it; returns its face.
    pub fn roll1(
        &mut self,
        dice: &mut dyn Dice,
        sides: u32,
        purpose: impl Into<String>,
        figure: Option<FigureId>,
    ) -> Result<u32, RuleError> {
        Ok(self.roll(dice, 1, sides, purpose, figure)?[0].face)
    }

    /// A figure of the working copy (it exists: ids come from the state).
    pub fn fig(&self, id: FigureId) -> Result<&Figure, RuleError> {
        self.now.figure(id).ok_or(RuleError::Unknown {
            what: "figure",
            name: format!("#{}", id.0),
        })
    }

    /// The events, in order.
    pub fn into_events(self) -> Vec<Event> {
        self.ev
    }
}

/// A scenario `status` table from key and value pairs (tests of the rule
/// sets' status readers).
#[cfg(test)]
pub(crate) fn raw_status(pairs: &[(&str, &str)]) -> super::Status {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}
