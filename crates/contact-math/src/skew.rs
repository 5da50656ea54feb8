//! The cross-product (skew-symmetric) matrix of a vector.
//!
//! Cline 2002, eq. 2.7: `[a] b = a x b`.

use glam::{DMat3, DVec3};

/// The skew-symmetric matrix `[a]` with `[a] b == a.cross(b)` (Cline eq. 2.7).
///
/// ```text
///        |  0   -az   ay |
/// [a] =  |  az   0   -ax |
///        | -ay   ax   0  |
/// ```
#[must_use]
#[inline]
pub fn skew(a: DVec3) -> DMat3 {
    // glam matrices are built column by column.
    DMat3::from_cols(
        DVec3::new(0.0, a.z, -a.y),
        DVec3::new(-a.z, 0.0, a.x),
        DVec3::new(a.y, -a.x, 0.0),
    )
}

/// The vector of the antisymmetric part of `m`: the inverse of [`skew`].
///
/// For any `a`, `unskew(skew(a)) == a`; for a general matrix the symmetric
/// part is discarded, `unskew(m) = unskew((m - m') / 2)`.
#[must_use]
#[inline]
pub fn unskew(m: DMat3) -> DVec3 {
    // Entries (row, col): x = m(2,1), y = m(0,2), z = m(1,0); averaged with the
    // mirrored entries so a slightly non-antisymmetric input is projected.
    let c = m.to_cols_array_2d(); // c[col][row]
    DVec3::new(
        0.5 * (c[1][2] - c[2][1]),
        0.5 * (c[2][0] - c[0][2]),
        0.5 * (c[0][1] - c[1][0]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::TestRng;

    #[test]
    fn skew_times_b_is_cross_product() {
        let mut rng = TestRng::new(0x5eed_0001);
        for _ in 0..1000 {
            let a = rng.vec3(10.0);
            let b = rng.vec3(10.0);
            let lhs = skew(a) * b;
            let rhs = a.cross(b);
            // Both are sums of two products of numbers <= 10: round-off ~1e-13.
            assert!((lhs - rhs).length() <= 1e-12, "{lhs} vs {rhs}");
        }
    }

    #[test]
    fn skew_is_antisymmetric_with_zero_diagonal() {
        let mut rng = TestRng::new(0x5eed_0002);
        for _ in 0..100 {
            let s = skew(rng.vec3(5.0));
            // Exact: the entries are copies and negations, no arithmetic.
            assert_eq!(s.transpose(), -s);
            assert_eq!(s.diagonal(), DVec3::ZERO);
        }
    }

    #[test]
    fn skew_known_entries() {
        // Cline eq. 2.7 written out for a = (1, 2, 3).
        let s = skew(DVec3::new(1.0, 2.0, 3.0));
        assert_eq!(s.row(0), DVec3::new(0.0, -3.0, 2.0));
        assert_eq!(s.row(1), DVec3::new(3.0, 0.0, -1.0));
        assert_eq!(s.row(2), DVec3::new(-2.0, 1.0, 0.0));
    }

    #[test]
    fn unskew_inverts_skew() {
        let mut rng = TestRng::new(0x5eed_0003);
        for _ in 0..100 {
            let a = rng.vec3(5.0);
            assert_eq!(unskew(skew(a)), a);
        }
    }
}
