//! Helpers for rule sets whose actions come as [`Command::RuleAction`]
//! (typed parameters parsed from JSON), the turn's phase sequence, and a
//! die source for checks.
//!
//! # Conventions
//! Parameters are JSON objects (TOML tables in scripts); figures and units
//! are named by their scenario names.

use serde::de::DeserializeOwned;

use super::RuleError;
use super::dice::{Dice, DiceError, DieRoll};
use crate::game::{Command, Event, GameState};

/// Parses a rule action's parameters into the rule set's typed action.
pub fn parse_params<T: DeserializeOwned>(
    action: &str,
    params: &serde_json::Value,
) -> Result<T, RuleError> {
    let value = if params.is_null() {
        serde_json::Value::Object(serde_json::Map::new())
    } else {
        params.clone()
    };
    serde_json::from_value(value)
        .map_err(|e| RuleError::NotAllowed(format!("parameters of `{action}`: {e}")))
}

/// The event that ends the current phase: the next phase, then the next
/// side, then the next turn.
pub fn next_phase_event(state: &GameState, phases: usize) -> Event {
    let (mut turn, mut side, mut phase) = (state.turn, state.active_side, state.phase + 1);
    if phase >= phases.max(1) {
        phase = 0;
        side += 1;
        if side >= state.sides.len().max(1) {
            side = 0;
            turn += 1;
        }
    }
    Event::PhaseChanged {
        turn,
        active_side: side,
        phase,
    }
}

/// Dice that always show 1: runs a resolution to check a command without
/// rolling (every rule set's resolve is free of side effects).
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckDice;

impl Dice for CheckDice {
    fn roll(&mut self, sides: u32) -> Result<DieRoll, DiceError> {
        if sides == 0 {
            return Err(DiceError::NoFaces);
        }
        Ok(DieRoll { sides, face: 1 })
    }
}

/// The action name of a rule-set command, or the shared command's kind.
pub fn action_name(command: &Command) -> String {
    match command {
        Command::RuleAction { action, .. } => action.clone(),
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v.get("command").and_then(|c| c.as_str()).map(str::to_owned))
            .unwrap_or_else(|| "command".to_owned()),
    }
}
