//! The figure detector on rendered tables it was not tuned on
//! (`fixtures/unseen/`, see its README), through the real marker detection
//! and each photo's own camera (K and dist from its truth file, as the
//! camera files of `fixtures/detect/` are), scored against the truth.
//!
//! `measure_rendered_sets` (ignored) measures any rendered sets: set
//! `SPOTTER_UNSEEN_DIRS` to folders of `frame-NN.jpg` + truth files
//! (comma-separated; a `random` set's camera or sequence folders), and
//! optionally `SPOTTER_UNSEEN_CSV` to a file for one row per detection with
//! its evidence and whether it was real (the data the confidence model is
//! fitted on). Run with `--ignored --nocapture`.

use std::path::{Path, PathBuf};

use crate::common::frames_in;
use spotter::calibration;
use spotter::vision::BaseKind;
use spotter::vision::confidence::{Evidence, FEATURE_NAMES};
use spotter::vision::detect::Detector;
use spotter::vision::eval::{Summary, Truth, angle_error_deg, quantile, score_frame};
use spotter::vision::params::DetectorParams;

/// One detection with its evidence and what the truth says of it.
pub struct Row {
    pub photo: String,
    pub confidence: f64,
    pub evidence: Evidence,
    pub real: bool,
    pub facing_error_deg: Option<f64>,
    /// How far the front mark found points from the truth's facing,
    /// degrees, given or withheld.
    pub raw_facing_error_deg: Option<f64>,
    /// Where it was found, table inches.
    pub at_in: (f64, f64),
    /// The truth's figure is hidden (a hand, terrain): not scored.
    pub occluded: bool,
    /// Share of the front mark the truth says the camera sees.
    pub front_seen: Option<f64>,
    /// The truth's base kind, for a real detection.
    pub truth_base: Option<BaseKind>,
    /// How far the detection lies in front of the truth's centre along
    /// its facing, inches (negative: behind), for a real detection.
    pub along_facing_in: Option<f64>,
}

/// Detects and scores every table frame of `dirs`; prints each frame's
/// score and the whole.
pub fn measure(dirs: &[PathBuf]) -> (Summary, Vec<Row>) {
    // SPOTTER_VISION_PARAMS: a parameter file to measure instead of the
    // built-in one (for tuning without a rebuild).
    let params = match std::env::var("SPOTTER_VISION_PARAMS") {
        Ok(p) if !p.is_empty() => DetectorParams::load(Path::new(&p)).expect("parameters load"),
        _ => DetectorParams::defaults().expect("built-in parameters load"),
    };
    let mut all = Summary::default();
    let mut rows = Vec::new();
    let mut frames = 0;
    for dir in dirs {
        let mut detector: Option<Detector> = None;
        for photo in frames_in(dir) {
            let truth = Truth::load(&photo.with_extension("truth.json")).expect("truth file");
            let det =
                detector.get_or_insert_with(|| Detector::new(params.clone(), truth.layout.clone()));
            let frame = image::open(&photo).expect("photo").to_rgb8();
            let gray = image::imageops::grayscale(&frame);
            let name = format!(
                "{}/{}",
                dir.display(),
                photo.file_name().unwrap_or_default().to_string_lossy()
            );
            let mapping = match calibration::detect_table(&gray, &truth.layout, Some(&truth.lens)) {
                Ok(m) => m,
                Err(e) => {
                    println!("{name}: no table: {e}");
                    continue;
                }
            };
            let (found, evidence) = det
                .detect_with_evidence(&frame, &mapping)
                .expect("detection runs");
            let score = score_frame(&truth.figures, &found.detections);
            let mut one = Summary::default();
            one.add(&truth.figures, &found.detections, &score);
            println!("{name}: {}", one.report());
            for &k in &score.false_positives {
                let d = &found.detections[k];
                println!(
                    "    false {} {} at ({:.2}, {:.2}) conf {:.2} {:?}",
                    d.edge.name(),
                    d.base.name(),
                    d.center_in_table.x,
                    d.center_in_table.y,
                    d.confidence,
                    evidence[k]
                );
            }
            for &t in &score.missed {
                let f = &truth.figures[t];
                println!(
                    "    missed {} {} at ({:.2}, {:.2}) band seen {:?}",
                    f.edge.name(),
                    f.base.name(),
                    f.x_in,
                    f.y_in,
                    f.band_visible_fraction
                );
            }
            for m in &score.matched {
                if m.facing_error_deg.is_some_and(|e| e > 8.0) {
                    let f = &truth.figures[m.truth_index];
                    println!(
                        "    facing off {:.0} deg: {} {} at ({:.2}, {:.2}) front seen {:?}",
                        m.facing_error_deg.unwrap_or(0.0),
                        f.edge.name(),
                        f.base.name(),
                        f.x_in,
                        f.y_in,
                        f.front_visible_fraction
                    );
                }
            }
            all.add(&truth.figures, &found.detections, &score);
            for (k, d) in found.detections.iter().enumerate() {
                let m = score.matched.iter().find(|m| m.detection_index == k);
                let t = m.map(|m| &truth.figures[m.truth_index]);
                rows.push(Row {
                    photo: name.clone(),
                    confidence: d.confidence,
                    evidence: evidence[k],
                    real: m.is_some(),
                    facing_error_deg: m.and_then(|m| m.facing_error_deg),
                    raw_facing_error_deg: t
                        .zip(evidence[k].facing)
                        .map(|(t, f)| angle_error_deg(f.deg, t.facing_deg)),
                    at_in: (d.center_in_table.x, d.center_in_table.y),
                    occluded: t.is_some_and(|t| t.occluded),
                    front_seen: t.and_then(|t| t.front_visible_fraction),
                    truth_base: t.map(|t| t.base),
                    along_facing_in: t.map(|t| {
                        let (s, c) = t.facing_deg.to_radians().sin_cos();
                        (d.center_in_table.x - t.x_in) * c + (d.center_in_table.y - t.y_in) * s
                    }),
                });
            }
            frames += 1;
        }
    }
    println!("{frames} frames: {}", all.report());
    (all, rows)
}

/// Reported confidence in bins against the share of real figures in each.
pub fn calibration_table(rows: &[Row]) -> String {
    let edges = [0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0001];
    let mut out = String::from("confidence bin   figures  real  precision  mean conf\n");
    for w in edges.windows(2) {
        let inside: Vec<&Row> = rows
            .iter()
            .filter(|r| r.confidence >= w[0] && r.confidence < w[1])
            .collect();
        if inside.is_empty() {
            continue;
        }
        let real = inside.iter().filter(|r| r.real).count();
        let mean = inside.iter().map(|r| r.confidence).sum::<f64>() / inside.len() as f64;
        out += &format!(
            "[{:.2}, {:.2})     {:>6}  {:>5}    {:.3}      {:.3}\n",
            w[0],
            w[1].min(1.0),
            inside.len(),
            real,
            real as f64 / inside.len() as f64,
            mean
        );
    }
    out
}

fn write_csv(path: &Path, rows: &[Row]) {
    let mut s = String::from(
        "photo,x_in,y_in,occluded,front_seen,real,confidence,facing_given,facing_error_deg",
    );
    for n in FEATURE_NAMES {
        s += ",";
        s += n;
    }
    s += ",band_width_ratio,contrast,rms_px,photo_px_per_in";
    s += ",f_contrast,f_black,f_rival,f_width,f_edges,f_from_nadir,f_hidden,f_view,f_raw_error\n";
    for r in rows {
        s += &format!(
            "{},{:.2},{:.2},{},{},{},{:.4},{},{}",
            r.photo,
            r.at_in.0,
            r.at_in.1,
            u8::from(r.occluded),
            r.front_seen.map_or(String::new(), |f| format!("{f:.3}")),
            u8::from(r.real),
            r.confidence,
            u8::from(r.facing_error_deg.is_some()),
            r.facing_error_deg
                .map_or(String::new(), |e| format!("{e:.2}"))
        );
        for x in r.evidence.features() {
            s += &format!(",{x:.5}");
        }
        let e = &r.evidence;
        s += &format!(
            ",{:.4},{:.3},{:.3},{:.2}",
            e.band_width_ratio, e.contrast, e.rms_px, e.photo_px_per_in
        );
        let raw = r
            .raw_facing_error_deg
            .map_or(String::new(), |e| format!("{e:.1}"));
        s += &e.facing.map_or(",,,,,,,,,\n".to_owned(), |f| {
            format!(
                ",{:.4},{:.4},{:.4},{:.4},{},{:.1},{:.1},{:.1},{raw}\n",
                f.contrast,
                f.blackness,
                f.rival_share,
                f.width_share,
                f.edges,
                f.from_nadir_deg,
                f.hidden_deg,
                f.view_deg
            )
        });
    }
    std::fs::write(path, s).expect("CSV written");
}

#[test]
#[ignore = "measures rendered sets named in SPOTTER_UNSEEN_DIRS"]
fn measure_rendered_sets() {
    let dirs: Vec<PathBuf> = std::env::var("SPOTTER_UNSEEN_DIRS")
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .collect();
    let (s, rows) = measure(&dirs);
    println!("{}", calibration_table(&rows));
    println!(
        "position median {:.4} p95 {:.4}; facing median {:.2} p95 {:.2}",
        quantile(&s.position_errors_in, 0.5),
        quantile(&s.position_errors_in, 0.95),
        quantile(&s.facing_errors_deg, 0.5),
        quantile(&s.facing_errors_deg, 0.95)
    );
    if let Ok(csv) = std::env::var("SPOTTER_UNSEEN_CSV") {
        write_csv(Path::new(&csv), &rows);
    }
}

/// The tune photos kept in `fixtures/unseen/` (seeds 20 and 24): measured
/// recall 0.886 (31 of 35: small bases under hard light on the wood table)
/// and precision 0.969 (one false figure left, on terrain); floors a little
/// under them guard against the detector getting worse on tables unlike
/// the DEV set.
#[test]
fn unseen_tune_photos_hold_their_figures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    let (s, rows) = measure(&[root.join("seed20"), root.join("seed24")]);
    assert!(s.visible >= 30, "the photos are there: {}", s.visible);
    // Measured: recall 0.971 (34/35), precision 1.000 (with the wood mat
    // no longer read as red, and white bands that took the mat's colour).
    assert!(s.recall() >= 0.94, "recall {}", s.recall());
    assert!(s.precision() >= 0.97, "precision {}", s.precision());
    // Every reported figure carries a probability, and the false ones are
    // the less sure.
    assert!(rows.iter().all(|r| (0.0..=1.0).contains(&r.confidence)));
    let mean = |real: bool| {
        let v: Vec<f64> = rows
            .iter()
            .filter(|r| r.real == real)
            .map(|r| r.confidence)
            .collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    assert!(mean(false) < mean(true), "{} {}", mean(false), mean(true));
}

/// Seed 24's wood mat has red's hue and saturation (hue about 22 degrees,
/// saturation 0.67): it must not be labelled red (it was, 79% of the top
/// view, and every red base on it merged with the mat), and the bases on it
/// are found: the red mounted one by its level (paint about twice the
/// mat's), the white ones whose thin bands took the mat's colour.
#[test]
fn a_mat_of_reds_hue_is_not_a_red_band() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen/seed24");
    let photo = dir.join("frame-02.jpg");
    let truth = Truth::load(&photo.with_extension("truth.json")).expect("truth file");
    let params = DetectorParams::defaults().expect("built-in parameters load");
    let frame = image::open(&photo).expect("photo").to_rgb8();
    let gray = image::imageops::grayscale(&frame);
    let mapping =
        calibration::detect_table(&gray, &truth.layout, Some(&truth.lens)).expect("markers");
    let det = Detector::new(params.clone(), truth.layout.clone());
    let ctx = det.frame_context(&frame, &mapping).expect("pose");
    let top = ctx
        .view
        .render(
            &frame,
            &ctx.pose,
            mapping.lens.as_ref(),
            params.rectify.map_grid_px,
        )
        .expect("top view");
    let cell = (params.colour.table_cell_in * params.rectify.px_per_in).round() as usize;
    let seg = spotter::vision::segment::segment(
        &top,
        ctx.gains,
        params.white.paper_level as f32,
        cell,
        &params.colour,
    );
    let red = spotter::vision::segment::label_of(spotter::vision::EdgeColour::Red);
    let share = seg.labels.iter().filter(|&&l| l == red).count() as f64 / seg.labels.len() as f64;
    assert!(share < 0.02, "red share of the top view {share}");
    let (s, _) = measure(&[dir]);
    assert_eq!(s.recall(), 1.0, "every figure on the wood mat");
}

/// Every figure of one tune photo found, of the right base kind, and no
/// false one.
fn assert_all_found(folder: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/unseen")
        .join(folder);
    let (s, _) = measure(&[dir]);
    assert!(
        s.visible >= 15,
        "{folder}: the photo is there: {}",
        s.visible
    );
    assert_eq!(s.recall(), 1.0, "{folder}: recall");
    assert_eq!(s.precision(), 1.0, "{folder}: precision");
    assert_eq!(s.base_right, s.matched, "{folder}: foot or mounted");
}

/// Seed 44's white mounted base on a dark wood mat fills most of its 1 in
/// table cell, so the cell's mean level was more than the band's over 1.2:
/// its band was labelled only in part and it was read as a foot base 0.5
/// in away. A grey band stands out from the table around the cell.
#[test]
fn a_white_base_filling_its_cell_is_white() {
    assert_all_found("seed44-seq01");
}

/// Seed 44's red mounted base was read as two red foot bases: the rectangle
/// found 77% of its outer edge against a ring's 53%, but its edge fit was
/// 0.032 in against the ring's 0.030, and it had to be closer to stand.
#[test]
fn a_mounted_base_is_not_two_feet() {
    assert_all_found("seed44");
}

/// Seed 52's dark red bands on a pale sand mat have nearly the mat's hue
/// (16 against 38 degrees) and are darker, so neither the hue nor the
/// level rule let them stand out; their saturation does (0.73 against
/// 0.39). Two of them were missed in every frame of the sequence.
#[test]
fn a_dark_red_on_sand_is_a_band() {
    assert_all_found("seed52-seq01");
}

/// Mean offset along the truth's facing, inches (negative: behind), of the
/// figures of `kind` found in plain view; at least `at_least` of them.
fn mean_along_facing(rows: &[Row], kind: BaseKind, at_least: usize) -> f64 {
    let along: Vec<f64> = rows
        .iter()
        .filter(|r| !r.occluded && r.truth_base == Some(kind))
        .filter_map(|r| r.along_facing_in)
        .collect();
    assert!(
        along.len() >= at_least,
        "{kind:?} figures found: {}",
        along.len()
    );
    let mean = along.iter().sum::<f64>() / along.len() as f64;
    println!(
        "{kind:?}: mean offset along the facing {mean:.4} in over {}",
        along.len()
    );
    mean
}

/// Issue 15: "position median / p95 ... 0.015 / 0.05 in". A round base
/// finds no band edge on its 40 degree front mark, and its edge is found a
/// little outward all round (blur, paint): with that offset held at zero
/// the edge opposite the mark pulled the centre behind the truth, 0.015 in
/// on average on the wood tables of seeds 33 and 44 (85 foot figures) and
/// 0.025 in on tune seed 87's earth. The ring's fit solves for the offset
/// with the centre (a prior of 24 edge points at zero): 0.006 in.
#[test]
fn a_foot_base_is_not_pulled_behind_its_front_mark() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    let (_, rows) = measure(&[
        root.join("seed33-seq01"),
        root.join("seed44"),
        root.join("seed44-seq01"),
    ]);
    let mean = mean_along_facing(&rows, BaseKind::Foot, 80);
    assert!(mean >= -0.010, "mean offset along the facing {mean} in");
}

/// Issue 15: "position median / p95 ... 0.015 / 0.05 in". A mounted base's
/// front edge is its black mark, where the band's edge is not found; with
/// the edge's offset from the kit's size held at zero (an edge found a
/// little outward all round: blur, paint), the back edge alone placed the
/// base along its length, 0.05 in behind the truth on tune seed 33. The
/// rectangle's fit solves for that offset with the centre. Three frames of
/// seed 33 seq01 (14 mounted figures): the mean offset along the facing
/// was 0.048 in behind.
#[test]
fn a_mounted_base_is_not_pulled_behind_its_front_mark() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen/seed33-seq01");
    let (_, rows) = measure(&[dir]);
    let mean = mean_along_facing(&rows, BaseKind::Mounted, 12);
    assert!(
        mean.abs() <= 0.035,
        "mean offset along the facing {mean} in"
    );
}

/// Issue 15: "A facing is given only when the front mark's evidence is
/// clear at this camera's angle and scale ... A wrong facing is worse than
/// none". On the side of the base away from the camera the model leans
/// over the band, and its dark parts make arcs that rival the mark: on tune
/// seed 24 (28.65, 44.64) and seed 52 (10.56, 2.95) the best arc lay 140
/// degrees from the camera's side with a rival of 0.78 and 0.77 of its
/// contrast, and the facing given was 49 and 93 degrees off. On the far
/// side (`far_arc_deg`) a rival may reach only `far_arc_max_rival_share`.
#[test]
fn a_rivalled_mark_on_the_far_side_gives_no_facing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    let (_, rows) = measure(&[root.join("seed24"), root.join("seed52-seq01")]);
    for (photo, at) in [
        ("seed24/frame-02.jpg", (28.65, 44.64)),
        ("seed52-seq01/frame-08.jpg", (10.56, 2.95)),
    ] {
        let row = rows
            .iter()
            .find(|r| r.photo.ends_with(photo) && (r.at_in.0 - at.0).hypot(r.at_in.1 - at.1) < 0.1)
            .unwrap_or_else(|| panic!("{photo}: the figure at {at:?} is found"));
        // Seed 24's arc is rivalled so closely since the ring fit solves
        // for the edge offset that no arc is measured there at all.
        if let Some(f) = row.evidence.facing {
            assert!(
                f.from_nadir_deg > 125.0 && f.rival_share > 0.6,
                "{photo} {at:?}: the arc is rivalled on the far side: {f:?}"
            );
        } else {
            assert!(photo.starts_with("seed24"), "{photo}: its arc is measured");
        }
        assert_eq!(
            row.facing_error_deg, None,
            "{photo} {at:?}: no facing is given"
        );
    }
    // The rule withholds rivalled far-side arcs only: most facings stay
    // (30 of 39 since stop 43, when two arcs wider than the mark, 17 and
    // 20 degrees off, were withheld: `facing.clear_max_width_share`).
    let given = rows
        .iter()
        .filter(|r| r.real && r.facing_error_deg.is_some())
        .count();
    let real = rows.iter().filter(|r| r.real && !r.occluded).count();
    assert!(given * 4 >= real * 3, "facings given {given} of {real}");
}

/// Whether a real figure was found within 0.1 in of `at` (table inches).
fn found_at(rows: &[Row], at: (f64, f64)) -> bool {
    rows.iter()
        .any(|r| r.real && (r.at_in.0 - at.0).hypot(r.at_in.1 - at.1) < 0.1)
}

/// Issue 15: "misses of small bases on the 72x48 table". On seed 101
/// (1920x1080, 72 x 48 in sand, about 18 px per inch; a measure seed of
/// stop 36, tuned on since) two red foot bases, their models red too, touch
/// at (20.89, 21.18) and (22.52, 22.37) and are one component: a ring
/// through both bands scores above either base's own centre and hid the
/// base at (22.52, 22.37) from the fit, in frames 1 and 2 of seq01, and its
/// track took the other's identity. A centre hidden by a better one is
/// fitted when that one's fit does not stand.
#[test]
fn two_touching_bases_are_both_found() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    let (s, rows) = measure(&[root.join("seed101-seq01")]);
    for at in [(20.89, 21.18), (22.52, 22.37)] {
        assert!(found_at(&rows, at), "the red foot base at {at:?} is found");
    }
    assert_eq!(s.true_reports, s.reported, "no false figures");
}

/// Issue 15: white mounted bases missed, each with a false foot base
/// reported about 0.5 in from its centre, on tune seed 103 (2560x1440,
/// 36 x 36 in sand, tilted 18 degrees; camera 1, photos 1 and 2).
///
/// Photo 1: three white mounted bases stand side by side, the one at
/// (13.17, 25.98) with light groundwork. Its rectangle found as much of its
/// outer edge as a ring cut from its end (11 of 24 samples each) and fitted
/// it closer (0.016 against 0.022 in), yet the ring, scoring a little more
/// of its band line, stood. A rectangle that finds as much edge and fits
/// closer explains the band better.
///
/// Photo 2: a white mounted base at (30.49, 9.98) with a light grey horse
/// and groundwork showed its band in two white pieces 6 top-view pixels
/// (0.3 in) apart, neither long enough for a rectangle; they were searched
/// together only when their boxes met within the band's width (0.16 in),
/// and a ring on one piece was reported instead. Pieces as far apart as a
/// faint band's (`candidates.piece_gap_in`) are searched together.
#[test]
fn white_mounted_bases_are_not_read_as_rings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    let (s, rows) = measure(&[root.join("seed103")]);
    // Photo 1's three side by side, then photo 2's band in two pieces.
    for at in [
        (11.66, 26.39),
        (13.17, 25.98),
        (14.27, 25.89),
        (30.49, 9.98),
    ] {
        assert!(
            found_at(&rows, at),
            "the white mounted base at {at:?} is found"
        );
    }
    assert_eq!(s.true_reports, s.reported, "no false figures");
    assert_eq!(s.found_visible, s.visible, "every figure in view is found");
    assert_eq!(
        s.base_right, s.matched,
        "each read as foot or mounted rightly"
    );
}

/// Issue 15: misses "of small bases ... under hard shadows" and on mats
/// near the band's hue. On tune seed 76 (1920x1080, 48 x 48 in sand, seq01
/// frame 1) two red foot bases painted darker than the kit's red, at
/// (16.17, 38.30) and (13.61, 27.40), were missed in every frame: their
/// band (hue 15, saturation 0.55) is 23 degrees from the sand's hue (38)
/// and 0.2 more saturated, short of either margin alone (25 degrees, 0.25).
/// A red that differs from the table in hue and saturation together
/// (`unlike_table_joint_*`) is red; the sand itself, and the rest of the
/// photo, gain no false figures.
#[test]
fn a_darker_red_on_sand_is_red() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    let (s, rows) = measure(&[root.join("seed76-seq01")]);
    for at in [(16.17, 38.30), (13.61, 27.40)] {
        assert!(found_at(&rows, at), "the red foot base at {at:?} is found");
    }
    assert_eq!(s.true_reports, s.reported, "no false figures");
    assert_eq!(s.found_visible, s.visible, "every figure in view is found");
}

/// Issue 15: red feet missed on wood and earth mats. On seed 109
/// (1920x1080, 36 x 36 in wood under a 3600 K light; a measure seed of stop
/// 41, tuned on since) the red foot base at (9.32, 24.73) of cam01 photo 2
/// was missed: after the white balance its band reads hue 7 against the
/// wood's 23 and 1.3 times the wood's level at the wood's saturation, short
/// of each "stands out from the table" test alone (25 degrees, 1.4 times,
/// 0.25 more saturated). A red a little redder and a little brighter than
/// the table at once (`unlike_table_joint_level*`) is red; the wood gains
/// no false figures. The photo's one false figure, a white mounted base
/// fitted 0.7 in off the real one (17.22, 16.71), predates this and is
/// reported under 0.8.
#[test]
fn a_red_under_warm_light_on_wood_is_red() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    let (_, rows) = measure(&[root.join("seed109")]);
    let at = (9.32, 24.73);
    assert!(found_at(&rows, at), "the red foot base at {at:?} is found");
    for r in rows.iter().filter(|r| !r.real) {
        assert!(
            (r.at_in.0 - 17.22).hypot(r.at_in.1 - 16.71) < 0.2 && r.confidence < 0.8,
            "no false figure but the known white mounted one: {:?} at {:?}",
            r.confidence,
            r.at_in
        );
    }
}

/// Issue 15: false white feet on pale rocks. A ring fitted at one end of a
/// pale rock finds its edge round that end, and white has no hue for the
/// terrain test to compare: on seed 114 seq01 (tune seed since stop 43) one
/// at (33.40, 13.90) was reported at confidence 0.91 in photo 1, and on
/// seed 108 seq01 one at (10.40, 32.30) in photos 1, 4 and 7. Inside such a
/// ring all is as grey as the band and as bright (a base has its model and
/// groundwork), and the rock goes on round it: a white ring whose inside is
/// like its band must have the table round it
/// (`fit.white_like_saturation`, `fit.white_like_level_share`,
/// `fit.white_filled_max_like_outside`).
#[test]
fn a_white_ring_cut_from_a_pale_rock_is_terrain() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    for (dir, rock) in [
        ("seed114-seq01", (32.9, 13.88)),
        ("seed108-seq01", (10.67, 32.68)),
    ] {
        let (s, rows) = measure(&[root.join(dir)]);
        assert!(
            !rows
                .iter()
                .any(|r| (r.at_in.0 - rock.0).hypot(r.at_in.1 - rock.1) < 1.2),
            "{dir}: no figure on the pale rock at {rock:?}"
        );
        assert_eq!(s.found_visible, s.visible, "{dir}: every figure found");
    }
}

/// Issue 15: a green band on a green mat, blurred with pale groundwork. On
/// seed 112 seq01 (tune seed since stop 43) the middle one of three green
/// mounted bases in a column, at (8.61, 14.98), was missed in all 8 photos
/// and a false green foot fitted to a piece of it: its band reads hue 94 to
/// 103 and level 141 to 154 against the green mat's 80 and 110, short of the
/// 20 degrees a pale green needs over the table. A green both 10 degrees
/// bluer and 1.2 times brighter than the table around is green
/// (`colour.green_joint_hue_over_table`, `colour.green_joint_level_over_table`).
#[test]
fn a_green_band_blurred_with_pale_groundwork_on_a_green_mat_is_green() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    let (s, rows) = measure(&[root.join("seed112-seq01")]);
    let at = (8.61, 14.98);
    assert!(
        found_at(&rows, at),
        "the green mounted base at {at:?} is found"
    );
    assert_eq!(s.true_reports, s.reported, "no false figures");
}

/// Issue 15: a red foot never found on a wood mat. On seed 109 seq01 (tune
/// seed since stop 42; see `a_red_under_warm_light_on_wood_is_red`) the red
/// foot base at (12.74, 26.13) was fitted whole (edge found on 60 of 72
/// rays) and then dropped as terrain: the wood round it is within 16
/// degrees of the band's hue at its saturation, so it was "band-like" all
/// round. The wood is 0.67 to 0.76 of the band's level and has the table's
/// hue: ground like that is the table
/// (`fit.band_like_outside_max_table_level_share`, `fit.table_like_hue_deg`).
/// On tune seed 104 photo 4 a ring cut from the lit side of a green hill at
/// (15.91, 16.86), with the hill's darker side round it, stays terrain: the
/// hill is far from the table's hue.
#[test]
fn a_red_on_a_wood_mat_of_its_hue_is_not_terrain_and_a_hill_still_is() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    let (s, rows) = measure(&[root.join("seed109-seq01")]);
    let at = (12.74, 26.13);
    assert!(found_at(&rows, at), "the red foot base at {at:?} is found");
    assert_eq!(s.true_reports, s.reported, "no false figures");
    let (_, rows) = measure(&[root.join("seed104")]);
    let hill = (15.91, 16.86);
    assert!(
        !rows
            .iter()
            .any(|r| (r.at_in.0 - hill.0).hypot(r.at_in.1 - hill.1) < 1.0),
        "no figure on the green hill at {hill:?}"
    );
}

/// Issue 15: misses of white bases under warm light. On seed 75 (seq01
/// frame 5; a measure seed of stop 31, tuned on since) a white band took on
/// the tint of the mat, so the mat round the base had the band's hue and a
/// whole ring (its outer edge found nearly all round) went as terrain cut
/// into a ring. A white ring found nearly all round
/// (`fit.white_terrain_min_edge_share`) is not judged by that hue; rings on
/// the edge of a beige wall or a hand, found on a third of the rays at most,
/// still go (a hand on this photo at (44.7, 28.3) gave a false white ring
/// when every white ring was let off the terrain test, before the paper's
/// colour was read under clipping; that place stays clear).
#[test]
fn a_white_ring_on_a_mat_of_its_tint_is_not_terrain() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    let (_, rows) = measure(&[root.join("seed75-seq01")]);
    let at = (26.97, 35.61);
    assert!(
        found_at(&rows, at),
        "the white foot base at {at:?} is found"
    );
    let hand = (44.67, 28.27);
    assert!(
        !rows
            .iter()
            .any(|r| !r.real && (r.at_in.0 - hand.0).hypot(r.at_in.1 - hand.1) < 1.0),
        "no figure on the hand at {hand:?}"
    );
}

/// Issue 15: misses of white bases under warm light. On seed 81 (1920x1080,
/// 48 x 48 in earth mat under a 2800 K panel; a measure seed of stop 32,
/// tuned on since) the markers' paper is clipped in all three channels, so
/// it read neutral and the white balance left the warm cast: white bands
/// were yellow (saturation 0.28 and up) and went unlabelled. The paper's
/// colour is now read from the blur into the markers' black squares
/// (`WhiteReference::from_markers`), and the bands are white again.
#[test]
fn white_bases_under_a_light_that_clips_the_paper_are_white() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    let (s, rows) = measure(&[root.join("seed81")]);
    for at in [(15.63, 22.72), (16.21, 21.39)] {
        assert!(
            found_at(&rows, at),
            "the white foot base at {at:?} is found"
        );
    }
    assert_eq!(s.true_reports, s.reported, "no false figures");
}

/// Issue 15: tune seed 106 (2560x1440, 48 x 48 in wood, camera 1, photo
/// 3): two white foot bases with pale grey groundwork, at (40.07, 33.05)
/// and (24.73, 20.73), were missed. Their inside reads as white like the
/// band, so each was a candidate only as a filled base (the table round it
/// clear), and its outer edge was found on 66 of 72 rays; but the gate on a
/// fit's score, the band's share less the inside's (0.29), dropped it. A
/// filled base whose edge is found nearly all round is judged against the
/// table round it instead.
#[test]
fn white_feet_with_pale_groundwork_are_found() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/unseen");
    let (s, rows) = measure(&[root.join("seed106")]);
    for at in [(40.07, 33.05), (24.73, 20.73)] {
        assert!(
            found_at(&rows, at),
            "the white foot base at {at:?} is found"
        );
    }
    assert_eq!(s.true_reports, s.reported, "no false figures");
    assert_eq!(s.found_visible, s.visible, "every figure in view is found");
}
