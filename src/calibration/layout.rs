//! The table layout file (`calibration/table.toml`): table size and where
//! each ArUco corner marker lies.
//!
//! # Conventions
//! Table frame of `TABLE_KIT.md`: inches, +x toward marker 1, +y toward
//! marker 3. A marker with `rotation_deg = 0` has its printed top edge toward
//! +y, so its OpenCV corners 0..3 (top-left, top-right, bottom-right,
//! bottom-left) are at (cx-s/2, cy+s/2), (cx+s/2, cy+s/2), (cx+s/2, cy-s/2),
//! (cx-s/2, cy-s/2); a rotation turns them counter-clockwise about the centre.

use std::path::Path;

use nalgebra::{Point2, Rotation2, Vector2};
use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::spec::{SourceFile, SpecError, SpecProblem};

/// Smallest marker that prints and detects reliably, inches.
const MIN_MARKER_SIZE_IN: f64 = 0.5;
/// ArUco `DICT_4X4_50` holds ids 0..50.
const DICT_4X4_50_SIZE: u32 = 50;
/// Largest table side a layout may give, inches (a club table is 72 x 144).
const MAX_TABLE_SIDE_IN: f64 = 10_000.0;
/// Largest marker rotation a layout may give, degrees either way.
const MAX_ROTATION_DEG: f64 = 360.0;
/// Markers whose centres span less area than this share of the table's (in
/// the triangle of any three of them) lie nearly on one line, and fix the
/// table frame badly.
const MIN_SPREAD_SHARE: f64 = 0.05;

/// One table marker, checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableMarker {
    pub id: u32,
    pub center_in: [f64; 2],
    pub size_in: f64,
    pub rotation_deg: f64,
}

impl TableMarker {
    /// The four corners in OpenCV order (TL, TR, BR, BL of the printed
    /// marker), in table inches.
    pub fn corners_in_table(&self) -> [Point2<f64>; 4] {
        let h = self.size_in / 2.0;
        let center = Point2::new(self.center_in[0], self.center_in[1]);
        let rot = Rotation2::new(self.rotation_deg.to_radians());
        [(-h, h), (h, h), (h, -h), (-h, -h)].map(|(dx, dy)| center + rot * Vector2::new(dx, dy))
    }
}

/// Table size and markers, checked: positive sizes, distinct ids in the
/// dictionary, markers on the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableLayout {
    pub width_in: f64,
    pub depth_in: f64,
    pub markers: Vec<TableMarker>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLayout {
    table: Spanned<RawTable>,
    #[serde(default)]
    marker: Vec<Spanned<RawMarker>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    width_in: Spanned<f64>,
    depth_in: Spanned<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMarker {
    id: Spanned<i64>,
    center_in: Spanned<[f64; 2]>,
    #[serde(default = "default_size")]
    size_in: Spanned<f64>,
    #[serde(default = "default_rotation")]
    rotation_deg: Spanned<f64>,
}

fn default_size() -> Spanned<f64> {
    Spanned::new(0..0, 3.0)
}

fn default_rotation() -> Spanned<f64> {
    Spanned::new(0..0, 0.0)
}

impl TableLayout {
    /// The TABLE_KIT default: markers of 3.0 in centred 2 in from each corner.
    pub fn standard(width_in: f64, depth_in: f64) -> Self {
        let inset_in = 2.0;
        let centers = [
            [inset_in, inset_in],
            [width_in - inset_in, inset_in],
            [width_in - inset_in, depth_in - inset_in],
            [inset_in, depth_in - inset_in],
        ];
        Self {
            width_in,
            depth_in,
            markers: centers
                .iter()
                .zip(0..)
                .map(|(c, id)| TableMarker {
                    id,
                    center_in: *c,
                    size_in: 3.0,
                    rotation_deg: 0.0,
                })
                .collect(),
        }
    }

    /// Loads and checks a layout file.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::read(path)?)
    }

    /// Parses and checks layout text; every problem is reported at once.
    pub fn from_source(src: &SourceFile) -> Result<Self, SpecError> {
        let raw: RawLayout = src.parse_toml()?;
        let mut problems: Vec<SpecProblem> = Vec::new();
        let table = raw.table.get_ref();
        let width_in = *table.width_in.get_ref();
        let depth_in = *table.depth_in.get_ref();
        for (name, value) in [
            ("table.width_in", &table.width_in),
            ("table.depth_in", &table.depth_in),
        ] {
            if !(value.get_ref().is_finite()
                && *value.get_ref() > 0.0
                && *value.get_ref() <= MAX_TABLE_SIDE_IN)
            {
                problems.push(src.problem(
                    Some(value.span()),
                    name,
                    format!("must be a positive number of inches, at most {MAX_TABLE_SIDE_IN}"),
                ));
            }
        }
        if raw.marker.len() < 4 {
            problems.push(src.problem(
                Some(raw.table.span()),
                "marker",
                format!(
                    "{} [[marker]] entries found; the table needs 4 (one per corner, ids 0-3)",
                    raw.marker.len()
                ),
            ));
        }
        let mut markers = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (i, m) in raw.marker.iter().enumerate() {
            let m = m.get_ref();
            let id = *m.id.get_ref();
            if !(0..i64::from(DICT_4X4_50_SIZE)).contains(&id) {
                problems.push(src.problem(
                    Some(m.id.span()),
                    format!("marker[{i}].id"),
                    format!("{id} is not a DICT_4X4_50 id (0 to 49)"),
                ));
            } else if !seen.insert(id) {
                problems.push(src.problem(
                    Some(m.id.span()),
                    format!("marker[{i}].id"),
                    format!("id {id} is used twice; each marker needs its own id"),
                ));
            }
            let size_in = *m.size_in.get_ref();
            if !(size_in.is_finite() && size_in >= MIN_MARKER_SIZE_IN) {
                problems.push(src.problem(
                    Some(m.size_in.span()),
                    format!("marker[{i}].size_in"),
                    format!("{size_in} in is too small; print markers at least {MIN_MARKER_SIZE_IN} in across (3.0 is the kit size)"),
                ));
            }
            let [cx, cy] = *m.center_in.get_ref();
            if !(0.0..=width_in).contains(&cx) || !(0.0..=depth_in).contains(&cy) {
                problems.push(src.problem(
                    Some(m.center_in.span()),
                    format!("marker[{i}].center_in"),
                    format!("({cx}, {cy}) is off the {width_in} x {depth_in} in table"),
                ));
            }
            let rotation_deg = *m.rotation_deg.get_ref();
            if !(rotation_deg.is_finite() && rotation_deg.abs() <= MAX_ROTATION_DEG) {
                problems.push(src.problem(
                    Some(m.rotation_deg.span()),
                    format!("marker[{i}].rotation_deg"),
                    format!("{rotation_deg} is not a turn; give degrees from -{MAX_ROTATION_DEG} to {MAX_ROTATION_DEG}"),
                ));
            }
            markers.push(TableMarker {
                id: u32::try_from(id).unwrap_or(0),
                center_in: [cx, cy],
                size_in,
                rotation_deg,
            });
        }
        if problems.is_empty() {
            check_arrangement(src, &raw, &markers, width_in * depth_in, &mut problems);
        }
        if problems.is_empty() {
            Ok(Self {
                width_in,
                depth_in,
                markers,
            })
        } else {
            Err(src.error(problems))
        }
    }

    /// The file text for this layout, in the TABLE_KIT format.
    pub fn to_toml(&self) -> String {
        let mut out = format!(
            "# Table layout: size and corner markers (see TABLE_KIT.md).\n[table]\nwidth_in = {:?}\ndepth_in = {:?}\n",
            self.width_in, self.depth_in
        );
        for m in &self.markers {
            out.push_str(&format!(
                "\n[[marker]]\nid = {}\ncenter_in = [{:?}, {:?}]\nsize_in = {:?}\nrotation_deg = {:?}\n",
                m.id, m.center_in[0], m.center_in[1], m.size_in, m.rotation_deg
            ));
        }
        out
    }

    pub fn marker(&self, id: u32) -> Option<&TableMarker> {
        self.markers.iter().find(|m| m.id == id)
    }
}

/// Markers that overlap, lie on one line, or whose ids 0, 1 and 3 do not
/// run +x from 0 to 1 and +y from 0 to 3 (swapped ids) give a table frame
/// that is wrong by inches with no other sign: refused here.
fn check_arrangement(
    src: &SourceFile,
    raw: &RawLayout,
    markers: &[TableMarker],
    table_area: f64,
    problems: &mut Vec<SpecProblem>,
) {
    let span = |i: usize| Some(raw.marker[i].get_ref().center_in.span());
    let centre = |m: &TableMarker| Point2::new(m.center_in[0], m.center_in[1]);
    for (i, a) in markers.iter().enumerate() {
        for (j, b) in markers.iter().enumerate().skip(i + 1) {
            // Two squares overlap when their centres are closer than half
            // the sum of their diagonals in the worst rotation.
            let reach = (a.size_in + b.size_in) / std::f64::consts::SQRT_2;
            if (centre(a) - centre(b)).norm() < reach {
                problems.push(src.problem(
                    span(j),
                    format!("marker[{j}].center_in"),
                    format!(
                        "overlaps marker[{i}] (id {}); markers need room of their own",
                        a.id
                    ),
                ));
            }
        }
    }
    let mut widest = 0.0_f64;
    for (i, a) in markers.iter().enumerate() {
        for (j, b) in markers.iter().enumerate().skip(i + 1) {
            for c in markers.iter().skip(j + 1) {
                let (u, v) = (centre(b) - centre(a), centre(c) - centre(a));
                widest = widest.max((u.x * v.y - u.y * v.x).abs() / 2.0);
            }
        }
    }
    if markers.len() >= 3 && widest < MIN_SPREAD_SHARE * table_area {
        problems.push(src.problem(
            Some(raw.table.span()),
            "marker",
            "the markers lie (nearly) on one line: put them at the table's corners",
        ));
    }
    let by_id = |id: u32| markers.iter().position(|m| m.id == id);
    if let (Some(m0), Some(m1), Some(m3)) = (by_id(0), by_id(1), by_id(3)) {
        let (o, x, y) = (
            centre(&markers[m0]),
            centre(&markers[m1]),
            centre(&markers[m3]),
        );
        if x.x <= o.x || y.y <= o.y {
            problems.push(src.problem(
                span(m1),
                "marker.id",
                "ids look swapped: marker 1 must lie toward +x of marker 0 and marker 3 toward +y (TABLE_KIT.md)",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn standard_layout_round_trips() {
        let layout = TableLayout::standard(48.0, 48.0);
        let src = SourceFile::from_text("t.toml", layout.to_toml());
        assert_eq!(TableLayout::from_source(&src).unwrap(), layout);
    }

    #[test]
    fn corners_follow_the_kit_order() {
        let m = TableMarker {
            id: 0,
            center_in: [2.0, 2.0],
            size_in: 3.0,
            rotation_deg: 0.0,
        };
        let c = m.corners_in_table();
        assert_relative_eq!(c[0], Point2::new(0.5, 3.5));
        assert_relative_eq!(c[2], Point2::new(3.5, 0.5));
        let turned = TableMarker {
            rotation_deg: 90.0,
            ..m
        };
        // Counter-clockwise quarter turn: the top-left corner goes to bottom-left.
        assert_relative_eq!(
            turned.corners_in_table()[0],
            Point2::new(0.5, 0.5),
            epsilon = 1e-12
        );
    }

    #[test]
    fn every_problem_is_reported_with_its_line() {
        let text = "[table]\nwidth_in = -4.0\ndepth_in = 48.0\n\n[[marker]]\nid = 0\ncenter_in = [2.0, 2.0]\n\n[[marker]]\nid = 0\ncenter_in = [99.0, 2.0]\nsize_in = 0.1\n";
        let err = TableLayout::from_source(&SourceFile::from_text("t.toml", text)).unwrap_err();
        let fields: Vec<_> = err
            .problems
            .iter()
            .map(|p| (p.field.as_str(), p.line))
            .collect();
        assert!(fields.contains(&("table.width_in", Some(2))), "{fields:?}");
        assert!(fields.contains(&("marker[1].id", Some(10))), "{fields:?}");
        assert!(
            fields.contains(&("marker[1].size_in", Some(12))),
            "{fields:?}"
        );
        assert!(fields.contains(&("marker", Some(1))), "{fields:?}");
    }
}
