//! The `spotter.detections/1` record of `TABLE_KIT.md`: one JSON object per
//! image.
//!
//! # Conventions
//! Table frame and units of `TABLE_KIT.md`: inches, degrees counter-clockwise
//! from +x in [0, 360); `facing_deg` is null when the front mark is not
//! seen. Timings in milliseconds.

use serde::Serialize;

use super::Detection;
use super::detect::StageTimings;
use super::terrain::SeenTerrain;

/// The kind of every seen terrain piece in the record.
pub const UNCLASSIFIED: &str = "unclassified";

pub const SCHEMA: &str = "spotter.detections/1";

/// Decimal places kept for inches and degrees (a thousandth of an inch is
/// far below what a webcam resolves).
const ROUND_IN: f64 = 1e4;
const ROUND_DEG: f64 = 100.0;

fn round(v: f64, scale: f64) -> f64 {
    (v * scale).round() / scale
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableSize {
    pub width_in: f64,
    pub depth_in: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FigureRecord {
    pub x_in: f64,
    pub y_in: f64,
    pub facing_deg: Option<f64>,
    pub edge: &'static str,
    pub base: &'static str,
    pub confidence: f64,
    /// Added field: 1-sigma position uncertainty, inches.
    pub position_sigma_in: f64,
    /// Added field: the base's look for identity (left out when not measured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub appearance: Option<crate::vision::appearance::Appearance>,
}

impl From<&Detection> for FigureRecord {
    fn from(d: &Detection) -> Self {
        Self {
            x_in: round(d.center_in_table.x, ROUND_IN),
            y_in: round(d.center_in_table.y, ROUND_IN),
            facing_deg: d.facing_deg.map(|f| round(f, ROUND_DEG).rem_euclid(360.0)),
            edge: d.edge.name(),
            base: d.base.name(),
            confidence: round(d.confidence, ROUND_DEG),
            position_sigma_in: round(d.position_sigma_in, ROUND_IN),
            appearance: d.appearance,
        }
    }
}

/// Per-stage timings of the record (`total` is the required one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimingsRecord {
    pub total: f64,
    pub markers: f64,
    pub undistort_rectify: f64,
    pub segmentation: f64,
    pub fitting: f64,
    pub classification: f64,
}

impl From<&StageTimings> for TimingsRecord {
    fn from(t: &StageTimings) -> Self {
        let r = |v: f64| round(v, ROUND_DEG);
        Self {
            total: r(t.total),
            markers: r(t.markers),
            undistort_rectify: r(t.undistort_rectify),
            segmentation: r(t.segmentation),
            fitting: r(t.fitting),
            classification: r(t.classification),
        }
    }
}

/// One image's record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DetectionsRecord {
    pub schema: &'static str,
    pub image: String,
    pub image_size: [u32; 2],
    pub table: TableSize,
    pub markers_found: Vec<u32>,
    pub reprojection_rms_px: Option<f64>,
    pub figures: Vec<FigureRecord>,
    pub timings_ms: TimingsRecord,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Added to the schema: where a hand or arm hides the table (figures
    /// under it are not reported). Left out when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub occluded_regions: Vec<crate::vision::track::OccludedRegion>,
    /// Added to the schema: the terrain pieces seen on the table (always
    /// present; empty when none is seen or the table was not mapped).
    pub terrain: Vec<TerrainRecord>,
}

/// One terrain piece seen on the table (added to the schema).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TerrainRecord {
    /// Outline, table inches, counter-clockwise seen from above, clipped to
    /// the table.
    pub outline_in: Vec<[f64; 2]>,
    /// Area of the outline, square inches.
    pub area_in2: f64,
    /// Mean colour seen (white balanced, sRGB).
    pub mean_rgb: [u8; 3],
    /// Always `unclassified`: what a piece is in the rules is the player's
    /// word, not the camera's.
    pub kind: &'static str,
}

impl From<&SeenTerrain> for TerrainRecord {
    fn from(t: &SeenTerrain) -> Self {
        Self {
            outline_in: t
                .outline_in
                .iter()
                .map(|p| [round(p.x, ROUND_IN), round(p.y, ROUND_IN)])
                .collect(),
            area_in2: round(t.area_in2, ROUND_DEG),
            mean_rgb: t.mean_rgb,
            kind: UNCLASSIFIED,
        }
    }
}

impl DetectionsRecord {
    /// The record of an image in which figures were looked for.
    pub fn found(
        image: String,
        image_size: [u32; 2],
        table: TableSize,
        markers_found: Vec<u32>,
        reprojection_rms_px: f64,
        detections: &[Detection],
        timings: &StageTimings,
    ) -> Self {
        Self {
            schema: SCHEMA,
            image,
            image_size,
            table,
            markers_found,
            reprojection_rms_px: Some(round(reprojection_rms_px, ROUND_DEG)),
            figures: detections.iter().map(FigureRecord::from).collect(),
            timings_ms: TimingsRecord::from(timings),
            error: None,
            occluded_regions: Vec::new(),
            terrain: Vec::new(),
        }
    }

    /// The same record with the terrain pieces seen.
    pub fn with_terrain(mut self, terrain: &[SeenTerrain]) -> Self {
        self.terrain = terrain.iter().map(TerrainRecord::from).collect();
        self
    }

    /// The same record with the regions a hand hides.
    pub fn with_occluded(mut self, regions: &[crate::vision::track::OccludedRegion]) -> Self {
        self.occluded_regions = regions.to_vec();
        self
    }

    /// The record of an image in which the table could not be mapped.
    pub fn failed(
        image: String,
        image_size: [u32; 2],
        table: TableSize,
        markers_found: Vec<u32>,
        error: String,
        timings: &StageTimings,
    ) -> Self {
        Self {
            schema: SCHEMA,
            image,
            image_size,
            table,
            markers_found,
            reprojection_rms_px: None,
            figures: Vec::new(),
            timings_ms: TimingsRecord::from(timings),
            error: Some(error),
            occluded_regions: Vec::new(),
            terrain: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::{BaseKind, EdgeColour};
    use nalgebra::Point2;

    #[test]
    fn record_has_the_schema_fields() {
        let d = Detection {
            center_in_table: Point2::new(12.31234, 4.5),
            facing_deg: None,
            edge: EdgeColour::Green,
            base: BaseKind::Foot,
            confidence: 0.97,
            position_sigma_in: 0.01,
            appearance: None,
            side: Default::default(),
        };
        let rec = DetectionsRecord::found(
            "frame-03.jpg".into(),
            [1920, 1080],
            TableSize {
                width_in: 48.0,
                depth_in: 48.0,
            },
            vec![0, 1, 2, 3],
            0.41,
            &[d],
            &StageTimings::default(),
        );
        let v: serde_json::Value = serde_json::to_value(&rec).unwrap();
        assert_eq!(v["schema"], "spotter.detections/1");
        assert_eq!(v["figures"][0]["edge"], "green");
        assert_eq!(v["figures"][0]["base"], "foot");
        assert!(v["figures"][0]["facing_deg"].is_null());
        assert_eq!(v["figures"][0]["x_in"], 12.3123);
        assert!(v["timings_ms"]["total"].is_number());
        assert!(v.get("error").is_none());
        assert!(v.get("occluded_regions").is_none(), "no hand: no field");
        assert_eq!(v["terrain"], serde_json::json!([]));
        let piece = SeenTerrain {
            outline_in: vec![
                Point2::new(1.0, 1.0),
                Point2::new(4.0, 1.0),
                Point2::new(4.0, 3.123_456),
            ],
            area_in2: 3.1852,
            mean_rgb: [40, 60, 30],
        };
        let t = serde_json::to_value(rec.clone().with_terrain(&[piece])).unwrap();
        assert_eq!(
            t["terrain"][0]["outline_in"][2],
            serde_json::json!([4.0, 3.1235])
        );
        assert_eq!(t["terrain"][0]["area_in2"], 3.19);
        assert_eq!(t["terrain"][0]["kind"], "unclassified");
        assert_eq!(t["figures"][0]["edge"], "green", "the old fields stay");
        let hand = crate::vision::track::OccludedRegion::Polygon {
            vertices_in_table: vec![
                Point2::new(1.0, 1.0),
                Point2::new(3.0, 1.0),
                Point2::new(2.0, 4.0),
            ],
        };
        let v = serde_json::to_value(rec.with_occluded(&[hand])).unwrap();
        assert_eq!(v["occluded_regions"][0]["shape"], "polygon");
        assert_eq!(
            v["occluded_regions"][0]["vertices_in_table"][2],
            serde_json::json!([2.0, 4.0])
        );
    }

    #[test]
    fn failed_record_has_empty_figures_and_an_error() {
        let rec = DetectionsRecord::failed(
            "x.jpg".into(),
            [640, 480],
            TableSize {
                width_in: 36.0,
                depth_in: 36.0,
            },
            vec![1],
            "too few markers".into(),
            &StageTimings::default(),
        );
        let v: serde_json::Value = serde_json::to_value(&rec).unwrap();
        assert_eq!(v["figures"].as_array().unwrap().len(), 0);
        assert_eq!(v["error"], "too few markers");
    }
}
