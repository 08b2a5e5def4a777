//! Issue 18, "data lost": a game log can always be recovered. Each damaged
//! log resumes from its last consistent command, says which line and why,
//! and keeps the damaged file beside the repaired one; nothing that the log
//! cannot keep reaches it; two programs never write one game.

use std::path::{Path, PathBuf};

use nalgebra::Point2;
use spotter::game::log::{self, LogError};
use spotter::game::{Command, Game, GameError, GameState, Pace};
use spotter::rules::dice::seeded;
use spotter::rules::stand_to::action::Action as St;

use crate::common::*;

fn duel() -> GameState {
    state_from(&format!(
        "{}{}",
        fig("Tommy", "British", "revolver", 3, 10.0, 10.0, ""),
        fig("Warrior", "Natives", "revolver", 3, 18.0, 10.0, "")
    ))
}

/// A game of `commands` end-phases logged at `dir/game.jsonl`; returns the
/// path, the state after each command and the log text.
fn logged_game(dir: &Path, commands: usize) -> (PathBuf, Vec<GameState>, String) {
    let path = dir.join("game.jsonl");
    let mut dice = seeded(7);
    let mut g = Game::new(duel(), rules_arc(), Some(&path)).unwrap();
    let mut states = vec![g.state().clone()];
    for _ in 0..commands {
        g.execute(Command::EndPhase, &mut dice).unwrap();
        states.push(g.state().clone());
    }
    drop(g);
    let text = std::fs::read_to_string(&path).unwrap();
    (path, states, text)
}

/// 1-based line of the command record of command `n`.
fn command_line(text: &str, n: u64) -> usize {
    let tag = format!("\"kind\":\"command\",\"n\":{n},");
    text.lines().position(|l| l.contains(&tag)).unwrap() + 1
}

/// Byte offset where line `n` (1-based) starts.
fn line_start(text: &str, n: usize) -> usize {
    text.split_inclusive('\n').take(n - 1).map(str::len).sum()
}

fn damaged_copies(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".damaged-"))
        .collect();
    v.sort();
    v
}

#[test]
fn nan_facing_never_reaches_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let (path, states, _) = logged_game(dir.path(), 2);
    let mut g = Game::resume(&path, &registry()).unwrap();
    let tommy = id(g.state(), "Tommy");
    let before = std::fs::read_to_string(&path).unwrap();
    let err = g
        .execute(
            Command::StandTo(St::Move {
                figure: tommy,
                path_in: vec![Point2::new(10.0, 10.0), Point2::new(11.0, 10.0)],
                facing_deg: f64::NAN,
                pace: Pace::Walk,
                mount_level: None,
            }),
            &mut seeded(1),
        )
        .unwrap_err();
    assert!(err.to_string().contains("not finite"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    assert_eq!(g.state(), states.last().unwrap());
    drop(g);
    assert_eq!(
        Game::resume(&path, &registry()).unwrap().state(),
        states.last().unwrap()
    );
}

#[test]
fn a_missing_final_newline_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (path, states, text) = logged_game(dir.path(), 3);
    std::fs::write(&path, text.trim_end_matches('\n')).unwrap();
    let mut g = Game::resume(&path, &registry()).unwrap();
    assert_eq!(g.history().len(), 3);
    assert_eq!(g.state(), &states[3]);
    assert!(g.repair().is_none());
    // Play on: the next record starts on its own line.
    g.execute(Command::EndPhase, &mut seeded(2)).unwrap();
    let after = g.state().clone();
    drop(g);
    let g = Game::resume(&path, &registry()).unwrap();
    assert_eq!(g.history().len(), 4);
    assert_eq!(g.state(), &after);
}

#[test]
fn a_torn_multibyte_last_line_is_repaired_like_ascii() {
    let dir = tempfile::tempdir().unwrap();
    let (path, states, text) = logged_game(dir.path(), 2);
    let torn_line = text.lines().count() + 1;
    let mut bytes = text.into_bytes();
    // A note with a two-byte character, cut in the middle of it.
    bytes.extend_from_slice(
        "{\"kind\":\"command\",\"n\":3,\"command\":{\"command\":\"rule-action\",\"action\":\"é"
            .as_bytes(),
    );
    bytes.pop();
    std::fs::write(&path, &bytes).unwrap();
    let g = Game::resume(&path, &registry()).unwrap();
    assert_eq!(g.state(), &states[2]);
    let repair = g.repair().expect("a repair is reported");
    assert_eq!(repair.line, torn_line);
    assert_eq!(std::fs::read(&repair.damaged_copy).unwrap(), bytes);
}

#[test]
fn a_garbage_or_blank_line_mid_log_resumes_from_before_it() {
    for junk in ["garbage here\n", "\n"] {
        let dir = tempfile::tempdir().unwrap();
        let (path, states, text) = logged_game(dir.path(), 4);
        // Damage where the third command begins.
        let line = command_line(&text, 3);
        let at = line_start(&text, line);
        let damaged = format!("{}{junk}{}", &text[..at], &text[at..]);
        std::fs::write(&path, &damaged).unwrap();
        let g = Game::resume(&path, &registry()).unwrap();
        assert_eq!(g.history().len(), 2, "{junk:?}");
        assert_eq!(g.state(), &states[2]);
        let repair = g.repair().expect("repaired");
        assert_eq!(repair.line, line);
        let message = repair.to_string();
        assert!(message.contains(&format!("line {line}")), "{message}");
        // The damaged file is kept whole beside the repaired log.
        assert_eq!(
            damaged_copies(dir.path()),
            vec![repair.damaged_copy.clone()]
        );
        assert_eq!(
            std::fs::read_to_string(&repair.damaged_copy).unwrap(),
            damaged
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), &text[..at]);
    }
}

#[test]
fn a_log_without_a_start_record_is_refused_saying_why_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _, text) = logged_game(dir.path(), 2);
    let rest = &text[line_start(&text, 2)..];
    std::fs::write(&path, rest).unwrap();
    let err = Game::resume(&path, &registry()).unwrap_err().to_string();
    assert!(err.contains(":1:") && err.contains("start record"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), rest);
}

#[test]
fn logs_state_their_schema_and_an_unknown_one_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (path, states, text) = logged_game(dir.path(), 1);
    let first = text.lines().next().unwrap();
    assert!(first.contains(&format!("\"schema\":\"{}\"", log::LOG_SCHEMA)));
    let future = text.replacen(log::LOG_SCHEMA, "spotter.gamelog/9", 1);
    std::fs::write(&path, &future).unwrap();
    match Game::resume(&path, &registry()) {
        Err(GameError::Log(e @ LogError::UnknownSchema { .. })) => {
            assert!(e.to_string().contains("spotter.gamelog/9"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    // An old log without a schema is the first schema.
    let old = text.replacen(&format!("\"schema\":\"{}\",", log::LOG_SCHEMA), "", 1);
    assert!(!old.contains("schema"));
    std::fs::write(&path, &old).unwrap();
    assert_eq!(
        Game::resume(&path, &registry()).unwrap().state(),
        &states[1]
    );
}

#[test]
fn inconsistent_records_are_repaired_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let (path, states, text) = logged_game(dir.path(), 3);
    let lines: Vec<&str> = text.lines().collect();
    let first_new = lines.len() + 1;
    let command_1 = lines[command_line(&text, 1) - 1..command_line(&text, 2) - 1].join("\n");
    let event = r#"{"kind":"event","n":4,"event":{"event":"stand-to","what":"shot-fired","figure":99,"target":0,"mode":"snap"}}"#;
    let cases: Vec<(&str, usize, String)> = vec![
        ("second start", first_new, format!("{text}{}\n", lines[0])),
        (
            "duplicated command",
            first_new,
            format!("{text}{command_1}\n"),
        ),
        (
            "undo of unknown",
            first_new,
            format!("{}{}\n", text, r#"{"kind":"undo","n":42}"#),
        ),
        (
            "unknown figure",
            first_new + 1,
            format!(
                "{}{}\n{}\n{}\n",
                text,
                r#"{"kind":"command","n":4,"command":{"command":"end-phase"}}"#,
                event,
                r#"{"kind":"end","n":4}"#
            ),
        ),
    ];
    for (what, line, damaged) in cases {
        std::fs::write(&path, &damaged).unwrap();
        let g = Game::resume(&path, &registry()).unwrap();
        assert_eq!(g.state(), &states[3], "{what}");
        let repair = g.repair().unwrap_or_else(|| panic!("{what}: no repair"));
        assert_eq!(repair.line, line, "{what}: {repair}");
        assert!(
            repair.to_string().contains(&format!("line {line}")),
            "{what}: the message names the line: {repair}"
        );
        drop(g);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{what}");
    }
}

#[test]
fn a_second_program_is_refused_and_a_stale_lock_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _, _) = logged_game(dir.path(), 1);
    let lock = log::lock_path(&path);
    // A live process that is not this one holds the game.
    let mut other = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    std::fs::write(&lock, format!("{}\n", other.id())).unwrap();
    let err = Game::resume(&path, &registry()).unwrap_err().to_string();
    assert!(err.contains(&other.id().to_string()), "{err}");
    other.kill().unwrap();
    other.wait().unwrap();
    // Its owner is gone: the lock is stale and taken over.
    let g = Game::resume(&path, &registry()).unwrap();
    assert_eq!(
        std::fs::read_to_string(&lock).unwrap().trim(),
        std::process::id().to_string()
    );
    drop(g);
    assert!(!lock.exists(), "the lock goes with the game");
}

/// The child processes of the test below: the game's log and the start
/// instant (ms since the epoch), as `path|ms`.
const RACE_ENV: &str = "SPOTTER_LOCK_RACE";

/// Run by the test below in child processes: at the shared start instant it
/// tries to take the game; if it gets it, it holds it for a while and
/// appends when it held it (ns since the epoch) to `<log>.held`.
#[test]
#[ignore = "runs only as a child of many_programs_starting_at_once_never_share_a_game"]
fn child_takes_the_game_at_the_start() {
    use std::io::Write as _;
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    let Ok(spec) = std::env::var(RACE_ENV) else {
        return;
    };
    let (path, ms) = spec.split_once('|').unwrap();
    let start = UNIX_EPOCH + Duration::from_millis(ms.parse().unwrap());
    while SystemTime::now() < start {
        std::hint::spin_loop();
    }
    let now = || {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    };
    if let Ok(g) = Game::resume(Path::new(path), &registry()) {
        let from = now();
        std::thread::sleep(Duration::from_millis(1500));
        let to = now();
        drop(g);
        let mut held = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(format!("{path}.held"))
            .unwrap();
        held.write_all(format!("{from} {to}\n").as_bytes()).unwrap();
    }
}

/// "Two programs never write one game": eight programs that open one game
/// at the same instant, its lock left stale by a program that died, never
/// hold it at the same time (the lock appears whole, and a stale lock is
/// taken over by one of them only).
#[test]
fn many_programs_starting_at_once_never_share_a_game() {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    let dir = tempfile::tempdir().unwrap();
    let (path, _, _) = logged_game(dir.path(), 1);
    let held_path = PathBuf::from(format!("{}.held", path.display()));
    for round in 0..4 {
        let mut dead = std::process::Command::new("true").spawn().unwrap();
        dead.wait().unwrap();
        std::fs::write(log::lock_path(&path), format!("{}\n", dead.id())).unwrap();
        let _ = std::fs::remove_file(&held_path);
        let start = SystemTime::now().duration_since(UNIX_EPOCH).unwrap() + Duration::from_secs(3);
        let children: Vec<_> = (0..8)
            .map(|_| {
                std::process::Command::new(std::env::current_exe().unwrap())
                    .args([
                        "robust_log::child_takes_the_game_at_the_start",
                        "--exact",
                        "--ignored",
                        "--nocapture",
                    ])
                    .env(
                        RACE_ENV,
                        format!("{}|{}", path.display(), start.as_millis()),
                    )
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut c in children {
            assert!(c.wait().unwrap().success(), "round {round}: a child failed");
        }
        let text = std::fs::read_to_string(&held_path).unwrap_or_default();
        let mut held: Vec<(u128, u128)> = text
            .lines()
            .map(|l| {
                let (a, b) = l.split_once(' ').unwrap();
                (a.parse().unwrap(), b.parse().unwrap())
            })
            .collect();
        held.sort();
        assert!(!held.is_empty(), "round {round}: nobody got the game");
        for w in held.windows(2) {
            assert!(
                w[1].0 >= w[0].1,
                "round {round}: {} programs held the game at once: {held:?}",
                held.len()
            );
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_log_that_cannot_be_written_keeps_the_game_and_refuses_rolls_until_safe() {
    let dir = tempfile::tempdir().unwrap();
    let (path, states, _) = logged_game(dir.path(), 2);
    let mut g = Game::resume(&path, &registry()).unwrap();
    // The disk fills up: every write to the log fails (ENOSPC).
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    g.log_writer_for_test().unwrap().replace_file_for_test(full);
    let mut dice = seeded(3);
    let err = g.execute(Command::EndPhase, &mut dice).unwrap_err();
    assert!(matches!(err, GameError::LogUnsafe(_)), "{err}");
    assert!(err.to_string().contains("kept in memory"), "{err}");
    assert!(g.log_fault().is_some());
    // The game is kept as it was; the failed command did not happen.
    assert_eq!(g.state(), &states[2]);
    // While the log cannot be made safe (here its rewrite is blocked),
    // every command is refused.
    let writing = PathBuf::from(format!("{}.writing", path.display()));
    std::fs::create_dir(&writing).unwrap();
    let err = g.execute(Command::EndPhase, &mut dice).unwrap_err();
    assert!(matches!(err, GameError::LogUnsafe(_)), "{err}");
    assert!(matches!(g.undo(), Err(GameError::LogUnsafe(_))));
    assert_eq!(g.state(), &states[2]);
    // Safe again: the log is rewritten from memory and play goes on.
    std::fs::remove_dir(&writing).unwrap();
    g.execute(Command::EndPhase, &mut dice).unwrap();
    assert!(g.log_fault().is_none());
    let after = g.state().clone();
    let history = g.history().to_vec();
    drop(g);
    let back = Game::resume(&path, &registry()).unwrap();
    assert_eq!(back.state(), &after);
    assert_eq!(back.history(), history.as_slice());
}

#[test]
fn a_log_too_large_to_be_a_game_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.jsonl");
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(spotter::spec::MAX_LOG_BYTES + 1).unwrap();
    match Game::resume(&path, &registry()) {
        Err(GameError::Log(e @ LogError::TooLarge { .. })) => {
            assert!(e.to_string().contains("at most"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}
