//! Commands: what a player (or the UI) asks for. A command is checked
//! against the state and the rule set, then resolved into events.

use nalgebra::Point2;
use serde::{Deserialize, Serialize};

use super::state::FigureId;

/// Something a player asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "kebab-case")]
pub enum Command {
    /// End the current phase (and the side's turn after the last phase).
    EndPhase,
    /// The camera saw these figures here: each placed where it was seen.
    /// The game handles it itself, whatever the rule set
    /// ([`crate::game::Game::execute`]); rule sets never see it.
    Observe { figures: Vec<Observed> },
    /// The player says what a piece of terrain is: the area `name` (new,
    /// or replacing one of that name) with its kinds (none: not terrain)
    /// and outline, table inches. The game handles it itself, whatever the
    /// rule set; the rules then read it like the scenario's terrain.
    MarkTerrain {
        name: String,
        #[serde(default)]
        kinds: Vec<crate::geometry::TerrainKind>,
        polygon_in: Vec<Point2<f64>>,
    },
    /// The player takes the terrain area `name` off the table.
    ClearTerrain { name: String },
    /// A Stand To! action (fire, move, load, order, dismount ...).
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

    /// Is this one of the commands the game carries out itself (the
    /// camera's observations, terrain marks), which no rule set sees?
    pub fn is_the_games(&self) -> bool {
        matches!(
            self,
            Self::Observe { .. } | Self::MarkTerrain { .. } | Self::ClearTerrain { .. }
        )
    }

    /// The figures of an observation command; `None` for any other command.
    pub fn observations(&self) -> Option<Vec<Observed>> {
        match self {
            Self::Observe { figures } => Some(figures.clone()),
            _ => None,
        }
    }
}

/// The names of the game's own commands, which every rule set takes.
pub const SHARED_ACTIONS: &[&str] = &["end-phase"];

/// The names of the commands the game carries out itself that a script
/// may name (terrain marks); no rule set describes them.
pub const GAME_COMMANDS: &[&str] = &["mark-terrain", "clear-terrain"];

/// A shared command (`end-phase`) by its name and parameters; `None` when
/// no shared command has that name.
pub(crate) fn parse_shared(
    name: &str,
    params: &serde_json::Value,
) -> Option<Result<Command, super::RuleError>> {
    if !SHARED_ACTIONS.contains(&name) && !GAME_COMMANDS.contains(&name) {
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
