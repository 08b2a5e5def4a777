//! The app's game flow through AccessKit labels, on the demo recording:
//! the table locks, a seen figure is bound to a roster figure, an actor and
//! a target are picked, the odds and the number needed show before the roll,
//! the roll lands in the log, and undo takes it back. Then a new app on the
//! same games folder (the process killed and started again) resumes it.

use crate::app_support;

use std::path::PathBuf;
use std::time::Duration;

use egui_kittest::kittest::Queryable;
use spotter::ui::SpotterApp;
use spotter::ui::session::GameSession;

fn demo_app(games_dir: &std::path::Path, resume: bool) -> SpotterApp {
    let mut logic = app_support::demo_logic(Duration::from_secs(60));
    let scenario = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios/dragoon.toml");
    let session = if resume {
        GameSession::resume_or_new(&scenario, games_dir, 11)
    } else {
        GameSession::new_game(&scenario, games_dir, 11)
    };
    logic.set_session(session.expect("game"));
    SpotterApp::new(logic)
}

#[test]
fn demo_select_target_odds_roll_log_undo_then_resume() {
    let games = tempfile::tempdir().unwrap();
    let mut h = app_support::harness(demo_app(games.path(), false));

    // The demo loads and the table locks on its four markers.
    app_support::step_until_label(&mut h, "marker 3: found");
    assert!(h.query_by_label_contains("residual").is_some());

    // A figure seen on the table, bound to the roster's Trooper Hobbs.
    app_support::step_until_label(&mut h, "#1 ");
    h.get_by_label_contains("#1 ").click();
    h.step();
    h.step();
    assert_eq!(h.state().logic.selection.actor, Some(1));
    h.get_by_label("bind #1 to Trooper Hobbs").click();
    h.step();
    h.step();
    assert!(
        h.query_by_label_contains("Trooper Hobbs (British")
            .is_some()
    );
    assert!(
        h.query_by_label_contains("= #1").is_some(),
        "bound to the seen figure: {:?} {:?}",
        h.state().logic.bindings,
        h.state().logic.notices
    );

    // Bound, Hobbs stands where the camera sees #1: placed through the log.
    let seen_at = h.state().logic.figure(1).unwrap().detection.center_in_table;
    let hobbs_at = {
        let s = h.state().logic.session.as_ref().unwrap();
        let hobbs = s.state().figure_named("Trooper Hobbs").unwrap();
        assert!(hobbs.placement.sigma_in > 0.0, "the camera's uncertainty");
        hobbs.placement.center_in_table
    };
    assert!(
        (seen_at - hobbs_at).norm() < 0.25,
        "{seen_at} vs {hobbs_at}"
    );
    assert!(
        h.query_by_label_contains("camera: Trooper Hobbs at")
            .is_some()
    );

    // Actor and target from the roster.
    h.get_by_label_contains("Trooper Hobbs (").click();
    h.step();
    h.get_by_label_contains("Hadendowa warrior (").click();
    h.step();
    h.step();
    assert!(h.query_by_label("Actor: Trooper Hobbs").is_some());
    assert!(h.query_by_label("Target: Hadendowa warrior").is_some());
    // The turn starts with the non-combat phase: no shot yet.
    app_support::step_until_label(&mut h, "Not now");
    h.get_by_label("End phase (E)").click();
    app_support::step_until_label(&mut h, "+ needed");
    assert!(
        h.query_by_label_contains("p_on_target").is_some(),
        "odds before the roll"
    );
    // The overlay's sight line to the target, drawn from the rule set.
    let shapes = {
        let s = h.state().logic.session.as_ref().unwrap();
        s.overlays(s.actor.unwrap())
    };
    assert!(
        shapes
            .iter()
            .any(|sh| matches!(sh, spotter::rules::overlay::OverlayShape::Sight { .. })),
        "{shapes:?}"
    );

    h.get_by_label("Roll (Enter)").click();
    app_support::step_until_label(&mut h, "Trooper Hobbs fires (aimed) at Hadendowa warrior");
    let played = h
        .state()
        .logic
        .session
        .as_ref()
        .unwrap()
        .game
        .history()
        .iter()
        .filter(|p| p.command.observations().is_none())
        .count();
    assert_eq!(played, 2, "end of phase and the shot");

    h.get_by_label("Undo (Ctrl+Z)").click();
    app_support::step_until_label(&mut h, "(undone)");
    let state_before = h.state().logic.session.as_ref().unwrap().state().clone();
    drop(h);

    // Started again on the same games folder: the game resumes.
    let mut h = app_support::harness(demo_app(games.path(), true));
    h.step();
    let resumed = h.state().logic.session.as_ref().unwrap();
    assert_eq!(resumed.state(), &state_before);
    assert_eq!(
        resumed
            .game
            .history()
            .iter()
            .filter(|p| p.command.observations().is_none())
            .count(),
        2
    );
    // The binding was saved with the game.
    assert_eq!(
        h.state().logic.bound(1),
        Some(resumed.state().figure_named("Trooper Hobbs").unwrap().id)
    );
    app_support::step_until_label(&mut h, "(undone)");
}
