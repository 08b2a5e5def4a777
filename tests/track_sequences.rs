//! The tracker measured on sequences built from the seq01 truth files
//! (`fixtures/track/seq01/*.truth.json`): the stills in order, reversed and
//! subsampled, with and without hand regions from the detector, with
//! detector dropouts, and a live-camera version at 10 frames a second in
//! which every move is a hand lifting the figure, carrying it and putting it
//! down. Detections are the truth plus seeded noise; the truth is used only
//! to build the input and to score the output.
//!
//! Measured on every sequence: identity switches (track ids mapped to truth
//! ids where each track first appears, checked on every later frame), the
//! worst final position error, removals reported for figures that are still
//! in play, and removals missed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nalgebra::Point2;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde::Deserialize;
use spotter::vision::track::{
    FigureState, FrameObservation, FrameReport, OccludedRegion, TrackId, Tracker, TrackerParams,
};
use spotter::vision::{BaseKind, Detection, EdgeColour};

/// Seconds between two still photos (players take one after each move).
const STILL_GAP_S: f64 = 10.0;
/// Live camera frame rate for the choreographed sequence, frames a second.
const LIVE_FPS: f64 = 10.0;
/// Frames a hand spends over a spot when lifting or putting down.
const HAND_FRAMES: usize = 4;
/// Clear frames at the end of the live sequence (the table settles).
const SETTLE_FRAMES: usize = 50;
/// A hand seen from above, as a disc on the table, inches.
const HAND_RADIUS_IN: f64 = 2.5;
/// Detector noise used for the synthetic detections.
const POSITION_SIGMA_IN: f64 = 0.03;
const FACING_SIGMA_DEG: f64 = 3.0;
/// One figure in about this many is missed per frame in the dropout runs.
const DROPOUT_CYCLE: u32 = 13;
/// A track belongs to the truth figure within this distance, inches.
const MATCH_RADIUS_IN: f64 = 0.5;
/// The bar for the final position.
const FINAL_POSITION_TOLERANCE_IN: f64 = 0.1;

#[derive(Debug, Clone, Deserialize)]
struct TruthFile {
    image: String,
    figures: Vec<TruthFigure>,
    render: Render,
}

#[derive(Debug, Clone, Deserialize)]
struct Render {
    #[serde(default)]
    hands: Option<Vec<Hand>>,
}

#[derive(Debug, Clone, Deserialize)]
struct Hand {
    over_in: [f64; 2],
}

#[derive(Debug, Clone, Deserialize)]
struct TruthFigure {
    id: u32,
    x_in: f64,
    y_in: f64,
    facing_deg: f64,
    edge: EdgeColour,
    base: BaseKind,
    occluded: bool,
}

/// One frame of a synthetic sequence: where every figure in play is, which
/// the camera can see, and where hands are.
#[derive(Debug, Clone)]
struct Step {
    label: String,
    time_s: f64,
    figures: Vec<TruthFigure>,
    hands: Vec<Point2<f64>>,
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/track/seq01")
}

fn load_truth() -> Vec<TruthFile> {
    let mut paths: Vec<_> = std::fs::read_dir(fixture_dir())
        .expect("fixtures/track/seq01 is missing")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".truth.json"))
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 7, "seq01 has 7 frames");
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        })
        .collect()
}

fn stills(frames: &[&TruthFile]) -> Vec<Step> {
    frames
        .iter()
        .enumerate()
        .map(|(i, f)| Step {
            label: f.image.clone(),
            time_s: i as f64 * STILL_GAP_S,
            figures: f.figures.clone(),
            hands: f
                .render
                .hands
                .iter()
                .flatten()
                .map(|h| Point2::new(h.over_in[0], h.over_in[1]))
                .collect(),
        })
        .collect()
}

fn at(f: &TruthFigure) -> Point2<f64> {
    Point2::new(f.x_in, f.y_in)
}

/// A live camera over the same game: each truth frame is shown, then every
/// change to the next one is done by a hand (lift, carry, put down; or lift
/// and take away; or bring and put down), one figure after another.
fn live(frames: &[&TruthFile]) -> Vec<Step> {
    let key = stills(frames);
    let mut out: Vec<Step> = Vec::new();
    fn push(
        out: &mut Vec<Step>,
        label: String,
        figures: Vec<TruthFigure>,
        hands: Vec<Point2<f64>>,
    ) {
        let time_s = out.len() as f64 / LIVE_FPS;
        out.push(Step {
            label,
            time_s,
            figures,
            hands,
        });
    }
    for (k, step) in key.iter().enumerate() {
        push(
            &mut out,
            step.label.clone(),
            step.figures.clone(),
            step.hands.clone(),
        );
        let Some(next) = key.get(k + 1) else { break };
        // Start from this frame with the hand withdrawn: everything visible.
        let mut now: Vec<TruthFigure> = step
            .figures
            .iter()
            .map(|f| TruthFigure {
                occluded: false,
                ..f.clone()
            })
            .collect();
        push(
            &mut out,
            format!("{} clear", step.label),
            now.clone(),
            vec![],
        );
        let ids: Vec<u32> = now
            .iter()
            .map(|f| f.id)
            .chain(next.figures.iter().map(|f| f.id))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        for id in ids {
            let before = now.iter().position(|f| f.id == id);
            let after = next.figures.iter().find(|f| f.id == id);
            let changed = match (before.map(|i| &now[i]), after) {
                (Some(a), Some(b)) => {
                    (at(a) - at(b)).norm() > 1e-6 || (a.facing_deg - b.facing_deg).abs() > 1e-6
                }
                _ => true,
            };
            if !changed {
                continue;
            }
            let label = format!("{} -> {} #{id}", step.label, next.label);
            if let Some(i) = before {
                let from = at(&now[i]);
                now[i].occluded = true;
                for _ in 0..HAND_FRAMES {
                    push(&mut out, label.clone(), now.clone(), vec![from]);
                }
                now.remove(i);
            }
            if let Some(b) = after {
                let mut held = b.clone();
                held.occluded = true;
                now.push(held);
                for _ in 0..HAND_FRAMES {
                    push(&mut out, label.clone(), now.clone(), vec![at(b)]);
                }
                if let Some(last) = now.last_mut() {
                    last.occluded = false;
                }
            }
            push(&mut out, label, now.clone(), vec![]);
        }
    }
    let last = out.last().cloned().expect("a sequence");
    let settled: Vec<TruthFigure> = last
        .figures
        .iter()
        .map(|f| TruthFigure {
            occluded: false,
            ..f.clone()
        })
        .collect();
    for _ in 0..SETTLE_FRAMES {
        push(
            &mut out,
            format!("{} settled", last.label),
            settled.clone(),
            vec![],
        );
    }
    out
}

fn normal(rng: &mut StdRng) -> f64 {
    // Box-Muller; u1 in (0, 1] so the log is finite.
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[derive(Debug, Clone, Copy)]
struct Detector {
    /// Report hand regions (a detector that sees hands) or `None`.
    hands: bool,
    /// After the first frame, miss every figure whose (id + frame) is a
    /// multiple of this: single missed frames, never two in a row for one
    /// figure, and only figures standing where they stood (a figure missed
    /// in the very frame it is moved, while its twin is missed or moved too,
    /// is beyond one frame of hindsight: see the tracker's unit tests).
    dropout_every: Option<u32>,
}

fn observe(
    step: &Step,
    prev: Option<&Step>,
    frame: usize,
    det: Detector,
    rng: &mut StdRng,
) -> FrameObservation {
    let standing = |f: &TruthFigure| {
        prev.and_then(|s| s.figures.iter().find(|g| g.id == f.id))
            .is_some_and(|g| (at(g) - at(f)).norm() < 1e-6)
    };
    let detections = step
        .figures
        .iter()
        .filter(|f| !f.occluded)
        .filter(|f| {
            det.dropout_every
                .is_none_or(|n| !standing(f) || !(f.id + frame as u32).is_multiple_of(n))
        })
        .map(|f| Detection {
            center_in_table: Point2::new(
                f.x_in + POSITION_SIGMA_IN * normal(rng),
                f.y_in + POSITION_SIGMA_IN * normal(rng),
            ),
            facing_deg: Some((f.facing_deg + FACING_SIGMA_DEG * normal(rng)).rem_euclid(360.0)),
            edge: f.edge,
            base: f.base,
            confidence: 0.9,
            position_sigma_in: POSITION_SIGMA_IN,
            appearance: None,
            side: Default::default(),
        })
        .collect();
    FrameObservation {
        time_s: step.time_s,
        detections,
        occluded_regions_in_table: det.hands.then(|| {
            step.hands
                .iter()
                .map(|&c| OccludedRegion::Disc {
                    center_in_table: c,
                    radius_in: HAND_RADIUS_IN,
                })
                .collect()
        }),
    }
}

#[derive(Debug, Default)]
struct Score {
    frames: usize,
    switches: usize,
    unmatched_tracks: usize,
    final_error_max_in: f64,
    final_missing: usize,
    false_removals: usize,
    missed_removals: usize,
    ambiguous_flags: usize,
}

fn nearest(figs: &[TruthFigure], p: Point2<f64>, edge: EdgeColour) -> Option<(u32, f64)> {
    figs.iter()
        .filter(|f| f.edge == edge)
        .map(|f| (f.id, (at(f) - p).norm()))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn run(steps: &[Step], det: Detector, seed: u64) -> Score {
    let mut tracker = Tracker::new(TrackerParams::default()).unwrap();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut truth_of: BTreeMap<TrackId, u32> = BTreeMap::new();
    let mut removed_ids: Vec<u32> = Vec::new();
    let mut score = Score {
        frames: steps.len(),
        ..Score::default()
    };
    let mut last: Option<FrameReport> = None;
    for (i, step) in steps.iter().enumerate() {
        let prev = i.checked_sub(1).map(|k| &steps[k]);
        let report = tracker.update(&observe(step, prev, i, det, &mut rng));
        for f in report.figures.iter().filter(|f| f.seen) {
            match nearest(&step.figures, f.center_in_table, f.edge) {
                Some((tid, d)) if d <= MATCH_RADIUS_IN => {
                    let mapped = *truth_of.entry(f.id).or_insert(tid);
                    if mapped != tid {
                        score.switches += 1;
                        eprintln!(
                            "  switch: track {} (truth #{mapped}) on #{tid} at {}",
                            f.id, step.label
                        );
                    }
                }
                _ => score.unmatched_tracks += 1,
            }
        }
        for e in &report.events {
            match e.kind.name() {
                "removed" => {
                    let tid = truth_of.get(&e.id).copied();
                    eprintln!("  {}: track {} (truth {tid:?}) removed", step.label, e.id);
                    removed_ids.extend(tid);
                }
                "ambiguous" => score.ambiguous_flags += 1,
                _ => {}
            }
        }
        last = Some(report);
    }
    let (last, final_step) = (last.expect("frames"), steps.last().expect("frames"));
    for truth in &final_step.figures {
        let track = truth_of
            .iter()
            .find(|&(_, &t)| t == truth.id)
            .and_then(|(&id, _)| last.figures.iter().find(|f| f.id == id));
        match track {
            Some(f) if f.state != FigureState::Removed => {
                score.final_error_max_in = score
                    .final_error_max_in
                    .max((f.center_in_table - at(truth)).norm());
            }
            _ => score.final_missing += 1,
        }
    }
    let in_play: Vec<u32> = final_step.figures.iter().map(|f| f.id).collect();
    score.false_removals = removed_ids.iter().filter(|id| in_play.contains(id)).count();
    let gone: Vec<u32> = truth_of
        .values()
        .copied()
        .filter(|id| !in_play.contains(id))
        .collect();
    score.missed_removals = gone.iter().filter(|id| !removed_ids.contains(id)).count();
    score
}

#[test]
fn seq01_sequences_keep_every_identity() {
    let truth = load_truth();
    let all: Vec<&TruthFile> = truth.iter().collect();
    let reversed: Vec<&TruthFile> = truth.iter().rev().collect();
    // A missed figure is found again in the next frame: the camera keeps
    // looking at the final position.
    let all_then_still: Vec<&TruthFile> = all.iter().copied().chain(truth.last()).collect();
    let odd: Vec<&TruthFile> = truth.iter().step_by(2).collect();
    let odd_reversed: Vec<&TruthFile> = truth.iter().step_by(2).rev().collect();
    let with_hands = Detector {
        hands: true,
        dropout_every: None,
    };
    let no_hands = Detector {
        hands: false,
        dropout_every: None,
    };
    let dropouts = Detector {
        hands: true,
        dropout_every: Some(DROPOUT_CYCLE),
    };
    let cases: Vec<(&str, Vec<Step>, Detector, bool)> = vec![
        ("stills 1-7, hands", stills(&all), with_hands, true),
        ("stills 1-7, no hands", stills(&all), no_hands, true),
        (
            "stills 1-7-7, dropouts",
            stills(&all_then_still),
            dropouts,
            true,
        ),
        ("stills 7-1, hands", stills(&reversed), with_hands, true),
        ("stills 7-1, no hands", stills(&reversed), no_hands, true),
        ("stills 1,3,5,7, hands", stills(&odd), with_hands, true),
        (
            "stills 7,5,3,1, no hands",
            stills(&odd_reversed),
            no_hands,
            true,
        ),
        ("live 10 fps 1-7, hands", live(&all), with_hands, true),
        ("live 10 fps 7-1, hands", live(&reversed), with_hands, true),
        ("live 10 fps 1-7, no hands", live(&all), no_hands, true),
    ];
    println!(
        "{:<28} {:>6} {:>8} {:>9} {:>12} {:>8} {:>9} {:>8} {:>9}",
        "sequence",
        "frames",
        "switches",
        "unmatched",
        "final err in",
        "missing",
        "false rm",
        "missed",
        "ambiguous"
    );
    let mut failures = Vec::new();
    for (seed, (name, steps, det, expect_settled)) in cases.into_iter().enumerate() {
        eprintln!("{name}:");
        let s = run(&steps, det, seed as u64 + 1);
        println!(
            "{:<28} {:>6} {:>8} {:>9} {:>12.3} {:>8} {:>9} {:>8} {:>9}",
            name,
            s.frames,
            s.switches,
            s.unmatched_tracks,
            s.final_error_max_in,
            s.final_missing,
            s.false_removals,
            s.missed_removals,
            s.ambiguous_flags
        );
        if s.switches > 0
            || s.final_error_max_in > FINAL_POSITION_TOLERANCE_IN
            || s.final_missing > 0
            || s.false_removals > 0
            || (expect_settled && s.missed_removals > 0)
        {
            failures.push(name);
        }
    }
    assert!(failures.is_empty(), "failed: {failures:?}");
}
