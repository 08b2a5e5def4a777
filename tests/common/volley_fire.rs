//! Helpers shared by the Volley Fire! integration tests: the Sudan patrol
//! scenario, typed actions, putting the game in a phase, resolving with
//! typed dice and applying the events.

use std::sync::Arc;

use nalgebra::Vector2;
use spotter::game::{Command, Event, GameState, Scenario};
use spotter::rules::dice::TypedDice;
use spotter::rules::{Registry, RuleSet};

/// The shipped scenario the Volley Fire! tests play on.
pub const PATROL: &str = "scenarios/vf-sudan-patrol.toml";

/// Ones typed after a test's own faces: the dice a test does not care about
/// (fall-back distances, leader rolls).
const FILLER_ONES: usize = 80;

/// The patrol's starting state and the Volley Fire! rule set.
pub fn setup() -> (GameState, Arc<dyn RuleSet>) {
    let registry = Registry::builtin().unwrap();
    let s = Scenario::load(std::path::Path::new(PATROL), &registry)
        .unwrap()
        .state;
    (s, registry.get("volley-fire").unwrap())
}

/// The typed action `name` with its parameters (panics when they cannot be
/// read: a test's own typo).
pub fn action(name: &str, params: serde_json::Value) -> Command {
    Command::VolleyFire(
        spotter::rules::volley_fire::action::Action::parse(name, &params).expect(name),
    )
}

/// Puts the game in phase `phase` of `side`'s turn.
pub fn at(s: &mut GameState, phase: usize, side: &str) {
    s.phase = phase;
    s.active_side = s.sides.iter().position(|x| x.name == side).unwrap();
}

/// Resolves with the typed faces, then ones.
pub fn resolve(r: &dyn RuleSet, s: &GameState, c: &Command, faces: &[u32]) -> Vec<Event> {
    let mut all = faces.to_vec();
    all.extend(std::iter::repeat_n(1, FILLER_ONES));
    r.resolve(s, c, &mut TypedDice::new(all)).expect("resolves")
}

/// The state after the events.
pub fn apply(s: &GameState, ev: &[Event]) -> GameState {
    let mut s = s.clone();
    for e in ev {
        s.apply(e);
    }
    s
}

/// Moves every figure of `unit` by `by` inches.
pub fn shift_unit(s: &mut GameState, unit: &str, by: Vector2<f64>) {
    let (_, u) = s.unit_named(unit).unwrap();
    for id in u.figures.clone() {
        s.figures[id.index()].placement.center_in_table += by;
    }
}
