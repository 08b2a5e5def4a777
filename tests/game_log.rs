//! The game log: every event is on disk as it happens; a game resumes from
//! its log, even after the process is killed in the middle of a game; undo
//! and replay work from the log.

use std::io::Write;
use std::path::Path;
use std::process::Command as Process;
use std::time::{Duration, Instant};

use crate::common::*;
use spotter::game::{Command, Game, GameState};
use spotter::rules::dice::{Dice, seeded};
use spotter::rules::stand_to::action::{Action as St, AimUse, FireMode};

const SEED: u64 = 4242;
const CHILD_ENV: &str = "SPOTTER_TEST_CHILD_LOG";

fn duel() -> GameState {
    state_from(&format!(
        "{}{}{}",
        fig("Tommy", "British", "revolver", 3, 10.0, 10.0, ""),
        fig("Atkins", "British", "lever-action-rifle", 3, 10.0, 14.0, ""),
        fig("Warrior", "Natives", "revolver", 3, 18.0, 10.0, "")
    ))
}

/// One deterministic step of play: snapshots in the fire phase while both
/// can shoot, otherwise end the phase; every 11th step takes the last
/// command back.
fn step(game: &mut Game, i: u64, dice: &mut dyn Dice) {
    if i % 11 == 10 {
        let _ = game.undo();
        return;
    }
    let s = game.state().clone();
    let phase = rules().data.turn.phases[s.phase].clone();
    if phase == "fire" {
        let shooters: Vec<_> = s
            .figures
            .iter()
            .filter(|f| f.side == s.active_side && f.active())
            .collect();
        for shooter in shooters {
            if let Some(target) = s
                .figures
                .iter()
                .find(|t| t.side != shooter.side && t.alive())
            {
                let cmd = Command::StandTo(St::Fire {
                    shooter: shooter.id,
                    target: target.id,
                    mode: FireMode::Snap,
                    rapid: false,
                    aim_use: AimUse::Best,
                    at_mount: false,
                });
                if game.check(&cmd).is_ok() {
                    game.execute(cmd, dice).expect("checked command runs");
                    return;
                }
            }
        }
    }
    game.execute(Command::EndPhase, dice).expect("end phase");
}

#[test]
fn resume_gives_the_same_state_undo_and_replay() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.jsonl");
    let mut dice = seeded(SEED);
    let mut g = Game::new(duel(), rules_arc(), Some(&path)).unwrap();
    for i in 0..60 {
        step(&mut g, i, &mut dice);
    }
    let state = g.state().clone();
    let history = g.history().to_vec();
    drop(g);
    let resumed = Game::resume(&path, &registry()).unwrap();
    assert_eq!(resumed.state(), &state);
    assert_eq!(resumed.history(), history.as_slice());
    assert_eq!(resumed.replay().last(), Some(&state));
    // Undo, resume again: the undo is in the log too.
    let mut resumed = resumed;
    let before_last = resumed.replay().iter().rev().nth(1).cloned().unwrap();
    resumed.undo().unwrap();
    assert_eq!(resumed.state(), &before_last);
    drop(resumed);
    assert_eq!(
        Game::resume(&path, &registry()).unwrap().state(),
        &before_last
    );
}

#[test]
fn a_torn_last_line_and_an_unfinished_command_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.jsonl");
    let mut dice = seeded(SEED);
    let mut g = Game::new(duel(), rules_arc(), Some(&path)).unwrap();
    for i in 0..20 {
        step(&mut g, i, &mut dice);
    }
    let state = g.state().clone();
    drop(g);
    // A crash in the middle of the next command: its command record and half an event.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    writeln!(
        f,
        "{{\"kind\":\"command\",\"n\":999,\"command\":{{\"command\":\"end-phase\"}}}}"
    )
    .unwrap();
    write!(
        f,
        "{{\"kind\":\"event\",\"n\":999,\"event\":{{\"event\":\"phase-ch"
    )
    .unwrap();
    drop(f);
    let mut resumed = Game::resume(&path, &registry()).unwrap();
    assert_eq!(resumed.state(), &state);
    // Play on: the log was cut back, so it still reads cleanly.
    resumed.execute(Command::EndPhase, &mut dice).unwrap();
    let after = resumed.state().clone();
    drop(resumed);
    assert_eq!(Game::resume(&path, &registry()).unwrap().state(), &after);
}

/// Run by the test below in a child process, which it kills.
#[test]
#[ignore = "runs only as the child of killing_the_process_mid_game_then_resuming_reproduces_the_state"]
fn child_plays_until_killed() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    let mut dice = seeded(SEED);
    let mut g = Game::new(duel(), rules_arc(), Some(Path::new(&path))).unwrap();
    for i in 0.. {
        step(&mut g, i, &mut dice);
    }
}

#[test]
fn killing_the_process_mid_game_then_resuming_reproduces_the_state() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.jsonl");
    let mut child = Process::new(std::env::current_exe().unwrap())
        .args([
            "game_log::child_plays_until_killed",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .env(CHILD_ENV, &path)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let lines = std::fs::read_to_string(&path)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 300 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the child wrote only {lines} lines"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the child stopped by itself"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let resumed = Game::resume(&path, &registry()).unwrap();
    let executed = resumed.history().len();
    let undone = resumed.history().iter().filter(|p| p.undone).count();
    assert!(executed > 20);
    // Play the same script in memory with the same dice up to the same point.
    let mut dice = seeded(SEED);
    let mut g = Game::new(duel(), rules_arc(), None).unwrap();
    let mut i = 0;
    while g.history().len() < executed {
        step(&mut g, i, &mut dice);
        i += 1;
    }
    while g.history().iter().filter(|p| p.undone).count() < undone && i % 11 == 10 {
        step(&mut g, i, &mut dice);
        i += 1;
    }
    assert_eq!(g.history(), resumed.history());
    assert_eq!(g.state(), resumed.state());
}

/// A log written before the typed actions (`"command": "rule-action"`, an
/// observation as the action `observe`) still resumes: each command comes
/// back as its rule set's typed command, and the state is the same.
#[test]
fn a_log_of_untyped_rule_actions_resumes_as_typed_commands() {
    use spotter::game::Observed;
    use spotter::rules::soldiers_in_time::action::{Action, RallyParams};
    let registry = registry();
    let scenario = spotter::game::Scenario::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/sit-skirmish.toml"),
        &registry,
    )
    .unwrap();
    let rules = registry.get("soldiers-in-time").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    let mut g = Game::new(scenario.state.clone(), rules, Some(&path)).unwrap();
    let mut dice = seeded(SEED);
    let first = g.state().figures[0].clone();
    let seen = Observed {
        figure: first.id,
        center_in_table: first.placement.center_in_table + nalgebra::Vector2::new(1.0, 0.0),
        facing_deg: 45.0,
        sigma_in: 0.1,
    };
    g.execute(Command::observe(&[seen]), &mut dice).unwrap();
    let rally = Command::SoldiersInTime(Action::Rally(RallyParams {
        figures: Vec::new(),
    }));
    g.execute(rally.clone(), &mut dice).unwrap();
    let state = g.state().clone();
    drop(g);
    // Write the commands back as the old log format had them.
    let text = std::fs::read_to_string(&path).unwrap();
    let old: Vec<String> = text
        .lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(c) = v.get_mut("command").filter(|c| c.is_object()) {
                let kind = c["command"].as_str().unwrap().to_owned();
                if kind == "observe" {
                    let figures = c["figures"].clone();
                    *c = serde_json::json!({"command": "rule-action", "action": "observe",
                        "params": {"figures": figures}});
                } else if kind == "soldiers-in-time" {
                    let (action, params) = (c["action"].clone(), c["params"].clone());
                    *c = serde_json::json!({"command": "rule-action", "action": action,
                        "params": params});
                }
            }
            v.to_string()
        })
        .collect();
    assert!(old.iter().filter(|l| l.contains("rule-action")).count() == 2);
    std::fs::write(&path, old.join("\n") + "\n").unwrap();
    let resumed = Game::resume(&path, &registry).unwrap();
    assert_eq!(resumed.state(), &state);
    let commands: Vec<&Command> = resumed.history().iter().map(|p| &p.command).collect();
    assert!(
        matches!(commands[0], Command::Observe { .. }),
        "{commands:?}"
    );
    assert_eq!(commands[1], &rally);
}

/// A Stand To! game logged by the Spotter of schema 3 (its commands,
/// events and figure fields were the game's shared ones then; fixture
/// `fixtures/logs/st-zareba.v3.jsonl`, see the fixtures' README) resumes
/// to the state today's Spotter reaches playing the same script, with the
/// same commands in its history.
#[test]
fn a_stand_to_log_of_schema_3_resumes_where_the_script_ends() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let registry = registry();
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("st-zareba.v3.jsonl");
    std::fs::copy(root.join("fixtures/logs/st-zareba.v3.jsonl"), &old).unwrap();
    let text = std::fs::read_to_string(&old).unwrap();
    assert!(text.starts_with(r#"{"kind":"start","schema":"spotter.gamelog/3""#));
    assert!(
        text.contains(r#""command":{"command":"fire""#),
        "an old-form command"
    );
    let resumed = Game::resume(&old, &registry).expect("the old log resumes");
    let script = spotter::game::script::Script::load(
        &root.join("scenarios/scripts/st-zareba.toml"),
        &registry,
    )
    .unwrap();
    let played = script.play(&registry, None, |_, _, _| {}).unwrap();
    assert_eq!(resumed.state(), played.state());
    let commands = |g: &Game| {
        g.history()
            .iter()
            .map(|p| p.command.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(commands(&resumed), commands(&played));
    assert!(
        commands(&resumed)
            .iter()
            .any(|c| matches!(c, Command::StandTo(St::Fire { .. }))),
        "the old fire commands are Stand To!'s own"
    );
}
