//! How much of a base's painted side shows beyond its top edge, pooled over
//! the figures of a frame.
//!
//! # Why
//! The band is painted on the base's top rim and on its side (`TABLE_KIT.md`).
//! Seen at an angle, the side facing the camera shows beyond the top edge:
//! on the top plane, the bottom edge lies `parallax = d * h / H` further out
//! toward the camera's nadir (`d` the base's distance from the nadir, `h` the
//! base's height, `H` the camera's). A fit that takes the whole side as band
//! ([`super::fit`] does) is right when the side is lit like the top. When the
//! side is darker (light from above, from behind the base), the band's edge
//! on that side is seen nearer the top edge, and the fitted centre moves
//! away from the camera by up to half the parallax: 0.02 to 0.03 in on
//! a 36 in table seen from 60 in (measured on the rendered sets: every photo's
//! figures were off the same way, by 0.1 to 0.6 of the parallax).
//!
//! # How
//! Each fit reports what its edge points say about the share `s` of the
//! side that showed: the least-squares estimate of `s - 1` once its centre
//! (and size) are fitted, as a numerator and a denominator, and how its
//! centre moves per unit of `s - 1`. One figure's estimate is noisy (the
//! share is told apart from a centre shift only by the shape of the
//! parallax round the base); the frame's figures, all under the same light,
//! pool to one share ([`settle`]), and each centre is moved by it. Pooling
//! weights each figure by its own information, and a prior of a few
//! figures' weight holds the share when few figures show the parallax (a
//! camera straight overhead has none).
//!
//! The built-in parameters (`[side]` in `calibration/vision.toml`) give the
//! prior so much weight that the share is held at 0.5: pooled per frame,
//! it varies with each frame's figures and moves the figures that stood
//! still, which the tracker reads as motion. Pooling over frames (the
//! share changes only with the light) is the next step.

use nalgebra::SVector;

use super::Detection;

/// What one fit measured of the side's share (see the module's text).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SideSeen {
    /// Sum of the parallax's part not explained by the fit times the edge
    /// residual, inches squared.
    pub num: f64,
    /// Sum of the squares of that part, inches squared (0: no information).
    pub den: f64,
    /// How the fitted centre moves per unit of `s - 1`, inches (x, y).
    pub shift_in: [f64; 2],
    /// The `s - 1` that the detection's centre was moved for.
    pub applied: f64,
}

/// How the frame's share is pooled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SideParams {
    /// The share taken when nothing is measured (0..1).
    pub prior_share: f64,
    /// The prior's weight, in figures of the frame's mean information.
    pub prior_figures: f64,
    /// The share is kept within this range.
    pub share_range: (f64, f64),
}

/// One fit's edge points: for each, the fit's Jacobian row `j`, the
/// residual after the fit's last step and the parallax `p` the model added
/// there. `shape` solves the normal equations of the edge points alone, `fit`
/// those the fit solved (with its priors). The centre is the Jacobian's
/// first two entries.
///
/// The share is told by the part of the parallax that no centre or size
/// explains (its shape round the base), so it is measured without the
/// fit's priors: a prior holding the size would otherwise be read as a
/// side that showed. The centre then moves as the fit's own solution moves
/// with the parallax taken off.
pub(crate) fn side_seen<const N: usize>(
    shape: impl Fn(&SVector<f64, N>) -> Option<SVector<f64, N>>,
    fit: impl Fn(&SVector<f64, N>) -> Option<SVector<f64, N>>,
    rows: impl Iterator<Item = (SVector<f64, N>, f64, f64)> + Clone,
) -> SideSeen {
    let jp: SVector<f64, N> = rows.clone().map(|(j, _, p)| j * p).sum();
    if jp.iter().all(|v| *v == 0.0) {
        return SideSeen::default();
    }
    let (Some(g), Some(moved)) = (shape(&jp), fit(&jp)) else {
        return SideSeen::default();
    };
    let (mut num, mut den) = (0.0, 0.0);
    for (j, r, p) in rows {
        let q = p - j.dot(&g);
        num += q * r;
        den += q * q;
    }
    SideSeen {
        num,
        den,
        shift_in: [-moved[0], -moved[1]],
        applied: 0.0,
    }
}

/// The frame's share less 1: the figures' estimates, each within the
/// share's range, weighted by their information and pooled with the prior.
pub fn pooled_offset(seen: &[SideSeen], p: &SideParams) -> f64 {
    let informed: Vec<&SideSeen> = seen.iter().filter(|s| s.den > 0.0).collect();
    if informed.is_empty() {
        return p.prior_share - 1.0;
    }
    // Each figure's own estimate is kept within the range first: one
    // base whose edge was read off a shadow or its front mark says share 5.
    let (lo, hi) = (p.share_range.0 - 1.0, p.share_range.1 - 1.0);
    let num: f64 = informed
        .iter()
        .map(|s| (s.num / s.den).clamp(lo, hi) * s.den)
        .sum();
    let den: f64 = informed.iter().map(|s| s.den).sum();
    let w = p.prior_figures.max(0.0) * den / informed.len() as f64;
    let offset = (num + w * (p.prior_share - 1.0)) / (den + w);
    offset.clamp(lo, hi)
}

/// Moves every detection's centre to the frame's pooled share. Idempotent:
/// a detection moved before is moved by the difference only.
pub fn settle(detections: &mut [&mut Detection], p: &SideParams) {
    let seen: Vec<SideSeen> = detections.iter().map(|d| d.side).collect();
    let offset = pooled_offset(&seen, p);
    for d in detections.iter_mut() {
        let s = &mut d.side;
        let step = offset - s.applied;
        d.center_in_table.x += step * s.shift_in[0];
        d.center_in_table.y += step * s.shift_in[1];
        s.applied = offset;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix3, Point2, Vector3};

    use crate::vision::{BaseKind, EdgeColour};

    /// The edge radius round a base whose side showed with share `s`: the
    /// top edge at 0.5 in, the side's parallax `delta` toward the nadir
    /// (+x) where it shows.
    fn edges(centre_x: f64, s: f64, delta: f64) -> Vec<(f64, f64)> {
        (0..48)
            .map(|k| {
                let a = (k as f64 * 7.5_f64).to_radians();
                let c = a.cos();
                // A ray from the fit's centre (0, 0) at angle a meets the
                // circle about (centre_x, 0) at about r = 0.5 + centre_x cos a.
                (a, 0.5 + centre_x * c + s * delta * c.max(0.0))
            })
            .collect()
    }

    /// One Gauss-Newton step of a round fit at (0, 0) with the full side
    /// in its model: the fitted centre and what it says of the share.
    fn fit(edge: &[(f64, f64)], delta: f64) -> (Vector3<f64>, SideSeen) {
        let rows: Vec<(Vector3<f64>, f64, f64)> = edge
            .iter()
            .map(|(a, r)| {
                let (c, s) = (a.cos(), a.sin());
                let p = delta * c.max(0.0);
                (Vector3::new(c, s, 1.0), r - 0.5 - p, p)
            })
            .collect();
        let mut a = Matrix3::zeros();
        let mut b = Vector3::zeros();
        for (j, e, _) in &rows {
            a += j * j.transpose();
            b += j * *e;
        }
        let lu = a.lu();
        let step = lu.solve(&b).expect("solvable");
        let after = rows.iter().map(|(j, e, p)| (*j, e - j.dot(&step), *p));
        (step, side_seen(|v| lu.solve(v), |v| lu.solve(v), after))
    }

    fn detection(side: SideSeen, x: f64) -> Detection {
        Detection {
            center_in_table: Point2::new(x, 0.0),
            facing_deg: None,
            edge: EdgeColour::Green,
            base: BaseKind::Foot,
            confidence: 0.9,
            position_sigma_in: 0.01,
            appearance: None,
            side,
        }
    }

    #[test]
    fn a_side_that_showed_whole_leaves_the_centre_where_the_fit_put_it() {
        let (step, seen) = fit(&edges(0.0, 1.0, 0.06), 0.06);
        assert!(step.x.abs() < 1e-9 && step.y.abs() < 1e-9, "{step:?}");
        assert!(seen.num.abs() < 1e-12, "{seen:?}");
        assert!(seen.den > 0.0);
    }

    /// A dark side (share 0): the fit with the whole side in its model puts
    /// the centre away from the camera (-x) by about half the parallax;
    /// the share measured and the shift per unit put it back exactly.
    #[test]
    fn a_dark_side_is_measured_and_the_centre_moved_back_toward_the_camera() {
        let delta = 0.06;
        let (step, seen) = fit(&edges(0.0, 0.0, delta), delta);
        assert!(step.x < -0.02, "the fit is pushed away: {step:?}");
        let p = SideParams {
            prior_share: 0.5,
            prior_figures: 0.0,
            share_range: (-1.0, 1.5),
        };
        let offset = pooled_offset(&[seen], &p);
        assert!((offset + 1.0).abs() < 1e-9, "share 0 measured: {offset}");
        let mut d = detection(seen, step.x);
        settle(&mut [&mut d], &p);
        assert!(d.center_in_table.x.abs() < 1e-9, "{:?}", d.center_in_table);
        // Settling again changes nothing.
        settle(&mut [&mut d], &p);
        assert!(d.center_in_table.x.abs() < 1e-9);
    }

    #[test]
    fn with_nothing_measured_the_prior_share_holds_and_the_range_bounds_it() {
        let p = SideParams {
            prior_share: 0.4,
            prior_figures: 3.0,
            share_range: (0.0, 1.0),
        };
        assert!((pooled_offset(&[], &p) + 0.6).abs() < 1e-12);
        let wild = SideSeen {
            num: -10.0,
            den: 1.0,
            ..SideSeen::default()
        };
        // Share -9 counts as the range's end, 0, pooled with three figures'
        // weight of 0.4: (1 * -1 + 3 * -0.6) / 4.
        assert!((pooled_offset(&[wild], &p) + 0.7).abs() < 1e-12);
        // One wild figure among sound ones counts as the range's end.
        let sound = SideSeen {
            num: 0.0,
            den: 1.0,
            ..SideSeen::default()
        };
        let p = SideParams {
            prior_figures: 0.0,
            ..p
        };
        assert!((pooled_offset(&[wild, sound], &p) + 0.5).abs() < 1e-12);
    }

    /// Three figures that each say share 0, pooled with a prior of share 1
    /// weighing one figure: share 0.25.
    #[test]
    fn figures_pool_with_the_prior_by_their_information() {
        let one = SideSeen {
            num: -2.0,
            den: 2.0,
            ..SideSeen::default()
        };
        let p = SideParams {
            prior_share: 1.0,
            prior_figures: 1.0,
            share_range: (-1.0, 2.0),
        };
        let offset = pooled_offset(&[one, one, one], &p);
        assert!((offset + 0.75).abs() < 1e-12, "{offset}");
    }
}
