//! Reading photos given on the command line: files or folders of them.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// File endings read as photos.
const PHOTO_EXTENSIONS: [&str; 4] = ["jpg", "jpeg", "png", "bmp"];
/// Smallest photo side worth searching for table markers, pixels.
pub const MIN_PHOTO_SIDE_PX: u32 = 64;
/// A JPEG file starts with this (start of image) ...
const JPEG_SOI: [u8; 2] = [0xFF, 0xD8];
/// ... and ends with this (end of image); a file cut short lacks it.
const JPEG_EOI: [u8; 2] = [0xFF, 0xD9];

fn is_photo(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| PHOTO_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Expands folders into their photos (sorted by name); files are kept as given.
pub fn expand(inputs: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut photos: Vec<PathBuf> = std::fs::read_dir(input)
                .with_context(|| format!("cannot list the folder {}", input.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| is_photo(p))
                .collect();
            photos.sort();
            if photos.is_empty() {
                bail!(
                    "the folder {} holds no photos (.jpg, .png)",
                    input.display()
                );
            }
            out.extend(photos);
        } else if input.exists() {
            out.push(input.clone());
        } else {
            bail!("{} does not exist: check the path", input.display());
        }
    }
    Ok(out)
}

/// Is this a JPEG file cut short (no end-of-image marker)? The decoder
/// fills the missing part with grey and says nothing.
fn truncated_jpeg(bytes: &[u8]) -> bool {
    if !bytes.starts_with(&JPEG_SOI) {
        return false;
    }
    // Some cameras pad after the marker.
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    !bytes[..end].ends_with(&JPEG_EOI)
}

/// Opens a photo; a corrupt, truncated, unreadable or too small file says
/// which and why.
pub fn open_rgb(path: &Path) -> anyhow::Result<image::RgbImage> {
    let bytes = crate::spec::read_capped(path, crate::spec::MAX_PHOTO_BYTES)
        .with_context(|| format!("cannot read the photo {}", path.display()))?;
    if truncated_jpeg(&bytes) {
        bail!(
            "the photo {} is truncated (the JPEG ends before its last marker): copy it again from the camera",
            path.display()
        );
    }
    // A JPEG through the fastest decoder; anything else, or a JPEG it does
    // not take, through the `image` crate (whose error is the one reported).
    let fast = bytes
        .starts_with(&[0xFF, 0xD8])
        .then(|| crate::capture::decode::decode_jpeg(&bytes, crate::capture::decode::FASTEST))
        .and_then(Result::ok)
        .map(image::DynamicImage::ImageRgb8);
    let img = match fast {
        Some(img) => img,
        None => image::load_from_memory(&bytes).with_context(|| {
            format!(
                "cannot read the photo {}: is it a complete JPEG or PNG file?",
                path.display()
            )
        })?,
    };
    if img.width() < MIN_PHOTO_SIDE_PX || img.height() < MIN_PHOTO_SIDE_PX {
        bail!(
            "the photo {} is {}x{} pixels, too small to find the table in (at least {MIN_PHOTO_SIDE_PX}x{MIN_PHOTO_SIDE_PX})",
            path.display(),
            img.width(),
            img.height()
        );
    }
    Ok(img.to_rgb8())
}

/// The file name of a path, for reports.
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
