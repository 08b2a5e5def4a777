//! The figure detector: frame + table mapping + parameters -> figures.
//!
//! # Conventions
//! Table frame of `TABLE_KIT.md` (inches, x right and y up seen from above,
//! angles degrees counter-clockwise from +x in [0, 360)). Reported positions
//! are footprint centres on the table plane z = 0. Timings are wall-clock
//! milliseconds.
//!
//! The pipeline: the table is resampled top-down on the plane of the base
//! tops (so the band is seen without parallax and at a fixed scale), white
//! balanced on the markers' paper, labelled by band colour, and each
//! connected patch of a band colour is fitted with round and rectangular
//! bases; centres come from the band's outer edge, facings from the black
//! front mark.

use std::time::Instant;

use image::RgbImage;
use nalgebra::Point2;

use super::confidence::Evidence;
use super::fit::{FootFit, RectFit, Surface, colour_of};
use super::hands::HandFinder;
use super::params::DetectorParams;
use super::rectify::{CameraPose, TopView, WhiteReference};
use super::segment::{self, Component};
use super::track::OccludedRegion;
use super::{BaseKind, Detection, VisionError};
use crate::calibration::{TableLayout, TableMapping};

/// Position uncertainty floor, inches: the table mapping itself is not
/// better than this.
const MIN_POSITION_SIGMA_IN: f64 = 0.005;

/// Milliseconds spent in each stage of one frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct StageTimings {
    /// Finding the table markers (filled by callers that detect them).
    pub markers: f64,
    /// Camera pose, white reference and the top-view resampling.
    pub undistort_rectify: f64,
    /// Band-colour labels and connected components.
    pub segmentation: f64,
    /// Candidates and edge fits of bases.
    pub fitting: f64,
    /// Foot or mounted, edge colour, facing, duplicates.
    pub classification: f64,
    pub total: f64,
}

/// What the detector found in one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameDetections {
    pub detections: Vec<Detection>,
    pub timings: StageTimings,
    /// The paper colour used as white, when markers were found.
    pub white: Option<WhiteReference>,
    /// Where hands or arms hide the table (see [`super::hands`]); figures
    /// there are not reported.
    pub occluded_regions_in_table: Vec<OccludedRegion>,
}

/// The figure detector. Cheap to create; holds the parameters and layout,
/// and the hand finder's memory of the terrain (feed it one table's frames).
#[derive(Debug, Clone)]
pub struct Detector {
    params: DetectorParams,
    layout: TableLayout,
    hands: HandFinder,
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// One base hypothesis before classification.
enum Fitted {
    Foot(FootFit),
    Mounted(RectFit),
}

impl Fitted {
    fn center(&self) -> Point2<f64> {
        match self {
            Self::Foot(f) => f.center,
            Self::Mounted(r) => r.center,
        }
    }
    fn score(&self) -> f64 {
        match self {
            Self::Foot(f) => f.ring_score,
            Self::Mounted(r) => r.rect_score,
        }
    }
    fn evidence(&self) -> &Evidence {
        match self {
            Self::Foot(f) => &f.evidence,
            Self::Mounted(r) => &r.evidence,
        }
    }
}

impl Detector {
    pub fn new(params: DetectorParams, layout: TableLayout) -> Self {
        Self {
            params,
            layout,
            hands: HandFinder::default(),
        }
    }

    /// The same detector with another hand finder (its own parameters).
    pub fn with_hands(self, hands: HandFinder) -> Self {
        Self { hands, ..self }
    }

    pub fn params(&self) -> &DetectorParams {
        &self.params
    }

    pub fn layout(&self) -> &TableLayout {
        &self.layout
    }

    /// Finds the figures in a frame seen through `mapping`.
    pub fn detect(
        &self,
        frame: &RgbImage,
        mapping: &TableMapping,
    ) -> Result<FrameDetections, VisionError> {
        Ok(self.detect_with_evidence(frame, mapping)?.0)
    }

    /// As [`Detector::detect`], with what was measured about each figure
    /// (the same order as the detections): the inputs of its confidence.
    pub fn detect_with_evidence(
        &self,
        frame: &RgbImage,
        mapping: &TableMapping,
    ) -> Result<(FrameDetections, Vec<Evidence>), VisionError> {
        let p = &self.params;
        let t0 = Instant::now();
        if let Some(lens) = &mapping.lens
            && lens.image_size != [frame.width(), frame.height()]
        {
            return Err(VisionError::ImageSize {
                got_w: frame.width(),
                got_h: frame.height(),
                want_w: lens.image_size[0],
                want_h: lens.image_size[1],
            });
        }
        let pose = CameraPose::from_mapping(mapping, [frame.width(), frame.height()])?;
        let view = TopView::new(&self.layout, p.rectify.px_per_in, p.kit.base_height_in);
        let top = view.render(frame, &pose, mapping.lens.as_ref(), p.rectify.map_grid_px)?;
        let white = WhiteReference::from_markers(
            frame,
            mapping,
            &self.layout,
            p.white.margin_inner_in,
            p.white.margin_outer_in,
        );
        let paper_level = p.white.paper_level as f32;
        // Without a white reference, leave the colours as the camera saw them.
        let gains = white.map_or([1.0; 3], |w| w.gains(paper_level));
        let undistort_rectify = ms_since(t0);

        let t1 = Instant::now();
        let cell_px = (p.colour.table_cell_in * p.rectify.px_per_in)
            .round()
            .max(1.0) as usize;
        let mut seg = segment::segment(&top, gains, paper_level, cell_px, &p.colour);
        self.clear_markers(&mut seg, &view);
        let radius = p.kit.foot_diameter_in / 2.0;
        let inner = radius - p.kit.band_width_in;
        let ring_px =
            std::f64::consts::PI * (radius * radius - inner * inner) * p.rectify.px_per_in.powi(2);
        let min_count = (p.candidates.min_component_share * ring_px).ceil() as usize;
        // A faint band may break into arcs each short of a component; such
        // pieces (a quarter of a component and up) are taken together.
        let (mut comps, pieces): (Vec<_>, Vec<_>) =
            segment::components(&seg, (min_count / 4).max(1))
                .into_iter()
                .partition(|c| c.count >= min_count);
        let px = p.rectify.px_per_in;
        comps.extend(segment::join_pieces(
            &pieces,
            (p.candidates.piece_gap_in * px).round() as usize,
            ((p.kit.foot_diameter_in + p.kit.band_width_in) * px).ceil() as usize,
            min_count,
        ));
        let segmentation = ms_since(t1);

        let t2 = Instant::now();
        let surface = Surface {
            top: &top,
            gains,
            seg: &seg,
            view: &view,
            pose: &pose,
            params: p,
        };
        let mut fitted: Vec<Fitted> = Vec::new();
        for comp in &comps {
            fitted.extend(self.fit_component(&surface, comp));
        }
        let fitting = ms_since(t2);

        let t3 = Instant::now();
        let found = self.classify(&surface, fitted);
        // No phantom figures on an arm, and no figure under a hand reported
        // from the part of its band that shows.
        let centres: Vec<Point2<f64>> = found.iter().map(|d| d.0.center_in_table).collect();
        let hands = self.hands.find(&top, &view, gains, &self.layout, &centres);
        let margin_in = self.hands.params().suppress_margin_in;
        let (detections, evidence): (Vec<Detection>, Vec<Evidence>) = found
            .into_iter()
            .filter(|(d, _)| !hands.iter().any(|r| r.covers(d.center_in_table, margin_in)))
            .unzip();
        let classification = ms_since(t3);
        Ok((
            FrameDetections {
                detections,
                timings: StageTimings {
                    markers: 0.0,
                    undistort_rectify,
                    segmentation,
                    fitting,
                    classification,
                    total: ms_since(t0),
                },
                white,
                occluded_regions_in_table: hands,
            },
            evidence,
        ))
    }

    /// Clears the labels over every layout marker and its paper.
    fn clear_markers(&self, seg: &mut segment::Segmentation, view: &TopView) {
        let reach = self.params.white.margin_outer_in + self.params.white.marker_keep_out_in;
        for m in &self.layout.markers {
            let half = m.size_in / 2.0 + reach;
            let c = Point2::new(m.center_in[0], m.center_in[1]);
            let rot = nalgebra::Rotation2::new(-m.rotation_deg.to_radians());
            let corners = m
                .corners_in_table()
                .map(|k| view.view_from_table(c + (k - c) * (half / (m.size_in / 2.0))));
            let lo_i = corners
                .iter()
                .map(|p| p.x)
                .fold(f64::MAX, f64::min)
                .floor()
                .max(0.0);
            let lo_j = corners
                .iter()
                .map(|p| p.y)
                .fold(f64::MAX, f64::min)
                .floor()
                .max(0.0);
            let hi_i = corners
                .iter()
                .map(|p| p.x)
                .fold(f64::MIN, f64::max)
                .ceil()
                .max(0.0);
            let hi_j = corners
                .iter()
                .map(|p| p.y)
                .fold(f64::MIN, f64::max)
                .ceil()
                .max(0.0);
            // Non-negative by the max above.
            let bbox = [lo_i as usize, lo_j as usize, hi_i as usize, hi_j as usize];
            segment::clear_where(seg, bbox, |i, j| {
                let t = view.table_from_view(Point2::new(i as f64, j as f64));
                let local = rot * (t - c);
                local.x.abs() <= half && local.y.abs() <= half
            });
        }
    }

    /// Round and rectangular hypotheses for one component; a rectangle that
    /// explains the band better than rings replaces the rings inside it.
    fn fit_component(&self, surface: &Surface<'_>, comp: &Component) -> Vec<Fitted> {
        let feet: Vec<FootFit> = surface
            .foot_candidates(comp)
            .into_iter()
            .filter_map(|cand| surface.fit_foot(&cand, comp.label))
            .collect();
        let rects: Vec<RectFit> = surface
            .rect_candidates(comp)
            .into_iter()
            .filter_map(|(c, axis, score)| surface.fit_rect(c, axis, comp.label, score))
            .collect();
        let reach = self.params.kit.mounted_length_in / 2.0;
        // A rectangle stands when it explains the band better than every
        // ring inside it: more of its band line is in the band colour, or
        // more of its outer edge is found and fits closer (two rings cut
        // from one rectangle fit its straight sides badly); those rings
        // then go.
        let rects: Vec<RectFit> = rects
            .into_iter()
            .filter(|r| {
                feet.iter()
                    .filter(|f| (f.center - r.center).norm() <= reach)
                    .all(|f| {
                        r.rect_score > f.ring_score
                            || (r.edge_share > f.edge_share && r.rms_in < f.rms_in)
                    })
            })
            .collect();
        let mut out: Vec<Fitted> = feet
            .into_iter()
            .filter(|f| rects.iter().all(|r| (f.center - r.center).norm() > reach))
            .map(Fitted::Foot)
            .collect();
        out.extend(rects.into_iter().map(Fitted::Mounted));
        out
    }

    /// Drops duplicates (two hypotheses closer than a base) and turns fits
    /// into detections, each with its confidence from its evidence; those
    /// below `confidence.min_report` go.
    fn classify(
        &self,
        surface: &Surface<'_>,
        mut fitted: Vec<Fitted>,
    ) -> Vec<(Detection, Evidence)> {
        let _ = surface;
        fitted.sort_by(|a, b| b.score().total_cmp(&a.score()));
        let min_sep = self.params.kit.foot_diameter_in * 0.75;
        let mut kept: Vec<Fitted> = Vec::new();
        for f in fitted {
            if kept
                .iter()
                .all(|k| (k.center() - f.center()).norm() >= min_sep)
            {
                kept.push(f);
            }
        }
        let min_confidence = self.params.fit.min_confidence;
        let model = &self.params.confidence;
        kept.into_iter()
            .filter(|f| f.score() >= min_confidence)
            .map(|f| {
                let p = model.probability(f.evidence());
                (f, p)
            })
            .filter(|(_, p)| *p >= model.min_report)
            .filter_map(|(f, confidence)| {
                let (center, facing_deg, label, base, _score, points, rms) = match &f {
                    Fitted::Foot(x) => (
                        x.center,
                        x.facing_deg,
                        x.label,
                        BaseKind::Foot,
                        x.ring_score,
                        x.edge_points,
                        x.rms_in,
                    ),
                    Fitted::Mounted(x) => (
                        x.center,
                        x.facing_deg,
                        x.label,
                        BaseKind::Mounted,
                        x.rect_score,
                        x.edge_points,
                        x.rms_in,
                    ),
                };
                Some((
                    Detection {
                        center_in_table: center,
                        facing_deg,
                        edge: colour_of(label)?,
                        base,
                        confidence,
                        position_sigma_in: (rms / (points.max(1) as f64).sqrt())
                            .max(MIN_POSITION_SIGMA_IN),
                    },
                    *f.evidence(),
                ))
            })
            .collect()
    }
}
