//! The table markers followed from frame to frame (`MarkerTracker`) on the
//! photoreal fixtures: after the first frame each camera's markers are found
//! in windows around their last positions, with the same corners as a
//! search of the whole frame.

use std::path::{Path, PathBuf};

use spotter::calibration::{self, Lens, MarkerTracker, SearchKind, TableLayout};

/// Largest difference between a followed corner and the same corner from a
/// whole-frame search, pixels: both end in the same pattern fit, so only
/// its convergence tolerance separates them.
const MAX_CORNER_DIFF_PX: f64 = 0.05;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

#[test]
fn followed_markers_match_a_whole_frame_search() {
    for cam in ["cam01", "cam02", "cam03"] {
        let layout =
            TableLayout::load(&fixtures().join(format!("detect/{cam}.table.toml"))).unwrap();
        let lens = Lens::load(&fixtures().join(format!("detect/{cam}.camera.toml"))).unwrap();
        let mut frames: Vec<PathBuf> = std::fs::read_dir(fixtures().join("photoreal").join(cam))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "jpg"))
            .collect();
        frames.sort();
        assert!(frames.len() >= 3, "{cam}: too few frames");
        let mut tracker = MarkerTracker::new(layout.clone(), Some(lens.clone()));
        let mut worst = 0.0f64;
        for (k, path) in frames.iter().enumerate() {
            let rgb = image::open(path).unwrap().to_rgb8();
            let followed = tracker.find_rgb(&rgb).unwrap();
            let want = if k == 0 {
                SearchKind::Whole
            } else {
                SearchKind::Windows
            };
            assert_eq!(tracker.last_search, Some(want), "{cam} {path:?}");
            let here = lens.scaled_to([rgb.width(), rgb.height()]);
            let whole = calibration::detect_table_markers_rgb(&rgb, &layout, Some(&here)).unwrap();
            assert_eq!(followed.len(), whole.len(), "{cam} {path:?}");
            for w in &whole {
                let f = followed.iter().find(|f| f.id == w.id).unwrap();
                for (a, b) in f.corners_px.iter().zip(&w.corners_px) {
                    worst = worst.max((a - b).norm());
                }
            }
        }
        println!(
            "{cam}: {} frames, followed corners within {worst:.4} px of a whole-frame search",
            frames.len()
        );
        assert!(worst <= MAX_CORNER_DIFF_PX, "{cam}: {worst} px");
    }
}
