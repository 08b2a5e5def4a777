//! The Soldiers in Time events that no other rule set has, as Rust types.
//! Serialised inside the game's event (`"event": "soldiers-in-time"`) with
//! the kind in `what`.

use serde::{Deserialize, Serialize};

use crate::core::FigureId;
use crate::rules::GameState;

/// One Soldiers in Time event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "kebab-case")]
pub enum Event {
    /// A figure fired its musket (aimed, or a snap shot): it must reload
    /// before the next shot. Nothing else about him changes (no aim, no
    /// shot count, no ammunition: those are Stand To!'s).
    Fired {
        figure: FigureId,
        target: FigureId,
        snap: bool,
    },
}

impl Event {
    /// The event's change to the state.
    pub fn apply(&self, state: &mut GameState) {
        match self {
            Self::Fired { figure, .. } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.loaded = false;
                }
            }
        }
    }
}
