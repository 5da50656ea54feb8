//! Polyhedral approximation of the Coulomb friction cone (Cline 2002,
//! sec. 2.7.3, eq. 2.46; sec. 4.4.2): `k` unit tangent directions spread
//! evenly around the normal, in opposite pairs, so non-negative multipliers
//! can express any tangential impulse inside the polygon.

use glam::DVec3;

/// Fills `out` with the coefficients `(c_j, s_j)` of the `k` (even, >= 4)
/// generators `d_j = c_j t1 + s_j t2` of the polyhedral cone on an
/// orthonormal tangent pair `(t1, t2)`: angles `2 pi j / k` for the first
/// half, then their opposites. Quarter turns are exact (`(0, 1)`), so for
/// `k = 4` the generators are exactly `t1, t2, -t1, -t2` (Cline eq. 4.17-4.18).
///
/// # Panics
/// When `k` is odd or below 4: a programming error, checked by the stepper's
/// parameter validation before any call.
#[track_caller]
pub fn friction_generators(k: usize, out: &mut Vec<(f64, f64)>) {
    assert!(
        k >= 4 && k % 2 == 0,
        "friction cone needs an even k >= 4, got {k}"
    );
    out.clear();
    let half = k / 2;
    for j in 0..half {
        // Quarter turns use the exact basis vectors so that k = 4 (and any
        // multiple of 4) has no 1e-17 cross-talk between directions.
        out.push(if 4 * j == k {
            (0.0, 1.0)
        } else {
            let (sin, cos) = (std::f64::consts::TAU * j as f64 / k as f64).sin_cos();
            (cos, sin)
        });
    }
    for j in 0..half {
        let (c, s) = out[j];
        out.push((-c, -s));
    }
}

/// The tangent pair `(t1, t2)` every constraint and formulation uses for a
/// contact normal: chosen deterministically from the normal alone.
#[must_use]
pub fn tangent_pair(normal: DVec3) -> (DVec3, DVec3) {
    normal.any_orthonormal_pair()
}

/// Fills `out` with `k` (even, >= 4) unit directions tangent to the plane
/// of `normal`: the generators of [`friction_generators`] on
/// [`tangent_pair`]`(normal)`.
///
/// # Panics
/// When `k` is odd or below 4, as [`friction_generators`].
#[track_caller]
pub fn friction_directions(normal: DVec3, k: usize, out: &mut Vec<DVec3>) {
    let (t1, t2) = tangent_pair(normal);
    let mut coefficients = Vec::with_capacity(k);
    friction_generators(k, &mut coefficients);
    out.clear();
    out.extend(coefficients.iter().map(|&(c, s)| {
        if s == 0.0 {
            c * t1
        } else if c == 0.0 {
            s * t2
        } else {
            c * t1 + s * t2
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_are_tangent_unit_and_balanced() {
        let normal = DVec3::new(0.3, -0.4, 0.866).normalize();
        let mut dirs = Vec::new();
        for k in [4, 6, 8, 16] {
            friction_directions(normal, k, &mut dirs);
            assert_eq!(dirs.len(), k);
            let mut sum = DVec3::ZERO;
            for d in &dirs {
                assert!(d.dot(normal).abs() < 1e-15);
                assert!((d.length() - 1.0).abs() < 1e-15);
                sum += *d;
            }
            // Opposite pairs cancel exactly.
            assert!(sum.length() < 1e-15, "k = {k}: sum {sum}");
        }
    }

    #[test]
    fn four_directions_are_an_exact_cross() {
        let mut dirs = Vec::new();
        friction_directions(DVec3::Z, 4, &mut dirs);
        assert_eq!(dirs[0].dot(dirs[1]), 0.0);
        assert_eq!(dirs[2], -dirs[0]);
        assert_eq!(dirs[3], -dirs[1]);
    }
}
