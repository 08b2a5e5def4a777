//! Sub-pixel marker corners from the marker's four edges, measured in
//! linear light.
//!
//! A camera blurs light before its tone curve: on a gamma-encoded image the
//! half-way grey of a dark-to-white edge sits a pixel or so inside the dark
//! square, so a black square on white paper looks smaller than it is, and
//! corner detectors that work on encoded grey levels (OpenCV's sub-pixel and
//! contour refinements) pull the corners inward. Here each edge is found
//! where the *linear* intensity crosses half-way between the dark border and
//! the white margin, straight lines are fitted to those edge points in ideal
//! (undistorted) pixels, and the corners are the intersections of the lines.
//!
//! # Conventions
//! Pixels with the origin at the centre of the top-left pixel; corners in
//! OpenCV order (TL, TR, BR, BL of the printed marker).

use image::GrayImage;
use nalgebra::{Point2, Vector2};

use super::lens::Lens;
use super::table::MarkerObservation;

/// Tuning of the edge refinement.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeRefineParams {
    /// Edge samples per side.
    pub samples_per_side: usize,
    /// Part of each side near the corners left out (corners are rounded by
    /// blur), as a fraction of the side.
    pub corner_skip_frac: f64,
    /// Half-length of each profile across the edge, as a fraction of one
    /// marker cell (the black border is one cell wide, the margin wider).
    pub profile_half_cells: f64,
    /// Profile step, pixels.
    pub step_px: f64,
    /// Least dark-to-white contrast (linear units, 0..1) for a usable profile.
    pub min_contrast: f64,
    /// Refinement is rejected if a corner moves further than this, pixels.
    pub max_shift_px: f64,
}

impl Default for EdgeRefineParams {
    fn default() -> Self {
        Self {
            samples_per_side: 24,
            corner_skip_frac: 0.12,
            profile_half_cells: 0.6,
            step_px: 0.25,
            min_contrast: 0.08,
            max_shift_px: 3.0,
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

/// A grey image converted to linear light once, sampled bilinearly.
pub struct LinearImage {
    width: usize,
    height: usize,
    data: Vec<f32>,
}

impl LinearImage {
    pub fn new(gray: &GrayImage) -> Self {
        let lut: Vec<f32> = (0..=255u8).map(|v| srgb_to_linear(v) as f32).collect();
        Self {
            width: gray.width() as usize,
            height: gray.height() as usize,
            data: gray.as_raw().iter().map(|&v| lut[usize::from(v)]).collect(),
        }
    }

    /// Bilinear sample; `None` outside the image.
    pub fn sample(&self, p: Point2<f64>) -> Option<f64> {
        if !(p.x >= 0.0 && p.y >= 0.0) {
            return None;
        }
        let (x0, y0) = (p.x.floor() as usize, p.y.floor() as usize);
        if x0 + 1 >= self.width || y0 + 1 >= self.height {
            return None;
        }
        let (fx, fy) = (p.x - x0 as f64, p.y - y0 as f64);
        let at = |x: usize, y: usize| f64::from(self.data[y * self.width + x]);
        Some(
            at(x0, y0) * (1.0 - fx) * (1.0 - fy)
                + at(x0 + 1, y0) * fx * (1.0 - fy)
                + at(x0, y0 + 1) * (1.0 - fx) * fy
                + at(x0 + 1, y0 + 1) * fx * fy,
        )
    }
}

/// A line n.p = d with unit normal n.
#[derive(Debug, Clone, Copy)]
struct Line {
    n: Vector2<f64>,
    d: f64,
}

fn fit_line(points: &[Point2<f64>]) -> Option<Line> {
    if points.len() < 3 {
        return None;
    }
    let n = points.len() as f64;
    let c = points.iter().fold(Vector2::zeros(), |a, p| a + p.coords) / n;
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for p in points {
        let d = p.coords - c;
        sxx += d.x * d.x;
        sxy += d.x * d.y;
        syy += d.y * d.y;
    }
    // The normal is the eigenvector of the smaller eigenvalue of the scatter.
    let theta = 0.5 * (2.0 * sxy).atan2(sxx - syy);
    let dir = Vector2::new(theta.cos(), theta.sin());
    let normal = Vector2::new(-dir.y, dir.x);
    Some(Line {
        n: normal,
        d: normal.dot(&c),
    })
}

fn intersect(a: Line, b: Line) -> Option<Point2<f64>> {
    let det = a.n.x * b.n.y - a.n.y * b.n.x;
    if det.abs() < 1e-9 {
        return None;
    }
    Some(Point2::new(
        (a.d * b.n.y - b.d * a.n.y) / det,
        (a.n.x * b.d - b.n.x * a.d) / det,
    ))
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

/// A marker's four edges as straight lines in ideal (undistorted) pixels,
/// each with its normal pointing out of the marker.
#[derive(Debug, Clone)]
pub struct MarkerEdges {
    pub id: u32,
    lines: [Line; 4],
    /// The detector's corners, pixels as seen.
    rough_px: [Point2<f64>; 4],
}

impl MarkerEdges {
    /// The corners with every edge moved outward by `outward_px` (ideal
    /// pixels): the correction for a tone curve that the sRGB model does not
    /// capture. `None` when a corner would move further than `max_shift_px`
    /// from the detector's.
    pub fn corners_px(
        &self,
        outward_px: f64,
        lens: Option<&Lens>,
        max_shift_px: f64,
    ) -> Option<MarkerObservation> {
        let shifted = self.lines.map(|l| Line {
            n: l.n,
            d: l.d + outward_px,
        });
        let mut corners = [Point2::origin(); 4];
        for k in 0..4 {
            // Corner k lies on side k-1 (from corner k-1 to k) and side k.
            let ideal = intersect(shifted[(k + 3) % 4], shifted[k])?;
            let px = lens.map_or(ideal, |l| l.pixel_from_ideal(ideal));
            if (px - self.rough_px[k]).norm() > max_shift_px {
                return None;
            }
            corners[k] = px;
        }
        Some(MarkerObservation {
            id: self.id,
            corners_px: corners,
        })
    }
}

/// Measures one marker's edges. `cells` is the marker's side in cells,
/// border included (6 for a 4x4 marker). Returns `None` when an edge cannot
/// be measured (covered, out of the picture, too little contrast).
pub fn marker_edges(
    image: &LinearImage,
    obs: &MarkerObservation,
    cells: u32,
    lens: Option<&Lens>,
    params: &EdgeRefineParams,
) -> Option<MarkerEdges> {
    let c = obs.corners_px;
    let centre = Point2::from((c[0].coords + c[1].coords + c[2].coords + c[3].coords) / 4.0);
    let centre_ideal = lens.map_or(centre, |l| l.ideal_from_pixel(centre));
    let mut lines = Vec::with_capacity(4);
    for k in 0..4 {
        let (a, b) = (c[k], c[(k + 1) % 4]);
        let along = b - a;
        let side_px = along.norm();
        let dir = along / side_px;
        let mut normal = Vector2::new(-dir.y, dir.x);
        // Point the normal outward, from the dark border to the white margin.
        if normal.dot(&(nalgebra::center(&a, &b) - centre)) < 0.0 {
            normal = -normal;
        }
        let half = params.profile_half_cells * side_px / f64::from(cells);
        let steps = (2.0 * half / params.step_px).ceil() as usize;
        let mut edge_points = Vec::new();
        for s in 0..params.samples_per_side {
            let t = params.corner_skip_frac
                + (1.0 - 2.0 * params.corner_skip_frac) * (s as f64 + 0.5)
                    / params.samples_per_side as f64;
            let base = a + along * t;
            let profile: Option<Vec<(f64, f64)>> = (0..=steps)
                .map(|i| {
                    let off = -half + i as f64 * params.step_px;
                    image.sample(base + normal * off).map(|v| (off, v))
                })
                .collect();
            let Some(profile) = profile else { continue };
            if let Some(off) = crossing(&profile, params.min_contrast) {
                let p = base + normal * off;
                edge_points.push(lens.map_or(p, |l| l.ideal_from_pixel(p)));
            }
        }
        if edge_points.len() < params.samples_per_side / 2 {
            return None;
        }
        let line = fit_line(&edge_points)?;
        // Drop the worst quarter (a speck of dirt, a finger) and fit again.
        let mut resid: Vec<(f64, Point2<f64>)> = edge_points
            .iter()
            .map(|p| ((line.n.dot(&p.coords) - line.d).abs(), *p))
            .collect();
        resid.sort_by(|x, y| x.0.total_cmp(&y.0));
        let keep: Vec<Point2<f64>> = resid[..resid.len() * 3 / 4 + 1]
            .iter()
            .map(|r| r.1)
            .collect();
        let mut line = fit_line(&keep)?;
        if line.n.dot(&centre_ideal.coords) > line.d {
            line = Line {
                n: -line.n,
                d: -line.d,
            };
        }
        lines.push(line);
    }
    Some(MarkerEdges {
        id: obs.id,
        lines: [lines[0], lines[1], lines[2], lines[3]],
        rough_px: c,
    })
}

/// Refines one marker's corners (no tone-curve correction beyond sRGB).
/// Returns `None` when an edge cannot be measured; the caller then keeps
/// the detector's corners.
pub fn refine_marker(
    image: &LinearImage,
    obs: &MarkerObservation,
    cells: u32,
    lens: Option<&Lens>,
    params: &EdgeRefineParams,
) -> Option<MarkerObservation> {
    marker_edges(image, obs, cells, lens, params)?.corners_px(0.0, lens, params.max_shift_px)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    /// A black square on white, blurred in linear light by area sampling
    /// (supersampling), then encoded with the sRGB curve: the shrinking
    /// bias that the refinement must undo.
    fn blurred_square(x0: f64, y0: f64, side: f64) -> GrayImage {
        let (w, h) = (120u32, 120u32);
        let ss = 8;
        GrayImage::from_fn(w, h, |x, y| {
            let mut acc = 0.0;
            for sy in 0..ss {
                for sx in 0..ss {
                    // Sub-samples spread over a 3 px box: a strong blur.
                    let px = f64::from(x) + (f64::from(sx) + 0.5) / f64::from(ss) * 3.0 - 1.5;
                    let py = f64::from(y) + (f64::from(sy) + 0.5) / f64::from(ss) * 3.0 - 1.5;
                    let inside = px >= x0 && px < x0 + side && py >= y0 && py < y0 + side;
                    acc += if inside { 0.02 } else { 0.85 };
                }
            }
            let lin = acc / f64::from(ss * ss);
            let enc = if lin <= 0.0031308 {
                lin * 12.92
            } else {
                1.055 * lin.powf(1.0 / 2.4) - 0.055
            };
            Luma([(enc * 255.0).round() as u8])
        })
    }

    #[test]
    fn edges_in_linear_light_find_the_true_corners() {
        // Pixel (x, y) averages a box centred on (x, y): pixel centres are at
        // integers, as in OpenCV, so the square's corners are at 30 and 90.
        let img = blurred_square(30.0, 30.0, 60.0);
        let truth = [(30.0, 30.0), (90.0, 30.0), (90.0, 90.0), (30.0, 90.0)]
            .map(|(x, y)| Point2::new(x, y));
        let rough = MarkerObservation {
            id: 0,
            corners_px: [(31.0, 30.5), (88.0, 31.0), (88.5, 88.0), (30.5, 88.5)]
                .map(|(x, y)| Point2::new(x, y)),
        };
        let lin = LinearImage::new(&img);
        let refined = refine_marker(&lin, &rough, 6, None, &EdgeRefineParams::default()).unwrap();
        for (r, t) in refined.corners_px.iter().zip(&truth) {
            assert!((r - t).norm() < 0.05, "{r} vs {t}");
        }
        // The half-way grey of the encoded image sits inside the square: the
        // bias this refinement removes is real in this picture.
        let row: Vec<u8> = (20..40).map(|x| img.get_pixel(x, 60).0[0]).collect();
        let half = (u16::from(row[0]) + u16::from(row[19])) / 2;
        let first_dark = row.iter().position(|&v| u16::from(v) < half).unwrap();
        assert!(20 + first_dark > 30, "{row:?}");
    }

    #[test]
    fn a_flat_patch_is_not_refined() {
        let img = GrayImage::from_pixel(100, 100, Luma([128]));
        let rough = MarkerObservation {
            id: 0,
            corners_px: [(30.0, 30.0), (70.0, 30.0), (70.0, 70.0), (30.0, 70.0)]
                .map(|(x, y)| Point2::new(x, y)),
        };
        assert!(
            refine_marker(
                &LinearImage::new(&img),
                &rough,
                6,
                None,
                &EdgeRefineParams::default()
            )
            .is_none()
        );
    }
}
