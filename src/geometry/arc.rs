//! Fire arcs and cones from a facing.

use nalgebra::Point2;

use super::base::Placement;
use super::measure::{CALL_MARGIN_SIGMAS, Call};

/// An angle in degrees brought into [0, 360).
pub fn normalize_deg(deg: f64) -> f64 {
    let d = deg.rem_euclid(360.0);
    if d >= 360.0 { 0.0 } else { d }
}

/// Unsigned angle in degrees, in [0, 180], between the facing and the
/// direction from `origin` to `target`.
pub fn angle_off_facing_deg(origin: Point2<f64>, facing_deg: f64, target: Point2<f64>) -> f64 {
    let d = target - origin;
    let bearing_deg = d.y.atan2(d.x).to_degrees();
    let off = normalize_deg(bearing_deg - facing_deg);
    if off > 180.0 { 360.0 - off } else { off }
}

/// Is the centre of `target` inside the cone of total width `width_deg`
/// straight ahead of `origin`? `facing_sigma_deg` is the uncertainty of the
/// facing; position sigmas turn into an angular sigma at the target's range.
/// A target at the origin is inside.
pub fn in_cone(
    origin: &Placement,
    width_deg: f64,
    facing_sigma_deg: f64,
    target: &Placement,
) -> Call<bool> {
    let dist = (target.center_in_table - origin.center_in_table).norm();
    if dist <= f64::EPSILON {
        return Call::sure(true);
    }
    let off = angle_off_facing_deg(
        origin.center_in_table,
        origin.facing_deg,
        target.center_in_table,
    );
    let half = width_deg / 2.0;
    let pos_sigma_deg = (origin.sigma_in.hypot(target.sigma_in) / dist)
        .atan()
        .to_degrees();
    let sigma_deg = pos_sigma_deg.hypot(facing_sigma_deg);
    Call {
        value: off <= half,
        too_close_to_call: (off - half).abs() <= CALL_MARGIN_SIGMAS * sigma_deg,
    }
}

#[cfg(test)]
mod tests {
    use super::super::base::BaseShape;
    use super::*;
    use approx::assert_relative_eq;

    fn at(x: f64, y: f64, facing_deg: f64) -> Placement {
        Placement {
            center_in_table: Point2::new(x, y),
            facing_deg,
            shape: BaseShape::FOOT,
            sigma_in: 0.05,
        }
    }

    #[test]
    fn fifteen_degree_gun_cone() {
        let gun = at(0.0, 0.0, 90.0);
        // 7.5 degrees either side of straight ahead (+y).
        let inside = at((5.0_f64).to_radians().tan() * 30.0, 30.0, 0.0);
        let outside = at((10.0_f64).to_radians().tan() * 30.0, 30.0, 0.0);
        assert_eq!(in_cone(&gun, 15.0, 0.0, &inside), Call::sure(true));
        assert_eq!(in_cone(&gun, 15.0, 0.0, &outside), Call::sure(false));
        let edge = at((7.6_f64).to_radians().tan() * 30.0, 30.0, 0.0);
        let c = in_cone(&gun, 15.0, 1.0, &edge);
        assert!(!c.value && c.too_close_to_call);
    }

    #[test]
    fn angles_wrap() {
        assert_relative_eq!(normalize_deg(-90.0), 270.0);
        assert_relative_eq!(
            angle_off_facing_deg(Point2::origin(), 350.0, Point2::new(1.0, 0.17632698)),
            20.0,
            epsilon = 1e-4
        );
    }
}
