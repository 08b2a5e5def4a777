//! Game state, commands, events, the game log and scenarios.
//!
//! # Conventions
//! - Positions are base centres in the table frame of `TABLE_KIT.md`
//!   (inches, +x right, +y up seen from above); `facing_deg` counter-clockwise
//!   from +x.
//! - The state changes only through [`GameState::apply`]. A [`Game`] runs
//!   [`Command`] -> check -> resolve (dice) -> [`Event`]s -> apply, and
//!   appends every event to its log as it happens (JSON Lines, fsync per
//!   line). Undo and replay rebuild the state from the log.

pub mod log;
/// The paths the game's modules name the state, commands and events by:
/// the types live with the rule sets ([`crate::rules`]), below the game.
mod command {
    pub use crate::rules::Command;
}
mod event {
    pub use crate::rules::Event;
}
mod state {
    pub use crate::rules::{
        Figure, FigureId, GameState, ObstacleStage, Pace, Rank, Side, SideKind, TableSize, Unit,
    };
}
pub mod photo;
pub mod roster;
pub mod scenario;
pub mod script;

use std::path::Path;
use std::sync::Arc;

pub use crate::rules::{AimUse, Command, FireMode, Observed, OrderVia};
pub use crate::rules::{Deck, Status, Unit};
pub use crate::rules::{Event, StatusOf};
pub use crate::rules::{
    Figure, FigureId, GameState, ObstacleStage, Pace, Rank, Side, SideKind, TableSize,
};
pub use log::{LogError, LogRecord};
pub use scenario::{Scenario, ScenarioError};

use crate::core::dice::Dice;
use crate::core::odds::NamedOdds;
use crate::rules::{Registry, RuleError, RuleSet};

/// Errors of a game.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error(transparent)]
    Rule(#[from] RuleError),
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("unknown rule set `{0}`")]
    UnknownRuleSet(String),
    #[error("the log {0} does not start with a start record")]
    NoStart(String),
    #[error("nothing to undo")]
    NothingToUndo,
}

/// One command of the game with the events it produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Played {
    /// Sequence number in the log.
    pub n: u64,
    pub command: Command,
    pub events: Vec<Event>,
    /// Taken back by an undo.
    pub undone: bool,
}

/// A game: state, rule set, history and (optionally) its log on disk.
#[derive(Debug)]
pub struct Game {
    initial: GameState,
    state: GameState,
    rules: Arc<dyn RuleSet>,
    history: Vec<Played>,
    log: Option<log::LogWriter>,
    next_n: u64,
    /// Bumped by every change of the state (execute, undo): what a view
    /// computed from the state is keyed by.
    revision: u64,
}

impl Game {
    /// Starts a game from an initial state; with a log path, a new log is
    /// created there (an existing file is never overwritten).
    pub fn new(
        initial: GameState,
        rules: Arc<dyn RuleSet>,
        log_path: Option<&Path>,
    ) -> Result<Self, GameError> {
        let mut log = match log_path {
            Some(p) => Some(log::LogWriter::create(p)?),
            None => None,
        };
        if let Some(l) = log.as_mut() {
            l.append(&LogRecord::Start {
                schema: log::LOG_SCHEMA.into(),
                state: Box::new(initial.clone()),
            })?;
        }
        Ok(Self {
            state: initial.clone(),
            initial,
            rules,
            history: Vec::new(),
            log,
            next_n: 1,
            revision: 0,
        })
    }

    /// Resumes a game from its log. A command whose `end` record is missing
    /// (the program died while writing it) is dropped whole, and the log is
    /// cut back to the last complete command.
    pub fn resume(log_path: &Path, registry: &Registry) -> Result<Self, GameError> {
        let read = log::read_log(log_path)?;
        let mut records = read.records.into_iter();
        let Some(LogRecord::Start { state, .. }) = records.next() else {
            return Err(GameError::NoStart(log_path.display().to_string()));
        };
        let rules = registry
            .get(&state.rule_set)
            .ok_or_else(|| GameError::UnknownRuleSet(state.rule_set.clone()))?;
        let mut history: Vec<Played> = Vec::new();
        let typed = |command: Command| command.typed(rules.as_ref());
        let mut open: Option<Played> = None;
        let mut valid_len = read.valid_len;
        // Byte length of each record, to cut back an unfinished command.
        let mut kept_len = 0_u64;
        let text = std::fs::read_to_string(log_path).map_err(|source| LogError::Io {
            path: log_path.to_owned(),
            source,
        })?;
        let line_lens: Vec<u64> = text.split_inclusive('\n').map(|l| l.len() as u64).collect();
        kept_len += line_lens.first().copied().unwrap_or(0);
        let mut pending_len = 0_u64;
        for (i, r) in records.enumerate() {
            let len = line_lens.get(i + 1).copied().unwrap_or(0);
            match r {
                LogRecord::Start { .. } => {}
                LogRecord::Command { n, command } => {
                    open = Some(Played {
                        n,
                        command: typed(command)?,
                        events: Vec::new(),
                        undone: false,
                    });
                    pending_len = len;
                }
                LogRecord::Event { n, event } => {
                    if let Some(p) = open.as_mut().filter(|p| p.n == n) {
                        p.events.push(event);
                        pending_len += len;
                    }
                }
                LogRecord::End { n } => {
                    if let Some(p) = open.take().filter(|p| p.n == n) {
                        history.push(p);
                        kept_len += pending_len + len;
                        pending_len = 0;
                    }
                }
                LogRecord::Undo { n } => {
                    if let Some(p) = history.iter_mut().find(|p| p.n == n) {
                        p.undone = true;
                    }
                    kept_len += len;
                }
            }
        }
        if open.is_some() || read.torn_tail {
            valid_len = kept_len.min(valid_len);
        }
        let log = Some(log::LogWriter::append_to(log_path, valid_len)?);
        let next_n = history.iter().map(|p| p.n).max().unwrap_or(0) + 1;
        let initial = *state;
        let mut game = Self {
            state: initial.clone(),
            initial,
            rules,
            history,
            log,
            next_n,
            revision: 0,
        };
        game.rebuild();
        Ok(game)
    }

    fn rebuild(&mut self) {
        let mut s = self.initial.clone();
        for p in self.history.iter().filter(|p| !p.undone) {
            for e in &p.events {
                s.apply(e);
            }
        }
        self.state = s;
    }

    /// A number that changes whenever the state does (each command
    /// executed, each undo).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The current state.
    pub fn state(&self) -> &GameState {
        &self.state
    }

    /// The state the game started from.
    pub fn initial(&self) -> &GameState {
        &self.initial
    }

    /// The rule set.
    pub fn rules(&self) -> &Arc<dyn RuleSet> {
        &self.rules
    }

    /// Every command played, undone ones included (flagged).
    pub fn history(&self) -> &[Played] {
        &self.history
    }

    /// Can the command be carried out now?
    pub fn check(&self, command: &Command) -> Result<(), GameError> {
        if let Some(seen) = command.observations() {
            return self.observed_events(&seen).map(drop);
        }
        Ok(self.rules.check(&self.state, command)?)
    }

    /// Exact odds of the command's rolls.
    pub fn odds(&self, command: &Command) -> Result<Vec<NamedOdds>, GameError> {
        if command.observations().is_some() {
            return Ok(Vec::new());
        }
        Ok(self.rules.odds(&self.state, command)?)
    }

    /// The events of an observation: each figure placed where it was seen.
    /// Rule-set neutral, no dice.
    fn observed_events(&self, seen: &[crate::rules::Observed]) -> Result<Vec<Event>, GameError> {
        seen.iter()
            .map(|o| {
                if self.state.figure(o.figure).is_none() {
                    return Err(GameError::Rule(RuleError::Unknown {
                        what: "figure",
                        name: o.figure.0.to_string(),
                    }));
                }
                Ok(Event::Placed {
                    figure: o.figure,
                    to_in: o.center_in_table,
                    facing_deg: crate::geometry::normalize_deg(o.facing_deg),
                    sigma_in: o.sigma_in.abs(),
                })
            })
            .collect()
    }

    /// Checks, rolls, logs and applies a command; returns its events.
    pub fn execute(
        &mut self,
        command: Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, GameError> {
        let command = command.typed(self.rules.as_ref())?;
        let events = match command.observations() {
            Some(seen) => self.observed_events(&seen)?,
            None => self.rules.resolve(&self.state, &command, dice)?,
        };
        let n = self.next_n;
        self.next_n += 1;
        if let Some(log) = self.log.as_mut() {
            log.append(&LogRecord::Command {
                n,
                command: command.clone(),
            })?;
        }
        for e in &events {
            if let Some(log) = self.log.as_mut() {
                log.append(&LogRecord::Event {
                    n,
                    event: e.clone(),
                })?;
            }
            self.state.apply(e);
        }
        if let Some(log) = self.log.as_mut() {
            log.append(&LogRecord::End { n })?;
        }
        self.history.push(Played {
            n,
            command,
            events: events.clone(),
            undone: false,
        });
        self.revision += 1;
        Ok(events)
    }

    /// Takes back the last command that is not undone; returns it.
    pub fn undo(&mut self) -> Result<Command, GameError> {
        let p = self
            .history
            .iter_mut()
            .rev()
            .find(|p| !p.undone)
            .ok_or(GameError::NothingToUndo)?;
        p.undone = true;
        let (n, command) = (p.n, p.command.clone());
        if let Some(log) = self.log.as_mut() {
            log.append(&LogRecord::Undo { n })?;
        }
        self.rebuild();
        self.revision += 1;
        Ok(command)
    }

    /// The state after each command that stands (replay), starting with the
    /// initial state.
    pub fn replay(&self) -> Vec<GameState> {
        let mut s = self.initial.clone();
        let mut out = vec![s.clone()];
        for p in self.history.iter().filter(|p| !p.undone) {
            for e in &p.events {
                s.apply(e);
            }
            out.push(s.clone());
        }
        out
    }
}
