//! The Volley Fire! actions as Rust types: one variant per action, its
//! parameters a struct. Serialised as `{"action": <name>, "params": {..}}`
//! inside the game's command (`"command": "volley-fire"`).
//!
//! # Conventions
//! Figures and units are named by their scenario names; points are table
//! inches.

use serde::{Deserialize, Serialize};

use super::NAME;
use crate::rules::RuleError;

/// One Volley Fire! action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", content = "params", rename_all = "kebab-case")]
pub enum Action {
    Fire(FireParams),
    Move(MoveParams),
    Form(FormParams),
    Charge(ChargeParams),
    Melee(MeleeParams),
    Regroup(UnitParams),
    Morale(SideParams),
    WinnerMove(WinnerMoveParams),
    DestroyGun(UnitParams),
    EnterBuilding(BuildingParams),
    ManGun(ManGunParams),
}

impl Action {
    /// The names of the actions, as scripts and the CLI write them.
    pub const NAMES: &[&str] = &[
        "fire",
        "move",
        "form",
        "charge",
        "melee",
        "regroup",
        "morale",
        "winner-move",
        "destroy-gun",
        "enter-building",
        "man-gun",
    ];

    /// The action's name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Fire(_) => "fire",
            Self::Move(_) => "move",
            Self::Form(_) => "form",
            Self::Charge(_) => "charge",
            Self::Melee(_) => "melee",
            Self::Regroup(_) => "regroup",
            Self::Morale(_) => "morale",
            Self::WinnerMove(_) => "winner-move",
            Self::DestroyGun(_) => "destroy-gun",
            Self::EnterBuilding(_) => "enter-building",
            Self::ManGun(_) => "man-gun",
        }
    }

    /// The unit that acts, for the actions named by their `unit`.
    pub fn unit(&self) -> Option<&str> {
        match self {
            Self::Fire(p) => Some(&p.unit),
            Self::Move(p) => Some(&p.unit),
            Self::Form(p) => Some(&p.unit),
            Self::Charge(p) => Some(&p.unit),
            Self::Regroup(p) => Some(&p.unit),
            Self::WinnerMove(p) => Some(&p.unit),
            Self::DestroyGun(p) => Some(&p.unit),
            Self::EnterBuilding(p) => Some(&p.unit),
            Self::ManGun(p) => Some(&p.unit),
            Self::Melee(_) | Self::Morale(_) => None,
        }
    }

    /// The action called `name` with parameters read from `params` (a
    /// JSON object; null is no parameters). An unknown name is
    /// [`RuleError::Unsupported`], a parameter that cannot be read
    /// [`RuleError::BadParams`].
    pub fn parse(name: &str, params: &serde_json::Value) -> Result<Self, RuleError> {
        crate::rules::action::parse_named(NAME, Self::NAMES, name, params)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireParams {
    pub unit: String,
    pub target: String,
    /// The target scouts attempt to evade the fire (3d6: an even total,
    /// they move away that far; odd, they stand, surprised).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub evade: bool,
    /// Fire the gun the unit mans (a gun its crew left behind).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gun: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveParams {
    pub unit: String,
    /// Where the front centre should go, table inches.
    pub to_in: [f64; 2],
    /// Through rough ground: the player's word; none reads the table's
    /// terrain on the straight path.
    #[serde(default)]
    pub rough: Option<bool>,
    /// Double time: two more d6 of inches, heat-stroke casualties.
    #[serde(default)]
    pub double_time: bool,
    /// A deployed gun moves one d6 and may fire this turn ("Deployed guns
    /// can move one D6 and fire that turn"); without it, its three d6 and
    /// no fire this turn.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fire_after: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormParams {
    pub unit: String,
    /// The new formation (a layout of the data file).
    pub formation: String,
    /// New facing, degrees (default: the present one).
    #[serde(default)]
    pub facing_deg: Option<f64>,
    /// Where the new front centre goes (default: where it is).
    #[serde(default)]
    pub to_in: Option<[f64; 2]>,
    /// Through rough ground: the player's word; none reads the terrain.
    #[serde(default)]
    pub rough: Option<bool>,
}

/// A charge: announced in the move phase, the target's response, the move
/// dice, defensive fire, halting 1 in away; the melee follows in the melee
/// phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChargeParams {
    pub unit: String,
    pub target: String,
    /// What the charged unit does.
    #[serde(default)]
    pub response: Response,
    /// Through rough ground: the player's word; none reads the terrain.
    #[serde(default)]
    pub rough: Option<bool>,
}

/// The charged unit's response: "if charged, can always attempt to reform,
/// evade the charge (one normal move distance), or charge to meet a charge.
/// Cannot do so if a 6 is rolled on a D6."
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Response {
    /// Stand and give defensive fire.
    #[default]
    Stand,
    /// Reform into this formation, then fire.
    Reform { formation: String },
    /// Move one normal move directly away (Dervishes: automatically).
    Evade,
    /// Charge to meet the charge (no fire on either side).
    Countercharge,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeleeParams {
    pub attacker: String,
    pub defender: String,
    #[serde(default)]
    pub from_rear: bool,
    /// The defending scouts attempt to evade the melee (3d6: an even
    /// total, they move away that far and there is no melee; odd, they
    /// stand, surprised, and fight).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub evade: bool,
}

/// The melee winner's bonus: "can reform and or reface on the objective,
/// or move one normal move distance and reface and reform".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WinnerMoveParams {
    pub unit: String,
    /// The formation to reform into (default: the present one).
    #[serde(default)]
    pub formation: Option<String>,
    /// New facing, degrees (default: the present one).
    #[serde(default)]
    pub facing_deg: Option<f64>,
    /// Where the front centre goes (default: stays on the objective).
    #[serde(default)]
    pub to_in: Option<[f64; 2]>,
    /// Through rough ground: the player's word; none reads the terrain.
    #[serde(default)]
    pub rough: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitParams {
    pub unit: String,
}

/// "To enter, must spend one turn halted outside": the first time the unit
/// halts outside the building, the next turn it goes in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildingParams {
    pub unit: String,
    /// The building's terrain area name.
    pub building: String,
}

/// Infantry or Dervish foot man a gun left on the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManGunParams {
    pub unit: String,
    /// Turn the gun to this facing, degrees (default: as it stands).
    #[serde(default)]
    pub facing_deg: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideParams {
    pub side: String,
}
