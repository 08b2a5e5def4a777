//! Rule sets as data plus the code data cannot express; dice; exact odds.
//!
//! # Conventions
//! - Distances in rule data are "rule inches" for 25 mm figures; the
//!   geometry module converts table inches (see [`crate::geometry::Scale`]).
//! - Every action runs as [`crate::rules::Command`] -> [`RuleSet::check`] ->
//!   [`RuleSet::resolve`] (dice from an injected [`dice::Dice`]) -> a list of
//!   [`crate::rules::Event`]s -> [`crate::rules::GameState::apply`]. Dice and
//!   card draws are recorded in `Rolled` / `CardDrawn` events.
//! - Odds are exact: every face of every die is enumerated ([`odds`]).
//!
//! Rule sets are found by name in a [`Registry`]; Stand To! is the first.

pub mod action;
mod command;
pub mod common;
pub mod deck;
pub mod describe;
mod event;
pub mod little_colonial;
pub mod overlay;
pub mod soldiers_in_time;
pub mod stand_to;
mod state;
pub mod volley_fire;

use std::sync::Arc;

use crate::core::Refusal;
pub use crate::core::{dice, odds};
pub use command::{Command, Observed, SHARED_ACTIONS};
use dice::{Dice, DiceError};
pub use event::Event;
use odds::NamedOdds;
pub use state::{Deck, FigureRules, GameRules, SideRules, Status, Unit, UnitRules};
pub use state::{
    Figure, FigureId, GameState, ObstacleStage, Pace, Rank, Side, SideKind, TableSize,
};

/// Why a command cannot be carried out, or a roll went wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuleError {
    /// The rules forbid the command now (wrong phase, out of range, ...):
    /// a typed [`Refusal`] naming the rule set, the figure and the kind of
    /// rule.
    /// (Not the error's `source`: its text is already in this message, so
    /// a chain printed with `{:#}` says it once.)
    #[error("not allowed: {0}")]
    Refused(Refusal),
    /// The parameters of an action cannot be read (a mistyped field, a
    /// missing figure name): the command is wrong, not the moment.
    #[error("the parameters of `{action}` cannot be read: {reason}")]
    BadParams { action: String, reason: String },
    /// The command names a figure or weapon that does not exist.
    #[error("unknown {what}: {name}")]
    Unknown { what: &'static str, name: String },
    /// The rule set does not have this kind of action.
    #[error("the rule set {rule_set} has no {action} action")]
    Unsupported { rule_set: String, action: String },
    #[error(transparent)]
    Dice(#[from] DiceError),
}

impl From<Refusal> for RuleError {
    fn from(r: Refusal) -> Self {
        Self::Refused(r)
    }
}

impl RuleError {
    /// A refusal about `figure` (other errors are returned as they are).
    #[must_use]
    pub fn by(self, figure: FigureId) -> Self {
        match self {
            Self::Refused(r) => Self::Refused(r.by(figure)),
            other => other,
        }
    }

    /// The refusal, when the rules refused the command.
    pub fn refusal(&self) -> Option<&Refusal> {
        match self {
            Self::Refused(r) => Some(r),
            _ => None,
        }
    }
}

/// A rule set the engine can run.
/// A scenario figure's keys of how he starts that only some rule sets keep
/// (`None`: the scenario does not say).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FigureStart {
    /// `pace`: how he moved in the turn before the game starts.
    pub pace: Option<Pace>,
    /// `prone`: lying down.
    pub prone: Option<bool>,
    /// `ammo`: rounds left (guns).
    pub ammo: Option<u32>,
}

impl FigureStart {
    /// The keys the scenario gave.
    pub fn given(&self) -> Vec<&'static str> {
        let mut keys = Vec::new();
        if self.pace.is_some() {
            keys.push("pace");
        }
        if self.prone.is_some() {
            keys.push("prone");
        }
        if self.ammo.is_some() {
            keys.push("ammo");
        }
        keys
    }
}

pub trait RuleSet: Send + Sync + std::fmt::Debug {
    /// Registry name, e.g. `stand-to`.
    fn name(&self) -> &str;

    /// Names of the phases of a side's turn, in order.
    fn phases(&self) -> Vec<String>;

    /// Is this a weapon the rule set knows (scenario checks)?
    fn knows_weapon(&self, name: &str) -> bool;

    /// Is this a melee weapon category the rule set knows?
    fn knows_melee_weapon(&self, name: &str) -> bool;

    /// The kind of side that has the first turn, if the rules fix it.
    fn first_side_kind(&self) -> Option<crate::rules::SideKind> {
        None
    }

    /// The lowest and highest experience number a figure may have.
    fn experience_range(&self) -> (u8, u8) {
        (1, 6)
    }

    /// Puts a scenario figure's start keys (`pace`, `prone`, `ammo`: how
    /// he starts, which only some rule sets keep) into his state. A rule set
    /// that keeps none refuses a given key, naming it.
    /// `clock` is the game's clock as it starts.
    fn figure_start(
        &self,
        _figure: &mut Figure,
        start: FigureStart,
        _clock: crate::core::TurnClock,
    ) -> Result<(), String> {
        match start.given().first() {
            None => Ok(()),
            Some(key) => Err(format!(
                "`{key}` is not a figure key of {} (Stand To! keeps it); remove it",
                self.name()
            )),
        }
    }

    /// A command in the rule set's own words ("Pte Carter fires (aimed) at
    /// Dervish 1"), for the game's log; `None`: the app writes the action's
    /// name and parameters.
    fn command_summary(&self, _state: &GameState, _command: &Command) -> Option<String> {
        None
    }

    /// Book-keeping before the first turn that follows from the figures
    /// (an order deck built from the officers, morale chits ...).
    fn prepare(&self, _state: &mut GameState) -> Result<(), RuleError> {
        Ok(())
    }

    /// The level of a named mount speed, if the rule set has mounts.
    fn mount_level(&self, _name: &str) -> Option<u8> {
        None
    }

    /// A side's preservation limit when the referee accepts `accepted_percent`
    /// casualties among `men` figures, if the rule set has one.
    fn preservation_limit(&self, _accepted_percent: u32, _men: usize) -> Option<u32> {
        None
    }

    /// The edge colour a figure's base is painted, where the rule set paints
    /// it from the figure (Stand To!: experience). Binding a photo's figures
    /// to the game's checks it.
    fn base_edge(
        &self,
        _state: &GameState,
        _figure: &crate::rules::Figure,
    ) -> Option<crate::vision::EdgeColour> {
        None
    }

    /// What to draw around a selected figure (fire arc, command radius,
    /// melee zone, line of sight, movement allowance), in table inches.
    /// Rule sets without overlays draw nothing.
    fn overlays(&self, _state: &GameState, _figure: FigureId) -> Vec<overlay::OverlayShape> {
        Vec::new()
    }

    /// The rule set's actions: what each takes and when. The action panel,
    /// `spotter actions` and `spotter resolve --rule-action` are built
    /// from this description.
    fn actions(&self) -> Vec<describe::ActionSpec>;

    /// The actions a player takes by clicking an actor, then a target
    /// (the app's action panel), by label, from [`RuleSet::actions`].
    fn target_actions(&self) -> Vec<&'static str> {
        describe::target_labels(self)
    }

    /// The command of the action labelled `action` by `actor` at `target`
    /// (`None`: not an action of this rule set, or the figures cannot take
    /// it, e.g. a figure outside any unit where the rules move units),
    /// built from [`RuleSet::actions`] and read by [`RuleSet::parse_action`].
    fn target_command(
        &self,
        state: &GameState,
        action: &str,
        actor: FigureId,
        target: FigureId,
    ) -> Option<Command> {
        describe::target_command(self, state, action, actor, target)
    }

    /// The command of this rule set's action called `name`, its parameters
    /// read from `params` (a JSON object: scripts, the CLI). An unknown name
    /// is [`RuleError::Unsupported`]; parameters that cannot be read are
    /// [`RuleError::BadParams`], never a refusal.
    fn parse_action(&self, name: &str, params: &serde_json::Value) -> Result<Command, RuleError> {
        command::parse_shared(name, params).ok_or_else(|| RuleError::Unsupported {
            rule_set: self.name().to_owned(),
            action: name.to_owned(),
        })?
    }

    /// Reads a figure's `status` table from the scenario file into the rule
    /// set's typed state. A key or value the rule set does not know is an
    /// error naming it (the scenario loader adds the file, line and field).
    /// The default: the rule set keeps no typed state of figures.
    fn figure_status(&self, _raw: &Status) -> Result<FigureRules, String> {
        Ok(FigureRules::None)
    }

    /// Reads a unit's `status` table (see [`RuleSet::figure_status`]).
    fn unit_status(&self, _raw: &Status) -> Result<UnitRules, String> {
        Ok(UnitRules::None)
    }

    /// Reads a side's `status` table (see [`RuleSet::figure_status`]); the
    /// referee's `green_sides` arrive as `green = "true"`.
    fn side_status(&self, _raw: &Status) -> Result<SideRules, String> {
        Ok(SideRules::None)
    }

    /// Can the command be carried out in this state? No dice are rolled.
    fn check(&self, state: &GameState, command: &Command) -> Result<(), RuleError>;

    /// The exact odds of the command's rolls, before rolling.
    fn odds(&self, state: &GameState, command: &Command) -> Result<Vec<NamedOdds>, RuleError>;

    /// Checks, rolls and returns the events (the state is not changed).
    fn resolve(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError>;
}

/// The odds a dry resolve recorded in its `Odds` event (none when the
/// action rolls nothing): for rule sets whose odds are computed as the
/// command resolves.
pub fn odds_from_events(events: Vec<Event>) -> Vec<NamedOdds> {
    events
        .into_iter()
        .find_map(|e| match e {
            Event::Odds { odds, .. } => Some(odds),
            _ => None,
        })
        .unwrap_or_default()
}

/// Rule sets by name.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    rule_sets: Vec<Arc<dyn RuleSet>>,
}

impl Registry {
    /// Every built-in rule set.
    pub fn builtin() -> Result<Self, crate::spec::SpecError> {
        let mut r = Self::default();
        r.add(Arc::new(stand_to::StandToRules::builtin()?));
        r.add(Arc::new(volley_fire::VolleyFireRules::builtin()?));
        r.add(Arc::new(soldiers_in_time::SoldiersInTimeRules::builtin()?));
        r.add(Arc::new(little_colonial::LittleColonialRules::builtin()?));
        Ok(r)
    }

    /// Adds (or replaces) a rule set.
    pub fn add(&mut self, rule_set: Arc<dyn RuleSet>) {
        self.rule_sets.retain(|r| r.name() != rule_set.name());
        self.rule_sets.push(rule_set);
    }

    /// A rule set by name.
    pub fn get(&self, name: &str) -> Option<Arc<dyn RuleSet>> {
        self.rule_sets.iter().find(|r| r.name() == name).cloned()
    }

    /// Names of the rule sets.
    pub fn names(&self) -> Vec<String> {
        self.rule_sets.iter().map(|r| r.name().to_owned()).collect()
    }
}
