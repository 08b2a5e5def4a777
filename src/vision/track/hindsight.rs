//! Re-identification with hindsight, for step 5 of [`Tracker::update`].
//!
//! A detection that nobody explains can show that last frame's move was
//! given to the wrong figure: figure A "moved" to Q while its twin B
//! vanished, and now a figure stands at the new detection, within reach of
//! where A started. Then B made the move to Q and A (missed by the detector
//! last frame) moves now to the new detection: every detection is
//! explained. The best such pair is rewritten and both moves are reported
//! again.
//!
//! # Conventions
//! Table inches; costs in nats (see [`super::model`]); frames counted
//! from 1.

use nalgebra::Point2;

use super::model::wrap_deg;
use super::{FigureState, Track, TrackEvent, TrackEventKind, TrackId, Tracker};
use crate::vision::Detection;

impl Tracker {
    /// Rewrites last frame's move if detection `d` (1-sigma `sigma_d_in`,
    /// inches) shows it went to the wrong twin; returns the two moves as
    /// redone, or nothing when no pair explains `d`.
    pub(super) fn repair_with_hindsight(
        &mut self,
        d: &Detection,
        sigma_d_in: f64,
        frame: u64,
    ) -> Vec<TrackEvent> {
        let Some((ia, ib)) = self.hindsight_pair(d, sigma_d_in, frame) else {
            return Vec::new();
        };
        let a = self.tracks[ia].clone();
        let Some((from_a, step_a_in)) = a.last_step else {
            return Vec::new();
        };
        let (from_b, db_in) = take_over_move(&mut self.tracks[ib], &a, frame);
        let b_id = self.tracks[ib].id;
        let ta = &mut self.tracks[ia];
        let da_in = (d.center_in_table - from_a).norm();
        ta.path_in = (ta.path_in - step_a_in + da_in).max(0.0);
        ta.last_step = Some((from_a, da_in));
        ta.last_move_frame = frame;
        ta.position = d.center_in_table;
        ta.facing_deg = d.facing_deg.map(wrap_deg).or(ta.facing_deg);
        ta.samples = 1;
        ta.sigma_in = sigma_d_in;
        if ta.ambiguous_with == Some(b_id) {
            ta.ambiguous_with = None;
        }
        vec![
            moved(b_id, from_b, a.position, db_in),
            moved(a.id, from_a, d.center_in_table, da_in),
        ]
    }

    /// The (A, B) pair of track indices that best explains `d` with
    /// hindsight, if any: A moved last frame and could have come from its
    /// start to `d`; B, its twin, vanished last frame within reach of where
    /// A went.
    fn hindsight_pair(&self, d: &Detection, sigma_d_in: f64, frame: u64) -> Option<(usize, usize)> {
        let p = &self.params;
        let mut best: Option<(f64, usize, usize)> = None;
        for (ia, a) in self.tracks.iter().enumerate() {
            if !(a.confirmed && a.seen_now && a.last_move_frame + 1 == frame && a.alike(d)) {
                continue;
            }
            let Some((from_a, _)) = a.last_step else {
                continue;
            };
            let sigma_in = a.sigma_in.hypot(sigma_d_in);
            let da_in = (d.center_in_table - from_a).norm();
            if da_in > p.gate_in(sigma_in) {
                continue;
            }
            for (ib, b) in self.tracks.iter().enumerate() {
                let twin = b.edge == a.edge && b.base == a.base;
                if ib == ia
                    || !twin
                    || !(b.confirmed && b.live() && !b.seen_now && b.last_seen_frame + 2 == frame)
                {
                    continue;
                }
                let db_in = (a.position - b.position).norm();
                if db_in > p.gate_in(sigma_in) {
                    continue;
                }
                let c = p.position_cost(da_in, sigma_in) + p.position_cost(db_in, sigma_in);
                if best.is_none_or(|(bc, _, _)| c < bc) {
                    best = Some((c, ia, ib));
                }
            }
        }
        best.map(|(_, ia, ib)| (ia, ib))
    }
}

/// Twin `b` made `a`'s last move (in the last frame) and is seen where `a`
/// is now. Returns where `b` started and the move's length, inches.
fn take_over_move(b: &mut Track, a: &Track, frame: u64) -> (Point2<f64>, f64) {
    let from_b = b.position;
    let db_in = (a.position - from_b).norm();
    b.position = a.position;
    b.facing_deg = a.facing_deg.or(b.facing_deg);
    b.sigma_in = a.sigma_in;
    b.samples = a.samples;
    b.state = FigureState::OnTable;
    b.see(frame);
    b.hand_anchor = None;
    b.under_hand_at = None;
    b.path_in += db_in;
    b.last_step = Some((from_b, db_in));
    b.last_move_frame = frame - 1;
    if b.ambiguous_with == Some(a.id) {
        b.ambiguous_with = None;
    }
    (from_b, db_in)
}

fn moved(id: TrackId, from: Point2<f64>, to: Point2<f64>, distance_in: f64) -> TrackEvent {
    TrackEvent {
        id,
        kind: TrackEventKind::Moved {
            from_in_table: from,
            to_in_table: to,
            distance_in,
            turned_deg: None,
        },
    }
}
