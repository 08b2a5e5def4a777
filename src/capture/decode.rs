//! JPEG decoding for MJPEG webcams and recorded photos, by one of three
//! decoders: the `image` crate's (zune-jpeg, pure Rust), nokhwa's (mozjpeg)
//! and OpenCV's `imdecode` (the system's libjpeg-turbo). `spotter bench`
//! times all three; [`FASTEST`] is the one it measured fastest here.
//!
//! # Conventions
//! Frames come out as 8-bit sRGB [`RgbImage`]s.

use image::RgbImage;
use opencv::core::{Mat, MatTraitConst, MatTraitConstManual, Vector};
use opencv::{imgcodecs, imgproc};

/// A JPEG decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JpegDecoder {
    /// The `image` crate (zune-jpeg).
    Image,
    /// nokhwa's MJPEG decoder (mozjpeg).
    Nokhwa,
    /// OpenCV's `imdecode` (libjpeg-turbo), then BGR to RGB.
    OpenCv,
}

impl JpegDecoder {
    pub const ALL: [Self; 3] = [Self::Image, Self::Nokhwa, Self::OpenCv];

    pub fn name(self) -> &'static str {
        match self {
            Self::Image => "image (zune-jpeg)",
            Self::Nokhwa => "nokhwa (mozjpeg)",
            Self::OpenCv => "OpenCV imdecode (libjpeg-turbo)",
        }
    }
}

/// The decoder photos, the recorded folders and the camera's odd frames
/// use: mozjpeg (libjpeg-turbo), built with its SIMD code when nasm is
/// installed (`make deps` installs it). `spotter bench`, the 1920x1080
/// fixture photo, one core, 2026-12-03: mozjpeg 7.96 ms median, zune-jpeg
/// 17.26 ms, OpenCV's imdecode 23.03 ms with its BGR to RGB step (mozjpeg
/// without SIMD: 18.16 ms).
pub const FASTEST: JpegDecoder = JpegDecoder::Nokhwa;

/// Why a JPEG could not be decoded.
#[derive(Debug, thiserror::Error)]
#[error("cannot decode the JPEG frame ({decoder}): {reason}")]
pub struct DecodeError {
    pub decoder: &'static str,
    pub reason: String,
}

/// Decodes a JPEG (a webcam's MJPEG frame or a photo file's bytes).
pub fn decode_jpeg(bytes: &[u8], with: JpegDecoder) -> Result<RgbImage, DecodeError> {
    let fail = |reason: String| DecodeError {
        decoder: with.name(),
        reason,
    };
    match with {
        JpegDecoder::Image => image::load_from_memory_with_format(bytes, image::ImageFormat::Jpeg)
            .map(|i| i.to_rgb8())
            .map_err(|e| fail(e.to_string())),
        JpegDecoder::Nokhwa => {
            let (w, h) = jpeg_size(bytes).ok_or_else(|| fail("no frame header".into()))?;
            let rgb = nokhwa::utils::mjpeg_to_rgb(bytes, false).map_err(|e| fail(e.to_string()))?;
            RgbImage::from_raw(w, h, rgb).ok_or_else(|| fail("wrong buffer size".into()))
        }
        JpegDecoder::OpenCv => {
            let buf = Vector::<u8>::from_slice(bytes);
            let bgr = imgcodecs::imdecode(&buf, imgcodecs::IMREAD_COLOR)
                .map_err(|e| fail(e.to_string()))?;
            if bgr.empty() {
                return Err(fail("not a JPEG OpenCV can read".into()));
            }
            let mut rgb = Mat::default();
            imgproc::cvt_color_def(&bgr, &mut rgb, imgproc::COLOR_BGR2RGB)
                .map_err(|e| fail(e.to_string()))?;
            let (w, h) = (
                u32::try_from(rgb.cols()).map_err(|e| fail(e.to_string()))?,
                u32::try_from(rgb.rows()).map_err(|e| fail(e.to_string()))?,
            );
            let data = rgb.data_bytes().map_err(|e| fail(e.to_string()))?.to_vec();
            RgbImage::from_raw(w, h, data).ok_or_else(|| fail("wrong buffer size".into()))
        }
    }
}

/// Width and height from a JPEG's start-of-frame marker.
pub fn jpeg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let mut i = 2;
    while i + 9 < bytes.len() {
        if bytes[i] != 0xFF {
            i += 1;
            continue;
        }
        let marker = bytes[i + 1];
        let len = usize::from(u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]));
        // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
        if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
            let h = u16::from_be_bytes([bytes[i + 5], bytes[i + 6]]);
            let w = u16::from_be_bytes([bytes[i + 7], bytes[i + 8]]);
            return Some((u32::from(w), u32::from(h)));
        }
        i += 2 + len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_decoder_gives_the_picture_back() {
        let img = RgbImage::from_fn(64, 48, |x, y| {
            image::Rgb([(x * 4) as u8, (y * 5) as u8, ((x + y) * 2) as u8])
        });
        let mut bytes = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 95)
            .encode_image(&img)
            .unwrap();
        assert_eq!(jpeg_size(&bytes), Some((64, 48)));
        for d in JpegDecoder::ALL {
            let out = decode_jpeg(&bytes, d).unwrap();
            assert_eq!(out.dimensions(), (64, 48), "{}", d.name());
            let err: f64 = out
                .as_raw()
                .iter()
                .zip(img.as_raw())
                .map(|(a, b)| f64::from((i16::from(*a) - i16::from(*b)).abs()))
                .sum::<f64>()
                / f64::from(64 * 48 * 3);
            assert!(err < 4.0, "{}: mean error {err}", d.name());
        }
        assert!(decode_jpeg(b"not a jpeg", JpegDecoder::OpenCv).is_err());
    }
}
