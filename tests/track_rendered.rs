//! The identity measure on any rendered sequence: detector, hand
//! finder and tracker together, as `spotter track` runs them, on the photos
//! of a sequence folder (`frame-NN.jpg` + `frame-NN.truth.json`), with the
//! camera (K and dist) and the table layout read from the truth files, as
//! `detect_unseen` does for single photos. Scored against the truth.
//!
//! `measure_rendered_sequences` (ignored) measures the folders named in
//! `SPOTTER_SEQ_DIRS` (comma-separated `.../seqNN` folders); run with
//! `--ignored --nocapture`. Each sequence is run in order, reversed, every
//! other photo both ways, and in order with the last photo taken twice.
//!
//! `SPOTTER_SEQ_ORDERS` (order names as printed, separated by `;`: `1-8`,
//! `every other`) runs only those orders; `SPOTTER_SEQ_VERBOSE` prints each
//! frame's detections and the tracker's events.
//!
//! Printed per run and in total: identity switches (track ids mapped to
//! truth ids where each track first appears), figures lost at the end (a
//! truth figure with no live track), ambiguity flags raised, false tracks
//! (seen tracks that match no truth figure), the worst final position
//! error, and removals reported for figures in play / missed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::frames_in;
use serde_json::Value;
use spotter::calibration;
use spotter::vision::detect::Detector;
use spotter::vision::eval::Truth;
use spotter::vision::hands::{HandFinder, HandParams};
use spotter::vision::params::DetectorParams;
use spotter::vision::track::{
    FrameObservation, FrameReport, TrackEventKind, Tracker, TrackerParams,
};

/// A track belongs to the truth figure of its colour within this, inches.
const MATCH_RADIUS_IN: f64 = 0.5;
/// Seconds between two still photos, as `spotter track` assumes.
const STILL_GAP_S: f64 = 10.0;

fn load_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("truth file"))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn xy(v: &Value) -> (f64, f64) {
    (v["x_in"].as_f64().unwrap(), v["y_in"].as_f64().unwrap())
}

fn dist((ax, ay): (f64, f64), (bx, by): (f64, f64)) -> f64 {
    (ax - bx).hypot(ay - by)
}

/// What one run scored.
#[derive(Debug, Default, Clone)]
pub struct Score {
    /// Tracks that took another truth figure's place, without an
    /// ambiguity flag on them: each (track, figure) pair once.
    pub switches: usize,
    /// The same, counted on every frame it lasts.
    pub switch_frames: usize,
    /// Tracks that took another figure's place after the tracker flagged
    /// them ambiguous (the app asks the player): each pair once.
    pub flagged_switches: usize,
    pub lost: usize,
    /// Figures in play at the end that were hidden (the truth's `occluded`)
    /// in every photo of the run: no tracker can know them, so they are
    /// counted here and not as lost.
    pub never_visible: usize,
    pub flags: usize,
    pub false_tracks: usize,
    pub worst_final_in: f64,
    pub false_removals: usize,
    pub missed_removals: usize,
}

impl Score {
    fn add(&mut self, o: &Score) {
        self.switches += o.switches;
        self.switch_frames += o.switch_frames;
        self.flagged_switches += o.flagged_switches;
        self.lost += o.lost;
        self.never_visible += o.never_visible;
        self.flags += o.flags;
        self.false_tracks += o.false_tracks;
        self.worst_final_in = self.worst_final_in.max(o.worst_final_in);
        self.false_removals += o.false_removals;
        self.missed_removals += o.missed_removals;
    }

    fn line(&self) -> String {
        format!(
            "switches {} (on {} frames; and {} flagged ambiguous), lost {} (and {} never visible), ambiguity flags {}, false tracks {}, final error max {:.3} in, false removals {}, missed removals {}",
            self.switches,
            self.switch_frames,
            self.flagged_switches,
            self.lost,
            self.never_visible,
            self.flags,
            self.false_tracks,
            self.worst_final_in,
            self.false_removals,
            self.missed_removals
        )
    }
}

/// The tracker's reports on `photos` (in that order), as JSON values of
/// the figures and events, through the same detector, hand finder and
/// tracker as `spotter track`.
fn track_photos(photos: &[PathBuf]) -> Vec<FrameReport> {
    let truth = Truth::load(&photos[0].with_extension("truth.json")).expect("truth file");
    let params = DetectorParams::defaults().expect("built-in parameters");
    let detector = Detector::new(params, truth.layout.clone())
        .with_hands(HandFinder::new(HandParams::default()));
    let mut tracker = Tracker::new(TrackerParams::default()).expect("tracker");
    let mut out = Vec::new();
    for (i, photo) in photos.iter().enumerate() {
        let rgb = image::open(photo).expect("photo").to_rgb8();
        let gray = image::imageops::grayscale(&rgb);
        let mapping = calibration::detect_table(&gray, &truth.layout, Some(&truth.lens))
            .unwrap_or_else(|e| panic!("{}: no table: {e}", photo.display()));
        let mut found = detector.detect(&rgb, &mapping).expect("detection runs");
        spotter::vision::appearance::measure_all(&rgb, &mapping, &mut found.detections);
        if std::env::var_os("SPOTTER_SEQ_VERBOSE").is_some() {
            println!(
                "  {}: hands {:?}",
                photo.display(),
                found
                    .occluded_regions_in_table
                    .iter()
                    .map(|r| r.anchor_in_table())
                    .collect::<Vec<_>>()
            );
            for d in &found.detections {
                println!(
                    "    det {} {} ({:.2}, {:.2}) facing {:?} look {:?}",
                    d.edge.name(),
                    d.base.name(),
                    d.center_in_table.x,
                    d.center_in_table.y,
                    d.facing_deg.map(|f| f.round()),
                    d.appearance
                        .map(|a| a.features().map(|x| (x * 100.0).round() / 100.0))
                );
            }
        }
        let report = tracker.update(&FrameObservation {
            time_s: i as f64 * STILL_GAP_S,
            detections: found.detections,
            occluded_regions_in_table: Some(found.occluded_regions_in_table),
        });
        if std::env::var_os("SPOTTER_SEQ_VERBOSE").is_some() {
            for e in &report.events {
                println!("    event #{} {:?}", e.id, e.kind);
            }
        }
        out.push(report);
    }
    out
}

/// Scores the tracker's reports against the truth files of `photos`.
fn score(name: &str, photos: &[PathBuf], reports: &[FrameReport]) -> Score {
    let truth: Vec<Value> = photos
        .iter()
        .map(|p| load_json(&p.with_extension("truth.json")))
        .collect();
    let mut s = Score::default();
    let mut truth_of: BTreeMap<u32, u64> = BTreeMap::new();
    let mut removed: Vec<u64> = Vec::new();
    let mut flagged: std::collections::BTreeSet<u32> = Default::default();
    let mut switched: std::collections::BTreeSet<(u32, u64, bool)> = Default::default();
    for (r, t) in reports.iter().zip(&truth) {
        let figs = t["figures"].as_array().unwrap();
        for e in &r.events {
            match e.kind {
                TrackEventKind::Ambiguous { with } => {
                    s.flags += 1;
                    flagged.extend([e.id.0, with.0]);
                }
                TrackEventKind::Removed => {
                    if let Some(&tid) = truth_of.get(&e.id.0) {
                        println!("    {name} {}: track {} (#{tid}) removed", t["image"], e.id);
                        removed.push(tid);
                    }
                }
                _ => {}
            }
        }
        for f in r.figures.iter().filter(|f| f.seen) {
            let at = (f.center_in_table.x, f.center_in_table.y);
            let nearest = figs
                .iter()
                .filter(|g| g["edge"].as_str() == Some(f.edge.name()))
                .map(|g| (g["id"].as_u64().unwrap(), dist(xy(g), at)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            match nearest {
                Some((tid, d)) if d <= MATCH_RADIUS_IN => {
                    let mapped = *truth_of.entry(f.id.0).or_insert(tid);
                    if mapped != tid {
                        s.switch_frames += 1;
                        switched.insert((f.id.0, tid, flagged.contains(&f.id.0)));
                        println!(
                            "    {name} {}: switch: track {} (#{mapped}) on #{tid}",
                            t["image"], f.id
                        );
                    }
                }
                _ => {
                    s.false_tracks += 1;
                    println!(
                        "    {name} {}: track {} {} {} at ({:.2}, {:.2}) matches no truth figure",
                        t["image"],
                        f.id,
                        f.edge.name(),
                        f.base.name(),
                        at.0,
                        at.1
                    );
                }
            }
        }
    }
    s.switches = switched.iter().filter(|x| !x.2).count();
    s.flagged_switches = switched.iter().filter(|x| x.2).count();
    let last = reports.last().expect("a frame");
    let final_truth = truth.last().unwrap()["figures"].as_array().unwrap();
    for g in final_truth {
        let tid = g["id"].as_u64().unwrap();
        let best = last
            .figures
            .iter()
            .filter(|f| f.state.name() != "removed" && truth_of.get(&f.id.0) == Some(&tid))
            .map(|f| dist((f.center_in_table.x, f.center_in_table.y), xy(g)))
            .min_by(f64::total_cmp);
        match best {
            Some(d) => {
                if d > MATCH_RADIUS_IN {
                    println!("    {name}: truth #{tid} ends {d:.2} in from its track");
                }
                s.worst_final_in = s.worst_final_in.max(d)
            }
            None if !visible_in_run(&truth, tid) => {
                s.never_visible += 1;
                println!("    {name}: truth #{tid} is hidden in every photo of the run");
            }
            None => {
                s.lost += 1;
                println!("    {name}: truth #{tid} has no live track at the end");
            }
        }
    }
    let in_play: Vec<u64> = final_truth
        .iter()
        .map(|g| g["id"].as_u64().unwrap())
        .collect();
    s.false_removals = removed.iter().filter(|id| in_play.contains(id)).count();
    s.missed_removals = truth_of
        .values()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|id| !in_play.contains(id) && !removed.contains(id))
        .count();
    s
}

/// Whether truth figure `tid` is visible (not `occluded`) in any of the
/// run's truth files.
fn visible_in_run(truth: &[Value], tid: u64) -> bool {
    truth.iter().any(|t| {
        t["figures"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"].as_u64() == Some(tid) && g["occluded"].as_bool() == Some(false))
    })
}

/// The orders a sequence of `n` photos is run in: (name, frame indices).
fn orders(n: usize) -> Vec<(String, Vec<usize>)> {
    let all: Vec<usize> = (0..n).collect();
    let odd: Vec<usize> = (0..n).step_by(2).collect();
    let mut twice = all.clone();
    twice.push(n - 1);
    vec![
        (format!("1-{n}"), all.clone()),
        (format!("{n}-1"), all.iter().rev().copied().collect()),
        ("every other".into(), odd.clone()),
        (
            "every other, reversed".into(),
            odd.iter().rev().copied().collect(),
        ),
        (format!("1-{n},{n}"), twice),
    ]
}

/// Runs every order of every sequence folder; prints each and the whole.
pub fn measure(dirs: &[PathBuf]) -> Score {
    let mut total = Score::default();
    for dir in dirs {
        let photos = frames_in(dir);
        assert!(
            !photos.is_empty(),
            "{}: no frames with truth",
            dir.display()
        );
        let mut seq = Score::default();
        let only = std::env::var("SPOTTER_SEQ_ORDERS").ok();
        for (name, order) in orders(photos.len()) {
            if only
                .as_ref()
                .is_some_and(|o| !o.split(';').any(|o| o == name))
            {
                continue;
            }
            let run: Vec<PathBuf> = order.iter().map(|&i| photos[i].clone()).collect();
            let s = score(&name, &run, &track_photos(&run));
            println!("{} {name}: {}", dir.display(), s.line());
            seq.add(&s);
        }
        println!("{}: {}", dir.display(), seq.line());
        total.add(&seq);
    }
    println!("all {} sequences: {}", dirs.len(), total.line());
    total
}

#[test]
#[ignore = "measures the rendered sequences named in SPOTTER_SEQ_DIRS"]
fn measure_rendered_sequences() {
    let dirs: Vec<PathBuf> = std::env::var("SPOTTER_SEQ_DIRS")
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .collect();
    measure(&dirs);
}
