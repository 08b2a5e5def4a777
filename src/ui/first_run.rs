//! First run: with no lens calibration file the app says so and walks the
//! player through the kit, each step with its live result: print it (and
//! check the print is true size), lay out the table markers (which are
//! seen, and where each missing one should be), take the lens photos, and
//! check the table mapping.
//!
//! # Conventions
//! Table positions in inches (table frame of `TABLE_KIT.md`); image
//! positions in pixels of the camera frame, origin top-left, y down. Where
//! a missing marker should be in the picture is predicted from the markers
//! seen through a homography of their corners (lens distortion ignored: a
//! hint, not a measurement).

use std::path::{Path, PathBuf};

use nalgebra::Point2;

use super::logic::{AppLogic, SourceChoice};
use super::pipeline::Perception;
use super::theme;
use crate::calibration::{TableLayout, homography, kit};

/// The lens file whose absence starts the walk-through.
pub const CAMERA_FILE: &str = super::lens_wizard::DEFAULT_CAMERA_PATH;
/// The layout file read for marker positions, when it exists.
pub const LAYOUT_FILE: &str = "calibration/table.toml";
/// Where the kit is written.
pub const KIT_DIR: &str = "kit";
/// Resolution of the kit's PNG files.
const KIT_DPI: u32 = 300;
/// A table residual at most this many inches passes the table check.
pub const TABLE_CHECK_MAX_IN: f64 = 0.05;

/// How far along each step is, for the panel.
#[derive(Debug, Clone, PartialEq)]
pub struct StepStatus {
    pub done: bool,
    pub text: String,
}

/// The walk-through's state.
#[derive(Debug)]
pub struct FirstRun {
    /// The calibration file was missing when the app started.
    pub missing: bool,
    camera_file: PathBuf,
    /// The kit written from the panel, or why not.
    pub kit: Option<Result<PathBuf, String>>,
    /// The player measured the 3.00 in ruler of the print.
    pub print_checked: bool,
}

impl FirstRun {
    /// Looks for the calibration file under the working directory.
    pub fn new() -> Self {
        Self::with_camera_file(Path::new(CAMERA_FILE))
    }

    pub fn with_camera_file(camera_file: &Path) -> Self {
        Self {
            missing: !camera_file.exists(),
            camera_file: camera_file.to_path_buf(),
            kit: None,
            print_checked: false,
        }
    }

    /// Step 1: the kit printed at true size.
    pub fn print_status(&self) -> StepStatus {
        match (&self.kit, self.print_checked) {
            (Some(Err(e)), _) => StepStatus {
                done: false,
                text: format!("the kit could not be written: {e}"),
            },
            (_, true) => StepStatus {
                done: true,
                text: "printed; the ruler measures 3.00 in".into(),
            },
            (Some(Ok(dir)), false) => StepStatus {
                done: false,
                text: format!(
                    "written to {}: print kit-letter.pdf or kit-a4.pdf at 100% (actual size), then measure the 3.00 in ruler on page 1",
                    dir.display()
                ),
            },
            (None, false) => StepStatus {
                done: false,
                text: "write the kit, print it at 100% (actual size) and measure the 3.00 in ruler on page 1".into(),
            },
        }
    }

    /// Step 4: the lens calibrated and saved.
    pub fn lens_status(&self, logic: &AppLogic) -> StepStatus {
        let w = &logic.lens_wizard;
        if self.camera_file.exists() {
            return StepStatus {
                done: true,
                text: format!("saved to {}", self.camera_file.display()),
            };
        }
        let fit = match &w.fit {
            Some(Ok(f)) => format!(", RMS {:.2} px: save it", f.lens.rms_px),
            Some(Err(why)) => format!(": {why}"),
            None => String::new(),
        };
        StepStatus {
            done: false,
            text: format!(
                "{} of {} views of {}, coverage {:.0}% (need {:.0}%){fit}",
                w.usable_views(),
                w.params.min_views,
                w.board().describe(),
                100.0 * w.coverage_frac(),
                100.0 * w.params.min_coverage_frac
            ),
        }
    }

    /// The panel, when the calibration file was missing. Open at once for a
    /// webcam; folded for a recording (the demo has its own lens).
    pub fn panel_ui(&mut self, ui: &mut egui::Ui, logic: &mut AppLogic) {
        if !self.missing {
            return;
        }
        let live_camera = matches!(logic.source_choice, SourceChoice::Camera(_));
        egui::Panel::top("first-run").show(ui, |ui| {
            egui::CollapsingHeader::new(format!(
                "First run: no calibration files ({} is missing). Set up the table in four steps",
                self.camera_file.display()
            ))
            .default_open(live_camera)
            .show(ui, |ui| self.steps_ui(ui, logic));
        });
    }

    fn steps_ui(&mut self, ui: &mut egui::Ui, logic: &mut AppLogic) {
        let print = self.print_status();
        step_line(ui, "1. Print the kit", &print);
        ui.horizontal(|ui| {
            if ui.button(format!("Write the kit to {KIT_DIR}/")).clicked() {
                self.kit = Some(write_kit(logic));
            }
            ui.checkbox(&mut self.print_checked, "The ruler measures 3.00 in");
        });
        let layout = layout_for(logic);
        let markers = logic
            .latest
            .as_ref()
            .map(|p| marker_status(&p.perception, &layout, frame_size(logic)));
        step_line(
            ui,
            "2. Lay out the table markers",
            &markers.clone().unwrap_or(StepStatus {
                done: false,
                text: "waiting for the first frame".into(),
            }),
        );
        step_line(ui, "3. Lens photos", &self.lens_status(logic));
        ui.small("Open \"Lens calibration\" on the left and capture the board held at different tilts over the whole picture.");
        let table = logic.latest.as_ref().map(|p| table_status(&p.perception));
        step_line(
            ui,
            "4. Table check",
            &table.unwrap_or(StepStatus {
                done: false,
                text: "waiting for the first frame".into(),
            }),
        );
    }
}

impl Default for FirstRun {
    fn default() -> Self {
        Self::new()
    }
}

fn step_line(ui: &mut egui::Ui, title: &str, status: &StepStatus) {
    ui.horizontal_wrapped(|ui| {
        let (colour, mark) = if status.done {
            (theme::STATUS_OK, "done")
        } else {
            (theme::STATUS_WARN, "to do")
        };
        ui.strong(title);
        ui.colored_label(colour, format!("[{mark}] {}", status.text));
    });
}

fn write_kit(logic: &AppLogic) -> Result<PathBuf, String> {
    let layout = layout_for(logic);
    let dir = PathBuf::from(KIT_DIR);
    kit::write_kit_with_board(&dir, &layout, logic.lens_wizard.board(), KIT_DPI)
        .map(|_| dir)
        .map_err(|e| e.to_string())
}

/// The layout file when there is one, else the kit's layout for the table
/// size the pipeline reports.
fn layout_for(logic: &AppLogic) -> TableLayout {
    if let Ok(layout) = TableLayout::load(Path::new(LAYOUT_FILE)) {
        return layout;
    }
    let [w, d] = logic
        .latest
        .as_ref()
        .map_or([48.0, 48.0], |p| p.perception.lock.table_in);
    TableLayout::standard(w, d)
}

fn frame_size(logic: &AppLogic) -> [u32; 2] {
    logic
        .latest
        .as_ref()
        .map_or([0, 0], |p| [p.frame.image.width(), p.frame.image.height()])
}

/// Step 2 on one frame: which markers are seen, and for each missing one
/// where it goes on the table and where the picture should show it.
pub fn marker_status(perception: &Perception, layout: &TableLayout, size: [u32; 2]) -> StepStatus {
    let seen: Vec<u32> = perception.markers.iter().map(|m| m.id).collect();
    let missing: Vec<_> = layout
        .markers
        .iter()
        .filter(|m| !seen.contains(&m.id))
        .collect();
    if missing.is_empty() {
        return StepStatus {
            done: true,
            text: format!("all {} markers seen", layout.markers.len()),
        };
    }
    // Table corners of the seen layout markers against their pixels.
    let (mut table_pts, mut image_pts) = (Vec::new(), Vec::new());
    for obs in &perception.markers {
        if let Some(m) = layout.markers.iter().find(|m| m.id == obs.id) {
            table_pts.extend_from_slice(&m.corners_in_table());
            image_pts.extend_from_slice(&obs.corners_px);
        }
    }
    let image_from_table = homography::fit(&table_pts, &image_pts);
    let mut text = if seen.is_empty() {
        "no markers seen".to_owned()
    } else {
        let mut ids = seen.clone();
        ids.sort_unstable();
        format!("seen: {ids:?}")
    };
    for m in missing {
        text.push_str(&format!(
            "; marker {} goes at the {}, centre ({}, {}) in, top edge away from you",
            m.id,
            kit::corner_name(layout, m.center_in),
            m.center_in[0],
            m.center_in[1]
        ));
        if let Some(h) = &image_from_table {
            let at = homography::apply(h, Point2::new(m.center_in[0], m.center_in[1]));
            text.push_str(&where_in_picture(at, size));
        }
    }
    StepStatus { done: false, text }
}

/// Where a predicted marker centre lies relative to the picture.
fn where_in_picture(at: Point2<f64>, size: [u32; 2]) -> String {
    let (w, h) = (f64::from(size[0]), f64::from(size[1]));
    let mut off = Vec::new();
    if at.x < 0.0 {
        off.push("left");
    }
    if at.x > w {
        off.push("right");
    }
    if at.y < 0.0 {
        off.push("top");
    }
    if at.y > h {
        off.push("bottom");
    }
    if off.is_empty() {
        format!(
            " (it should show near pixel {:.0},{:.0}: is it covered, in shadow or the wrong way round?)",
            at.x, at.y
        )
    } else {
        format!(
            " (off the {} of the picture: move the camera back or turn it)",
            off.join(" and ")
        )
    }
}

/// Step 4 on one frame: the table mapping and its residual.
pub fn table_status(perception: &Perception) -> StepStatus {
    match &perception.lock.locked {
        Some(m) if m.residual_in <= TABLE_CHECK_MAX_IN => StepStatus {
            done: true,
            text: format!(
                "table locked on markers {:?}, residual {:.3} in ({:.2} px)",
                m.markers_found, m.residual_in, m.residual_px
            ),
        },
        Some(m) => StepStatus {
            done: false,
            text: format!(
                "residual {:.3} in (want at most {TABLE_CHECK_MAX_IN} in): check each marker's centre against the layout and that they lie flat",
                m.residual_in
            ),
        },
        None => StepStatus {
            done: false,
            text: perception
                .lock
                .problem
                .clone()
                .unwrap_or_else(|| "the table is not locked yet".into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::MarkerObservation;

    #[test]
    fn missing_markers_are_named_and_placed() {
        let layout = TableLayout::standard(48.0, 48.0);
        // An image 30 px per inch, y down, the table's near edge at the
        // bottom of a 1000 x 1000 picture: the far markers are off the top.
        let image_from_table = |p: Point2<f64>| Point2::new(30.0 * p.x, 1000.0 - 30.0 * p.y);
        let perception = Perception {
            markers: layout.markers[..2]
                .iter()
                .map(|m| MarkerObservation {
                    id: m.id,
                    corners_px: m.corners_in_table().map(image_from_table),
                })
                .collect(),
            ..Perception::default()
        };
        let s = marker_status(&perception, &layout, [1000, 1000]);
        assert!(!s.done);
        assert!(s.text.starts_with("seen: [0, 1]"), "{}", s.text);
        assert!(
            s.text
                .contains("marker 2 goes at the far right corner, centre (46, 46) in"),
            "{}",
            s.text
        );
        assert!(s.text.contains("top of the picture"), "{}", s.text);
        let all = Perception {
            markers: layout
                .markers
                .iter()
                .map(|m| MarkerObservation {
                    id: m.id,
                    corners_px: m.corners_in_table().map(image_from_table),
                })
                .collect(),
            ..Perception::default()
        };
        assert!(marker_status(&all, &layout, [1000, 1000]).done);
    }

    #[test]
    fn the_walk_through_starts_only_without_a_camera_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("camera.toml");
        assert!(FirstRun::with_camera_file(&file).missing);
        std::fs::write(&file, "").unwrap();
        assert!(!FirstRun::with_camera_file(&file).missing);
        let r = FirstRun::with_camera_file(&dir.path().join("nope.toml"));
        assert!(!r.print_status().done);
    }
}
