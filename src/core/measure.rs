//! Measurement with its uncertainty, in the unit of the rule set: the one
//! path every range, radius, arc and move length of every rule set takes
//! from the table to a rule's call.
//!
//! # Conventions
//! - A [`Length<U>`] is a value and its 1-sigma uncertainty in the unit `U`
//!   ([`Inch`] or [`Centimetre`]); a length in one unit cannot be read or
//!   printed as another: it is converted with [`Length::convert`] and the
//!   rule set's own factor (Little Colonial Rules' centimetres per table
//!   inch, a scale's table inches per rule inch).
//! - The sigma comes from calibration and detection: a figure's
//!   `placement.sigma_in` (see `geometry::position_sigma_in`), two figures'
//!   added in quadrature.
//! - "Too close to call" has one definition,
//!   [`crate::geometry::Measured::near`]: the edge lies within
//!   [`crate::geometry::CALL_MARGIN_SIGMAS`] sigmas of the value. A
//!   [`Reading`] is what a rule recorded: the length, its unit and whether
//!   its uncertainty could flip the decision it made.

use std::fmt;
use std::marker::PhantomData;

use serde::{Deserialize, Serialize};

use crate::geometry::{Band, Call, Measured, Placement, RangeMethod, band_of, range_in};

/// A unit of length the rules measure in.
pub trait LengthUnit: Copy + fmt::Debug + PartialEq {
    /// The unit as written after a number (`in`, `cm`).
    const SYMBOL: &'static str;
    /// The unit as recorded in a [`Reading`].
    const KIND: UnitKind;
    /// Decimals shown for a value.
    const DECIMALS: usize;
}

/// Inches (table inches, or a rule set's rule inches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inch;

/// Centimetres (Little Colonial Rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Centimetre;

impl LengthUnit for Inch {
    const SYMBOL: &'static str = "in";
    const KIND: UnitKind = UnitKind::Inch;
    const DECIMALS: usize = 2;
}

impl LengthUnit for Centimetre {
    const SYMBOL: &'static str = "cm";
    const KIND: UnitKind = UnitKind::Centimetre;
    const DECIMALS: usize = 1;
}

/// The unit of a recorded [`Reading`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum UnitKind {
    #[default]
    #[serde(rename = "in")]
    Inch,
    #[serde(rename = "cm")]
    Centimetre,
}

impl UnitKind {
    /// As written after a number.
    pub fn symbol(self) -> &'static str {
        match self {
            Self::Inch => Inch::SYMBOL,
            Self::Centimetre => Centimetre::SYMBOL,
        }
    }

    fn decimals(self) -> usize {
        match self {
            Self::Inch => Inch::DECIMALS,
            Self::Centimetre => Centimetre::DECIMALS,
        }
    }
}

/// A length with its 1-sigma uncertainty, both in the unit `U`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Length<U> {
    value: f64,
    sigma: f64,
    unit: PhantomData<U>,
}

impl<U: LengthUnit> Length<U> {
    /// A length of `value` with 1-sigma uncertainty `sigma` (its size is
    /// taken), both in `U`.
    pub fn new(value: f64, sigma: f64) -> Self {
        Self {
            value,
            sigma: sigma.abs(),
            unit: PhantomData,
        }
    }

    /// A length no uncertainty touches (worked out by the rules, typed in).
    pub fn exact(value: f64) -> Self {
        Self::new(value, 0.0)
    }

    /// The value, in `U`.
    pub fn value(self) -> f64 {
        self.value
    }

    /// The 1-sigma uncertainty, in `U`.
    pub fn sigma(self) -> f64 {
        self.sigma
    }

    /// The same length in the unit `V`, `per` units of `V` to one of `U`.
    pub fn convert<V: LengthUnit>(self, per: f64) -> Length<V> {
        Length::new(self.value * per, self.sigma * per)
    }

    fn measured(self) -> Measured {
        Measured::new(self.value, self.sigma)
    }

    /// Could the uncertainty put the value on the other side of `edge` (in
    /// `U`)? The geometry's definition of "too close to call"; an exact
    /// length (no uncertainty) never is, even on the edge.
    pub fn near(self, edge: f64) -> bool {
        self.sigma > 0.0 && self.measured().near(edge)
    }

    /// Is the length at most `limit` (in `U`)? Flagged when too close to
    /// call.
    pub fn at_most(self, limit: f64) -> Call<bool> {
        self.measured().at_most(limit)
    }

    /// The band the length falls in, given the bands' upper edges (in `U`,
    /// ascending). Flagged when it is near any edge.
    pub fn band(self, upper_edges: &[f64]) -> Call<Band> {
        band_of(self.measured(), upper_edges)
    }

    /// What a rule records when it decides on this length against the
    /// `edges` (in `U`) that matter to it: too close to call when the length
    /// is near any of them.
    pub fn reading(self, what: impl Into<String>, edges: &[f64]) -> Reading {
        let too_close_to_call = edges.iter().any(|&e| self.near(e));
        self.reading_of_call(what, too_close_to_call)
    }

    /// What a rule records when it decided with a [`Call`] made from this
    /// length ([`Self::at_most`], [`Self::band`], or the geometry's calls on
    /// the same measurement).
    pub fn reading_with<T>(self, what: impl Into<String>, call: &Call<T>) -> Reading {
        self.reading_of_call(what, call.too_close_to_call)
    }

    fn reading_of_call(self, what: impl Into<String>, too_close_to_call: bool) -> Reading {
        Reading {
            what: what.into(),
            value: self.value,
            sigma: self.sigma,
            unit: U::KIND,
            too_close_to_call,
        }
    }
}

impl Length<Inch> {
    /// A geometry measurement (table inches).
    pub fn from_measured(m: Measured) -> Self {
        Self::new(m.value_in, m.sigma_in)
    }

    /// The range between two bases on the table, table inches, with the two
    /// positions' uncertainties.
    pub fn between(a: &Placement, b: &Placement, method: RangeMethod) -> Self {
        Self::from_measured(range_in(a, b, method))
    }

    /// A figure's path on the table (`length_in` table inches), uncertain by
    /// the figure's own position sigma.
    pub fn path(length_in: f64, figure: &Placement) -> Self {
        Self::new(length_in, figure.sigma_in)
    }

    /// The distance between two figures' base centres, with their position
    /// uncertainties added in quadrature.
    pub fn centre_to_centre(a: &Placement, b: &Placement) -> Self {
        Self::new(
            (a.center_in_table - b.center_in_table).norm(),
            a.sigma_in.hypot(b.sigma_in),
        )
    }
}

impl<U: LengthUnit> fmt::Display for Length<U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = U::DECIMALS;
        write!(
            f,
            "{:.d$} {} \u{b1} {:.d$}",
            self.value,
            U::SYMBOL,
            self.sigma
        )
    }
}

/// A measurement a rule used, as the log keeps it: the value and its
/// 1-sigma uncertainty in `unit`, and whether the uncertainty could flip
/// the rule's decision. Made only from a [`Length`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    pub what: String,
    /// In `unit`. (Logs before the unit was recorded call it `value_in`.)
    #[serde(alias = "value_in")]
    pub value: f64,
    /// 1-sigma, in `unit`.
    #[serde(alias = "sigma_in")]
    pub sigma: f64,
    /// Inches when a log does not say.
    #[serde(default)]
    pub unit: UnitKind,
    pub too_close_to_call: bool,
}

impl Reading {
    /// The value and sigma with their unit, e.g. `38.0 cm ± 0.5`.
    pub fn length_text(&self) -> String {
        let d = self.unit.decimals();
        format!(
            "{:.d$} {} \u{b1} {:.d$}",
            self.value,
            self.unit.symbol(),
            self.sigma
        )
    }
}

impl fmt::Display for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.what, self.length_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centimetres_print_as_centimetres() {
        let l = Length::<Inch>::new(15.0, 0.2).convert::<Centimetre>(2.54);
        assert_eq!(l.to_string(), "38.1 cm \u{b1} 0.5");
        let r = l.reading("range", &[]);
        assert_eq!(r.unit, UnitKind::Centimetre);
        assert_eq!(r.to_string(), "range 38.1 cm \u{b1} 0.5");
    }

    #[test]
    fn too_close_to_call_is_the_geometry_margin() {
        // 2 sigma of 0.5 cm: an edge at 39 cm is within reach of 38.1 cm.
        let l = Length::<Centimetre>::new(38.1, 0.5);
        assert!(l.reading("r", &[39.0]).too_close_to_call);
        assert!(!l.reading("r", &[40.0]).too_close_to_call);
        assert!(!Length::<Centimetre>::exact(38.1).near(38.2));
    }

    #[test]
    fn an_old_log_reading_is_in_inches() {
        let old = r#"{"what":"range","value_in":12.5,"sigma_in":0.1,"too_close_to_call":true}"#;
        let r: Reading = serde_json::from_str(old).expect("old reading");
        assert_eq!(r.unit, UnitKind::Inch);
        assert_eq!(r.value, 12.5);
    }
}
