//! Issue 18, fuzzed parsers: every file Spotter reads (scenarios, rosters,
//! rule data, layouts, camera files, detector, tracker and hand parameters,
//! game logs, scripts) is fed arbitrary bytes and structure-aware mutations
//! of the shipped files. Each loads, or gives an error that names the line
//! or the field; none panics. Case counts are kept small so that `make
//! test` stays fast; `SPOTTER_FUZZ_CASES=5000` runs longer.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use spotter::calibration::{Lens, TableLayout};
use spotter::game::roster::Roster;
use spotter::game::script::Script;
use spotter::game::{Game, Scenario, ScenarioError};
use spotter::rules::little_colonial::LittleColonial;
use spotter::rules::soldiers_in_time::SoldiersInTime;
use spotter::rules::stand_to::StandTo;
use spotter::rules::volley_fire::VolleyFire;
use spotter::spec::{SourceFile, SpecError};
use spotter::vision::hands::HandParams;
use spotter::vision::params::DetectorParams;
use spotter::vision::track::TrackerParams;

use crate::common::registry;

/// Cases per parser and strategy in `make test`.
const CASES: u32 = 48;
/// Environment variable that sets another case count (longer runs).
const CASES_ENV: &str = "SPOTTER_FUZZ_CASES";

fn cases() -> u32 {
    std::env::var(CASES_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES)
}

/// Values that broke parsers before: non-finite, huge, negative, wrong type.
const NASTY: [&str; 16] = [
    "nan",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "-1",
    "0",
    "4294967296",
    "-9223372036854775808",
    "9223372036854775807",
    "\"\"",
    "\"x\"",
    "[]",
    "[1e10, 1e10]",
    "true",
    "{}",
];

/// One structure-aware change to a data file.
#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the value on line `line` (modulo the line count).
    Value {
        line: usize,
        nasty: usize,
    },
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    /// Cut the file at this share of its length.
    Truncate(f64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 0..NASTY.len()).prop_map(|(line, nasty)| Mutation::Value { line, nasty }),
        1 => any::<usize>().prop_map(Mutation::DeleteLine),
        1 => any::<usize>().prop_map(Mutation::DuplicateLine),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        1 => (0.0..1.0).prop_map(Mutation::Truncate),
    ]
}

fn apply(text: &str, mutations: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    for m in mutations {
        if lines.is_empty() {
            break;
        }
        let n = lines.len();
        match m {
            Mutation::Value { line, nasty } => {
                // Only lines that set a value: others stay.
                let i = (0..n)
                    .map(|k| (line + k) % n)
                    .find(|&i| lines[i].contains(" = "));
                if let Some(i) = i {
                    let key = lines[i].split(" = ").next().unwrap_or_default().to_owned();
                    lines[i] = format!("{key} = {}", NASTY[*nasty]);
                }
            }
            Mutation::DeleteLine(i) => {
                lines.remove(i % n);
            }
            Mutation::DuplicateLine(i) => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Mutation::SwapLines(a, b) => lines.swap(a % n, b % n),
            Mutation::Truncate(share) => {
                let mut all = lines.join("\n");
                let mut cut = (all.len() as f64 * share) as usize;
                while !all.is_char_boundary(cut) {
                    cut -= 1;
                }
                all.truncate(cut);
                lines = all.lines().map(str::to_owned).collect();
            }
        }
    }
    lines.join("\n") + "\n"
}

/// An error names where: each problem has a line or a field.
fn names_where(err: &SpecError) -> Result<(), TestCaseError> {
    prop_assert!(!err.problems.is_empty(), "{err}");
    for p in &err.problems {
        prop_assert!(
            p.line.is_some() || !p.field.is_empty(),
            "a problem names neither line nor field: {err}"
        );
    }
    Ok(())
}

type Parser = fn(&SourceFile) -> Result<(), SpecError>;

fn scenario(src: &SourceFile) -> Result<(), SpecError> {
    thread_local! {
        static REGISTRY: spotter::rules::Registry = registry();
    }
    REGISTRY.with(|r| match Scenario::from_source(src, r) {
        Ok(_) => Ok(()),
        Err(ScenarioError::Spec(e)) => Err(e),
    })
}

/// Every parser with the shipped file it reads.
fn parsers() -> Vec<(&'static str, String, Parser)> {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p}: {e}"));
    vec![
        (
            "scenarios/dragoon.toml",
            read("scenarios/dragoon.toml"),
            scenario as Parser,
        ),
        (
            "scenarios/vf-sudan-patrol.toml",
            read("scenarios/vf-sudan-patrol.toml"),
            scenario,
        ),
        (
            "scenarios/lcr-baler.toml",
            read("scenarios/lcr-baler.toml"),
            scenario,
        ),
        (
            "scenarios/sit-skirmish.toml",
            read("scenarios/sit-skirmish.toml"),
            scenario,
        ),
        (
            "scenarios/rosters/british_section.toml",
            read("scenarios/rosters/british_section.toml"),
            |s| Roster::from_source(s).map(drop),
        ),
        (
            "scenarios/rules/stand-to.toml",
            read("scenarios/rules/stand-to.toml"),
            |s| StandTo::from_source(s).map(drop),
        ),
        (
            "scenarios/rules/volley-fire.toml",
            read("scenarios/rules/volley-fire.toml"),
            |s| VolleyFire::from_source(s).map(drop),
        ),
        (
            "scenarios/rules/little-colonial.toml",
            read("scenarios/rules/little-colonial.toml"),
            |s| LittleColonial::from_source(s).map(drop),
        ),
        (
            "scenarios/rules/soldiers-in-time.toml",
            read("scenarios/rules/soldiers-in-time.toml"),
            |s| SoldiersInTime::from_source(s).map(drop),
        ),
        (
            "calibration/table.toml",
            read("calibration/table.toml"),
            |s| TableLayout::from_source(s).map(drop),
        ),
        (
            "fixtures/detect/cam01.camera.toml",
            read("fixtures/detect/cam01.camera.toml"),
            |s| Lens::from_source(s).map(drop),
        ),
        (
            "calibration/vision.toml",
            read("calibration/vision.toml"),
            |s| DetectorParams::from_source(s).map(drop),
        ),
        (
            "tracker parameters",
            toml::to_string(&TrackerParams::default()).unwrap(),
            |s| TrackerParams::from_source(s).map(drop),
        ),
        (
            "hand parameters",
            toml::to_string(&HandParams::default()).unwrap(),
            |s| HandParams::from_source(s).map(drop),
        ),
    ]
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn every_data_file_survives_mutations_of_the_shipped_one() {
    for (name, text, parse) in parsers() {
        // The shipped file itself loads.
        parse(&SourceFile::from_text(name, text.clone())).unwrap_or_else(|e| panic!("{e}"));
        runner()
            .run(&prop::collection::vec(mutation(), 1..4), |ms| {
                let mutated = apply(&text, &ms);
                match parse(&SourceFile::from_text(name, mutated)) {
                    Ok(()) => Ok(()),
                    Err(e) => names_where(&e),
                }
            })
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn every_data_file_survives_arbitrary_bytes() {
    for (name, text, parse) in parsers() {
        let prefix_len = text.len();
        runner()
            .run(
                &(0..prefix_len, prop::collection::vec(any::<u8>(), 0..256)),
                |(keep, bytes)| {
                    // Arbitrary bytes, alone and after a prefix of the file.
                    for raw in [
                        bytes.clone(),
                        [text.as_bytes()[..keep].to_vec(), bytes].concat(),
                    ] {
                        let s = String::from_utf8_lossy(&raw).into_owned();
                        if let Err(e) = parse(&SourceFile::from_text(name, s)) {
                            names_where(&e)?;
                        }
                    }
                    Ok(())
                },
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// A real game log: the Volley Fire! script played with a log.
fn shipped_log(dir: &Path) -> String {
    let reg = registry();
    let script = Script::load(Path::new("scenarios/scripts/vf-sudan-patrol.toml"), &reg).unwrap();
    let path = dir.join("shipped.jsonl");
    let game = script.play(&reg, Some(&path), |_, _, _| {}).unwrap();
    drop(game);
    std::fs::read_to_string(&path).unwrap()
}

/// A JSON-aware change to one log line.
fn mutate_log(text: &str, ms: &[Mutation], bytes: &[u8]) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    for m in ms {
        let n = lines.len();
        if n == 0 {
            break;
        }
        match m {
            Mutation::Value { line, nasty } => {
                // Replace one number in the line with a nasty token.
                let l = &mut lines[line % n];
                if let Some(pos) = l.find(|c: char| c.is_ascii_digit()) {
                    let end = l[pos..]
                        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                        .map_or(l.len(), |e| pos + e);
                    l.replace_range(pos..end, NASTY[*nasty]);
                }
            }
            Mutation::DeleteLine(i) => {
                lines.remove(i % n);
            }
            Mutation::DuplicateLine(i) => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Mutation::SwapLines(a, b) => lines.swap(a % n, b % n),
            Mutation::Truncate(share) => {
                let l = &mut lines[n - 1];
                let mut cut = (l.len() as f64 * share) as usize;
                while !l.is_char_boundary(cut) {
                    cut -= 1;
                }
                l.truncate(cut);
            }
        }
    }
    let mut out = (lines.join("\n") + "\n").into_bytes();
    out.extend_from_slice(bytes);
    out
}

#[test]
fn game_logs_resume_or_refuse_and_a_repair_is_stable() {
    let dir = tempfile::tempdir().unwrap();
    let text = shipped_log(dir.path());
    let reg = registry();
    let path = dir.path().join("game.jsonl");
    let mut runner = TestRunner::new(Config {
        cases: cases().div_ceil(2),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(
            &(
                prop::collection::vec(mutation(), 1..3),
                prop::collection::vec(any::<u8>(), 0..32),
            ),
            |(ms, bytes)| {
                for entry in std::fs::read_dir(dir.path()).unwrap() {
                    let p = entry.unwrap().path();
                    if p.file_name().is_some_and(|n| n != "shipped.jsonl") {
                        let _ = std::fs::remove_file(p);
                    }
                }
                std::fs::write(&path, mutate_log(&text, &ms, &bytes)).unwrap();
                if let Ok(g) = Game::resume(&path, &reg) {
                    let state = g.state().clone();
                    drop(g);
                    // What was repaired reads back cleanly, to the same state.
                    let again = Game::resume(&path, &reg).unwrap();
                    prop_assert!(again.repair().is_none(), "{:?}", again.repair());
                    prop_assert_eq!(again.state(), &state);
                }
                Ok(())
            },
        )
        .unwrap();
}

#[test]
fn scripts_load_or_refuse() {
    let reg = registry();
    let mut scripts: Vec<_> = std::fs::read_dir("scenarios/scripts")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 4, "{scripts:?}");
    for path in scripts {
        let text = std::fs::read_to_string(&path).unwrap();
        // Read as if at its own path: its scenario is found beside it.
        let at = |text: String| SourceFile::from_text(path.to_str().unwrap(), text);
        Script::from_source(&at(text.clone()), &reg)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        runner()
            .run(&prop::collection::vec(mutation(), 1..4), |ms| {
                // Loading checks every step's command; no panic either way.
                let _ = Script::from_source(&at(apply(&text, &ms)), &reg);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
