//! The Soldiers in Time actions as Rust types: one variant per action, its
//! parameters a struct. Serialised as `{"action": <name>, "params": {..}}`
//! inside the game's command (`"command": "soldiers-in-time"`).
//!
//! # Conventions
//! Figures and units are named by their scenario names; points are table
//! inches.

use serde::{Deserialize, Serialize};

use super::NAME;
use crate::rules::RuleError;

/// One Soldiers in Time action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", content = "params", rename_all = "kebab-case")]
pub enum Action {
    Rally(RallyParams),
    Activate(ActivateParams),
    Individual(IndividualParams),
    LoadGun(LoadGunParams),
    Move(MoveParams),
    Reload(ReloadParams),
    Fire(FireParams),
    Volley(VolleyParams),
    Artillery(ArtilleryParams),
    Grenade(GrenadeParams),
    Melee(MeleeParams),
    HorseImpact(ImpactParams),
    FollowThrough(FollowParams),
    MoraleCheck(MoraleParams),
    LeaveMelee(LeaveParams),
    Spot(SpotParams),
}

impl Action {
    /// The names of the actions, as scripts and the CLI write them.
    pub const NAMES: &[&str] = &[
        "rally",
        "activate",
        "individual",
        "load-gun",
        "move",
        "reload",
        "fire",
        "volley",
        "artillery",
        "grenade",
        "melee",
        "horse-impact",
        "follow-through",
        "morale-check",
        "leave-melee",
        "spot",
    ];

    /// The action's name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Rally(_) => "rally",
            Self::Activate(_) => "activate",
            Self::Individual(_) => "individual",
            Self::LoadGun(_) => "load-gun",
            Self::Move(_) => "move",
            Self::Reload(_) => "reload",
            Self::Fire(_) => "fire",
            Self::Volley(_) => "volley",
            Self::Artillery(_) => "artillery",
            Self::Grenade(_) => "grenade",
            Self::Melee(_) => "melee",
            Self::HorseImpact(_) => "horse-impact",
            Self::FollowThrough(_) => "follow-through",
            Self::MoraleCheck(_) => "morale-check",
            Self::LeaveMelee(_) => "leave-melee",
            Self::Spot(_) => "spot",
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
pub struct ActivateParams {
    pub leader: String,
    pub order: super::status::Order,
    /// The men the order is for (those within command range obey).
    pub men: Vec<String>,
    /// Follow Him, moving away from known or suspected enemy positions
    /// (5.2): checked against the leader's number, not the worst.
    #[serde(default)]
    pub away: bool,
}

/// A figure outside every leader's command range flips a card on the out
/// of command range chart (a house chart: our copy of the text lost it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndividualParams {
    pub figure: String,
}

/// A figure rolls his reload d10 and stays loaded for this or a later
/// shooting phase (6.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReloadParams {
    pub figure: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireParams {
    pub shooter: String,
    /// None: the nearest enemy in the fight.
    #[serde(default)]
    pub target: Option<String>,
    #[serde(default)]
    pub snap: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolleyParams {
    /// The men who shoot, in order; each at the nearest enemy.
    pub men: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeleeParams {
    pub a: String,
    pub b: String,
    /// The figures (a, b or both) who parry this round (7.2, house: +2,
    /// and a win only turns the blow).
    #[serde(default)]
    pub parry: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RallyParams {
    /// The routed figures that try; empty: every routed figure of the side.
    #[serde(default)]
    pub figures: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveParams {
    pub figure: String,
    /// Moving backwards, keeping his facing (5.1; a halted rider backs
    /// his horse 2 in, 5.3).
    #[serde(default)]
    pub backwards: bool,
    /// Points after the start, table inches.
    pub path_in: Vec<[f64; 2]>,
    /// Facing at the end; default: along the last leg.
    #[serde(default)]
    pub facing_deg: Option<f64>,
    /// Running (formed charge) rather than walking.
    #[serde(default)]
    pub run: bool,
    /// Charging into melee (a formed charge order).
    #[serde(default)]
    pub charge: bool,
    /// A rider's horse speed this turn (by name); default: unchanged.
    #[serde(default)]
    pub speed: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadGunParams {
    pub gun: String,
    /// `ball` or `grapeshot` (cannons only).
    #[serde(default)]
    pub ammo: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtilleryParams {
    pub gun: String,
    /// The figure aimed at (its centre is the target point) ...
    #[serde(default)]
    pub target: Option<String>,
    /// ... or a point on the table, inches.
    #[serde(default)]
    pub at_in: Option<[f64; 2]>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrenadeParams {
    pub thrower: String,
    #[serde(default)]
    pub target: Option<String>,
    #[serde(default)]
    pub at_in: Option<[f64; 2]>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImpactParams {
    pub rider: String,
    pub footman: String,
    /// What the footman does with his action check before the impact
    /// (5.5), when the rider's unit has not engaged him in melee.
    #[serde(default)]
    pub answer: Option<ImpactAnswer>,
}

/// 5.5: a footman struck by a horse "can make an Action check immediately
/// and use it to dodge out of the way if there is space to the side, or to
/// attack the rider or horse".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImpactAnswer {
    Dodge,
    Attack,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FollowParams {
    pub figure: String,
    pub to_in: [f64; 2],
    #[serde(default)]
    pub facing_deg: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleParams {
    pub figure: String,
    pub reason: String,
}

/// 11, Spotting Hidden Enemies (house): an observer looks for a hidden
/// enemy he can see the place of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpotParams {
    pub observer: String,
    pub target: String,
}

/// 5.5, Leaving Melee: a figure in base contact with an enemy walks away
/// to `to_in` if he passes an activation check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaveParams {
    pub figure: String,
    pub to_in: [f64; 2],
    #[serde(default)]
    pub facing_deg: Option<f64>,
}
