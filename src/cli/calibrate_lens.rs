//! `spotter calibrate-lens <IMAGES... | DIR> --out FILE.toml [--board SPEC] [--json]`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde_json::json;

use super::images;
use crate::calibration::board::{self, CalibrationBoard};
use crate::calibration::lens_calibration::LensCalibrationParams;
use crate::calibration::lens_model::SIGMA_NAMES;

/// Reads `--board`: a spec such as `chessboard:9x6:25mm`.
pub fn parse_board(spec: &str) -> Result<CalibrationBoard, String> {
    spec.parse()
        .map_err(|e: board::BoardSpecError| e.to_string())
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Photos of the board, or folders of them (colour or grayscale, any
    /// one size).
    #[arg(required = true)]
    pub images: Vec<PathBuf>,
    /// The board in the photos: `kit` (the kit's ChArUco board),
    /// `chessboard:9x6:25mm` (inner corners), `circles:4x11:20mm`,
    /// `acircles:4x11:20mm` (OpenCV's asymmetric grid) or
    /// `charuco:5x7:30mm:22mm:DICT_6X6_250[:legacy]`.
    #[arg(long, default_value = "kit", value_parser = parse_board)]
    pub board: CalibrationBoard,
    /// Camera file to write (TOML).
    #[arg(long)]
    pub out: PathBuf,
    /// Print one JSON object (`spotter.lens/1`) instead of the report.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let paths = images::expand(&args.images)?;
    let board = args.board;
    let params = LensCalibrationParams::default();
    let mut views = Vec::new();
    let mut size: Option<[u32; 2]> = None;
    for path in &paths {
        let gray = image::DynamicImage::ImageRgb8(images::open_rgb(path)?).to_luma8();
        let this = [gray.width(), gray.height()];
        match size {
            None => size = Some(this),
            Some(s) if s != this => bail!(
                "{} is {}x{} but the other photos are {}x{}: calibrate one camera at one resolution at a time",
                path.display(),
                this[0],
                this[1],
                s[0],
                s[1]
            ),
            Some(_) => {}
        }
        let name = images::file_name(path);
        views.push(board.find_view(&name, &gray, &params)?);
    }
    let size = size.context("no photos given")?;
    let cal = board.calibrate(views, size, &params)?;
    let rejected = cal.views_rejected();
    std::fs::write(&args.out, cal.lens.to_toml(cal.views_used(), &rejected))
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let lens = &cal.lens;
    if args.json {
        let k: Vec<f64> = (0..3)
            .flat_map(|r| (0..3).map(move |c| (r, c)))
            .map(|(r, c)| lens.k[(r, c)])
            .collect();
        let out = json!({
            "schema": "spotter.lens/1",
            "board": board.to_string(),
            "K": k,
            "dist": lens.dist,
            "rational": lens.rational,
            "rms_px": lens.rms_px,
            "image_size": lens.image_size,
            "views_used": cal.views_used(),
            "views_rejected": rejected,
            "model": cal.model.name(),
            "held_out_rms_px": cal
                .held_out_rms_px
                .iter()
                .map(|(m, r)| json!({ "model": m.name(), "rms_px": r }))
                .collect::<Vec<_>>(),
            "sigma": SIGMA_NAMES
                .iter()
                .zip(cal.sigma)
                .map(|(n, s)| ((*n).to_owned(), json!(s)))
                .collect::<serde_json::Map<_, _>>(),
            "view_weights": cal
                .views
                .iter()
                .map(|v| json!({ "view": v.name, "weight": v.weight }))
                .collect::<Vec<_>>(),
            "advice": cal.advice,
        });
        println!("{out}");
    } else {
        println!(
            "Lens calibration from {} photos ({}x{}) of {}:",
            paths.len(),
            size[0],
            size[1],
            board.describe()
        );
        for v in &cal.views {
            let rms = v
                .rms_px
                .map_or_else(|| "-".to_owned(), |r| format!("{r:.3} px"));
            let state = if v.used {
                "used".to_owned()
            } else {
                format!("dropped: {}", v.reason.clone().unwrap_or_default())
            };
            let weight = v
                .weight
                .map_or_else(|| "-".to_owned(), |w| format!("{w:.2}"));
            println!(
                "  {:<24} {:>3} points   RMS {:>9}  weight {:>4}  {}",
                v.name, v.corners, rms, weight, state
            );
        }
        let dist: Vec<String> = lens
            .dist
            .iter()
            .chain(if lens.rational == [0.0; 3] {
                &[][..]
            } else {
                &lens.rational[..]
            })
            .map(|d| format!("{d:.5}"))
            .collect();
        println!(
            "  fx {:.1}  fy {:.1}  cx {:.1}  cy {:.1}  dist [{}]",
            lens.fx(),
            lens.fy(),
            lens.cx(),
            lens.cy(),
            dist.join(", ")
        );
        println!(
            "  overall RMS {:.3} px over {} views; board points cover {:.0}% of the picture",
            lens.rms_px,
            cal.views_used(),
            cal.coverage_frac * 100.0
        );
        let s = &cal.sigma;
        let terms: Vec<String> = SIGMA_NAMES
            .iter()
            .zip(s)
            .skip(4)
            .filter(|(_, v)| **v > 0.0)
            .map(|(n, v)| format!("{n} {v:.5}"))
            .collect();
        println!(
            "  1-sigma: fx {:.2} px ({:.2}%)  fy {:.2} px ({:.2}%)  cx {:.2} px  cy {:.2} px  {}",
            s[0],
            100.0 * s[0] / lens.fx(),
            s[1],
            100.0 * s[1] / lens.fy(),
            s[2],
            s[3],
            terms.join("  ")
        );
        let tried: Vec<String> = cal
            .held_out_rms_px
            .iter()
            .map(|(m, r)| format!("{} {r:.3} px", m.name()))
            .collect();
        println!(
            "  distortion model {} (on views held back from the fit: {})",
            cal.model.name(),
            tried.join(", ")
        );
        if cal.advice.is_empty() {
            println!("  the views pin the lens down");
        }
        for a in &cal.advice {
            println!("  not pinned down: {a}");
        }
        println!("Wrote {}", args.out.display());
    }
    Ok(ExitCode::SUCCESS)
}
