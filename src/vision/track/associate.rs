//! Step 2 of [`Tracker::update`]: every other figure is matched to the
//! detections outside the hands by optimal assignment (Kuhn-Munkres).
//!
//! A pair's cost is the negative log-likelihood of [`super::model`]: the
//! figure's predicted position (where its last move was heading, if it was
//! seen in the last frame and the gap is short) to the detection, plus the
//! turn. A held figure may also be put down near the hand that took it. A
//! pair needs the same edge colour and base kind and a move within the gate
//! of the longest move. Leaving a figure or a detection unmatched costs far
//! more than any allowed match, so matching as many as possible comes first,
//! then the most likely set of moves and turns.
//!
//! # Conventions
//! Costs in nats; positions in table inches; indices are into the tracker's
//! tracks (rows) and the frame's usable detections (columns).

use nalgebra::Point2;
use pathfinding::prelude::{Matrix, kuhn_munkres_min};

use super::frame::Frame;
use super::model::turn_deg;
use super::{FigureState, Track, Tracker};
use crate::vision::Detection;

/// Cost of leaving a figure or a detection unmatched, nats: far above any
/// allowed match (under 20 nats with the default parameters), so that
/// matching as many as possible comes first.
const MISS_COST_NATS: f64 = 1000.0;
/// Costs are handed to the assignment as integers in these units per nat.
const COST_SCALE_PER_NAT: f64 = 1000.0;

/// What the assignment was given and what it chose.
pub(super) struct Matching {
    /// Live figures not already seen under a hand: indices into the tracks.
    pub rows: Vec<usize>,
    /// Detections outside the hands and not taken in step 1: indices into
    /// the frame's detections.
    pub cols: Vec<usize>,
    /// (track, detection, cost in nats) for every match.
    pub assigned: Vec<(usize, usize, f64)>,
}

impl Tracker {
    /// Matches the figures not yet seen to the detections not yet used.
    pub(super) fn associate(&self, f: &Frame, det_used: &[bool]) -> Matching {
        let rows: Vec<usize> = (0..self.tracks.len())
            .filter(|&i| self.tracks[i].live() && !self.tracks[i].seen_now)
            .collect();
        let duplicate = self.duplicates(f);
        let cols: Vec<usize> = (0..f.dets.len())
            .filter(|&k| !f.det_covered[k] && !det_used[k] && !duplicate[k])
            .collect();
        // Figures that stood still are matched first, the rest by optimal
        // assignment: on a crowded table most stand still, and the
        // assignment's cost grows with the cube of what it is given.
        let (mut assigned, left_rows, left_cols) = self.stood_still(f, &rows, &cols);
        assigned.extend(assign(&left_rows, &left_cols, |r, c| {
            match_cost(f, &self.tracks[r], f.dets[c])
        }));
        Matching {
            rows,
            cols,
            assigned,
        }
    }
}

impl Tracker {
    /// The figures seen on the last frame that stand where they stood: the
    /// one detection within the noise of where such a figure was, when that
    /// figure is the only one standing there. Such a pair is in every
    /// optimal assignment but for a contrived few (it has the "stayed"
    /// likelihood, higher by orders of magnitude than any move's), and
    /// matching it directly keeps the assignment to the figures that moved.
    /// Returns those matches, and the rows and columns left.
    #[allow(clippy::type_complexity)]
    fn stood_still(
        &self,
        f: &Frame,
        rows: &[usize],
        cols: &[usize],
    ) -> (Vec<(usize, usize, f64)>, Vec<usize>, Vec<usize>) {
        let p = f.p;
        let candidate = |r: usize| {
            let t = &self.tracks[r];
            t.state == FigureState::OnTable && t.last_seen_frame + 1 == f.index
        };
        // Per row and per column: how many stays, and the last one seen.
        let mut row_stays = vec![(0usize, 0usize); rows.len()];
        let mut col_stays = vec![(0usize, 0usize); cols.len()];
        for (i, &r) in rows.iter().enumerate() {
            if !candidate(r) {
                continue;
            }
            let t = &self.tracks[r];
            let at = predicted_position(f, t);
            for (j, &c) in cols.iter().enumerate() {
                let d = f.dets[c];
                if !t.alike(d) {
                    continue;
                }
                let s2 = t.sigma_in.powi(2) + f.det_sigma(d).powi(2);
                let d2 = (d.center_in_table - at).norm_squared();
                if surely_moved(d2, s2) || p.is_move(d2.sqrt(), s2.sqrt()) {
                    continue;
                }
                row_stays[i] = (row_stays[i].0 + 1, j);
                col_stays[j] = (col_stays[j].0 + 1, i);
            }
        }
        let mut matched = Vec::new();
        let (mut row_done, mut col_done) = (vec![false; rows.len()], vec![false; cols.len()]);
        for (i, &(n, j)) in row_stays.iter().enumerate() {
            if n != 1 || col_stays[j] != (1, i) {
                continue;
            }
            let (r, c) = (rows[i], cols[j]);
            if let Some(cost) = match_cost(f, &self.tracks[r], f.dets[c]) {
                matched.push((r, c, cost));
                row_done[i] = true;
                col_done[j] = true;
            }
        }
        let left = |v: &[usize], done: &[bool]| -> Vec<usize> {
            v.iter()
                .zip(done)
                .filter(|(_, d)| !**d)
                .map(|(x, _)| *x)
                .collect()
        };
        (matched, left(rows, &row_done), left(cols, &col_done))
    }
}

/// Whether a displacement (squared, `d2`, in square inches) is a move
/// whatever the model's other numbers, for a position noise of variance
/// `s2`: beyond 10 sigma the "stayed" density carries a factor of exp(-50),
/// about 2e-22, which no stay probability short of 1 - 1e-15 lifts over a
/// move's. A cheap test before [`super::TrackerParams::is_move`] (an
/// exponential, a square root) on a crowded table's many far pairs.
fn surely_moved(d2: f64, s2: f64) -> bool {
    d2 > 100.0 * s2
}

/// Where figure `t` is expected in this frame: carried on by its last move's
/// speed when it was seen in the last frame and the gap is short.
fn predicted_position(f: &Frame, t: &Track) -> Point2<f64> {
    if t.last_seen_frame + 1 == f.index && f.dt_s <= f.p.motion_max_gap_s {
        t.position + t.velocity_in_per_s * f.dt_s
    } else {
        t.position
    }
}

/// The cost, nats, of figure `t` being detection `d` in this frame; `None`
/// when it cannot be (another kind, or out of reach).
pub(super) fn match_cost(f: &Frame, t: &Track, d: &Detection) -> Option<f64> {
    let p = f.p;
    if !t.alike(d) {
        return None;
    }
    let sigma_in = t.sigma_in.hypot(f.det_sigma(d));
    let d_in = t.distance_to(predicted_position(f, t), d.center_in_table);
    if d_in > p.gate_in(sigma_in) {
        return None;
    }
    let turn = t.facing_deg.zip(d.facing_deg).map(|(a, b)| turn_deg(a, b));
    // Missed in plain view last frame, and moved now: both are rare.
    let missed = t.state == FigureState::OnTable
        && t.last_seen_frame + 1 < f.index
        && p.is_move(d_in, sigma_in);
    let reappear = if missed { p.reappear_cost_nats } else { 0.0 };
    let look = p.appearance_cost(t.base, t.appearance.as_ref(), d.appearance.as_ref())?;
    Some(p.position_cost(d_in, sigma_in) + p.facing_cost(turn) + look + reappear)
}

impl Tracker {
    /// Which detections are duplicates: closer than `min_separation_in` to
    /// another detection of the same kind that a figure standing still
    /// explains, and explained by no still figure themselves (two bases
    /// cannot overlap, so one of the two is not a figure).
    fn duplicates(&self, f: &Frame) -> Vec<bool> {
        // Where a figure stands, or where its slide carries it.
        let still = |d: &Detection| {
            self.tracks.iter().any(|t| {
                let s2 = t.sigma_in.powi(2) + f.det_sigma(d).powi(2);
                t.live()
                    && t.alike(d)
                    && [t.position, predicted_position(f, t)].iter().any(|p| {
                        let d2 = (d.center_in_table - p).norm_squared();
                        !surely_moved(d2, s2) && !f.p.is_move(d2.sqrt(), s2.sqrt())
                    })
            })
        };
        let explained: Vec<bool> = f.dets.iter().map(|d| still(d)).collect();
        (0..f.dets.len())
            .map(|k| {
                !explained[k]
                    && (0..f.dets.len()).any(|j| {
                        j != k
                            && explained[j]
                            && f.dets[j].edge == f.dets[k].edge
                            && (f.dets[j].center_in_table - f.dets[k].center_in_table).norm()
                                < f.p.min_separation_in
                    })
            })
            .collect()
    }
}

/// Optimal assignment of tracks (`rows`, indices into the tracks) to
/// detections (`cols`); `cost` is `None` for a forbidden pair. Returns
/// (track, detection, cost) for every match. Each track and each detection
/// may stay unmatched at [`MISS_COST_NATS`].
pub(super) fn assign(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::track::TrackerParams;

    #[test]
    fn what_is_surely_a_move_is_a_move_to_the_model() {
        // The shortcut may only skip pairs the model itself calls moves.
        let p = TrackerParams::default();
        for sigma in [0.005, 0.02, 0.05, 0.1, 0.3, 1.0] {
            for k in [10.001, 10.5, 12.0, 20.0, 100.0] {
                let d = k * sigma;
                assert!(surely_moved(d * d, sigma * sigma), "{k} sigma");
                assert!(p.is_move(d, sigma), "sigma {sigma}: {k} sigma is a stay");
            }
        }
    }
}
