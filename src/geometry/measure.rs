//! Measurements with uncertainty, calls near an edge, scale and range bands.

use serde::{Deserialize, Serialize};

/// How many sigmas either side of an edge make a result "too close to call".
/// Two sigmas: a result called outside this margin is wrong less than about
/// one time in forty; inside it, the player measures by hand.
pub const CALL_MARGIN_SIGMAS: f64 = 2.0;

/// A length with its 1-sigma uncertainty, both in inches.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// The measured value, inches.
    pub value_in: f64,
    /// 1-sigma uncertainty, inches (calibration residual and detection).
    pub sigma_in: f64,
}

impl Measured {
    /// A measurement with the given value and sigma.
    pub fn new(value_in: f64, sigma_in: f64) -> Self {
        Self {
            value_in,
            sigma_in: sigma_in.abs(),
        }
    }

    /// An exact value (typed in by the player).
    pub fn exact(value_in: f64) -> Self {
        Self::new(value_in, 0.0)
    }

    /// True when `edge_in` lies within the call margin of this value.
    pub fn near(&self, edge_in: f64) -> bool {
        (self.value_in - edge_in).abs() <= CALL_MARGIN_SIGMAS * self.sigma_in
    }

    /// Is the value at most `limit_in`? Flagged when too close to call.
    pub fn at_most(&self, limit_in: f64) -> Call<bool> {
        Call {
            value: self.value_in <= limit_in,
            too_close_to_call: self.near(limit_in),
        }
    }

    /// Scales value and sigma by a factor.
    pub fn scaled(&self, factor: f64) -> Self {
        Self::new(self.value_in * factor, self.sigma_in * factor.abs())
    }
}

/// 1-sigma position uncertainty of a figure seen by the camera, inches: the
/// calibration's residual (table mapping, in inches on the table) and the
/// detector's own sigma, independent, added in quadrature.
pub fn position_sigma_in(calibration_residual_in: f64, detection_sigma_in: f64) -> f64 {
    calibration_residual_in.hypot(detection_sigma_in)
}

/// A decision together with whether the measurement's uncertainty could
/// change it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call<T> {
    /// The decision on the measured value.
    pub value: T,
    /// The uncertainty straddles an edge: the player must decide.
    pub too_close_to_call: bool,
}

impl<T> Call<T> {
    /// A decision that no uncertainty can change.
    pub fn sure(value: T) -> Self {
        Self {
            value,
            too_close_to_call: false,
        }
    }
}

/// Figure scale. The rules are written for 25 mm; 54 mm doubles every distance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Scale {
    /// 25 mm figures, 1:72: half an inch is one scale yard.
    #[default]
    #[serde(rename = "25mm")]
    Mm25,
    /// 54 mm figures, 1:36: one inch is one scale yard.
    #[serde(rename = "54mm")]
    Mm54,
}

impl Scale {
    /// Table inches per rule inch.
    pub fn table_in_per_rule_in(self) -> f64 {
        match self {
            Self::Mm25 => 1.0,
            Self::Mm54 => 2.0,
        }
    }

    /// Table inches per scale yard.
    pub fn table_in_per_yard(self) -> f64 {
        match self {
            Self::Mm25 => 0.5,
            Self::Mm54 => 1.0,
        }
    }

    /// A table measurement expressed in rule inches.
    pub fn rule_from_table(self, table: Measured) -> Measured {
        table.scaled(1.0 / self.table_in_per_rule_in())
    }

    /// A rule distance (e.g. 12 in shouting range) on this table, inches.
    pub fn table_from_rule_in(self, rule_in: f64) -> f64 {
        rule_in * self.table_in_per_rule_in()
    }
}

/// Which range band a measurement falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Band {
    /// Index into the band list (0 = shortest).
    Within(usize),
    /// Beyond the last band.
    OutOfRange,
}

/// Range band of `range` given the upper edges of the bands in rule inches
/// (ascending; a range equal to an edge is inside that band). Flagged when
/// the range is within the call margin of any edge.
pub fn band_of(range: Measured, upper_edges_in: &[f64]) -> Call<Band> {
    let value = upper_edges_in
        .iter()
        .position(|&edge| range.value_in <= edge)
        .map_or(Band::OutOfRange, Band::Within);
    let too_close_to_call = upper_edges_in.iter().any(|&edge| range.near(edge));
    Call {
        value,
        too_close_to_call,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_and_edges() {
        let edges = [12.0, 24.0, 48.0];
        assert_eq!(
            band_of(Measured::new(18.0, 0.1), &edges),
            Call::sure(Band::Within(1))
        );
        let edge = band_of(Measured::new(12.1, 0.1), &edges);
        assert_eq!(edge.value, Band::Within(1));
        assert!(edge.too_close_to_call);
        assert_eq!(
            band_of(Measured::exact(60.0), &edges).value,
            Band::OutOfRange
        );
    }

    #[test]
    fn position_sigma_adds_in_quadrature() {
        assert_eq!(position_sigma_in(0.03, 0.04), 0.05);
    }

    #[test]
    fn scale_54mm_doubles() {
        assert_eq!(Scale::Mm54.table_from_rule_in(12.0), 24.0);
        assert_eq!(Scale::Mm25.table_from_rule_in(12.0), 12.0);
        let r = Scale::Mm54.rule_from_table(Measured::new(36.0, 0.2));
        assert_eq!(r.value_in, 18.0);
        assert_eq!(r.sigma_in, 0.1);
    }
}
