//! Dice: rolled by Spotter from an injected RNG, or typed in from real dice.
//!
//! # Conventions
//! A die with `sides` faces shows 1..=sides. Every roll is returned as a
//! [`DieRoll`] so that the event that used it can record it.

use std::collections::VecDeque;

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

/// One die as rolled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DieRoll {
    /// Number of faces (6 for a d6).
    pub sides: u32,
    /// The face shown, 1..=sides.
    pub face: u32,
}

/// Errors from a dice source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiceError {
    /// The player typed fewer dice than the action needs.
    #[error("not enough dice typed in: a d{sides} is needed next ({used} used so far)")]
    Exhausted { sides: u32, used: usize },
    /// A typed face is not on the die.
    #[error("a d{sides} cannot show {face}")]
    OutOfRange { sides: u32, face: u32 },
    /// The die has no faces.
    #[error("a die needs at least one face")]
    NoFaces,
}

/// A source of dice (and of random picks, such as a card from a deck or one
/// target out of a group).
pub trait Dice {
    /// Rolls one die with `sides` faces.
    fn roll(&mut self, sides: u32) -> Result<DieRoll, DiceError>;

    /// Rolls `n` dice with `sides` faces each.
    fn roll_n(&mut self, n: usize, sides: u32) -> Result<Vec<DieRoll>, DiceError> {
        (0..n).map(|_| self.roll(sides)).collect()
    }

    /// Picks one of `n` things (0-based), e.g. a card from a shuffled deck.
    fn pick(&mut self, n: usize) -> Result<usize, DiceError> {
        let sides = u32::try_from(n).map_err(|_| DiceError::NoFaces)?;
        Ok(self.roll(sides)?.face as usize - 1)
    }
}

/// Dice rolled from an injected random number generator (seed it for tests
/// and for `--seed`).
#[derive(Debug, Clone)]
pub struct RngDice<R>(pub R);

impl<R: Rng> Dice for RngDice<R> {
    fn roll(&mut self, sides: u32) -> Result<DieRoll, DiceError> {
        if sides == 0 {
            return Err(DiceError::NoFaces);
        }
        Ok(DieRoll {
            sides,
            face: self.0.random_range(1..=sides),
        })
    }
}

/// A seeded standard RNG as a dice source.
pub fn seeded(seed: u64) -> RngDice<rand::rngs::StdRng> {
    use rand::SeedableRng;
    RngDice(rand::rngs::StdRng::seed_from_u64(seed))
}

/// Dice typed in by the player from real dice, used in order.
#[derive(Debug, Clone, Default)]
pub struct TypedDice {
    faces: VecDeque<u32>,
    used: usize,
}

impl TypedDice {
    /// Faces in the order the action uses them.
    pub fn new(faces: impl IntoIterator<Item = u32>) -> Self {
        Self {
            faces: faces.into_iter().collect(),
            used: 0,
        }
    }

    /// Faces typed but not used.
    pub fn remaining(&self) -> usize {
        self.faces.len()
    }
}

impl Dice for TypedDice {
    fn roll(&mut self, sides: u32) -> Result<DieRoll, DiceError> {
        let face = self.faces.pop_front().ok_or(DiceError::Exhausted {
            sides,
            used: self.used,
        })?;
        if face == 0 || face > sides {
            return Err(DiceError::OutOfRange { sides, face });
        }
        self.used += 1;
        Ok(DieRoll { sides, face })
    }
}

/// Sum of the faces.
pub fn total(rolls: &[DieRoll]) -> u32 {
    rolls.iter().map(|r| r.face).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_dice_are_checked() {
        let mut d = TypedDice::new([5, 5, 7]);
        assert_eq!(d.roll(6).unwrap().face, 5);
        assert_eq!(d.roll(6).unwrap().face, 5);
        assert_eq!(d.roll(6), Err(DiceError::OutOfRange { sides: 6, face: 7 }));
        assert!(matches!(d.roll(6), Err(DiceError::Exhausted { .. })));
    }

    #[test]
    fn seeded_dice_repeat_and_cover_faces() {
        let mut x = seeded(7);
        let mut y = seeded(7);
        let rx = x.roll_n(200, 6).unwrap();
        assert_eq!(rx, y.roll_n(200, 6).unwrap());
        for face in 1..=6 {
            assert!(rx.iter().any(|r| r.face == face));
        }
    }
}
