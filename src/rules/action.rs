//! Helpers every rule set's actions share: the turn's phase sequence, a
//! command's name, and a die source for checks.

use super::RuleError;
use crate::core::dice::{Dice, DiceError, DieRoll};
use crate::rules::{Command, Event, GameState};

/// The event that ends the current phase: the next phase, then the next
/// side, then the next turn.
pub fn next_phase_event(state: &GameState, phases: usize) -> Event {
    let next = state.clock().after_phase(phases, state.sides.len());
    Event::PhaseChanged {
        turn: next.turn,
        active_side: next.active_side,
        phase: next.phase,
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

/// The action name of a command: a rule set's action name, or the shared
/// command's kind.
pub fn action_name(command: &Command) -> String {
    match command {
        Command::StandTo(a) => a.name().to_owned(),
        Command::VolleyFire(a) => a.name().to_owned(),
        Command::SoldiersInTime(a) => a.name().to_owned(),
        Command::LittleColonial(a) => a.name().to_owned(),
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v.get("command").and_then(|c| c.as_str()).map(str::to_owned))
            .unwrap_or_else(|| "command".to_owned()),
    }
}

/// A rule set's typed action (serialised as `{"action", "params"}`) called
/// `name`, its parameters read from `params` (a JSON object; null is none).
/// A name not in `names` is [`RuleError::Unsupported`], parameters that
/// cannot be read are [`RuleError::BadParams`].
pub fn parse_named<A: serde::de::DeserializeOwned>(
    rule_set: &str,
    names: &[&str],
    name: &str,
    params: &serde_json::Value,
) -> Result<A, RuleError> {
    if !names.contains(&name) {
        return Err(RuleError::Unsupported {
            rule_set: rule_set.into(),
            action: name.into(),
        });
    }
    let params = if params.is_null() {
        serde_json::Value::Object(serde_json::Map::new())
    } else {
        params.clone()
    };
    serde_json::from_value(serde_json::json!({ "action": name, "params": params })).map_err(|e| {
        RuleError::BadParams {
            action: name.into(),
            reason: e.to_string(),
        }
    })
}

/// A rule set's `parse_action`: its own action names first (its `move` is
/// not Stand To!'s), then the shared commands (`end-phase` ...).
pub fn parse_action_or_shared(
    rule_set: &str,
    names: &[&str],
    own: impl FnOnce() -> Result<Command, RuleError>,
    name: &str,
    params: &serde_json::Value,
) -> Result<Command, RuleError> {
    if names.contains(&name) {
        return own();
    }
    super::command::parse_shared(name, params).unwrap_or_else(|| {
        Err(RuleError::Unsupported {
            rule_set: rule_set.into(),
            action: name.into(),
        })
    })
}
