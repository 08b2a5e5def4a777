//! `spotter markers --out DIR`: the printable kit.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use super::default_layout;
use crate::calibration::charuco::CharucoBoard;
use crate::calibration::{TableLayout, kit};

/// Print resolution of the PNG files.
const DEFAULT_DPI: u32 = 300;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Folder to write the PNG and PDF files into (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Table layout file; the kit's 48 x 48 in layout when it is missing.
    #[arg(long)]
    pub layout: Option<PathBuf>,
    /// Resolution of the PNG files, dots per inch.
    #[arg(long, default_value_t = DEFAULT_DPI)]
    pub dpi: u32,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let layout = match &args.layout {
        Some(path) => TableLayout::load(path)?,
        None => default_layout()?,
    };
    let files = kit::write_kit(&args.out, &layout, &CharucoBoard::default(), args.dpi)
        .with_context(|| format!("writing the kit into {}", args.out.display()))?;
    println!("Wrote the table kit ({} dpi PNG, true-size PDF):", args.dpi);
    for f in &files.files {
        println!("  {}", f.display());
    }
    println!(
        "Print kit-letter.pdf or kit-a4.pdf at 100% (actual size); page 1 says where each marker goes."
    );
    Ok(ExitCode::SUCCESS)
}
