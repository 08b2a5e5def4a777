//! `spotter table <IMAGES...> [--camera FILE] [--layout FILE] [--json]`:
//! maps each photo to table inches and checks the mapping by leaving each
//! marker out in turn.

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;

use super::{images, load_camera, load_layout};
use crate::calibration::{self, TableMapping};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Photos of the table, or folders of them.
    #[arg(required = true)]
    pub images: Vec<PathBuf>,
    /// Camera file from `spotter calibrate-lens` (undistorts first).
    #[arg(long)]
    pub camera: Option<PathBuf>,
    /// Table layout file (default calibration/table.toml).
    #[arg(long)]
    pub layout: Option<PathBuf>,
    /// One JSON object per photo (JSON Lines).
    #[arg(long)]
    pub json: bool,
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let layout = load_layout(args.layout.as_deref())?;
    let lens = load_camera(args.camera.as_deref())?;
    let mut all_errors = Vec::new();
    let mut failed = 0;
    for path in images::expand(&args.images)? {
        let gray = image::DynamicImage::ImageRgb8(images::open_rgb(&path)?).to_luma8();
        let name = images::file_name(&path);
        let lens_here = lens
            .as_ref()
            .map(|l| l.for_image([gray.width(), gray.height()]))
            .transpose()
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let markers = calibration::detect_table_markers(&gray, &layout, lens_here.as_ref())?;
        let loo = calibration::leave_one_out_in(&markers, &layout, lens_here.as_ref());
        let errors: Vec<f64> = loo.iter().flat_map(|(_, e)| e.iter().copied()).collect();
        all_errors.extend(errors.iter().copied());
        match TableMapping::fit(&markers, &layout, lens_here.as_ref()) {
            Ok(m) => {
                if args.json {
                    let h: Vec<f64> = m.table_from_ideal.transpose().iter().copied().collect();
                    println!(
                        "{}",
                        json!({
                            "schema": "spotter.table/1",
                            "image": name,
                            "markers_found": m.markers_found,
                            "table_from_ideal": h,
                            "residual_px": m.residual_px,
                            "residual_in": m.residual_in,
                            "leave_one_out_in": loo.iter().map(|(id, e)| json!({"id": id, "corner_err_in": e})).collect::<Vec<_>>(),
                        })
                    );
                } else {
                    let worst = errors.iter().copied().fold(0.0, f64::max);
                    println!(
                        "{name}: markers {:?}, residual {:.2} px / {:.3} in, leave-one-out corner error median {:.3} in, max {:.3} in",
                        m.markers_found,
                        m.residual_px,
                        m.residual_in,
                        median(errors.clone()),
                        worst
                    );
                }
            }
            Err(err) => {
                failed += 1;
                if args.json {
                    println!(
                        "{}",
                        json!({"schema": "spotter.table/1", "image": name, "markers_found": markers.iter().map(|m| m.id).collect::<Vec<_>>(), "error": err.to_string()})
                    );
                } else {
                    println!("{name}: {err}");
                }
            }
        }
    }
    if !args.json && !all_errors.is_empty() {
        let max = all_errors.iter().copied().fold(0.0, f64::max);
        println!(
            "All photos: leave-one-out corner error median {:.4} in, max {:.4} in ({} corners)",
            median(all_errors.clone()),
            max,
            all_errors.len()
        );
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}
