//! The Stand To! actions as Rust types: one variant per action, with its
//! parameters. Serialised as `{"action": <name>, "params": {..}}` inside
//! the game's command (`"command": "stand-to"`).
//!
//! # Conventions
//! Figures are named by their index in the game ([`FigureId`]), except in
//! dismounting, which names them by their scenario names; points are table
//! inches.

use nalgebra::Point2;
use serde::{Deserialize, Serialize};

use crate::core::FigureId;
use crate::rules::Pace;

/// The names of the actions, as scripts and the CLI write them.
pub const NAMES: &[&str] = &[
    "load",
    "aim",
    "aim-at-location",
    "fire",
    "fire-at-location",
    "fire-gun",
    "melee",
    "move",
    "prone",
    "order",
    "spot",
    "first-attack",
    "rescue",
    "shed",
    "advance",
    "recover",
    "roll-experience",
    "dismount",
    "drive-peg",
];

/// Aimed fire or a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FireMode {
    Aimed,
    Snap,
}

/// Where the aiming bonus goes; chosen after the dice are seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AimUse {
    /// Spotter chooses the use that turns a miss into a hit, if any.
    #[default]
    Best,
    /// +1 to the roll to hit.
    Hit,
    /// +1 to the target's saving roll.
    Save,
}

/// How an order travels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "via", rename_all = "kebab-case")]
pub enum OrderVia {
    Shout,
    HandSignal,
    Musician { musician: FigureId },
}

/// One Stand To! action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", content = "params", rename_all = "kebab-case")]
pub enum Action {
    /// Spend a turn loading (breechloaders before an aimed shot, muskets, guns).
    Load { figure: FigureId },
    /// Spend a turn aiming at a target: +1 for the next shot at it.
    Aim { figure: FigureId, target: FigureId },
    /// Spend a turn aiming at a location (a point on the table: the area
    /// within the data's `fire.covered_area_in` of it): "A soldier can also
    /// aim at a location. If anything appears there, he can immediately
    /// fire at it."
    AimAtLocation {
        figure: FigureId,
        center_in: Point2<f64>,
    },
    /// The shot at an enemy who has just appeared in the area he covers,
    /// at once, in any side's turn: aimed, with no aiming bonus.
    FireAtLocation { shooter: FigureId, target: FigureId },
    /// Fire at a target. `rapid`: a bolt-action rifle pulls rounds from its
    /// magazine.
    Fire {
        shooter: FigureId,
        target: FigureId,
        mode: FireMode,
        #[serde(default)]
        rapid: bool,
        #[serde(default)]
        aim_use: AimUse,
        /// Aim at the mount rather than the rider.
        #[serde(default)]
        at_mount: bool,
    },
    /// A gun fires its cone (crew figure holding the gun).
    FireGun { gun: FigureId },
    /// Hand-to-hand: one side of the exchange must be a single figure.
    Melee {
        attackers: Vec<FigureId>,
        defenders: Vec<FigureId>,
    },
    /// Move along a path (table inches) at a pace; a rider may change speed.
    Move {
        figure: FigureId,
        path_in: Vec<Point2<f64>>,
        facing_deg: f64,
        pace: Pace,
        #[serde(default)]
        mount_level: Option<u8>,
    },
    /// Lie down or stand up (no time at all).
    Prone { figure: FigureId, prone: bool },
    /// A leader gives an order.
    Order {
        giver: FigureId,
        to: Vec<FigureId>,
        order: String,
        via: OrderVia,
    },
    /// A scout observes a 3 in circle centred on a point.
    Spot {
        scout: FigureId,
        center_in: Point2<f64>,
    },
    /// A novice leader reacts to the first attack on his force.
    FirstAttack { leader: FigureId },
    /// A European figure was wounded: roll for his nearest friend (and the
    /// leader).
    Rescue { wounded: FigureId },
    /// A broken force in a protected position sheds preservation points.
    Shed { side: usize },
    /// After the battle: roll to advance experience.
    Advance { figure: FigureId },
    /// Between battles: roll for a wounded figure's recovery.
    Recover { figure: FigureId, cared_for: bool },
    /// Before the battle: roll a figure's starting experience (by name).
    RollExperience { figure: String },
    /// A rider gets down and sees to his mount.
    Dismount(DismountParams),
    /// One more turn of driving the peg his mount is tied to.
    DrivePeg(DrivePegParams),
}

impl Action {
    /// The action's name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Load { .. } => "load",
            Self::Aim { .. } => "aim",
            Self::AimAtLocation { .. } => "aim-at-location",
            Self::FireAtLocation { .. } => "fire-at-location",
            Self::Fire { .. } => "fire",
            Self::FireGun { .. } => "fire-gun",
            Self::Melee { .. } => "melee",
            Self::Move { .. } => "move",
            Self::Prone { .. } => "prone",
            Self::Order { .. } => "order",
            Self::Spot { .. } => "spot",
            Self::FirstAttack { .. } => "first-attack",
            Self::Rescue { .. } => "rescue",
            Self::Shed { .. } => "shed",
            Self::Advance { .. } => "advance",
            Self::Recover { .. } => "recover",
            Self::RollExperience { .. } => "roll-experience",
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
