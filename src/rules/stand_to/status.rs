//! The state that Stand To! keeps about each figure, unit and side and about
//! the game, as Rust types (no string maps). The scenario file's `status`
//! tables are read into these once, when the scenario is loaded, and a key
//! or value the rule set does not know is a scenario error naming it.

use serde::{Deserialize, Serialize};

/// What Stand To! records about one figure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FigureStatus {}

/// What Stand To! records about one unit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UnitStatus {}

/// What Stand To! records about one side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SideStatus {}

/// What Stand To! records about the whole game.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GameStatus {}
