//! The OpenCV adapter of vision: the only file of `vision` that sees an
//! OpenCV type. Images cross as `image::RgbImage`, points as nalgebra.
//!
//! # Conventions
//! Pixels with the origin at the centre of the top-left pixel (OpenCV's);
//! remap maps hold, for each output pixel, the source pixel it samples.

use image::RgbImage;
use nalgebra::Point2;
use opencv::core::{self as cvcore, Mat, Point, Scalar};
use opencv::imgproc;
use opencv::prelude::*;

use super::VisionError;

fn cv_err(err: opencv::Error) -> VisionError {
    VisionError::OpenCv(err.to_string())
}

fn to_i32(v: u32) -> Result<i32, VisionError> {
    i32::try_from(v).map_err(|_| VisionError::OpenCv(format!("size {v} too large")))
}

/// Sets how many threads OpenCV may use (1 for single-core timing, 0 for
/// OpenCV's default of all cores).
pub fn set_threads(threads: i32) -> Result<(), VisionError> {
    cvcore::set_num_threads(threads).map_err(cv_err)
}

/// Bilinear remap of an RGB image through float maps of `width` x `height`
/// entries (row-major); samples outside the source are black.
pub fn remap_rgb(
    src: &RgbImage,
    map_x: &[f32],
    map_y: &[f32],
    width: u32,
    height: u32,
) -> Result<RgbImage, VisionError> {
    let rows = to_i32(src.height())?;
    let flat = Mat::from_slice(src.as_raw()).map_err(cv_err)?;
    let src_mat = flat.reshape(3, rows).map_err(cv_err)?;
    let out_rows = to_i32(height)?;
    let mx = Mat::from_slice(map_x).map_err(cv_err)?;
    let mx = mx.reshape(1, out_rows).map_err(cv_err)?;
    let my = Mat::from_slice(map_y).map_err(cv_err)?;
    let my = my.reshape(1, out_rows).map_err(cv_err)?;
    let mut dst = Mat::default();
    imgproc::remap(
        &src_mat,
        &mut dst,
        &mx,
        &my,
        imgproc::INTER_LINEAR,
        cvcore::BORDER_CONSTANT,
        Scalar::all(0.0),
    )
    .map_err(cv_err)?;
    let bytes = dst.data_bytes().map_err(cv_err)?.to_vec();
    RgbImage::from_raw(width, height, bytes)
        .ok_or_else(|| VisionError::OpenCv("remap returned an image of the wrong size".into()))
}

/// Fractional bits of OpenCV's fixed-point remap positions (`INTER_BITS`).
const REMAP_FRAC_BITS: i32 = 5;
const REMAP_FRAC_STEPS: f32 = (1 << REMAP_FRAC_BITS) as f32;
const REMAP_FRAC_MASK: i32 = (1 << REMAP_FRAC_BITS) - 1;

/// Remap maps in OpenCV's fixed-point form (`convertMaps` to `CV_16SC2`
/// plus `CV_16UC1`): per output pixel, the whole source pixel and a 1/32
/// pixel fraction in each direction. A bilinear remap through float maps
/// rounds them to exactly this form on every call; holding them converted
/// skips that step, and they are built without the float maps.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FixedMaps {
    width: u32,
    height: u32,
    /// Whole source pixel, x then y, per output pixel.
    whole_xy: Vec<i16>,
    /// `(fy << 5) | fx` per output pixel.
    frac: Vec<u16>,
    /// The source pixels the maps read (a bilinear sample reads the whole
    /// pixel and the next one right and down): min x, min y, max x, max y.
    /// Empty (min above max) until a row is set.
    reach: [i32; 4],
}

impl FixedMaps {
    /// Maps for a `width` x `height` output, every pixel at the source's
    /// origin until [`FixedMaps::set_row`] fills it.
    pub fn with_size(width: u32, height: u32) -> Self {
        let n = width as usize * height as usize;
        Self {
            width,
            height,
            whole_xy: vec![0; 2 * n],
            frac: vec![0; n],
            reach: [i32::MAX, i32::MAX, i32::MIN, i32::MIN],
        }
    }

    /// Sets the source positions of output row `j` (`xs` and `ys` hold one
    /// per column), rounded as OpenCV rounds float maps: to the nearest
    /// 1/32 pixel, ties to even. A row outside the maps is ignored.
    pub fn set_row(&mut self, j: usize, xs: &[f32], ys: &[f32]) {
        let w = self.width as usize;
        let (Some(whole), Some(frac)) = (
            self.whole_xy.get_mut(2 * j * w..2 * (j + 1) * w),
            self.frac.get_mut(j * w..(j + 1) * w),
        ) else {
            return;
        };
        // Indexed over slices cut to one length, so that the loop has no
        // bounds checks and vectorises (with interleaved stores).
        let n = w.min(xs.len()).min(ys.len());
        let (whole, frac, xs, ys) = (&mut whole[..2 * n], &mut frac[..n], &xs[..n], &ys[..n]);
        for i in 0..n {
            let ix = round_ties_even(xs[i] * REMAP_FRAC_STEPS);
            let iy = round_ties_even(ys[i] * REMAP_FRAC_STEPS);
            // In the i16 range by the clamp.
            whole[2 * i] = (ix >> REMAP_FRAC_BITS).clamp(-32768, 32767) as i16;
            whole[2 * i + 1] = (iy >> REMAP_FRAC_BITS).clamp(-32768, 32767) as i16;
            // Both fractions are below 32, so the sum fits.
            frac[i] = (((iy & REMAP_FRAC_MASK) << REMAP_FRAC_BITS) | (ix & REMAP_FRAC_MASK)) as u16;
        }
        for xy in whole.chunks_exact(2) {
            let (x, y) = (i32::from(xy[0]), i32::from(xy[1]));
            self.reach[0] = self.reach[0].min(x);
            self.reach[1] = self.reach[1].min(y);
            self.reach[2] = self.reach[2].max(x + 1);
            self.reach[3] = self.reach[3].max(y + 1);
        }
    }

    /// The fixed-point form of float maps (row-major, `width` x `height`).
    pub fn from_float(map_x: &[f32], map_y: &[f32], width: u32, height: u32) -> Self {
        let mut maps = Self::with_size(width, height);
        let w = (width as usize).max(1);
        for (j, (xs, ys)) in map_x.chunks(w).zip(map_y.chunks(w)).enumerate() {
            maps.set_row(j, xs, ys);
        }
        maps
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// The whole source pixel output pixel `k` reads first (its bilinear
    /// sample reads it and the next one right and down).
    pub fn source_px(&self, k: usize) -> (i32, i32) {
        (
            i32::from(self.whole_xy[2 * k]),
            i32::from(self.whole_xy[2 * k + 1]),
        )
    }

    /// How output pixel `k` samples an RGB image of `width` x `height`
    /// bilinearly: the byte offset of the pixel it reads first (it reads
    /// that one, the next right, and the two below), and the four weights in
    /// that order, summing to [`FIXED_SAMPLE_ONE`]. `None` when a pixel it
    /// reads lies outside the image.
    pub fn taps(&self, k: usize, width: u32, height: u32) -> Option<(usize, [u16; 4])> {
        let (x, y) = self.source_px(k);
        let (w, h) = (i64::from(width), i64::from(height));
        if x < 0 || y < 0 || i64::from(x) + 1 >= w || i64::from(y) + 1 >= h {
            return None;
        }
        let f = self.frac[k];
        let (fx, fy) = (f & REMAP_FRAC_MASK as u16, f >> REMAP_FRAC_BITS);
        let one = 1u16 << REMAP_FRAC_BITS;
        let weights = [
            (one - fx) * (one - fy),
            fx * (one - fy),
            (one - fx) * fy,
            fx * fy,
        ];
        Some((3 * (y as usize * width as usize + x as usize), weights))
    }

    /// The maps of the output rectangle of `w` x `h` pixels at column
    /// `x0`, row `y0`; `None` when it does not lie within the maps.
    pub fn part(&self, x0: u32, y0: u32, w: u32, h: u32) -> Option<Self> {
        if !self.is_complete()
            || u64::from(x0) + u64::from(w) > u64::from(self.width)
            || u64::from(y0) + u64::from(h) > u64::from(self.height)
        {
            return None;
        }
        let mut out = Self::with_size(w, h);
        let (sw, w, x0) = (self.width as usize, w as usize, x0 as usize);
        for j in 0..h as usize {
            let at = (y0 as usize + j) * sw + x0;
            out.whole_xy[2 * j * w..2 * (j + 1) * w]
                .copy_from_slice(&self.whole_xy[2 * at..2 * (at + w)]);
            out.frac[j * w..(j + 1) * w].copy_from_slice(&self.frac[at..at + w]);
        }
        for xy in out.whole_xy.chunks_exact(2) {
            let (x, y) = (i32::from(xy[0]), i32::from(xy[1]));
            out.reach = [
                out.reach[0].min(x),
                out.reach[1].min(y),
                out.reach[2].max(x + 1),
                out.reach[3].max(y + 1),
            ];
        }
        Some(out)
    }

    fn is_complete(&self) -> bool {
        self.frac.len() == self.width as usize * self.height as usize
            && self.whole_xy.len() == 2 * self.frac.len()
    }
}

/// One level in [`FixedMaps::sample_rgb`]'s units: the bilinear weights
/// are products of 1/32 pixel fractions.
pub const FIXED_SAMPLE_ONE: u32 = 1 << (2 * REMAP_FRAC_BITS);

/// `v.round_ties_even() as i32` without a libm call (which it is on a
/// baseline x86-64 build): adding and taking away 1.5 * 2^23 leaves no
/// fraction bits, and the float unit rounds ties to even. Values beyond
/// 2^22 (far outside any frame) are clamped first; NaN gives 0.
#[inline]
fn round_ties_even(v: f32) -> i32 {
    const SHIFT: f32 = 12_582_912.0; // 1.5 * 2^23
    const LIMIT: f32 = 4_194_304.0; // 2^22
    // NaN stays NaN here and is mapped to 0 below.
    let clamped = v.clamp(-LIMIT, LIMIT);
    // With |v| <= 2^22, v + 1.5 * 2^23 lies in [2^23, 2^24): its mantissa
    // holds the rounded value plus 2^22 exactly, so the bit patterns differ
    // by the integer (no float-to-int conversion, which would not vectorise).
    let rounded = (clamped + SHIFT).to_bits() as i32 - SHIFT.to_bits() as i32;
    if v.is_nan() { 0 } else { rounded }
}

thread_local! {
    /// The RGBA copy of the frame [`remap_rgb_fixed`] samples, kept between
    /// frames (a new one each frame costs its page faults).
    static RGBA_FRAME: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Bilinear remap of an RGB image through fixed-point maps; samples outside
/// the source are black. The same pixels as [`remap_rgb`] through the float
/// maps the fixed ones were made from.
pub fn remap_rgb_fixed(src: &RgbImage, maps: &FixedMaps) -> Result<RgbImage, VisionError> {
    if !maps.is_complete() {
        return Err(VisionError::OpenCv(
            "remap maps do not cover the output".into(),
        ));
    }
    let rows = to_i32(src.height())?;
    let flat = Mat::from_slice(src.as_raw()).map_err(cv_err)?;
    let src_mat = flat.reshape(3, rows).map_err(cv_err)?;
    let (out_rows, out_cols) = (to_i32(maps.height)?, to_i32(maps.width)?);
    let whole = Mat::from_slice(&maps.whole_xy).map_err(cv_err)?;
    let whole = whole.reshape(2, out_rows).map_err(cv_err)?;
    let frac = Mat::from_slice(&maps.frac).map_err(cv_err)?;
    let frac = frac.reshape(1, out_rows).map_err(cv_err)?;
    // OpenCV's bilinear remap has a vector path for four channels only:
    // padding to RGBA and back costs less than the three-channel loop. Only
    // the part of the frame the maps reach is padded (the table, not the
    // room around it), into a buffer kept for the thread's next frame.
    let (cols, x0, y0, x1, y1) = {
        let cols = to_i32(src.width())?;
        let [a, b, c, d] = maps.reach;
        (cols, a.max(0), b.max(0), c.min(cols - 1), d.min(rows - 1))
    };
    let mut dst4 = Mat::default();
    RGBA_FRAME.with(|buf| -> Result<(), VisionError> {
        let mut buf = buf.borrow_mut();
        buf.resize(src.as_raw().len() / 3 * 4, 0);
        let mut src4 = Mat::new_rows_cols_with_bytes_mut::<cvcore::Vec4b>(rows, cols, &mut buf)
            .map_err(cv_err)?;
        if x0 <= x1 && y0 <= y1 {
            let part = cvcore::Rect::new(x0, y0, x1 - x0 + 1, y1 - y0 + 1);
            let from = Mat::roi(&src_mat, part).map_err(cv_err)?;
            let mut to = Mat::roi_mut(&mut src4, part).map_err(cv_err)?;
            let before = to.data();
            imgproc::cvt_color_def(&from, &mut to, imgproc::COLOR_RGB2RGBA).map_err(cv_err)?;
            if to.data() != before {
                return Err(VisionError::OpenCv(
                    "the RGBA frame moved while it was filled".into(),
                ));
            }
        }
        imgproc::remap(
            &src4,
            &mut dst4,
            &whole,
            &frac,
            imgproc::INTER_LINEAR,
            cvcore::BORDER_CONSTANT,
            Scalar::all(0.0),
        )
        .map_err(cv_err)
    })?;
    // The RGB result is written straight into the output image's buffer.
    let mut out = vec![0u8; maps.frac.len() * 3];
    let out_ptr = out.as_ptr();
    let written_in_place = {
        let mut dst =
            Mat::new_rows_cols_with_bytes_mut::<cvcore::Vec3b>(out_rows, out_cols, &mut out)
                .map_err(cv_err)?;
        imgproc::cvt_color_def(&dst4, &mut dst, imgproc::COLOR_RGBA2RGB).map_err(cv_err)?;
        if dst.data() == out_ptr {
            None
        } else {
            // OpenCV reallocated (it should not for the same size and type).
            Some(dst.data_bytes().map_err(cv_err)?.to_vec())
        }
    };
    let bytes = written_in_place.unwrap_or(out);
    RgbImage::from_raw(maps.width, maps.height, bytes)
        .ok_or_else(|| VisionError::OpenCv("remap returned an image of the wrong size".into()))
}

/// [`remap_rgb_fixed`] computed here, on the three channels and without
/// OpenCV: for small outputs (a part of the table's top view), where
/// padding the frame to RGBA and back costs more than the remap. The same
/// pixels: OpenCV's bilinear weights for a 1/32 pixel fraction are exactly
/// `(32 - fx)(32 - fy)`, `fx (32 - fy)`, `(32 - fx) fy` and `fx fy` of
/// 1024, the sum is rounded half up, and a pixel read outside the source
/// is black.
pub fn remap_rgb_small(src: &RgbImage, maps: &FixedMaps) -> Result<RgbImage, VisionError> {
    if !maps.is_complete() {
        return Err(VisionError::OpenCv(
            "remap maps do not cover the output".into(),
        ));
    }
    let (sw, sh) = (i64::from(src.width()), i64::from(src.height()));
    let raw = src.as_raw();
    let stride = 3 * src.width() as usize;
    let mut out = vec![0u8; maps.frac.len() * 3];
    let one = 1u32 << REMAP_FRAC_BITS;
    // Every sample and its neighbours right and down inside the source
    // (the common case: a part of the table well within the photo): no
    // test per pixel, and the weights applied across, then down (the same
    // integer sum as the four products).
    let [x0, y0, x1, y1] = maps.reach;
    if x0 <= x1 && y0 <= y1 && x0 >= 0 && y0 >= 0 && i64::from(x1) < sw && i64::from(y1) < sh {
        for ((px, xy), &f) in out
            .chunks_exact_mut(3)
            .zip(maps.whole_xy.chunks_exact(2))
            .zip(&maps.frac)
        {
            let (fx, fy) = (
                u32::from(f) & REMAP_FRAC_MASK as u32,
                u32::from(f) >> REMAP_FRAC_BITS,
            );
            // Non-negative and inside by the reach test above.
            let at = xy[1] as usize * stride + 3 * xy[0] as usize;
            let (top, below) = (&raw[at..at + 6], &raw[at + stride..at + stride + 6]);
            for c in 0..3 {
                let t = u32::from(top[c]) * (one - fx) + u32::from(top[c + 3]) * fx;
                let b = u32::from(below[c]) * (one - fx) + u32::from(below[c + 3]) * fx;
                px[c] = ((FIXED_SAMPLE_ONE / 2 + t * (one - fy) + b * fy) >> (2 * REMAP_FRAC_BITS))
                    as u8;
            }
        }
        return RgbImage::from_raw(maps.width, maps.height, out)
            .ok_or_else(|| VisionError::OpenCv("remap gave an image of the wrong size".into()));
    }
    for (k, px) in out.chunks_exact_mut(3).enumerate() {
        let (x, y) = maps.source_px(k);
        let f = u32::from(maps.frac[k]);
        let (fx, fy) = (f & REMAP_FRAC_MASK as u32, f >> REMAP_FRAC_BITS);
        let weights = [
            (one - fx) * (one - fy),
            fx * (one - fy),
            (one - fx) * fy,
            fx * fy,
        ];
        let (x, y) = (i64::from(x), i64::from(y));
        let mut sum = [FIXED_SAMPLE_ONE / 2; 3];
        if x >= 0 && y >= 0 && x + 1 < sw && y + 1 < sh {
            // All four inside: the common case.
            let at = y as usize * stride + 3 * x as usize;
            let (top, below) = (&raw[at..at + 6], &raw[at + stride..at + stride + 6]);
            for c in 0..3 {
                sum[c] += u32::from(top[c]) * weights[0]
                    + u32::from(top[c + 3]) * weights[1]
                    + u32::from(below[c]) * weights[2]
                    + u32::from(below[c + 3]) * weights[3];
            }
        } else {
            for (t, (dx, dy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
                let (tx, ty) = (x + dx, y + dy);
                if tx < 0 || ty < 0 || tx >= sw || ty >= sh {
                    continue;
                }
                let at = ty as usize * stride + 3 * tx as usize;
                for c in 0..3 {
                    sum[c] += u32::from(raw[at + c]) * weights[t];
                }
            }
        }
        for c in 0..3 {
            px[c] = (sum[c] >> (2 * REMAP_FRAC_BITS)).min(255) as u8;
        }
    }
    RgbImage::from_raw(maps.width, maps.height, out)
        .ok_or_else(|| VisionError::OpenCv("remap gave an image of the wrong size".into()))
}

/// One thing to draw on an annotated photo.
#[derive(Debug, Clone, PartialEq)]
pub enum Mark {
    /// A closed polygon (a ring or a rectangle), in image pixels.
    Polygon {
        points_px: Vec<Point2<f64>>,
        rgb: [u8; 3],
        thickness_px: i32,
    },
    /// An arrow from `from_px` to `to_px`.
    Arrow {
        from_px: Point2<f64>,
        to_px: Point2<f64>,
        rgb: [u8; 3],
        thickness_px: i32,
    },
    /// Text whose bottom-left corner is at `at_px`.
    Text {
        at_px: Point2<f64>,
        text: String,
        rgb: [u8; 3],
        scale: f64,
    },
}

fn cv_point(p: Point2<f64>) -> Point {
    // Pixel positions rounded for drawing only.
    Point::new(p.x.round() as i32, p.y.round() as i32)
}

fn colour(rgb: [u8; 3]) -> Scalar {
    // The Mat holds RGB bytes, so channels stay in RGB order.
    Scalar::new(f64::from(rgb[0]), f64::from(rgb[1]), f64::from(rgb[2]), 0.0)
}

/// Draws marks on a copy of an image (anti-aliased lines).
pub fn draw_marks(image: &RgbImage, marks: &[Mark]) -> Result<RgbImage, VisionError> {
    let rows = to_i32(image.height())?;
    let flat = Mat::from_slice(image.as_raw()).map_err(cv_err)?;
    let mut mat = flat
        .reshape(3, rows)
        .map_err(cv_err)?
        .try_clone()
        .map_err(cv_err)?;
    for mark in marks {
        match mark {
            Mark::Polygon {
                points_px,
                rgb,
                thickness_px,
            } => {
                let pts: cvcore::Vector<Point> = points_px.iter().map(|p| cv_point(*p)).collect();
                let polys: cvcore::Vector<cvcore::Vector<Point>> = std::iter::once(pts).collect();
                imgproc::polylines(
                    &mut mat,
                    &polys,
                    true,
                    colour(*rgb),
                    *thickness_px,
                    imgproc::LINE_AA,
                    0,
                )
                .map_err(cv_err)?;
            }
            Mark::Arrow {
                from_px,
                to_px,
                rgb,
                thickness_px,
            } => {
                imgproc::arrowed_line(
                    &mut mat,
                    cv_point(*from_px),
                    cv_point(*to_px),
                    colour(*rgb),
                    *thickness_px,
                    imgproc::LINE_AA,
                    0,
                    0.3,
                )
                .map_err(cv_err)?;
            }
            Mark::Text {
                at_px,
                text,
                rgb,
                scale,
            } => {
                imgproc::put_text(
                    &mut mat,
                    text,
                    cv_point(*at_px),
                    imgproc::FONT_HERSHEY_SIMPLEX,
                    *scale,
                    colour(*rgb),
                    1,
                    imgproc::LINE_AA,
                    false,
                )
                .map_err(cv_err)?;
            }
        }
    }
    let bytes = mat.data_bytes().map_err(cv_err)?.to_vec();
    RgbImage::from_raw(image.width(), image.height(), bytes)
        .ok_or_else(|| VisionError::OpenCv("drawing returned an image of the wrong size".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remap_shifts_by_the_map() {
        let mut src = RgbImage::new(8, 4);
        src.put_pixel(3, 1, image::Rgb([200, 100, 50]));
        // Output pixel (x, y) samples source (x + 1, y).
        let (w, h) = (6u32, 4u32);
        let mut mx = Vec::new();
        let mut my = Vec::new();
        for y in 0..h {
            for x in 0..w {
                mx.push(x as f32 + 1.0);
                my.push(y as f32);
            }
        }
        let out = remap_rgb(&src, &mx, &my, w, h).unwrap();
        assert_eq!(out.get_pixel(2, 1).0, [200, 100, 50]);
        assert_eq!(out.get_pixel(3, 1).0, [0, 0, 0]);
    }

    #[test]
    fn rounding_is_to_the_nearest_with_ties_to_even() {
        for v in [
            0.5f32, 1.5, 2.5, -0.5, -1.5, 0.49, 0.51, -2.7, 1234.5, 1e9, -1e9,
        ] {
            let want = v.clamp(-4_194_304.0, 4_194_304.0).round_ties_even() as i32;
            assert_eq!(round_ties_even(v), want, "{v}");
        }
        assert_eq!(round_ties_even(f32::NAN), 0);
    }

    #[test]
    fn fixed_point_maps_give_the_float_maps_pixels() {
        let src = RgbImage::from_fn(64, 48, |x, y| {
            image::Rgb([(x * 4) as u8, (y * 5) as u8, ((x * y) % 251) as u8])
        });
        let (w, h) = (40u32, 30u32);
        let mut mx = Vec::new();
        let mut my = Vec::new();
        for y in 0..h {
            for x in 0..w {
                // Fractions of every kind, a few samples off the source.
                mx.push(x as f32 * 1.37 - 3.3 + (y as f32) * 0.011);
                my.push(y as f32 * 1.61 - 0.7 + (x as f32) * 0.023);
            }
        }
        let float = remap_rgb(&src, &mx, &my, w, h).unwrap();
        let fixed = remap_rgb_fixed(&src, &FixedMaps::from_float(&mx, &my, w, h)).unwrap();
        assert_eq!(float, fixed);
    }

    #[test]
    fn maps_reaching_part_of_the_frame_read_only_that_frame() {
        // A frame whose every pixel is bright fills the kept RGBA buffer
        // first; then maps that reach only the middle of another frame
        // (and one column just off its left side) must give that frame's
        // pixels, with nothing left over from the first.
        let bright = RgbImage::from_pixel(64, 48, image::Rgb([250, 250, 250]));
        let src = RgbImage::from_fn(64, 48, |x, y| {
            image::Rgb([(x * 3) as u8, (y * 4) as u8, ((x + y) % 7) as u8])
        });
        let (w, h) = (12u32, 10u32);
        let mut mx = Vec::new();
        let mut my = Vec::new();
        for y in 0..h {
            for x in 0..w {
                mx.push(20.0 + x as f32 * 0.73 + y as f32 * 0.05);
                my.push(15.0 + y as f32 * 0.81);
            }
        }
        // The first column samples at x = -0.5: half black border.
        for y in 0..h as usize {
            mx[y * w as usize] = -0.5;
        }
        let maps = FixedMaps::from_float(&mx, &my, w, h);
        let (ix, iy): (Vec<f32>, Vec<f32>) = (0..48 * 64)
            .map(|k| ((k % 64) as f32, (k / 64) as f32))
            .unzip();
        let whole = remap_rgb_fixed(&bright, &FixedMaps::from_float(&ix, &iy, 64, 48)).unwrap();
        assert_eq!(whole, bright);
        let float = remap_rgb(&src, &mx, &my, w, h).unwrap();
        assert_eq!(remap_rgb_fixed(&src, &maps).unwrap(), float);
    }

    #[test]
    fn the_small_remap_gives_opencvs_pixels() {
        // Every fraction, samples off every side of the source, and a
        // source with every level.
        let src = RgbImage::from_fn(61, 47, |x, y| {
            image::Rgb([
                ((x * 37 + y * 11) % 256) as u8,
                ((x * y * 7 + 3) % 256) as u8,
                if (x + y) % 5 == 0 { 255 } else { (y * 5) as u8 },
            ])
        });
        let (w, h) = (70u32, 55u32);
        let mut mx = Vec::new();
        let mut my = Vec::new();
        for y in 0..h {
            for x in 0..w {
                mx.push(x as f32 * 0.93 - 3.1 + (y as f32) * 0.0173);
                my.push(y as f32 * 0.91 - 2.3 + (x as f32) * 0.0311);
            }
        }
        let maps = FixedMaps::from_float(&mx, &my, w, h);
        assert_eq!(
            remap_rgb_small(&src, &maps).unwrap(),
            remap_rgb_fixed(&src, &maps).unwrap()
        );
        // Every sample inside the source (the loop without a test per
        // pixel), every fraction.
        let (iw, ih) = (40u32, 30u32);
        let (ix, iy): (Vec<f32>, Vec<f32>) = (0..ih)
            .flat_map(|y| (0..iw).map(move |x| (x, y)))
            .map(|(x, y)| {
                (
                    1.0 + x as f32 * 1.31 + (y as f32) * 0.0173,
                    0.5 + y as f32 * 1.43 + (x as f32) * 0.0311,
                )
            })
            .unzip();
        let inside = FixedMaps::from_float(&ix, &iy, iw, ih);
        assert!(inside.reach[0] >= 0 && inside.reach[2] < 61 && inside.reach[3] < 47);
        assert_eq!(
            remap_rgb_small(&src, &inside).unwrap(),
            remap_rgb_fixed(&src, &inside).unwrap()
        );
        // A part of the maps is the maps of that part.
        let part = maps.part(9, 7, 20, 30).unwrap();
        let (pmx, pmy): (Vec<f32>, Vec<f32>) = (0..30usize)
            .flat_map(|j| (0..20usize).map(move |i| (j, i)))
            .map(|(j, i)| (mx[(7 + j) * 70 + 9 + i], my[(7 + j) * 70 + 9 + i]))
            .unzip();
        assert_eq!(part, FixedMaps::from_float(&pmx, &pmy, 20, 30));
        assert!(maps.part(60, 0, 11, 1).is_none(), "beyond the maps");
    }

    #[test]
    fn drawing_changes_pixels_on_the_mark_only() {
        let img = RgbImage::new(40, 40);
        let out = draw_marks(
            &img,
            &[Mark::Arrow {
                from_px: Point2::new(5.0, 20.0),
                to_px: Point2::new(35.0, 20.0),
                rgb: [255, 0, 0],
                thickness_px: 1,
            }],
        )
        .unwrap();
        // Anti-aliased: the line's centre pixel is mostly red.
        assert!(out.get_pixel(20, 20).0[0] > 128);
        assert_eq!(out.get_pixel(20, 5).0, [0, 0, 0]);
    }
}
