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
