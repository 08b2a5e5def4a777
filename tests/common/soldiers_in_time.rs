//! Helpers shared by the Soldiers in Time integration tests: a scenario of
//! Red (side 0) and Black (side 1), figure tables, the phases, the decks,
//! typed actions, resolving with typed dice.

use std::sync::Arc;

use spotter::core::RefusalKind;
use spotter::game::{Command, Event, GameState, Scenario};
use spotter::rules::soldiers_in_time::SoldiersInTime;
use spotter::rules::soldiers_in_time::status::{self, FigureStatus};
use spotter::rules::{Registry, RuleSet};
use spotter::spec::SourceFile;

pub const PHASES: [&str; 8] = [
    "rally",
    "command",
    "movement-horses",
    "movement-men",
    "movement-vehicles",
    "shooting",
    "melee",
    "follow-through",
];

pub fn data() -> SoldiersInTime {
    SoldiersInTime::builtin().expect("built-in data")
}

/// The scenario text with the given `[[figure]]` tables (sides Red, side
/// 0, and Black, side 1; each status after its colour).
pub fn scenario_text(figures: &str, red_status: &str, black_status: &str) -> String {
    format!(
        r#"
name = "t"
rule_set = "soldiers-in-time"
[table]
width_in = 60.0
depth_in = 60.0
[[side]]
name = "Red"
kind = "european"
status = {{ colour = "red"{red_status} }}
[[side]]
name = "Black"
kind = "native"
status = {{ colour = "black"{black_status} }}
{figures}
"#
    )
}

/// The scenario as the loader reads it (set-up checks included).
pub fn load(figures: &str, red_status: &str, black_status: &str) -> Result<GameState, String> {
    let text = scenario_text(figures, red_status, black_status);
    let registry = Registry::builtin().expect("rule sets");
    Scenario::from_source(&SourceFile::from_text("t.toml", text), &registry)
        .map(|s| s.state)
        .map_err(|e| e.to_string())
}

/// A scenario with the given `[[figure]]` tables (sides Red, side 0, and
/// Black, side 1).
pub fn state(figures: &str, red_status: &str, black_status: &str) -> GameState {
    load(figures, red_status, black_status).unwrap_or_else(|e| panic!("scenario: {e}"))
}

/// A musketeer's `[[figure]]` table; `extra` adds lines.
pub fn fig(name: &str, side: &str, x: f64, y: f64, facing: f64, extra: &str) -> String {
    format!(
        r#"
[[figure]]
name = "{name}"
rank = "private"
side = "{side}"
weapon = "musket"
melee_weapon = "bayonet"
experience = 6
x_in = {x}
y_in = {y}
facing_deg = {facing}
base = "foot"
{extra}
"#
    )
}

pub fn rules() -> Arc<dyn RuleSet> {
    Registry::builtin()
        .expect("rule sets")
        .get("soldiers-in-time")
        .expect("soldiers in time")
}

pub fn at_phase(mut s: GameState, phase: &str, side: usize) -> GameState {
    s.phase = PHASES.iter().position(|p| *p == phase).expect("phase");
    s.active_side = side;
    s
}

/// The figure's Soldiers in Time state.
pub fn sit(f: &spotter::game::Figure) -> &FigureStatus {
    status::of(f)
}

pub fn set_deck(s: &mut GameState, side: &str, cards: &[&str]) {
    let name = format!("{side} cards");
    let d = s.decks.iter_mut().find(|d| d.name == name).expect("deck");
    d.draw = cards.iter().map(|c| (*c).to_owned()).collect();
}

/// The typed action `name` with its parameters (panics when they cannot be
/// read: a test's own typo).
pub fn action(name: &str, params: serde_json::Value) -> Command {
    Command::SoldiersInTime(
        spotter::rules::soldiers_in_time::action::Action::parse(name, &params).expect(name),
    )
}

pub fn run(s: &GameState, c: &Command, faces: &[u32]) -> (GameState, Vec<Event>) {
    crate::rule_actions::run(&*rules(), s, c, faces)
}

pub fn refused(s: &GameState, c: &Command, kind: RefusalKind) -> String {
    crate::rule_actions::refused(&*rules(), s, c, kind)
}
