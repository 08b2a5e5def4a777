//! Paths, lines of fire and areas of effect: a move along a path, the turns
//! it makes, a point at a bearing (scatter, deviation, rout), a line that
//! passes over bases (roundshot and its bounce), half circles and squares.
//!
//! # Conventions
//! Table frame, inches; bearings in degrees counter-clockwise from +x, as
//! `facing_deg`.

use nalgebra::{Point2, Rotation2, Vector2};

use super::base::{Placement, point_segment_distance, segment_distance};
use super::terrain::{point_in_polygon, segment_crosses};

/// Bearing from `from` to `to`, degrees in [0, 360) (0 when they coincide).
pub fn bearing_deg(from: Point2<f64>, to: Point2<f64>) -> f64 {
    let d = to - from;
    if d.norm() <= f64::EPSILON {
        return 0.0;
    }
    super::arc::normalize_deg(d.y.atan2(d.x).to_degrees())
}

/// The point `dist_in` away from `origin` at `bearing_deg`.
pub fn point_at(origin: Point2<f64>, bearing_deg: f64, dist_in: f64) -> Point2<f64> {
    origin + Rotation2::new(bearing_deg.to_radians()) * Vector2::new(dist_in, 0.0)
}

/// Total length of a path, inches.
pub fn path_length_in(path: &[Point2<f64>]) -> f64 {
    path.windows(2).map(|w| (w[1] - w[0]).norm()).sum()
}

/// The unsigned turn, degrees in [0, 180], at each inner point of a path
/// (zero-length legs are skipped).
pub fn path_turns_deg(path: &[Point2<f64>]) -> Vec<f64> {
    let legs: Vec<Vector2<f64>> = path
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|v| v.norm() > f64::EPSILON)
        .collect();
    legs.windows(2)
        .map(|w| {
            let a = w[1].y.atan2(w[1].x) - w[0].y.atan2(w[0].x);
            let d = super::arc::normalize_deg(a.to_degrees());
            if d > 180.0 { 360.0 - d } else { d }
        })
        .collect()
}

/// Where a figure is after moving `dist_in` along `path`, and its heading
/// (the bearing of the leg it ends on). With `extend`, a path shorter than
/// the distance is continued straight along its last leg (a move that must
/// use its whole roll); otherwise the move stops at the path's end.
/// Returns None for a path of fewer than two distinct points.
pub fn walk_path(path: &[Point2<f64>], dist_in: f64, extend: bool) -> Option<(Point2<f64>, f64)> {
    let legs: Vec<(Point2<f64>, Point2<f64>)> = path
        .windows(2)
        .map(|w| (w[0], w[1]))
        .filter(|(a, b)| (b - a).norm() > f64::EPSILON)
        .collect();
    let mut left = dist_in.max(0.0);
    for (i, (a, b)) in legs.iter().enumerate() {
        let len = (b - a).norm();
        let last = i + 1 == legs.len();
        if left <= len || (last && extend) {
            let heading = bearing_deg(*a, *b);
            return Some((point_at(*a, heading, left), heading));
        }
        left -= len;
    }
    legs.last().map(|(a, b)| (*b, bearing_deg(*a, *b)))
}

/// Shortest distance from the segment a-b to the edge of a base, inches
/// (0 when the segment passes over the base).
pub fn segment_base_distance_in(a: Point2<f64>, b: Point2<f64>, base: &Placement) -> f64 {
    let (core, radius) = base.core();
    let d = if core.len() == 1 {
        point_segment_distance(core[0], a, b)
    } else if point_in_polygon(&core, a) || point_in_polygon(&core, b) {
        0.0
    } else {
        (0..core.len())
            .map(|i| segment_distance(a, b, core[i], core[(i + 1) % core.len()]))
            .fold(f64::INFINITY, f64::min)
    };
    (d - radius).max(0.0)
}

/// Does the line from `a` to `b` pass over the base?
pub fn line_hits_base(a: Point2<f64>, b: Point2<f64>, base: &Placement) -> bool {
    segment_base_distance_in(a, b, base) <= 0.0
}

/// Does a disc of `radius_in` around `center` touch the base?
pub fn disc_touches_base(center: Point2<f64>, radius_in: f64, base: &Placement) -> bool {
    segment_base_distance_in(center, center, base) <= radius_in
}

/// Is `p` inside the half disc of `radius_in` around `center` that lies on
/// the far side of `center` seen from `from` (the side away from `from`)?
pub fn in_half_disc(
    center: Point2<f64>,
    from: Point2<f64>,
    radius_in: f64,
    p: Point2<f64>,
) -> bool {
    let d = p - center;
    d.norm() <= radius_in && d.dot(&(center - from)) >= 0.0
}

/// The outline of an axis-aligned square with its lower-left corner at
/// `corner` (counter-clockwise).
pub fn square_outline(corner: Point2<f64>, side_in: f64) -> Vec<Point2<f64>> {
    vec![
        corner,
        corner + Vector2::new(side_in, 0.0),
        corner + Vector2::new(side_in, side_in),
        corner + Vector2::new(0.0, side_in),
    ]
}

/// How many times a move along `path` must roll for a square area: once
/// for each leg that enters it, and once more if the move stops inside
/// (Soldiers in Time's minefield squares). A move that starts inside
/// counts as entering it.
pub fn square_entries(path: &[Point2<f64>], square: &[Point2<f64>]) -> u32 {
    let mut n = 0;
    let mut inside = path.first().is_some_and(|p| point_in_polygon(square, *p));
    if inside {
        n += 1;
    }
    for w in path.windows(2) {
        let crosses = segment_crosses(w[0], w[1], square);
        if crosses && !inside {
            n += 1;
        }
        inside = point_in_polygon(square, w[1]);
    }
    if path.len() > 1 && inside {
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::super::base::BaseShape;
    use super::*;
    use approx::assert_relative_eq;

    fn foot(x: f64, y: f64) -> Placement {
        Placement {
            center_in_table: Point2::new(x, y),
            facing_deg: 0.0,
            shape: BaseShape::FOOT,
            sigma_in: 0.0,
        }
    }

    #[test]
    fn walking_a_path() {
        let path = [
            Point2::new(0.0, 0.0),
            Point2::new(4.0, 0.0),
            Point2::new(4.0, 4.0),
        ];
        assert_relative_eq!(path_length_in(&path), 8.0);
        let (p, h) = walk_path(&path, 6.0, false).expect("path");
        assert_relative_eq!(p, Point2::new(4.0, 2.0), epsilon = 1e-12);
        assert_relative_eq!(h, 90.0, epsilon = 1e-12);
        let (p, _) = walk_path(&path, 10.0, false).expect("path");
        assert_relative_eq!(p, Point2::new(4.0, 4.0), epsilon = 1e-12);
        let (p, _) = walk_path(&path, 10.0, true).expect("path");
        assert_relative_eq!(p, Point2::new(4.0, 6.0), epsilon = 1e-12);
        assert_eq!(path_turns_deg(&path).len(), 1);
        assert_relative_eq!(path_turns_deg(&path)[0], 90.0, epsilon = 1e-12);
        assert!(walk_path(&[Point2::new(1.0, 1.0)], 3.0, true).is_none());
    }

    #[test]
    fn lines_over_bases() {
        let a = Point2::new(0.0, 0.0);
        let b = Point2::new(10.0, 0.0);
        assert!(line_hits_base(a, b, &foot(5.0, 0.4)));
        assert!(!line_hits_base(a, b, &foot(5.0, 0.6)));
        assert!(!line_hits_base(a, b, &foot(11.0, 0.0)), "beyond the end");
        let horse = Placement {
            center_in_table: Point2::new(5.0, 1.4),
            facing_deg: 90.0,
            shape: BaseShape::MOUNTED,
            sigma_in: 0.0,
        };
        // Facing +y: 2 in long along y, so it reaches down to y = 0.4.
        assert!(!line_hits_base(a, b, &horse));
        let lower = Placement {
            center_in_table: Point2::new(5.0, 0.9),
            ..horse
        };
        assert!(line_hits_base(a, b, &lower));
        assert!(disc_touches_base(
            Point2::new(7.0, 0.0),
            1.5,
            &foot(5.0, 0.0)
        ));
        assert!(!disc_touches_base(
            Point2::new(7.0, 0.0),
            1.4,
            &foot(5.0, 0.0)
        ));
    }

    #[test]
    fn bearings_and_half_discs() {
        let o = Point2::new(1.0, 1.0);
        assert_relative_eq!(
            bearing_deg(o, point_at(o, 225.0, 3.0)),
            225.0,
            epsilon = 1e-9
        );
        let c = Point2::new(0.0, 10.0);
        let from = Point2::new(0.0, 0.0);
        assert!(in_half_disc(c, from, 2.0, Point2::new(1.0, 11.0)));
        assert!(!in_half_disc(c, from, 2.0, Point2::new(1.0, 9.0)));
        assert!(!in_half_disc(c, from, 2.0, Point2::new(0.0, 12.5)));
    }

    #[test]
    fn minefield_entries() {
        let sq = square_outline(Point2::new(0.0, 0.0), 3.0);
        // Through and out: one roll.
        let through = [Point2::new(-1.0, 1.0), Point2::new(5.0, 1.0)];
        assert_eq!(square_entries(&through, &sq), 1);
        // Stopping inside: at least two.
        let stop = [Point2::new(-1.0, 1.0), Point2::new(1.5, 1.5)];
        assert_eq!(square_entries(&stop, &sq), 2);
        let miss = [Point2::new(-1.0, 5.0), Point2::new(5.0, 5.0)];
        assert_eq!(square_entries(&miss, &sq), 0);
    }
}
