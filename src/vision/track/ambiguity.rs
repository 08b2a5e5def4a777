//! Step 3 of [`Tracker::update`]: moves with a close second explanation.
//!
//! When the assignment's choice is nearly matched by another (two similar
//! figures swapped, or a figure moved where another vanished), both figures
//! are flagged ambiguous and an `ambiguous` event is sent for each; the
//! player confirms or swaps them. Only deliberate changes (a move, a turn, a
//! held figure put down) are questioned, and the question is judged on the
//! figures' state before this frame, so this step runs before the matches
//! are applied.
//!
//! # Conventions
//! Costs in nats (see [`super::model`]); a second explanation is close when
//! it costs less than `ambiguity_margin_nats` more than the chosen one.

use super::associate::{Matching, match_cost};
use super::frame::Frame;
use super::model::turn_deg;
use super::{FigureState, Track, TrackEvent, TrackEventKind, Tracker};
use crate::vision::Detection;

/// What a look beyond the appearance gate adds to the evidence, nats.
const APPEARANCE_DOUBT_CAP_NATS: f64 = 12.5;

/// One match of the assignment: (track, detection, cost in nats).
type Match = (usize, usize, f64);

impl Tracker {
    /// Flags the figures whose match has a close second explanation.
    pub(super) fn flag_ambiguous(&mut self, f: &Frame, m: &Matching, events: &mut Vec<TrackEvent>) {
        for (ia, ib) in self.ambiguous_pairs(f, m) {
            if self.tracks[ia].confirmed && self.tracks[ib].confirmed {
                self.flag_pair(ia, ib, events);
            }
        }
    }

    /// Flags tracks `a` and `b` (indices) ambiguous with each other, with an
    /// `ambiguous` event for each, unless they already are.
    pub(super) fn flag_pair(&mut self, a: usize, b: usize, events: &mut Vec<TrackEvent>) {
        let (ida, idb) = (self.tracks[a].id, self.tracks[b].id);
        if self.tracks[a].ambiguous_with == Some(idb) {
            return;
        }
        for (i, with) in [(a, idb), (b, ida)] {
            self.tracks[i].ambiguous_with = Some(with);
            self.tracks[i].ambiguity_evidence_nats = 0.0;
            events.push(TrackEvent {
                id: self.tracks[i].id,
                kind: TrackEventKind::Ambiguous { with },
            });
        }
    }

    /// The tracker waits on an ambiguous pair rather than guess: each later
    /// frame in which both figures are matched adds how much better their
    /// looks (as learnt before the doubt) fit the chosen matches than the
    /// crossed ones. Once the sum passes `ambiguity_margin_nats` either way
    /// the doubt is settled: the flags clear, and the identities are
    /// swapped if the crossed explanation won.
    pub(super) fn weigh_ambiguities(&mut self, f: &Frame, m: &Matching) {
        let p = f.p;
        let det_of = |ti: usize| m.assigned.iter().find(|a| a.0 == ti).map(|a| a.1);
        for ia in 0..self.tracks.len() {
            let Some(other) = self.tracks[ia].ambiguous_with else {
                continue;
            };
            let Some(ib) = self.tracks.iter().position(|t| t.id == other) else {
                continue;
            };
            if ib < ia || self.tracks[ib].ambiguous_with != Some(self.tracks[ia].id) {
                continue;
            }
            let (Some(da), Some(db)) = (det_of(ia), det_of(ib)) else {
                continue;
            };
            let (ta, tb) = (&self.tracks[ia], &self.tracks[ib]);
            let (da, db) = (f.dets[da].appearance, f.dets[db].appearance);
            // A look beyond the gate counts as the gate: enough to settle.
            let cost = |t: &Track, d: Option<crate::vision::appearance::Appearance>| {
                p.appearance_cost(t.base, t.appearance.as_ref(), d.as_ref())
                    .unwrap_or(APPEARANCE_DOUBT_CAP_NATS)
            };
            let delta = cost(ta, db) + cost(tb, da) - cost(ta, da) - cost(tb, db);
            let evidence = ta.ambiguity_evidence_nats + delta;
            self.tracks[ia].ambiguity_evidence_nats = evidence;
            self.tracks[ib].ambiguity_evidence_nats = evidence;
            let (ida, idb) = (self.tracks[ia].id, self.tracks[ib].id);
            if evidence < -p.ambiguity_margin_nats {
                // The crossed explanation: the ids were on the wrong figures.
                let _ = self.swap_identities(ida, idb);
            } else if evidence > p.ambiguity_margin_nats {
                let _ = self.confirm(ida);
            }
        }
    }

    /// Pairs of tracks (indices) that may have been mixed up, in the order
    /// found: matched pairs whose crossed matches nearly fit as well, and a
    /// matched figure with an unmatched one that nearly fits its detection.
    fn ambiguous_pairs(&self, f: &Frame, m: &Matching) -> Vec<(usize, usize)> {
        let deliberate: Vec<bool> = m
            .assigned
            .iter()
            .map(|&(ti, di, _)| is_deliberate(f, &self.tracks[ti], f.dets[di]))
            .collect();
        let unmatched: Vec<usize> = m
            .rows
            .iter()
            .copied()
            .filter(|&r| self.tracks[r].confirmed && !m.assigned.iter().any(|&(t, _, _)| t == r))
            .collect();
        let mut flags = self.ambiguous_cycles(f, m, &deliberate);
        for (x, &a) in m.assigned.iter().enumerate() {
            for (y, &b) in m.assigned.iter().enumerate().skip(x + 1) {
                if (deliberate[x] || deliberate[y]) && self.may_be_swapped(f, a, b) {
                    flags.push((a.0, b.0));
                }
            }
            if deliberate[x] {
                let (ti, di, ci) = a;
                for &tj in &unmatched {
                    if match_cost(f, &self.tracks[tj], f.dets[di])
                        .is_some_and(|c| c - ci < f.p.ambiguity_margin_nats)
                    {
                        flags.push((ti, tj));
                    }
                }
            }
        }
        flags
    }

    /// Three figures of one kind that all moved (or were put down) may have
    /// been put down in each other's places: no swap of two explains the
    /// frame as well as the choice, but passing the three detections round
    /// (each figure to the next one's) may. For each such triple, pairs
    /// of its figures to flag: the first with the second and the third with
    /// the first (a figure holds one partner, so the first ends with the
    /// third and the second waits on the player).
    fn ambiguous_cycles(
        &self,
        f: &Frame,
        m: &Matching,
        deliberate: &[bool],
    ) -> Vec<(usize, usize)> {
        let moved: Vec<Match> = m
            .assigned
            .iter()
            .zip(deliberate)
            .filter(|(_, d)| **d)
            .map(|(a, _)| *a)
            .collect();
        let mut flags = Vec::new();
        for (x, &a) in moved.iter().enumerate() {
            for (y, &b) in moved.iter().enumerate().skip(x + 1) {
                if !self.tracks[a.0].alike(f.dets[b.1]) {
                    continue;
                }
                for &c in moved.iter().skip(y + 1) {
                    if !self.tracks[a.0].alike(f.dets[c.1]) {
                        continue;
                    }
                    if self.may_be_passed_round(f, [a, b, c]) {
                        flags.push((a.0, b.0));
                        flags.push((c.0, a.0));
                    }
                }
            }
        }
        flags
    }

    /// Whether matches `m` could as well be passed round: each figure to
    /// the next one's detection, or each to the one before's.
    fn may_be_passed_round(&self, f: &Frame, m: [Match; 3]) -> bool {
        let chosen: f64 = m.iter().map(|x| x.2).sum();
        [1, 2].into_iter().any(|shift| {
            let mut total = 0.0;
            for k in 0..3 {
                let (t, d) = (m[k].0, m[(k + shift) % 3].1);
                match match_cost(f, &self.tracks[t], f.dets[d]) {
                    Some(c) => total += c,
                    None => return false,
                }
            }
            total - chosen < f.p.ambiguity_margin_nats
        })
    }

    /// Whether matches `a` and `b` could as well be the other way round.
    fn may_be_swapped(&self, f: &Frame, a: Match, b: Match) -> bool {
        let ((ti, di, ci), (tj, dj, cj)) = (a, b);
        let (ta, tb) = (&self.tracks[ti], &self.tracks[tj]);
        let (da, db) = (f.dets[di], f.dets[dj]);
        let crossed = match_cost(f, ta, db)
            .zip(match_cost(f, tb, da))
            .map(|(x, y)| x + y);
        let close = crossed.is_some_and(|c| c - (ci + cj) < f.p.ambiguity_margin_nats);
        // Two figures that "both turned" onto each other's facing are as
        // likely swapped: the model's prior for standing still outweighs the
        // coincidence, so ask the player.
        let turned = |t: &Track, d: &Detection| {
            t.facing_deg
                .zip(d.facing_deg)
                .map(|(x, y)| f.p.is_turn(turn_deg(x, y)))
        };
        let facings_swapped = crossed.is_some()
            && turned(ta, da) == Some(true)
            && turned(tb, db) == Some(true)
            && turned(ta, db) == Some(false)
            && turned(tb, da) == Some(false);
        close || facings_swapped
    }
}

/// A deliberate change by a player, not detector noise: a held figure put
/// down, a move or a turn.
fn is_deliberate(f: &Frame, t: &Track, d: &Detection) -> bool {
    let sigma_in = t.sigma_in.hypot(f.det_sigma(d));
    t.state == FigureState::Held
        || f.p
            .is_move((d.center_in_table - t.position).norm(), sigma_in)
        || t.facing_deg
            .zip(d.facing_deg)
            .is_some_and(|(a, b)| f.p.is_turn(turn_deg(a, b)))
}
