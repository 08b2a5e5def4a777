//! The Volley Fire! events that no other rule set has, as Rust types.
//! Serialised inside the game's event (`"event": "volley-fire"`) with the
//! kind in `what`.
//!
//! # Conventions
//! Units and sides are indices into the game state's `units` and `sides`.

use serde::{Deserialize, Serialize};

use super::MoraleResult;
use super::status::{GunPiece, HaltedOutside};
use crate::core::{FigureId, TurnClock};
use crate::rules::GameState;

/// One Volley Fire! event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "kebab-case")]
pub enum Event {
    /// The unit took its one action of this phase.
    Acted { unit: usize, at: TurnClock },
    /// The unit lost a melee (shaken) or regrouped (not).
    Shaken { unit: usize, shaken: bool },
    /// The unit rolled to regroup in this turn.
    RegroupRolled { unit: usize, turn: u32 },
    /// The Gardner gun jammed (or is cleared).
    Jammed { unit: usize, jammed: bool },
    /// The gun limbered or unlimbered in this turn.
    Limbered { unit: usize, turn: u32 },
    /// A man fell to fire in this fire phase: he fires in it all the same.
    FellInFire { figure: FigureId, at: TurnClock },
    /// A man is down from heat stroke.
    HeatStroke { figure: FigureId },
    /// A side's army morale test.
    Morale {
        side: usize,
        turn: u32,
        result: MoraleResult,
    },
    /// The order the sides move in this turn (high first-move die first).
    MoveOrder { order: Vec<usize> },
    /// The unit won a melee in this phase (its bonus move is owed), or
    /// took or lost that bonus (`None`).
    MeleeWon { unit: usize, at: Option<TurnClock> },
    /// A melee was fought (or announced and evaded) now.
    MeleeFought { at: TurnClock },
    /// The crew tried to destroy its gun.
    GunDestroyed { unit: usize, destroyed: bool },
    /// The unit fired out of cover in this turn: it is exposed.
    Exposed { unit: usize, turn: u32 },
    /// The unit halted outside a building to enter it (or went in: `None`).
    HaltedToEnter {
        unit: usize,
        halted: Option<HaltedOutside>,
    },
    /// The deployed gun moved its full three d6 in this turn.
    GunMovedFull { unit: usize, turn: u32 },
    /// A crew left its gun on the table (a lost melee, or crewless).
    GunLeft { gun: GunPiece },
    /// A unit mans the gun (an index into the game's guns), facing it so.
    GunManned {
        gun: usize,
        unit: usize,
        facing_deg: f64,
    },
    /// The gun moved (a jam's fall-back).
    GunMoved {
        gun: usize,
        at_in: nalgebra::Point2<f64>,
    },
}

impl Event {
    /// The event's change to the state.
    pub fn apply(&self, state: &mut GameState) {
        match self {
            Self::Acted { unit, at } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.rules.volley_fire_mut().acted = Some(*at);
                }
            }
            Self::Shaken { unit, shaken } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.rules.volley_fire_mut().shaken = *shaken;
                }
            }
            Self::RegroupRolled { unit, turn } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.rules.volley_fire_mut().regroup_rolled = Some(*turn);
                }
            }
            Self::Jammed { unit, jammed } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.rules.volley_fire_mut().jammed = *jammed;
                }
            }
            Self::Limbered { unit, turn } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.rules.volley_fire_mut().limbered_turn = Some(*turn);
                }
            }
            Self::FellInFire { figure, at } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.rules.volley_fire_mut().fell_in_fire = Some(*at);
                }
            }
            Self::HeatStroke { figure } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.rules.volley_fire_mut().heat_stroke = true;
                }
            }
            Self::Morale { side, turn, result } => {
                if let Some(s) = state.sides.get_mut(*side) {
                    let st = s.rules.volley_fire_mut();
                    st.morale = Some(*result);
                    st.morale_turn = Some(*turn);
                }
            }
            Self::MoveOrder { order } => {
                state.rules.volley_fire_mut().move_order.clone_from(order);
            }
            Self::MeleeWon { unit, at } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.rules.volley_fire_mut().won_melee = *at;
                }
            }
            Self::MeleeFought { at } => {
                state.rules.volley_fire_mut().melee_at = Some(*at);
            }
            Self::Exposed { unit, turn } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.rules.volley_fire_mut().exposed_turn = Some(*turn);
                }
            }
            Self::HaltedToEnter { unit, halted } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.rules.volley_fire_mut().halted_to_enter.clone_from(halted);
                }
            }
            Self::GunMovedFull { unit, turn } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.rules.volley_fire_mut().gun_moved_full = Some(*turn);
                }
            }
            Self::GunLeft { gun } => state.rules.volley_fire_mut().guns.push(gun.clone()),
            Self::GunManned {
                gun,
                unit,
                facing_deg,
            } => {
                if let Some(g) = state.rules.volley_fire_mut().guns.get_mut(*gun) {
                    g.manned_by = Some(*unit);
                    g.facing_deg = *facing_deg;
                }
            }
            Self::GunMoved { gun, at_in } => {
                if let Some(g) = state.rules.volley_fire_mut().guns.get_mut(*gun) {
                    g.at_in = *at_in;
                }
            }
            Self::GunDestroyed { unit, destroyed } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.rules.volley_fire_mut().gun_destroyed = Some(*destroyed);
                }
            }
        }
    }
}
