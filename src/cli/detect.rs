//! `spotter detect <IMAGE...> [--camera FILE] [--layout FILE] [--params FILE]
//! [--json] [--annotate DIR] [--truth]`: finds the figures on each photo.
//!
//! With `--json`, one `spotter.detections/1` object per photo (JSON Lines,
//! `TABLE_KIT.md`); otherwise a table. `--annotate` writes each photo with
//! what was found drawn on it; `--truth` scores each photo against the
//! `NAME.truth.json` beside it (fixture photos).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use image::RgbImage;
use nalgebra::{Point2, Vector2};

use super::{images, load_camera, load_layout};
use crate::calibration::{self, CalibrationError, Lens, TableLayout, TableMapping};
use crate::vision::cv::{self, Mark};
use crate::vision::detect::{Detector, FrameDetections, StageTimings};
use crate::vision::eval::{self, Summary, Truth};
use crate::vision::params::DetectorParams;
use crate::vision::rectify::CameraPose;
use crate::vision::report::{DetectionsRecord, TableSize};
use crate::vision::{BaseKind, Detection, EdgeColour};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Photos of the table, or folders of them.
    #[arg(required = true)]
    pub images: Vec<PathBuf>,
    /// Camera file from `spotter calibrate-lens` (undistorts; strongly advised).
    #[arg(long)]
    pub camera: Option<PathBuf>,
    /// Table layout file (default calibration/table.toml).
    #[arg(long)]
    pub layout: Option<PathBuf>,
    /// Detector parameters (default: the built-in calibration/vision.toml).
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// One JSON object per photo (JSON Lines, schema spotter.detections/1).
    #[arg(long)]
    pub json: bool,
    /// Write each photo with the figures drawn on it into this folder.
    #[arg(long)]
    pub annotate: Option<PathBuf>,
    /// Score each photo against the NAME.truth.json beside it.
    #[arg(long)]
    pub truth: bool,
}

/// Loads the parameters given, or the built-in ones.
pub fn load_params(path: Option<&Path>) -> anyhow::Result<DetectorParams> {
    match path {
        Some(p) => DetectorParams::load(p)
            .with_context(|| "loading the detector parameters (--params)".to_owned()),
        None => Ok(DetectorParams::defaults()?),
    }
}

/// One photo through markers and the detector.
pub struct PhotoResult {
    pub mapping: Result<TableMapping, CalibrationError>,
    pub frame: Option<FrameDetections>,
    pub timings: StageTimings,
}

/// Maps the table and detects the figures of one frame.
pub fn detect_photo(
    detector: &Detector,
    frame: &RgbImage,
    lens: Option<&Lens>,
) -> anyhow::Result<PhotoResult> {
    let t0 = Instant::now();
    let lens_here = lens
        .map(|l| l.for_image([frame.width(), frame.height()]))
        .transpose()?;
    let mapping = calibration::detect_table_rgb(frame, detector.layout(), lens_here.as_ref());
    let markers_ms = t0.elapsed().as_secs_f64() * 1e3;
    let mut timings = StageTimings {
        markers: markers_ms,
        total: markers_ms,
        ..StageTimings::default()
    };
    let frame_det = match &mapping {
        Ok(m) => {
            let mut f = detector.detect(frame, m)?;
            f.timings.markers = markers_ms;
            f.timings.total += markers_ms;
            timings = f.timings;
            Some(f)
        }
        Err(_) => None,
    };
    Ok(PhotoResult {
        mapping,
        frame: frame_det,
        timings,
    })
}

fn markers_of(err: &CalibrationError) -> Vec<u32> {
    match err {
        CalibrationError::TooFewMarkers { found, .. } => found.clone(),
        _ => Vec::new(),
    }
}

/// Nominal paint colour of an edge, for drawing.
fn paint(edge: EdgeColour) -> [u8; 3] {
    match edge {
        EdgeColour::Green => [30, 150, 60],
        EdgeColour::White => [235, 235, 228],
        EdgeColour::Blue => [35, 75, 190],
        EdgeColour::Red => [190, 35, 35],
    }
}

/// Colour of the facing arrows and labels: yellow reads on every mat.
const LABEL_RGB: [u8; 3] = [255, 230, 0];
/// Points on a drawn ring.
const RING_POINTS: usize = 48;
/// Length of the facing arrow, inches.
const ARROW_IN: f64 = 0.9;
/// Drawn outline, pixels.
const OUTLINE_PX: i32 = 2;
const LABEL_SCALE: f64 = 0.4;

fn annotate(
    frame: &RgbImage,
    mapping: &TableMapping,
    detector: &Detector,
    detections: &[Detection],
) -> anyhow::Result<RgbImage> {
    let pose = CameraPose::from_mapping(mapping, [frame.width(), frame.height()])?;
    let kit = &detector.params().kit;
    let z = kit.base_height_in;
    let lens = mapping.lens.as_ref();
    let to_px = |p: Point2<f64>| pose.pixel_from_table_at(p, z, lens);
    let mut marks = Vec::new();
    for d in detections {
        let c = d.center_in_table;
        let outline: Vec<Point2<f64>> = match d.base {
            BaseKind::Foot => (0..RING_POINTS)
                .map(|k| {
                    let a = std::f64::consts::TAU * k as f64 / RING_POINTS as f64;
                    to_px(c + Vector2::new(a.cos(), a.sin()) * (kit.foot_diameter_in / 2.0 + 0.05))
                })
                .collect(),
            BaseKind::Mounted => {
                let a = d.facing_deg.unwrap_or(0.0).to_radians();
                let u = Vector2::new(a.cos(), a.sin());
                let v = Vector2::new(-u.y, u.x);
                let (hl, hw) = (
                    kit.mounted_length_in / 2.0 + 0.05,
                    kit.mounted_width_in / 2.0 + 0.05,
                );
                [(hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw)]
                    .iter()
                    .map(|(a, b)| to_px(c + u * *a + v * *b))
                    .collect()
            }
        };
        marks.push(Mark::Polygon {
            points_px: outline,
            rgb: paint(d.edge),
            thickness_px: OUTLINE_PX,
        });
        if let Some(f) = d.facing_deg {
            let a = f.to_radians();
            marks.push(Mark::Arrow {
                from_px: to_px(c),
                to_px: to_px(c + Vector2::new(a.cos(), a.sin()) * ARROW_IN),
                rgb: LABEL_RGB,
                thickness_px: OUTLINE_PX,
            });
        }
        marks.push(Mark::Text {
            at_px: to_px(c + Vector2::new(0.7, -0.7)),
            text: format!("{:.2},{:.2}", c.x, c.y),
            rgb: LABEL_RGB,
            scale: LABEL_SCALE,
        });
    }
    Ok(cv::draw_marks(frame, &marks)?)
}

fn truth_path(photo: &Path) -> PathBuf {
    photo.with_extension("truth.json")
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let layout: TableLayout = load_layout(args.layout.as_deref())?;
    let lens = load_camera(args.camera.as_deref())?;
    let params = load_params(args.params.as_deref())?;
    let detector = Detector::new(params, layout.clone());
    if let Some(dir) = &args.annotate {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder {}", dir.display()))?;
    }
    let table = || TableSize {
        width_in: layout.width_in,
        depth_in: layout.depth_in,
    };
    let mut failures = 0;
    let mut summary = Summary::default();
    for path in images::expand(&args.images)? {
        let name = images::file_name(&path);
        let frame = match images::open_rgb(&path) {
            Ok(f) => f,
            Err(err) => {
                failures += 1;
                eprintln!("error: {err:#}");
                if args.json {
                    let rec = DetectionsRecord::failed(
                        name,
                        [0, 0],
                        table(),
                        Vec::new(),
                        format!("{err:#}"),
                        &StageTimings::default(),
                    );
                    println!("{}", serde_json::to_string(&rec)?);
                }
                continue;
            }
        };
        let size = [frame.width(), frame.height()];
        let result = detect_photo(&detector, &frame, lens.as_ref())?;
        let (mapping, found) = match (&result.mapping, &result.frame) {
            (Ok(m), Some(f)) => (m, f),
            (Err(err), _) => {
                failures += 1;
                let rec = DetectionsRecord::failed(
                    name.clone(),
                    size,
                    table(),
                    markers_of(err),
                    err.to_string(),
                    &result.timings,
                );
                if args.json {
                    println!("{}", serde_json::to_string(&rec)?);
                } else {
                    println!("{name}: no figures looked for: {err}");
                }
                continue;
            }
            (Ok(_), None) => continue,
        };
        if args.json {
            let rec = DetectionsRecord::found(
                name.clone(),
                size,
                table(),
                mapping.markers_found.clone(),
                mapping.residual_px,
                &found.detections,
                &found.timings,
            )
            .with_occluded(&found.occluded_regions_in_table)
            .with_terrain(&found.terrain);
            println!("{}", serde_json::to_string(&rec)?);
        } else {
            println!(
                "{name}: {} figures, markers {:?}, {:.1} ms",
                found.detections.len(),
                mapping.markers_found,
                found.timings.total
            );
            for t in &found.terrain {
                let c = t.center_in();
                println!(
                    "  terrain seen around ({:.1}, {:.1}) in, {:.1} sq in: what it is, the player says",
                    c.x, c.y, t.area_in2
                );
            }
            for r in &found.occluded_regions_in_table {
                let at = r.anchor_in_table();
                println!(
                    "  a hand covers the table around ({:.1}, {:.1}) in: figures under it are not listed",
                    at.x, at.y
                );
            }
            println!(
                "  {:>8} {:>8} {:>8} {:>6} {:>8} {:>5}",
                "x_in", "y_in", "facing", "edge", "base", "conf"
            );
            for d in &found.detections {
                let facing = d
                    .facing_deg
                    .map_or_else(|| "-".to_owned(), |f| format!("{f:.1}"));
                println!(
                    "  {:>8.3} {:>8.3} {:>8} {:>6} {:>8} {:>5.2}",
                    d.center_in_table.x,
                    d.center_in_table.y,
                    facing,
                    d.edge.name(),
                    d.base.name(),
                    d.confidence
                );
            }
        }
        if let Some(dir) = &args.annotate {
            let drawn = annotate(&frame, mapping, &detector, &found.detections)?;
            let out = dir.join(format!(
                "{}.annotated.png",
                path.file_stem()
                    .map_or_else(|| name.clone(), |s| s.to_string_lossy().into_owned())
            ));
            drawn
                .save(&out)
                .with_context(|| format!("cannot write {}", out.display()))?;
        }
        if args.truth {
            let truth = Truth::load(&truth_path(&path))?;
            let score = eval::score_frame(&truth.figures, &found.detections);
            let mut one = Summary::default();
            one.add(&truth.figures, &found.detections, &score);
            summary.add(&truth.figures, &found.detections, &score);
            eprintln!("{name}: {}", one.report());
        }
    }
    if args.truth {
        eprintln!("all: {}", summary.report());
    }
    Ok(if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
