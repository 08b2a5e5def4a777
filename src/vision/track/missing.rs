//! Step 6 of [`Tracker::update`]: the figures not seen in this frame.
//!
//! A new figure that vanishes from plain view before it is confirmed was
//! never one and is dropped; one hidden by a hand waits for the hand to go.
//! A figure that vanishes under a hand, or from plain view while a hand is
//! within reach, is `held` (lifted). A held figure's clock starts
//! only when the table is clear of hands; one missing in plain view starts
//! it at once. When the clock has run for the settled time (frames and
//! seconds) the figure is `removed`, never dropped.
//!
//! When the detector cannot see hands, several figures vanishing together
//! are taken as covered by a hand ([`infer_hands`]) for a while.
//!
//! # Conventions
//! Table inches, seconds on the caller's clock, frames counted from 1.

use nalgebra::{Point2, Vector2};

use super::frame::Frame;
use super::{
    FigureState, InferredHand, OccludedRegion, Track, TrackEvent, TrackEventKind, Tracker,
    TrackerParams,
};

impl Tracker {
    /// Drops unconfirmed figures not seen, and lifts or removes the others.
    pub(super) fn settle_missing(&mut self, f: &Frame, events: &mut Vec<TrackEvent>) {
        // An unconfirmed one under a hand may be a figure just put down: it
        // waits for the hand to go.
        self.tracks
            .retain(|t| t.confirmed || t.seen_now || f.covered(t.position));
        if !f.hands_reported {
            self.infer_hands_from_vanished(f);
        }
        let hands: Vec<&OccludedRegion> = f
            .observed
            .iter()
            .chain(self.inferred.iter().map(|h| &h.region))
            .collect();
        // Hands that have not moved since the last frame.
        let before: &[Point2<f64>] = match &self.last_hands {
            Some((frame, anchors)) if frame + 1 == f.index => anchors,
            _ => &[],
        };
        let still: Vec<bool> = hands
            .iter()
            .map(|h| {
                let a = h.anchor_in_table();
                before.iter().any(|b| (a - b).norm() <= f.p.still_hand_in)
            })
            .collect();
        for t in &mut self.tracks {
            if t.live() && !t.seen_now {
                settle_unseen(f, t, &hands, &still, events);
            }
        }
        self.note_put_down_under_hands(f);
        self.last_hands = Some((
            f.index,
            f.observed.iter().map(|h| h.anchor_in_table()).collect(),
        ));
    }

    /// For each held figure, the nearest detection of its kind under a hand
    /// (within `max_move_in` of where the hand took it) that no figure
    /// standing there explains: where it may be being put down.
    fn note_put_down_under_hands(&mut self, f: &Frame) {
        let r = f.p.covered_confirm_radius_in;
        let standing: Vec<Point2<f64>> = self
            .tracks
            .iter()
            .filter(|t| t.live() && t.state != FigureState::Held)
            .map(|t| t.position)
            .collect();
        for t in self
            .tracks
            .iter_mut()
            .filter(|t| t.state == FigureState::Held)
        {
            let from = t.hand_anchor.unwrap_or(t.position);
            let nearest = f
                .dets
                .iter()
                .zip(&f.det_covered)
                .filter(|&(d, &covered)| covered && t.alike(d))
                .map(|(d, _)| d.center_in_table)
                .filter(|p| standing.iter().all(|s| (p - s).norm() > r))
                .filter(|p| (p - from).norm() <= f.p.max_move_in)
                .min_by(|a, b| (a - from).norm().total_cmp(&(b - from).norm()));
            if nearest.is_some() {
                t.under_hand_at = nearest;
            }
        }
    }

    /// Adds the hands inferred from the figures that vanished in this frame.
    fn infer_hands_from_vanished(&mut self, f: &Frame) {
        let vanished: Vec<Point2<f64>> = self
            .tracks
            .iter()
            .filter(|t| t.confirmed && t.live() && !t.seen_now && t.last_seen_frame + 1 == f.index)
            .map(|t| t.position)
            .collect();
        for region in infer_hands(&vanished, f.p) {
            self.inferred.push(InferredHand {
                region,
                frame: f.index,
                time_s: f.time_s,
            });
        }
    }
}

/// One live figure not seen in this frame, with the hands over the table
/// and which of them have not moved since the last frame.
fn settle_unseen(
    f: &Frame,
    t: &mut Track,
    hands: &[&OccludedRegion],
    still: &[bool],
    events: &mut Vec<TrackEvent>,
) {
    let p = f.p;
    t.velocity_in_per_s = Vector2::zeros();
    let under_hand = hands
        .iter()
        .any(|r| r.covers(t.position, p.cover_margin_in));
    // Gone from under a hand, or from plain view while a hand is within
    // reach (a still photo shows the hand after the lift). A hand that has
    // not moved since the last frame did not reach for it.
    let nearest_hand = hands
        .iter()
        .zip(still)
        .filter(|&(_, &s)| !s || under_hand)
        .map(|(r, _)| r.anchor_in_table())
        .filter(|a| (a - t.position).norm() <= p.max_move_in)
        .min_by(|a, b| (a - t.position).norm().total_cmp(&(b - t.position).norm()));
    let just_vanished = t.last_seen_frame + 1 == f.index;
    if t.state == FigureState::OnTable && (under_hand || (just_vanished && nearest_hand.is_some()))
    {
        t.hand_anchor = nearest_hand;
        t.state = FigureState::Held;
        events.push(TrackEvent {
            id: t.id,
            kind: TrackEventKind::Lifted,
        });
    }
    // A held figure travels with the hand: only a clear table starts its
    // clock. A figure missing in plain view starts it at once.
    let clock_runs = match t.state {
        FigureState::Held => hands.is_empty(),
        _ => !under_hand,
    };
    if clock_runs {
        t.unseen_frames += 1;
        t.unseen_s += f.dt_s;
    }
    if t.unseen_frames >= p.removal_after_frames && t.unseen_s >= p.removal_after_s {
        t.state = FigureState::Removed;
        events.push(TrackEvent {
            id: t.id,
            kind: TrackEventKind::Removed,
        });
    }
}

/// Hands inferred from figures that vanished in the same frame: each group
/// of at least `inferred_hand_min_figures` within `inferred_hand_span_in` of
/// its first member becomes a disc over them.
fn infer_hands(vanished: &[Point2<f64>], p: &TrackerParams) -> Vec<OccludedRegion> {
    let mut taken = vec![false; vanished.len()];
    let mut out = Vec::new();
    for i in 0..vanished.len() {
        if taken[i] {
            continue;
        }
        let group: Vec<usize> = (i..vanished.len())
            .filter(|&j| !taken[j] && (vanished[j] - vanished[i]).norm() <= p.inferred_hand_span_in)
            .collect();
        if group.len() < p.inferred_hand_min_figures {
            continue;
        }
        let sum = group
            .iter()
            .fold(Vector2::zeros(), |acc, &j| acc + vanished[j].coords);
        let center = Point2::from(sum / group.len() as f64);
        let radius_in = group
            .iter()
            .map(|&j| (vanished[j] - center).norm())
            .fold(0.0, f64::max);
        for &j in &group {
            taken[j] = true;
        }
        out.push(OccludedRegion::Disc {
            center_in_table: center,
            radius_in,
        });
    }
    out
}
