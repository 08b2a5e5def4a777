//! `spotter track <INPUTS...> [--camera FILE] [--layout FILE] [--json]`:
//! follows every figure through a series of frames in order and reports,
//! per frame, where each figure is and what happened to it.
//!
//! # Conventions
//! Table frame and units of `TABLE_KIT.md` (inches, degrees counter-clockwise
//! from +x). Inputs are taken in the order given (folders expand to their
//! photos sorted by name). Detection records (`spotter.detections/1`, one
//! JSON object per line) can stand in for photos: a recorded game replays
//! without the camera.
//!
//! With `--json` each frame is one line of schema `spotter.tracks/1`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use nalgebra::Point2;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{images, load_camera, load_layout};
use crate::calibration::{self, Lens, TableLayout};
use crate::game::roster::{Bindings, Roster};
use crate::vision::appearance;
use crate::vision::detect::Detector;
use crate::vision::hands::{HandFinder, HandParams};
use crate::vision::params::DetectorParams;
use crate::vision::track::{
    FrameObservation, FrameReport, OccludedRegion, TrackEvent, TrackEventKind, TrackId,
    TrackedFigure, Tracker, TrackerParams,
};
use crate::vision::{BaseKind, Detection, EdgeColour};

/// Seconds assumed between two photos when the input gives no time: still
/// photos are taken after each move, seconds apart.
const DEFAULT_STILL_INTERVAL_S: f64 = 10.0;
/// Position sigma assumed for a recorded detection that gives none, inches.
const RECORDED_POSITION_SIGMA_IN: f64 = 0.05;
/// Decimals of inches and degrees in the JSON output (0.0001 in).
const JSON_DECIMALS: i32 = 4;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Photos of the table in order, folders of them, or detection records
    /// (`spotter.detections/1`, JSON Lines).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Camera file from `spotter calibrate-lens` (undistorts first).
    #[arg(long)]
    pub camera: Option<PathBuf>,
    /// Table layout file (default calibration/table.toml).
    #[arg(long)]
    pub layout: Option<PathBuf>,
    /// One JSON object per frame (JSON Lines, schema spotter.tracks/1).
    #[arg(long)]
    pub json: bool,
    /// Seconds between frames when the input does not say (still photos).
    #[arg(long, default_value_t = DEFAULT_STILL_INTERVAL_S)]
    pub frame_interval_s: f64,
    /// Tracker parameter file (TOML; any of the fields of TrackerParams).
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// Hand finder parameter file (TOML; any of the fields of HandParams).
    #[arg(long)]
    pub hand_params: Option<PathBuf>,
    /// Roster files (scenarios/rosters/*.toml) for --bind.
    #[arg(long)]
    pub roster: Vec<PathBuf>,
    /// Binds a figure of the first frame to a man of a roster: ID=NAME,
    /// e.g. --bind "10=Sergeant Hale". Repeat for more.
    #[arg(long)]
    pub bind: Vec<String>,
}

/// One frame to track, from a photo or a record.
struct InputFrame {
    name: String,
    time_s: Option<f64>,
    /// `Err` when the frame cannot be used (no table found): the tracker
    /// skips it rather than see every figure vanish.
    observation: Result<(Vec<Detection>, Option<Vec<OccludedRegion>>), String>,
}

#[derive(Debug, Deserialize)]
struct RawRecord {
    schema: String,
    image: String,
    #[serde(default)]
    figures: Vec<RawFigure>,
    #[serde(default)]
    time_s: Option<f64>,
    #[serde(default)]
    occluded_regions_in_table: Option<Vec<OccludedRegion>>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawFigure {
    x_in: f64,
    y_in: f64,
    facing_deg: Option<f64>,
    edge: EdgeColour,
    base: BaseKind,
    #[serde(default)]
    confidence: Option<f64>,
    #[serde(default)]
    position_sigma_in: Option<f64>,
    #[serde(default)]
    appearance: Option<crate::vision::appearance::Appearance>,
}

const DETECTIONS_SCHEMA: &str = "spotter.detections/1";

fn is_record(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "json" | "jsonl"))
}

/// Reads detection records: one JSON object per line (a pretty-printed
/// single object is accepted too).
fn read_records(path: &Path) -> anyhow::Result<Vec<InputFrame>> {
    let text = crate::spec::read_text_capped(path, crate::spec::MAX_PHOTO_BYTES)
        .with_context(|| format!("cannot read the detection record {}", path.display()))?;
    let values: Vec<Value> = match serde_json::from_str::<Value>(&text) {
        Ok(v) => vec![v],
        Err(_) => text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                serde_json::from_str(l)
                    .with_context(|| format!("{}:{}: not a JSON object", path.display(), i + 1))
            })
            .collect::<anyhow::Result<_>>()?,
    };
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let rec: RawRecord = serde_json::from_value(v).with_context(|| {
                format!(
                    "{} record {}: not a {DETECTIONS_SCHEMA} object",
                    path.display(),
                    i + 1
                )
            })?;
            if rec.schema != DETECTIONS_SCHEMA {
                bail!(
                    "{} record {}: schema is {:?}, expected {DETECTIONS_SCHEMA:?}",
                    path.display(),
                    i + 1,
                    rec.schema
                );
            }
            let observation = match rec.error {
                Some(e) => Err(e),
                None => Ok((
                    rec.figures
                        .into_iter()
                        .map(|f| Detection {
                            center_in_table: Point2::new(f.x_in, f.y_in),
                            facing_deg: f.facing_deg,
                            edge: f.edge,
                            base: f.base,
                            confidence: f.confidence.unwrap_or(1.0),
                            position_sigma_in: f
                                .position_sigma_in
                                .unwrap_or(RECORDED_POSITION_SIGMA_IN),
                            appearance: f.appearance,
                            side: Default::default(),
                        })
                        .collect(),
                    rec.occluded_regions_in_table,
                )),
            };
            Ok(InputFrame {
                name: rec.image,
                time_s: rec.time_s,
                observation,
            })
        })
        .collect()
}

fn round(v: f64) -> f64 {
    let k = 10f64.powi(JSON_DECIMALS);
    (v * k).round() / k
}

fn figure_json(f: &TrackedFigure, bindings: &Bindings) -> Value {
    let mut v = json!({
        "id": f.id.0,
        "x_in": round(f.center_in_table.x),
        "y_in": round(f.center_in_table.y),
        "facing_deg": f.facing_deg.map(round),
        "edge": f.edge.name(),
        "base": f.base.name(),
        "state": f.state.name(),
        "seen": f.seen,
    });
    if let Some(b) = bindings.get(f.id) {
        v["side"] = json!(b.side);
        v["name"] = json!(b.entry.name);
        v["rank"] = json!(b.entry.rank);
        v["weapon"] = json!(b.entry.weapon);
        v["experience"] = json!(b.entry.experience);
    }
    if let Some(other) = f.ambiguous_with {
        v["ambiguous_with"] = json!(other.0);
    }
    v
}

fn point_json(p: Point2<f64>) -> Value {
    json!([round(p.x), round(p.y)])
}

fn event_json(e: &TrackEvent) -> Value {
    let mut v = json!({ "kind": e.kind.name(), "id": e.id.0 });
    match &e.kind {
        TrackEventKind::Moved {
            from_in_table,
            to_in_table,
            distance_in,
            turned_deg,
        } => {
            v["from_in"] = point_json(*from_in_table);
            v["to_in"] = point_json(*to_in_table);
            v["distance_in"] = json!(round(*distance_in));
            v["turned_deg"] = json!(turned_deg.map(round));
        }
        TrackEventKind::Placed {
            from_in_table,
            to_in_table,
        } => {
            v["from_in"] = from_in_table.map_or(Value::Null, point_json);
            v["to_in"] = point_json(*to_in_table);
        }
        TrackEventKind::Ambiguous { with } => v["with"] = json!(with.0),
        TrackEventKind::Lifted | TrackEventKind::Removed => {}
    }
    v
}

fn event_text(e: &TrackEvent) -> String {
    match &e.kind {
        TrackEventKind::Moved {
            distance_in,
            turned_deg,
            ..
        } => match turned_deg {
            Some(t) if t.abs() >= 1.0 => {
                format!("#{} moved {distance_in:.2} in, turned {t:+.0}", e.id)
            }
            _ => format!("#{} moved {distance_in:.2} in", e.id),
        },
        TrackEventKind::Placed {
            from_in_table: Some(from),
            to_in_table,
        } => format!(
            "#{} placed {:.2} in from where it was lifted",
            e.id,
            (to_in_table - from).norm()
        ),
        TrackEventKind::Placed {
            from_in_table: None,
            ..
        } => format!("#{} new on the table", e.id),
        TrackEventKind::Lifted => format!("#{} lifted", e.id),
        TrackEventKind::Removed => format!("#{} removed", e.id),
        TrackEventKind::Ambiguous { with } => {
            format!("#{} ambiguous with #{with} (confirm or swap)", e.id)
        }
    }
}

/// Applies `--bind ID=NAME` once the first frame has given the ids.
fn bind_all(
    specs: &[String],
    rosters: &[Roster],
    tracker: &Tracker,
    bindings: &mut Bindings,
) -> anyhow::Result<()> {
    for spec in specs {
        let Some((id, name)) = spec.split_once('=') else {
            bail!("--bind {spec:?}: write ID=NAME, e.g. --bind \"10=Sergeant Hale\"");
        };
        let id: u32 = id
            .trim()
            .parse()
            .with_context(|| format!("--bind {spec:?}: {id:?} is not a figure id"))?;
        let name = name.trim();
        let owners: Vec<&Roster> = rosters.iter().filter(|r| r.entry(name).is_some()).collect();
        let roster = match owners.as_slice() {
            [one] => *one,
            [] => bail!("--bind {spec:?}: no roster given with --roster has a man called {name:?}"),
            _ => bail!("--bind {spec:?}: {name:?} is on more than one roster"),
        };
        let figure = tracker
            .figure(TrackId(id))
            .with_context(|| format!("--bind {spec:?}: the first frame has no figure {id}"))?;
        bindings
            .bind(&figure, roster, name)
            .with_context(|| format!("--bind {spec:?}"))?;
    }
    Ok(())
}

/// What photos need: the table layout, the lens and the detector.
struct PhotoDetector {
    detector: Detector,
    layout: TableLayout,
    lens: Option<Lens>,
}

impl PhotoDetector {
    fn new(args: &Args) -> anyhow::Result<Self> {
        let layout = load_layout(args.layout.as_deref())?;
        let lens = load_camera(args.camera.as_deref())?;
        let params = DetectorParams::defaults().context("the built-in detector parameters")?;
        let hands = match &args.hand_params {
            Some(p) => {
                HandParams::load(p).context("loading the hand finder parameters (--hand-params)")?
            }
            None => HandParams::default(),
        };
        Ok(Self {
            // One detector for the whole series: the hand finder remembers
            // the terrain it has seen.
            detector: Detector::new(params, layout.clone()).with_hands(HandFinder::new(hands)),
            layout,
            lens,
        })
    }

    /// Maps the table and detects the figures of one photo. A photo whose
    /// table markers are not found is an unusable frame, not an error.
    fn frame(&self, path: &Path) -> anyhow::Result<InputFrame> {
        let rgb = images::open_rgb(path)?;
        let gray = image::imageops::grayscale(&rgb);
        let lens = self
            .lens
            .as_ref()
            .map(|l| l.for_image([rgb.width(), rgb.height()]))
            .transpose()
            .with_context(|| format!("the photo {}", path.display()))?;
        let observation = match calibration::detect_table(&gray, &self.layout, lens.as_ref()) {
            Ok(mapping) => {
                let mut found = self
                    .detector
                    .detect(&rgb, &mapping)
                    .with_context(|| format!("detecting the figures of {}", path.display()))?;
                appearance::measure_all(&rgb, &mapping, &mut found.detections);
                Ok((found.detections, Some(found.occluded_regions_in_table)))
            }
            Err(err) => Err(err.to_string()),
        };
        Ok(InputFrame {
            name: images::file_name(path),
            time_s: None,
            observation,
        })
    }
}

fn load_frames(args: &Args) -> anyhow::Result<Vec<InputFrame>> {
    let mut frames = Vec::new();
    let mut photos: Option<PhotoDetector> = None;
    for input in &args.inputs {
        if is_record(input) {
            frames.extend(read_records(input)?);
            continue;
        }
        for path in images::expand(std::slice::from_ref(input))? {
            let detector = match &mut photos {
                Some(d) => d,
                None => photos.insert(PhotoDetector::new(args)?),
            };
            frames.push(detector.frame(&path)?);
        }
    }
    Ok(frames)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let params = match &args.params {
        Some(p) => TrackerParams::load(p).context("loading the tracker parameters (--params)")?,
        None => TrackerParams::default(),
    };
    if !(args.frame_interval_s.is_finite() && args.frame_interval_s >= 0.0) {
        bail!("--frame-interval-s must be zero or more seconds");
    }
    let rosters: Vec<Roster> = args
        .roster
        .iter()
        .map(|p| Roster::load(p).context("loading a roster (--roster)"))
        .collect::<anyhow::Result<_>>()?;
    let frames = load_frames(&args)?;
    let mut tracker = Tracker::new(params)?;
    let mut bindings = Bindings::default();
    let mut bound = false;
    for (i, frame) in frames.iter().enumerate() {
        let time_s = frame.time_s.unwrap_or(i as f64 * args.frame_interval_s);
        let report: Option<FrameReport> = match &frame.observation {
            Ok((detections, regions)) => Some(tracker.update(&FrameObservation {
                time_s,
                detections: detections.clone(),
                occluded_regions_in_table: regions.clone(),
            })),
            Err(_) => None,
        };
        if report.is_some() && !bound {
            bind_all(&args.bind, &rosters, &tracker, &mut bindings)?;
            bound = true;
        }
        let figures = report
            .as_ref()
            .map_or_else(|| tracker.figures(), |r| r.figures.clone());
        let events = report.as_ref().map_or(&[][..], |r| &r.events[..]);
        if args.json {
            let mut line = json!({
                "schema": "spotter.tracks/1",
                "image": frame.name,
                "figures": figures.iter().map(|f| figure_json(f, &bindings)).collect::<Vec<_>>(),
                "events": events.iter().map(event_json).collect::<Vec<_>>(),
            });
            if let Err(e) = &frame.observation {
                line["error"] = json!(e);
            }
            println!("{line}");
        } else {
            match &frame.observation {
                Err(e) => println!("{}: skipped: {e}", frame.name),
                Ok(_) => {
                    let count = |s: &str| figures.iter().filter(|f| f.state.name() == s).count();
                    let happened: Vec<String> = events.iter().map(event_text).collect();
                    println!(
                        "{}: {} on the table, {} held, {} removed{}{}",
                        frame.name,
                        count("on_table"),
                        count("held"),
                        count("removed"),
                        if happened.is_empty() { "" } else { "; " },
                        happened.join(", ")
                    );
                }
            }
        }
    }
    if !args.json {
        println!("Movement from the first frame to the last:");
        for m in tracker.turn_movement() {
            let Some(f) = tracker.figure(m.id) else {
                continue;
            };
            let who = bindings
                .get(m.id)
                .map(|b| format!(" {} ({})", b.entry.name, b.side))
                .unwrap_or_default();
            println!(
                "  #{}{who} {} {}: {}, path {:.2} in, start to end {:.2} in{}",
                m.id,
                f.edge.name(),
                f.base.name(),
                f.state.name(),
                m.path_in,
                m.straight_in,
                m.turned_deg
                    .map(|t| format!(", turned {t:+.0} deg"))
                    .unwrap_or_default()
            );
        }
    }
    Ok(if frames.iter().all(|f| f.observation.is_ok()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}
