//! The lens solver's choices: which distortion model the board views
//! support (judged on views held back from the fit, each weighted by its
//! share of the frame's coverage), how well each parameter is pinned down,
//! and what photo would pin it better.
//!
//! # Conventions
//! Pixels with the origin at the centre of the top-left pixel; board points
//! in the board's plane (z = 0), inches. Uncertainties are 1-sigma, in the
//! parameter's own units (pixels for fx, fy, cx, cy; none for the
//! distortion coefficients).

use nalgebra::{Point2, Point3};

use super::CalibrationError;
use super::cv;
use super::homography;
use super::lens::Lens;

/// The distortion models tried, simplest first: OpenCV's k1 k2 p1 p2, with
/// k3 as well, and OpenCV's rational model (k4 k5 k6 in the denominator of
/// the radial factor), which follows the strong barrel of short lenses out
/// to the frame's corners where a polynomial in r turns back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistortionModel {
    K1K2,
    K1K2K3,
    Rational,
}

impl DistortionModel {
    pub const ALL: [Self; 3] = [Self::K1K2, Self::K1K2K3, Self::Rational];

    pub fn name(self) -> &'static str {
        match self {
            Self::K1K2 => "k1 k2 p1 p2",
            Self::K1K2K3 => "k1 k2 p1 p2 k3",
            Self::Rational => "k1 k2 p1 p2 k3 k4 k5 k6",
        }
    }
}

/// The parameters a 1-sigma is reported for: fx, fy, cx, cy, k1, k2, p1,
/// p2, k3, k4, k5, k6.
pub const SIGMA_TERMS: usize = 12;
/// Their names, in that order.
pub const SIGMA_NAMES: [&str; SIGMA_TERMS] = [
    "fx", "fy", "cx", "cy", "k1", "k2", "p1", "p2", "k3", "k4", "k5", "k6",
];

/// A richer model is taken only when it predicts held-back views at least
/// this share better (a free k3 also fits noise, and extrapolates badly
/// into the corners no view covers).
const MIN_GAIN_SHARE: f64 = 0.03;
/// Relative 1-sigma of fx or fy above which the focal length is not pinned
/// down (0.3 %: the position error on the table follows it).
const MAX_FOCAL_SIGMA_SHARE: f64 = 0.003;
/// 1-sigma of the principal point above which it is not pinned down, as a
/// share of its own coordinate (cx or cy, as each entry of K is judged:
/// 0.3 %, like the focal length).
const MAX_CENTRE_SIGMA_SHARE: f64 = 0.003;
/// Spread (standard deviation) of fx over the leave-one-view-out fits above
/// which one view decides the focal length, as a share of fx.
const MAX_FOLD_SPREAD_SHARE: f64 = 0.003;
/// The frame's corners: a corner cell of a `CORNER_GRID` x `CORNER_GRID`
/// grid with no board corner in it is a corner not covered.
const CORNER_GRID: u32 = 4;
/// Coverage weights cut the frame into `WEIGHT_GRID` x `WEIGHT_GRID` cells.
const WEIGHT_GRID: u32 = 6;
/// The bands along the frame's edges whose board corners are counted to
/// name the edge the next photo should reach, as a share of the width or
/// height.
const EDGE_BAND_SHARE: f64 = 0.25;

/// One model fitted on all views, and how it predicts views held back.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFit {
    pub model: DistortionModel,
    pub lens: Lens,
    /// RMS of each view in the fit on all views, pixels.
    pub per_view_rms_px: Vec<f64>,
    /// 1-sigma of fx, fy, cx, cy, k1, k2, p1, p2, k3, k4, k5, k6 (0 when
    /// held fixed).
    pub sigma: [f64; SIGMA_TERMS],
    /// RMS over every corner of each view when that view is left out of
    /// the fit, each view weighted by its coverage, pixels (see
    /// [`held_out_rms`]).
    pub held_out_rms_px: f64,
    /// fx of each leave-one-view-out fit.
    pub fold_fx: Vec<f64>,
}

/// The solver's choice and everything it was judged on.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelChoice {
    /// The model taken (index into `fits`).
    pub chosen: usize,
    pub fits: Vec<ModelFit>,
    /// What to do when the views do not pin the lens down (empty when they
    /// do).
    pub advice: Vec<String>,
    /// Each view's coverage weight in the judging (see
    /// [`coverage_weights`]).
    pub weights: Vec<f64>,
}

impl ModelChoice {
    pub fn fit(&self) -> &ModelFit {
        &self.fits[self.chosen]
    }
}

/// RMS, pixels, of a view's corners against what `lens` predicts for them
/// when only the board's pose is fitted to the view: the corners are
/// undistorted, a plane-to-plane homography is fitted from the board, and
/// the board points mapped through it are distorted again. A lens that is
/// right leaves only the corners' own noise.
pub fn view_residual_px(lens: &Lens, board: &[Point3<f64>], pixels: &[Point2<f64>]) -> Option<f64> {
    let src: Vec<Point2<f64>> = board.iter().map(|p| Point2::new(p.x, p.y)).collect();
    let ideal: Vec<Point2<f64>> = pixels.iter().map(|p| lens.ideal_from_pixel(*p)).collect();
    let h = homography::fit(&src, &ideal)?;
    let sum: f64 = src
        .iter()
        .zip(pixels)
        .map(|(s, p)| (lens.pixel_from_ideal(homography::apply(&h, *s)) - p).norm_squared())
        .sum();
    Some((sum / src.len().max(1) as f64).sqrt())
}

/// Every view but view `out`.
fn all_but<T: Clone>(views: &[T], out: usize) -> Vec<T> {
    views
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != out)
        .map(|(_, x)| x.clone())
        .collect()
}

/// Each view's share of the frame's coverage: the frame is cut into
/// [`WEIGHT_GRID`] x [`WEIGHT_GRID`] cells, a cell that `n` views reach
/// gives each of them `1 / n`, and a view's weight is the sum over its
/// cells, scaled so that the weights average 1. Many views of the same
/// middle of the frame share their cells and so do not outvote the one
/// view that alone reaches an edge, where the distortion models differ.
pub fn coverage_weights(image: &[Vec<Point2<f64>>], size: [u32; 2]) -> Vec<f64> {
    let g = WEIGHT_GRID as usize;
    let cells_of = |v: &Vec<Point2<f64>>| -> Vec<bool> {
        let mut cells = vec![false; g * g];
        for p in v {
            let cx = ((p.x / f64::from(size[0])) * g as f64).clamp(0.0, (g - 1) as f64) as usize;
            let cy = ((p.y / f64::from(size[1])) * g as f64).clamp(0.0, (g - 1) as f64) as usize;
            cells[cy * g + cx] = true;
        }
        cells
    };
    let per_view: Vec<Vec<bool>> = image.iter().map(cells_of).collect();
    let reach: Vec<usize> = (0..g * g)
        .map(|c| per_view.iter().filter(|v| v[c]).count())
        .collect();
    let raw: Vec<f64> = per_view
        .iter()
        .map(|v| {
            (0..g * g)
                .filter(|&c| v[c])
                .map(|c| 1.0 / reach[c] as f64)
                .sum()
        })
        .collect();
    let mean = raw.iter().sum::<f64>() / raw.len().max(1) as f64;
    raw.iter()
        .map(|w| if mean > 0.0 { w / mean } else { 1.0 })
        .collect()
}

/// Leave-one-view-out: each view is predicted by the model fitted on the
/// others. Returns the RMS over all held-out corners, each view's corners
/// weighted by `weights` (see [`coverage_weights`]), and each fold's fx.
pub fn held_out_rms(
    object: &[Vec<Point3<f64>>],
    image: &[Vec<Point2<f64>>],
    size: [u32; 2],
    model: DistortionModel,
    weights: &[f64],
) -> Result<(f64, Vec<f64>), CalibrationError> {
    let mut sum = 0.0;
    let mut n = 0.0;
    let mut fold_fx = Vec::new();
    for out in 0..object.len() {
        let (lens, _, _) =
            cv::calibrate_camera_model(&all_but(object, out), &all_but(image, out), size, model)?;
        fold_fx.push(lens.fx());
        let w = weights.get(out).copied().unwrap_or(1.0);
        if let Some(r) = view_residual_px(&lens, &object[out], &image[out]) {
            sum += w * r * r * image[out].len() as f64;
            n += w * image[out].len() as f64;
        }
    }
    Ok((if n > 0.0 { (sum / n).sqrt() } else { 0.0 }, fold_fx))
}

/// Fits every model, judges each on held-back views, takes the simplest
/// unless a richer one predicts them [`MIN_GAIN_SHARE`] better, and says
/// what is not pinned down.
pub fn choose_model(
    object: &[Vec<Point3<f64>>],
    image: &[Vec<Point2<f64>>],
    size: [u32; 2],
) -> Result<ModelChoice, CalibrationError> {
    let weights = coverage_weights(image, size);
    let mut fits = Vec::new();
    for model in DistortionModel::ALL {
        let (lens, per_view_rms_px, sigma) =
            cv::calibrate_camera_model(object, image, size, model)?;
        let (held_out_rms_px, fold_fx) = held_out_rms(object, image, size, model, &weights)?;
        fits.push(ModelFit {
            model,
            lens,
            per_view_rms_px,
            sigma,
            held_out_rms_px,
            fold_fx,
        });
    }
    let mut chosen = 0;
    for (i, f) in fits.iter().enumerate().skip(1) {
        if f.held_out_rms_px < fits[chosen].held_out_rms_px * (1.0 - MIN_GAIN_SHARE) {
            chosen = i;
        }
    }
    let advice = advice(&fits[chosen], image, size);
    Ok(ModelChoice {
        chosen,
        fits,
        advice,
        weights,
    })
}

fn std_dev(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

/// The frame's corners that no board corner reaches, by name.
fn uncovered_corners(image: &[Vec<Point2<f64>>], size: [u32; 2]) -> Vec<&'static str> {
    let g = f64::from(CORNER_GRID);
    let cell = |p: &Point2<f64>| {
        (
            ((p.x / f64::from(size[0])) * g).clamp(0.0, g - 1.0) as u32,
            ((p.y / f64::from(size[1])) * g).clamp(0.0, g - 1.0) as u32,
        )
    };
    let last = CORNER_GRID - 1;
    [
        ((0, 0), "top left"),
        ((last, 0), "top right"),
        ((0, last), "bottom left"),
        ((last, last), "bottom right"),
    ]
    .into_iter()
    .filter(|(c, _)| !image.iter().flatten().any(|p| cell(p) == *c))
    .map(|(_, name)| name)
    .collect()
}

/// The edge of the frame (left, right, top, bottom) whose band of
/// [`EDGE_BAND_SHARE`] holds the fewest board corners, with that count.
pub fn weakest_edge(image: &[Vec<Point2<f64>>], size: [u32; 2]) -> (&'static str, usize) {
    let (w, h) = (f64::from(size[0]), f64::from(size[1]));
    let b = EDGE_BAND_SHARE;
    let count = |f: &dyn Fn(&Point2<f64>) -> bool| image.iter().flatten().filter(|p| f(p)).count();
    [
        ("left", count(&|p| p.x < b * w)),
        ("right", count(&|p| p.x > (1.0 - b) * w)),
        ("top", count(&|p| p.y < b * h)),
        ("bottom", count(&|p| p.y > (1.0 - b) * h)),
    ]
    .into_iter()
    .min_by_key(|(_, n)| *n)
    .unwrap_or(("left", 0))
}

/// What the views leave open, and the photo that would close it.
fn advice(fit: &ModelFit, image: &[Vec<Point2<f64>>], size: [u32; 2]) -> Vec<String> {
    let lens = &fit.lens;
    let mut out = Vec::new();
    let fx_share = fit.sigma[0] / lens.fx();
    let fold_share = std_dev(&fit.fold_fx) / lens.fx();
    let (edge, edge_corners) = weakest_edge(image, size);
    if fx_share > MAX_FOCAL_SIGMA_SHARE || fold_share > MAX_FOLD_SPREAD_SHARE {
        out.push(format!(
            "the focal length is pinned down only to {:.2}% (leaving one view out moves it by {:.2}%; aim below {:.1}%): take the next photo with the board tilted 30 to 45 degrees near the {edge} edge of the picture ({edge_corners} board corners there so far), then toward the other sides in turn, and nearer the camera",
            fx_share * 100.0,
            fold_share * 100.0,
            MAX_FOCAL_SIGMA_SHARE * 100.0
        ));
    }
    // The looser of cx and cy, each against its own value.
    let (centre_px, centre_share) = [(fit.sigma[2], lens.cx()), (fit.sigma[3], lens.cy())]
        .into_iter()
        .map(|(sigma, at)| (sigma, sigma / at.abs().max(1.0)))
        .fold((0.0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    if centre_share > MAX_CENTRE_SIGMA_SHARE {
        out.push(format!(
            "the image centre is pinned down only to {centre_px:.1} px ({:.2}%; aim below {:.1}%): take the next photo with the board near the {edge} edge of the picture, tilted about both its axes",
            centre_share * 100.0,
            MAX_CENTRE_SIGMA_SHARE * 100.0
        ));
    }
    let corners = uncovered_corners(image, size);
    if !corners.is_empty() {
        out.push(format!(
            "no board corner reaches the {} of the picture, where the distortion is strongest: add a photo with the board there",
            corners.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Matrix3;

    fn lens(dist: [f64; 5]) -> Lens {
        Lens {
            k: Matrix3::new(900.0, 0.0, 640.0, 0.0, 900.0, 360.0, 0.0, 0.0, 1.0),
            dist,
            rational: [0.0; 3],
            image_size: [1280, 720],
            rms_px: 0.0,
        }
    }

    /// A 6 x 4 board seen through `truth` under a homography.
    fn view(truth: &Lens, h: &Matrix3<f64>) -> (Vec<Point3<f64>>, Vec<Point2<f64>>) {
        let board: Vec<Point3<f64>> = (0..6)
            .flat_map(|i| (0..4).map(move |j| Point3::new(f64::from(i), f64::from(j), 0.0)))
            .collect();
        let px = board
            .iter()
            .map(|p| truth.pixel_from_ideal(homography::apply(h, Point2::new(p.x, p.y))))
            .collect();
        (board, px)
    }

    #[test]
    fn the_true_lens_explains_a_view_and_a_wrong_one_does_not() {
        let truth = lens([-0.3, 0.1, 0.0, 0.0, 0.0]);
        let h = Matrix3::new(80.0, 5.0, 200.0, -4.0, 78.0, 150.0, 0.0001, 0.0002, 1.0);
        let (board, px) = view(&truth, &h);
        let right = view_residual_px(&truth, &board, &px).unwrap();
        let wrong = view_residual_px(&lens([0.0; 5]), &board, &px).unwrap();
        assert!(right < 1e-6, "{right}");
        assert!(wrong > 0.5, "{wrong}");
    }

    #[test]
    fn corners_without_board_are_named() {
        let pts = vec![vec![Point2::new(10.0, 10.0), Point2::new(1270.0, 710.0)]];
        assert_eq!(
            uncovered_corners(&pts, [1280, 720]),
            vec!["top right", "bottom left"]
        );
    }

    #[test]
    fn a_view_alone_at_the_edge_outweighs_each_of_many_middle_views() {
        let size = [1200, 600];
        let middle: Vec<Point2<f64>> = (0..5)
            .map(|i| Point2::new(560.0 + 20.0 * f64::from(i), 300.0))
            .collect();
        let edge = vec![Point2::new(20.0, 20.0), Point2::new(20.0, 580.0)];
        let mut image = vec![middle; 6];
        image.push(edge);
        let w = coverage_weights(&image, size);
        // The six middle views share two cells (1/6 each from both); the
        // edge view has two cells to itself.
        assert!((w[6] / w[0] - 6.0).abs() < 1e-9, "{w:?}");
        assert!((w.iter().sum::<f64>() / 7.0 - 1.0).abs() < 1e-9);
        assert_eq!(weakest_edge(&image, size).0, "right");
    }
}
