//! Pulling the camera out mid-game (a source that fails) keeps the app and
//! its state, shows a reconnect message, and a reconnect brings frames back.

use crate::app_support;

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

#[test]
fn the_source_section_finds_webcams_and_switches_to_a_recording_keeping_the_game() {
    let playback = Playback {
        fps: 30.0,
        hold: Duration::from_millis(200),
        looped: true,
    };
    let source = SourceChoice::Failing {
        dir: app_support::demo_dir(),
        playback,
        frames_before_failure: 5,
        refused_reconnects: u32::MAX,
    };
    let logic = AppLogic::new(
        source,
        Arc::new(|| Box::new(Blind) as Box<dyn Perceiver>),
        Arc::new(|| {}),
    );
    let mut h = app_support::harness(SpotterApp::new(logic));
    h.state_mut().logic.apply(UiCommand::ToggleLargeText);
    app_support::step_until_label(&mut h, "Camera lost");

    // The Source section lists webcams, or says there are none (this
    // machine has no camera) or why they cannot be listed.
    h.get_by_label("Source").click();
    app_support::step_until_label(&mut h, "Find webcams");
    h.get_by_label("Find webcams").click();
    app_support::step_until(&mut h, "a webcam answer", |app| app.logic.cameras.is_some());
    h.step();
    let answered = h.query_by_label_contains("no webcams found").is_some()
        || h.query_by_label_contains("webcams:").is_some()
        || h.query_by_label("Open").is_some();
    assert!(answered, "the section shows what the webcam search found");

    // A recording instead of the lost camera: frames come back and the
    // app's state is kept.
    let recording = spotter::ui::logic::recording_source(&app_support::demo_dir());
    assert!(matches!(recording, SourceChoice::Folder { .. }));
    h.state_mut()
        .logic
        .apply(UiCommand::OpenSource(recording.clone()));
    app_support::step_until(&mut h, "the recording live", |app| {
        matches!(app.logic.status, SourceStatus::Live { .. })
    });
    assert_eq!(h.state().logic.source_choice, recording);
    assert!(h.state().logic.large_text, "the app's state is kept");
    app_support::step_until_label(&mut h, "now: folder");
}
