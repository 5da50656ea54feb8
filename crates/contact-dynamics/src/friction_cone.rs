//! Polyhedral approximation of the Coulomb friction cone (Cline 2002,
//! sec. 2.7.3, eq. 2.46; sec. 4.4.2): `k` unit tangent directions spread
//! evenly around the normal, in opposite pairs, so non-negative multipliers
//! can express any tangential impulse inside the polygon.

use glam::DVec3;

/// Fills `out` with `k` (even, >= 4) unit directions tangent to the plane
/// of `normal`: `d_j, -d_j` pairs at angles `2 pi j / k`, starting from a
/// tangent chosen deterministically from the normal alone. For `k = 4` they
/// are exactly `t1, t2, -t1, -t2` (Cline eq. 4.17-4.18).
///
/// # Panics
/// When `k` is odd or below 4: a programming error, checked by the stepper's
/// parameter validation before any call.
#[track_caller]
pub fn friction_directions(normal: DVec3, k: usize, out: &mut Vec<DVec3>) {
    assert!(
        k >= 4 && k % 2 == 0,
        "friction cone needs an even k >= 4, got {k}"
    );
    let (t1, t2) = normal.any_orthonormal_pair();
    out.clear();
    let half = k / 2;
    for j in 0..half {
        // Quarter turns use the exact basis vectors so that k = 4 (and any
        // multiple of 4) has no 1e-17 cross-talk between directions.
        let direction = if 4 * j == k {
            t2
        } else {
            let (sin, cos) = (std::f64::consts::TAU * j as f64 / k as f64).sin_cos();
            cos * t1 + sin * t2
        };
        out.push(direction);
    }
    for j in 0..half {
        out.push(-out[j]);
    }
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
