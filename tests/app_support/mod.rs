//! Shared helpers of the app tests: build the app in an egui_kittest
//! harness and step it until the UI shows something.

#![allow(dead_code, reason = "each test binary uses a part of the helpers")]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use spotter::calibration::{Lens, TableLayout};
use spotter::capture::folder::Playback;
use spotter::ui::perceive::standard_factory;
use spotter::ui::{AppLogic, SourceChoice, SpotterApp};
use spotter::vision::params::DetectorParams;
use spotter::vision::track::TrackerParams;

/// The bundled demo recording.
pub fn demo_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo")
}

/// A harness around the app at the size the app opens at.
pub fn harness(app: SpotterApp) -> Harness<'static, SpotterApp> {
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_ui_state(|ui, app: &mut SpotterApp| app.show(ui), app)
}

/// How long a test waits for the app to show something: generous, because
/// the machine may be busy; no timing is asserted.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Steps the harness (the capture threads run meanwhile) until a node whose
/// label contains `text` exists. Panics after [`PATIENCE`].
pub fn step_until_label(h: &mut Harness<'static, SpotterApp>, text: &str) {
    let end = Instant::now() + PATIENCE;
    loop {
        h.step();
        if h.query_by_label_contains(text).is_some() {
            return;
        }
        assert!(Instant::now() < end, "the app never showed {text:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Steps until `done` holds on the app.
pub fn step_until(
    h: &mut Harness<'static, SpotterApp>,
    what: &str,
    done: impl Fn(&SpotterApp) -> bool,
) {
    let end = Instant::now() + PATIENCE;
    loop {
        h.step();
        if done(h.state()) {
            return;
        }
        assert!(Instant::now() < end, "the app never reached: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The app's logic on the demo recording (48 x 48 in, its camera file),
/// looping at 10 fps with each photo held for `hold`; no game yet.
pub fn demo_logic(hold: Duration) -> AppLogic {
    let demo = demo_dir();
    let lens = Lens::load(&demo.join("camera.toml")).expect("demo camera file");
    let factory = standard_factory(
        TableLayout::standard(48.0, 48.0),
        Some(lens),
        DetectorParams::defaults().expect("detector defaults"),
        TrackerParams::default(),
    );
    let source = SourceChoice::Folder {
        dir: demo,
        playback: Playback {
            fps: 10.0,
            hold,
            looped: true,
        },
    };
    AppLogic::new(source, factory, std::sync::Arc::new(|| {}))
}
