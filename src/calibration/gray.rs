//! Grey images for the marker search: a fast luma conversion and a box
//! shrink, both plain row loops over the raw buffers.
//!
//! # Conventions
//! Pixels with the origin at the centre of the top-left pixel. Pixel `(u, v)`
//! of an image shrunk by `f` averages the full-size pixels `f u .. f u + f - 1`
//! (and the same rows), so it sits at full-size position `f u + (f - 1) / 2`.

use image::{GrayImage, RgbImage};
use nalgebra::Point2;

/// Luma weights of `image::imageops::grayscale` (Rec. 709 on encoded values,
/// out of [`LUMA_DIV`]); kept identical so that results do not depend on
/// which conversion made the grey frame.
const LUMA: [u32; 3] = [2126, 7152, 722];
const LUMA_DIV: u32 = 10_000;

/// Luma of one RGB pixel, as `image::imageops::grayscale` computes it.
fn luma(p: &[u8]) -> u8 {
    let l = LUMA[0] * u32::from(p[0]) + LUMA[1] * u32::from(p[1]) + LUMA[2] * u32::from(p[2]);
    // At most 255 by the weights' sum.
    (l / LUMA_DIV) as u8
}

/// The grey frame the markers are searched in: the same values as
/// `image::imageops::grayscale`, several times faster.
pub fn gray_from_rgb(rgb: &RgbImage) -> GrayImage {
    let data: Vec<u8> = rgb.as_raw().chunks_exact(3).map(luma).collect();
    GrayImage::from_raw(rgb.width(), rgb.height(), data)
        .unwrap_or_else(|| GrayImage::new(rgb.width(), rgb.height()))
}

/// Writes the luma of `rgb` into `gray` (of the same size) inside
/// `[x0, y0, x1, y1)`, clipped to the image.
pub fn fill_gray_from_rgb(rgb: &RgbImage, gray: &mut GrayImage, bounds: [u32; 4]) {
    let (w, h) = (
        rgb.width().min(gray.width()),
        rgb.height().min(gray.height()),
    );
    let x1 = bounds[2].min(w) as usize;
    let y1 = bounds[3].min(h) as usize;
    let x0 = (bounds[0] as usize).min(x1);
    let y0 = (bounds[1] as usize).min(y1);
    let (src_w, dst_w) = (rgb.width() as usize, gray.width() as usize);
    let src = rgb.as_raw();
    let dst: &mut [u8] = &mut *gray;
    for y in y0..y1 {
        let from = &src[(y * src_w + x0) * 3..(y * src_w + x1) * 3];
        let to = &mut dst[y * dst_w + x0..y * dst_w + x1];
        for (o, p) in to.iter_mut().zip(from.chunks_exact(3)) {
            *o = luma(p);
        }
    }
}

/// `shrink(&gray_from_rgb(rgb), factor)` in one pass over the colour frame,
/// without the full-size grey frame: the same values.
pub fn shrunk_gray_from_rgb(rgb: &RgbImage, factor: u32) -> GrayImage {
    let f = factor.max(1) as usize;
    if f == 1 {
        return gray_from_rgb(rgb);
    }
    let (w, h) = (rgb.width() as usize, rgb.height() as usize);
    let (sw, sh) = (w / f, h / f);
    let src = rgb.as_raw();
    let mut out = vec![0u8; sw * sh];
    let area = (f * f) as u32;
    if f == 2 && sw > 0 {
        // The usual factor: two rows at a time, two pixels of each.
        for (out_row, rows) in out.chunks_exact_mut(sw).zip(src.chunks_exact(6 * w)) {
            let (upper, lower) = rows.split_at(3 * w);
            for ((o, a), b) in out_row
                .iter_mut()
                .zip(upper.chunks_exact(6))
                .zip(lower.chunks_exact(6))
            {
                let sum = u32::from(luma(&a[..3]))
                    + u32::from(luma(&a[3..]))
                    + u32::from(luma(&b[..3]))
                    + u32::from(luma(&b[3..]));
                // A mean of u8 values.
                *o = ((sum + area / 2) / area) as u8;
            }
        }
        // Sizes are the shrunk image's by construction.
        return GrayImage::from_raw(sw as u32, sh as u32, out)
            .unwrap_or_else(|| GrayImage::new(0, 0));
    }
    let mut acc = vec![0u32; sw];
    for (v, out_row) in out.chunks_exact_mut(sw.max(1)).enumerate().take(sh) {
        acc.fill(0);
        for row in src.chunks_exact(3 * w).skip(v * f).take(f) {
            for (a, block) in acc.iter_mut().zip(row.chunks_exact(3 * f)) {
                *a += block
                    .chunks_exact(3)
                    .map(|p| u32::from(luma(p)))
                    .sum::<u32>();
            }
        }
        for (o, a) in out_row.iter_mut().zip(&acc) {
            // A mean of u8 values.
            *o = ((a + area / 2) / area) as u8;
        }
    }
    // Sizes are the shrunk image's by construction.
    GrayImage::from_raw(sw as u32, sh as u32, out).unwrap_or_else(|| GrayImage::new(0, 0))
}

/// The image shrunk by an integer `factor`, each pixel the rounded mean of a
/// `factor` x `factor` block (a partial block at the right or bottom edge is
/// dropped).
pub fn shrink(gray: &GrayImage, factor: u32) -> GrayImage {
    let f = factor.max(1) as usize;
    if f == 1 {
        return gray.clone();
    }
    let (w, h) = (gray.width() as usize, gray.height() as usize);
    let (sw, sh) = (w / f, h / f);
    let src = gray.as_raw();
    let mut out = vec![0u8; sw * sh];
    let mut acc = vec![0u32; sw];
    let area = (f * f) as u32;
    for (v, out_row) in out.chunks_exact_mut(sw.max(1)).enumerate().take(sh) {
        acc.fill(0);
        for row in src.chunks_exact(w).skip(v * f).take(f) {
            for (a, block) in acc.iter_mut().zip(row.chunks_exact(f)) {
                *a += block.iter().map(|&p| u32::from(p)).sum::<u32>();
            }
        }
        for (o, a) in out_row.iter_mut().zip(&acc) {
            // A mean of u8 values.
            *o = ((a + area / 2) / area) as u8;
        }
    }
    // Sizes are the shrunk image's by construction.
    GrayImage::from_raw(sw as u32, sh as u32, out).unwrap_or_else(|| GrayImage::new(0, 0))
}

/// Where a point of an image shrunk by `factor` lies in the full-size image.
pub fn full_from_shrunk(p: Point2<f64>, factor: u32) -> Point2<f64> {
    let f = f64::from(factor.max(1));
    Point2::new(p.x * f + (f - 1.0) / 2.0, p.y * f + (f - 1.0) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Luma, Rgb};

    #[test]
    fn luma_matches_the_image_crate() {
        let rgb = RgbImage::from_fn(37, 11, |x, y| {
            Rgb([
                (x * 7 + y) as u8,
                (x * 3 + y * 19) as u8,
                (255 - x * 5) as u8,
            ])
        });
        assert_eq!(gray_from_rgb(&rgb), image::imageops::grayscale(&rgb));
    }

    #[test]
    fn grey_from_colour_in_windows_and_shrunk_is_the_same_grey() {
        let rgb = RgbImage::from_fn(41, 23, |x, y| {
            Rgb([
                (x * 11 + y * 3) as u8,
                (x * 2 + y * 17) as u8,
                (250 - x * 6) as u8,
            ])
        });
        let gray = gray_from_rgb(&rgb);
        for f in [1, 2, 3, 4] {
            assert_eq!(
                shrunk_gray_from_rgb(&rgb, f),
                shrink(&gray, f),
                "factor {f}"
            );
        }
        let mut part = GrayImage::new(41, 23);
        fill_gray_from_rgb(&rgb, &mut part, [5, 3, 19, 40]);
        for (x, y, p) in part.enumerate_pixels() {
            let inside = (5..19).contains(&x) && (3..23).contains(&y);
            let want = if inside { gray.get_pixel(x, y).0[0] } else { 0 };
            assert_eq!(p.0[0], want, "({x}, {y})");
        }
        // Even sizes too (no partial block left over).
        let rgb = image::imageops::crop_imm(&rgb, 0, 0, 40, 22).to_image();
        let gray = gray_from_rgb(&rgb);
        for f in [2, 4] {
            assert_eq!(
                shrunk_gray_from_rgb(&rgb, f),
                shrink(&gray, f),
                "factor {f}"
            );
        }
    }

    #[test]
    fn shrinking_averages_blocks_and_keeps_positions() {
        let g = GrayImage::from_fn(7, 5, |x, y| Luma([(x * 10 + y) as u8]));
        let s = shrink(&g, 2);
        assert_eq!((s.width(), s.height()), (3, 2));
        // Block x 2..3, y 2..3: (20+2 + 30+2 + 20+3 + 30+3) / 4 = 27.5 -> 28.
        assert_eq!(s.get_pixel(1, 1).0[0], 28);
        // A bright pixel at full-size (5, 3) is in shrunk pixel (2, 1), whose
        // centre is at full-size (4.5, 2.5).
        assert_eq!(
            full_from_shrunk(Point2::new(2.0, 1.0), 2),
            Point2::new(4.5, 2.5)
        );
    }
}
