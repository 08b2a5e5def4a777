//! The demo is a game (issue 17): each rule set's demo scenario opens on
//! the demo recording with every figure on the photos bound by itself, an
//! actor and a target chosen, and the first screen shows a bound figure's
//! name, the number needed, the odds and a line saying what to do next;
//! all found by AccessKit label.

use crate::app_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use egui_kittest::kittest::Queryable;
use spotter::ui::SpotterApp;
use spotter::ui::session::GameSession;

/// Figures on the demo photos (fixtures/demo/frame-01.jpg).
const DEMO_FIGURES: usize = 14;

fn demo_game(scenario: &str, games_dir: &Path) -> SpotterApp {
    let mut logic = app_support::demo_logic(Duration::from_secs(600));
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(scenario);
    logic.set_session(GameSession::new_game(&path, games_dir, 7).expect("demo scenario"));
    SpotterApp::new(logic)
}

/// Opens `scenario` on the demo and checks its first screen: `figure` is
/// named, an actor and a target are chosen, the number needed (`needed`,
/// a part of its label) and the odds show, and the next step is said.
fn first_screen(scenario: &str, figure: &str, needed: Option<&str>) {
    let games = tempfile::tempdir().unwrap();
    let mut h = app_support::harness(demo_game(scenario, games.path()));
    app_support::step_until_label(&mut h, "Next: press Enter to roll");
    let logic = &h.state().logic;
    assert_eq!(
        logic.bindings.len(),
        DEMO_FIGURES,
        "{scenario}: every figure on the photo bound: {:?}",
        logic.notices
    );
    assert!(
        h.query_all_by_label_contains(figure).next().is_some(),
        "{scenario}: {figure} named on the first screen"
    );
    assert!(
        h.query_by_label_contains("Actor: ").is_some()
            && h.query_by_label("Actor: -").is_none()
            && h.query_by_label("Target: -").is_none(),
        "{scenario}: an actor and a target"
    );
    if let Some(needed) = needed {
        assert!(
            h.query_all_by_label_contains(needed).next().is_some(),
            "{scenario}: the number needed ({needed})"
        );
    }
    assert!(
        h.query_all_by_label_contains("%").next().is_some(),
        "{scenario}: the odds"
    );
}

#[test]
fn the_stand_to_demo_opens_on_a_shot_with_its_odds() {
    first_screen(
        "scenarios/demo-stand-to.toml",
        "Sgt Lacey",
        Some("+ needed"),
    );
}

#[test]

fn the_soldiers_in_time_demo_opens_on_a_shot_with_its_odds() {
    first_screen(
        "scenarios/demo-soldiers-in-time.toml",
        "Captain Morgan",
        None,
    );
}

#[test]

fn the_little_colonial_demo_opens_on_a_shot_with_its_odds() {
    first_screen("scenarios/demo-little-colonial.toml", "Datu Ali", None);
}

#[test]
fn the_volley_fire_demo_opens_on_a_shot_with_its_odds() {
    // Volley Fire!'s preview carries odds but no single number needed.
    first_screen("scenarios/demo-volley-fire.toml", "Emir Yusuf", None);
}
