//! `spotter bench <IMAGES...> [--camera FILE] [--layout FILE] [--params FILE]
//! [--runs N]`: per-stage timings of the figure detector (markers, undistort
//! and rectify, segmentation, fitting, classification, total), median and
//! p95 over repeated runs, first on one thread, then on all cores (OpenCV's
//! threads plus one frame per core at once, which also gives a throughput).
//! A third table times the figure detector alone on one thread with each
//! photo's table mapping locked, as the app runs it on live video (the
//! markers are searched off the frame path and the mapping is kept between
//! re-locks, so the top-view maps are made once). A fourth times the photos
//! in order as frames of one live camera: the markers are searched in
//! windows around where they were on the last frame (see
//! `calibration::live`), and the detector runs on each frame's own mapping.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::bail;

use super::detect::{detect_photo, load_params};
use super::{images, load_camera, load_layout};
use crate::calibration::{self, Lens, MarkerTracker, SearchKind};
use crate::vision::cv;
use crate::vision::detect::{Detector, StageTimings};
use crate::vision::eval::quantile;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Photos of the table, or folders of them.
    #[arg(required = true)]
    pub images: Vec<PathBuf>,
    #[arg(long)]
    pub camera: Option<PathBuf>,
    #[arg(long)]
    pub layout: Option<PathBuf>,
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// Runs over every photo per setting (the first is a warm-up, not counted).
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
}

const STAGES: [&str; 6] = [
    "markers",
    "undistort+rectify",
    "segmentation",
    "fitting",
    "classification",
    "total",
];

fn stage_values(t: &StageTimings) -> [f64; 6] {
    [
        t.markers,
        t.undistort_rectify,
        t.segmentation,
        t.fitting,
        t.classification,
        t.total,
    ]
}

fn print_table(title: &str, samples: &[StageTimings]) {
    println!("{title} ({} frames timed)", samples.len());
    println!("  {:<18} {:>10} {:>10}", "stage", "median ms", "p95 ms");
    for (k, name) in STAGES.iter().enumerate() {
        let v: Vec<f64> = samples.iter().map(|t| stage_values(t)[k]).collect();
        println!(
            "  {:<18} {:>10.2} {:>10.2}",
            name,
            quantile(&v, 0.5),
            quantile(&v, 0.95)
        );
    }
}

fn time_frames(
    detector: &Detector,
    frames: &[image::RgbImage],
    lens: Option<&Lens>,
    runs: usize,
) -> anyhow::Result<Vec<StageTimings>> {
    let mut out = Vec::new();
    for run in 0..=runs {
        for f in frames {
            let r = detect_photo(detector, f, lens)?;
            if run > 0 {
                out.push(r.timings);
            }
        }
    }
    Ok(out)
}

/// Times the detector alone on each frame with its mapping found once:
/// every frame is run `runs` times in a row after a warm-up run.
fn time_locked(
    detector: &Detector,
    frames: &[image::RgbImage],
    lens: Option<&Lens>,
    runs: usize,
) -> anyhow::Result<Vec<StageTimings>> {
    let mut out = Vec::new();
    for f in frames {
        let lens_here = lens.map(|l| l.scaled_to([f.width(), f.height()]));
        let Ok(mapping) = calibration::detect_table_rgb(f, detector.layout(), lens_here.as_ref())
        else {
            continue;
        };
        for run in 0..=runs {
            let r = detector.detect(f, &mapping)?;
            if run > 0 {
                out.push(r.timings);
            }
        }
    }
    Ok(out)
}

/// Times the frames as a live camera gives them: in order, the markers
/// followed from frame to frame by a [`MarkerTracker`] (searched in windows
/// around their last positions, the whole frame only when those lose them),
/// then the detector on that frame's own mapping. Returns the timings and
/// how many timed frames needed a whole-frame marker search.
fn time_live(
    detector: &Detector,
    frames: &[image::RgbImage],
    lens: Option<&Lens>,
    runs: usize,
) -> anyhow::Result<(Vec<StageTimings>, usize)> {
    let mut tracker = MarkerTracker::new(detector.layout().clone(), lens.cloned());
    let mut out = Vec::new();
    let mut whole = 0;
    for run in 0..=runs {
        for f in frames {
            let t0 = Instant::now();
            let mapping = tracker.table_rgb(f);
            let markers_ms = t0.elapsed().as_secs_f64() * 1e3;
            let mut timings = StageTimings {
                markers: markers_ms,
                total: markers_ms,
                ..StageTimings::default()
            };
            if let Ok(m) = &mapping {
                timings = detector.detect(f, m)?.timings;
                timings.markers = markers_ms;
                timings.total += markers_ms;
            }
            if run > 0 {
                out.push(timings);
                whole += usize::from(tracker.last_search == Some(SearchKind::Whole));
            }
        }
    }
    Ok((out, whole))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let layout = load_layout(args.layout.as_deref())?;
    let lens = load_camera(args.camera.as_deref())?;
    let params = load_params(args.params.as_deref())?;
    let detector = Detector::new(params, layout);
    let paths = images::expand(&args.images)?;
    let frames: Vec<image::RgbImage> = paths
        .iter()
        .map(|p| images::open_rgb(p))
        .collect::<anyhow::Result<_>>()?;
    if frames.is_empty() {
        bail!("no photos to time");
    }
    if cfg!(debug_assertions) {
        println!(
            "note: a debug build; time a release build (cargo build --release) for real figures"
        );
    }
    cv::set_threads(1)?;
    let single = time_frames(&detector, &frames, lens.as_ref(), args.runs)?;
    print_table("one thread", &single);
    let locked = time_locked(&detector, &frames, lens.as_ref(), args.runs)?;
    print_table(
        "one thread, mapping locked (live video: markers off the frame path)",
        &locked,
    );
    let (live, whole) = time_live(&detector, &frames, lens.as_ref(), args.runs)?;
    print_table(
        "one thread, live video (markers followed from frame to frame, in order)",
        &live,
    );
    println!(
        "  markers searched over the whole frame on {whole} of {} timed frames",
        live.len()
    );

    cv::set_threads(0)?;
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let t0 = Instant::now();
    let results: Vec<anyhow::Result<Vec<StageTimings>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..cores)
            .map(|worker| {
                let detector = &detector;
                let frames = &frames;
                let lens = lens.as_ref();
                let runs = args.runs;
                s.spawn(move || -> anyhow::Result<Vec<StageTimings>> {
                    // Each worker takes every `cores`-th frame of each run.
                    let mut out = Vec::new();
                    for run in 0..=runs {
                        for f in frames.iter().skip(worker).step_by(cores) {
                            let r = detect_photo(detector, f, lens)?;
                            if run > 0 {
                                out.push(r.timings);
                            }
                        }
                    }
                    Ok(out)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a bench worker panicked")))
            })
            .collect()
    });
    let wall_s = t0.elapsed().as_secs_f64();
    let mut all = Vec::new();
    for r in results {
        all.extend(r?);
    }
    print_table(
        &format!("all cores ({cores} workers, OpenCV threads on)"),
        &all,
    );
    let frames_done = frames.len() * (args.runs + 1);
    println!("  throughput {:.1} frames/s", frames_done as f64 / wall_s);
    Ok(ExitCode::SUCCESS)
}
