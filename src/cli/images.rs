//! Reading photos given on the command line: files or folders of them.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// File endings read as photos.
const PHOTO_EXTENSIONS: [&str; 4] = ["jpg", "jpeg", "png", "bmp"];

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

/// Opens a photo; a corrupt or unreadable file says which and why.
pub fn open_rgb(path: &Path) -> anyhow::Result<image::RgbImage> {
    let img = image::open(path).with_context(|| {
        format!(
            "cannot read the photo {}: is it a complete JPEG or PNG file?",
            path.display()
        )
    })?;
    Ok(img.to_rgb8())
}

/// The file name of a path, for reports.
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
