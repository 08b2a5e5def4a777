//! Lens intrinsics: camera matrix and distortion (OpenCV model k1 k2 p1 p2
//! k3, and its rational model with k4 k5 k6 in the denominator), and the
//! camera file that holds them.
//!
//! # Conventions
//! Pixel coordinates with the origin at the centre of the top-left pixel
//! (OpenCV). "Ideal" pixels are where a distortion-free camera with the same
//! camera matrix would see a point.

use std::path::Path;

use nalgebra::{Matrix3, Point2, Vector2};
use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::spec::{SourceFile, SpecError, SpecProblem};

/// Most fixed-point iterations for undistortion; it stops sooner once a
/// step moves the point less than [`UNDISTORT_TOLERANCE`]. A webcam lens
/// converges in a dozen; a short lens whose radial factor falls to 0.6 at
/// the corner (the rational model) needs some forty.
const UNDISTORT_ITERATIONS: usize = 200;
/// Step, in normalised image coordinates, below which undistortion has
/// converged (1e-12 of the focal length).
const UNDISTORT_TOLERANCE: f64 = 1e-12;
/// Largest distortion coefficient a camera file may hold. Webcam lenses
/// calibrate to |k| below 1; beyond this the model is not a lens and the
/// fits downstream lose all precision.
const MAX_DISTORTION: f64 = 100.0;
/// Largest image side a camera file may name, pixels (16K video is 15360).
const MAX_IMAGE_SIDE_PX: u32 = 32_768;
/// Largest focal length or principal point a camera file may hold, pixels.
const MAX_K_PX: f64 = 1e6;
/// Relative difference of aspect ratios beyond which a lens calibrated at
/// one image size is not the same sensor at another (webcams scale, they
/// do not crop to another shape).
const ASPECT_TOLERANCE: f64 = 0.01;

/// A photo whose size the camera file does not describe.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the camera file is for {}x{} images but the photo is {}x{}, another shape: calibrate this camera at this size (`spotter calibrate-lens`) or give the camera file that belongs to these photos",
    .lens[0], .lens[1], .image[0], .image[1]
)]
pub struct ImageSizeMismatch {
    pub lens: [u32; 2],
    pub image: [u32; 2],
}

/// Camera matrix and distortion of one camera at one resolution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lens {
    /// Camera matrix K, pixels.
    pub k: Matrix3<f64>,
    /// k1, k2, p1, p2, k3.
    pub dist: [f64; 5],
    /// k4, k5, k6 of OpenCV's rational model: the radial factor is
    /// `(1 + k1 r2 + k2 r4 + k3 r6) / (1 + k4 r2 + k5 r4 + k6 r6)`; zero for
    /// the polynomial models.
    #[serde(default)]
    pub rational: [f64; 3],
    /// Width and height in pixels that K belongs to.
    pub image_size: [u32; 2],
    /// RMS reprojection error of the calibration, pixels.
    pub rms_px: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCameraFile {
    lens: Spanned<RawLens>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(
    dead_code,
    reason = "views_used and views_rejected are a record for the reader, not needed to use the lens"
)]
struct RawLens {
    #[serde(rename = "K")]
    k: Spanned<Vec<f64>>,
    dist: Spanned<Vec<f64>>,
    image_size: Spanned<[u32; 2]>,
    #[serde(default)]
    rms_px: f64,
    #[serde(default)]
    views_used: usize,
    #[serde(default)]
    views_rejected: Vec<String>,
}

impl Lens {
    pub fn fx(&self) -> f64 {
        self.k[(0, 0)]
    }
    pub fn fy(&self) -> f64 {
        self.k[(1, 1)]
    }
    pub fn cx(&self) -> f64 {
        self.k[(0, 2)]
    }
    pub fn cy(&self) -> f64 {
        self.k[(1, 2)]
    }

    /// Normalised image coordinates (z = 1) to distorted normalised ones.
    fn distort_normalized(&self, p: Vector2<f64>) -> Vector2<f64> {
        let [k1, k2, p1, p2, k3] = self.dist;
        let [k4, k5, k6] = self.rational;
        let (x, y) = (p.x, p.y);
        let r2 = x * x + y * y;
        let radial =
            (1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))) / (1.0 + r2 * (k4 + r2 * (k5 + r2 * k6)));
        Vector2::new(
            x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x),
            y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y,
        )
    }

    fn normalize(&self, p: Point2<f64>) -> Vector2<f64> {
        Vector2::new((p.x - self.cx()) / self.fx(), (p.y - self.cy()) / self.fy())
    }

    fn denormalize(&self, n: Vector2<f64>) -> Point2<f64> {
        Point2::new(n.x * self.fx() + self.cx(), n.y * self.fy() + self.cy())
    }

    /// A pixel as seen (distorted) to the ideal pixel with the same K.
    pub fn ideal_from_pixel(&self, pixel: Point2<f64>) -> Point2<f64> {
        let target = self.normalize(pixel);
        let mut n = target;
        for _ in 0..UNDISTORT_ITERATIONS {
            let err = self.distort_normalized(n) - target;
            n -= err;
            if err.norm() < UNDISTORT_TOLERANCE {
                break;
            }
        }
        self.denormalize(n)
    }

    /// An ideal pixel to where the real lens shows it.
    pub fn pixel_from_ideal(&self, ideal: Point2<f64>) -> Point2<f64> {
        self.denormalize(self.distort_normalized(self.normalize(ideal)))
    }

    /// The same lens at another resolution of the same sensor (webcams keep
    /// the field of view when they scale).
    pub fn scaled_to(&self, image_size: [u32; 2]) -> Self {
        let sx = f64::from(image_size[0]) / f64::from(self.image_size[0]);
        let sy = f64::from(image_size[1]) / f64::from(self.image_size[1]);
        let mut k = self.k;
        k[(0, 0)] *= sx;
        k[(0, 2)] = (k[(0, 2)] + 0.5) * sx - 0.5;
        k[(1, 1)] *= sy;
        k[(1, 2)] = (k[(1, 2)] + 0.5) * sy - 0.5;
        Self {
            k,
            image_size,
            ..self.clone()
        }
    }

    /// This lens for a photo of `image_size`: the same size, or the same
    /// shape scaled; a photo of another shape is refused, naming both sizes.
    pub fn for_image(&self, image_size: [u32; 2]) -> Result<Self, ImageSizeMismatch> {
        let aspect = |s: [u32; 2]| f64::from(s[0]) / f64::from(s[1].max(1));
        let (a, b) = (aspect(self.image_size), aspect(image_size));
        if image_size.contains(&0) || ((a - b) / a).abs() > ASPECT_TOLERANCE {
            return Err(ImageSizeMismatch {
                lens: self.image_size,
                image: image_size,
            });
        }
        Ok(self.scaled_to(image_size))
    }

    /// Loads and checks a camera file.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::read(path)?)
    }

    /// Parses and checks camera-file text.
    pub fn from_source(src: &SourceFile) -> Result<Self, SpecError> {
        let raw: RawCameraFile = src.parse_toml()?;
        let lens = raw.lens.get_ref();
        let mut problems: Vec<SpecProblem> = Vec::new();
        let k = lens.k.get_ref();
        if k.len() != 9 {
            problems.push(src.problem(
                Some(lens.k.span()),
                "lens.K",
                format!("needs 9 numbers (row-major 3x3), found {}", k.len()),
            ));
        } else if !(k[0] > 0.0
            && k[4] > 0.0
            && k[8] == 1.0
            && k.iter().all(|v| v.is_finite() && v.abs() <= MAX_K_PX))
        {
            problems.push(src.problem(
                Some(lens.k.span()),
                "lens.K",
                "is not a camera matrix: fx and fy must be positive and the last entry 1; run `spotter calibrate-lens` again",
            ));
        }
        let dist = lens.dist.get_ref();
        if !matches!(dist.len(), 4 | 5 | 8) {
            problems.push(src.problem(
                Some(lens.dist.span()),
                "lens.dist",
                format!(
                    "needs 5 finite numbers k1, k2, p1, p2, k3 (or 8 with the rational model's k4, k5, k6), found {}",
                    dist.len()
                ),
            ));
        } else if !dist
            .iter()
            .all(|v| v.is_finite() && v.abs() <= MAX_DISTORTION)
        {
            problems.push(src.problem(
                Some(lens.dist.span()),
                "lens.dist",
                format!("each coefficient must be a finite number from -{MAX_DISTORTION} to {MAX_DISTORTION}; run `spotter calibrate-lens` again"),
            ));
        }
        let size = *lens.image_size.get_ref();
        if size[0] == 0 || size[1] == 0 || size.iter().any(|&s| s > MAX_IMAGE_SIDE_PX) {
            problems.push(src.problem(
                Some(lens.image_size.span()),
                "lens.image_size",
                format!("width and height must be 1 to {MAX_IMAGE_SIDE_PX} pixels"),
            ));
        }
        if !lens.rms_px.is_finite() || lens.rms_px < 0.0 {
            problems.push(src.problem(
                Some(lens.k.span()),
                "lens.rms_px",
                "must be a finite number of pixels, zero or more",
            ));
        }
        if !problems.is_empty() {
            return Err(src.error(problems));
        }
        let mut d = [0.0; 8];
        d[..dist.len()].copy_from_slice(dist);
        Ok(Self {
            k: Matrix3::from_row_slice(k),
            dist: [d[0], d[1], d[2], d[3], d[4]],
            rational: [d[5], d[6], d[7]],
            image_size: size,
            rms_px: lens.rms_px,
        })
    }

    /// The camera file text; `views` lists the views used and rejected.
    pub fn to_toml(&self, views_used: usize, views_rejected: &[String]) -> String {
        let k: Vec<f64> = (0..3)
            .flat_map(|r| (0..3).map(move |c| (r, c)))
            .map(|(r, c)| self.k[(r, c)])
            .collect();
        let (model, dist) = if self.rational == [0.0; 3] {
            ("k1 k2 p1 p2 k3", self.dist.to_vec())
        } else {
            (
                "k1 k2 p1 p2 k3 k4 k5 k6, rational",
                self.dist.iter().chain(&self.rational).copied().collect(),
            )
        };
        format!(
            "# Camera intrinsics from `spotter calibrate-lens` (OpenCV model {model}).\n[lens]\nK = {k:?}\ndist = {dist:?}\nimage_size = {:?}\nrms_px = {:?}\nviews_used = {views_used}\nviews_rejected = {views_rejected:?}\n",
            self.image_size, self.rms_px
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn lens() -> Lens {
        Lens {
            k: Matrix3::new(1212.9, 0.0, 628.1, 0.0, 1215.2, 359.9, 0.0, 0.0, 1.0),
            dist: [-0.1958, 0.0226, -0.0003, -0.0002, 0.0],
            rational: [0.0; 3],
            image_size: [1280, 720],
            rms_px: 0.1,
        }
    }

    #[test]
    fn a_rational_lens_round_trips_through_its_camera_file_and_inverts() {
        let l = Lens {
            dist: [0.2, 0.0, 0.0003, -0.0002, 0.0],
            rational: [0.8, 0.0, 0.0],
            ..lens()
        };
        let text = l.to_toml(10, &[]);
        assert!(text.contains("rational"), "{text}");
        let back = Lens::from_source(&SourceFile::from_text("c.toml", text)).unwrap();
        assert_eq!(back, l);
        let p = Point2::new(10.0, 700.0);
        assert_relative_eq!(l.pixel_from_ideal(l.ideal_from_pixel(p)), p, epsilon = 1e-6);
        // The denominator pulls the corners in more than k1 alone would.
        assert!(l.ideal_from_pixel(Point2::new(0.0, 0.0)).x < -100.0);
    }

    #[test]
    fn undistort_inverts_distort_to_the_corners() {
        let lens = lens();
        for p in [
            Point2::new(0.0, 0.0),
            Point2::new(1279.0, 719.0),
            Point2::new(640.0, 10.0),
        ] {
            let back = lens.pixel_from_ideal(lens.ideal_from_pixel(p));
            assert_relative_eq!(back, p, epsilon = 1e-6);
        }
    }

    #[test]
    fn barrel_distortion_pulls_corners_in() {
        let lens = lens();
        let ideal = lens.ideal_from_pixel(Point2::new(0.0, 0.0));
        assert!(ideal.x < 0.0 && ideal.y < 0.0, "{ideal}");
    }

    #[test]
    fn camera_file_round_trips_and_reports_bad_fields() {
        let l = lens();
        let text = l.to_toml(10, &["view-03.jpg".into()]);
        let back = Lens::from_source(&SourceFile::from_text("c.toml", text)).unwrap();
        assert_eq!(back, l);
        let bad = "[lens]\nK = [1.0, 2.0]\ndist = [0.0]\nimage_size = [0, 720]\n";
        let err = Lens::from_source(&SourceFile::from_text("c.toml", bad)).unwrap_err();
        assert_eq!(err.problems.len(), 3, "{err}");
        assert_eq!(err.problems[0].line, Some(2));
    }
}
