//! Eigenvalues and eigenvectors of a symmetric 3x3 matrix.
//!
//! The cyclic Jacobi method (Golub & Van Loan, *Matrix Computations*, "Jacobi
//! methods" in the chapter on the symmetric eigenproblem; Cline cites it as
//! `[GvL89]`): sweep over the three off-diagonal pairs `(p, q)`, each time
//! applying the plane rotation `J` that zeroes `a_pq` (their `sym.schur2`),
//! `A <- J' A J`, `V <- V J`, until the off-diagonal part is negligible.
//! Convergence is quadratic; a 3x3 matrix needs a handful of sweeps. Jacobi is
//! chosen over a closed-form cubic because it stays accurate for repeated and
//! tiny eigenvalues (it is the method with the best relative accuracy for
//! positive definite matrices), which matters for deciding definiteness.

use glam::{DMat3, DVec3};

use crate::MathError;

/// Upper bound on sweeps; in practice 3x3 converges in about 5.
const MAX_SWEEPS: usize = 50;

/// Eigen-decomposition `A = V diag(values) V'` of a symmetric 3x3 matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SymmetricEigen {
    /// Eigenvalues in ascending order.
    pub values: [f64; 3],
    /// Orthonormal eigenvectors as columns, in the order of `values`.
    pub vectors: DMat3,
}

/// Eigen-decomposition of the symmetric matrix `m` by cyclic Jacobi rotations.
///
/// Only the upper triangle matters in exact arithmetic; the method reads the
/// whole matrix, so pass a symmetric one (symmetrise with `(m + m') / 2` first
/// if it is only nearly so).
///
/// # Errors
///
/// [`MathError::NonFinite`] if `m` contains NaN or an infinity.
pub fn symmetric_eigen(m: DMat3) -> Result<SymmetricEigen, MathError> {
    if !m.is_finite() {
        return Err(MathError::NonFinite {
            what: "symmetric matrix",
        });
    }
    // Row-major working copy a[row][col]; symmetric so layout does not matter
    // for the input, but the updates below are written row-major.
    let mut a = m.transpose().to_cols_array_2d();
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

    // Stop when the off-diagonal part is below round-off of the largest entry.
    // Max-norms rather than sums of squares, so huge entries cannot overflow.
    let scale = a.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    let tiny = 1e-3 * f64::EPSILON * scale;

    for _ in 0..MAX_SWEEPS {
        let off = a[0][1].abs().max(a[0][2].abs()).max(a[1][2].abs());
        if off <= tiny {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            let apq = a[p][q];
            if apq == 0.0 {
                continue;
            }
            // sym.schur2: t = tan(theta) solves t^2 + 2 tau t - 1 = 0, smaller root.
            let tau = (a[q][q] - a[p][p]) / (2.0 * apq);
            let t = if tau.abs() > 1e150 {
                // tau^2 would overflow; the small root is then 1 / (2 tau).
                0.5 / tau
            } else {
                tau.signum() / (tau.abs() + (1.0 + tau * tau).sqrt())
            };
            let c = 1.0 / (1.0 + t * t).sqrt();
            let s = t * c;
            // A <- A J (columns p, q), then A <- J' A (rows p, q).
            for row in &mut a {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (rp, rq) = (a[p], a[q]);
            a[p] = core::array::from_fn(|k| c * rp[k] - s * rq[k]);
            a[q] = core::array::from_fn(|k| s * rp[k] + c * rq[k]);
            // The rotation was built to zero this pair; remove the round-off.
            a[p][q] = 0.0;
            a[q][p] = 0.0;
            for row in &mut v {
                let (vkp, vkq) = (row[p], row[q]);
                row[p] = c * vkp - s * vkq;
                row[q] = s * vkp + c * vkq;
            }
        }
    }

    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| a[i][i].total_cmp(&a[j][j]));
    let values = order.map(|i| a[i][i]);
    let col = |j: usize| DVec3::new(v[0][j], v[1][j], v[2][j]);
    let vectors = DMat3::from_cols(col(order[0]), col(order[1]), col(order[2]));
    Ok(SymmetricEigen { values, vectors })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::TestRng;

    fn reconstruct(e: &SymmetricEigen) -> DMat3 {
        e.vectors * DMat3::from_diagonal(DVec3::from_array(e.values)) * e.vectors.transpose()
    }

    #[test]
    fn recovers_known_spectrum_of_rotated_diagonal() {
        // Independent answer: Q diag(d) Q' has eigenvalues d for any rotation Q.
        let mut rng = TestRng::new(0xe1_0001);
        for _ in 0..1000 {
            let mut d = [
                rng.range(-5.0, 5.0),
                rng.range(-5.0, 5.0),
                rng.range(-5.0, 5.0),
            ];
            let q = DMat3::from_quat(rng.rotation());
            let m = q * DMat3::from_diagonal(DVec3::from_array(d)) * q.transpose();
            let m = (m + m.transpose()) * 0.5;
            let e = symmetric_eigen(m).unwrap();
            d.sort_by(f64::total_cmp);
            for i in 0..3 {
                assert!(
                    (e.values[i] - d[i]).abs() < 1e-13,
                    "{:?} vs {d:?}",
                    e.values
                );
            }
            assert!(reconstruct(&e).abs_diff_eq(m, 1e-13));
            let vtv = e.vectors.transpose() * e.vectors;
            assert!(vtv.abs_diff_eq(DMat3::IDENTITY, 1e-14));
        }
    }

    #[test]
    fn repeated_and_zero_eigenvalues() {
        let q = DMat3::from_quat(glam::DQuat::from_axis_angle(
            DVec3::new(1.0, -2.0, 0.5).normalize(),
            0.8,
        ));
        for d in [
            [2.0, 2.0, 2.0],
            [0.0, 1.0, 1.0],
            [0.0, 0.0, 3.0],
            [1e-12, 1.0, 1.0],
        ] {
            let m = q * DMat3::from_diagonal(DVec3::from_array(d)) * q.transpose();
            let m = (m + m.transpose()) * 0.5;
            let e = symmetric_eigen(m).unwrap();
            for i in 0..3 {
                // Absolute error of order eps * |m|.
                assert!(
                    (e.values[i] - d[i]).abs() < 1e-14,
                    "{:?} vs {d:?}",
                    e.values
                );
            }
        }
    }

    #[test]
    fn diagonal_input_needs_no_rotation() {
        let m = DMat3::from_diagonal(DVec3::new(3.0, 1.0, 2.0));
        let e = symmetric_eigen(m).unwrap();
        assert_eq!(e.values, [1.0, 2.0, 3.0]);
        assert_eq!(e.vectors.col(0).abs(), DVec3::Y);
    }

    #[test]
    fn known_2x2_block() {
        // [[2, 1], [1, 2]] has eigenvalues 1 and 3 (hand computation).
        let m = DMat3::from_cols(
            DVec3::new(2.0, 1.0, 0.0),
            DVec3::new(1.0, 2.0, 0.0),
            DVec3::new(0.0, 0.0, 5.0),
        );
        let e = symmetric_eigen(m).unwrap();
        assert!((e.values[0] - 1.0).abs() < 1e-15);
        assert!((e.values[1] - 3.0).abs() < 1e-15);
        assert!((e.values[2] - 5.0).abs() < 1e-15);
    }

    #[test]
    fn huge_and_tiny_scales_still_converge() {
        // Scaling a matrix scales its eigenvalues: the same spectrum at 1e200
        // and 1e-200 (sums of squares would overflow or underflow there).
        let q = DMat3::from_quat(glam::DQuat::from_axis_angle(
            DVec3::new(0.3, 1.0, -0.2).normalize(),
            1.1,
        ));
        for scale in [1e200, 1e-200] {
            let d = [1.0 * scale, 2.0 * scale, 4.0 * scale];
            let m = q * DMat3::from_diagonal(DVec3::from_array(d)) * q.transpose();
            let m = (m + m.transpose()) * 0.5;
            let e = symmetric_eigen(m).unwrap();
            for (got, want) in e.values.iter().zip(d) {
                assert!((got - want).abs() < 1e-14 * scale, "{:?}", e.values);
            }
        }
    }

    #[test]
    fn non_finite_is_an_error() {
        let mut m = DMat3::IDENTITY;
        m.y_axis.z = f64::NAN;
        assert!(matches!(
            symmetric_eigen(m),
            Err(MathError::NonFinite { .. })
        ));
        m.y_axis.z = f64::INFINITY;
        assert!(matches!(
            symmetric_eigen(m),
            Err(MathError::NonFinite { .. })
        ));
    }
}
