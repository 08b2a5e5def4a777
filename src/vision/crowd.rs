//! Crowded tables for measuring: a photo of a table with a few figures on
//! it turned into a table of hundreds, and into a sequence in which a few
//! of them move on each frame.
//!
//! The figures found on the photo are cut out (a disc of the image round
//! each foot base, the model on it included, its rim blended into the
//! table) and pasted at free places of plain table (away from the markers,
//! the figures already there and anything that is not mat). Moving a
//! figure pastes it at another free place; the place it left shows the
//! photo's own table again. Each frame can be passed through JPEG as a
//! webcam's MJPEG would be, so that the noise differs from frame to frame.
//!
//! # Conventions
//! Table frame of `TABLE_KIT.md`; image pixels as in `calibration`.

use image::RgbImage;
use nalgebra::Point2;

use super::{BaseKind, Detection};
use crate::calibration::{TableLayout, TableMapping};

/// A patch reaches this far beyond a foot base's rim, inches (the model's
/// lean and shadow); its last part is blended into the table.
const PATCH_MARGIN_IN: f64 = 0.3;
const PATCH_FEATHER_IN: f64 = 0.12;
/// Free places keep this far from a marker's paper and from the figures of
/// the photo, inches.
const MARKER_CLEARANCE_IN: f64 = 1.5;
const FIGURE_CLEARANCE_IN: f64 = 2.0;
/// A place is plain table when the colours round it spread less than this
/// (0..255, mean absolute deviation) and lie near the table's median.
const PLAIN_SPREAD: f32 = 14.0;
const PLAIN_DISTANCE: f32 = 40.0;

/// A figure cut from the photo: pixels relative to its centre pixel, with
/// their weight (1 inside, falling to 0 over the rim).
#[derive(Debug, Clone)]
struct Patch {
    pixels: Vec<(i32, i32, [u8; 3], f32)>,
}

/// What crowd to build.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrowdSpec {
    /// The kit's foot base diameter, inches.
    pub foot_diameter_in: f64,
    /// Free places lie on a grid of this, inches.
    pub spacing_in: f64,
    /// Figures to paste.
    pub figures: usize,
    /// Where the places and moves are drawn from.
    pub seed: u64,
}

/// The farthest a figure moves in one step, inches (a Stand To! move).
pub const MOVE_IN: f64 = 6.0;

/// A table of pasted figures and the places they may stand.
#[derive(Debug, Clone)]
pub struct Crowd {
    background: RgbImage,
    mapping: TableMapping,
    patches: Vec<Patch>,
    places: Vec<Point2<f64>>,
    /// Per pasted figure: its patch and its place.
    figures: Vec<(usize, usize)>,
    rng: u64,
}

impl Crowd {
    /// A crowd on `photo` (seen through `mapping`) from the foot bases
    /// `found` on it: free places on a grid of `spec.spacing_in`, then
    /// `spec.figures` figures pasted at random ones. Fewer are pasted when fewer places
    /// are free; [`Crowd::len`] says how many.
    pub fn new(
        photo: &RgbImage,
        mapping: &TableMapping,
        layout: &TableLayout,
        found: &[Detection],
        spec: &CrowdSpec,
    ) -> Self {
        let CrowdSpec {
            foot_diameter_in,
            spacing_in,
            figures: n,
            seed,
        } = *spec;
        let radius_in = foot_diameter_in / 2.0 + PATCH_MARGIN_IN;
        let patches: Vec<Patch> = found
            .iter()
            .filter(|d| d.base == BaseKind::Foot && d.confidence >= 0.5)
            .filter(|d| {
                // A neighbour in the patch would be pasted with it.
                found.iter().all(|o| {
                    std::ptr::eq(o, *d)
                        || (o.center_in_table - d.center_in_table).norm()
                            > 2.0 * radius_in + foot_diameter_in / 2.0
                })
            })
            .filter_map(|d| cut(photo, mapping, d.center_in_table, radius_in))
            .collect();
        let table_colour = median_colour(photo, mapping, layout);
        let mut places = Vec::new();
        let steps = |len: f64| ((len - 2.0 * spacing_in) / spacing_in).floor().max(0.0) as usize;
        for j in 0..=steps(layout.depth_in) {
            for i in 0..=steps(layout.width_in) {
                let p = Point2::new(spacing_in * (1.0 + i as f64), spacing_in * (1.0 + j as f64));
                let near_marker = layout.markers.iter().any(|m| {
                    let reach = m.size_in / 2.0 * std::f64::consts::SQRT_2 + MARKER_CLEARANCE_IN;
                    (p - Point2::new(m.center_in[0], m.center_in[1])).norm() < reach + radius_in
                });
                let near_figure = found
                    .iter()
                    .any(|d| (d.center_in_table - p).norm() < FIGURE_CLEARANCE_IN + radius_in);
                if !near_marker
                    && !near_figure
                    && plain(photo, mapping, p, radius_in + 0.2, table_colour)
                {
                    places.push(p);
                }
            }
        }
        let mut crowd = Self {
            background: photo.clone(),
            mapping: mapping.clone(),
            patches,
            places,
            figures: Vec::new(),
            rng: seed.wrapping_mul(6_364_136_223_846_793_005) | 1,
        };
        if crowd.patches.is_empty() {
            return crowd;
        }
        let mut free: Vec<usize> = (0..crowd.places.len()).collect();
        for k in 0..n.min(free.len()) {
            let at = crowd.next(free.len());
            let place = free.swap_remove(at);
            crowd.figures.push((k % crowd.patches.len(), place));
        }
        crowd
    }

    /// Figures pasted.
    pub fn len(&self) -> usize {
        self.figures.len()
    }

    pub fn is_empty(&self) -> bool {
        self.figures.is_empty()
    }

    /// Free places on the table.
    pub fn places(&self) -> usize {
        self.places.len()
    }

    /// Where the pasted figures stand now, table inches.
    pub fn positions(&self) -> Vec<Point2<f64>> {
        self.figures.iter().map(|(_, p)| self.places[*p]).collect()
    }

    /// A small random number generator (xorshift), enough to pick places.
    fn next(&mut self, n: usize) -> usize {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng % n.max(1) as u64) as usize
    }

    /// Moves `k` figures (different ones) to free places, each as a player
    /// moves one: to a free place within [`MOVE_IN`] of where it stood (a
    /// figure with no free place that near stays).
    pub fn step(&mut self, k: usize) {
        let taken: std::collections::HashSet<usize> =
            self.figures.iter().map(|(_, p)| *p).collect();
        let mut free: Vec<usize> = (0..self.places.len())
            .filter(|p| !taken.contains(p))
            .collect();
        let mut order: Vec<usize> = (0..self.figures.len()).collect();
        for m in 0..k.min(order.len()) {
            let pick = m + self.next(order.len() - m);
            order.swap(m, pick);
            if free.is_empty() {
                return;
            }
            let here = self.places[self.figures[order[m]].1];
            let near: Vec<usize> = (0..free.len())
                .filter(|&i| (self.places[free[i]] - here).norm() <= MOVE_IN)
                .collect();
            if near.is_empty() {
                continue;
            }
            let at = near[self.next(near.len())];
            let to = free.swap_remove(at);
            let from = std::mem::replace(&mut self.figures[order[m]].1, to);
            free.push(from);
        }
    }

    /// The photo with every pasted figure at its place.
    pub fn frame(&self) -> RgbImage {
        let mut out = self.background.clone();
        let (w, h) = (i64::from(out.width()), i64::from(out.height()));
        for (patch, place) in &self.figures {
            let c = self.mapping.pixel_from_table(self.places[*place]);
            let (cx, cy) = (c.x.round() as i64, c.y.round() as i64);
            for &(dx, dy, rgb, a) in &self.patches[*patch].pixels {
                let (x, y) = (cx + i64::from(dx), cy + i64::from(dy));
                if x < 0 || y < 0 || x >= w || y >= h {
                    continue;
                }
                // In range by the check above.
                let px = out.get_pixel_mut(x as u32, y as u32);
                for (o, n) in px.0.iter_mut().zip(rgb) {
                    let v = f32::from(*o) * (1.0 - a) + f32::from(n) * a;
                    *o = v.round().clamp(0.0, 255.0) as u8;
                }
            }
        }
        out
    }
}

/// The frame as a webcam would send it: JPEG at `quality`, decoded.
/// `frame` with a camera sensor's noise: about `sigma` levels a channel,
/// independent from pixel to pixel and new for each `seed` (each frame), as
/// a webcam's frames differ even where nothing moved.
pub fn with_sensor_noise(frame: &RgbImage, sigma: f64, seed: u64) -> RgbImage {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = frame.clone();
    // The sum of four uniforms on (-0.5, 0.5) has variance 1/3.
    let scale = sigma * 3.0f64.sqrt();
    for v in out.iter_mut() {
        let mut u = 0.0;
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            u += (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
        }
        *v = (f64::from(*v) + u * scale).round().clamp(0.0, 255.0) as u8;
    }
    out
}

/// Chroma subsampling of a JPEG frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampling {
    /// Full chroma (the `image` crate's encoder).
    S444,
    /// Half the chroma columns: what UVC webcams' MJPEG usually is.
    S422,
    /// Half the columns and rows.
    S420,
}

impl std::str::FromStr for Sampling {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "444" | "4:4:4" => Ok(Self::S444),
            "422" | "4:2:2" => Ok(Self::S422),
            "420" | "4:2:0" => Ok(Self::S420),
            _ => Err(format!("{s}: expected 444, 422 or 420")),
        }
    }
}

/// `frame` as a webcam's MJPEG frame: baseline JPEG with the standard
/// Huffman tables at `quality`, chroma as `sampling` (4:4:4 through the
/// `image` crate's encoder, the others through libjpeg's).
pub fn webcam_jpeg(frame: &RgbImage, quality: u8, sampling: Sampling) -> Result<Vec<u8>, String> {
    let pixel = match sampling {
        Sampling::S444 => return through_jpeg(frame, quality).map(|(b, _)| b),
        Sampling::S422 => (2, 1),
        Sampling::S420 => (2, 2),
    };
    let (w, h) = (frame.width() as usize, frame.height() as usize);
    std::panic::catch_unwind(|| -> std::io::Result<Vec<u8>> {
        let mut comp = mozjpeg::Compress::new(mozjpeg::ColorSpace::JCS_RGB);
        // libjpeg v6's settings: baseline, standard tables, as webcams.
        comp.set_fastest_defaults();
        comp.set_size(w, h);
        comp.set_quality(f32::from(quality));
        comp.set_chroma_sampling_pixel_sizes(pixel, pixel);
        let mut started = comp.start_compress(Vec::new())?;
        started.write_scanlines(frame.as_raw())?;
        started.finish()
    })
    .map_err(|_| "libjpeg could not encode the frame".to_string())?
    .map_err(|e| e.to_string())
}

pub fn through_jpeg(frame: &RgbImage, quality: u8) -> Result<(Vec<u8>, RgbImage), String> {
    let mut bytes = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality)
        .encode_image(frame)
        .map_err(|e| e.to_string())?;
    let back = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)
        .map_err(|e| e.to_string())?
        .to_rgb8();
    Ok((bytes, back))
}

/// Pixels per inch of the image near a table point.
fn px_per_in(mapping: &TableMapping, p: Point2<f64>) -> f64 {
    1.0 / mapping.inches_per_pixel_at(p).max(1e-6)
}

/// The disc of the photo round a base, `radius_in` on the table.
fn cut(
    photo: &RgbImage,
    mapping: &TableMapping,
    centre: Point2<f64>,
    radius_in: f64,
) -> Option<Patch> {
    let c = mapping.pixel_from_table(centre);
    let s = px_per_in(mapping, centre);
    let r = radius_in * s;
    let feather = PATCH_FEATHER_IN * s;
    let (cx, cy) = (c.x.round() as i64, c.y.round() as i64);
    let reach = r.ceil() as i64;
    let mut pixels = Vec::new();
    for dy in -reach..=reach {
        for dx in -reach..=reach {
            let d = ((dx * dx + dy * dy) as f64).sqrt();
            if d > r {
                continue;
            }
            let (x, y) = (cx + dx, cy + dy);
            if x < 0 || y < 0 || x >= i64::from(photo.width()) || y >= i64::from(photo.height()) {
                return None;
            }
            let a = ((r - d) / feather).clamp(0.0, 1.0) as f32;
            // In range by the checks above.
            let rgb = photo.get_pixel(x as u32, y as u32).0;
            pixels.push((dx as i32, dy as i32, rgb, a));
        }
    }
    Some(Patch { pixels })
}

/// The photo's colour at a table point (nearest pixel).
fn colour_at(photo: &RgbImage, mapping: &TableMapping, p: Point2<f64>) -> Option<[f32; 3]> {
    let q = mapping.pixel_from_table(p);
    let (x, y) = (q.x.round(), q.y.round());
    (x >= 0.0 && y >= 0.0 && x < f64::from(photo.width()) && y < f64::from(photo.height()))
        .then(|| photo.get_pixel(x as u32, y as u32).0.map(f32::from))
}

/// The median colour of the table over a grid of points.
fn median_colour(photo: &RgbImage, mapping: &TableMapping, layout: &TableLayout) -> [f32; 3] {
    let mut samples = Vec::new();
    for j in 0..40 {
        for i in 0..40 {
            let p = Point2::new(
                layout.width_in * (f64::from(i) + 0.5) / 40.0,
                layout.depth_in * (f64::from(j) + 0.5) / 40.0,
            );
            samples.extend(colour_at(photo, mapping, p));
        }
    }
    let mut out = [0.0; 3];
    for (c, o) in out.iter_mut().enumerate() {
        let mut v: Vec<f32> = samples.iter().map(|s| s[c]).collect();
        v.sort_by(f32::total_cmp);
        *o = v.get(v.len() / 2).copied().unwrap_or(0.0);
    }
    out
}

/// Whether the table round `p` (within `radius_in`) is plain mat.
fn plain(
    photo: &RgbImage,
    mapping: &TableMapping,
    p: Point2<f64>,
    radius_in: f64,
    table: [f32; 3],
) -> bool {
    let mut samples = Vec::new();
    for j in -4..=4 {
        for i in -4..=4 {
            let q = p + nalgebra::Vector2::new(f64::from(i), f64::from(j)) * (radius_in / 4.0);
            match colour_at(photo, mapping, q) {
                Some(c) => samples.push(c),
                None => return false,
            }
        }
    }
    let n = samples.len() as f32;
    let mean = [0, 1, 2].map(|c| samples.iter().map(|s| s[c]).sum::<f32>() / n);
    let spread = samples
        .iter()
        .map(|s| (0..3).map(|c| (s[c] - mean[c]).abs()).sum::<f32>() / 3.0)
        .sum::<f32>()
        / n;
    let off = (0..3)
        .map(|c| (mean[c] - table[c]).abs())
        .fold(0.0, f32::max);
    spread < PLAIN_SPREAD && off < PLAIN_DISTANCE
}
