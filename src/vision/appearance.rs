//! A base's own appearance, for telling figures of one kind apart when the
//! front mark is not seen: the colour of the groundwork inside the band,
//! its brightness against the band's, and the band's own tint.
//!
//! # Conventions
//! Colours are 8-bit sRGB as the photo has them. Every feature is a log
//! ratio, so that the light's strength (a shadow, the vignette) cancels:
//! `ln(R/G)` and `ln(B/G)` of a median colour, and the log of one
//! brightness over another. The samples are taken on rings around the
//! base centre, in table inches (foot base radius 0.5 in, band 0.16 in
//! wide: the groundwork ring lies between the model at the centre and the
//! band).

use image::RgbImage;
use nalgebra::{Point2, Vector2};
use serde::{Deserialize, Serialize};

use crate::calibration::TableMapping;
use crate::vision::Detection;

/// Rings sampled for the groundwork, inches from the base centre: outside
/// most of the model's body, inside the band.
const GROUND_RINGS_IN: [f64; 2] = [0.24, 0.29];
/// Rings sampled for the band, inches (band from 0.34 to 0.5 in).
const BAND_RINGS_IN: [f64; 2] = [0.40, 0.45];
/// Samples on each ring.
const SAMPLES_PER_RING: usize = 36;
/// A channel darker than this (8-bit) is not trusted for a ratio.
const MIN_CHANNEL: f64 = 4.0;

/// What a base looks like, as log ratios (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Appearance {
    /// Groundwork: `ln(R/G)`, `ln(B/G)` of its median colour.
    pub ground_chroma: [f64; 2],
    /// `ln` of the groundwork's brightness over the band's.
    pub ground_to_band: f64,
    /// Band: `ln(R/G)`, `ln(B/G)` of its median colour.
    pub band_chroma: [f64; 2],
}

/// How many features [`Appearance::features`] gives.
pub const FEATURES: usize = 5;

impl Appearance {
    pub fn features(&self) -> [f64; FEATURES] {
        [
            self.ground_chroma[0],
            self.ground_chroma[1],
            self.ground_to_band,
            self.band_chroma[0],
            self.band_chroma[1],
        ]
    }

    pub fn from_features(f: [f64; FEATURES]) -> Self {
        Self {
            ground_chroma: [f[0], f[1]],
            ground_to_band: f[2],
            band_chroma: [f[3], f[4]],
        }
    }
}

/// The median colour on rings of the given radii around `center`, or
/// `None` when too few samples fall in the photo.
fn ring_median(
    frame: &RgbImage,
    mapping: &TableMapping,
    center: Point2<f64>,
    radii_in: &[f64],
) -> Option<[f64; 3]> {
    let mut ch: [Vec<f64>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for &r in radii_in {
        for k in 0..SAMPLES_PER_RING {
            let a = std::f64::consts::TAU * k as f64 / SAMPLES_PER_RING as f64;
            let px = mapping.pixel_from_table(center + Vector2::new(a.cos(), a.sin()) * r);
            if !(px.x.is_finite() && px.y.is_finite()) || px.x < 0.0 || px.y < 0.0 {
                continue;
            }
            let (x, y) = (px.x.round() as u32, px.y.round() as u32);
            if x >= frame.width() || y >= frame.height() {
                continue;
            }
            let p = frame.get_pixel(x, y).0;
            for c in 0..3 {
                ch[c].push(f64::from(p[c]));
            }
        }
    }
    if ch[0].len() < SAMPLES_PER_RING {
        return None;
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2].max(MIN_CHANNEL)
    };
    Some([med(&mut ch[0]), med(&mut ch[1]), med(&mut ch[2])])
}

fn chroma(c: [f64; 3]) -> [f64; 2] {
    [(c[0] / c[1]).ln(), (c[2] / c[1]).ln()]
}

fn brightness(c: [f64; 3]) -> f64 {
    0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]
}

/// The appearance of the base of `d` in `frame` (as the camera took it;
/// `mapping` maps the table onto it), or `None` when it is off the photo.
pub fn measure(frame: &RgbImage, mapping: &TableMapping, d: &Detection) -> Option<Appearance> {
    let ground = ring_median(frame, mapping, d.center_in_table, &GROUND_RINGS_IN)?;
    let band = ring_median(frame, mapping, d.center_in_table, &BAND_RINGS_IN)?;
    Some(Appearance {
        ground_chroma: chroma(ground),
        ground_to_band: (brightness(ground) / brightness(band)).ln(),
        band_chroma: chroma(band),
    })
}

/// Measures the appearance of every detection of one frame in place.
pub fn measure_all(frame: &RgbImage, mapping: &TableMapping, detections: &mut [Detection]) {
    for d in detections {
        d.appearance = measure(frame, mapping, d);
    }
}
