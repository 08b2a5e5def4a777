//! Scoring detections against fixture truth files (`*.truth.json`, format
//! in `TABLE_KIT.md`): matching, recall, precision and the error figures of
//! the vision issue.
//!
//! # Conventions
//! Table frame and units of `TABLE_KIT.md` (inches, degrees counter-clockwise
//! from +x). Errors are absolute: inches for positions, degrees (0..180) for
//! facings.

use std::path::Path;

use nalgebra::{Matrix3, Point2, Rotation3, Vector3};
use serde::Deserialize;

use super::{BaseKind, Detection, EdgeColour, VisionError};
use crate::calibration::{Lens, MarkerObservation, TableLayout, TableMapping, TableMarker};

/// A detection further than this from every truth figure matches none,
/// inches (half a foot base: two figures are never closer).
pub const MATCH_GATE_IN: f64 = 0.5;

#[derive(Debug, Clone, Deserialize)]
struct RawCamera {
    #[serde(rename = "K")]
    k: [[f64; 3]; 3],
    dist: Vec<f64>,
    image_size: [u32; 2],
}

#[derive(Debug, Clone, Deserialize)]
struct RawTable {
    width_in: f64,
    depth_in: f64,
}

#[derive(Debug, Clone, Deserialize)]
struct RawPose {
    rvec: [f64; 3],
    tvec_in: [f64; 3],
}

#[derive(Debug, Clone, Deserialize)]
struct RawRender {
    camera_pose: Option<RawPose>,
}

/// One figure of a truth file.
#[derive(Debug, Clone, Deserialize)]
pub struct TruthFigure {
    #[serde(default)]
    pub id: u32,
    pub x_in: f64,
    pub y_in: f64,
    pub facing_deg: f64,
    pub edge: EdgeColour,
    pub base: BaseKind,
    #[serde(default)]
    pub occluded: bool,
    #[serde(default)]
    pub band_visible_fraction: Option<f64>,
    #[serde(default)]
    pub front_visible_fraction: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
struct RawTruth {
    camera: RawCamera,
    table: Option<RawTable>,
    #[serde(default)]
    markers: Vec<TableMarker>,
    #[serde(default)]
    figures: Vec<TruthFigure>,
    render: Option<RawRender>,
}

/// A fixture truth file, checked.
#[derive(Debug, Clone)]
pub struct Truth {
    pub lens: Lens,
    pub layout: TableLayout,
    pub figures: Vec<TruthFigure>,
    camera_from_table: Option<(Matrix3<f64>, Vector3<f64>)>,
}

impl Truth {
    pub fn load(path: &Path) -> Result<Self, VisionError> {
        let err = |reason: String| VisionError::Truth {
            path: path.display().to_string(),
            reason,
        };
        let text = crate::spec::read_text_capped(path, crate::spec::MAX_DATA_FILE_BYTES)
            .map_err(|e| err(e.to_string()))?;
        let raw: RawTruth = serde_json::from_str(&text).map_err(|e| err(e.to_string()))?;
        let table = raw
            .table
            .ok_or_else(|| err("no `table` (a ChArUco view?)".into()))?;
        let mut dist = [0.0; 5];
        for (d, v) in dist.iter_mut().zip(&raw.camera.dist) {
            *d = *v;
        }
        let k = raw.camera.k;
        let lens = Lens {
            k: Matrix3::new(
                k[0][0], k[0][1], k[0][2], k[1][0], k[1][1], k[1][2], k[2][0], k[2][1], k[2][2],
            ),
            dist,
            rational: [0.0; 3],
            image_size: raw.camera.image_size,
            rms_px: 0.0,
        };
        let camera_from_table = raw.render.and_then(|r| r.camera_pose).map(|p| {
            let r = Rotation3::from_scaled_axis(Vector3::from(p.rvec)).into_inner();
            (r, Vector3::from(p.tvec_in))
        });
        Ok(Self {
            lens,
            layout: TableLayout {
                width_in: table.width_in,
                depth_in: table.depth_in,
                markers: raw.markers,
            },
            figures: raw.figures,
            camera_from_table,
        })
    }

    /// Where the true camera shows a table point (z = 0), distorted pixels.
    pub fn pixel_from_table(&self, p: Point2<f64>) -> Option<Point2<f64>> {
        let (r, t) = self.camera_from_table.as_ref()?;
        let c = r * Vector3::new(p.x, p.y, 0.0) + t;
        let ideal = self.lens.k * (c / c.z);
        Some(self.lens.pixel_from_ideal(Point2::new(ideal.x, ideal.y)))
    }

    /// The table mapping fitted on the true marker corners (a stand-in for
    /// marker detection when testing the figure detector alone).
    pub fn mapping(&self) -> Option<TableMapping> {
        let obs: Option<Vec<MarkerObservation>> = self
            .layout
            .markers
            .iter()
            .map(|m| {
                let c = m.corners_in_table();
                Some(MarkerObservation {
                    id: m.id,
                    corners_px: [
                        self.pixel_from_table(c[0])?,
                        self.pixel_from_table(c[1])?,
                        self.pixel_from_table(c[2])?,
                        self.pixel_from_table(c[3])?,
                    ],
                })
            })
            .collect();
        TableMapping::fit(&obs?, &self.layout, Some(&self.lens)).ok()
    }
}

/// Smallest angle between two facings, degrees in [0, 180].
pub fn angle_error_deg(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(360.0);
    d.min(360.0 - d)
}

/// One truth figure and what was found for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Matched {
    pub truth_index: usize,
    pub detection_index: usize,
    pub position_error_in: f64,
    /// `None` when no facing was reported.
    pub facing_error_deg: Option<f64>,
    pub edge_right: bool,
    pub base_right: bool,
}

/// The comparison of one frame's detections with its truth.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameScore {
    pub matched: Vec<Matched>,
    /// Truth figures not occluded and not found.
    pub missed: Vec<usize>,
    /// Detections that match no truth figure.
    pub false_positives: Vec<usize>,
    /// Truth figures not occluded.
    pub visible: usize,
}

/// Matches detections to truth figures, closest pairs first, within
/// [`MATCH_GATE_IN`]. Occluded truth figures may be matched (a detection of
/// one is not false) but are not required.
pub fn score_frame(truth: &[TruthFigure], detections: &[Detection]) -> FrameScore {
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (ti, t) in truth.iter().enumerate() {
        for (di, d) in detections.iter().enumerate() {
            let e = (d.center_in_table - Point2::new(t.x_in, t.y_in)).norm();
            if e <= MATCH_GATE_IN {
                pairs.push((e, ti, di));
            }
        }
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut t_used = vec![false; truth.len()];
    let mut d_used = vec![false; detections.len()];
    let mut score = FrameScore::default();
    for (e, ti, di) in pairs {
        if t_used[ti] || d_used[di] {
            continue;
        }
        t_used[ti] = true;
        d_used[di] = true;
        let t = &truth[ti];
        let d = &detections[di];
        score.matched.push(Matched {
            truth_index: ti,
            detection_index: di,
            position_error_in: e,
            facing_error_deg: d.facing_deg.map(|f| angle_error_deg(f, t.facing_deg)),
            edge_right: d.edge == t.edge,
            base_right: d.base == t.base,
        });
    }
    score.visible = truth.iter().filter(|t| !t.occluded).count();
    score.missed = (0..truth.len())
        .filter(|&i| !t_used[i] && !truth[i].occluded)
        .collect();
    score.false_positives = (0..detections.len()).filter(|&i| !d_used[i]).collect();
    score
}

/// The figures over many frames.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub visible: usize,
    pub found_visible: usize,
    pub reported: usize,
    pub true_reports: usize,
    pub matched: usize,
    pub edge_right: usize,
    pub base_right: usize,
    pub position_errors_in: Vec<f64>,
    pub facing_errors_deg: Vec<f64>,
}

/// Quantile by nearest rank of sorted-on-demand values; 0 when empty.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    // Rank in range: q in [0, 1].
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

impl Summary {
    pub fn add(&mut self, truth: &[TruthFigure], detections: &[Detection], score: &FrameScore) {
        self.visible += score.visible;
        self.found_visible += score
            .matched
            .iter()
            .filter(|m| !truth[m.truth_index].occluded)
            .count();
        self.reported += detections.len();
        self.true_reports += score.matched.len();
        for m in &score.matched {
            if truth[m.truth_index].occluded {
                continue;
            }
            self.matched += 1;
            self.edge_right += usize::from(m.edge_right);
            self.base_right += usize::from(m.base_right);
            self.position_errors_in.push(m.position_error_in);
            if let Some(f) = m.facing_error_deg {
                self.facing_errors_deg.push(f);
            }
        }
    }

    fn ratio(a: usize, b: usize) -> f64 {
        if b == 0 { 1.0 } else { a as f64 / b as f64 }
    }
    pub fn recall(&self) -> f64 {
        Self::ratio(self.found_visible, self.visible)
    }
    pub fn precision(&self) -> f64 {
        Self::ratio(self.true_reports, self.reported)
    }
    pub fn edge_accuracy(&self) -> f64 {
        Self::ratio(self.edge_right, self.matched)
    }
    pub fn base_accuracy(&self) -> f64 {
        Self::ratio(self.base_right, self.matched)
    }
    pub fn facing_given(&self) -> f64 {
        Self::ratio(self.facing_errors_deg.len(), self.matched)
    }

    /// A one-paragraph report of every figure of the issue.
    pub fn report(&self) -> String {
        format!(
            "recall {:.4} ({}/{}), precision {:.4} ({}/{}), edge right {:.4}, base right {:.4}, \
             position error median {:.4} in p95 {:.4} in, facing given {:.4}, facing error median {:.2} deg p95 {:.2} deg",
            self.recall(),
            self.found_visible,
            self.visible,
            self.precision(),
            self.true_reports,
            self.reported,
            self.edge_accuracy(),
            self.base_accuracy(),
            quantile(&self.position_errors_in, 0.5),
            quantile(&self.position_errors_in, 0.95),
            self.facing_given(),
            quantile(&self.facing_errors_deg, 0.5),
            quantile(&self.facing_errors_deg, 0.95),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn fig(x: f64, y: f64, occluded: bool) -> TruthFigure {
        TruthFigure {
            id: 0,
            x_in: x,
            y_in: y,
            facing_deg: 350.0,
            edge: EdgeColour::Red,
            base: BaseKind::Foot,
            occluded,
            band_visible_fraction: None,
            front_visible_fraction: None,
        }
    }

    fn det(x: f64, y: f64, facing: Option<f64>) -> Detection {
        Detection {
            center_in_table: Point2::new(x, y),
            facing_deg: facing,
            edge: EdgeColour::Red,
            base: BaseKind::Foot,
            confidence: 1.0,
            position_sigma_in: 0.01,
            appearance: None,
            side: Default::default(),
        }
    }

    #[test]
    fn angles_wrap() {
        assert_relative_eq!(angle_error_deg(350.0, 10.0), 20.0);
        assert_relative_eq!(angle_error_deg(10.0, 190.0), 180.0);
    }

    #[test]
    fn matching_counts_misses_and_false_reports() {
        let truth = vec![
            fig(1.0, 1.0, false),
            fig(5.0, 5.0, false),
            fig(9.0, 9.0, true),
        ];
        let dets = vec![
            det(1.05, 1.0, Some(5.0)),
            det(20.0, 20.0, None),
            det(9.0, 9.1, None),
        ];
        let s = score_frame(&truth, &dets);
        assert_eq!(s.missed, vec![1]);
        assert_eq!(s.false_positives, vec![1]);
        assert_eq!(s.matched.len(), 2);
        let mut sum = Summary::default();
        sum.add(&truth, &dets, &s);
        assert_relative_eq!(sum.recall(), 0.5);
        assert_relative_eq!(sum.precision(), 2.0 / 3.0);
        assert_relative_eq!(sum.facing_errors_deg[0], 15.0, epsilon = 1e-9);
        assert_relative_eq!(sum.position_errors_in[0], 0.05, epsilon = 1e-9);
    }

    #[test]
    fn quantile_by_rank() {
        assert_relative_eq!(quantile(&[3.0, 1.0, 2.0, 4.0], 0.5), 2.0);
        assert_relative_eq!(quantile(&[3.0, 1.0, 2.0, 4.0], 0.95), 4.0);
    }
}
