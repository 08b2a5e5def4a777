//! First run (issue 17): with no lens calibration file the app says so and
//! walks the player through the kit, each step with its live result, all
//! found by AccessKit label. On the demo recording the four table markers
//! are in view, so step 2 says all are seen and step 4 shows the table
//! locked with its residual.

use crate::app_support;

use std::time::Duration;

use egui_kittest::kittest::Queryable;
use spotter::ui::SpotterApp;

#[test]
fn without_a_camera_file_the_app_walks_through_the_kit_with_live_results() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("calibration/camera.toml");
    let logic = app_support::demo_logic(Duration::from_secs(600));
    let app = SpotterApp::new(logic).with_camera_file_check(&missing);
    let mut h = app_support::harness(app);
    app_support::step_until_label(&mut h, "First run: no calibration files");
    // The missing file is named.
    let named = format!("({} is missing)", missing.display());
    assert!(h.query_by_label_contains(&named).is_some(), "{named}");
    // A recording has its own lens: the walk-through starts folded.
    assert!(h.query_by_label_contains("1. Print the kit").is_none());
    h.get_by_label_contains("First run: no calibration files")
        .click();
    app_support::step_until_label(&mut h, "1. Print the kit");
    for step in [
        "2. Lay out the table markers",
        "3. Lens photos",
        "4. Table check",
    ] {
        assert!(h.query_by_label_contains(step).is_some(), "{step} is shown");
    }
    // Live results from the demo's frames.
    app_support::step_until_label(&mut h, "all 4 markers seen");
    app_support::step_until_label(&mut h, "table locked on markers");
}

#[test]
fn with_a_camera_file_there_is_no_walk_through() {
    let dir = tempfile::tempdir().unwrap();
    let present = dir.path().join("camera.toml");
    std::fs::write(&present, "").unwrap();
    let logic = app_support::demo_logic(Duration::from_secs(600));
    let app = SpotterApp::new(logic).with_camera_file_check(&present);
    let mut h = app_support::harness(app);
    // The game panel is up once the first frame is shown.
    app_support::step_until(&mut h, "a first frame", |app| app.logic.latest.is_some());
    h.step();
    assert!(h.query_by_label_contains("First run").is_none());
}
