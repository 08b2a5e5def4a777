//! The lens calibration measured on rendered ChArUco views with exact
//! truth (issue 15): per camera the distortion model chosen, the relative
//! error of fx, fy, cx, cy against the truth K, the 1-sigma uncertainties
//! and the advice `calibrate-lens` gives; and, to tell the corners' error
//! from the solver's, the error of the found corners against the truth
//! (each view's board pose projected through the true lens) and the K that
//! the same solver finds from those true corners.
//!
//! `measure_lens_sets` (ignored) reads `SPOTTER_LENS_DIRS`: comma-separated
//! folders of `view-NN.jpg` with `view-NN.truth.json` (the camera's K and
//! dist, the board's pose). Run with `--ignored --nocapture`.
//!
//! # Conventions
//! Pixels with the origin at the centre of the top-left pixel (OpenCV's);
//! the board frame of `calibration::charuco`, inches.

use std::path::{Path, PathBuf};

use nalgebra::{Matrix3, Point2, Rotation3, Vector3};
use serde_json::Value;
use spotter::calibration::Lens;
use spotter::calibration::charuco::CharucoBoard;
use spotter::calibration::cv;
use spotter::calibration::lens_calibration::{self, BoardView, LensCalibrationParams};

/// One view's truth: the camera and the board's pose in it.
pub struct ViewTruth {
    pub lens: Lens,
    pub rot: Rotation3<f64>,
    pub t_in: Vector3<f64>,
}

impl ViewTruth {
    pub fn load(path: &Path) -> Self {
        let text = std::fs::read_to_string(path).expect("truth file");
        let v: Value = serde_json::from_str(&text).expect("truth JSON");
        let nums = |x: &Value| -> Vec<f64> {
            x.as_array()
                .expect("array")
                .iter()
                .flat_map(|e| match e.as_array() {
                    Some(row) => row.iter().map(|n| n.as_f64().expect("number")).collect(),
                    None => vec![e.as_f64().expect("number")],
                })
                .collect()
        };
        let k = nums(&v["camera"]["K"]);
        let d = nums(&v["camera"]["dist"]);
        let size = nums(&v["camera"]["image_size"]);
        let rvec = nums(&v["board"]["pose"]["rvec"]);
        let tvec = nums(&v["board"]["pose"]["tvec_in"]);
        Self {
            lens: Lens {
                k: Matrix3::from_row_slice(&k),
                dist: [d[0], d[1], d[2], d[3], d[4]],
                rational: [0.0; 3],
                image_size: [size[0] as u32, size[1] as u32],
                rms_px: 0.0,
            },
            rot: Rotation3::from_scaled_axis(Vector3::new(rvec[0], rvec[1], rvec[2])),
            t_in: Vector3::new(tvec[0], tvec[1], tvec[2]),
        }
    }

    /// Where the true camera shows a board point.
    pub fn pixel_of(&self, board: Point2<f64>) -> Point2<f64> {
        let p = self.rot * Vector3::new(board.x, board.y, 0.0) + self.t_in;
        let ideal = self.lens.k * Vector3::new(p.x / p.z, p.y / p.z, 1.0);
        self.lens.pixel_from_ideal(Point2::new(ideal.x, ideal.y))
    }
}

fn views_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("views folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jpg"))
        .filter(|p| p.with_extension("truth.json").exists())
        .collect();
    v.sort();
    v
}

/// Relative errors of fx, fy, cx, cy against the truth.
pub fn k_errors(lens: &Lens, truth: &Lens) -> [f64; 4] {
    [
        (lens.fx() - truth.fx()) / truth.fx(),
        (lens.fy() - truth.fy()) / truth.fy(),
        (lens.cx() - truth.cx()) / truth.cx(),
        (lens.cy() - truth.cy()) / truth.cy(),
    ]
}

fn worst(e: &[f64; 4]) -> f64 {
    e.iter().fold(0.0_f64, |a, b| a.max(b.abs()))
}

fn pct(e: &[f64; 4]) -> String {
    format!(
        "fx {:+.3}% fy {:+.3}% cx {:+.3}% cy {:+.3}% (worst {:.3}%)",
        e[0] * 100.0,
        e[1] * 100.0,
        e[2] * 100.0,
        e[3] * 100.0,
        worst(e) * 100.0
    )
}

fn quantile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn solve(views: &[BoardView], size: [u32; 2]) -> Lens {
    let refs: Vec<&BoardView> = views.iter().collect();
    lens_calibration::run_calibration(&refs, size)
        .expect("calibrates")
        .0
}

/// Measures one folder; returns the worst K error of the calibration.
pub fn measure_dir(dir: &Path) -> f64 {
    let board = CharucoBoard::default();
    let params = LensCalibrationParams::default();
    let mut views = Vec::new();
    let mut truths = Vec::new();
    let mut size = [0, 0];
    for p in views_in(dir) {
        let gray = image::open(&p).expect("view").to_luma8();
        size = [gray.width(), gray.height()];
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        views.push(lens_calibration::find_board_corners(&name, &gray, &board, &params).unwrap());
        truths.push(ViewTruth::load(&p.with_extension("truth.json")));
    }
    assert!(
        !truths.is_empty(),
        "{}: no ChArUco views here (render them with `scripts/render-phase.py charuco SEED`)",
        dir.display()
    );
    let truth = truths[0].lens.clone();
    // The found corners against the truth.
    let mut errs = Vec::new();
    let (mut sx, mut sy) = (0.0, 0.0);
    for (v, t) in views.iter().zip(&truths) {
        for (_, b, px) in &v.corners {
            let d = px - t.pixel_of(*b);
            sx += d.x;
            sy += d.y;
            errs.push(d.norm());
        }
    }
    let n = errs.len() as f64;
    println!(
        "{}: {} views {}x{}, {} corners: error against the truth median {:.3} px, p95 {:.3} px, max {:.3} px, mean offset ({:+.3}, {:+.3}) px",
        dir.display(),
        views.len(),
        size[0],
        size[1],
        errs.len(),
        quantile(&mut errs, 0.5),
        quantile(&mut errs, 0.95),
        quantile(&mut errs, 1.0),
        sx / n,
        sy / n
    );
    // The solver on the true corners (the same ids) and on the found ones.
    let true_views: Vec<BoardView> = views
        .iter()
        .zip(&truths)
        .map(|(v, t)| BoardView {
            name: v.name.clone(),
            corners: v
                .corners
                .iter()
                .map(|(id, b, _)| (*id, *b, t.pixel_of(*b)))
                .collect(),
        })
        .collect();
    println!(
        "  plain calibrateCamera (k3) on true corners:  {}",
        pct(&k_errors(&solve(&true_views, size), &truth))
    );
    println!(
        "  plain calibrateCamera (k3) on found corners: {}",
        pct(&k_errors(&solve(&views, size), &truth))
    );
    let cal = match lens_calibration::calibrate(views, size, &params) {
        Ok(c) => c,
        Err(e) => {
            println!("  calibrate refused: {e}");
            return f64::INFINITY;
        }
    };
    let e = k_errors(&cal.lens, &truth);
    let tried: Vec<String> = cal
        .held_out_rms_px
        .iter()
        .map(|(m, r)| format!("{} {r:.4}", m.name()))
        .collect();
    println!(
        "  calibrate-lens: model {} (held out: {}), {} of {} views, RMS {:.3} px",
        cal.model.name(),
        tried.join(", "),
        cal.views_used(),
        cal.views.len(),
        cal.lens.rms_px
    );
    println!("  calibrate-lens K: {}", pct(&e));
    let s = &cal.sigma;
    println!(
        "  1-sigma: fx {:.3}% fy {:.3}% cx {:.2} px ({:.3}%) cy {:.2} px ({:.3}%) k1 {:.5} k2 {:.5} p1 {:.6} p2 {:.6} k3 {:.5} k4 {:.5} k5 {:.5} k6 {:.5}",
        100.0 * s[0] / cal.lens.fx(),
        100.0 * s[1] / cal.lens.fy(),
        s[2],
        100.0 * s[2] / cal.lens.cx(),
        s[3],
        100.0 * s[3] / cal.lens.cy(),
        s[4],
        s[5],
        s[6],
        s[7],
        s[8],
        s[9],
        s[10],
        s[11]
    );
    let weights: Vec<String> = cal
        .views
        .iter()
        .map(|v| {
            v.weight
                .map_or_else(|| "-".to_owned(), |w| format!("{w:.2}"))
        })
        .collect();
    println!("  view weights {}", weights.join(" "));
    println!(
        "  dist {:?} rational {:?} (truth {:?})",
        cal.lens.dist, cal.lens.rational, truth.dist
    );
    for a in &cal.advice {
        println!("  advice: {a}");
    }
    worst(&e)
}

#[test]
#[ignore = "measures folders named by SPOTTER_LENS_DIRS; run with --ignored --nocapture"]
fn measure_lens_sets() {
    let dirs = std::env::var("SPOTTER_LENS_DIRS").unwrap_or_else(|_| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/photoreal");
        ["cam01", "cam02", "cam03"]
            .map(|c| root.join(c).join("charuco").display().to_string())
            .join(",")
    });
    let mut all = 0.0_f64;
    for d in dirs.split(',').filter(|d| !d.is_empty()) {
        all = all.max(measure_dir(Path::new(d)));
    }
    println!("worst K error over the cameras: {:.3}%", all * 100.0);
}

/// The board corners of one view refined with smoothing `sigma_px` and the
/// half-window capped at `cap_px` (the variants `measure_corner_variants`
/// compares).
fn corners_variant(
    name: &str,
    gray: &image::GrayImage,
    board: &CharucoBoard,
    sigma_px: f64,
    cap_px: f64,
) -> BoardView {
    let n = board.marker_count();
    let seen: Vec<_> = cv::detect_markers(gray, board.dictionary)
        .unwrap()
        .into_iter()
        .filter(|m| m.id >= board.first_id && m.id < board.first_id + n)
        .collect();
    let predicted = board.predict_corners(&seen);
    let mut corners = Vec::new();
    if !predicted.is_empty() {
        let square_px = predicted.iter().map(|p| p.3).fold(f64::INFINITY, f64::min);
        let margin_frac = (board.square_in - board.marker_in) / (2.0 * board.square_in);
        let half_win = (square_px / 4.0)
            .min(square_px * margin_frac - 0.5)
            .clamp(2.0, cap_px)
            .round() as i32;
        let guesses: Vec<Point2<f64>> = predicted.iter().map(|p| p.2).collect();
        let refined = cv::corner_sub_pix_smoothed(gray, &guesses, half_win, sigma_px).unwrap();
        for ((id, b, guess, sq), r) in predicted.into_iter().zip(refined) {
            if (r - guess).norm() <= 0.15 * sq {
                corners.push((id, b, r));
            }
        }
    }
    BoardView {
        name: name.to_owned(),
        corners,
    }
}

#[test]
#[ignore = "compares corner refinements on SPOTTER_LENS_DIRS; run with --ignored --nocapture"]
fn measure_corner_variants() {
    let dirs = std::env::var("SPOTTER_LENS_DIRS").unwrap_or_default();
    let variants = std::env::var("SPOTTER_LENS_VARIANTS").unwrap_or_else(|_| "0:8,1:16".into());
    let board = CharucoBoard::default();
    let params = LensCalibrationParams::default();
    for d in dirs.split(',').filter(|d| !d.is_empty()) {
        let photos: Vec<(String, image::GrayImage, ViewTruth)> = views_in(Path::new(d))
            .into_iter()
            .map(|p| {
                (
                    p.display().to_string(),
                    image::open(&p).unwrap().to_luma8(),
                    ViewTruth::load(&p.with_extension("truth.json")),
                )
            })
            .collect();
        let size = [photos[0].1.width(), photos[0].1.height()];
        for v in variants.split(',') {
            let (s, c) = v.split_once(':').unwrap();
            let (s, c): (f64, f64) = (s.parse().unwrap(), c.parse().unwrap());
            let views: Vec<BoardView> = photos
                .iter()
                .map(|(n, g, _)| corners_variant(n, g, &board, s, c))
                .collect();
            let mut errs: Vec<f64> = views
                .iter()
                .zip(&photos)
                .flat_map(|(v, (_, _, t))| {
                    v.corners
                        .iter()
                        .map(|(_, b, px)| (px - t.pixel_of(*b)).norm())
                })
                .collect();
            let (m, p95) = (quantile(&mut errs, 0.5), quantile(&mut errs, 0.95));
            let truth = photos[0].2.lens.clone();
            let plain = k_errors(&solve(&views, size), &truth);
            let cal = lens_calibration::calibrate(views, size, &params).unwrap();
            println!(
                "{d} sigma {s} cap {c}: corners median {m:.4} p95 {p95:.4} px; plain {}; calibrate-lens {} sigma cy {:.2} px",
                pct(&plain),
                pct(&k_errors(&cal.lens, &truth)),
                cal.sigma[3]
            );
        }
    }
}
