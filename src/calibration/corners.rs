//! Sub-pixel marker corners from a fit of the marker's whole pattern in
//! linear light.
//!
//! A camera blurs light before its tone curve: on a gamma-encoded image the
//! half-way grey of a dark-to-white edge sits a pixel or so inside the dark
//! region, so a black square on white paper looks smaller than it is, and
//! corner detectors that work on encoded grey levels (OpenCV's sub-pixel and
//! contour refinements) pull the corners inward. Linearising with the sRGB
//! curve removes most of that, but a webcam's real curve (contrast, a lifted
//! black) is not sRGB and the rest still varies with the blur across the
//! picture. So every boundary between a black and a white cell of the
//! marker (the paper margin included) is measured, and one homography plus
//! one "black shrinks by b" bias is fitted to all of them: the bias is
//! measured on the marker itself, whatever the curve, and the corners come
//! out of the homography.
//!
//! # Conventions
//! Pixels with the origin at the centre of the top-left pixel; corners in
//! OpenCV order (TL, TR, BR, BL of the printed marker).

use image::GrayImage;
use nalgebra::Point2;

use super::lens::Lens;
use super::table::MarkerObservation;

/// Tuning of the edge refinement.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeRefineParams {
    /// Profile step, pixels.
    pub step_px: f64,
    /// Least dark-to-white contrast (linear units, 0..1) for a usable profile.
    pub min_contrast: f64,
    /// Refinement is rejected if a corner moves further than this, pixels.
    pub max_shift_px: f64,
    /// Largest border bias believed, pixels (beyond it the profile is wrong).
    pub max_bias_px: f64,
}

impl Default for EdgeRefineParams {
    fn default() -> Self {
        Self {
            step_px: 0.25,
            min_contrast: 0.08,
            max_shift_px: 3.0,
            max_bias_px: 1.5,
        }
    }
}

/// sRGB-encoded 8-bit value to linear light, 0..1.
fn srgb_to_linear(v: u8) -> f64 {
    let c = f64::from(v) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// A grey image, or a window of one, converted to linear light once and
/// sampled bilinearly in the full image's pixel coordinates.
pub struct LinearImage {
    /// Full-image position of the window's top-left pixel.
    x0: usize,
    y0: usize,
    width: usize,
    height: usize,
    data: Vec<f32>,
}

/// The sRGB curve for every 8-bit value, computed once.
fn srgb_lut() -> &'static [f32; 256] {
    static LUT: std::sync::OnceLock<[f32; 256]> = std::sync::OnceLock::new();
    LUT.get_or_init(|| std::array::from_fn(|v| srgb_to_linear(v as u8) as f32))
}

impl LinearImage {
    /// The whole image, linearised with the sRGB curve.
    pub fn new(gray: &GrayImage) -> Self {
        Self::window(gray, [0, 0, gray.width(), gray.height()])
    }

    /// The pixels `x0 <= x < x1`, `y0 <= y < y1` of `[x0, y0, x1, y1]`
    /// (clipped to the image), linearised with the sRGB curve; samples
    /// outside the window are `None` as if it were the whole image.
    pub fn window(gray: &GrayImage, bounds: [u32; 4]) -> Self {
        Self::with_lut(gray, bounds, srgb_lut())
    }

    /// Linearised with a pure power law `v^gamma` (v in 0..1).
    pub fn with_gamma(gray: &GrayImage, gamma: f64) -> Self {
        let lut: [f32; 256] = std::array::from_fn(|v| (v as f64 / 255.0).powf(gamma) as f32);
        Self::with_lut(gray, [0, 0, gray.width(), gray.height()], &lut)
    }

    fn with_lut(gray: &GrayImage, bounds: [u32; 4], lut: &[f32; 256]) -> Self {
        let full_w = gray.width() as usize;
        let x1 = (bounds[2].min(gray.width())) as usize;
        let y1 = (bounds[3].min(gray.height())) as usize;
        let x0 = (bounds[0] as usize).min(x1);
        let y0 = (bounds[1] as usize).min(y1);
        let (width, height) = (x1 - x0, y1 - y0);
        let mut data = Vec::with_capacity(width * height);
        if width > 0 {
            for row in gray.as_raw().chunks_exact(full_w).skip(y0).take(height) {
                data.extend(row[x0..x1].iter().map(|&v| lut[usize::from(v)]));
            }
        }
        Self {
            x0,
            y0,
            width,
            height,
            data,
        }
    }

    /// Bilinear sample at a full-image position; `None` outside the window.
    #[inline]
    pub fn sample(&self, p: Point2<f64>) -> Option<f64> {
        let (x, y) = (p.x - self.x0 as f64, p.y - self.y0 as f64);
        if !(x >= 0.0 && y >= 0.0) {
            return None;
        }
        // Non-negative by the check above; truncation is floor here.
        let (xi, yi) = (x as usize, y as usize);
        if xi + 1 >= self.width || yi + 1 >= self.height {
            return None;
        }
        let (fx, fy) = (x - xi as f64, y - yi as f64);
        let i = yi * self.width + xi;
        let row0 = self.data.get(i..i + 2)?;
        let row1 = self.data.get(i + self.width..i + self.width + 2)?;
        let (a, b) = (f64::from(row0[0]), f64::from(row0[1]));
        let (c, d) = (f64::from(row1[0]), f64::from(row1[1]));
        Some(a * (1.0 - fx) * (1.0 - fy) + b * fx * (1.0 - fy) + c * (1.0 - fx) * fy + d * fx * fy)
    }
}

/// Finds the half-way crossing along one profile across an edge, from the
/// dark side (negative offsets) to the bright side (positive). Returns the
/// offset in pixels.
fn crossing(profile: &[(f64, f64)], min_contrast: f64) -> Option<f64> {
    let k = (profile.len() / 4).max(1);
    let dark = profile[..k].iter().map(|p| p.1).sum::<f64>() / k as f64;
    let bright = profile[profile.len() - k..]
        .iter()
        .map(|p| p.1)
        .sum::<f64>()
        / k as f64;
    if bright - dark < min_contrast {
        return None;
    }
    let half = (dark + bright) / 2.0;
    // The crossing nearest the predicted edge (offset 0).
    let mut best: Option<f64> = None;
    for w in profile.windows(2) {
        let ((t0, v0), (t1, v1)) = (w[0], w[1]);
        if (v0 - half) * (v1 - half) <= 0.0 && (v1 - v0).abs() > 1e-12 {
            let t = t0 + (half - v0) / (v1 - v0) * (t1 - t0);
            if best.is_none_or(|b| t.abs() < b.abs()) {
                best = Some(t);
            }
        }
    }
    best
}

/// Samples across each cell boundary of the pattern fit.
const PATTERN_SAMPLES_PER_BOUNDARY: [f64; 3] = [0.3, 0.5, 0.7];
/// Half-length of a boundary profile, cells.
const PATTERN_PROFILE_HALF_CELLS: f64 = 0.45;
/// Gauss-Newton iterations of the pattern fit.
const PATTERN_ITERATIONS: usize = 8;

/// One measured boundary point: where the image crosses half-way between
/// black and white, in ideal pixels, and which boundary of the marker grid
/// it belongs to.
struct BoundarySample {
    ideal: Point2<f64>,
    /// `true` for a boundary of constant marker x (a vertical grid line).
    vertical: bool,
    /// The grid line, in cells.
    at_cells: f64,
    /// +1 when the black cell is on the side of larger coordinate.
    black_side: f64,
}

/// Fits the whole marker pattern: a homography from marker cells to ideal
/// pixels and one edge bias (how far every black region looks shrunk, in
/// cells), on every boundary between a black and a white cell, the white
/// paper margin included. The bias comes from the tone curve and blur of
/// this camera at this place in the picture; fitting it on the marker's own
/// boundaries removes it without knowing the curve. Returns the corrected
/// corners; `None` when the pattern cannot be measured.
pub fn fit_marker_pattern(
    image: &LinearImage,
    obs: &MarkerObservation,
    bits: &[Vec<bool>],
    lens: Option<&Lens>,
    params: &EdgeRefineParams,
) -> Option<MarkerObservation> {
    let n = bits.len();
    if n < 3 {
        return None;
    }
    let nf = n as f64;
    let to_px = |p: Point2<f64>| lens.map_or(p, |l| l.pixel_from_ideal(p));
    let grid = cell_corners(n);
    let ideal_from_cells = ideal_from_cells(obs, n, lens)?;
    let black = |r: i64, c: i64| -> bool {
        if r < 0 || c < 0 || r >= n as i64 || c >= n as i64 {
            false // the white paper margin
        } else {
            bits[r as usize][c as usize]
        }
    };
    // Measure every black/white boundary, in the image, across the line.
    let mut samples = Vec::new();
    for line in 0..=n as i64 {
        for span in -1..=n as i64 {
            for vertical in [true, false] {
                // Cells on either side of the grid line `line` at row/column `span`.
                let (before, after) = if vertical {
                    (black(span, line - 1), black(span, line))
                } else {
                    (black(line - 1, span), black(line, span))
                };
                if before == after || !(0..n as i64).contains(&span) {
                    continue;
                }
                let black_side = if after { 1.0 } else { -1.0 };
                for frac in PATTERN_SAMPLES_PER_BOUNDARY {
                    let along = span as f64 + frac;
                    let at = line as f64;
                    let point = |u: f64| {
                        let p = if vertical {
                            Point2::new(at + u, along)
                        } else {
                            Point2::new(along, at + u)
                        };
                        super::homography::apply(&ideal_from_cells, p)
                    };
                    // From the black side to the white side.
                    let steps =
                        (2.0 * PATTERN_PROFILE_HALF_CELLS * (point(1.0) - point(0.0)).norm()
                            / params.step_px)
                            .ceil()
                            .max(4.0) as usize;
                    // The profile is under a cell long, where the lens and
                    // the perspective bend it by far less than a thousandth
                    // of a pixel from a parabola: the pixel positions are
                    // mapped exactly at its ends and middle only.
                    let u_at = |t: f64| {
                        black_side
                            * (PATTERN_PROFILE_HALF_CELLS - 2.0 * PATTERN_PROFILE_HALF_CELLS * t)
                    };
                    let (p0, pm, p1) = (
                        to_px(point(u_at(0.0))),
                        to_px(point(u_at(0.5))),
                        to_px(point(u_at(1.0))),
                    );
                    let profile: Option<Vec<(f64, f64)>> = (0..=steps)
                        .map(|i| {
                            let t = i as f64 / steps as f64;
                            let (w0, wm, w1) = (
                                (1.0 - t) * (1.0 - 2.0 * t),
                                4.0 * t * (1.0 - t),
                                t * (2.0 * t - 1.0),
                            );
                            let px = Point2::new(
                                w0 * p0.x + wm * pm.x + w1 * p1.x,
                                w0 * p0.y + wm * pm.y + w1 * p1.y,
                            );
                            image.sample(px).map(|v| (-black_side * u_at(t), v))
                        })
                        .collect();
                    let Some(profile) = profile else { continue };
                    let Some(t) = crossing(&profile, params.min_contrast) else {
                        continue;
                    };
                    samples.push(BoundarySample {
                        ideal: point(-black_side * t),
                        vertical,
                        at_cells: at,
                        black_side,
                    });
                }
            }
        }
    }
    if samples.len() < 24 {
        return None;
    }
    // Gauss-Newton on (cells_from_ideal entries h0..h7, bias), residuals in
    // cells: a sample's marker coordinate across its line minus where the
    // shrunken black region puts the edge.
    let cells_from_ideal = ideal_from_cells.try_inverse()?;
    let cells_from_ideal = cells_from_ideal / cells_from_ideal[(2, 2)];
    let mut theta = nalgebra::SVector::<f64, 9>::zeros();
    for i in 0..8 {
        theta[i] = cells_from_ideal[(i / 3, i % 3)];
    }
    // Each residual and its gradient, analytic: u = num / w with
    // w = h6 x + h7 y + 1, num on h0..h2 (vertical lines) or h3..h5.
    for _ in 0..PATTERN_ITERATIONS {
        let mut jtj = nalgebra::SMatrix::<f64, 9, 9>::zeros();
        let mut jtr = nalgebra::SVector::<f64, 9>::zeros();
        for s in &samples {
            let (x, y) = (s.ideal.x, s.ideal.y);
            let w = theta[6] * x + theta[7] * y + 1.0;
            let first = if s.vertical { 0 } else { 3 };
            let num = theta[first] * x + theta[first + 1] * y + theta[first + 2];
            let u = num / w;
            let r = u - (s.at_cells + s.black_side * theta[8]);
            let mut g = nalgebra::SVector::<f64, 9>::zeros();
            g[first] = x / w;
            g[first + 1] = y / w;
            g[first + 2] = 1.0 / w;
            g[6] = -u * x / w;
            g[7] = -u * y / w;
            g[8] = -s.black_side;
            jtj += g * g.transpose();
            jtr += g * r;
        }
        let delta = jtj.lu().solve(&(-jtr))?;
        theta += delta;
    }
    let bias_cells = theta[8];
    let c = obs.corners_px;
    let cell_px =
        ((c[1] - c[0]).norm() + (c[2] - c[1]).norm() + (c[3] - c[2]).norm() + (c[0] - c[3]).norm())
            / (4.0 * nf);
    if bias_cells.is_nan() || bias_cells.abs() * cell_px > params.max_bias_px {
        // Beyond what blur and a tone curve do: the fit latched onto
        // something else (a shadow, a finger).
        return None;
    }
    let mut fitted = nalgebra::Matrix3::identity();
    for i in 0..8 {
        fitted[(i / 3, i % 3)] = theta[i];
    }
    let ideal_from_cells = fitted.try_inverse()?;
    let mut corners = [Point2::origin(); 4];
    for (k, g) in grid.iter().enumerate() {
        let px = to_px(super::homography::apply(&ideal_from_cells, *g));
        if (px - obs.corners_px[k]).norm() > params.max_shift_px {
            return None;
        }
        corners[k] = px;
    }
    Some(MarkerObservation {
        id: obs.id,
        corners_px: corners,
    })
}

/// The homography from a marker's cell grid (`n` cells a side, the corner
/// cells at 0 and `n`) to ideal (undistorted) image positions, through the
/// marker's four corners as observed.
fn ideal_from_cells(
    obs: &MarkerObservation,
    n: usize,
    lens: Option<&Lens>,
) -> Option<nalgebra::Matrix3<f64>> {
    let ideal: Vec<Point2<f64>> = obs
        .corners_px
        .iter()
        .map(|p| lens.map_or(*p, |l| l.ideal_from_pixel(*p)))
        .collect();
    super::homography::fit(&cell_corners(n), &ideal)
}

/// The corners of a marker's grid of `n` cells a side, in cells.
fn cell_corners(n: usize) -> [Point2<f64>; 4] {
    let nf = n as f64;
    [
        Point2::new(0.0, 0.0),
        Point2::new(nf, 0.0),
        Point2::new(nf, nf),
        Point2::new(0.0, nf),
    ]
}

/// Whether the marker at `obs` shows the pattern `bits` (border included):
/// the middle of every cell, read in linear light, is below the half-way
/// level between the darkest and lightest cell means if its bit is black
/// and above it if white, with at least `min_contrast` between the means.
pub fn cells_match(
    image: &LinearImage,
    obs: &MarkerObservation,
    bits: &[Vec<bool>],
    lens: Option<&Lens>,
    min_contrast: f64,
) -> bool {
    let n = bits.len();
    let to_px = |p: Point2<f64>| lens.map_or(p, |l| l.pixel_from_ideal(p));
    let Some(ideal_from_cells) = ideal_from_cells(obs, n, lens) else {
        return false;
    };
    let mut values = Vec::with_capacity(n * n);
    for (r, row) in bits.iter().enumerate() {
        for (c, &black) in row.iter().enumerate() {
            let centre = Point2::new(c as f64 + 0.5, r as f64 + 0.5);
            let Some(v) = image.sample(to_px(super::homography::apply(&ideal_from_cells, centre)))
            else {
                return false;
            };
            values.push((black, v));
        }
    }
    let mean = |want: bool| {
        let (sum, count) = values
            .iter()
            .filter(|(b, _)| *b == want)
            .fold((0.0, 0usize), |(s, k), (_, v)| (s + v, k + 1));
        (count > 0).then(|| sum / count as f64)
    };
    let (Some(dark), Some(light)) = (mean(true), mean(false)) else {
        return false;
    };
    if light - dark < min_contrast {
        return false;
    }
    let half = (dark + light) / 2.0;
    values.iter().all(|&(black, v)| (v < half) == black)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    /// A 4x4 marker pattern (border included: 6 x 6 cells).
    fn bits() -> Vec<Vec<bool>> {
        let inner = [
            [true, false, false, true],
            [false, false, true, true],
            [true, true, false, false],
            [false, true, false, true],
        ];
        (0..6)
            .map(|r| {
                (0..6)
                    .map(|c| {
                        if r == 0 || c == 0 || r == 5 || c == 5 {
                            true
                        } else {
                            inner[r - 1][c - 1]
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// The marker drawn with cells of `cell` pixels from (x0, y0), blurred
    /// in linear light by area sampling over a 3 px box, then encoded with a
    /// tone curve that is not sRGB (a plain power 1/2.8 with a lifted black):
    /// the kind of camera curve the fit must not depend on.
    fn render(x0: f64, y0: f64, cell: f64) -> GrayImage {
        let b = bits();
        let ss = 8;
        GrayImage::from_fn(100, 100, |x, y| {
            let mut acc = 0.0;
            for sy in 0..ss {
                for sx in 0..ss {
                    let px = f64::from(x) + (f64::from(sx) + 0.5) / f64::from(ss) * 3.0 - 1.5;
                    let py = f64::from(y) + (f64::from(sy) + 0.5) / f64::from(ss) * 3.0 - 1.5;
                    let (c, r) = (((px - x0) / cell).floor(), ((py - y0) / cell).floor());
                    let black = (0.0..6.0).contains(&c)
                        && (0.0..6.0).contains(&r)
                        && b[r as usize][c as usize];
                    acc += if black { 0.02 } else { 0.8 };
                }
            }
            let lin = acc / f64::from(ss * ss);
            let enc = 0.04 + 0.96 * lin.powf(1.0 / 2.8);
            Luma([(enc * 255.0).round() as u8])
        })
    }

    #[test]
    fn the_pattern_fit_finds_the_true_corners_whatever_the_tone_curve() {
        let img = render(20.0, 20.0, 10.0);
        let truth = [(20.0, 20.0), (80.0, 20.0), (80.0, 80.0), (20.0, 80.0)]
            .map(|(x, y)| Point2::new(x, y));
        let rough = MarkerObservation {
            id: 0,
            corners_px: [(21.0, 20.5), (79.0, 21.0), (79.2, 79.0), (20.6, 79.3)]
                .map(|(x, y)| Point2::new(x, y)),
        };
        let lin = LinearImage::new(&img);
        let fitted =
            fit_marker_pattern(&lin, &rough, &bits(), None, &EdgeRefineParams::default()).unwrap();
        for (f, t) in fitted.corners_px.iter().zip(&truth) {
            assert!((f - t).norm() < 0.05, "{f} vs {t}");
        }
        // The half-way grey of the encoded picture sits inside the black
        // border: the shrinking this fit removes is really in the picture.
        let row: Vec<u8> = (10..30).map(|x| img.get_pixel(x, 50).0[0]).collect();
        let half = (u16::from(row[0]) + u16::from(row[19])) / 2;
        let first_dark = row.iter().position(|&v| u16::from(v) < half).unwrap();
        assert!(10 + first_dark > 20, "{row:?}");
    }

    #[test]
    fn the_cells_read_as_the_pattern_only_on_the_marker() {
        let img = render(20.0, 20.0, 10.0);
        let lin = LinearImage::new(&img);
        let at = |x: f64, y: f64| MarkerObservation {
            id: 0,
            corners_px: [(x, y), (x + 60.0, y), (x + 60.0, y + 60.0), (x, y + 60.0)]
                .map(|(x, y)| Point2::new(x, y)),
        };
        assert!(cells_match(&lin, &at(20.0, 20.0), &bits(), None, 0.08));
        // A cell off: the pattern does not read.
        assert!(!cells_match(&lin, &at(30.0, 20.0), &bits(), None, 0.08));
        // Another marker's pattern does not read either.
        let mut other = bits();
        other[2][2] = !other[2][2];
        assert!(!cells_match(&lin, &at(20.0, 20.0), &other, None, 0.08));
    }

    #[test]
    fn a_flat_patch_is_not_fitted() {
        let img = GrayImage::from_pixel(100, 100, Luma([128]));
        let rough = MarkerObservation {
            id: 0,
            corners_px: [(30.0, 30.0), (70.0, 30.0), (70.0, 70.0), (30.0, 70.0)]
                .map(|(x, y)| Point2::new(x, y)),
        };
        let lin = LinearImage::new(&img);
        assert!(
            fit_marker_pattern(&lin, &rough, &bits(), None, &EdgeRefineParams::default()).is_none()
        );
    }
}
