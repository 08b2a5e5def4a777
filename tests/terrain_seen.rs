//! The terrain finder on the photoreal fixtures: issue 13, "Volley Fire!
//! and Stand To!: cover, rough ground and woods read from the terrain on the
//! table (the scenario's terrain polygons, and the camera's where it sees
//! them), not typed in as flags; the player can still override."
//!
//! The render truth lists each frame's terrain pieces by kind and centre
//! (`render.terrain[]`: `kind`, `x_in`, `y_in`), its figures and its hands.
//! Measured per camera, over its frames in order through one detector (as a
//! session feeds them):
//! - recall: truth centres that fall inside a found outline;
//! - false pieces: found outlines that hold no truth piece's centre, no
//!   figure and no hand's point;
//! - figure-only: outlines that hold figures but no truth piece.

use std::path::{Path, PathBuf};

use nalgebra::Point2;
use serde_json::Value;
use spotter::calibration::{self, Lens, TableLayout};
use spotter::vision::detect::Detector;
use spotter::vision::params::DetectorParams;
use spotter::vision::terrain::TerrainFinder;

/// (photo folder, camera file stem, frames).
const CAMERAS: [(&str, &str, usize); 3] = [
    ("cam01", "cam01", 5),
    ("cam02", "cam02", 5),
    ("cam03", "cam03", 4),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    truth: usize,
    found_truth: usize,
    outlines: usize,
    false_pieces: usize,
    figure_only: usize,
}

fn points(v: &Value, key: &str) -> Vec<Point2<f64>> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            if key == "over_in" {
                let a = t.get(key)?.as_array()?;
                Some(Point2::new(a.first()?.as_f64()?, a.get(1)?.as_f64()?))
            } else {
                Some(Point2::new(
                    t.get("x_in")?.as_f64()?,
                    t.get("y_in")?.as_f64()?,
                ))
            }
        })
        .collect()
}

fn measure_camera(
    folder: &str,
    cam: &str,
    frames: usize,
    finder: &TerrainFinder,
    verbose: bool,
) -> Counts {
    let params = DetectorParams::defaults().expect("built-in parameters load");
    let lens = Lens::load(&root().join(format!("detect/{cam}.camera.toml"))).expect("camera file");
    let layout =
        TableLayout::load(&root().join(format!("detect/{cam}.table.toml"))).expect("layout file");
    let detector = Detector::new(params, layout.clone()).with_terrain(finder.clone());
    let mut c = Counts::default();
    for f in 1..=frames {
        let stem = root().join(format!("photoreal/{folder}/frame-{f:02}"));
        let frame = image::open(stem.with_extension("jpg"))
            .expect("fixture photo")
            .to_rgb8();
        let truth: Value = serde_json::from_str(
            &std::fs::read_to_string(stem.with_extension("truth.json")).expect("truth file"),
        )
        .expect("truth JSON");
        let pieces = points(&truth["render"]["terrain"], "x_in");
        let figures = points(&truth["figures"], "x_in");
        let hands = points(&truth["render"]["hands"], "over_in");
        let gray = image::imageops::grayscale(&frame);
        let mapping = calibration::detect_table(&gray, &layout, Some(&lens))
            .expect("all markers are in view");
        let found = detector.detect(&frame, &mapping).expect("detection runs");
        let seen = &found.terrain;
        let hit = pieces
            .iter()
            .filter(|p| seen.iter().any(|t| t.contains(**p)))
            .count();
        let holds = |t: &spotter::vision::terrain::SeenTerrain, ps: &[Point2<f64>]| {
            ps.iter().any(|p| t.contains(*p))
        };
        let false_pieces = seen
            .iter()
            .filter(|t| !holds(t, &pieces) && !holds(t, &figures) && !holds(t, &hands))
            .count();
        let figure_only = seen
            .iter()
            .filter(|t| !holds(t, &pieces) && holds(t, &figures))
            .count();
        if verbose {
            println!(
                "{folder}/frame-{f:02}: {hit}/{} truth pieces inside an outline, {} outlines, {false_pieces} false, {figure_only} figures only; areas {:?}",
                pieces.len(),
                seen.len(),
                seen.iter()
                    .map(|t| (t.area_in2 * 10.0).round() / 10.0)
                    .collect::<Vec<_>>()
            );
            for t in seen {
                let ctr = t.center_in();
                println!(
                    "    at ({:.1}, {:.1}) {:.1} in2 rgb {:?}",
                    ctr.x, ctr.y, t.area_in2, t.mean_rgb
                );
            }
        }
        c.truth += pieces.len();
        c.found_truth += hit;
        c.outlines += seen.len();
        c.false_pieces += false_pieces;
        c.figure_only += figure_only;
        for t in seen {
            assert!(t.outline_in.len() >= 3 && t.outline_in.len() <= 20, "{t:?}");
            assert!(
                t.outline_in
                    .iter()
                    .all(|p| (0.0..=layout.width_in).contains(&p.x)
                        && (0.0..=layout.depth_in).contains(&p.y)),
                "clipped to the table: {t:?}"
            );
        }
    }
    c
}

#[test]
fn terrain_pieces_on_the_photoreal_tables_are_found() {
    let mut all = Vec::new();
    for (folder, cam, frames) in CAMERAS {
        let c = measure_camera(folder, cam, frames, &TerrainFinder::default(), true);
        println!(
            "{folder}: recall {}/{} ({:.2}), {} outlines, {} false pieces, {} figures only",
            c.found_truth,
            c.truth,
            c.found_truth as f64 / c.truth.max(1) as f64,
            c.outlines,
            c.false_pieces,
            c.figure_only
        );
        all.push((folder, c));
    }
    for ((folder, c), min_recall) in all.into_iter().zip(MIN_RECALL) {
        let recall = c.found_truth as f64 / c.truth.max(1) as f64;
        assert!(recall >= min_recall, "{folder}: recall {recall:.2}");
        assert!(
            c.false_pieces <= MAX_FALSE,
            "{folder}: {} false pieces",
            c.false_pieces
        );
    }
}

/// Least recall per camera: measured 18/18, 10/13 and 9/11 with the
/// default parameters, less a piece or two. The pieces missed are pale
/// walls on the sand mat (cam02) and a dark tree with its shadow and a
/// small rock under the sun (cam03).
const MIN_RECALL: [f64; 3] = [0.9, 0.6, 0.7];
/// Most false pieces per camera: measured none on any camera.
const MAX_FALSE: usize = 1;
