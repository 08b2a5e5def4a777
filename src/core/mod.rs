//! What every rule set shares, below the rule sets: ids, the turn and phase
//! clock, dice with their recorded rolls, exact odds, typed refusals and
//! measurement with its uncertainty.
//!
//! # Conventions
//! - Figure ids are indices into the game's figure list; sides and units
//!   are indices into theirs.
//! - Dice come from an injected [`dice::Dice`]; every roll is a
//!   [`dice::DieRoll`] that the event which used it records.
//! - Odds are exact: every face of every die is enumerated ([`odds`]).
//!
//! This layer imports only `geometry` (and nothing above it); a test reads
//! the sources to keep it so (`tests/layers.rs`).

pub mod clock;
pub mod dice;
pub mod ids;
pub mod measure;
pub mod odds;
pub mod refusal;

pub use clock::TurnClock;
pub use ids::{FigureId, SideIndex, UnitIndex};
pub use measure::{Centimetre, Inch, Length, LengthUnit, Reading, UnitKind};
pub use refusal::{Refusal, RefusalKind};
