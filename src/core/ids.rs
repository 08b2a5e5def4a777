//! Ids every rule set shares.

use serde::{Deserialize, Serialize};

/// A figure's id: its index in the game state's figure list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FigureId(pub u32);

impl FigureId {
    /// Index into the figure list.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A side's id: its index in the game state's side list.
pub type SideIndex = usize;

/// A unit's id: its index in the game state's unit list.
pub type UnitIndex = usize;
