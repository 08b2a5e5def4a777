//! Commands: what a player (or the UI) asks for. A command is checked
//! against the state and the rule set, then resolved into events.

use nalgebra::Point2;
use serde::{Deserialize, Serialize};

use super::state::{FigureId, Pace};

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

/// Something a player asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "kebab-case")]
pub enum Command {
    /// Spend a turn loading (breechloaders before an aimed shot, muskets, guns).
    Load { figure: FigureId },
    /// Spend a turn aiming at a target: +1 for the next shot at it.
    Aim { figure: FigureId, target: FigureId },
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
    /// End the current phase (and the side's turn after the last phase).
    EndPhase,
    /// Stand To!: roll a figure's starting experience (before the battle).
    RollExperience { figure: String },
    /// The camera saw these figures here: each placed where it was seen.
    /// The game handles it itself, whatever the rule set
    /// ([`crate::game::Game::execute`]); rule sets never see it.
    Observe { figures: Vec<Observed> },
    /// A Stand To! action the shared commands do not cover (dismounting).
    StandTo(crate::rules::stand_to::action::Action),
    /// A Volley Fire! action (a unit's volley, move, formation change ...).
    VolleyFire(crate::rules::volley_fire::action::Action),
    /// A Soldiers in Time action (an activation, a volley, a gun ...).
    SoldiersInTime(crate::rules::soldiers_in_time::action::Action),
    /// A Little Colonial Rules action (a card drawn, area fire ...).
    LittleColonial(crate::rules::little_colonial::action::Action),
    /// A rule set's action as logs written before the typed actions had it
    /// (`"command": "rule-action"`). Only read from such logs: the game
    /// turns it into the rule set's typed command as it loads the log
    /// ([`Command::typed`]); no rule set runs it.
    #[serde(rename = "rule-action")]
    Untyped {
        action: String,
        #[serde(default)]
        params: serde_json::Value,
    },
}

/// Where the camera sees one figure: base centre in table inches, facing in
/// degrees counter-clockwise from +x, and the position's 1-sigma
/// uncertainty in inches (calibration residual and detection).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    pub figure: FigureId,
    pub center_in_table: Point2<f64>,
    pub facing_deg: f64,
    pub sigma_in: f64,
}

impl Command {
    /// The command that places figures where the camera sees them.
    pub fn observe(seen: &[Observed]) -> Self {
        Self::Observe {
            figures: seen.to_vec(),
        }
    }

    /// The typed command of an [`Command::Untyped`] one (an old log's), by
    /// the rule set that reads it; any other command as it is.
    pub fn typed(self, rules: &dyn super::RuleSet) -> Result<Self, super::RuleError> {
        match self {
            Self::Untyped { action, params } if action == "observe" => {
                let figures = params.get("figures").cloned().unwrap_or_default();
                serde_json::from_value(figures)
                    .map(|figures| Self::Observe { figures })
                    .map_err(|e| super::RuleError::BadParams {
                        action,
                        reason: e.to_string(),
                    })
            }
            Self::Untyped { action, params } => rules.parse_action(&action, &params),
            other => Ok(other),
        }
    }

    /// The figures of an observation command; `None` for any other command.
    pub fn observations(&self) -> Option<Vec<Observed>> {
        match self {
            Self::Observe { figures } => Some(figures.clone()),
            _ => None,
        }
    }
}

/// A shared command (Stand To!'s, `end-phase`) by its serialised name and
/// parameters; `None` when no command has that name.
/// The names of the game's own commands (Stand To!'s, and `end-phase`).
pub const SHARED_ACTIONS: &[&str] = &[
    "load",
    "aim",
    "fire",
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
    "end-phase",
    "roll-experience",
];

pub(crate) fn parse_shared(
    name: &str,
    params: &serde_json::Value,
) -> Option<Result<Command, super::RuleError>> {
    if !SHARED_ACTIONS.contains(&name) {
        return None;
    }
    let mut object = match params {
        serde_json::Value::Object(m) => m.clone(),
        _ => serde_json::Map::new(),
    };
    object.insert("command".into(), serde_json::Value::String(name.into()));
    Some(
        serde_json::from_value(serde_json::Value::Object(object)).map_err(|e| {
            super::RuleError::BadParams {
                action: name.into(),
                reason: e.to_string(),
            }
        }),
    )
}
