//! The turn and phase clock every rule set shares.
//!
//! # Conventions
//! Turns count from 1; sides and phases are indices (0-based) into the
//! game's sides and the rule set's phases. A turn is every side's turn in
//! order; a side's turn is every phase in order.

use serde::{Deserialize, Serialize};

/// Where the game is in its turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnClock {
    pub turn: u32,
    pub active_side: usize,
    pub phase: usize,
}

impl TurnClock {
    /// The clock after the current phase ends: the next phase, then the
    /// next side, then the next turn (`phases` and `sides` count at least 1).
    #[must_use]
    pub fn after_phase(self, phases: usize, sides: usize) -> Self {
        let (mut turn, mut active_side, mut phase) = (self.turn, self.active_side, self.phase + 1);
        if phase >= phases.max(1) {
            phase = 0;
            active_side += 1;
            if active_side >= sides.max(1) {
                active_side = 0;
                turn += 1;
            }
        }
        Self {
            turn,
            active_side,
            phase,
        }
    }

    /// The number of `side`'s latest turn: the current turn once that side
    /// has begun it, the one before while the sides before it act. What a
    /// figure did "this turn" was done in this turn of its side's; it
    /// lapses when the side's next turn begins.
    pub fn side_turn(self, side: usize) -> u32 {
        if self.active_side >= side {
            self.turn
        } else {
            self.turn.saturating_sub(1)
        }
    }

    /// Does moving to `next` start a new side's turn?
    pub fn starts_side_turn(self, next: Self) -> bool {
        next.turn != self.turn || next.active_side != self.active_side
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_then_sides_then_turns() {
        let c = TurnClock {
            turn: 1,
            active_side: 0,
            phase: 0,
        };
        let c = c.after_phase(2, 2);
        assert_eq!((c.turn, c.active_side, c.phase), (1, 0, 1));
        let c = c.after_phase(2, 2);
        assert_eq!((c.turn, c.active_side, c.phase), (1, 1, 0));
        let c = c.after_phase(2, 2).after_phase(2, 2);
        assert_eq!((c.turn, c.active_side, c.phase), (2, 0, 0));
    }

    #[test]
    fn a_sides_turn_lasts_until_its_next_turn_begins() {
        let c = |turn, active_side| TurnClock {
            turn,
            active_side,
            phase: 0,
        };
        // Side 1 acted in turn 1; side 0's turn 2 has begun, side 1's not.
        assert_eq!(c(2, 0).side_turn(1), 1);
        assert_eq!(c(2, 0).side_turn(0), 2);
        assert_eq!(c(2, 1).side_turn(1), 2);
        assert_eq!(c(2, 1).side_turn(0), 2);
    }
}
