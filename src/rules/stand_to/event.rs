//! The Stand To! events that no other rule set has, as Rust types.
//! Serialised inside the game's event (`"event": "stand-to"`) with the kind
//! in `what`. Each changes the figure's or side's typed
//! [`super::status`] state (and the shared fields the event names).

use serde::{Deserialize, Serialize};

use super::status::MountHeld;
use crate::core::FigureId;
use crate::rules::GameState;

/// One Stand To! event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "kebab-case")]
pub enum Event {
    /// The figure spent turn `turn` loading: `progress` turns of loading
    /// so far, `loaded` once the weapon is ready for an aimed shot.
    Loading {
        figure: FigureId,
        progress: u32,
        loaded: bool,
        turn: u32,
    },
    /// A leader gave his one order of turn `turn`.
    OrderIssued { giver: FigureId, turn: u32 },
    /// A fanatic started charging `target` (by name): from now on he reacts
    /// to nothing else.
    FanaticCharging { figure: FigureId, target: String },
    /// The figure charged to within an inch of an enemy in turn `turn`: his
    /// immediate hand-to-hand attack is due.
    ChargedIntoContact { figure: FigureId, turn: u32 },
    /// The figure made the immediate attack of his charge.
    ChargeAttackMade { figure: FigureId },
    /// A broken side in a protected position shed points in turn `turn`.
    Shed { side: usize, turn: u32 },
    /// A rider got down; his mount is held as `held` (it no longer moves
    /// with him).
    Dismounted { figure: FigureId, held: MountHeld },
    /// One more turn of driving a peg: `turns_left` to go (0: tied).
    PegDriven { figure: FigureId, turns_left: u32 },
}

impl Event {
    /// The event's change to the state.
    pub fn apply(&self, state: &mut GameState) {
        match self {
            Self::Loading {
                figure,
                progress,
                loaded,
                turn,
            } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.load_progress = *progress;
                    f.loaded = *loaded;
                    f.rules.stand_to_mut().loaded_turn = Some(*turn);
                }
            }
            Self::OrderIssued { giver, turn } => {
                if let Some(f) = state.figures.get_mut(giver.index()) {
                    let s = f.rules.stand_to_mut();
                    if s.order_turn == Some(*turn) {
                        s.orders_in_turn += 1;
                    } else {
                        s.order_turn = Some(*turn);
                        s.orders_in_turn = 1;
                    }
                }
            }
            Self::FanaticCharging { figure, target } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.rules.stand_to_mut().charging = Some(target.clone());
                }
            }
            Self::ChargedIntoContact { figure, turn } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.rules.stand_to_mut().charge_contact_turn = Some(*turn);
                }
            }
            Self::ChargeAttackMade { figure } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.rules.stand_to_mut().charge_contact_turn = None;
                }
            }
            Self::Shed { side, turn } => {
                if let Some(s) = state.sides.get_mut(*side) {
                    s.rules.stand_to_mut().shed_turn = Some(*turn);
                }
            }
            Self::Dismounted { figure, held } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.mount_level = None;
                    f.placement.shape = crate::geometry::BaseShape::FOOT;
                    f.rules.stand_to_mut().mount_held = Some(held.clone());
                }
            }
            Self::PegDriven { figure, turns_left } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.rules.stand_to_mut().mount_held = Some(MountHeld::Peg {
                        turns_left: *turns_left,
                    });
                }
            }
        }
    }
}
