//! Stand To! (colonial skirmish, one figure is one man): the data file
//! ([`data`]), the arithmetic and exact odds ([`calc`]) and the engine
//! ([`engine`]).
//!
//! # Conventions
//! Rule inches are for 25 mm figures; the engine converts table inches with
//! the game's [`crate::geometry::Scale`]. Dice are d6: two white dice decide
//! whether a shot is on target, the coloured die is the target's save.

pub mod action;
pub mod calc;
pub mod data;
pub mod engine;
pub mod event;
pub mod menu;
pub mod overlay;
pub mod status;

pub use calc::{
    FireOdds, FireOutcome, FireSituation, MeleeOdds, MeleeSide, SaveSituation, Struck,
    combine_wounds, fire_odds, fire_outcome, melee_odds, melee_outcome, save_number,
};
pub use data::{StandTo, Wound};
pub use engine::StandToRules;

/// Registry name of the rule set.
pub const NAME: &str = "stand-to";
