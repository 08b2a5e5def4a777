//! The hand finder on every table frame of the photoreal fixtures (the
//! frames of one camera in order, through one detector, as a session would
//! feed them), scored against the truth files.
//!
//! The truth gives, per hand, the point it is over (`render.hands[].over_in`)
//! and the height of the palm, and marks the figures that a hand or terrain
//! hides (`occluded`, `band_hidden_by_hand_or_terrain_fraction`). Measured:
//! - hands found: a region covers the point the camera sees the palm over
//!   (the truth point moved by the parallax of the palm's height);
//! - hidden figures covered: figures hidden by the hand (occluded, within
//!   `HAND_REACH_IN` of it) under a region, as the tracker sees them (with its
//!   cover margin) and strictly (no margin);
//! - visible figures covered: figures not occluded whose centre lies in a
//!   region (the detector drops those it finds), and of those the figures
//!   that no hand touches;
//! - false hands: regions on frames without a hand;
//! - the detector's recall and precision with and without the hand finder;
//! - the cost of the hand finder per frame, milliseconds (wall clock, and
//!   time on the CPU, which a loaded machine does not inflate).

use std::path::{Path, PathBuf};
use std::time::Instant;

use nalgebra::Point2;
use serde_json::Value;
use spotter::calibration::{self, Lens, TableLayout};
use spotter::vision::detect::Detector;
use spotter::vision::eval::{Summary, Truth, score_frame};
use spotter::vision::hands::{HandFinder, HandParams};
use spotter::vision::params::DetectorParams;
use spotter::vision::rectify::{CameraPose, TopView, WhiteReference};
use spotter::vision::track::{OccludedRegion, TrackerParams};

/// (photo folder, camera file stem, frames).
const SETS: [(&str, &str, usize); 4] = [
    ("cam01", "cam01", 5),
    ("cam02", "cam02", 5),
    ("cam03", "cam03", 4),
    ("seq01", "cam01", 7),
];
/// A hidden figure this close to the hand's point is hidden by the hand (not
/// by terrain), inches.
const HAND_REACH_IN: f64 = 4.0;
/// Share of a figure's band hidden for it to count as hidden by the hand.
const HIDDEN_SHARE: f64 = 0.5;

/// Time this thread has run on a CPU, nanoseconds (Linux), so that the cost
/// is measured apart from what else the machine is doing.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn area_in2(r: &OccludedRegion) -> f64 {
    match r {
        OccludedRegion::Disc { radius_in, .. } => std::f64::consts::PI * radius_in * radius_in,
        OccludedRegion::Polygon { vertices_in_table } => {
            let n = vertices_in_table.len();
            (0..n)
                .map(|k| {
                    let (a, b) = (vertices_in_table[k], vertices_in_table[(k + 1) % n]);
                    a.x * b.y - b.x * a.y
                })
                .sum::<f64>()
                .abs()
                / 2.0
        }
    }
}

#[derive(Default, Debug)]
struct Counts {
    hand_frames: usize,
    hands: usize,
    hands_found: usize,
    hidden: usize,
    hidden_covered_with_margin: usize,
    hidden_covered: usize,
    visible: usize,
    visible_covered: usize,
    /// Of those, figures no hand touches at all.
    clear_covered: usize,
    empty_frames: usize,
    false_hand_frames: usize,
    areas_in2: Vec<f64>,
    cost_ms: Vec<f64>,
    cpu_ms: Vec<f64>,
}

/// Runs the detector over every frame, with the hand finder or with one
/// that never finds a hand; returns the hand counts and the detection score.
fn measure(with_hands: bool) -> (Counts, Summary) {
    let params = DetectorParams::defaults().expect("built-in parameters load");
    let hand_params = if with_hands {
        HandParams::default()
    } else {
        HandParams {
            min_area_in2: f64::MAX,
            ..HandParams::default()
        }
    };
    let cover_margin_in = TrackerParams::default().cover_margin_in;
    let mut c = Counts::default();
    let mut summary = Summary::default();
    for (folder, cam, n) in SETS {
        let lens =
            Lens::load(&root().join(format!("detect/{cam}.camera.toml"))).expect("camera file");
        let layout = TableLayout::load(&root().join(format!("detect/{cam}.table.toml")))
            .expect("layout file");
        let detector = Detector::new(params.clone(), layout.clone())
            .with_hands(HandFinder::new(hand_params.clone()));
        // A second finder on the same frames, timed on its own.
        let timed = HandFinder::new(hand_params.clone());
        for f in 1..=n {
            let stem = root().join(format!("photoreal/{folder}/frame-{f:02}"));
            let frame = image::open(stem.with_extension("jpg"))
                .expect("fixture photo")
                .to_rgb8();
            let truth = Truth::load(&stem.with_extension("truth.json")).expect("truth file");
            let raw: Value = serde_json::from_str(
                &std::fs::read_to_string(stem.with_extension("truth.json")).unwrap(),
            )
            .unwrap();
            let gray = image::imageops::grayscale(&frame);
            let mapping = calibration::detect_table(&gray, &layout, Some(&lens))
                .expect("all markers are in view");
            let found = detector.detect(&frame, &mapping).expect("detection runs");
            let score = score_frame(&truth.figures, &found.detections);
            summary.add(&truth.figures, &found.detections, &score);
            let regions = &found.occluded_regions_in_table;

            let pose =
                CameraPose::from_mapping(&mapping, [frame.width(), frame.height()]).expect("pose");
            if with_hands {
                let view =
                    TopView::new(&layout, params.rectify.px_per_in, params.kit.base_height_in);
                let top = view
                    .render(
                        &frame,
                        &pose,
                        mapping.lens.as_ref(),
                        params.rectify.map_grid_px,
                    )
                    .expect("top view");
                let gains = WhiteReference::from_markers(
                    &frame,
                    &mapping,
                    &layout,
                    params.white.margin_inner_in,
                    params.white.margin_outer_in,
                )
                .map_or([1.0; 3], |w| w.gains(params.white.paper_level as f32));
                // The figures the detector kept (those it dropped under a
                // hand lie inside a region, which they leave as it is).
                let centres: Vec<Point2<f64>> =
                    found.detections.iter().map(|d| d.center_in_table).collect();
                let (t, cpu) = (Instant::now(), thread_cpu_ns());
                let again = timed.find(&top, &view, gains, &layout, &centres);
                c.cost_ms.push(t.elapsed().as_secs_f64() * 1e3);
                if let (Some(a), Some(b)) = (cpu, thread_cpu_ns()) {
                    c.cpu_ms.push((b - a) as f64 / 1e6);
                }
                assert_eq!(
                    again.len(),
                    regions.len(),
                    "the detector reports the finder's regions"
                );
            }

            let hands: Vec<(Point2<f64>, f64)> = raw["render"]["hands"]
                .as_array()
                .map(|hs| {
                    hs.iter()
                        .map(|h| {
                            (
                                Point2::new(
                                    h["over_in"][0].as_f64().unwrap(),
                                    h["over_in"][1].as_f64().unwrap(),
                                ),
                                h["palm_bottom_z_in"].as_f64().unwrap_or(0.0),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let covered = |p: Point2<f64>, m: f64| regions.iter().any(|r| r.covers(p, m));
            let mut line = format!(
                "{folder}/frame-{f:02}: {} region(s) of {:.0} in2",
                regions.len(),
                regions.iter().map(area_in2).sum::<f64>()
            );
            c.areas_in2.extend(regions.iter().map(area_in2));
            if hands.is_empty() {
                c.empty_frames += 1;
                c.false_hand_frames += usize::from(!regions.is_empty());
            } else {
                c.hand_frames += 1;
            }
            for &(over, z) in &hands {
                c.hands += 1;
                let seen_at = over + pose.parallax_in(over, z);
                let hit = covered(seen_at, 0.0);
                c.hands_found += usize::from(hit);
                line += &format!(
                    "; hand at ({:.1}, {:.1}) found: {hit}",
                    seen_at.x, seen_at.y
                );
            }
            for t in &truth.figures {
                let p = Point2::new(t.x_in, t.y_in);
                let hidden_share = raw["figures"]
                    .as_array()
                    .and_then(|fs| fs.iter().find(|g| g["x_in"].as_f64() == Some(t.x_in)))
                    .and_then(|g| g["band_hidden_by_hand_or_terrain_fraction"].as_f64())
                    .unwrap_or(0.0);
                let by_hand = t.occluded
                    && hidden_share >= HIDDEN_SHARE
                    && hands.iter().any(|(o, _)| (o - p).norm() <= HAND_REACH_IN);
                if by_hand {
                    c.hidden += 1;
                    c.hidden_covered_with_margin += usize::from(covered(p, cover_margin_in));
                    c.hidden_covered += usize::from(covered(p, 0.0));
                    line += &format!(
                        "; hidden ({:.1}, {:.1}) covered: {}",
                        p.x,
                        p.y,
                        covered(p, cover_margin_in)
                    );
                } else if !t.occluded {
                    c.visible += 1;
                    if covered(p, 0.0) {
                        c.visible_covered += 1;
                        c.clear_covered += usize::from(hidden_share == 0.0);
                        line += &format!(
                            "; visible ({:.1}, {:.1}, {:.0}% of its band hidden) covered",
                            p.x,
                            p.y,
                            hidden_share * 100.0
                        );
                    }
                }
            }
            if with_hands {
                println!("{line}");
            }
        }
    }
    (c, summary)
}

#[test]
fn hands_are_found_where_the_truth_has_them_and_nowhere_else() {
    let (c, with) = measure(true);
    let (_, without) = measure(false);
    let mut cost = c.cost_ms.clone();
    cost.sort_by(f64::total_cmp);
    let median_ms = cost[cost.len() / 2];
    let max_ms = cost[cost.len() - 1];
    println!(
        "hands found {}/{} on {} frames; hidden figures covered {}/{} (tracker margin), {}/{} strictly; visible figures covered {}/{} ({} with nothing of them hidden); false hands on {}/{} frames without a hand; region areas {:?} in2",
        c.hands_found,
        c.hands,
        c.hand_frames,
        c.hidden_covered_with_margin,
        c.hidden,
        c.hidden_covered,
        c.hidden,
        c.visible_covered,
        c.visible,
        c.clear_covered,
        c.false_hand_frames,
        c.empty_frames,
        c.areas_in2.iter().map(|a| a.round()).collect::<Vec<_>>()
    );
    let mut cpu = c.cpu_ms.clone();
    cpu.sort_by(f64::total_cmp);
    println!(
        "hand finder cost: wall median {median_ms:.2} ms, max {max_ms:.2} ms per frame; on the CPU median {:.2} ms, max {:.2} ms",
        cpu.get(cpu.len() / 2).copied().unwrap_or(f64::NAN),
        cpu.last().copied().unwrap_or(f64::NAN)
    );
    println!(
        "detector with hands: recall {:.3} precision {:.3} ({} reported); without: recall {:.3} precision {:.3} ({} reported)",
        with.recall(),
        with.precision(),
        with.reported,
        without.recall(),
        without.precision(),
        without.reported
    );
    assert_eq!(c.hands, 6, "the DEV set has six frames with a hand");
    assert_eq!(c.hands_found, c.hands);
    assert_eq!(c.hidden_covered_with_margin, c.hidden);
    assert_eq!(c.false_hand_frames, 0);
    // Figures partly under the fingers may be covered; none in the clear.
    assert_eq!(c.clear_covered, 0);
    assert!(with.precision() >= without.precision());
    assert!(with.found_visible >= without.found_visible);
}
