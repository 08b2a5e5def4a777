//! Helpers every rule set's actions share: the turn's phase sequence, a
//! command's name, and a die source for checks.

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
        Command::VolleyFire(a) => a.name().to_owned(),
        Command::SoldiersInTime(a) => a.name().to_owned(),
        Command::LittleColonial(a) => a.name().to_owned(),
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v.get("command").and_then(|c| c.as_str()).map(str::to_owned))
            .unwrap_or_else(|| "command".to_owned()),
    }
}
