//! The state that Stand To! keeps about each figure, unit and side and about
//! the game, as Rust types (no string maps). The scenario file's `status`
//! tables are read into these once, when the scenario is loaded, and a key
//! or value the rule set does not know is a scenario error naming it.
//!
//! # Conventions
//! Turns are the game's turn numbers (both sides' turns of one round share
//! a number); a figure acts only in his own side's turn, so "done in turn
//! `t`" is "done this turn" while `state.turn == t`.

use serde::{Deserialize, Serialize};

use crate::rules::common::StatusReader;
use crate::rules::{FigureRules, SideRules, Status};

/// The rule set's name in scenario errors.
const RULE_SET: &str = "Stand To!";

/// What Stand To! records about one figure.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FigureStatus {
    /// A fanatic who has started charging: the name of the enemy he
    /// charges. "Once he has started charging, the fanatic will not react to
    /// any other occurrence." Scenario key `charging`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charging: Option<String>,
    /// The turn in which he last spent loading: loading takes the turn
    /// (once a turn, not after firing), and the aimed shot comes the turn
    /// after ("load on first turn, shoulder rifle and fire on second turn").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loaded_turn: Option<u32>,
    /// The turn in which he (a leader) last gave an order: "A leader can
    /// issue only one order per turn".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_turn: Option<u32>,
    /// Orders he has given in `order_turn`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub orders_in_turn: u32,
    /// The turn in which he charged to within an inch of an enemy: "A
    /// figure gets an immediate hand-to-hand attack when it charges to
    /// within one inch of an enemy figure". Cleared when he makes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charge_contact_turn: Option<u32>,
    /// A dismounted rider's mount: how it is held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_held: Option<MountHeld>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// How a dismounted rider's mount is kept: "Dismounted riders must either
/// allocate one horseholder for every four mounts or spend one turn tying
/// the reins to a tree, or spend four turns driving a peg and tying the
/// reins to it."
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "kebab-case")]
pub enum MountHeld {
    /// A horseholder (a figure of his side, by name) holds it.
    Horseholder { holder: String },
    /// Tied to a tree: done the turn he dismounts.
    Tree,
    /// A peg is being driven: `turns_left` more turns of work.
    Peg { turns_left: u32 },
}

/// What Stand To! records about one unit (nothing: one figure is one man).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitStatus {}

/// What Stand To! records about one side.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideStatus {
    /// Green units "just arrived from the home country or hastily-raised
    /// militia": their experience rolls lose a point. The referee's
    /// `green_sides` (scenario key `green = "true"`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub green: bool,
    /// The turn in which the side last shed preservation points ("Each turn
    /// spent this way allows the force to shed 1d6").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shed_turn: Option<u32>,
}

/// What Stand To! records about the whole game (nothing yet).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameStatus {}

/// Reads a figure's scenario `status` table: only `charging` (the enemy a
/// charging fanatic charges) is known.
pub fn figure_status(raw: &Status) -> Result<FigureRules, String> {
    let mut r = StatusReader::new(RULE_SET, "figure", raw);
    let s = FigureStatus {
        charging: r
            .text("charging", "the name of the enemy the fanatic charges")?
            .map(str::to_owned),
        ..FigureStatus::default()
    };
    r.finish()?;
    Ok(if s == FigureStatus::default() {
        FigureRules::None
    } else {
        FigureRules::StandTo(s)
    })
}

/// Reads a side's scenario `status` table: only `green` (a flag) is known;
/// the referee's `green_sides` arrive as it.
pub fn side_status(raw: &Status) -> Result<SideRules, String> {
    let mut r = StatusReader::new(RULE_SET, "side", raw);
    let s = SideStatus {
        green: r.flag("green")?.unwrap_or(false),
        ..SideStatus::default()
    };
    r.finish()?;
    Ok(if s == SideStatus::default() {
        SideRules::None
    } else {
        SideRules::StandTo(s)
    })
}

/// A figure's Stand To! status (the default when it has none).
pub fn of_figure(f: &crate::rules::Figure) -> FigureStatus {
    f.rules.stand_to().cloned().unwrap_or_default()
}

/// Orders the figure has given in turn `turn`.
pub fn orders_in(f: &crate::rules::Figure, turn: u32) -> u32 {
    f.rules
        .stand_to()
        .filter(|s| s.order_turn == Some(turn))
        .map_or(0, |s| s.orders_in_turn)
}

/// A side's Stand To! status (the default when it has none).
pub fn of_side(s: &crate::rules::Side) -> SideStatus {
    s.rules.stand_to().cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rules::common::raw_status as raw;

    #[test]
    fn charging_and_green_are_read_and_unknown_keys_refused() {
        let f = figure_status(&raw(&[("charging", "Pte Carter")])).unwrap();
        assert_eq!(
            f.stand_to().and_then(|s| s.charging.as_deref()),
            Some("Pte Carter")
        );
        assert_eq!(figure_status(&raw(&[])).unwrap(), FigureRules::None);
        assert!(figure_status(&raw(&[("armour", "3")])).is_err());
        let s = side_status(&raw(&[("green", "true")])).unwrap();
        assert!(s.stand_to().is_some_and(|s| s.green));
        // Every flag takes true/false/yes/no alike.
        let s = side_status(&raw(&[("green", "yes")])).unwrap();
        assert!(s.stand_to().is_some_and(|s| s.green));
        assert!(side_status(&raw(&[("green", "maybe")])).is_err());
        assert!(side_status(&raw(&[("chits", "3")])).is_err());
    }
}
