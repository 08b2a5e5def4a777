//! How sure the detector is of each figure: the measured evidence behind a
//! fitted base, and a logistic model that turns it into the probability
//! that the figure is real.
//!
//! # Conventions
//! Evidence is measured, not guessed: shares are 0..1 of samples, the band
//! width is a ratio to the kit's `band_width_in`, the colour contrast is the
//! band-to-table colour distance over the table's own spread (a noise
//! level), scales are photo pixels per table inch at the base. The model's
//! weights live in `calibration/vision.toml` (`[confidence]`), fitted on
//! rendered tables the detector was not tuned on
//! (`fixtures/unseen/README.md` says how).

use serde::Serialize;

/// Features of the model, in the order of `confidence.weights`.
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "score",
    "edge_share",
    "ln_rms_px",
    "ln_contrast",
    "band_width_off",
    "inside_band_like",
    "outside_band_like",
    "ln_px_per_in",
    "mounted",
    "faint",
];

/// Number of model features.
pub const FEATURES: usize = 10;

/// Offsets inside the logarithms (no log of zero): RMS in pixels and
/// contrast in noise units.
const RMS_FLOOR_PX: f64 = 0.05;
const CONTRAST_FLOOR: f64 = 0.5;
/// Contrast above this many noise units says nothing more.
const CONTRAST_CAP: f64 = 60.0;

/// What was measured about one fitted base.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Evidence {
    pub mounted: bool,
    /// Ring (or rectangle) score: share of the band line in the colour,
    /// less the inside's.
    pub score: f64,
    /// Share of the edge samples on which the band's outer edge was found.
    pub edge_share: f64,
    /// RMS of the outer-edge fit, photo pixels.
    pub rms_px: f64,
    /// Band-to-table colour distance over the table's colour spread.
    pub contrast: f64,
    /// Median labelled run across the band, over the kit's band width.
    pub band_width_ratio: f64,
    /// Shares of the inside (groundwork) and of a ring round the base with
    /// the band's hue and saturation (terrain is band-like all over).
    pub inside_band_like: f64,
    pub outside_band_like: f64,
    /// Photo pixels per table inch at the base.
    pub photo_px_per_in: f64,
    /// Found by the faint-ring test.
    pub faint: bool,
    /// The front mark's evidence, when a mark was found.
    pub facing: Option<FacingEvidence>,
}

/// What was measured about a front mark.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct FacingEvidence {
    /// Blackness of the arc over the blacker of its flanks (a mounted
    /// base: front edge over back edge).
    pub contrast: f64,
    /// Blackness of the arc (1 black, 0 band).
    pub blackness: f64,
    /// The best rival arc's contrast over this one's.
    pub rival_share: f64,
    /// Width seen between the arc's edges over the kit's arc (0 when an
    /// edge was not found).
    pub width_share: f64,
    /// Edges of the arc found (0..2).
    pub edges: u8,
    /// Angle between the arc and the direction toward the camera's nadir,
    /// degrees (0..180; past 90 the model may hide part of it).
    pub from_nadir_deg: f64,
    /// Longest stretch of the band away from the arc where the band is not
    /// seen (neither the band's colour nor dark: terrain, a hand or the
    /// model over it), degrees: the mark may lie hidden there.
    pub hidden_deg: f64,
    /// Angle of the line of sight from the vertical at the base, degrees:
    /// the farther from it, the more of the band beyond the model the model
    /// hides.
    pub view_deg: f64,
    /// Where the mark points, table degrees, whether the facing is given
    /// or withheld (for measuring the withholding).
    pub deg: f64,
}

impl Evidence {
    /// The model's inputs.
    pub fn features(&self) -> [f64; FEATURES] {
        let width = if self.band_width_ratio > 0.0 {
            self.band_width_ratio.ln().abs()
        } else {
            // No run across the band found: as far off as it gets.
            2.0
        };
        [
            self.score,
            self.edge_share,
            (self.rms_px.max(0.0) + RMS_FLOOR_PX).ln(),
            (self.contrast.clamp(0.0, CONTRAST_CAP) + CONTRAST_FLOOR).ln(),
            width.min(2.0),
            self.inside_band_like,
            self.outside_band_like,
            self.photo_px_per_in.max(1.0).ln(),
            f64::from(u8::from(self.mounted)),
            f64::from(u8::from(self.faint)),
        ]
    }
}

/// Logistic model: p = 1 / (1 + exp(-(bias + w . features))).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfidenceModel {
    pub bias: f64,
    pub weights: [f64; FEATURES],
    /// Figures below this probability are not reported at all.
    pub min_report: f64,
    /// Figures below this are reported as uncertain: drawn apart in the
    /// app, never bound to a roster entry automatically.
    pub min_certain: f64,
}

impl ConfidenceModel {
    /// Probability that a base with this evidence is a real figure.
    pub fn probability(&self, e: &Evidence) -> f64 {
        let z = self.bias
            + self
                .weights
                .iter()
                .zip(e.features())
                .map(|(w, x)| w * x)
                .sum::<f64>();
        if !z.is_finite() {
            return 0.0;
        }
        1.0 / (1.0 + (-z).exp())
    }
}

/// Confidence at or above which a figure counts as certain, when the
/// caller has no detector parameters at hand (the app's default).
pub const DEFAULT_MIN_CERTAIN: f64 = 0.8;

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> ConfidenceModel {
        ConfidenceModel {
            bias: -2.0,
            weights: [4.0, 2.0, -0.5, 0.5, -2.0, -1.0, -1.0, 0.0, 0.0, -0.5],
            min_report: 0.3,
            min_certain: 0.8,
        }
    }

    #[test]
    fn clear_evidence_is_surer_than_murky() {
        let clear = Evidence {
            score: 0.9,
            edge_share: 0.95,
            rms_px: 0.3,
            contrast: 20.0,
            band_width_ratio: 1.0,
            inside_band_like: 0.0,
            outside_band_like: 0.0,
            photo_px_per_in: 30.0,
            ..Evidence::default()
        };
        let murky = Evidence {
            score: 0.45,
            edge_share: 0.4,
            rms_px: 1.5,
            contrast: 2.0,
            band_width_ratio: 2.5,
            inside_band_like: 0.6,
            outside_band_like: 0.4,
            faint: true,
            ..clear
        };
        let m = model();
        let (a, b) = (m.probability(&clear), m.probability(&murky));
        assert!(a > 0.9 && b < 0.3, "{a} {b}");
    }

    #[test]
    fn a_missing_band_width_counts_as_far_off() {
        let e = Evidence {
            band_width_ratio: 0.0,
            ..Evidence::default()
        };
        assert_eq!(e.features()[4], 2.0);
        let p = model().probability(&e);
        assert!((0.0..=1.0).contains(&p));
    }
}
