//! The lens solver's model choice, uncertainties and advice on the ChArUco
//! views of the photoreal fixtures, against the truth K of each camera.

use std::path::PathBuf;

use spotter::calibration::charuco::CharucoBoard;
use spotter::calibration::lens_calibration::{self, LensCalibrationParams};
use spotter::vision::eval::Truth;

fn calibrate(cam: &str) -> (lens_calibration::LensCalibration, Truth) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/photoreal");
    let board = CharucoBoard::default();
    let params = LensCalibrationParams::default();
    let mut views = Vec::new();
    let mut size = [0, 0];
    for k in 1..=10 {
        let p = root.join(format!("{cam}/charuco/view-{k:02}.jpg"));
        let gray = image::open(&p).expect("view").to_luma8();
        size = [gray.width(), gray.height()];
        views.push(
            lens_calibration::find_board_corners(&format!("{k}"), &gray, &board, &params)
                .expect("corners"),
        );
    }
    let cal = lens_calibration::calibrate(views, size, &params).expect("calibrates");
    let truth = Truth::load(&root.join(format!("{cam}/frame-01.truth.json"))).expect("truth");
    (cal, truth)
}

/// Measured: fx within 0.06% (cam01), the k1 k2 p1 p2 model chosen (a free
/// k3 predicts held-back views no better), fx's 1-sigma 0.12%; cam03's
/// views leave fx open to 0.49% and the advice says so. The image centre
/// is judged like every entry of K, against 0.3% of its own value (stop
/// 43; before, 0.5% of the image width): cam01's views leave cy open to
/// 0.35% (1.9 px), and cy is indeed 0.33% off, so the advice names it.
#[test]
fn the_model_is_chosen_on_held_back_views_and_open_parameters_are_named() {
    let (cal, truth) = calibrate("cam01");
    let fx_err = (cal.lens.fx() - truth.lens.fx()).abs() / truth.lens.fx();
    assert!(fx_err < 0.002, "fx off by {fx_err}");
    assert_eq!(cal.held_out_rms_px.len(), 3);
    assert!(
        cal.held_out_rms_px
            .iter()
            .all(|(_, r)| *r > 0.0 && *r < 0.5)
    );
    assert!(cal.sigma[0] > 0.0 && cal.sigma[0] / cal.lens.fx() < 0.003);
    assert!(
        !cal.advice.iter().any(|a| a.contains("focal length")),
        "{:?}",
        cal.advice
    );
    assert!(
        cal.advice.iter().any(|a| a.contains("image centre")),
        "{:?}",
        cal.advice
    );
    let (cal3, _) = calibrate("cam03");
    assert!(
        cal3.advice.iter().any(|a| a.contains("focal length")),
        "{:?}",
        cal3.advice
    );
}

/// Median and 95th percentile of the found ChArUco corners' distance from
/// the truth (each view's board pose through the true lens), pixels, on
/// each fixture camera. Before the photo was smoothed for the refinement
/// cam03 stood at 0.123 / 0.291 px; now 0.108 / 0.246 (cam01 0.077 /
/// 0.172, cam02 0.081 / 0.151).
const MAX_CORNER_MEDIAN_PX: f64 = 0.11;
const MAX_CORNER_P95_PX: f64 = 0.26;

#[test]
fn the_fixture_charuco_corners_lie_within_a_tenth_of_a_pixel_of_the_truth() {
    use super::lens_measure::ViewTruth;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/photoreal");
    let board = CharucoBoard::default();
    let params = LensCalibrationParams::default();
    for cam in ["cam01", "cam02", "cam03"] {
        let mut errs = Vec::new();
        for k in 1..=10 {
            let p = root.join(format!("{cam}/charuco/view-{k:02}.jpg"));
            let gray = image::open(&p).expect("view").to_luma8();
            let truth = ViewTruth::load(&p.with_extension("truth.json"));
            let view = lens_calibration::find_board_corners("v", &gray, &board, &params).unwrap();
            errs.extend(
                view.corners
                    .iter()
                    .map(|(_, b, px)| (px - truth.pixel_of(*b)).norm()),
            );
        }
        errs.sort_by(f64::total_cmp);
        let at = |q: f64| errs[((errs.len() - 1) as f64 * q).round() as usize];
        let (median, p95) = (at(0.5), at(0.95));
        println!("{cam}: corners median {median:.4} px, p95 {p95:.4} px");
        assert!(errs.len() >= 200, "{cam}: {} corners", errs.len());
        assert!(
            median <= MAX_CORNER_MEDIAN_PX && p95 <= MAX_CORNER_P95_PX,
            "{cam}: median {median:.4} px, p95 {p95:.4} px"
        );
    }
}
