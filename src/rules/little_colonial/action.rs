//! The Little Colonial Rules actions as Rust types: one variant per action, its
//! parameters a struct. Serialised as `{"action": <name>, "params": {..}}`
//! inside the game's command (`"command": "little-colonial"`).
//!
//! # Conventions
//! Figures and units are named by their scenario names; points are table
//! inches.

use serde::{Deserialize, Serialize};

use super::NAME;
use crate::rules::RuleError;

/// One Little Colonial Rules action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", content = "params", rename_all = "kebab-case")]
pub enum Action {
    Draw(DrawParams),
    PlayReserved(PlayParams),
    Fire(FireParams),
    Move(MoveParams),
    Artillery(ArtilleryParams),
    Rally(RallyParams),
    CloseCombat(CombatParams),
    Reform(ReformParams),
    Drag(DragParams),
    Gather(GatherParams),
    Challenge(ChallengeParams),
}

impl Action {
    /// The names of the actions, as scripts and the CLI write them.
    pub const NAMES: &[&str] = &[
        "draw",
        "play-reserved",
        "fire",
        "move",
        "artillery",
        "rally",
        "close-combat",
        "reform",
        "drag",
        "gather",
        "challenge",
    ];

    /// The action's name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Draw(_) => "draw",
            Self::PlayReserved(_) => "play-reserved",
            Self::Fire(_) => "fire",
            Self::Move(_) => "move",
            Self::Artillery(_) => "artillery",
            Self::Rally(_) => "rally",
            Self::CloseCombat(_) => "close-combat",
            Self::Reform(_) => "reform",
            Self::Drag(_) => "drag",
            Self::Gather(_) => "gather",
            Self::Challenge(_) => "challenge",
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
pub struct DrawParams {
    /// Keep the card in hand instead of using it now.
    #[serde(default)]
    pub reserve: bool,
    /// More cards to add at this reshuffle (reinforcements not in the
    /// scenario).
    #[serde(default)]
    pub reinforcements: Vec<String>,
    /// What the activated men do at once.
    #[serde(default)]
    pub then: Option<DrawThen>,
}

/// What the men of a drawn card do at once (scripted games, the CLI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DrawThen {
    /// The card's officer rallies demoralised men near him if there are
    /// any; else his guns fire and every soldier of his within his command
    /// radius fires at the nearest enemy, in formation.
    Fire,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayParams {
    pub card: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireParams {
    pub firers: Vec<String>,
    /// A figure of the side fired at; the nearest of them (in the arc) is
    /// the target. With `individual`, this figure is the target.
    pub target: String,
    /// In formation: the 90 degree arc applies.
    #[serde(default)]
    pub formation: bool,
    /// One soldier fires at one figure.
    #[serde(default)]
    pub individual: bool,
    /// Area fire: the figures the firer removes first, in his order
    /// (at least three soldiers before an NCO, six before an officer);
    /// further hits take the soldiers nearest the target.
    #[serde(default)]
    pub remove: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveParams {
    pub figure: String,
    /// Points after the start, table inches (one leg for infantry; cavalry
    /// may turn at its level's points).
    pub path_in: Vec<[f64; 2]>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtilleryParams {
    pub gun: String,
    pub ammo: Ammo,
    /// Roundshot and shrapnel: the point aimed at, table inches ...
    #[serde(default)]
    pub at_in: Option<[f64; 2]>,
    /// ... or a figure (grapeshot: any figure of the side fired at).
    #[serde(default)]
    pub target: Option<String>,
    /// Grapeshot: the figures removed first, as [`FireParams::remove`].
    #[serde(default)]
    pub remove: Vec<String>,
}

/// What a gun fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ammo {
    Roundshot,
    Grapeshot,
    Shrapnel,
}

impl Ammo {
    /// As the rules and the scripts write it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Roundshot => "roundshot",
            Self::Grapeshot => "grapeshot",
            Self::Shrapnel => "shrapnel",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RallyParams {
    pub officer: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombatParams {
    pub a: String,
    pub b: String,
    #[serde(default)]
    pub a_add: i32,
    #[serde(default)]
    pub b_add: i32,
    #[serde(default)]
    pub a_single_rank: bool,
    #[serde(default)]
    pub b_single_rank: bool,
}

/// Reform: soldiers of one unit close a gap, each moving at most 5 cm
/// (ordered by the officer or NCO whose card is in play).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReformParams {
    pub unit: String,
    pub moves: Vec<FigureTo>,
}

/// A figure and the point he moves to, table inches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureTo {
    pub figure: String,
    pub to_in: [f64; 2],
}

/// One or two healthy men drag a seriously wounded comrade (a
/// Compassionate side only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DragParams {
    pub wounded: String,
    /// One or two helpers; the first walks the path, the wounded and the
    /// second come with him.
    pub helpers: Vec<String>,
    /// One straight leg, table inches.
    pub to_in: [f64; 2],
}

/// Seriously wounded men behind the lines are gathered: they may fire,
/// with doubled ranges, and do not move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatherParams {
    pub wounded: Vec<String>,
}

/// A side challenges the other, while it gives aid to its wounded, to
/// show what it wrote down (once a game).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChallengeParams {
    /// The side that challenges.
    pub side: String,
}
