//! The Little Colonial Rules events that no other rule set has, as Rust
//! types. Serialised inside the game's event (`"event": "little-colonial"`)
//! with the kind in `what`.

use serde::{Deserialize, Serialize};

use super::status::{Acted, AidAttempt, MoraleDelay, WoundKind, WoundedPolicy};
use crate::core::FigureId;
use crate::rules::GameState;

/// One Little Colonial Rules event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "kebab-case")]
pub enum Event {
    /// This order card is in play now (None: none, after End of Turn).
    CardInPlay { card: Option<String> },
    /// These figures acted on the card `card` of turn `turn`.
    Acted {
        figures: Vec<FigureId>,
        turn: u32,
        card: String,
    },
    /// A side's five morale piles, raw first.
    Chits { side: usize, piles: Vec<u32> },
    /// A reinforcement came on the table.
    Arrived { figure: FigureId },
    /// A demoralised figure was rallied when `empty_piles` piles were
    /// exhausted: he routs again when the next one runs out.
    Rallied {
        figure: FigureId,
        empty_piles: usize,
    },
    /// The optional wounded rule's result for a figure that was hit.
    WoundTaken { figure: FigureId, wound: WoundKind },
    /// A demoralised figure blocked from his entry point surrendered.
    Surrendered { figure: FigureId },
    /// Seriously wounded men gathered behind the lines.
    Gathered { figures: Vec<FigureId> },
    /// A side gave aid to its wounded (dragged a man) on this card.
    AidAttempted {
        side: usize,
        turn: u32,
        card: String,
    },
    /// Side `by` challenged side `side`, which had written `wrote`;
    /// `caught`: it was doing the opposite.
    Challenged {
        by: usize,
        side: usize,
        wrote: WoundedPolicy,
        caught: bool,
    },
    /// An individual soldier card was played: it leaves the game.
    CardSpent { card: String },
    /// The optional delay of the reinforcements' morale benefit: the group
    /// waits it out (`delay`), or the benefit reaches it (None).
    MoraleDelayed {
        group: Group,
        delay: Option<MoraleDelay>,
    },
}

/// A unit (its index in the state's units), or a figure in no unit: who
/// the optional reinforcement rule treats as one "unit / formation".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Group {
    Unit(usize),
    Figure(FigureId),
}

/// A figure's typed state, made when missing.
fn fig(state: &mut GameState, id: FigureId) -> Option<&mut super::status::FigureStatus> {
    state
        .figures
        .get_mut(id.index())
        .map(|f| f.rules.little_colonial_mut())
}

impl Event {
    /// The event's change to the state.
    pub fn apply(&self, state: &mut GameState) {
        match self {
            Self::CardInPlay { card } => {
                state.rules.little_colonial_mut().card.clone_from(card);
            }
            Self::Acted {
                figures,
                turn,
                card,
            } => {
                for id in figures {
                    if let Some(s) = fig(state, *id) {
                        s.acted = Some(Acted {
                            turn: *turn,
                            card: card.clone(),
                        });
                    }
                }
            }
            Self::Chits { side, piles } => {
                if let Some(s) = state.sides.get_mut(*side) {
                    s.rules.little_colonial_mut().chits = Some(piles.clone());
                }
            }
            Self::Arrived { figure } => {
                if let Some(s) = fig(state, *figure) {
                    s.arrives = None;
                }
            }
            Self::Rallied {
                figure,
                empty_piles,
            } => {
                if let Some(s) = fig(state, *figure) {
                    s.rallied_at = Some(*empty_piles);
                }
            }
            Self::WoundTaken { figure, wound } => {
                if let Some(s) = fig(state, *figure) {
                    s.wound = Some(*wound);
                }
            }
            Self::Surrendered { figure } => {
                if let Some(s) = fig(state, *figure) {
                    s.surrendered = true;
                }
            }
            Self::Gathered { figures } => {
                for id in figures {
                    if let Some(s) = fig(state, *id) {
                        s.gathered = true;
                    }
                }
            }
            Self::AidAttempted { side, turn, card } => {
                state.rules.little_colonial_mut().aid = Some(AidAttempt {
                    side: *side,
                    turn: *turn,
                    card: card.clone(),
                });
            }
            Self::Challenged { by, .. } => {
                if let Some(s) = state.sides.get_mut(*by) {
                    s.rules.little_colonial_mut().challenged = true;
                }
            }
            Self::MoraleDelayed { group, delay } => match group {
                Group::Unit(u) => {
                    if let Some(unit) = state.units.get_mut(*u) {
                        unit.rules
                            .little_colonial_mut()
                            .morale_delay
                            .clone_from(delay);
                    }
                }
                Group::Figure(id) => {
                    if let Some(s) = fig(state, *id) {
                        s.morale_delay.clone_from(delay);
                    }
                }
            },
            Self::CardSpent { card } => {
                let deck = state
                    .decks
                    .iter_mut()
                    .find(|d| d.name == super::engine::ORDER_DECK);
                if let Some(d) = deck {
                    d.discard.retain(|c| c != card);
                    d.held.retain(|c| c != card);
                }
            }
        }
    }
}
