//! Step 4 of [`Tracker::update`]: the matches of step 2 are applied.
//!
//! A figure matched to a detection is seen. If it was held, moved or
//! turned, it takes the detection's position (and facing, when seen), its
//! turn's path grows by the move, and a `placed` or `moved` event is sent;
//! put back where its last move started, that move is taken back instead.
//! Otherwise it stood still, and the detection is averaged into its
//! position to smooth the detector's noise. A new figure that has been seen
//! in `confirm_frames` frames is confirmed and reported `placed`.
//!
//! # Conventions
//! Table inches, degrees, seconds; velocities in inches per second.

use nalgebra::{Point2, Vector2};

use super::associate::Matching;
use super::frame::Frame;
use super::model::{turn_deg, wrap_deg};
use super::{FigureState, Track, TrackEvent, TrackEventKind, Tracker};
use crate::vision::Detection;

/// How a matched detection differs from its figure before this frame.
struct Change {
    from: Point2<f64>,
    dist_in: f64,
    turn_deg: Option<f64>,
    moved: bool,
    /// The detection's 1-sigma position error, inches.
    sigma_d_in: f64,
}

impl Tracker {
    /// Applies every match of the assignment, in its order.
    pub(super) fn apply_matches(&mut self, f: &Frame, m: &Matching, events: &mut Vec<TrackEvent>) {
        for &(ti, di, _) in &m.assigned {
            apply_match(f, &mut self.tracks[ti], f.dets[di], events);
        }
    }
}

pub(super) fn apply_match(f: &Frame, t: &mut Track, d: &Detection, events: &mut Vec<TrackEvent>) {
    let sigma_d_in = f.det_sigma(d);
    let from = t.position;
    let dist_in = (d.center_in_table - from).norm();
    let turn = t.facing_deg.zip(d.facing_deg).map(|(a, b)| turn_deg(a, b));
    let change = Change {
        from,
        dist_in,
        turn_deg: turn,
        moved: f.p.is_move(dist_in, t.sigma_in.hypot(sigma_d_in)),
        sigma_d_in,
    };
    let turned = turn.is_some_and(|x| f.p.is_turn(x));
    if t.state == FigureState::Held || change.moved || turned {
        if let Some(kind) = move_to(f, t, d, &change) {
            events.push(TrackEvent { id: t.id, kind });
        }
    } else {
        stand_still(f, t, d, turn);
    }
    t.sigma_in = sigma_d_in / f64::from(t.samples).sqrt();
    t.learn_appearance(d, f.p.appearance_window);
    mark_seen(f, t, events);
}

/// The figure was put down, moved or turned to `d`. Returns the event a
/// confirmed figure reports.
fn move_to(f: &Frame, t: &mut Track, d: &Detection, c: &Change) -> Option<TrackEventKind> {
    let was_held = t.state == FigureState::Held;
    let was_seen_last_frame = t.last_seen_frame + 1 == f.index;
    t.position = d.center_in_table;
    t.facing_deg = d.facing_deg.or(t.facing_deg);
    t.samples = 1;
    walk_path(f, t, d, c, was_held);
    let dt_s = f.dt_s;
    t.velocity_in_per_s =
        if c.moved && was_seen_last_frame && dt_s > 0.0 && dt_s <= f.p.motion_max_gap_s {
            (d.center_in_table - c.from) / dt_s
        } else {
            Vector2::zeros()
        };
    if !t.confirmed {
        return None;
    }
    Some(move_event(
        was_held,
        c.from,
        d.center_in_table,
        c.dist_in,
        c.turn_deg,
    ))
}

/// What a figure that went from `from` to `to` reports: `placed` when it
/// was held, else `moved`.
pub(super) fn move_event(
    was_held: bool,
    from: Point2<f64>,
    to: Point2<f64>,
    distance_in: f64,
    turned_deg: Option<f64>,
) -> TrackEventKind {
    if was_held {
        TrackEventKind::Placed {
            from_in_table: Some(from),
            to_in_table: to,
        }
    } else {
        TrackEventKind::Moved {
            from_in_table: from,
            to_in_table: to,
            distance_in,
            turned_deg,
        }
    }
}

/// Adds the move to this turn's path, or takes the last move back.
fn walk_path(f: &Frame, t: &mut Track, d: &Detection, c: &Change, was_held: bool) {
    // Put back exactly where the last move started: the move is taken back
    // (a player changing his mind, or the tracker's own mistake put right),
    // not walked twice.
    let undone = t.last_step.filter(|&(start, _)| {
        !f.p.is_move(
            (d.center_in_table - start).norm(),
            t.sigma_in.hypot(c.sigma_d_in),
        )
    });
    if let Some((_, step_in)) = undone {
        t.path_in = (t.path_in - step_in).max(0.0);
        t.last_step = None;
        t.last_move_frame = f.index;
    } else if c.moved || was_held {
        t.path_in += c.dist_in;
        t.last_step = Some((c.from, c.dist_in));
        t.last_move_frame = f.index;
    }
}

/// The figure stood still: average out the detector's noise.
fn stand_still(f: &Frame, t: &mut Track, d: &Detection, turn: Option<f64>) {
    t.samples = (t.samples + 1).min(f.p.average_window);
    let w = 1.0 / f64::from(t.samples);
    t.position += (d.center_in_table - t.position) * w;
    t.facing_deg = match (t.facing_deg, turn) {
        (Some(fa), Some(x)) => Some(wrap_deg(fa + x * w)),
        (None, _) => d.facing_deg,
        (fa, None) => fa,
    };
    t.velocity_in_per_s = Vector2::zeros();
}

/// The figure is seen on the table this frame; a new one seen often enough
/// is confirmed and reported placed.
fn mark_seen(f: &Frame, t: &mut Track, events: &mut Vec<TrackEvent>) {
    t.state = FigureState::OnTable;
    t.hand_anchor = None;
    t.under_hand_at = None;
    t.see(f.index);
    if !t.confirmed && t.sightings >= f.p.confirm_frames {
        t.confirmed = true;
        events.push(TrackEvent {
            id: t.id,
            kind: TrackEventKind::Placed {
                from_in_table: None,
                to_in_table: t.position,
            },
        });
    }
}
