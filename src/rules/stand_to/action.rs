//! The Stand To! actions that the shared commands do not cover, as Rust
//! types: one variant per action, its parameters a struct. Serialised as
//! `{"action": <name>, "params": {..}}` inside the game's command
//! (`"command": "stand-to"`).
//!
//! # Conventions
//! Figures are named by their scenario names.

use serde::{Deserialize, Serialize};

/// The names of the actions, as scripts and the CLI write them.
pub const NAMES: &[&str] = &["dismount", "drive-peg"];

/// One Stand To! action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", content = "params", rename_all = "kebab-case")]
pub enum Action {
    /// A rider gets down and sees to his mount.
    Dismount(DismountParams),
    /// One more turn of driving the peg his mount is tied to.
    DrivePeg(DrivePegParams),
}

impl Action {
    /// The action's name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Dismount(_) => "dismount",
            Self::DrivePeg(_) => "drive-peg",
        }
    }
}

/// How the dismounting rider's mount is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HoldBy {
    /// A horseholder (named in `holder`) takes the reins.
    Horseholder,
    /// He ties the reins to a tree (the player confirms the tree).
    Tree,
    /// He drives a peg and ties the reins to it.
    Peg,
}

/// The parameters of [`Action::Dismount`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DismountParams {
    pub figure: String,
    pub by: HoldBy,
    /// The horseholder, for `by = "horseholder"`.
    #[serde(default)]
    pub holder: Option<String>,
}

/// The parameters of [`Action::DrivePeg`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrivePegParams {
    pub figure: String,
}
