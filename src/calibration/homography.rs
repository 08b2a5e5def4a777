//! Plane-to-plane homographies on nalgebra: normalised DLT, then
//! Gauss-Newton on the reprojection error in the destination plane.

use nalgebra::{DMatrix, Matrix3, Point2, SMatrix, SVector, Vector3};

/// Gauss-Newton steps after the DLT.
const REFINE_ITERATIONS: usize = 10;
/// Most sweeps the SVD of the DLT system may take; a well-posed 9-column
/// system converges in a few dozen. Without a bound, points of huge or
/// non-finite size made nalgebra's SVD loop for ever.
const SVD_MAX_ITERATIONS: usize = 1000;
/// Largest coordinate a fit accepts (pixels or inches); beyond it the
/// normalised system loses all precision.
const MAX_COORDINATE: f64 = 1e9;

/// Applies a homography to a point.
pub fn apply(h: &Matrix3<f64>, p: Point2<f64>) -> Point2<f64> {
    let v = h * Vector3::new(p.x, p.y, 1.0);
    Point2::new(v.x / v.z, v.y / v.z)
}

/// Hartley normalisation: centroid to the origin, mean distance sqrt(2).
fn normalizer(points: &[Point2<f64>]) -> Matrix3<f64> {
    let n = points.len() as f64;
    let c = points
        .iter()
        .fold(nalgebra::Vector2::zeros(), |a, p| a + p.coords)
        / n;
    let mean_dist = points.iter().map(|p| (p.coords - c).norm()).sum::<f64>() / n;
    let s = if mean_dist > 0.0 {
        std::f64::consts::SQRT_2 / mean_dist
    } else {
        1.0
    };
    Matrix3::new(s, 0.0, -s * c.x, 0.0, s, -s * c.y, 0.0, 0.0, 1.0)
}

/// The homography `dst_from_src` that best maps `src` onto `dst` (at least
/// 4 points, no 3 of the first 4 collinear). `None` when degenerate.
pub fn fit(src: &[Point2<f64>], dst: &[Point2<f64>]) -> Option<Matrix3<f64>> {
    if src.len() != dst.len() || src.len() < 4 {
        return None;
    }
    let usable = |p: &Point2<f64>| p.iter().all(|v| v.is_finite() && v.abs() <= MAX_COORDINATE);
    if !src.iter().chain(dst).all(usable) {
        return None;
    }
    let ts = normalizer(src);
    let td = normalizer(dst);
    let mut a = DMatrix::<f64>::zeros(2 * src.len().max(5), 9);
    for (i, (s, d)) in src.iter().zip(dst).enumerate() {
        let s = apply(&ts, *s);
        let d = apply(&td, *d);
        let r = 2 * i;
        let row0 = [-s.x, -s.y, -1.0, 0.0, 0.0, 0.0, d.x * s.x, d.x * s.y, d.x];
        let row1 = [0.0, 0.0, 0.0, -s.x, -s.y, -1.0, d.y * s.x, d.y * s.y, d.y];
        for c in 0..9 {
            a[(r, c)] = row0[c];
            a[(r + 1, c)] = row1[c];
        }
    }
    if !a.iter().all(|v| v.is_finite()) {
        return None;
    }
    let svd = a.try_svd(false, true, f64::EPSILON, SVD_MAX_ITERATIONS)?;
    let v_t = svd.v_t?;
    let (min_idx, _) = svd
        .singular_values
        .iter()
        .enumerate()
        .min_by(|x, y| x.1.total_cmp(y.1))?;
    let h = v_t.row(min_idx);
    let hn = Matrix3::from_row_slice(h.transpose().as_slice());
    let h = td.try_inverse()? * hn * ts;
    let h = h / h[(2, 2)];
    if !h.iter().all(|v| v.is_finite()) {
        return None;
    }
    Some(refine(h, src, dst))
}

/// Gauss-Newton on the 8 free entries (h33 = 1), minimising the squared
/// distance in the destination plane.
fn refine(mut h: Matrix3<f64>, src: &[Point2<f64>], dst: &[Point2<f64>]) -> Matrix3<f64> {
    for _ in 0..REFINE_ITERATIONS {
        let mut jtj = SMatrix::<f64, 8, 8>::zeros();
        let mut jtr = SVector::<f64, 8>::zeros();
        for (s, d) in src.iter().zip(dst) {
            let v = h * Vector3::new(s.x, s.y, 1.0);
            let (u, w) = (v.x / v.z, v.y / v.z);
            let inv = 1.0 / v.z;
            let ju = SVector::<f64, 8>::from_column_slice(&[
                s.x * inv,
                s.y * inv,
                inv,
                0.0,
                0.0,
                0.0,
                -u * s.x * inv,
                -u * s.y * inv,
            ]);
            let jw = SVector::<f64, 8>::from_column_slice(&[
                0.0,
                0.0,
                0.0,
                s.x * inv,
                s.y * inv,
                inv,
                -w * s.x * inv,
                -w * s.y * inv,
            ]);
            jtj += ju * ju.transpose() + jw * jw.transpose();
            jtr += ju * (d.x - u) + jw * (d.y - w);
        }
        let Some(step) = jtj.lu().solve(&jtr) else {
            break;
        };
        for i in 0..8 {
            h[(i / 3, i % 3)] += step[i];
        }
        if step.norm() < 1e-14 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn recovers_a_known_homography() {
        let h = Matrix3::new(1.2, 0.1, 30.0, -0.05, 0.9, 12.0, 1e-4, -2e-4, 1.0);
        let src: Vec<_> = [
            (0.0, 0.0),
            (100.0, 0.0),
            (100.0, 80.0),
            (0.0, 80.0),
            (50.0, 30.0),
        ]
        .iter()
        .map(|&(x, y)| Point2::new(x, y))
        .collect();
        let dst: Vec<_> = src.iter().map(|p| apply(&h, *p)).collect();
        let fitted = fit(&src, &dst).unwrap();
        assert_relative_eq!(fitted, h, epsilon = 1e-8, max_relative = 1e-8);
    }

    #[test]
    fn non_finite_or_huge_points_are_none_not_a_hang() {
        let good: Vec<_> = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
            .iter()
            .map(|&(x, y)| Point2::new(x, y))
            .collect();
        for bad in [f64::NAN, f64::INFINITY, 1e300] {
            let mut src = good.clone();
            src[2] = Point2::new(bad, 1.0);
            assert!(fit(&src, &good).is_none(), "{bad}");
            assert!(fit(&good, &src).is_none(), "{bad}");
        }
    }

    #[test]
    fn too_few_points_is_none() {
        let p = [Point2::new(0.0, 0.0); 3];
        assert!(fit(&p, &p).is_none());
    }
}
