//! Step 5 of [`Tracker::update`]: new figures from the detections nobody
//! explains.
//!
//! A detection outside the hands that no figure matched is first offered to
//! [`super::hindsight`], which may show that last frame's move went to the
//! wrong figure. Otherwise it starts a new track with a fresh id. Figures of
//! the first frame are confirmed at once and report nothing (they are the
//! table's starting state); later ones are confirmed (and reported `placed`)
//! once seen in `confirm_frames` frames, so that one false detection never
//! becomes a figure.
//!
//! Before the assignment (step 1b, [`Tracker::put_back_in_place`]): a
//! removed figure put down again where it stood (within the detector's
//! noise), facing as it faced and looking as it looked, is that figure,
//! placed again under its own id (lifted out of sight, then put back). Such
//! a detection is taken first, as the assignment takes a figure that stood
//! still: staying put is likelier by orders of magnitude than any move, so
//! a missing neighbour must not take the spot by a move.

use nalgebra::Vector2;

use super::apply::apply_match;
use super::associate::Matching;
use super::frame::Frame;
use super::model::{turn_deg, wrap_deg};
use super::{FigureState, Track, TrackEvent, TrackEventKind, TrackId, Tracker};
use crate::vision::Detection;

impl Tracker {
    /// Explains or adds a figure for each unmatched detection outside the
    /// hands, in detection order.
    pub(super) fn add_new_figures(
        &mut self,
        f: &Frame,
        m: &Matching,
        events: &mut Vec<TrackEvent>,
    ) {
        let matched_dets: Vec<usize> = m.assigned.iter().map(|&(_, d, _)| d).collect();
        for &k in &m.cols {
            if matched_dets.contains(&k) {
                continue;
            }
            let d = f.dets[k];
            let repaired = self.repair_with_hindsight(d, f.det_sigma(d), f.index);
            if !repaired.is_empty() {
                events.extend(repaired);
                continue;
            }
            let id = TrackId(self.next_id);
            self.next_id += 1;
            let confirmed = f.first() || f.p.confirm_frames <= 1;
            if confirmed && !f.first() {
                events.push(TrackEvent {
                    id,
                    kind: TrackEventKind::Placed {
                        from_in_table: None,
                        to_in_table: d.center_in_table,
                    },
                });
            }
            self.tracks
                .push(Track::first_seen(id, d, f.det_sigma(d), confirmed, f.index));
        }
    }
}

impl Tracker {
    /// Step 1b: each detection outside the hands and not yet used that is a
    /// removed figure put back where it stood places that figure again.
    /// Returns the detections used, these included.
    pub(super) fn put_back_in_place(
        &mut self,
        f: &Frame,
        mut det_used: Vec<bool>,
        events: &mut Vec<TrackEvent>,
    ) -> Vec<bool> {
        // Most frames have no removed figure: no detection is looked at.
        if !self
            .tracks
            .iter()
            .any(|t| t.state == FigureState::Removed && t.confirmed)
        {
            return det_used;
        }
        for (k, d) in f.dets.iter().enumerate() {
            if det_used[k] || f.det_covered[k] {
                continue;
            }
            if let Some(ti) = self.put_back(f, d) {
                // Placed again from where it stood, as a held figure is.
                self.tracks[ti].state = FigureState::Held;
                apply_match(f, &mut self.tracks[ti], d, events);
                det_used[k] = true;
            }
        }
        det_used
    }

    /// The removed figure that `d` is, put back where it stood: of its kind,
    /// not moved nor turned beyond the detector's noise, and looking alike;
    /// the cheapest of them.
    fn put_back(&self, f: &Frame, d: &Detection) -> Option<usize> {
        let p = f.p;
        self.tracks
            .iter()
            .enumerate()
            .filter(|(_, t)| t.state == FigureState::Removed && t.confirmed && t.alike(d))
            .filter_map(|(i, t)| {
                let sigma_in = t.sigma_in.hypot(f.det_sigma(d));
                let d_in = (d.center_in_table - t.position).norm();
                let turn = t.facing_deg.zip(d.facing_deg).map(|(a, b)| turn_deg(a, b));
                if p.is_move(d_in, sigma_in) || turn.is_some_and(|x| p.is_turn(x)) {
                    return None;
                }
                let look =
                    p.appearance_cost(t.base, t.appearance.as_ref(), d.appearance.as_ref())?;
                Some((
                    i,
                    p.position_cost(d_in, sigma_in) + p.facing_cost(turn) + look,
                ))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }
}

impl Track {
    /// A track for a figure first seen as `d` in frame `frame`.
    fn first_seen(id: TrackId, d: &Detection, sigma_in: f64, confirmed: bool, frame: u64) -> Self {
        Self {
            id,
            edge: d.edge,
            base: d.base,
            position: d.center_in_table,
            facing_deg: d.facing_deg.map(wrap_deg),
            sigma_in,
            samples: 1,
            state: FigureState::OnTable,
            confirmed,
            sightings: 1,
            seen_now: true,
            last_seen_frame: frame,
            velocity_in_per_s: Vector2::zeros(),
            unseen_frames: 0,
            unseen_s: 0.0,
            turn_start: d.center_in_table,
            turn_start_facing_deg: d.facing_deg.map(wrap_deg),
            path_in: 0.0,
            last_step: None,
            ambiguous_with: None,
            hand_anchor: None,
            under_hand_at: None,
            last_move_frame: 0,
            first_seen_frame: frame,
            appearance: d.appearance.map(|a| a.features()),
            appearance_samples: u32::from(d.appearance.is_some()),
            ambiguity_evidence_nats: 0.0,
        }
    }
}
