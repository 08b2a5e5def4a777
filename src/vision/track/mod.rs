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
//! 5. A new figure is reported once seen in `confirm_frames` frames; if a
//!    figure of its kind has been missing all that time, within two longest
//!    moves, the new one is that figure moved (whatever its look now), not a
//!    figure taken off while another was put down.
//!
//! # Where each step lives
//! [`Tracker::update`] runs these steps in order, one file each:
//! 0. `frame.rs`: the clock advances; the usable detections, and which of
//!    them lie under a hand.
//! 1. `covered.rs`: figures under a hand hold (1 above).
//! 2. `associate.rs`: the prediction, the cost of a match and the optimal
//!    assignment (2).
//! 3. `ambiguity.rs`: moves with a close second explanation (3).
//! 4. `apply.rs`: the matches applied: moves, turns, stillness, and new
//!    figures confirmed.
//! 5. `new_figures.rs`: unexplained detections become new figures, unless
//!    `hindsight.rs` shows that last frame's move went to the wrong twin.
//!    `found_again.rs`: a new figure about to be confirmed is a figure
//!    missing since it appeared, moved, when one such can be it.
//! 6. `missing.rs`: figures not seen are held, or removed when settled (4).

pub mod model;
pub mod region;

mod ambiguity;
mod apply;
mod associate;
mod covered;
mod found_again;
mod frame;
mod hindsight;
mod missing;
mod new_figures;

use nalgebra::{Point2, Vector2};
use serde::{Deserialize, Serialize};

use crate::vision::{BaseKind, Detection, EdgeColour};
pub use model::TrackerParams;
use model::{turn_deg, wrap_deg};
pub use region::OccludedRegion;

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
    /// While held: the last detection of its kind seen under a hand where
    /// no other figure stands. A still photo may catch the hand putting it
    /// down there, and the next one the figure moved on from there.
    under_hand_at: Option<Point2<f64>>,
    /// Frame of the last move (0: none yet).
    last_move_frame: u64,
    /// Frame it was first seen in.
    first_seen_frame: u64,
    /// The base's appearance features (running mean) and how many frames
    /// went into them. Not learnt while the figure is ambiguous: the look
    /// it had before is what tells the two apart.
    appearance: Option<[f64; crate::vision::appearance::FEATURES]>,
    appearance_samples: u32,
    /// While ambiguous: the evidence, nats, that the two figures were
    /// mixed up (crossed explanation's cost less the chosen one's, summed
    /// over the frames since; negative favours the swap).
    ambiguity_evidence_nats: f64,
}

impl Track {
    fn alike(&self, d: &Detection) -> bool {
        self.edge == d.edge && self.base == d.base
    }

    /// How far the figure went if it stood at `from` (where it was, or
    /// where its slide carries it) and is now at `at`, inches. A held
    /// figure is in the hand: it may also be put down near where the hand
    /// took it, or where one of its kind was seen under the hand.
    fn distance_to(&self, from: Point2<f64>, at: Point2<f64>) -> f64 {
        let mut d_in = (at - from).norm();
        if self.state == FigureState::Held {
            for a in self.hand_anchor.iter().chain(&self.under_hand_at) {
                d_in = d_in.min((at - a).norm());
            }
        }
        d_in
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

    /// Takes a detection's appearance into the running mean (not while the
    /// figure is ambiguous).
    fn learn_appearance(&mut self, d: &Detection, window: u32) {
        let Some(a) = d.appearance else { return };
        if self.ambiguous_with.is_some() {
            return;
        }
        let f = a.features();
        self.appearance_samples = (self.appearance_samples + 1).min(window);
        let w = 1.0 / f64::from(self.appearance_samples);
        let mean = self.appearance.get_or_insert(f);
        for (m, x) in mean.iter_mut().zip(f) {
            *m += (x - *m) * w;
        }
    }

    /// Seen in frame `frame`: its missing clock is reset.
    fn see(&mut self, frame: u64) {
        self.seen_now = true;
        self.last_seen_frame = frame;
        self.sightings += 1;
        self.unseen_frames = 0;
        self.unseen_s = 0.0;
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
    /// The frame before this one, and where the hands the detector
    /// reported in it were (their anchors).
    last_hands: Option<(u64, Vec<Point2<f64>>)>,
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
            last_hands: None,
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
        self.tracks[i].ambiguity_evidence_nats = 0.0;
        if let Some(other) = self.tracks[i].ambiguous_with.take()
            && let Ok(j) = self.index_of(other)
            && self.tracks[j].ambiguous_with == Some(id)
        {
            self.tracks[j].ambiguous_with = None;
            self.tracks[j].ambiguity_evidence_nats = 0.0;
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
            new.under_hand_at = other.under_hand_at;
            let (from, step_in) = old.last_step.unwrap_or((old.position, 0.0));
            let redone_in = (other.position - from).norm();
            new.path_in = (old.path_in - step_in + redone_in).max(0.0);
            new.last_step = Some((from, redone_in));
            new.ambiguous_with = None;
            new.ambiguity_evidence_nats = 0.0;
        }
        self.tracks[i] = na;
        self.tracks[j] = nb;
        Ok(())
    }

    /// Takes in one frame and reports every figure and what happened. The
    /// steps run in the order of the module doc, each in its own file.
    pub fn update(&mut self, obs: &FrameObservation) -> FrameReport {
        let p = self.params.clone();
        let f = self.start_frame(obs, &p);
        let mut events = Vec::new();
        let det_used = self.hold_covered(&f, &mut events);
        let det_used = self.put_back_in_place(&f, det_used, &mut events);
        let matching = self.associate(&f, &det_used);
        // Judged on the state before this frame, so before the matches apply.
        self.flag_ambiguous(&f, &matching, &mut events);
        self.apply_matches(&f, &matching, &mut events);
        self.weigh_ambiguities(&f, &matching);
        self.add_new_figures(&f, &matching, &mut events);
        self.find_again(&f, &mut events);
        self.settle_missing(&f, &mut events);
        FrameReport {
            frame_index: f.index,
            figures: self.figures(),
            events,
            inferred_hands: self.inferred.iter().map(|h| h.region.clone()).collect(),
        }
    }
}

#[cfg(test)]
mod tests;
