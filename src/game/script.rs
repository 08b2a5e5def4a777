//! Scripted games (`scenarios/scripts/*.toml`): a scenario, a dice seed and
//! the list of commands, played through the engine with every event logged,
//! so that a whole game can be run and replayed without a table.
//!
//! # Conventions
//! The scenario path is relative to the script file. A step names a
//! command and its parameters: a rule set's action as `command =
//! "rule-action"`, `action`, `params`, or a shared command by name with its
//! fields (`command = "end-phase"`). The rule set parses each into its typed
//! command when the script loads ([`crate::rules::RuleSet::parse_action`]).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Command, Game, GameError, Scenario, ScenarioError};
use crate::core::dice::seeded;
use crate::rules::Registry;
use crate::spec::{SourceFile, SpecError};

/// Errors of a scripted game.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error("step {step} ({action})")]
    Step {
        step: usize,
        action: String,
        source: GameError,
    },
    #[error(transparent)]
    Game(#[from] GameError),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScript {
    scenario: PathBuf,
    seed: u64,
    #[serde(default)]
    description: String,
    step: Vec<toml::Table>,
}

/// A loaded script.
#[derive(Debug, Clone)]
pub struct Script {
    pub scenario: Scenario,
    pub seed: u64,
    pub description: String,
    pub steps: Vec<Command>,
}

impl Script {
    /// Loads a script and its scenario.
    pub fn load(path: &Path, registry: &Registry) -> Result<Self, ScriptError> {
        Self::from_source(&SourceFile::read(path)?, registry)
    }

    /// Parses a script's text; its scenario path is read beside the
    /// script's own path (`src.path`).
    pub fn from_source(src: &SourceFile, registry: &Registry) -> Result<Self, ScriptError> {
        let raw: RawScript = src.parse_toml()?;
        let scenario_path = src
            .path
            .parent()
            .unwrap_or(Path::new("."))
            .join(&raw.scenario);
        let scenario = Scenario::load(&scenario_path, registry)?;
        let rules = registry
            .get(&scenario.state.rule_set)
            .ok_or_else(|| GameError::UnknownRuleSet(scenario.state.rule_set.clone()))?;
        let steps = raw
            .step
            .into_iter()
            .enumerate()
            .map(|(i, table)| {
                let (name, params) = step_name_and_params(table);
                rules
                    .parse_action(&name, &params)
                    .map_err(|e| ScriptError::Step {
                        step: i + 1,
                        action: name,
                        source: GameError::Rule(e),
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            scenario,
            seed: raw.seed,
            description: raw.description,
            steps,
        })
    }

    /// Plays every step with seeded dice; with a log path the game is logged
    /// there. Calls `each` after every step with its events.
    pub fn play(
        &self,
        registry: &Registry,
        log_path: Option<&Path>,
        mut each: impl FnMut(usize, &Command, &[super::Event]),
    ) -> Result<Game, ScriptError> {
        let rules = registry
            .get(&self.scenario.state.rule_set)
            .ok_or_else(|| GameError::UnknownRuleSet(self.scenario.state.rule_set.clone()))?;
        let mut game = Game::new(self.scenario.state.clone(), rules, log_path)?;
        let mut dice = seeded(self.seed);
        for (i, command) in self.steps.iter().enumerate() {
            let events =
                game.execute(command.clone(), &mut dice)
                    .map_err(|source| ScriptError::Step {
                        step: i + 1,
                        action: crate::rules::action::action_name(command),
                        source,
                    })?;
            each(i + 1, command, &events);
        }
        Ok(game)
    }
}

/// A step's command name and its parameters as JSON: `rule-action` steps
/// carry them in `action` and `params`, shared commands as their fields.
fn step_name_and_params(mut table: toml::Table) -> (String, serde_json::Value) {
    let text = |v: Option<toml::Value>| match v {
        Some(toml::Value::String(s)) => s,
        _ => String::new(),
    };
    let command = text(table.remove("command"));
    let (name, params) = if command == "rule-action" {
        let name = text(table.remove("action"));
        (
            name,
            table
                .remove("params")
                .unwrap_or_else(|| toml::Value::Table(toml::Table::new())),
        )
    } else {
        (command, toml::Value::Table(table))
    };
    let params = serde_json::to_value(params).unwrap_or(serde_json::Value::Null);
    (name, params)
}
