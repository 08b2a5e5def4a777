//! The tracker's parameters and its model of how figures move between two
//! frames, as negative log-likelihoods (nats) for the assignment.
//!
//! # Conventions
//! Distances in table inches, angles in degrees. A cost is `-ln(p / p_best)`:
//! zero for the most likely change (none at all) and growing as a change
//! becomes less likely, so costs of different pairs add up and compare.
//!
//! Between two frames a figure either stays (its detections differ only by
//! detector noise, Gaussian with the combined 1-sigma) or is moved by a
//! player: the distance of a deliberate move is taken as uniform up to the
//! longest move, so the density per square inch falls as 1/d. Facing is
//! modelled the same way: kept (noise only) or turned (any angle equally).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::spec::{SourceFile, SpecError};
use crate::vision::BaseKind;
use crate::vision::appearance::{Appearance, FEATURES};

/// Beyond this appearance cost, nats (five sigmas over all features), a
/// detection is not the figure: one base does not change its look so much
/// between frames.
const APPEARANCE_GATE_NATS: f64 = 12.5;

/// Field names of the two appearance spreads, feature by feature, for
/// [`TrackerParams::problems`].
const APPEARANCE_SIGMA_NAMES: [&str; FEATURES] = [
    "appearance_sigmas[0]",
    "appearance_sigmas[1]",
    "appearance_sigmas[2]",
    "appearance_sigmas[3]",
    "appearance_sigmas[4]",
];
const MOUNTED_APPEARANCE_SIGMA_NAMES: [&str; FEATURES] = [
    "mounted_appearance_sigmas[0]",
    "mounted_appearance_sigmas[1]",
    "mounted_appearance_sigmas[2]",
    "mounted_appearance_sigmas[3]",
    "mounted_appearance_sigmas[4]",
];

/// How far outside `max_move_in` a detection may still match, in sigmas of
/// the position noise: a 12 in move measured with noise reads a little long.
const GATE_SIGMAS: f64 = 3.0;
/// Longest moves a figure may have made between two photos when it is
/// found again as a "new" figure (step 5b of the tracker): two, for photos
/// taken a turn apart.
pub const FOUND_AGAIN_MOVES: f64 = 2.0;

/// Everything the tracker can be tuned by. The defaults suit both a live
/// camera (a few frames a second or more) and a series of still photos taken
/// after each move: every "settled time" is counted in frames AND seconds,
/// and both must pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrackerParams {
    /// Longest move between two frames that is followed, inches (the rules'
    /// longest move is 12 in).
    pub max_move_in: f64,
    /// Prior probability that a figure is not moved between two frames.
    pub stay_probability: f64,
    /// Prior probability that a figure's facing is not changed.
    pub keep_facing_probability: f64,
    /// 1-sigma noise of the detector's facing, degrees.
    pub facing_sigma_deg: f64,
    /// Floor for a detection's position sigma, inches (a detector that
    /// reports 0 is not believed to be perfect).
    pub min_position_sigma_in: f64,
    /// A figure is under a hand when its centre is this close to the covered
    /// area, inches: half the long side of a mounted base, plus slack.
    pub cover_margin_in: f64,
    /// While covered, a figure counts as still seen when a detection of its
    /// kind lies this close to where it was, inches.
    pub covered_confirm_radius_in: f64,
    /// A figure missing (and not under a hand) for at least this many frames...
    pub removal_after_frames: u32,
    /// ...and at least this many seconds is reported removed.
    pub removal_after_s: f64,
    /// A figure that appears after the first frame is reported once seen in
    /// this many frames (a single false detection must not become a figure).
    pub confirm_frames: u32,
    /// When the second-best explanation of a move is within this many nats of
    /// the best (a likelihood ratio of e^margin), both figures are flagged
    /// ambiguous for the player to confirm.
    pub ambiguity_margin_nats: f64,
    /// When the detector does not report hands: this many figures vanishing
    /// together, all within `inferred_hand_span_in` of each other, are taken
    /// as covered by a hand.
    pub inferred_hand_min_figures: usize,
    pub inferred_hand_span_in: f64,
    /// An inferred hand is assumed over the table for this many frames and
    /// seconds (both) after it was inferred.
    pub inferred_hand_frames: u32,
    pub inferred_hand_s: f64,
    /// A hand whose anchor lies within this of a hand's in the last frame
    /// has not moved, inches: it did not lift a figure that vanished from
    /// plain view elsewhere (the hand finder may also take a static thing,
    /// a building's dark roof, for a hand in every frame).
    pub still_hand_in: f64,
    /// Velocity is only estimated from two sightings at most this far apart,
    /// seconds: a figure slid along the table, not one carried between photos.
    pub motion_max_gap_s: f64,
    /// A figure that stays put has its position averaged over up to this many
    /// frames.
    pub average_window: u32,
    /// 1-sigma spread of one base's appearance features between frames, per
    /// feature of [`Appearance::features`] (log ratios), read off the tune
    /// sequences (rendered seed 31): the groundwork's colour moves most
    /// (the model turns over it), its brightness against the band least.
    pub appearance_sigmas: [f64; FEATURES],
    /// The same spread for a mounted base. The rings of [`Appearance`] are
    /// round the centre, where a mounted base carries its horse, and they
    /// cross both band and groundwork of the 1 x 2 in base: once the figure
    /// is moved and seen from elsewhere they read another part of the horse.
    /// Read off the tune sequences (rendered seed 33 and the DEV seq01): a
    /// moved mounted base's features change by an RMS of 0.15, 0.12, 0.21,
    /// 0.08 and 0.10 (17 moves; a still one's by 0.06 to 0.10), against at
    /// most 0.06 for a foot base moved or still.
    pub mounted_appearance_sigmas: [f64; FEATURES],
    /// A figure's appearance is the running mean of up to this many frames
    /// (it changes slowly: light, a hand's shadow).
    pub appearance_window: u32,
    /// Extra cost, nats, of a figure that was missed in plain view in the
    /// last frame being the one that moved now: the detector rarely misses a
    /// figure in plain view (about one in twenty), so a figure seen just
    /// before is the likelier mover.
    pub reappear_cost_nats: f64,
    /// Two bases of the kit cannot stand closer than this, centre to centre,
    /// inches (a foot base is 1 in across and a mounted one 1 in wide, less
    /// the detector's noise): a detection that overlaps one a still figure
    /// explains is a duplicate, not a figure moved there.
    pub min_separation_in: f64,
}

impl Default for TrackerParams {
    fn default() -> Self {
        Self {
            max_move_in: 12.0,
            stay_probability: 0.9,
            keep_facing_probability: 0.6,
            facing_sigma_deg: 6.0,
            min_position_sigma_in: 0.02,
            cover_margin_in: 1.0,
            covered_confirm_radius_in: 0.75,
            removal_after_frames: 2,
            removal_after_s: 3.0,
            confirm_frames: 2,
            ambiguity_margin_nats: 2.0,
            inferred_hand_min_figures: 2,
            inferred_hand_span_in: 6.0,
            inferred_hand_frames: 2,
            inferred_hand_s: 3.0,
            still_hand_in: 1.0,
            motion_max_gap_s: 0.5,
            average_window: 8,
            appearance_sigmas: [0.15, 0.1, 0.06, 0.12, 0.1],
            mounted_appearance_sigmas: [0.16, 0.13, 0.21, 0.12, 0.1],
            appearance_window: 10,
            reappear_cost_nats: 3.0,
            min_separation_in: 0.9,
        }
    }
}

impl TrackerParams {
    /// Loads a parameter file (TOML, any subset of the fields; the rest keep
    /// their defaults) and checks it.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::read(path)?)
    }

    pub fn from_source(src: &SourceFile) -> Result<Self, SpecError> {
        let params: Self = src.parse_toml()?;
        let problems = params.problems();
        src.checked(params, problems)
    }

    /// Every value that makes no sense, by field name.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        crate::spec::check_positive(
            &mut out,
            &[
                ("max_move_in", self.max_move_in),
                ("facing_sigma_deg", self.facing_sigma_deg),
                ("min_position_sigma_in", self.min_position_sigma_in),
                ("ambiguity_margin_nats", self.ambiguity_margin_nats),
                ("inferred_hand_span_in", self.inferred_hand_span_in),
            ],
        );
        let sigmas = APPEARANCE_SIGMA_NAMES
            .into_iter()
            .zip(self.appearance_sigmas)
            .chain(
                MOUNTED_APPEARANCE_SIGMA_NAMES
                    .into_iter()
                    .zip(self.mounted_appearance_sigmas),
            );
        crate::spec::check_positive(&mut out, &sigmas.collect::<Vec<_>>());
        crate::spec::check_non_negative(
            &mut out,
            &[
                ("cover_margin_in", self.cover_margin_in),
                ("covered_confirm_radius_in", self.covered_confirm_radius_in),
                ("removal_after_s", self.removal_after_s),
                ("inferred_hand_s", self.inferred_hand_s),
                ("still_hand_in", self.still_hand_in),
                ("motion_max_gap_s", self.motion_max_gap_s),
                ("reappear_cost_nats", self.reappear_cost_nats),
                ("min_separation_in", self.min_separation_in),
            ],
        );
        for (name, p) in [
            ("stay_probability", self.stay_probability),
            ("keep_facing_probability", self.keep_facing_probability),
        ] {
            if !(p > 0.0 && p < 1.0) {
                out.push((name, format!("{p} must lie strictly between 0 and 1")));
            }
        }
        for (name, n) in [
            ("removal_after_frames", self.removal_after_frames),
            ("confirm_frames", self.confirm_frames),
            ("average_window", self.average_window),
            ("appearance_window", self.appearance_window),
        ] {
            if n == 0 {
                out.push((name, "must be at least 1".to_owned()));
            }
        }
        if self.inferred_hand_min_figures < 2 {
            out.push((
                "inferred_hand_min_figures",
                "must be at least 2: one figure vanishing alone says nothing about a hand"
                    .to_owned(),
            ));
        }
        out
    }

    /// Largest distance a detection may be from a figure's prediction and
    /// still be that figure, inches.
    pub fn gate_in(&self, sigma_in: f64) -> f64 {
        self.max_move_in + GATE_SIGMAS * sigma_in
    }

    /// The two densities of a displacement `d_in` (per square inch): (stayed
    /// and seen with noise `sigma_in`, moved by a player).
    fn position_densities(&self, d_in: f64, sigma_in: f64) -> (f64, f64) {
        let tau = std::f64::consts::TAU;
        let var = sigma_in * sigma_in;
        let stay = self.stay_probability * (-d_in * d_in / (2.0 * var)).exp() / (tau * var);
        // Uniform distance up to the longest move; below the noise level the
        // 1/d density is capped so that it stays finite.
        let moved = (1.0 - self.stay_probability) / (tau * d_in.max(sigma_in) * self.max_move_in);
        (stay, moved)
    }

    /// Cost of seeing a figure `d_in` from where it was expected, nats.
    ///
    /// Not normalised per figure: figures whose positions are known to
    /// different precision must compare on one scale. The offset is the
    /// density of a perfectly still figure at the smallest sigma believed.
    pub fn position_cost(&self, d_in: f64, sigma_in: f64) -> f64 {
        let sigma_in = sigma_in.max(self.min_position_sigma_in);
        let (s0, m0) = self.position_densities(0.0, self.min_position_sigma_in);
        let (s, m) = self.position_densities(d_in, sigma_in);
        ((s0 + m0) / (s + m)).ln()
    }

    /// Whether a displacement is better explained by a player's move than by
    /// noise.
    pub fn is_move(&self, d_in: f64, sigma_in: f64) -> bool {
        let (stay, moved) = self.position_densities(d_in, sigma_in);
        moved > stay
    }

    /// The two densities of a facing change (per degree): (kept, turned).
    fn facing_densities(&self, turn_deg: f64) -> (f64, f64) {
        let s = self.facing_sigma_deg;
        let kept = self.keep_facing_probability * (-turn_deg * turn_deg / (2.0 * s * s)).exp()
            / (s * std::f64::consts::TAU.sqrt());
        let turned = (1.0 - self.keep_facing_probability) / 360.0;
        (kept, turned)
    }

    /// Cost of a facing change, nats. `None` (the front mark not seen
    /// before or after) costs what any facing would, uniform over the
    /// circle: a figure whose facing is unknown must not look a better match
    /// than one seen to keep its facing.
    pub fn facing_cost(&self, turn_deg: Option<f64>) -> f64 {
        let (k0, u0) = self.facing_densities(0.0);
        match turn_deg {
            None => ((k0 + u0) * 360.0).ln(),
            Some(t) => {
                let (k, u) = self.facing_densities(t);
                ((k0 + u0) / (k + u)).ln()
            }
        }
    }

    /// Cost of a detection's appearance `seen` against a figure's `known`
    /// one (features of [`Appearance::features`]), for a base of kind
    /// `base`, nats: Gaussian with `appearance_sigmas` (a foot base) or
    /// `mounted_appearance_sigmas`. `None` beyond the gate: a base that looks that
    /// different is another figure. Unknown on either side costs what a
    /// match costs on average (half the number of features), so that it
    /// never looks better than a matching look.
    pub fn appearance_cost(
        &self,
        base: BaseKind,
        known: Option<&[f64; FEATURES]>,
        seen: Option<&Appearance>,
    ) -> Option<f64> {
        let (Some(k), Some(s)) = (known, seen) else {
            return Some(0.5 * FEATURES as f64);
        };
        let z2: f64 = k
            .iter()
            .zip(s.features())
            .zip(self.appearance_sigmas_of(base))
            .map(|((a, b), sigma)| ((a - b) / sigma).powi(2))
            .sum();
        let cost = 0.5 * z2;
        (cost <= APPEARANCE_GATE_NATS).then_some(cost)
    }

    /// [`Self::appearance_cost`] where the look may have changed for a
    /// reason the model does not see (the base seen past a building's
    /// corner, under other light, the model turned so that the rings sample
    /// another part of it): beyond the gate it costs the gate, so that a
    /// look that fits still wins over one that does not, but forbids
    /// nothing.
    pub fn appearance_cost_capped(
        &self,
        base: BaseKind,
        known: Option<&[f64; FEATURES]>,
        seen: Option<&Appearance>,
    ) -> f64 {
        self.appearance_cost(base, known, seen)
            .unwrap_or(APPEARANCE_GATE_NATS)
    }

    /// How far a figure missing since a "new" one of its kind appeared may
    /// have gone to be it, inches: [`FOUND_AGAIN_MOVES`] longest moves, plus
    /// the noise.
    pub fn found_again_reach_in(&self, sigma_in: f64) -> f64 {
        FOUND_AGAIN_MOVES * self.max_move_in + GATE_SIGMAS * sigma_in
    }

    /// The spread of a base's appearance between frames, per feature.
    pub fn appearance_sigmas_of(&self, base: BaseKind) -> [f64; FEATURES] {
        match base {
            BaseKind::Foot => self.appearance_sigmas,
            BaseKind::Mounted => self.mounted_appearance_sigmas,
        }
    }

    /// Whether a facing change is better explained by a player's turn than
    /// by noise.
    pub fn is_turn(&self, turn_deg: f64) -> bool {
        let (kept, turned) = self.facing_densities(turn_deg);
        turned > kept
    }
}

/// Signed smallest turn from `from_deg` to `to_deg`, in (-180, 180].
pub fn turn_deg(from_deg: f64, to_deg: f64) -> f64 {
    let t = (to_deg - from_deg).rem_euclid(360.0);
    if t > 180.0 { t - 360.0 } else { t }
}

/// An angle brought into [0, 360).
pub fn wrap_deg(a_deg: f64) -> f64 {
    let a = a_deg.rem_euclid(360.0);
    // rem_euclid can return exactly 360.0 for tiny negative inputs.
    if a >= 360.0 { 0.0 } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn defaults_are_sane() {
        assert!(TrackerParams::default().problems().is_empty());
        let bad = TrackerParams {
            stay_probability: 1.0,
            removal_after_frames: 0,
            ..TrackerParams::default()
        };
        let names: Vec<_> = bad.problems().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["stay_probability", "removal_after_frames"]);
    }

    #[test]
    fn a_parameter_file_sets_some_fields_and_names_bad_ones() {
        let src = SourceFile::from_text("t.toml", "max_move_in = 6.0\nremoval_after_s = 10.0\n");
        let p = TrackerParams::from_source(&src).unwrap();
        assert_relative_eq!(p.max_move_in, 6.0);
        assert_eq!(
            p.removal_after_frames,
            TrackerParams::default().removal_after_frames
        );
        let src = SourceFile::from_text("t.toml", "# tuned\nstay_probability = 2.0\n");
        let err = TrackerParams::from_source(&src).unwrap_err();
        assert_eq!(err.problems[0].field, "stay_probability");
        assert_eq!(err.problems[0].line, Some(2));
        let src = SourceFile::from_text("t.toml", "max_move = 6.0\n");
        let err = TrackerParams::from_source(&src).unwrap_err();
        assert_eq!(err.problems[0].line, Some(1), "{err}");
    }

    /// The spread measured on the tune sequences for a moved mounted base
    /// (RMS 0.15, 0.12, 0.21, 0.08, 0.10): such a change is within the
    /// gate for a mounted base, but beyond it for a foot base, whose look
    /// changes by at most 0.06 RMS.
    #[test]
    fn a_mounted_look_may_change_more_than_a_foot_look() {
        let p = TrackerParams::default();
        let known = [0.1, -0.1, 0.1, -0.4, -0.6];
        let rms = [0.15, 0.12, 0.21, 0.08, 0.10];
        // Twice the RMS on every feature at once: a rare, large change.
        let seen = Appearance::from_features(std::array::from_fn(|k| known[k] + 2.0 * rms[k]));
        let mounted = p.appearance_cost(BaseKind::Mounted, Some(&known), Some(&seen));
        assert!(mounted.is_some_and(|c| c < 12.5), "{mounted:?}");
        assert_eq!(
            p.appearance_cost(BaseKind::Foot, Some(&known), Some(&seen)),
            None
        );
        // The same look costs nothing either way.
        let same = Appearance::from_features(known);
        for base in [BaseKind::Foot, BaseKind::Mounted] {
            assert_relative_eq!(
                p.appearance_cost(base, Some(&known), Some(&same)).unwrap(),
                0.0
            );
        }
    }

    #[test]
    fn costs_start_at_zero_and_grow() {
        let p = TrackerParams::default();
        assert_relative_eq!(p.position_cost(0.0, p.min_position_sigma_in), 0.0);
        // A figure known to less precision is not favoured for it.
        assert!(p.position_cost(0.0, 0.05) > 0.0);
        assert!(p.position_cost(8.0, 0.02) < p.position_cost(8.5, 0.05));
        assert_relative_eq!(p.facing_cost(Some(0.0)), 0.0);
        // Unknown facing: dearer than a kept one, cheaper than a sure turn.
        assert!(p.facing_cost(None) > p.facing_cost(Some(5.0)));
        assert!(p.facing_cost(None) < p.facing_cost(Some(90.0)));
        let mut last = p.position_cost(0.0, 0.05);
        for d in [0.05, 0.2, 1.0, 4.0, 11.0] {
            let c = p.position_cost(d, 0.05);
            assert!(c > last, "cost {c} at {d} in");
            last = c;
        }
        assert!(p.facing_cost(Some(90.0)) > p.facing_cost(Some(10.0)));
        assert_relative_eq!(p.facing_cost(Some(-30.0)), p.facing_cost(Some(30.0)));
    }

    #[test]
    fn noise_is_not_a_move_but_a_quarter_inch_is() {
        let p = TrackerParams::default();
        assert!(!p.is_move(0.1, 0.05));
        assert!(p.is_move(0.3, 0.05));
        assert!(!p.is_turn(5.0));
        assert!(p.is_turn(25.0));
    }

    #[test]
    fn two_long_moves_beat_a_swap_that_needs_two_about_turns() {
        // Two figures each moved about 10 in and barely turned, against the
        // crossed explanation (shorter moves but turns of about 90 degrees).
        let p = TrackerParams::default();
        let s = 0.05;
        let straight = p.position_cost(9.92, s)
            + p.position_cost(10.49, s)
            + p.facing_cost(Some(10.9))
            + p.facing_cost(Some(3.7));
        let crossed = p.position_cost(10.04, s)
            + p.position_cost(4.9, s)
            + p.facing_cost(Some(104.0))
            + p.facing_cost(Some(89.0));
        assert!(
            crossed - straight > p.ambiguity_margin_nats,
            "{straight} {crossed}"
        );
    }

    #[test]
    fn angles_wrap() {
        assert_relative_eq!(turn_deg(350.0, 10.0), 20.0);
        assert_relative_eq!(turn_deg(10.0, 350.0), -20.0);
        assert_relative_eq!(wrap_deg(-90.0), 270.0);
        assert_relative_eq!(wrap_deg(720.5), 0.5);
    }
}
