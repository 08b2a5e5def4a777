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
mod log_upgrade;
/// The path the game's modules name the state by:
/// the types live with the rule sets ([`crate::rules`]), below the game.
mod state {
    pub use crate::rules::{
        Figure, FigureId, GameState, Pace, Rank, Side, SideKind, TableSize, Unit,
    };
}
pub mod photo;
pub mod roster;
pub mod scenario;
pub mod script;
pub mod terrain;

use std::path::Path;
use std::sync::Arc;

pub use crate::rules::Event;
pub use crate::rules::{Command, Observed};
pub use crate::rules::{Deck, Status, Unit};
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
    #[error(
        "the game log cannot be written ({0}); the game is kept in memory, but no command is carried out until the log can be written again (free some disk space, or choose another games folder)"
    )]
    LogUnsafe(String),
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
    /// What resuming repaired in the log.
    repair: Option<log::Repair>,
    /// Why the last write to the log failed, until it is healed.
    log_fault: Option<String>,
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
            repair: None,
            log_fault: None,
        })
    }

    /// Resumes a game from its log, up to its last consistent command (see
    /// [`log::recover`]: a damaged log is repaired and the damaged file kept
    /// beside it; [`Game::repair`] says what was done).
    pub fn resume(log_path: &Path, registry: &Registry) -> Result<Self, GameError> {
        let rec = log::recover(log_path)?;
        let rules = registry
            .get(&rec.start.rule_set)
            .ok_or_else(|| GameError::UnknownRuleSet(rec.start.rule_set.clone()))?;
        let history: Vec<Played> = rec
            .commands
            .into_iter()
            .map(|c| -> Result<Played, GameError> {
                Ok(Played {
                    n: c.n,
                    command: c.command.typed(rules.as_ref())?,
                    events: c.events,
                    undone: c.undone,
                })
            })
            .collect::<Result<_, _>>()?;
        let next_n = history.iter().map(|p| p.n).max().unwrap_or(0) + 1;
        let mut game = Self {
            state: rec.start.clone(),
            initial: rec.start,
            rules,
            history,
            log: Some(rec.writer),
            next_n,
            revision: 0,
            repair: rec.repair,
            log_fault: None,
        };
        game.rebuild();
        Ok(game)
    }

    /// What resuming had to repair in the log, if anything.
    pub fn repair(&self) -> Option<&log::Repair> {
        self.repair.as_ref()
    }

    /// Why the log cannot be written now (the game goes on in memory, and
    /// refuses new commands until the log is safe again).
    pub fn log_fault(&self) -> Option<&str> {
        self.log_fault.as_deref()
    }

    /// Makes the log safe after a failed write: rewrites it whole from the
    /// game in memory. Called before each command while the log is faulty.
    pub fn heal_log(&mut self) -> Result<(), GameError> {
        if self.log_fault.is_none() {
            return Ok(());
        }
        let mut records = vec![LogRecord::Start {
            schema: log::LOG_SCHEMA.into(),
            state: Box::new(self.initial.clone()),
        }];
        for p in &self.history {
            records.push(LogRecord::Command {
                n: p.n,
                command: p.command.clone(),
            });
            records.extend(p.events.iter().map(|e| LogRecord::Event {
                n: p.n,
                event: e.clone(),
            }));
            records.push(LogRecord::End { n: p.n });
            if p.undone {
                records.push(LogRecord::Undo { n: p.n });
            }
        }
        if let Some(log) = self.log.as_mut()
            && let Err(e) = log.rewrite(&records)
        {
            self.log_fault = Some(e.to_string());
            return Err(GameError::LogUnsafe(e.to_string()));
        }
        self.log_fault = None;
        Ok(())
    }

    /// The log being written (tests inject faults through it).
    #[doc(hidden)]
    pub fn log_writer_for_test(&mut self) -> Option<&mut log::LogWriter> {
        self.log.as_mut()
    }

    /// Appends records; a failure marks the log faulty.
    fn log_records(&mut self, records: &[LogRecord]) -> Result<(), GameError> {
        let Some(log) = self.log.as_mut() else {
            return Ok(());
        };
        match log.append_all(records) {
            Ok(()) => Ok(()),
            Err(e @ LogError::NotFinite { .. }) => Err(e.into()),
            Err(e) => {
                self.log_fault = Some(e.to_string());
                Err(GameError::LogUnsafe(e.to_string()))
            }
        }
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
        if let Some(events) = self.own_events(command) {
            return events.map(drop);
        }
        Ok(self.rules.check(&self.state, command)?)
    }

    /// Exact odds of the command's rolls.
    pub fn odds(&self, command: &Command) -> Result<Vec<NamedOdds>, GameError> {
        if command.is_the_games() {
            return Ok(Vec::new());
        }
        Ok(self.rules.odds(&self.state, command)?)
    }

    /// The events of a command the game carries out itself (observations,
    /// terrain marks); `None` for a rule set's command.
    fn own_events(&self, command: &Command) -> Option<Result<Vec<Event>, GameError>> {
        match command {
            Command::Observe { figures } => Some(self.observed_events(figures)),
            Command::MarkTerrain {
                name,
                kinds,
                polygon_in,
            } => Some(
                terrain::check_mark(&self.state, name, polygon_in)
                    .map(|()| {
                        vec![Event::TerrainMarked {
                            name: name.trim().to_owned(),
                            kinds: kinds.clone(),
                            polygon_in: polygon_in.clone(),
                        }]
                    })
                    .map_err(GameError::Rule),
            ),
            Command::ClearTerrain { name } => Some(
                terrain::check_clear(&self.state, name)
                    .map(|()| vec![Event::TerrainCleared { name: name.clone() }])
                    .map_err(GameError::Rule),
            ),
            _ => None,
        }
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
        // Nothing that the log cannot keep is carried out.
        log::to_line(&LogRecord::Command {
            n: 0,
            command: command.clone(),
        })?;
        self.heal_log()?;
        let events = match self.own_events(&command) {
            Some(events) => events?,
            None => self.rules.resolve(&self.state, &command, dice)?,
        };
        let n = self.next_n;
        let mut records = vec![LogRecord::Command {
            n,
            command: command.clone(),
        }];
        records.extend(events.iter().map(|e| LogRecord::Event {
            n,
            event: e.clone(),
        }));
        records.push(LogRecord::End { n });
        if self.log.is_some() {
            self.log_records(&records)?;
        } else {
            for r in &records[1..] {
                log::to_line(r)?;
            }
        }
        self.next_n += 1;
        for e in &events {
            self.state.apply(e);
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
            .iter()
            .rev()
            .find(|p| !p.undone)
            .ok_or(GameError::NothingToUndo)?;
        let (n, command) = (p.n, p.command.clone());
        self.heal_log()?;
        self.log_records(&[LogRecord::Undo { n }])?;
        if let Some(p) = self.history.iter_mut().find(|p| p.n == n) {
            p.undone = true;
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
