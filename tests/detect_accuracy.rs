//! The figure detector on every table frame of the photoreal fixtures
//! (`fixtures/photoreal/`, copied from the shared DEV set), through the real
//! marker detection and the camera files in `fixtures/detect/`, scored
//! against the truth files. Prints the measured figures.

use std::path::{Path, PathBuf};

use spotter::calibration::{self, Lens, TableLayout};
use spotter::vision::detect::Detector;
use spotter::vision::eval::{Summary, Truth, quantile, score_frame};
use spotter::vision::params::DetectorParams;

/// (photo folder, camera file stem, frames).
const SETS: [(&str, &str, usize); 4] = [
    ("cam01", "cam01", 5),
    ("cam02", "cam02", 5),
    ("cam03", "cam03", 4),
    ("seq01", "cam01", 7),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn measure() -> Summary {
    let params = DetectorParams::defaults().expect("built-in parameters load");
    let mut all = Summary::default();
    let mut frames = 0;
    for (folder, cam, n) in SETS {
        let lens =
            Lens::load(&root().join(format!("detect/{cam}.camera.toml"))).expect("camera file");
        let layout = TableLayout::load(&root().join(format!("detect/{cam}.table.toml")))
            .expect("layout file");
        let detector = Detector::new(params.clone(), layout.clone());
        for f in 1..=n {
            let stem = root().join(format!("photoreal/{folder}/frame-{f:02}"));
            let frame = image::open(stem.with_extension("jpg"))
                .expect("fixture photo")
                .to_rgb8();
            let truth = Truth::load(&stem.with_extension("truth.json")).expect("truth file");
            let gray = image::imageops::grayscale(&frame);
            let mapping = calibration::detect_table(&gray, &layout, Some(&lens))
                .expect("all markers are in view");
            let found = detector.detect(&frame, &mapping).expect("detection runs");
            let score = score_frame(&truth.figures, &found.detections);
            let mut one = Summary::default();
            one.add(&truth.figures, &found.detections, &score);
            all.add(&truth.figures, &found.detections, &score);
            println!("{folder}/frame-{f:02}: {}", one.report());
            frames += 1;
        }
    }
    println!("all {frames} frames: {}", all.report());
    assert_eq!(frames, 21, "every table frame of the DEV set");
    all
}

/// The issue's targets (recall and precision >= 0.99, edge colour >= 0.99,
/// foot or mounted all right, position median <= 0.03 in and p95 <= 0.08
/// in, facing median <= 4 and p95 <= 10 degrees, a facing for >= 95%), and
/// where the detector measured better than a target (facing p95 8.2
/// degrees, given for 0.96), that as a floor against regressions.
#[test]
fn detector_meets_the_issue_targets() {
    let s = measure();
    assert!(s.recall() >= 0.99, "recall {}", s.recall());
    assert!(s.precision() >= 0.99, "precision {}", s.precision());
    assert!(s.edge_accuracy() >= 0.99, "edge {}", s.edge_accuracy());
    assert!(s.base_accuracy() >= 1.0, "base {}", s.base_accuracy());
    let pos = |q| quantile(&s.position_errors_in, q);
    assert!(pos(0.5) <= 0.03, "position median {}", pos(0.5));
    assert!(pos(0.95) <= 0.08, "position p95 {}", pos(0.95));
    let facing = |q| quantile(&s.facing_errors_deg, q);
    assert!(facing(0.5) <= 4.0, "facing median {}", facing(0.5));
    assert!(facing(0.95) <= 9.0, "facing p95 {}", facing(0.95));
    assert!(
        s.facing_given() >= 0.96,
        "facing given {}",
        s.facing_given()
    );
}
