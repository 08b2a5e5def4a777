//! `spotter app --bench SECONDS --bench-script FILE`: game commands issued
//! to the headless app over time, one every `--bench-step` seconds, round
//! and round, so that a long run's game log grows as an evening's would.
//! The app prints one machine-readable line per committed log record and a
//! status line per step, which `scripts/soak.sh` reads to check that a game
//! resumed after `kill -9` replays to the state it had.
//!
//! # Script
//! One command a line; blank lines and `#` comments are skipped:
//! `select NAME` (the actor), `target NAME`, `action N` (by its index in
//! the rule set's action list), `roll`, `end-phase`, `undo`.
//!
//! # Printed lines
//! - `soak start records=K digest=D`: the game as opened (resumed or new).
//! - `soak committed records=K digest=D`: after each record the log gained.
//! - `soak status t=S frames_shown=N frames_dropped=M source=...`.
//!
//! `records` counts the log's records after the start record (commands and
//! undos); `digest` is a 64-bit FNV-1a hash of the game state's JSON.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::rules::GameState;
use crate::ui::logic::SourceStatus;
use crate::ui::session::GameSession;
use crate::ui::{AppLogic, UiCommand};

/// One scripted command.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Select(String),
    Target(String),
    Action(usize),
    Roll,
    EndPhase,
    Undo,
}

/// Reads a script (see the module notes).
pub fn load(path: &Path) -> anyhow::Result<Vec<Step>> {
    let text = crate::spec::read_text_capped(path, crate::spec::MAX_DATA_FILE_BYTES)
        .with_context(|| format!("reading the bench script {}", path.display()))?;
    let mut steps = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        let step = match word {
            "select" if !rest.is_empty() => Step::Select(rest.to_string()),
            "target" if !rest.is_empty() => Step::Target(rest.to_string()),
            "action" => Step::Action(rest.parse().with_context(|| {
                format!(
                    "{} line {}: `action N` needs a number",
                    path.display(),
                    i + 1
                )
            })?),
            "roll" => Step::Roll,
            "end-phase" => Step::EndPhase,
            "undo" => Step::Undo,
            _ => bail!(
                "{} line {}: {line:?} is not a command (select NAME, target NAME, action N, \
                 roll, end-phase, undo)",
                path.display(),
                i + 1
            ),
        };
        steps.push(step);
    }
    if steps.is_empty() {
        bail!("the bench script {} holds no commands", path.display());
    }
    Ok(steps)
}

/// The log's records after the start record: every command played (undone
/// ones included) and every undo.
pub fn records(session: &GameSession) -> usize {
    let history = session.game.history();
    history.len() + history.iter().filter(|p| p.undone).count()
}

/// A 64-bit FNV-1a hash of the state's JSON: the same state gives the same
/// digest in every run of the same build.
pub fn digest(state: &GameState) -> u64 {
    let json = serde_json::to_string(state).unwrap_or_default();
    json.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Issues the script's commands on time and prints what was committed.
pub struct Driver {
    steps: Vec<Step>,
    next: usize,
    period: Duration,
    started: Instant,
    next_at: Instant,
    printed: Option<usize>,
}

impl Driver {
    pub fn new(steps: Vec<Step>, period: Duration) -> Self {
        let now = Instant::now();
        Self {
            steps,
            next: 0,
            period,
            started: now,
            next_at: now + period,
            printed: None,
        }
    }

    /// Called after every UI frame.
    pub fn tick(&mut self, logic: &mut AppLogic, now: Instant) {
        self.print_commits(logic);
        if now < self.next_at {
            return;
        }
        self.next_at = now + self.period;
        let step = self.steps[self.next % self.steps.len()].clone();
        self.next += 1;
        issue(logic, &step);
        self.print_commits(logic);
        let source = match &logic.status {
            SourceStatus::Opening => "opening".to_string(),
            SourceStatus::Live { source } => format!("live {source}"),
            SourceStatus::Lost { source, .. } => format!("lost {source}"),
        };
        println!(
            "soak status t={:.0} frames_shown={} frames_dropped={} source={source}",
            (now - self.started).as_secs_f64(),
            logic.frames_shown,
            logic.frames_dropped
        );
    }

    fn print_commits(&mut self, logic: &AppLogic) {
        let Some(s) = &logic.session else { return };
        let n = records(s);
        if self.printed == Some(n) {
            return;
        }
        let what = if self.printed.is_none() {
            "start"
        } else {
            "committed"
        };
        println!("soak {what} records={n} digest={:016x}", digest(s.state()));
        self.printed = Some(n);
    }
}

fn issue(logic: &mut AppLogic, step: &Step) {
    let figure = |logic: &AppLogic, name: &str| {
        logic
            .session
            .as_ref()
            .and_then(|s| s.state().figure_named(name).map(|f| f.id))
    };
    match step {
        Step::Select(name) | Step::Target(name) => {
            let id = figure(logic, name);
            let chosen = match (id, logic.session.as_mut()) {
                (Some(id), Some(s)) if matches!(step, Step::Select(_)) => {
                    s.actor = Some(id);
                    s.target = None;
                    true
                }
                (Some(id), Some(s)) => {
                    s.target = Some(id);
                    true
                }
                _ => false,
            };
            if !chosen {
                logic.notice(format!("bench script: no figure named {name:?}"));
            }
        }
        Step::Action(n) => logic.apply(UiCommand::SetAction(*n)),
        Step::Roll => logic.apply(UiCommand::Roll),
        Step::EndPhase => logic.apply(UiCommand::EndPhase),
        Step::Undo => logic.apply(UiCommand::Undo),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_reads_its_commands_and_names_a_bad_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.txt");
        std::fs::write(
            &path,
            "# c\nselect Pte Abbott\n\naction 1\nroll\nend-phase\nundo\n",
        )
        .unwrap();
        assert_eq!(
            load(&path).unwrap(),
            vec![
                Step::Select("Pte Abbott".into()),
                Step::Action(1),
                Step::Roll,
                Step::EndPhase,
                Step::Undo
            ]
        );
        std::fs::write(&path, "roll\nfly away\n").unwrap();
        let err = format!("{:#}", load(&path).unwrap_err());
        assert!(err.contains("line 2"), "{err}");
    }

    #[test]
    fn a_script_larger_than_a_data_file_is_refused_naming_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("huge.txt");
        let line = "roll\n";
        let n = crate::spec::MAX_DATA_FILE_BYTES as usize / line.len() + 1;
        std::fs::write(&path, line.repeat(n)).unwrap();
        let err = format!("{:#}", load(&path).unwrap_err());
        assert!(err.contains("huge.txt"), "{err}");
        assert!(
            err.contains(&crate::spec::MAX_DATA_FILE_BYTES.to_string()),
            "{err}"
        );
    }
}
