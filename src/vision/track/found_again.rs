//! Step 5b of [`Tracker::update`]: a "new" figure that is a missing one,
//! moved.
//!
//! A figure can vanish from where it stood and turn up elsewhere in a way
//! the assignment of step 2 does not follow: between two still photos it
//! was carried with no hand seen farther than one longest move (photos a
//! turn apart), or its look changed beyond the appearance gate (the base
//! seen past a building's corner before, under other light, or the model
//! turned so that the rings sample another part of it). On one frame the
//! assignment is right to refuse such a match: a figure the detector missed
//! once must not take a false detection's place. But once the "new" figure
//! has been seen in `confirm_frames` frames, and a figure of its kind has
//! been missing in every one of them, "moved" is far likelier than "one
//! taken off the table while another of its kind was put down nearby at
//! the same moment". So a new figure is not confirmed under a fresh id
//! while such a figure can be it: the likeliest takes it (a `moved`
//! event, or `placed` for a held figure), and when a second is nearly as
//! likely the two are flagged ambiguous for the player.
//!
//! # Conventions
//! Table inches, costs in nats (see [`super::model`]), frames counted
//! from 1. A candidate is a confirmed figure on the table or held, of the
//! new figure's edge colour and base, not seen since before the new figure
//! first was, not under a hand now, and within
//! [`super::TrackerParams::found_again_reach_in`] of the new figure (of
//! where it stood, or of the hand that took it). Its cost is the position's
//! and the turn's, as in step 2, and the look's, capped at the gate
//! ([`super::TrackerParams::appearance_cost_capped`]).

use nalgebra::Vector2;

use super::apply::move_event;
use super::frame::Frame;
use super::model::{turn_deg, wrap_deg};
use super::{FigureState, Track, TrackEvent, TrackEventKind, Tracker};

impl Tracker {
    /// Gives each figure confirmed new in this frame (a `placed` event with
    /// no origin) to the missing figure it likeliest is, if any.
    pub(super) fn find_again(&mut self, f: &Frame, events: &mut Vec<TrackEvent>) {
        let new: Vec<usize> = events
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    TrackEventKind::Placed {
                        from_in_table: None,
                        ..
                    }
                )
            })
            .filter_map(|e| self.tracks.iter().position(|t| t.id == e.id))
            .collect();
        if new.is_empty() {
            return;
        }
        // Every (new, missing, cost), cheapest first; each side taken once.
        let this = &*self;
        let mut pairs: Vec<(usize, usize, f64)> = new
            .iter()
            .flat_map(|&y| {
                (0..this.tracks.len())
                    .filter_map(move |o| Some((y, o, this.found_again_cost(f, y, o)?)))
            })
            .collect();
        pairs.sort_by(|a, b| a.2.total_cmp(&b.2));
        let (mut new_taken, mut old_taken) = (Vec::new(), Vec::new());
        let mut chosen = Vec::new();
        for &(y, o, cost) in &pairs {
            if new_taken.contains(&y) || old_taken.contains(&o) {
                continue;
            }
            new_taken.push(y);
            old_taken.push(o);
            // Another missing figure nearly as likely (the cheapest such).
            let rival = pairs
                .iter()
                .find(|&&(y2, o2, c2)| y2 == y && o2 != o && c2 <= cost + f.p.ambiguity_margin_nats)
                .map(|&(_, o2, _)| o2);
            chosen.push((y, o, rival));
        }
        let mut gone = Vec::new();
        for (y, o, rival) in chosen {
            let young = self.tracks[y].clone();
            events.retain(|e| e.id != young.id);
            events.push(take_over(f, &mut self.tracks[o], &young));
            if let Some(r) = rival {
                self.flag_pair(o, r, events);
            }
            gone.push(young.id);
        }
        self.tracks.retain(|t| !gone.contains(&t.id));
    }

    /// The cost, nats, of new track `y` being missing figure `o` moved;
    /// `None` when `o` cannot be it.
    fn found_again_cost(&self, f: &Frame, y: usize, o: usize) -> Option<f64> {
        let p = f.p;
        let (young, old) = (&self.tracks[y], &self.tracks[o]);
        let candidate = o != y
            && old.confirmed
            && old.live()
            && !old.seen_now
            && old.edge == young.edge
            && old.base == young.base
            && old.last_seen_frame < young.first_seen_frame
            && !f.covered(old.position);
        if !candidate {
            return None;
        }
        let sigma_in = old.sigma_in.hypot(young.sigma_in);
        let d_in = old.distance_to(old.position, young.position);
        if d_in > p.found_again_reach_in(sigma_in) {
            return None;
        }
        let turn = old
            .facing_deg
            .zip(young.facing_deg)
            .map(|(a, b)| turn_deg(a, b));
        let young_look = young
            .appearance
            .map(crate::vision::appearance::Appearance::from_features);
        let look = p.appearance_cost_capped(old.base, old.appearance.as_ref(), young_look.as_ref());
        Some(p.position_cost(d_in, sigma_in) + p.facing_cost(turn) + look)
    }
}

/// Missing figure `old` is the new track `young`: it takes the new track's
/// place, look and sightings, and the move joins its turn's path. Returns
/// its `moved` event (`placed` for a held figure).
fn take_over(f: &Frame, old: &mut Track, young: &Track) -> TrackEvent {
    let from = old.position;
    let dist_in = (young.position - from).norm();
    let turned_deg = old
        .facing_deg
        .zip(young.facing_deg)
        .map(|(a, b)| turn_deg(a, b));
    let was_held = old.state == FigureState::Held;
    old.position = young.position;
    old.facing_deg = young.facing_deg.map(wrap_deg).or(old.facing_deg);
    old.sigma_in = young.sigma_in;
    old.samples = young.samples;
    old.state = FigureState::OnTable;
    old.hand_anchor = None;
    old.under_hand_at = None;
    old.velocity_in_per_s = Vector2::zeros();
    // The look it had is the one that changed.
    old.appearance = young.appearance;
    old.appearance_samples = young.appearance_samples;
    old.path_in += dist_in;
    old.last_step = Some((from, dist_in));
    // It moved when the new figure first appeared: seen there in every
    // frame since, so not a move of one frame that hindsight may give to a
    // twin.
    old.last_move_frame = young.first_seen_frame;
    old.see(f.index);
    TrackEvent {
        id: old.id,
        kind: move_event(was_held, from, young.position, dist_in, turned_deg),
    }
}
