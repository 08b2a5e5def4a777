//! Properties of the table geometry (proptest) and the too-close-to-call flag.

use approx::assert_relative_eq;
use nalgebra::Point2;
use proptest::prelude::*;
use spotter::geometry::{
    Band, BaseShape, Measured, Placement, RangeMethod, TerrainArea, TerrainKind, band_of, in_cone,
    length_inside_in, line_of_sight, range_in, within_radius,
};

fn at(x: f64, y: f64, facing_deg: f64, shape: BaseShape, sigma_in: f64) -> Placement {
    Placement {
        center_in_table: Point2::new(x, y),
        facing_deg,
        shape,
        sigma_in,
    }
}

fn shape(mounted: bool) -> BaseShape {
    if mounted {
        BaseShape::MOUNTED
    } else {
        BaseShape::FOOT
    }
}

proptest! {
    #[test]
    fn ranges_are_symmetric_and_edge_never_exceeds_centre(
        ax in 0.0..48.0f64, ay in 0.0..48.0f64, af in 0.0..360.0f64, am: bool,
        bx in 0.0..48.0f64, by in 0.0..48.0f64, bf in 0.0..360.0f64, bm: bool,
    ) {
        let a = at(ax, ay, af, shape(am), 0.1);
        let b = at(bx, by, bf, shape(bm), 0.2);
        for m in [RangeMethod::EdgeToEdge, RangeMethod::CentreToCentre] {
            assert_relative_eq!(range_in(&a, &b, m).value_in, range_in(&b, &a, m).value_in, epsilon = 1e-9);
        }
        let e = range_in(&a, &b, RangeMethod::EdgeToEdge).value_in;
        let c = range_in(&a, &b, RangeMethod::CentreToCentre).value_in;
        prop_assert!(e >= 0.0 && e <= c + 1e-9);
        // Two bases' half-extents are at most 1 in + 1.12 in (half-diagonal of 1 x 2).
        prop_assert!(c - e <= 2.0 * 1.118_034 + 1e-9);
        assert_relative_eq!(range_in(&a, &b, RangeMethod::CentreToCentre).sigma_in, 0.1_f64.hypot(0.2));
    }

    #[test]
    fn round_bases_edge_range_is_centre_minus_one(ax in 0.0..48.0f64, ay in 0.0..48.0f64, d in 1.0..40.0f64, t in 0.0..6.28f64) {
        let a = at(ax, ay, 0.0, BaseShape::FOOT, 0.0);
        let b = at(ax + d * t.cos(), ay + d * t.sin(), 0.0, BaseShape::FOOT, 0.0);
        assert_relative_eq!(range_in(&a, &b, RangeMethod::EdgeToEdge).value_in, d - 1.0, epsilon = 1e-9);
    }

    #[test]
    fn range_is_invariant_under_moving_the_whole_table(
        ax in 0.0..48.0f64, ay in 0.0..48.0f64, bx in 0.0..48.0f64, by in 0.0..48.0f64,
        af in 0.0..360.0f64, dx in -20.0..20.0f64, dy in -20.0..20.0f64,
    ) {
        let a = at(ax, ay, af, BaseShape::MOUNTED, 0.0);
        let b = at(bx, by, 0.0, BaseShape::FOOT, 0.0);
        let a2 = at(ax + dx, ay + dy, af, BaseShape::MOUNTED, 0.0);
        let b2 = at(bx + dx, by + dy, 0.0, BaseShape::FOOT, 0.0);
        assert_relative_eq!(range_in(&a, &b, RangeMethod::EdgeToEdge).value_in, range_in(&a2, &b2, RangeMethod::EdgeToEdge).value_in, epsilon = 1e-9);
    }

    #[test]
    fn a_band_call_far_from_every_edge_is_never_flagged(r in 0.0..60.0f64, sigma in 0.0..0.5f64) {
        let edges = [12.0, 24.0, 48.0];
        let call = band_of(Measured::new(r, sigma), &edges);
        let nearest = edges.iter().map(|e| (r - e).abs()).fold(f64::INFINITY, f64::min);
        prop_assert_eq!(call.too_close_to_call, nearest <= 2.0 * sigma);
        let expected = edges.iter().position(|&e| r <= e).map_or(Band::OutOfRange, Band::Within);
        prop_assert_eq!(call.value, expected);
    }

    #[test]
    fn the_cone_is_symmetric_about_the_facing(facing in 0.0..360.0f64, off in -30.0..30.0f64, dist in 5.0..60.0f64) {
        let gun = at(24.0, 24.0, facing, BaseShape::FOOT, 0.0);
        let t = |o: f64| {
            let b = (facing + o).to_radians();
            at(24.0 + dist * b.cos(), 24.0 + dist * b.sin(), 0.0, BaseShape::FOOT, 0.0)
        };
        let l = in_cone(&gun, 15.0, 0.0, &t(off));
        let r = in_cone(&gun, 15.0, 0.0, &t(-off));
        prop_assert_eq!(l.value, r.value);
        if (off.abs() - 7.5).abs() > 1e-6 {
            prop_assert_eq!(l.value, off.abs() < 7.5);
        }
    }

    #[test]
    fn length_inside_a_rectangle_is_the_clipped_length(x0 in -10.0..10.0f64, x1 in -10.0..10.0f64) {
        let poly = vec![Point2::new(-2.0, -1.0), Point2::new(3.0, -1.0), Point2::new(3.0, 1.0), Point2::new(-2.0, 1.0)];
        let got = length_inside_in(Point2::new(x0, 0.0), Point2::new(x1, 0.0), &poly);
        let (lo, hi) = (x0.min(x1), x0.max(x1));
        let expected = (hi.min(3.0) - lo.max(-2.0)).max(0.0);
        assert_relative_eq!(got, expected, epsilon = 1e-9);
    }
}

#[test]
fn radius_queries_flag_the_edge() {
    let a = at(0.0, 0.0, 0.0, BaseShape::FOOT, 0.1);
    let b = at(12.1, 0.0, 0.0, BaseShape::FOOT, 0.1);
    let c = within_radius(&a, &b, 12.0, RangeMethod::CentreToCentre);
    assert!(!c.value && c.too_close_to_call);
    let far = at(13.0, 0.0, 0.0, BaseShape::FOOT, 0.1);
    let c = within_radius(&a, &far, 12.0, RangeMethod::CentreToCentre);
    assert!(!c.value && !c.too_close_to_call);
}

#[test]
fn soft_cover_and_blocking_terrain() {
    let scrub = TerrainArea {
        name: "scrub".into(),
        kinds: vec![TerrainKind::SoftCover, TerrainKind::Rough],
        polygon_in: vec![
            Point2::new(19.0, -3.0),
            Point2::new(22.0, -3.0),
            Point2::new(22.0, 3.0),
            Point2::new(19.0, 3.0),
        ],
    };
    let a = at(0.0, 0.0, 0.0, BaseShape::FOOT, 0.05);
    let inside = at(20.0, 0.0, 0.0, BaseShape::FOOT, 0.05);
    let s = line_of_sight(&a, &inside, std::slice::from_ref(&scrub), 2.0);
    assert!(s.clear.value);
    assert_eq!(s.cover.value, spotter::geometry::Cover::Soft);
    // Far behind the scrub, the scrub is not his cover (more than 2 in from him) but is not blocking either.
    let behind = at(40.0, 0.0, 0.0, BaseShape::FOOT, 0.05);
    let s = line_of_sight(&a, &behind, std::slice::from_ref(&scrub), 2.0);
    assert_eq!(s.cover.value, spotter::geometry::Cover::None);
}
