//! Step 0 of [`Tracker::update`]: one frame's input made ready for the
//! steps that follow. The clock advances, last frame's "seen" marks and
//! expired inferred hands are cleared, detections with a non-finite centre
//! are dropped, and each remaining detection is marked as under a hand or not.
//!
//! # Conventions
//! As in the parent module: table inches, seconds on the caller's clock,
//! frames counted from 1.

use nalgebra::Point2;

use super::{FrameObservation, OccludedRegion, Tracker, TrackerParams};
use crate::vision::Detection;

/// One frame as the steps of the update see it.
pub(super) struct Frame<'a> {
    pub p: &'a TrackerParams,
    /// 1 for the first frame.
    pub index: u64,
    pub time_s: f64,
    /// Seconds since the previous frame, never negative.
    pub dt_s: f64,
    /// The detections with a finite centre.
    pub dets: Vec<&'a Detection>,
    /// Whether each of `dets` lies under an observed hand.
    pub det_covered: Vec<bool>,
    /// The hands the detector reported (empty when it cannot tell).
    pub observed: &'a [OccludedRegion],
    /// The detector reports hands (`Some`, even empty) rather than `None`.
    pub hands_reported: bool,
}

impl Frame<'_> {
    pub fn first(&self) -> bool {
        self.index == 1
    }

    /// A point under one of the hands the detector reported.
    pub fn covered(&self, pt: Point2<f64>) -> bool {
        covered_by(self.observed, self.p, pt)
    }

    /// A detection's 1-sigma position error, inches, floored by the
    /// parameters (a non-finite one is taken as the floor).
    pub fn det_sigma(&self, d: &Detection) -> f64 {
        if d.position_sigma_in.is_finite() {
            d.position_sigma_in.max(self.p.min_position_sigma_in)
        } else {
            self.p.min_position_sigma_in
        }
    }
}

fn covered_by(observed: &[OccludedRegion], p: &TrackerParams, pt: Point2<f64>) -> bool {
    observed.iter().any(|r| r.covers(pt, p.cover_margin_in))
}

impl Tracker {
    /// Advances the clock and prepares `obs` for the steps of the update.
    pub(super) fn start_frame<'a>(
        &mut self,
        obs: &'a FrameObservation,
        p: &'a TrackerParams,
    ) -> Frame<'a> {
        self.frames += 1;
        let index = self.frames;
        let time_s = if obs.time_s.is_finite() {
            obs.time_s
        } else {
            self.last_time_s.unwrap_or(0.0)
        };
        // A clock that jumps back must not make time negative.
        let dt_s = self.last_time_s.map_or(0.0, |t| (time_s - t).max(0.0));
        self.last_time_s = Some(time_s.max(self.last_time_s.unwrap_or(time_s)));
        for t in &mut self.tracks {
            t.seen_now = false;
        }
        self.inferred.retain(|h| {
            let frames_since = index - h.frame;
            !(frames_since >= u64::from(p.inferred_hand_frames)
                && time_s - h.time_s >= p.inferred_hand_s)
        });

        let observed: &[OccludedRegion] = obs.occluded_regions_in_table.as_deref().unwrap_or(&[]);
        // A detector bug must not poison the tracks.
        let dets: Vec<&Detection> = obs
            .detections
            .iter()
            .filter(|d| d.center_in_table.x.is_finite() && d.center_in_table.y.is_finite())
            .collect();
        let det_covered = dets
            .iter()
            .map(|d| covered_by(observed, p, d.center_in_table))
            .collect();
        Frame {
            p,
            index,
            time_s,
            dt_s,
            dets,
            det_covered,
            observed,
            hands_reported: obs.occluded_regions_in_table.is_some(),
        }
    }
}
