//! Pulling the camera out mid-game (a source that fails) keeps the app and
//! its state, shows a reconnect message, and a reconnect brings frames back.

mod app_support;

use std::sync::Arc;
use std::time::Duration;

use egui_kittest::kittest::Queryable;
use image::RgbImage;
use spotter::capture::folder::Playback;
use spotter::ui::logic::SourceStatus;
use spotter::ui::pipeline::{Perceiver, Perception};
use spotter::ui::{AppLogic, SourceChoice, SpotterApp, UiCommand};

/// Sees nothing: this test is about the source, not the table.
struct Blind;
impl Perceiver for Blind {
    fn perceive(&mut self, _image: &RgbImage) -> Perception {
        Perception::default()
    }
    fn relock(&mut self) {}
}

#[test]
fn a_failing_source_shows_reconnect_and_keeps_the_app() {
    let source = SourceChoice::Failing {
        dir: app_support::demo_dir(),
        playback: Playback {
            fps: 30.0,
            hold: Duration::from_millis(200),
            looped: true,
        },
        frames_before_failure: 10,
        // The first reconnect (the automatic retry or the click) may fail:
        // the cable is still out.
        refused_reconnects: 1,
    };
    let logic = AppLogic::new(
        source,
        Arc::new(|| Box::new(Blind) as Box<dyn Perceiver>),
        Arc::new(|| {}),
    );
    let mut h = app_support::harness(SpotterApp::new(logic));
    // Frames arrive, and the user selects something: state that must survive.
    app_support::step_until(&mut h, "a first frame", |app| app.logic.latest.is_some());
    h.state_mut().logic.apply(UiCommand::ToggleLargeText);
    let seq_before = h.state().logic.latest.as_ref().map(|p| p.frame.seq);

    app_support::step_until_label(&mut h, "Camera lost");
    assert!(matches!(h.state().logic.status, SourceStatus::Lost { .. }));
    assert!(h.state().logic.large_text, "the app's state is kept");
    assert!(
        h.state().logic.latest.is_some(),
        "the last frame stays on screen"
    );

    // Reconnect until it takes (the first attempt is refused).
    let end = std::time::Instant::now() + app_support::PATIENCE;
    while !matches!(h.state().logic.status, SourceStatus::Live { .. }) {
        if let Some(button) = h.query_by_label("Reconnect (C)") {
            button.click();
        }
        h.step();
        std::thread::sleep(Duration::from_millis(50));
        assert!(std::time::Instant::now() < end, "never reconnected");
    }
    app_support::step_until(&mut h, "frames after the reconnect", |app| {
        app.logic.latest.as_ref().map(|p| p.frame.seq) > seq_before
    });
    assert!(h.query_by_label_contains("Camera lost").is_none());
}
