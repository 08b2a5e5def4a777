//! Terrain areas: line of sight, cover and rough ground.
//!
//! Areas are simple polygons (not necessarily convex) in table inches.

use nalgebra::Point2;
use serde::{Deserialize, Serialize};

use super::base::{Placement, point_segment_distance};
use super::measure::{CALL_MARGIN_SIGMAS, Call};

/// What a terrain area does. An area may do several things (a stone wall is
/// hard cover and an obstacle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TerrainKind {
    /// Nothing can be seen through it (a building, a ridge).
    Blocking,
    /// Obscures the target but does not stop the projectile.
    SoftCover,
    /// Obscures the target and stops the projectile.
    HardCover,
    /// Impedes movement (scrub, mud, sand, fordable water).
    Rough,
    /// Forces a figure to stop on reaching it (low wall, barricade).
    Obstacle,
    /// A building troops enter, hold and leave as a whole (Volley Fire!);
    /// list `hard-cover` or `blocking` too for the rule sets that read those.
    Building,
    /// Raised ground (a hill, a rise): a figure standing on it is elevated
    /// and fires over those on the flat (Volley Fire!'s overhead fire).
    Hill,
}

/// One terrain area of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerrainArea {
    /// Name shown to the player.
    pub name: String,
    /// What the area does.
    pub kinds: Vec<TerrainKind>,
    /// Outline, table inches, at least three points.
    pub polygon_in: Vec<Point2<f64>>,
}

impl TerrainArea {
    /// Does this area have the given kind?
    pub fn is(&self, kind: TerrainKind) -> bool {
        self.kinds.contains(&kind)
    }
}

/// Cover a target has against a shot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cover {
    /// In the open.
    None,
    /// Soft cover.
    Soft,
    /// Hard cover.
    Hard,
}

/// What an observer sees of a target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sight {
    /// Line of sight is clear (no blocking area between the centres).
    pub clear: Call<bool>,
    /// The best cover the target has: it stands in it, or the line of sight
    /// crosses it (areas holding the observer do not count: he shoots over
    /// his own wall).
    pub cover: Call<Cover>,
    /// Names of the areas that give the cover or block the view.
    pub areas: Vec<String>,
}

/// Line of sight and cover from `from` to `to` through `terrain`. A cover
/// area counts when the target stands in it or the line of sight meets it
/// within `cover_reach_in` (table inches) of the target: a wall near the
/// firer is one he shoots over, not cover for the target.
pub fn line_of_sight(
    from: &Placement,
    to: &Placement,
    terrain: &[TerrainArea],
    cover_reach_in: f64,
) -> Sight {
    let (a, b) = (from.center_in_table, to.center_in_table);
    let margin_in = CALL_MARGIN_SIGMAS * from.sigma_in.hypot(to.sigma_in);
    let mut clear = Call::sure(true);
    let mut cover = Call::sure(Cover::None);
    let mut areas = Vec::new();
    for area in terrain {
        let poly = &area.polygon_in;
        if poly.len() < 3 || point_in_polygon(poly, a) {
            continue;
        }
        let crosses = segment_crosses(a, b, poly);
        let close = escape_distance_in(a, b, poly, crosses) <= margin_in;
        if area.is(TerrainKind::Blocking) && !point_in_polygon(poly, b) {
            if crosses {
                clear.value = false;
                areas.push(area.name.clone());
            }
            clear.too_close_to_call |= close;
        }
        let kind = if area.is(TerrainKind::HardCover) {
            Cover::Hard
        } else if area.is(TerrainKind::SoftCover) {
            Cover::Soft
        } else {
            continue;
        };
        let reach_in = distance_from_end_in(a, b, poly);
        let covers = crosses && reach_in <= cover_reach_in;
        if covers && kind > cover.value {
            cover.value = kind;
            areas.push(area.name.clone());
        }
        if crosses && (close || (reach_in - cover_reach_in).abs() <= margin_in) {
            cover.too_close_to_call = true;
        }
    }
    Sight {
        clear,
        cover,
        areas,
    }
}

/// Distance from `b` back along the segment to where it first meets the
/// polygon (0 when `b` is inside; infinite when it never does).
fn distance_from_end_in(a: Point2<f64>, b: Point2<f64>, poly: &[Point2<f64>]) -> f64 {
    if point_in_polygon(poly, b) {
        return 0.0;
    }
    let d = b - a;
    let len = d.norm();
    let mut best_t = f64::NEG_INFINITY;
    for (p, q) in edges(poly) {
        let e = q - p;
        let denom = d.perp(&e);
        if denom.abs() <= f64::EPSILON {
            continue;
        }
        let t = (p - a).perp(&e) / denom;
        let u = (p - a).perp(&d) / denom;
        if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u) {
            best_t = best_t.max(t);
        }
    }
    if best_t.is_finite() {
        (1.0 - best_t) * len
    } else {
        f64::INFINITY
    }
}

/// How far the segment must shift sideways to change whether it touches the
/// polygon: its clearance when it misses, or the smaller push out either
/// side when it crosses.
fn escape_distance_in(a: Point2<f64>, b: Point2<f64>, poly: &[Point2<f64>], crosses: bool) -> f64 {
    if !crosses {
        return edges(poly)
            .map(|(p, q)| {
                super::base::segment_distance(a, b, p, q).min(point_segment_distance(p, a, b))
            })
            .fold(f64::INFINITY, f64::min);
    }
    let d = b - a;
    let len = d.norm();
    if len <= f64::EPSILON {
        return f64::INFINITY;
    }
    let (mut pos, mut neg) = (0.0_f64, 0.0_f64);
    for p in poly {
        let s = d.perp(&(p - a)) / len;
        pos = pos.max(s);
        neg = neg.min(s);
    }
    pos.min(-neg)
}

fn edges(poly: &[Point2<f64>]) -> impl Iterator<Item = (Point2<f64>, Point2<f64>)> + '_ {
    (0..poly.len()).map(move |i| (poly[i], poly[(i + 1) % poly.len()]))
}

/// Even-odd point in polygon.
pub fn point_in_polygon(poly: &[Point2<f64>], p: Point2<f64>) -> bool {
    let mut inside = false;
    for (a, b) in edges(poly) {
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
            if p.x < x {
                inside = !inside;
            }
        }
    }
    inside
}

/// Do two closed segments touch?
pub(crate) fn segments_intersect(
    a0: Point2<f64>,
    a1: Point2<f64>,
    b0: Point2<f64>,
    b1: Point2<f64>,
) -> bool {
    let d1 = (a1 - a0).perp(&(b0 - a0));
    let d2 = (a1 - a0).perp(&(b1 - a0));
    let d3 = (b1 - b0).perp(&(a0 - b0));
    let d4 = (b1 - b0).perp(&(a1 - b0));
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
    {
        return true;
    }
    let on = |p: Point2<f64>, q: Point2<f64>, r: Point2<f64>, d: f64| {
        d == 0.0
            && r.x >= p.x.min(q.x)
            && r.x <= p.x.max(q.x)
            && r.y >= p.y.min(q.y)
            && r.y <= p.y.max(q.y)
    };
    on(a0, a1, b0, d1) || on(a0, a1, b1, d2) || on(b0, b1, a0, d3) || on(b0, b1, a1, d4)
}

/// Does the segment a-b enter the polygon (cross an edge or lie inside)?
pub fn segment_crosses(a: Point2<f64>, b: Point2<f64>, poly: &[Point2<f64>]) -> bool {
    point_in_polygon(poly, a)
        || point_in_polygon(poly, b)
        || edges(poly).any(|(p, q)| segments_intersect(a, b, p, q))
}

/// Length of the segment a-b that lies inside the polygon, inches.
pub fn length_inside_in(a: Point2<f64>, b: Point2<f64>, poly: &[Point2<f64>]) -> f64 {
    let d = b - a;
    let len = d.norm();
    if len <= f64::EPSILON || poly.len() < 3 {
        return 0.0;
    }
    let mut ts = vec![0.0, 1.0];
    for (p, q) in edges(poly) {
        let e = q - p;
        let denom = d.perp(&e);
        if denom.abs() <= f64::EPSILON {
            continue;
        }
        let t = (p - a).perp(&e) / denom;
        let u = (p - a).perp(&d) / denom;
        if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u) {
            ts.push(t);
        }
    }
    ts.sort_by(f64::total_cmp);
    ts.windows(2)
        .filter(|w| w[1] > w[0])
        .filter(|w| point_in_polygon(poly, a + d * ((w[0] + w[1]) / 2.0)))
        .map(|w| (w[1] - w[0]) * len)
        .sum()
}

/// Distance from a point to the polygon's outline, inches (the same inside
/// and outside: how far a figure stands from the edge of an area).
pub fn distance_to_outline_in(poly: &[Point2<f64>], p: Point2<f64>) -> f64 {
    edges(poly)
        .map(|(a, b)| {
            let e = b - a;
            let t = if e.norm_squared() > 0.0 {
                ((p - a).dot(&e) / e.norm_squared()).clamp(0.0, 1.0)
            } else {
                0.0
            };
            (p - (a + e * t)).norm()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Area of a simple polygon, square inches (the shoelace formula; either
/// winding).
pub fn polygon_area_in2(poly: &[Point2<f64>]) -> f64 {
    edges(poly)
        .map(|(a, b)| a.x * b.y - b.x * a.y)
        .sum::<f64>()
        .abs()
        / 2.0
}

/// The convex hull of the points, counter-clockwise (Andrew's monotone
/// chain); fewer than three distinct points give what there is.
pub fn convex_hull(points: &[Point2<f64>]) -> Vec<Point2<f64>> {
    let mut pts: Vec<Point2<f64>> = points.to_vec();
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let turn = |o: Point2<f64>, a: Point2<f64>, b: Point2<f64>| (a - o).perp(&(b - o));
    let mut hull: Vec<Point2<f64>> = Vec::with_capacity(pts.len() * 2);
    for pass in 0..2 {
        let start = hull.len();
        let seq: Vec<Point2<f64>> = if pass == 0 {
            pts.clone()
        } else {
            pts.iter().rev().copied().collect()
        };
        for p in seq {
            while hull.len() >= start + 2
                && turn(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

#[cfg(test)]
mod tests {
    use super::super::base::BaseShape;
    use super::*;
    use approx::assert_relative_eq;

    fn square(x0: f64, y0: f64, x1: f64, y1: f64) -> Vec<Point2<f64>> {
        vec![
            Point2::new(x0, y0),
            Point2::new(x1, y0),
            Point2::new(x1, y1),
            Point2::new(x0, y1),
        ]
    }

    fn at(x: f64, y: f64) -> Placement {
        Placement {
            center_in_table: Point2::new(x, y),
            facing_deg: 0.0,
            shape: BaseShape::FOOT,
            sigma_in: 0.05,
        }
    }

    #[test]
    fn rough_length() {
        let poly = square(2.0, -1.0, 5.0, 1.0);
        assert_relative_eq!(
            length_inside_in(Point2::new(0.0, 0.0), Point2::new(10.0, 0.0), &poly),
            3.0,
            epsilon = 1e-9
        );
        assert_relative_eq!(
            length_inside_in(Point2::new(3.0, 0.0), Point2::new(4.0, 0.0), &poly),
            1.0,
            epsilon = 1e-9
        );
    }

    #[test]
    fn wall_gives_hard_cover_house_blocks() {
        let terrain = vec![
            TerrainArea {
                name: "wall".into(),
                kinds: vec![TerrainKind::HardCover, TerrainKind::Obstacle],
                polygon_in: square(9.0, -2.0, 9.5, 2.0),
            },
            TerrainArea {
                name: "house".into(),
                kinds: vec![TerrainKind::Blocking],
                polygon_in: square(4.0, 8.0, 6.0, 12.0),
            },
        ];
        let s = line_of_sight(&at(0.0, 0.0), &at(10.0, 0.0), &terrain, 2.0);
        assert!(s.clear.value);
        assert_eq!(s.cover.value, Cover::Hard);
        // The man behind the wall shoots back over it: not cover for his target.
        let back = line_of_sight(&at(10.0, 0.0), &at(0.0, 0.0), &terrain, 2.0);
        assert_eq!(back.cover.value, Cover::None);
        let blocked = line_of_sight(&at(0.0, 10.0), &at(10.0, 10.0), &terrain, 2.0);
        assert!(!blocked.clear.value);
        let grazing = line_of_sight(&at(0.0, 12.05), &at(10.0, 12.05), &terrain, 2.0);
        assert!(grazing.clear.value && grazing.clear.too_close_to_call);
    }

    #[test]
    fn polygon_area() {
        assert_relative_eq!(polygon_area_in2(&square(8.0, 2.0, 12.0, 4.0)), 8.0);
    }

    #[test]
    fn distance_to_the_outline_and_the_hull() {
        let sq = square(0.0, 0.0, 10.0, 4.0);
        assert_relative_eq!(distance_to_outline_in(&sq, Point2::new(5.0, 1.0)), 1.0);
        assert_relative_eq!(distance_to_outline_in(&sq, Point2::new(5.0, -3.0)), 3.0);
        assert_relative_eq!(distance_to_outline_in(&sq, Point2::new(13.0, 8.0)), 5.0);
        let mut pts = sq.clone();
        pts.push(Point2::new(5.0, 2.0));
        pts.push(Point2::new(5.0, 0.0));
        let hull = convex_hull(&pts);
        assert_eq!(hull.len(), 4, "{hull:?}");
        assert!(point_in_polygon(&hull, Point2::new(5.0, 2.0)));
        assert!(!point_in_polygon(&hull, Point2::new(11.0, 2.0)));
    }
}
