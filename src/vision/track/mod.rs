//! The tracker: keeps every figure's identity through the stream of
//! detections, as players move figures, pick them up, put them down and take
//! casualties off the table.
//!
//! # Conventions
//! - Positions are base centres on the table plane, table inches, in the
//!   frame of `TABLE_KIT.md` (x right, y up seen from above); facings are
//!   degrees counter-clockwise from +x in [0, 360).
//! - Time is the caller's clock in seconds (capture time of each frame); only
//!   differences matter. Frames are counted from 1.
//! - A [`TrackId`] is given once, when a figure is first seen, and never
//!   reused or changed, except by the player through
//!   [`Tracker::swap_identities`].
//!
//! # What the tracker decides, frame by frame
//! 1. Figures under a hand (the detector's occluded regions) hold their
//!    state: no move and no removal is reported there. A detection of the same
//!    kind where such a figure stood keeps it on the table; other detections
//!    under the hand are left until the hand has gone.
//! 2. All other figures are matched to the detections outside the hands by
//!    optimal assignment (Kuhn-Munkres) on the costs of [`model`]: a match
//!    needs the same edge colour and base kind and a move within the longest
//!    move; matching as many figures as possible comes first, then the most
//!    likely set of moves and turns.
//! 3. When a second explanation of a move is nearly as likely (two similar
//!    figures swapped, or a figure moved where another vanished), both figures
//!    are flagged ambiguous; the player confirms or swaps them.
//! 4. A figure that vanishes under a hand is `held` (lifted); one that comes
//!    back is `placed`. A figure missing for the settled time (frames and
//!    seconds) while no hand hides it is `removed`, never dropped. When the
//!    detector cannot see hands, several figures vanishing together are taken
//!    as covered by a hand for a while.

pub mod model;
pub mod region;

use nalgebra::{Point2, Vector2};
use pathfinding::prelude::{Matrix, kuhn_munkres_min};
use serde::{Deserialize, Serialize};

use crate::vision::{BaseKind, Detection, EdgeColour};
pub use model::TrackerParams;
use model::{turn_deg, wrap_deg};
pub use region::OccludedRegion;

/// Cost of leaving a figure or a detection unmatched, nats: far above any
/// allowed match (under 20 nats with the default parameters), so that
/// matching as many as possible comes first.
const MISS_COST_NATS: f64 = 1000.0;
/// Costs are handed to the assignment as integers in these units per nat.
const COST_SCALE_PER_NAT: f64 = 1000.0;

/// The identity of one figure for the whole game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TrackId(pub u32);

impl std::fmt::Display for TrackId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What the tracker needs from one frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrameObservation {
    /// Capture time, seconds on any clock that only runs forward.
    pub time_s: f64,
    pub detections: Vec<Detection>,
    /// Where hands or arms hide the table in this frame. `None` when the
    /// detector cannot tell (the tracker then infers hands from figures that
    /// vanish together); `Some(vec![])` means the table is clear.
    pub occluded_regions_in_table: Option<Vec<OccludedRegion>>,
}

/// Where a figure is, as far as the game is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureState {
    /// On the table (seen, or briefly missed by the detector).
    OnTable,
    /// Vanished under a hand: lifted or covered; expected back.
    Held,
    /// Taken off the table (a casualty).
    Removed,
}

impl FigureState {
    pub fn name(self) -> &'static str {
        match self {
            Self::OnTable => "on_table",
            Self::Held => "held",
            Self::Removed => "removed",
        }
    }
}

/// One figure as the tracker knows it after a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackedFigure {
    pub id: TrackId,
    /// Where it is, or was last seen (held and removed figures).
    pub center_in_table: Point2<f64>,
    pub facing_deg: Option<f64>,
    pub edge: EdgeColour,
    pub base: BaseKind,
    pub state: FigureState,
    /// Detected in this frame.
    pub seen: bool,
    /// Possibly swapped with this figure: the player should confirm.
    pub ambiguous_with: Option<TrackId>,
}

/// What happened to one figure in one frame.
#[derive(Debug, Clone, PartialEq)]
pub enum TrackEventKind {
    /// Moved or turned on the table. `turned_deg` is `None` when the front
    /// mark was not seen before or after.
    Moved {
        from_in_table: Point2<f64>,
        to_in_table: Point2<f64>,
        distance_in: f64,
        turned_deg: Option<f64>,
    },
    /// Vanished under a hand.
    Lifted,
    /// Put down after being held, or a new figure put on the table
    /// (`from_in_table` is `None`).
    Placed {
        from_in_table: Option<Point2<f64>>,
        to_in_table: Point2<f64>,
    },
    /// Missing for the settled time: taken off the table.
    Removed,
    /// Its last move could equally be another figure's.
    Ambiguous { with: TrackId },
}

impl TrackEventKind {
    pub fn name(&self) -> &'static str {
        match self {
            Self::Moved { .. } => "moved",
            Self::Lifted => "lifted",
            Self::Placed { .. } => "placed",
            Self::Removed => "removed",
            Self::Ambiguous { .. } => "ambiguous",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TrackEvent {
    pub id: TrackId,
    pub kind: TrackEventKind,
}

/// The tracker's answer to one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameReport {
    /// 1 for the first frame.
    pub frame_index: u64,
    /// Every figure known, removed ones included, by id.
    pub figures: Vec<TrackedFigure>,
    pub events: Vec<TrackEvent>,
    /// Hands the tracker inferred (detector without hand regions).
    pub inferred_hands: Vec<OccludedRegion>,
}

/// How far one figure went since [`Tracker::begin_turn`], for the movement
/// rules.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnMovement {
    pub id: TrackId,
    pub start_in_table: Point2<f64>,
    pub end_in_table: Point2<f64>,
    /// Sum of the moves, inches.
    pub path_in: f64,
    /// Start to end in a straight line, inches.
    pub straight_in: f64,
    /// Net turn, degrees in (-180, 180]; `None` without a seen front mark.
    pub turned_deg: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TrackError {
    #[error("tracker parameter `{field}`: {message}")]
    BadParameter {
        field: &'static str,
        message: String,
    },
    #[error("there is no figure {0}")]
    UnknownFigure(TrackId),
    #[error("figures {a} and {b} differ in edge colour or base, so they cannot have been mixed up")]
    NotAlike { a: TrackId, b: TrackId },
}

#[derive(Debug, Clone)]
struct Track {
    id: TrackId,
    edge: EdgeColour,
    base: BaseKind,
    position: Point2<f64>,
    facing_deg: Option<f64>,
    /// 1-sigma of the position estimate, inches.
    sigma_in: f64,
    /// Detections averaged into the position since the last move.
    samples: u32,
    state: FigureState,
    confirmed: bool,
    sightings: u32,
    seen_now: bool,
    last_seen_frame: u64,
    velocity_in_per_s: Vector2<f64>,
    /// Frames and seconds missing while nothing hid it.
    unseen_frames: u32,
    unseen_s: f64,
    turn_start: Point2<f64>,
    turn_start_facing_deg: Option<f64>,
    path_in: f64,
    /// Where the last move started and its length, to undo it on a swap.
    last_step: Option<(Point2<f64>, f64)>,
    ambiguous_with: Option<TrackId>,
    /// Where the hand was when this figure went: a held figure is in the
    /// hand, so it may be put down near there as well as near where it stood.
    hand_anchor: Option<Point2<f64>>,
    /// Frame of the last move (0: none yet).
    last_move_frame: u64,
}

impl Track {
    fn alike(&self, d: &Detection) -> bool {
        self.edge == d.edge && self.base == d.base
    }

    fn figure(&self) -> TrackedFigure {
        TrackedFigure {
            id: self.id,
            center_in_table: self.position,
            facing_deg: self.facing_deg.map(wrap_deg),
            edge: self.edge,
            base: self.base,
            state: self.state,
            seen: self.seen_now,
            ambiguous_with: self.ambiguous_with,
        }
    }

    fn live(&self) -> bool {
        self.state != FigureState::Removed
    }
}

#[derive(Debug, Clone)]
struct InferredHand {
    region: OccludedRegion,
    frame: u64,
    time_s: f64,
}

/// Follows figures from frame to frame. Feed it every frame in order with
/// [`Tracker::update`].
#[derive(Debug, Clone)]
pub struct Tracker {
    params: TrackerParams,
    tracks: Vec<Track>,
    next_id: u32,
    frames: u64,
    last_time_s: Option<f64>,
    inferred: Vec<InferredHand>,
}

impl Tracker {
    /// A tracker with checked parameters.
    pub fn new(params: TrackerParams) -> Result<Self, TrackError> {
        if let Some((field, message)) = params.problems().into_iter().next() {
            return Err(TrackError::BadParameter { field, message });
        }
        Ok(Self {
            params,
            tracks: Vec::new(),
            next_id: 1,
            frames: 0,
            last_time_s: None,
            inferred: Vec::new(),
        })
    }

    pub fn params(&self) -> &TrackerParams {
        &self.params
    }

    /// Every figure reported so far (removed ones too), by id.
    pub fn figures(&self) -> Vec<TrackedFigure> {
        self.tracks
            .iter()
            .filter(|t| t.confirmed)
            .map(Track::figure)
            .collect()
    }

    pub fn figure(&self, id: TrackId) -> Option<TrackedFigure> {
        self.track(id).map(Track::figure)
    }

    fn track(&self, id: TrackId) -> Option<&Track> {
        self.tracks.iter().find(|t| t.id == id && t.confirmed)
    }

    fn index_of(&self, id: TrackId) -> Result<usize, TrackError> {
        self.tracks
            .iter()
            .position(|t| t.id == id && t.confirmed)
            .ok_or(TrackError::UnknownFigure(id))
    }

    /// Starts a new turn: movement is measured from here.
    pub fn begin_turn(&mut self) {
        for t in &mut self.tracks {
            t.turn_start = t.position;
            t.turn_start_facing_deg = t.facing_deg;
            t.path_in = 0.0;
            t.last_step = None;
        }
    }

    /// How far each figure went this turn, by id.
    pub fn turn_movement(&self) -> Vec<TurnMovement> {
        self.tracks
            .iter()
            .filter(|t| t.confirmed)
            .map(|t| TurnMovement {
                id: t.id,
                start_in_table: t.turn_start,
                end_in_table: t.position,
                path_in: t.path_in,
                straight_in: (t.position - t.turn_start).norm(),
                turned_deg: t
                    .turn_start_facing_deg
                    .zip(t.facing_deg)
                    .map(|(a, b)| turn_deg(a, b)),
            })
            .collect()
    }

    /// The player says figure `id` is right: clears its ambiguity flag (and
    /// its partner's).
    pub fn confirm(&mut self, id: TrackId) -> Result<(), TrackError> {
        let i = self.index_of(id)?;
        if let Some(other) = self.tracks[i].ambiguous_with.take()
            && let Ok(j) = self.index_of(other)
            && self.tracks[j].ambiguous_with == Some(id)
        {
            self.tracks[j].ambiguous_with = None;
        }
        Ok(())
    }

    /// The player says figures `a` and `b` were mixed up: each id moves to
    /// the other's figure, so that bindings (side, roster) follow the real
    /// figures. This turn's movement is corrected for the last move of each.
    pub fn swap_identities(&mut self, a: TrackId, b: TrackId) -> Result<(), TrackError> {
        let (i, j) = (self.index_of(a)?, self.index_of(b)?);
        if i == j {
            return Ok(());
        }
        let (ta, tb) = (&self.tracks[i], &self.tracks[j]);
        if ta.edge != tb.edge || ta.base != tb.base {
            return Err(TrackError::NotAlike { a, b });
        }
        let (mut na, mut nb) = (ta.clone(), tb.clone());
        // The physical state swaps; the turn's start stays with the id, and
        // each id's last move is redone to the other figure's position.
        for (new, old, other) in [(&mut na, ta, tb), (&mut nb, tb, ta)] {
            new.position = other.position;
            new.facing_deg = other.facing_deg;
            new.sigma_in = other.sigma_in;
            new.samples = other.samples;
            new.state = other.state;
            new.seen_now = other.seen_now;
            new.last_seen_frame = other.last_seen_frame;
            new.velocity_in_per_s = other.velocity_in_per_s;
            new.unseen_frames = other.unseen_frames;
            new.unseen_s = other.unseen_s;
            new.hand_anchor = other.hand_anchor;
            let (from, step_in) = old.last_step.unwrap_or((old.position, 0.0));
            let redone_in = (other.position - from).norm();
            new.path_in = (old.path_in - step_in + redone_in).max(0.0);
            new.last_step = Some((from, redone_in));
            new.ambiguous_with = None;
        }
        self.tracks[i] = na;
        self.tracks[j] = nb;
        Ok(())
    }

    /// Takes in one frame and reports every figure and what happened.
    pub fn update(&mut self, obs: &FrameObservation) -> FrameReport {
        let p = self.params.clone();
        self.frames += 1;
        let frame = self.frames;
        let first_frame = frame == 1;
        let time_s = if obs.time_s.is_finite() {
            obs.time_s
        } else {
            self.last_time_s.unwrap_or(0.0)
        };
        // A clock that jumps back must not make time negative.
        let dt_s = self.last_time_s.map_or(0.0, |t| (time_s - t).max(0.0));
        self.last_time_s = Some(time_s.max(self.last_time_s.unwrap_or(time_s)));
        let mut events = Vec::new();
        for t in &mut self.tracks {
            t.seen_now = false;
        }
        self.inferred.retain(|h| {
            let frames_since = frame - h.frame;
            !(frames_since >= u64::from(p.inferred_hand_frames)
                && time_s - h.time_s >= p.inferred_hand_s)
        });

        let observed: &[OccludedRegion] = obs.occluded_regions_in_table.as_deref().unwrap_or(&[]);
        let covered = |pt: Point2<f64>| observed.iter().any(|r| r.covers(pt, p.cover_margin_in));
        // A detector bug must not poison the tracks.
        let dets: Vec<&Detection> = obs
            .detections
            .iter()
            .filter(|d| d.center_in_table.x.is_finite() && d.center_in_table.y.is_finite())
            .collect();
        let det_sigma = |d: &Detection| {
            if d.position_sigma_in.is_finite() {
                d.position_sigma_in.max(p.min_position_sigma_in)
            } else {
                p.min_position_sigma_in
            }
        };
        let det_covered: Vec<bool> = dets.iter().map(|d| covered(d.center_in_table)).collect();
        let mut det_used = vec![false; dets.len()];

        // 1. Figures under a hand hold their state.
        for t in self.tracks.iter_mut().filter(|t| t.live()) {
            if !covered(t.position) {
                continue;
            }
            let nearest = (0..dets.len())
                .filter(|&k| det_covered[k] && !det_used[k] && t.alike(dets[k]))
                .map(|k| (k, (dets[k].center_in_table - t.position).norm()))
                .filter(|&(_, d)| d <= p.covered_confirm_radius_in)
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((k, _)) = nearest {
                det_used[k] = true;
                t.seen_now = true;
                t.last_seen_frame = frame;
                t.sightings += 1;
                t.unseen_frames = 0;
                t.unseen_s = 0.0;
                t.velocity_in_per_s = Vector2::zeros();
                t.hand_anchor = None;
                if t.state == FigureState::Held {
                    t.state = FigureState::OnTable;
                    if t.confirmed {
                        events.push(TrackEvent {
                            id: t.id,
                            kind: TrackEventKind::Placed {
                                from_in_table: Some(t.position),
                                to_in_table: t.position,
                            },
                        });
                    }
                }
            }
        }

        // 2. Everything else by optimal assignment.
        let rows: Vec<usize> = (0..self.tracks.len())
            .filter(|&i| self.tracks[i].live() && !self.tracks[i].seen_now)
            .collect();
        let cols: Vec<usize> = (0..dets.len())
            .filter(|&k| !det_covered[k] && !det_used[k])
            .collect();
        let cost = |t: &Track, d: &Detection| -> Option<f64> {
            if !t.alike(d) {
                return None;
            }
            let sigma_in = t.sigma_in.hypot(det_sigma(d));
            let predicted = if t.last_seen_frame + 1 == frame && dt_s <= p.motion_max_gap_s {
                t.position + t.velocity_in_per_s * dt_s
            } else {
                t.position
            };
            let mut d_in = (d.center_in_table - predicted).norm();
            if t.state == FigureState::Held
                && let Some(anchor) = t.hand_anchor
            {
                d_in = d_in.min((d.center_in_table - anchor).norm());
            }
            if d_in > p.gate_in(sigma_in) {
                return None;
            }
            let turn = t.facing_deg.zip(d.facing_deg).map(|(a, b)| turn_deg(a, b));
            Some(p.position_cost(d_in, sigma_in) + p.facing_cost(turn))
        };
        let assigned = assign(&rows, &cols, |r, c| cost(&self.tracks[r], dets[c]));

        // 3. Flag moves with a close second explanation, judged on the
        //    state before this frame.
        let deliberate: Vec<bool> = assigned
            .iter()
            .map(|&(ti, di, _)| {
                let (t, d) = (&self.tracks[ti], dets[di]);
                let sigma_in = t.sigma_in.hypot(det_sigma(d));
                t.state == FigureState::Held
                    || p.is_move((d.center_in_table - t.position).norm(), sigma_in)
                    || t.facing_deg
                        .zip(d.facing_deg)
                        .is_some_and(|(a, b)| p.is_turn(turn_deg(a, b)))
            })
            .collect();
        let unmatched: Vec<usize> = rows
            .iter()
            .copied()
            .filter(|&r| self.tracks[r].confirmed && !assigned.iter().any(|&(t, _, _)| t == r))
            .collect();
        let mut flags = Vec::new();
        for (x, &(ti, di, ci)) in assigned.iter().enumerate() {
            for (y, &(tj, dj, cj)) in assigned.iter().enumerate().skip(x + 1) {
                if !(deliberate[x] || deliberate[y]) {
                    continue;
                }
                let crossed = cost(&self.tracks[ti], dets[dj])
                    .zip(cost(&self.tracks[tj], dets[di]))
                    .map(|(a, b)| a + b);
                let close = crossed.is_some_and(|c| c - (ci + cj) < p.ambiguity_margin_nats);
                // Two figures that "both turned" onto each other's facing are
                // as likely swapped: the model's prior for standing still
                // outweighs the coincidence, so ask the player.
                let (ta, tb) = (&self.tracks[ti], &self.tracks[tj]);
                let turned = |t: &Track, d: &Detection| {
                    t.facing_deg
                        .zip(d.facing_deg)
                        .map(|(a, b)| p.is_turn(turn_deg(a, b)))
                };
                let facings_swapped = crossed.is_some()
                    && turned(ta, dets[di]) == Some(true)
                    && turned(tb, dets[dj]) == Some(true)
                    && turned(ta, dets[dj]) == Some(false)
                    && turned(tb, dets[di]) == Some(false);
                if close || facings_swapped {
                    flags.push((ti, tj));
                }
            }
            if deliberate[x] {
                for &tj in &unmatched {
                    if cost(&self.tracks[tj], dets[di])
                        .is_some_and(|c| c - ci < p.ambiguity_margin_nats)
                    {
                        flags.push((ti, tj));
                    }
                }
            }
        }
        for (ia, ib) in flags {
            let (ida, idb) = (self.tracks[ia].id, self.tracks[ib].id);
            if !(self.tracks[ia].confirmed && self.tracks[ib].confirmed)
                || self.tracks[ia].ambiguous_with == Some(idb)
            {
                continue;
            }
            self.tracks[ia].ambiguous_with = Some(idb);
            self.tracks[ib].ambiguous_with = Some(ida);
            events.push(TrackEvent {
                id: ida,
                kind: TrackEventKind::Ambiguous { with: idb },
            });
            events.push(TrackEvent {
                id: idb,
                kind: TrackEventKind::Ambiguous { with: ida },
            });
        }

        // 4. Apply the matches.
        for &(ti, di, _) in &assigned {
            let d = dets[di];
            let sigma_d = det_sigma(d);
            let t = &mut self.tracks[ti];
            let from = t.position;
            let dist_in = (d.center_in_table - from).norm();
            let turn = t.facing_deg.zip(d.facing_deg).map(|(a, b)| turn_deg(a, b));
            let moved = p.is_move(dist_in, t.sigma_in.hypot(sigma_d));
            let turned = turn.is_some_and(|x| p.is_turn(x));
            let was_held = t.state == FigureState::Held;
            let was_seen_last_frame = t.last_seen_frame + 1 == frame;
            if was_held || moved || turned {
                t.position = d.center_in_table;
                t.facing_deg = d.facing_deg.or(t.facing_deg);
                t.samples = 1;
                // Put back exactly where the last move started: the move is
                // taken back (a player changing his mind, or the tracker's
                // own mistake put right), not walked twice.
                let undone = t.last_step.filter(|&(start, _)| {
                    !p.is_move(
                        (d.center_in_table - start).norm(),
                        t.sigma_in.hypot(sigma_d),
                    )
                });
                if let Some((_, step_in)) = undone {
                    t.path_in = (t.path_in - step_in).max(0.0);
                    t.last_step = None;
                    t.last_move_frame = frame;
                } else if moved || was_held {
                    t.path_in += dist_in;
                    t.last_step = Some((from, dist_in));
                    t.last_move_frame = frame;
                }
                t.velocity_in_per_s = if moved && was_seen_last_frame && dt_s > 0.0 {
                    if dt_s <= p.motion_max_gap_s {
                        (d.center_in_table - from) / dt_s
                    } else {
                        Vector2::zeros()
                    }
                } else {
                    Vector2::zeros()
                };
                if t.confirmed {
                    let kind = if was_held {
                        TrackEventKind::Placed {
                            from_in_table: Some(from),
                            to_in_table: d.center_in_table,
                        }
                    } else {
                        TrackEventKind::Moved {
                            from_in_table: from,
                            to_in_table: d.center_in_table,
                            distance_in: dist_in,
                            turned_deg: turn,
                        }
                    };
                    events.push(TrackEvent { id: t.id, kind });
                }
            } else {
                // Still: average out the detector's noise.
                t.samples = (t.samples + 1).min(p.average_window);
                let w = 1.0 / f64::from(t.samples);
                t.position += (d.center_in_table - t.position) * w;
                t.facing_deg = match (t.facing_deg, turn) {
                    (Some(f), Some(x)) => Some(wrap_deg(f + x * w)),
                    (None, _) => d.facing_deg,
                    (f, None) => f,
                };
                t.velocity_in_per_s = Vector2::zeros();
            }
            t.sigma_in = sigma_d / f64::from(t.samples).sqrt();
            t.state = FigureState::OnTable;
            t.hand_anchor = None;
            t.seen_now = true;
            t.last_seen_frame = frame;
            t.sightings += 1;
            t.unseen_frames = 0;
            t.unseen_s = 0.0;
            if !t.confirmed && t.sightings >= p.confirm_frames {
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

        // 5. New figures: unexplained detections outside the hands.
        let matched_dets: Vec<usize> = assigned.iter().map(|&(_, d, _)| d).collect();
        for &k in &cols {
            if matched_dets.contains(&k) {
                continue;
            }
            let d = dets[k];
            let repaired = self.repair_with_hindsight(d, det_sigma(d), frame);
            if !repaired.is_empty() {
                events.extend(repaired);
                continue;
            }
            let id = TrackId(self.next_id);
            self.next_id += 1;
            let confirmed = first_frame || p.confirm_frames <= 1;
            if confirmed && !first_frame {
                events.push(TrackEvent {
                    id,
                    kind: TrackEventKind::Placed {
                        from_in_table: None,
                        to_in_table: d.center_in_table,
                    },
                });
            }
            self.tracks.push(Track {
                id,
                edge: d.edge,
                base: d.base,
                position: d.center_in_table,
                facing_deg: d.facing_deg.map(wrap_deg),
                sigma_in: det_sigma(d),
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
                last_move_frame: 0,
            });
        }

        // 6. Figures not seen: a new figure that vanishes was never one; the
        //    others are held or missing, and removed when settled.
        self.tracks.retain(|t| t.confirmed || t.seen_now);
        if obs.occluded_regions_in_table.is_none() {
            let vanished: Vec<Point2<f64>> = self
                .tracks
                .iter()
                .filter(|t| {
                    t.confirmed && t.live() && !t.seen_now && t.last_seen_frame + 1 == frame
                })
                .map(|t| t.position)
                .collect();
            for region in infer_hands(&vanished, &p) {
                self.inferred.push(InferredHand {
                    region,
                    frame,
                    time_s,
                });
            }
        }
        let hands: Vec<&OccludedRegion> = observed
            .iter()
            .chain(self.inferred.iter().map(|h| &h.region))
            .collect();
        let hands_present = !hands.is_empty();
        for t in &mut self.tracks {
            if !t.live() || t.seen_now {
                continue;
            }
            t.velocity_in_per_s = Vector2::zeros();
            let under_hand = hands
                .iter()
                .any(|r| r.covers(t.position, p.cover_margin_in));
            // Gone from under a hand, or from plain view while a hand is
            // within reach (a still photo shows the hand after the lift).
            let nearest_hand = hands
                .iter()
                .map(|r| r.anchor_in_table())
                .filter(|a| (a - t.position).norm() <= p.max_move_in)
                .min_by(|a, b| (a - t.position).norm().total_cmp(&(b - t.position).norm()));
            let just_vanished = t.last_seen_frame + 1 == frame;
            if t.state == FigureState::OnTable
                && (under_hand || (just_vanished && nearest_hand.is_some()))
            {
                t.hand_anchor = nearest_hand;
                t.state = FigureState::Held;
                events.push(TrackEvent {
                    id: t.id,
                    kind: TrackEventKind::Lifted,
                });
            }
            // A held figure travels with the hand: only a clear table starts
            // its clock. A figure missing in plain view starts it at once.
            let clock_runs = match t.state {
                FigureState::Held => !hands_present,
                _ => !under_hand,
            };
            if clock_runs {
                t.unseen_frames += 1;
                t.unseen_s += dt_s;
            }
            if t.unseen_frames >= p.removal_after_frames && t.unseen_s >= p.removal_after_s {
                t.state = FigureState::Removed;
                events.push(TrackEvent {
                    id: t.id,
                    kind: TrackEventKind::Removed,
                });
            }
        }

        FrameReport {
            frame_index: frame,
            figures: self.figures(),
            events,
            inferred_hands: self.inferred.iter().map(|h| h.region.clone()).collect(),
        }
    }
}

impl Tracker {
    /// A detection that nobody explains can show that last frame's move was
    /// given to the wrong figure: figure A "moved" to Q while its twin B
    /// vanished, and now a figure stands at `d`, within reach of where A
    /// started. Then B made the move to Q and A (missed by the detector last
    /// frame) moves now to `d`: every detection is explained. The best such
    /// pair is rewritten and both moves are reported again.
    fn repair_with_hindsight(
        &mut self,
        d: &Detection,
        sigma_d_in: f64,
        frame: u64,
    ) -> Vec<TrackEvent> {
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
        let Some((_, ia, ib)) = best else {
            return Vec::new();
        };
        let a = self.tracks[ia].clone();
        let Some((from_a, step_a_in)) = a.last_step else {
            return Vec::new();
        };
        let b = &mut self.tracks[ib];
        let from_b = b.position;
        let db_in = (a.position - from_b).norm();
        b.position = a.position;
        b.facing_deg = a.facing_deg.or(b.facing_deg);
        b.sigma_in = a.sigma_in;
        b.samples = a.samples;
        b.state = FigureState::OnTable;
        b.seen_now = true;
        b.last_seen_frame = frame;
        b.sightings += 1;
        b.unseen_frames = 0;
        b.unseen_s = 0.0;
        b.hand_anchor = None;
        b.path_in += db_in;
        b.last_step = Some((from_b, db_in));
        b.last_move_frame = frame - 1;
        let b_id = b.id;
        if b.ambiguous_with == Some(a.id) {
            b.ambiguous_with = None;
        }
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
            TrackEvent {
                id: b_id,
                kind: TrackEventKind::Moved {
                    from_in_table: from_b,
                    to_in_table: a.position,
                    distance_in: db_in,
                    turned_deg: None,
                },
            },
            TrackEvent {
                id: a.id,
                kind: TrackEventKind::Moved {
                    from_in_table: from_a,
                    to_in_table: d.center_in_table,
                    distance_in: da_in,
                    turned_deg: None,
                },
            },
        ]
    }
}

/// Optimal assignment of tracks (`rows`, indices into the tracks) to
/// detections (`cols`); `cost` is `None` for a forbidden pair. Returns
/// (track, detection, cost) for every match. Each track and each detection
/// may stay unmatched at [`MISS_COST_NATS`].
fn assign(
    rows: &[usize],
    cols: &[usize],
    cost: impl Fn(usize, usize) -> Option<f64>,
) -> Vec<(usize, usize, f64)> {
    let (nr, nc) = (rows.len(), cols.len());
    if nr == 0 || nc == 0 {
        return Vec::new();
    }
    let costs: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|&r| cols.iter().map(|&c| cost(r, c)).collect())
        .collect();
    // Square matrix: tracks then one "unexplained" row per detection; the
    // detections then one "missed" column per track.
    let n = nr + nc;
    let to_units = |nats: f64| (nats * COST_SCALE_PER_NAT).round() as i64;
    let miss = to_units(MISS_COST_NATS);
    // Dearer than leaving everything unmatched, so never chosen.
    let forbidden = miss.saturating_mul(2 * n as i64 + 2);
    let mut m = Matrix::new(n, n, forbidden);
    for r in 0..nr {
        for c in 0..nc {
            if let Some(x) = costs[r][c] {
                m[(r, c)] = to_units(x);
            }
        }
        m[(r, nc + r)] = miss;
    }
    for c in 0..nc {
        m[(nr + c, c)] = miss;
        for r in 0..nr {
            m[(nr + c, nc + r)] = 0;
        }
    }
    let (_, col_of_row) = kuhn_munkres_min(&m);
    (0..nr)
        .filter_map(|r| {
            let c = col_of_row[r];
            if c < nc {
                costs[r][c].map(|x| (rows[r], cols[c], x))
            } else {
                None
            }
        })
        .collect()
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

#[cfg(test)]
mod tests;
