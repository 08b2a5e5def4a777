//! Helpers shared by the Stand To! integration tests (included with `mod`).

#![allow(dead_code, reason = "each test file uses a different part")]

pub mod little_colonial;
pub mod soldiers_in_time;
pub mod volley_fire;

use std::sync::Arc;

use spotter::game::{FigureId, GameState, Scenario};
use spotter::rules::stand_to::StandToRules;
use spotter::rules::{Registry, RuleSet};
use spotter::spec::SourceFile;

pub fn registry() -> Registry {
    Registry::builtin().expect("built-in rule sets load")
}

pub fn rules() -> StandToRules {
    StandToRules::builtin().expect("built-in Stand To! data")
}

pub fn rules_arc() -> Arc<dyn RuleSet> {
    registry().get("stand-to").expect("stand-to registered")
}

/// A scenario from TOML text (sides British and Natives, 48 x 48 table).
pub fn state_from(figures_and_terrain: &str) -> GameState {
    state_with_header("", figures_and_terrain)
}

pub fn state_with_header(header: &str, body: &str) -> GameState {
    let text = format!(
        r#"name = "test"
rule_set = "stand-to"
{header}
[table]
width_in = 120.0
depth_in = 120.0

[[side]]
name = "Natives"
kind = "native"

[[side]]
name = "British"
kind = "european"

{body}
"#
    );
    Scenario::from_source(&SourceFile::from_text("test.toml", text), &registry())
        .unwrap_or_else(|e| panic!("{e}"))
        .state
}

/// A figure block for a test scenario.
pub fn fig(name: &str, side: &str, weapon: &str, exp: u8, x: f64, y: f64, extra: &str) -> String {
    let melee = if side == "British" {
        "sword-sabre"
    } else {
        "spear-bayonet"
    };
    let rank = if side == "British" {
        "private"
    } else {
        "warrior"
    };
    let mut block = format!(
        "[[figure]]\nname = \"{name}\"\nside = \"{side}\"\nweapon = \"{weapon}\"\nmelee_weapon = \"{melee}\"\nexperience = {exp}\nx_in = {x}\ny_in = {y}\n"
    );
    if !extra.contains("facing_deg") {
        block.push_str("facing_deg = 0.0\n");
    }
    if !extra.contains("base") {
        block.push_str("base = \"foot\"\n");
    }
    if !extra.contains("rank") {
        block.push_str(&format!("rank = \"{rank}\"\n"));
    }
    block.push_str(extra);
    block.push('\n');
    block
}

pub fn id(state: &GameState, name: &str) -> FigureId {
    state.figure_named(name).expect("figure").id
}

/// The index of the named phase of the turn.
pub fn phase_index(phase: &str) -> usize {
    rules()
        .data
        .turn
        .phases
        .iter()
        .position(|p| p == phase)
        .expect("phase")
}

/// Puts the figure's side in the named phase.
pub fn at_phase(state: &mut GameState, phase: &str, side_of: &str) {
    state.phase = phase_index(phase);
    state.active_side = state.figure_named(side_of).expect("figure").side;
}

/// Tommy, a British private with a breech-loading rifle.
pub fn tommy(exp: u8, x: f64, y: f64, extra: &str) -> String {
    fig("Tommy", "British", "breech-loading-rifle", exp, x, y, extra)
}

/// Sgt, a British NCO and leader with a breech-loading rifle.
pub fn sgt(x: f64, y: f64) -> String {
    fig(
        "Sgt",
        "British",
        "breech-loading-rifle",
        3,
        x,
        y,
        "rank = \"nco\"\nleader = true",
    )
}

/// Loaded Tommy at (10, 10), a native with a thrown knife 10 in away and a
/// charging one with a thrown spear 15 in away: the target priority.
pub fn priority_state_from() -> GameState {
    state_from(&format!(
        "{}{}{}",
        tommy(3, 10.0, 10.0, "loaded = true"),
        fig("Near", "Natives", "thrown-knife", 3, 20.0, 10.0, ""),
        fig(
            "Charger",
            "Natives",
            "thrown-spear",
            3,
            10.0,
            25.0,
            "pace = \"charge\""
        )
    ))
}

/// Bugler, a British musician with a revolver at (11, 11).
pub fn bugler() -> String {
    fig(
        "Bugler",
        "British",
        "revolver",
        3,
        11.0,
        11.0,
        "rank = \"musician\"",
    )
}

/// The first attacker's and defender's totals of the melee among the
/// events.
pub fn melee_totals(ev: &[spotter::game::Event]) -> (i32, i32) {
    ev.iter()
        .find_map(|e| match e {
            spotter::game::Event::StandTo(
                spotter::rules::stand_to::event::Event::MeleeResolved {
                    attacker_totals,
                    defender_totals,
                    ..
                },
            ) => Some((attacker_totals[0], defender_totals[0])),
            _ => None,
        })
        .expect("a melee result")
}

/// A British scout at (10, 10) and a concealed native at (`hidden_x`, 30),
/// in the observe phase.
pub fn scout_and_hidden(hidden_x: f64) -> GameState {
    let mut s = state_from(&format!(
        "{}{}",
        fig(
            "Scout",
            "British",
            "breech-loading-carbine",
            3,
            10.0,
            10.0,
            "rank = \"scout\""
        ),
        fig(
            "Hidden",
            "Natives",
            "thrown-spear",
            3,
            hidden_x,
            30.0,
            "concealed = true"
        )
    ));
    at_phase(&mut s, "observe", "Scout");
    s
}

/// The kind of the rules' refusal (panics on success or any other error:
/// a mistyped command is not a refusal).
pub fn refusal_kind<T: std::fmt::Debug>(
    r: Result<T, spotter::rules::RuleError>,
) -> spotter::core::RefusalKind {
    match r {
        Err(spotter::rules::RuleError::Refused(refusal)) => refusal.kind,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// [`refusal_kind`] of a game's check.
pub fn game_refusal_kind<T: std::fmt::Debug>(
    r: Result<T, spotter::game::GameError>,
) -> spotter::core::RefusalKind {
    match r {
        Err(spotter::game::GameError::Rule(e)) => refusal_kind::<T>(Err(e)),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// The photos of a rendered folder (`frame-NN.jpg`) that have a truth file
/// beside them, in order.
pub fn frames_in(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "jpg"))
                .filter(|p| p.with_extension("truth.json").exists())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}
