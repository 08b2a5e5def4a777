//! The incremental detector (`vision::incremental`) against the whole
//! detector on the same frames: the seq01 photos (camera cam01, mapping
//! locked on the first as the app locks it) each shown three times, passed
//! again through JPEG and with the exposure drifting, as a live camera
//! between two moves; and a crowded table built from cam01's first photo
//! (`vision::crowd`) on which a few figures move per frame.
//!
//! Both sides get the same JPEG bytes, as from a webcam's MJPEG stream:
//! the whole detector a whole decode of each (the `image` crate's), the
//! incremental one the camera's partial decoder (`capture::blocks`, frames
//! in order, only what changed made again).
//!
//! Asserted per sequence: on every frame the same figures (one to one, same
//! edge colour, within 0.1 in), the median position difference at most
//! 0.005 in; the same track ids and the same tracks' positions within 0.05
//! in when both streams go through the tracker; and that parts were
//! actually used (else the comparison says nothing).

use std::path::{Path, PathBuf};

use image::RgbImage;
use nalgebra::Point2;
use spotter::calibration::{self, Lens, TableLayout, TableMapping};
use spotter::capture::blocks::{PartialDecodeParams, PartialDecoder};
use spotter::capture::decode::{JpegDecoder, decode_jpeg};
use spotter::vision::Detection;
use spotter::vision::crowd::{
    Crowd, CrowdSpec, Sampling, through_jpeg, webcam_jpeg, with_sensor_noise,
};
use spotter::vision::detect::Detector;
use spotter::vision::incremental::{FrameWork, IncrementalDetector, IncrementalParams};
use spotter::vision::params::DetectorParams;
use spotter::vision::track::{FigureState, FrameObservation, Tracker, TrackerParams};

/// One to one within this, inches.
const MATCH_IN: f64 = 0.1;
/// The bar for the median position difference, inches.
const MEDIAN_IN: f64 = 0.005;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn cam01() -> (Lens, TableLayout, DetectorParams) {
    (
        Lens::load(&root().join("detect/cam01.camera.toml")).expect("camera file"),
        TableLayout::load(&root().join("detect/cam01.table.toml")).expect("layout file"),
        DetectorParams::defaults().expect("built-in parameters load"),
    )
}

fn photo(path: &Path) -> RgbImage {
    image::open(path).expect("fixture photo").to_rgb8()
}

/// Every channel times `gain`, clipped.
fn exposed(frame: &RgbImage, gain: f32) -> RgbImage {
    let mut out = frame.clone();
    for v in out.iter_mut() {
        *v = (f32::from(*v) * gain).round().clamp(0.0, 255.0) as u8;
    }
    out
}

/// Pairs the incremental detections with the whole ones (same colour,
/// nearest first); returns the distances, or why they are not the same
/// figures.
fn pair(whole: &[Detection], inc: &[Detection]) -> Result<Vec<f64>, String> {
    if whole.len() != inc.len() {
        return Err(format!(
            "{} figures whole, {} incremental",
            whole.len(),
            inc.len()
        ));
    }
    let mut used = vec![false; inc.len()];
    let mut out = Vec::new();
    for w in whole {
        let best = inc
            .iter()
            .enumerate()
            .filter(|(k, d)| !used[*k] && d.edge == w.edge)
            .map(|(k, d)| (k, (d.center_in_table - w.center_in_table).norm()))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match best {
            Some((k, d)) if d <= MATCH_IN => {
                used[k] = true;
                out.push(d);
            }
            _ => {
                return Err(format!(
                    "the {:?} figure at ({:.2}, {:.2}) has no match",
                    w.edge, w.center_in_table.x, w.center_in_table.y
                ));
            }
        }
    }
    Ok(out)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() { 0.0 } else { v[v.len() / 2] }
}

/// Runs both detectors (each its own, fed every frame) and both trackers
/// over `frames`; asserts the module's claims and returns how many
/// band-coloured components known to give no figure were not fitted again,
/// and how many parts were made whole from their frame because the
/// exposure had drifted since the kept top view was made.
fn compare(
    name: &str,
    frames: &[Vec<u8>],
    mapping: &TableMapping,
    make: impl Fn() -> Detector,
) -> (usize, usize) {
    let whole = make();
    let mut partial = PartialDecoder::new(PartialDecodeParams::default());
    let mut made = Vec::new();
    let mut inc = IncrementalDetector::new(make(), IncrementalParams::default());
    // The same, not told what the decoder made again: it reads every cell.
    let mut unaided = IncrementalDetector::new(make(), IncrementalParams::default());
    let mut tw = Tracker::new(TrackerParams::default()).expect("tracker");
    let mut ti = Tracker::new(TrackerParams::default()).expect("tracker");
    let mut dists = Vec::new();
    let (mut parts, mut unfitted_total, mut drifted_total) = (0, 0, 0);
    for (n, jpeg) in frames.iter().enumerate() {
        let frame = decode_jpeg(jpeg, JpegDecoder::Image).expect("whole decode");
        let w = whole.detect(&frame, mapping).expect("whole detection");
        partial.decode(jpeg).expect("partial decode");
        let changes = partial.changes().expect("the decoder's changes");
        let seen = partial.frame().expect("a decoded frame");
        let i = inc
            .detect_changed(seen, mapping, Some(&changes))
            .expect("incremental detection");
        // Cells the decoder did not make again have the pixels they had:
        // the change test reads them or not, the detections are the same.
        let u = unaided
            .detect(seen, mapping)
            .expect("incremental detection");
        assert_eq!(
            i.detections, u.detections,
            "{name} frame {n}: the decoder's changes changed the detections"
        );
        assert_eq!(i.work, u.work, "{name} frame {n}: the work differs");
        made.push(partial.last_work().share());
        if let FrameWork::Parts {
            unfitted, drifted, ..
        } = i.work
        {
            parts += 1;
            unfitted_total += unfitted;
            drifted_total += drifted;
        }
        println!(
            "{name} frame {n}: {} figures, {:?}, {:.1} ms whole, {:.1} ms incremental",
            w.detections.len(),
            i.work,
            w.timings.total,
            i.timings.total
        );
        let d = pair(&w.detections, &i.detections)
            .unwrap_or_else(|e| panic!("{name} frame {n} ({:?}): {e}", i.work));
        dists.extend(d);
        let time_s = n as f64 * 0.1;
        let rw = tw.update(&FrameObservation {
            time_s,
            detections: w.detections.clone(),
            occluded_regions_in_table: Some(w.occluded_regions_in_table.clone()),
        });
        let ri = ti.update(&FrameObservation {
            time_s,
            detections: i.detections.clone(),
            occluded_regions_in_table: Some(i.occluded_regions_in_table.clone()),
        });
        let on = |r: &spotter::vision::track::FrameReport| -> Vec<(u32, Point2<f64>)> {
            let mut v: Vec<_> = r
                .figures
                .iter()
                .filter(|f| f.state == FigureState::OnTable)
                .map(|f| (f.id.0, f.center_in_table))
                .collect();
            v.sort_by_key(|f| f.0);
            v
        };
        let (a, b) = (on(&rw), on(&ri));
        let ids = |v: &[(u32, Point2<f64>)]| v.iter().map(|f| f.0).collect::<Vec<_>>();
        assert_eq!(ids(&a), ids(&b), "{name} frame {n}: track ids differ");
        for (x, y) in a.iter().zip(&b) {
            let d = (x.1 - y.1).norm();
            assert!(d <= 0.05, "{name} frame {n}: track {} {d:.3} in apart", x.0);
        }
    }
    let m = median(dists.clone());
    let worst = dists.iter().copied().fold(0.0, f64::max);
    println!(
        "{name}: {} frames, {parts} in parts, {} figure pairs, median {m:.4} in, worst {worst:.4} in; share of MCUs decoded per frame after the first: median {:.3}",
        frames.len(),
        dists.len(),
        median(made[1..].to_vec())
    );
    assert!(m <= MEDIAN_IN, "{name}: median difference {m:.4} in");
    assert!(
        parts * 2 >= frames.len(),
        "{name}: only {parts} of {} frames in parts",
        frames.len()
    );
    (unfitted_total, drifted_total)
}

#[test]

fn seq01_live_matches_whole_detection() {
    let (lens, layout, params) = cam01();
    let dir = root().join("photoreal/seq01");
    let files: Vec<Vec<u8>> = (1..=7)
        .map(|k| std::fs::read(dir.join(format!("frame-{k:02}.jpg"))).expect("fixture photo"))
        .collect();
    let stills: Vec<RgbImage> = files
        .iter()
        .map(|b| decode_jpeg(b, JpegDecoder::Image).expect("fixture photo"))
        .collect();
    let gray = image::imageops::grayscale(&stills[0]);
    let mapping = calibration::detect_table(&gray, &layout, Some(&lens)).expect("markers");
    // Each still three times: as taken, through JPEG again a little
    // brighter, and again a little darker (auto-exposure drift and new
    // compression noise).
    let mut frames = Vec::new();
    for (s, file) in stills.iter().zip(&files) {
        frames.push(file.clone());
        for (q, g) in [(85, 1.04), (75, 0.97)] {
            let (bytes, _) = through_jpeg(&exposed(s, g), q).expect("jpeg");
            frames.push(bytes);
        }
    }
    let (_, drifted) = compare("seq01", &frames, &mapping, || {
        Detector::new(params.clone(), layout.clone())
    });
    // The exposure steps 4% up and 3% down: a part's kept margin is then
    // not of this exposure, and the part is made whole from the frame.
    assert!(drifted > 0, "no part was made whole after a drift");
}

#[test]
fn crowded_table_with_a_few_moving_matches_whole_detection() {
    let (lens, layout, params) = cam01();
    let base = photo(&root().join("photoreal/cam01/frame-01.jpg"));
    let gray = image::imageops::grayscale(&base);
    let mapping = calibration::detect_table(&gray, &layout, Some(&lens)).expect("markers");
    let detector = Detector::new(params.clone(), layout.clone());
    let found = detector
        .detect(&base, &mapping)
        .expect("detection")
        .detections;
    let mut crowd = Crowd::new(
        &base,
        &mapping,
        &layout,
        &found,
        &CrowdSpec {
            foot_diameter_in: params.kit.foot_diameter_in,
            spacing_in: 2.4,
            figures: 60,
            seed: 7,
        },
    );
    assert!(crowd.len() >= 50, "only {} figures pasted", crowd.len());
    let mut frames = Vec::new();
    for k in 0..12 {
        if k > 0 {
            crowd.step(3);
        }
        // A webcam's sensor noise, new on every frame, and its MJPEG: 4:2:2
        // baseline (the partial decoder's chroma upsampling is exercised).
        let noisy = with_sensor_noise(&crowd.frame(), 2.0, k);
        frames.push(webcam_jpeg(&noisy, 85, Sampling::S422).expect("jpeg"));
    }
    let (unfitted, _) = compare("crowd", &frames, &mapping, || {
        Detector::new(params.clone(), layout.clone())
    });
    // The photo's band-coloured terrain beside figures that moved: not fitted
    // again while it looked the same, and the figures are those of the
    // whole detection all the same.
    assert!(unfitted > 0, "no terrain was left unfitted");
}
