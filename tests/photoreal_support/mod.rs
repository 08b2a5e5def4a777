//! The detector over every table frame of the photoreal fixtures
//! (`fixtures/photoreal/`, copied from the shared DEV set), through the real
//! marker detection and the camera files in `fixtures/detect/`, scored
//! against the truth files (included with `mod` by the detector tests).

use std::path::{Path, PathBuf};

use image::RgbImage;
use spotter::calibration::{self, Lens, TableLayout};
use spotter::vision::detect::Detector;
use spotter::vision::eval::{Summary, Truth, score_frame};
use spotter::vision::params::DetectorParams;

/// (photo folder, camera file stem, frames).
pub const SETS: [(&str, &str, usize); 4] = [
    ("cam01", "cam01", 5),
    ("cam02", "cam02", 5),
    ("cam03", "cam03", 4),
    ("seq01", "cam01", 7),
];

/// Every table frame of the set.
pub const FRAMES: usize = 21;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Finds the figures on every frame, each first passed through `photo`
/// (the frame as taken, or changed), and scores them; with `per_frame`,
/// prints each frame's figures as well as the whole set's under `name`.
pub fn measure(name: &str, per_frame: bool, photo: impl Fn(RgbImage) -> RgbImage) -> Summary {
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
            let frame = photo(
                image::open(stem.with_extension("jpg"))
                    .expect("fixture photo")
                    .to_rgb8(),
            );
            let truth = Truth::load(&stem.with_extension("truth.json")).expect("truth file");
            let gray = image::imageops::grayscale(&frame);
            let mapping = calibration::detect_table(&gray, &layout, Some(&lens))
                .expect("all markers are in view");
            let found = detector.detect(&frame, &mapping).expect("detection runs");
            let score = score_frame(&truth.figures, &found.detections);
            if per_frame {
                let mut one = Summary::default();
                one.add(&truth.figures, &found.detections, &score);
                println!("{folder}/frame-{f:02}: {}", one.report());
            }
            all.add(&truth.figures, &found.detections, &score);
            frames += 1;
        }
    }
    println!("{name}, {frames} frames: {}", all.report());
    assert_eq!(frames, FRAMES, "every table frame of the DEV set");
    all
}
