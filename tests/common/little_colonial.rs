//! Helpers shared by the Little Colonial Rules integration tests: a
//! scenario of Spanish (side 0) and Moros (side 1), figure tables, typed
//! actions, the card in play, resolving with typed dice.

use std::sync::Arc;

use spotter::core::RefusalKind;
use spotter::game::{Command, Event, GameState, Scenario};
use spotter::rules::little_colonial::LittleColonial;
use spotter::rules::little_colonial::engine::side_st;
use spotter::rules::{Registry, RuleSet};
use spotter::spec::SourceFile;

pub fn rules() -> Arc<dyn RuleSet> {
    Registry::builtin()
        .expect("rule sets")
        .get("little-colonial")
        .expect("little colonial")
}

pub fn data() -> LittleColonial {
    LittleColonial::builtin().expect("built-in data")
}

/// The scenario text: Spanish and Moros with their `status` tables; `extra`
/// adds tables.
pub fn scenario_text(spanish: &str, moros: &str, extra: &str) -> String {
    format!(
        r#"
name = "t"
rule_set = "little-colonial"
[table]
width_in = 60.0
depth_in = 60.0
[[side]]
name = "Spanish"
kind = "european"
status = {{ {spanish} }}
[[side]]
name = "Moros"
kind = "native"
status = {{ {moros} }}
{extra}
"#
    )
}

/// Spanish (side 0) and Moros (side 1) with five chits a pile unless set.
pub fn state(spanish: &str, moros: &str, extra: &str) -> GameState {
    let registry = Registry::builtin().expect("rule sets");
    let text = scenario_text(spanish, moros, extra);
    let mut s = Scenario::from_source(&SourceFile::from_text("t.toml", text), &registry)
        .expect("scenario")
        .state;
    // Small test forces would start with empty piles: five chits a pile
    // unless the test sets them.
    for (side, given) in [spanish, moros].iter().enumerate() {
        if !given.contains("chits") {
            s.sides[side].rules.little_colonial_mut().chits = Some(vec![5; 5]);
        }
    }
    s
}

/// A rifleman's `[[figure]]` table; `more` adds lines.
pub fn fig(name: &str, rank: &str, side: &str, x: f64, y: f64, facing: f64, more: &str) -> String {
    format!(
        r#"
[[figure]]
name = "{name}"
rank = "{rank}"
side = "{side}"
weapon = "rifle"
melee_weapon = "bayonet"
experience = 2
x_in = {x}
y_in = {y}
facing_deg = {facing}
base = "foot"
{more}
"#
    )
}

/// The figure table on a mounted base.
pub fn mounted(text: String) -> String {
    text.replace("base = \"foot\"", "base = \"mounted\"")
}

/// Six riflemen in three ranks of two, front rank at y = 10, facing +y.
pub const LINE: &str = r#"
[[unit]]
name = "Line"
side = "Spanish"
formation = "line"
frontage = 2
count = 6
x_in = 20.0
y_in = 10.0
facing_deg = 90.0
weapon = "rifle"
melee_weapon = "bayonet"
experience = 2
status = { level = "regular" }
"#;

/// A Napoleon served by a trained gunner NCO at (2, 30), facing +x.
pub const GUN: &str = r#"
[[figure]]
name = "Gun"
rank = "nco"
side = "Spanish"
weapon = "napoleon"
melee_weapon = "none"
experience = 2
x_in = 2.0
y_in = 30.0
facing_deg = 0.0
base = "foot"
status = { gunner = "true", level = "regular" }
"#;

/// Lt, a seasoned platoon officer behind the line.
pub fn lt() -> String {
    fig(
        "Lt",
        "officer",
        "Spanish",
        20.0,
        7.0,
        90.0,
        r#"status = { level = "seasoned", command = "platoon-officer" }"#,
    )
}

/// The typed action `name` with its parameters (panics when they cannot be
/// read: a test's own typo).
pub fn action(name: &str, params: serde_json::Value) -> Command {
    Command::LittleColonial(
        spotter::rules::little_colonial::action::Action::parse(name, &params).expect(name),
    )
}

/// `owner`'s first card is in play.
pub fn card(s: &mut GameState, owner: &str) {
    s.rules.little_colonial_mut().card = Some(format!("{owner}#1"));
}

/// A side's morale piles.
pub fn chits(s: &GameState, side: usize) -> Vec<u32> {
    side_st(s, side).piles().to_vec()
}

pub fn run(s: &GameState, c: &Command, faces: &[u32]) -> (GameState, Vec<Event>) {
    crate::rule_actions::run(&*rules(), s, c, faces)
}

pub fn refused(s: &GameState, c: &Command, kind: RefusalKind) -> String {
    crate::rule_actions::refused(&*rules(), s, c, kind)
}

/// The notes among the events.
pub fn notes(ev: &[Event]) -> Vec<String> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Note { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}
