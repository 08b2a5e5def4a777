//! `spotter markers --out DIR [--board SPEC]`: the printable kit.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use super::default_layout;
use crate::calibration::board::CalibrationBoard;
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
    /// The lens calibration board to print (see `spotter calibrate-lens
    /// --help`); the kit's ChArUco board by default.
    #[arg(long, default_value = "kit", value_parser = super::calibrate_lens::parse_board)]
    pub board: CalibrationBoard,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let layout = match &args.layout {
        Some(path) => TableLayout::load(path)?,
        None => default_layout()?,
    };
    let files = kit::write_kit_with_board(&args.out, &layout, &args.board, args.dpi)
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
