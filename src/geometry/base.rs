//! Figure bases on the table and the distances between them.

use nalgebra::{Point2, Rotation2, Vector2};
use serde::{Deserialize, Serialize};

use super::measure::{Call, Measured};

/// The footprint of a base.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "kebab-case")]
pub enum BaseShape {
    /// Round base (foot figures), diameter in inches.
    Round { diameter_in: f64 },
    /// Rectangular base (mounted figures), the long side along the facing.
    Rect { width_in: f64, length_in: f64 },
}

impl BaseShape {
    /// The foot base of `TABLE_KIT.md`: round, 1 in across.
    pub const FOOT: Self = Self::Round { diameter_in: 1.0 };
    /// The mounted base of `TABLE_KIT.md`: 1 x 2 in.
    pub const MOUNTED: Self = Self::Rect {
        width_in: 1.0,
        length_in: 2.0,
    };
}

/// How a range is measured: the rule set's data says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RangeMethod {
    /// Nearest base edge to nearest base edge.
    EdgeToEdge,
    /// Base centre to base centre.
    CentreToCentre,
}

/// A figure's base on the table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// Base centre, table frame, inches.
    pub center_in_table: Point2<f64>,
    /// Facing, degrees counter-clockwise from +x.
    pub facing_deg: f64,
    /// Footprint.
    pub shape: BaseShape,
    /// 1-sigma position uncertainty, inches (0 for positions typed in).
    pub sigma_in: f64,
}

impl Placement {
    /// Corner points of a rectangular base (counter-clockwise), or the centre
    /// alone for a round base; `radius_in` is added around them.
    pub(super) fn core(&self) -> (Vec<Point2<f64>>, f64) {
        match self.shape {
            BaseShape::Round { diameter_in } => (vec![self.center_in_table], diameter_in / 2.0),
            BaseShape::Rect {
                width_in,
                length_in,
            } => {
                let rot = Rotation2::new(self.facing_deg.to_radians());
                let (hl, hw) = (length_in / 2.0, width_in / 2.0);
                let corners = [(hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw)]
                    .iter()
                    .map(|&(x, y)| self.center_in_table + rot * Vector2::new(x, y))
                    .collect();
                (corners, 0.0)
            }
        }
    }
}

/// Range between two bases in table inches, with its uncertainty (the two
/// position sigmas added in quadrature).
pub fn range_in(a: &Placement, b: &Placement, method: RangeMethod) -> Measured {
    let sigma_in = a.sigma_in.hypot(b.sigma_in);
    let value_in = match method {
        RangeMethod::CentreToCentre => (b.center_in_table - a.center_in_table).norm(),
        RangeMethod::EdgeToEdge => {
            let (pa, ra) = a.core();
            let (pb, rb) = b.core();
            (polygon_distance(&pa, &pb) - ra - rb).max(0.0)
        }
    };
    Measured::new(value_in, sigma_in)
}

/// Is `b` within `radius_in` (table inches) of `a`? Flagged near the edge.
pub fn within_radius(
    a: &Placement,
    b: &Placement,
    radius_in: f64,
    method: RangeMethod,
) -> Call<bool> {
    range_in(a, b, method).at_most(radius_in)
}

/// Distance between two convex point sets given as polygons (1 point = a
/// point, 4 points = a rectangle); 0 when they overlap.
fn polygon_distance(a: &[Point2<f64>], b: &[Point2<f64>]) -> f64 {
    if a.len() > 2 && b.iter().any(|p| convex_contains(a, p)) {
        return 0.0;
    }
    if b.len() > 2 && a.iter().any(|p| convex_contains(b, p)) {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    for (a0, a1) in edges(a) {
        for (b0, b1) in edges(b) {
            best = best.min(segment_distance(a0, a1, b0, b1));
        }
    }
    best
}

fn edges(p: &[Point2<f64>]) -> Vec<(Point2<f64>, Point2<f64>)> {
    if p.len() == 1 {
        return vec![(p[0], p[0])];
    }
    (0..p.len()).map(|i| (p[i], p[(i + 1) % p.len()])).collect()
}

fn convex_contains(poly: &[Point2<f64>], p: &Point2<f64>) -> bool {
    let mut sign = 0.0_f64;
    for (a, b) in edges(poly) {
        let c = (b - a).perp(&(p - a));
        if c != 0.0 {
            if sign != 0.0 && c.signum() != sign {
                return false;
            }
            sign = c.signum();
        }
    }
    true
}

/// Distance from a point to a segment.
pub(crate) fn point_segment_distance(p: Point2<f64>, a: Point2<f64>, b: Point2<f64>) -> f64 {
    let ab = b - a;
    let len2 = ab.norm_squared();
    if len2 == 0.0 {
        return (p - a).norm();
    }
    let t = ((p - a).dot(&ab) / len2).clamp(0.0, 1.0);
    (p - (a + ab * t)).norm()
}

/// Distance between two segments (0 when they cross).
pub(crate) fn segment_distance(
    a0: Point2<f64>,
    a1: Point2<f64>,
    b0: Point2<f64>,
    b1: Point2<f64>,
) -> f64 {
    if super::terrain::segments_intersect(a0, a1, b0, b1) {
        return 0.0;
    }
    point_segment_distance(a0, b0, b1)
        .min(point_segment_distance(a1, b0, b1))
        .min(point_segment_distance(b0, a0, a1))
        .min(point_segment_distance(b1, a0, a1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn foot(x: f64, y: f64) -> Placement {
        Placement {
            center_in_table: Point2::new(x, y),
            facing_deg: 0.0,
            shape: BaseShape::FOOT,
            sigma_in: 0.1,
        }
    }

    #[test]
    fn round_bases() {
        let (a, b) = (foot(0.0, 0.0), foot(10.0, 0.0));
        assert_relative_eq!(range_in(&a, &b, RangeMethod::CentreToCentre).value_in, 10.0);
        assert_relative_eq!(range_in(&a, &b, RangeMethod::EdgeToEdge).value_in, 9.0);
        assert_relative_eq!(
            range_in(&a, &b, RangeMethod::EdgeToEdge).sigma_in,
            0.1_f64.hypot(0.1)
        );
    }

    #[test]
    fn mounted_base_long_side_along_facing() {
        let horse = Placement {
            center_in_table: Point2::new(0.0, 0.0),
            facing_deg: 0.0,
            shape: BaseShape::MOUNTED,
            sigma_in: 0.0,
        };
        // 1 in ahead of the nose (x = 1) plus the foot radius.
        assert_relative_eq!(
            range_in(&horse, &foot(2.5, 0.0), RangeMethod::EdgeToEdge).value_in,
            1.0,
            epsilon = 1e-9
        );
        // Beside the horse the half-width is 0.5 in.
        assert_relative_eq!(
            range_in(&horse, &foot(0.0, 2.5), RangeMethod::EdgeToEdge).value_in,
            1.5,
            epsilon = 1e-9
        );
        let turned = Placement {
            facing_deg: 90.0,
            ..horse
        };
        assert_relative_eq!(
            range_in(&turned, &foot(0.0, 2.5), RangeMethod::EdgeToEdge).value_in,
            1.0,
            epsilon = 1e-9
        );
    }
}
