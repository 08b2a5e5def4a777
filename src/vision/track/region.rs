//! Areas of the table that a hand or arm covers in one frame.
//!
//! # Conventions
//! Table frame of `TABLE_KIT.md`: inches, +x right, +y up seen from above.
//! Polygon vertices are in order (either winding); the polygon is closed
//! implicitly.

use nalgebra::Point2;
use serde::{Deserialize, Serialize};

/// Where something (a hand, an arm) hides the table from the camera.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "lowercase")]
pub enum OccludedRegion {
    /// A disc on the table plane.
    Disc {
        center_in_table: Point2<f64>,
        radius_in: f64,
    },
    /// A simple polygon on the table plane (the outline of a hand and arm).
    Polygon { vertices_in_table: Vec<Point2<f64>> },
}

impl OccludedRegion {
    /// A representative point: where the hand is, for a figure it holds.
    pub fn anchor_in_table(&self) -> Point2<f64> {
        match self {
            Self::Disc {
                center_in_table, ..
            } => *center_in_table,
            Self::Polygon { vertices_in_table } if !vertices_in_table.is_empty() => {
                let sum = vertices_in_table
                    .iter()
                    .fold(nalgebra::Vector2::zeros(), |acc, v| acc + v.coords);
                Point2::from(sum / vertices_in_table.len() as f64)
            }
            Self::Polygon { .. } => Point2::origin(),
        }
    }

    /// Whether `p` lies inside the region or within `margin_in` of it.
    pub fn covers(&self, p: Point2<f64>, margin_in: f64) -> bool {
        match self {
            Self::Disc {
                center_in_table,
                radius_in,
            } => (p - center_in_table).norm() <= radius_in + margin_in,
            Self::Polygon { vertices_in_table } => {
                polygon_contains(vertices_in_table, p)
                    || distance_to_outline_in(vertices_in_table, p) <= margin_in
            }
        }
    }
}

/// Even-odd rule; a polygon of fewer than three vertices contains nothing.
pub(crate) fn polygon_contains(vertices: &[Point2<f64>], p: Point2<f64>) -> bool {
    if vertices.len() < 3 {
        return false;
    }
    let mut inside = false;
    let mut j = vertices.len() - 1;
    for i in 0..vertices.len() {
        let (a, b) = (vertices[i], vertices[j]);
        if (a.y > p.y) != (b.y > p.y) {
            let x_cross = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if p.x < x_cross {
                inside = !inside;
            }
        }
        j = i;
    }
    inside
}

/// Distance from `p` to the nearest edge (or the single vertex), inches.
fn distance_to_outline_in(vertices: &[Point2<f64>], p: Point2<f64>) -> f64 {
    match vertices.len() {
        0 => f64::INFINITY,
        1 => (p - vertices[0]).norm(),
        n => (0..n)
            .map(|i| distance_to_segment_in(vertices[i], vertices[(i + 1) % n], p))
            .fold(f64::INFINITY, f64::min),
    }
}

fn distance_to_segment_in(a: Point2<f64>, b: Point2<f64>, p: Point2<f64>) -> f64 {
    let ab = b - a;
    let len2 = ab.norm_squared();
    if len2 == 0.0 {
        return (p - a).norm();
    }
    let t = ((p - a).dot(&ab) / len2).clamp(0.0, 1.0);
    (p - (a + ab * t)).norm()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disc_covers_with_margin() {
        let d = OccludedRegion::Disc {
            center_in_table: Point2::new(10.0, 10.0),
            radius_in: 2.0,
        };
        assert!(d.covers(Point2::new(11.9, 10.0), 0.0));
        assert!(!d.covers(Point2::new(12.5, 10.0), 0.0));
        assert!(d.covers(Point2::new(12.5, 10.0), 1.0));
    }

    #[test]
    fn polygon_inside_outside_and_margin() {
        // An L-shaped arm: the notch at the top right is outside.
        let poly = OccludedRegion::Polygon {
            vertices_in_table: vec![
                Point2::new(0.0, 0.0),
                Point2::new(4.0, 0.0),
                Point2::new(4.0, 2.0),
                Point2::new(2.0, 2.0),
                Point2::new(2.0, 4.0),
                Point2::new(0.0, 4.0),
            ],
        };
        assert!(poly.covers(Point2::new(1.0, 3.0), 0.0));
        assert!(poly.covers(Point2::new(3.0, 1.0), 0.0));
        assert!(!poly.covers(Point2::new(3.0, 3.0), 0.0));
        assert!(poly.covers(Point2::new(3.0, 3.0), 1.0));
        assert!(!poly.covers(Point2::new(6.0, 6.0), 1.0));
    }

    #[test]
    fn degenerate_polygon_covers_only_near_its_points() {
        let seg = OccludedRegion::Polygon {
            vertices_in_table: vec![Point2::new(0.0, 0.0), Point2::new(4.0, 0.0)],
        };
        assert!(seg.covers(Point2::new(2.0, 0.5), 0.6));
        assert!(!seg.covers(Point2::new(2.0, 0.5), 0.4));
    }
}
