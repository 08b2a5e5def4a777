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

use anyhow::{Context, bail};

use super::detect::{detect_photo, load_params};
use super::{images, load_camera, load_layout};
use crate::calibration::{self, Lens, MarkerTracker, SearchKind};
use crate::capture::blocks::{PartialDecodeParams, PartialDecoder};
use crate::capture::decode::{FASTEST, JpegDecoder, decode_jpeg};
use crate::vision::crowd::{Crowd, CrowdSpec, Sampling, webcam_jpeg, with_sensor_noise};
use crate::vision::cv;
use crate::vision::detect::{Detector, StageTimings};
use crate::vision::eval::quantile;
use crate::vision::incremental::{FrameWork, IncrementalDetector, IncrementalParams};

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
    /// Also time crowded tables built from the first photo (see
    /// `vision::crowd`): the incremental detector on sequences with these
    /// many figures on the table...
    #[arg(long, value_delimiter = ',')]
    pub crowd: Vec<usize>,
    /// ...and these many moved per frame.
    #[arg(long, value_delimiter = ',', default_value = "0,5,20")]
    pub moved: Vec<usize>,
    /// Steady-state frames timed per crowded sequence (after 5 untimed).
    #[arg(long, default_value_t = 40)]
    pub frames: usize,
    /// The crowded frames at this size (the photo scaled), e.g. 2560x1440.
    #[arg(long)]
    pub size: Option<String>,
    /// JPEG quality of the crowded frames (a webcam's MJPEG).
    #[arg(long, default_value_t = 85)]
    pub quality: u8,
    /// Chroma subsampling of the crowded frames: 422 (UVC webcams' MJPEG),
    /// 420 or 444.
    #[arg(long, default_value = "422")]
    pub sampling: Sampling,
    /// Sensor noise added to each crowded frame, levels (a webcam's frames
    /// differ everywhere even where nothing moved; 0: none).
    #[arg(long, default_value_t = 2.0)]
    pub noise: f64,
    /// Write the first crowded sequence's frames (JPEG) to this folder, for
    /// `spotter app --bench --source DIR`, and its camera file beside them.
    #[arg(long)]
    pub write_crowd: Option<PathBuf>,
    /// Threads the crowded runs fit bases on (1: one core, as with
    /// `taskset -c 0`; 2: both cores, as the app runs).
    #[arg(long, default_value_t = 1)]
    pub fit_threads: usize,
    /// Only the crowded tables (skip the per-photo tables).
    #[arg(long)]
    pub crowd_only: bool,
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

/// Prints rows of named samples as median and p95.
fn print_rows(title: &str, n: usize, rows: &[(&str, Vec<f64>)]) {
    println!("{title} ({n} frames timed)");
    println!("  {:<26} {:>10} {:>10}", "stage", "median ms", "p95 ms");
    for (name, v) in rows {
        println!(
            "  {:<26} {:>10.2} {:>10.2}",
            name,
            quantile(v, 0.5),
            quantile(v, 0.95)
        );
    }
}

/// Milliseconds to decode each photo's file with each JPEG decoder, over
/// `runs` runs (photos that are not JPEG files are skipped).
fn time_decoders(paths: &[PathBuf], runs: usize) -> Vec<(JpegDecoder, Vec<f64>)> {
    let files: Vec<Vec<u8>> = paths
        .iter()
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("jpg") || e.eq_ignore_ascii_case("jpeg"))
        })
        .filter_map(|p| crate::spec::read_capped(p, crate::spec::MAX_PHOTO_BYTES).ok())
        .collect();
    JpegDecoder::ALL
        .iter()
        .map(|&d| {
            let mut v = Vec::new();
            for run in 0..=runs {
                for f in &files {
                    let t = Instant::now();
                    let ok = decode_jpeg(f, d).is_ok();
                    if run > 0 && ok {
                        v.push(t.elapsed().as_secs_f64() * 1e3);
                    }
                }
            }
            (d, v)
        })
        .collect()
}

/// The crowded-table runs: per figure count and moves per frame, the
/// first frame (markers over the whole frame, then the whole table) and
/// the steady state (the mapping locked, the incremental detector), decode
/// included. Returns (figures, moved, median, p95) of the steady totals.
fn run_crowds(
    args: &Args,
    detector: &Detector,
    photo: &image::RgbImage,
    lens: Option<&Lens>,
) -> anyhow::Result<Vec<(usize, usize, f64, f64)>> {
    let (photo, lens) = match &args.size {
        Some(size) => {
            let (w, h) = size
                .split_once('x')
                .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
                .ok_or_else(|| anyhow::anyhow!("--size {size}: expected WIDTHxHEIGHT"))?;
            (
                image::imageops::resize(photo, w, h, image::imageops::FilterType::Triangle),
                lens.map(|l| l.scaled_to([w, h])),
            )
        }
        None => (
            photo.clone(),
            lens.map(|l| l.scaled_to([photo.width(), photo.height()])),
        ),
    };
    let mapping = calibration::detect_table_rgb(&photo, detector.layout(), lens.as_ref())
        .map_err(|e| anyhow::anyhow!("the first photo's table markers: {e}"))?;
    let found = detector.detect(&photo, &mapping)?.detections;
    let mut curve = Vec::new();
    let mut wrote = false;
    for &figures in &args.crowd {
        let pasted = figures.saturating_sub(found.len());
        for &moved in &args.moved {
            let mut crowd = Crowd::new(
                &photo,
                &mapping,
                detector.layout(),
                &found,
                &CrowdSpec {
                    foot_diameter_in: detector.params().kit.foot_diameter_in,
                    spacing_in: 2.2,
                    figures: pasted,
                    seed: (figures * 31 + moved) as u64,
                },
            );
            let warm = 5;
            let mut jpegs = Vec::new();
            for k in 0..=(warm + args.frames) {
                if k > 0 {
                    crowd.step(moved);
                }
                let frame = crowd.frame();
                let frame = if args.noise > 0.0 {
                    with_sensor_noise(&frame, args.noise, k as u64 + 1)
                } else {
                    frame
                };
                jpegs.push(
                    webcam_jpeg(&frame, args.quality, args.sampling).map_err(anyhow::Error::msg)?,
                );
            }
            if let (Some(dir), false) = (&args.write_crowd, wrote) {
                std::fs::create_dir_all(dir)?;
                for (k, j) in jpegs.iter().enumerate() {
                    std::fs::write(dir.join(format!("frame-{k:03}.jpg")), j)?;
                }
                if let Some(l) = &lens {
                    std::fs::write(dir.join("camera.toml"), l.to_toml(0, &[]))?;
                }
                println!("wrote {} crowded frames to {}", jpegs.len(), dir.display());
                wrote = true;
            }
            // The first frame: decode, markers over the whole frame, the
            // whole table.
            let mut inc = IncrementalDetector::new(
                detector.clone().with_fit_threads(args.fit_threads),
                IncrementalParams::default(),
            );
            // The camera's decoder: frames in order, only what changed is
            // made again (capture::blocks).
            let mut partial = PartialDecoder::new(PartialDecodeParams::default());
            let t = Instant::now();
            let first = partial.decode(&jpegs[0])?.clone();
            let decode_first = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            let locked = calibration::detect_table_rgb(&first, detector.layout(), lens.as_ref())
                .map_err(|e| anyhow::anyhow!("markers on the crowded frame: {e}"))?;
            let markers_first = t.elapsed().as_secs_f64() * 1e3;
            let r = inc.detect_changed(&first, &locked, partial.changes().as_ref())?;
            let on_table = r.detections.len();
            let borderline = detector.params().confidence.min_report
                + IncrementalParams::default().recheck_margin;
            println!(
                "  figures under confidence {borderline:.2} (detected again every frame): {}",
                r.detections
                    .iter()
                    .filter(|d| d.confidence < borderline)
                    .count()
            );
            println!(
                "\ncrowd: {on_table} figures found on the table ({} pasted of {figures} asked, {} free places), {moved} moved per frame, {}x{}, JPEG {:?} quality {}, noise {} levels, {} kB a frame",
                crowd.len(),
                crowd.places(),
                first.width(),
                first.height(),
                args.sampling,
                args.quality,
                args.noise,
                jpegs.iter().map(Vec::len).sum::<usize>() / jpegs.len().max(1) / 1000
            );
            println!(
                "  first frame: decode {decode_first:.2} ms, markers {markers_first:.2} ms, whole table {:.2} ms (fitting {:.2}), total {:.2} ms",
                r.timings.total,
                r.timings.detector.fitting,
                decode_first + markers_first + r.timings.total
            );
            let mut rows: Vec<(&str, Vec<f64>)> = [
                "decode",
                "  of which entropy pass",
                "  of which change test",
                "  of which pixels made",
                "change test",
                "re-confirm",
                "rectify (parts)",
                "segmentation (parts)",
                "fitting (parts)",
                "classification (parts)",
                "total, decode included",
            ]
            .iter()
            .map(|n| (*n, Vec::new()))
            .collect();
            let (mut whole, mut share, mut made) = (0, Vec::new(), Vec::new());
            let (mut unfitted_total, mut drifted_total) = (0, 0);
            for (k, j) in jpegs.iter().enumerate().skip(1) {
                let t = Instant::now();
                partial.decode(j)?;
                // The changes go with the frame (the camera's copy of them).
                let changes = partial.changes();
                let decode_ms = t.elapsed().as_secs_f64() * 1e3;
                let work = partial.last_work();
                let frame = partial
                    .frame()
                    .ok_or_else(|| anyhow::anyhow!("no decoded frame"))?;
                let r = inc.detect_changed(frame, &locked, changes.as_ref())?;
                if k <= warm {
                    continue;
                }
                made.push(work.share());
                match r.work {
                    FrameWork::Whole(_) => whole += 1,
                    FrameWork::Parts {
                        share: s,
                        unfitted,
                        drifted,
                        ..
                    } => {
                        share.push(s);
                        unfitted_total += unfitted;
                        drifted_total += drifted;
                    }
                }
                let d = &r.timings.detector;
                for (row, v) in rows.iter_mut().zip([
                    decode_ms,
                    work.entropy_ms,
                    work.test_ms,
                    work.pixels_ms,
                    r.timings.change,
                    r.timings.confirm,
                    d.undistort_rectify,
                    d.segmentation,
                    d.fitting,
                    d.classification,
                    decode_ms + r.timings.total,
                ]) {
                    row.1.push(v);
                }
            }
            // The part of the change test that is the frame's context (the
            // pose and the white reference from the markers' paper).
            if let Some(frame) = partial.frame() {
                let ctx_ms: Vec<f64> = (0..args.frames.max(1))
                    .map(|_| {
                        let t = Instant::now();
                        let _ = detector.frame_context(frame, &locked);
                        t.elapsed().as_secs_f64() * 1e3
                    })
                    .collect();
                println!(
                    "  of the change test, the frame context (pose, white reference): median {:.2} ms",
                    quantile(&ctx_ms, 0.5)
                );
            }
            print_rows(
                &format!("  steady state, {on_table} figures, {moved} moved per frame"),
                args.frames,
                &rows,
            );
            println!(
                "  whole-table detections in the steady state: {whole}; table share detected again per frame: median {:.3}; share of the frame's MCUs decoded: median {:.3}",
                quantile(&share, 0.5),
                quantile(&made, 0.5)
            );
            println!(
                "  components known to give no figure, not fitted again: {unfitted_total} over {} frames",
                args.frames
            );
            println!(
                "  parts whose kept top view was made again after the exposure or white balance drifted: {drifted_total}"
            );
            let total = &rows[rows.len() - 1].1;
            curve.push((on_table, moved, quantile(total, 0.5), quantile(total, 0.95)));
        }
    }
    Ok(curve)
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
    // The camera file must describe these photos (the same shape).
    if let Some(l) = &lens {
        for (path, f) in paths.iter().zip(&frames) {
            l.for_image([f.width(), f.height()])
                .with_context(|| format!("the photo {}", path.display()))?;
        }
    }
    if cfg!(debug_assertions) {
        println!(
            "note: a debug build; time a release build (cargo build --release) for real figures"
        );
    }
    cv::set_threads(1)?;
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average at start: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    if !args.crowd.is_empty() {
        let curve = run_crowds(&args, &detector, &frames[0], lens.as_ref())?;
        println!("\nsteady state per frame, decode included (ms, median / p95):");
        print!("  {:>18}", "figures \\ moved");
        for m in &args.moved {
            print!(" {:>14}", m);
        }
        println!();
        for row in curve.chunks(args.moved.len().max(1)) {
            print!("  {:>18}", row[0].0);
            for (_, _, med, p95) in row {
                print!(" {:>6.2} / {:>5.2}", med, p95);
            }
            println!();
        }
        if args.crowd_only {
            return Ok(ExitCode::SUCCESS);
        }
    }
    let decoders = time_decoders(&paths, args.runs);
    if decoders.iter().any(|(_, v)| !v.is_empty()) {
        println!("decoding the photo files, one thread");
        println!("  {:<34} {:>10} {:>10}", "decoder", "median ms", "p95 ms");
        for (d, v) in &decoders {
            println!(
                "  {:<34} {:>10.2} {:>10.2}",
                d.name(),
                quantile(v, 0.5),
                quantile(v, 0.95)
            );
        }
    }
    let single = time_frames(&detector, &frames, lens.as_ref(), args.runs)?;
    print_table(
        "one thread (lone photos: markers over the whole frame)",
        &single,
    );
    if let Some((_, v)) = decoders.iter().find(|(d, _)| *d == FASTEST)
        && !v.is_empty()
    {
        let with: Vec<f64> = single.iter().map(|t| t.total + quantile(v, 0.5)).collect();
        println!(
            "  {:<18} {:>10.2} {:>10.2}   (total + the median decode, {})",
            "total+decode",
            quantile(&with, 0.5),
            quantile(&with, 0.95),
            FASTEST.name()
        );
    }
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
