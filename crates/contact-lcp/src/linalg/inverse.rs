// The explicit inverse B = M_CC^-1 of a non-symmetric clamped block, kept
// by bordering updates.
//
// A non-symmetric M arises with dynamic (sliding) friction: the friction
// force of a sliding contact is -mu f_n along its sliding direction, so it
// is substituted into the normal force's column (Baraff 1994 sec. 5-6) and
// M loses its symmetry. There is no Cholesky factor then; as for Lemke's
// basis (Cline 2002 sec. 4.8.1), the inverse is updated per exchange:
//
// - append row/column i, with u = M_Ci, v' = M_iC, d = M_ii and the Schur
//   complement s = d - v' B u (refused when |s| <= tol: singular):
//       [B + (B u)(v' B)/s   -(B u)/s]
//       [    -(v' B)/s          1/s  ]
// - remove position p: B' = B_{-p,-p} - B_{-p,p} B_{p,-p} / B_pp, then the
//   row and column p are deleted.
//
// Each costs O(k^2), as the Cholesky updates do; the inverse is less
// robust than a factor, which is why the symmetric problems keep the
// factor. The caller re-solves z_C and recomputes w = M z + q at the end
// and the answer is certified by `verify_box`.

use crate::linalg::kernels::{axpy, dot, gemv};
use crate::problem::Lcp;

/// Appends row/column `i` of `m` to the `k x k` inverse in `b` (column-major,
/// leading dimension `ld`) of the block of the rows `idx`; `u`, `v`, `bu`,
/// `vb` are scratch of length >= k. False (nothing changed) when the Schur
/// complement is at most `tol` or not finite: as with the Cholesky factor,
/// only a positive complement lets a row in. A negative one would make the
/// row's z move against its w, so it would leave again at once (a zero-step
/// enter/leave cycle until the pivot limit, seen on random low-rank
/// non-symmetric problems).
#[allow(clippy::too_many_arguments)]
pub(super) fn append(
    b: &mut [f64],
    ld: usize,
    idx: &[usize],
    m: &Lcp,
    i: usize,
    tol: f64,
    scratch: [&mut [f64]; 4],
) -> bool {
    let k = idx.len();
    let [u, v, bu, vb] = scratch;
    let col_i = m.col(i);
    for (r, &c) in idx.iter().enumerate() {
        u[r] = col_i[c];
        v[r] = m.col(c)[i];
    }
    gemv(b, ld, &u[..k], &mut bu[..k]);
    // v' B: column c of B dotted with v.
    for c in 0..k {
        vb[c] = dot(&b[c * ld..c * ld + k], &v[..k]);
    }
    let s = col_i[i] - dot(&v[..k], &bu[..k]);
    if !(s > tol && s.is_finite()) {
        return false;
    }
    let inv_s = 1.0 / s;
    for c in 0..k {
        axpy(vb[c] * inv_s, &bu[..k], &mut b[c * ld..c * ld + k]);
        b[c * ld + k] = -vb[c] * inv_s;
    }
    for r in 0..k {
        b[k * ld + r] = -bu[r] * inv_s;
    }
    b[k * ld + k] = inv_s;
    true
}

/// Removes position `p` from the `k x k` inverse in `b`. False (nothing
/// changed) when the block left without `p` is singular, i.e. `B_pp` is at
/// most `1e-13 max |B_pp|`-ish relative to the diagonal of `B`: the inverse
/// would fill with infinities. (A Cholesky factor cannot get there: every
/// principal block of a positive definite block is positive definite.)
pub(super) fn remove(b: &mut [f64], ld: usize, k: usize, p: usize) -> bool {
    let largest = (0..k).fold(0.0_f64, |a, c| a.max(b[c * ld + c].abs()));
    let bpp = b[p * ld + p];
    if !(bpp.abs() > 1e-13 * largest && bpp.is_finite()) {
        return false;
    }
    let inv_pp = 1.0 / bpp;
    for c in (0..k).filter(|&c| c != p) {
        let f = b[c * ld + p] * inv_pp;
        if f != 0.0 {
            for r in (0..k).filter(|&r| r != p) {
                b[c * ld + r] -= b[p * ld + r] * f;
            }
        }
    }
    // Delete row p in every column, then column p.
    for c in 0..k {
        b.copy_within(c * ld + p + 1..c * ld + k, c * ld + p);
    }
    for c in p + 1..k {
        b.copy_within(c * ld..c * ld + k - 1, (c - 1) * ld);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A non-symmetric 5 x 5 matrix with a dominant diagonal.
    fn matrix() -> Lcp {
        let n = 5;
        let m: Vec<f64> = (0..n * n)
            .map(|t| {
                let (i, j) = (t / n, t % n);
                if i == j {
                    4.0 + i as f64
                } else {
                    ((i * 3 + j * 7) % 5) as f64 / 5.0 - 0.3
                }
            })
            .collect();
        Lcp::from_row_major(n, &m, &[0.0; 5]).unwrap()
    }

    /// B M_CC = I to round-off.
    fn check(b: &[f64], ld: usize, idx: &[usize], m: &Lcp) {
        let k = idx.len();
        for r in 0..k {
            for c in 0..k {
                let e: f64 = (0..k).map(|t| b[t * ld + r] * m.col(idx[c])[idx[t]]).sum();
                let want = if r == c { 1.0 } else { 0.0 };
                assert!((e - want).abs() < 1e-12, "({r}, {c}): {e}");
            }
        }
    }

    #[test]
    fn appends_and_removals_keep_the_inverse_exact() {
        let m = matrix();
        let ld = 5;
        let mut b = vec![0.0; 25];
        let mut idx = vec![];
        let mut s = [[0.0; 5]; 4];
        for i in [2, 0, 4, 1, 3] {
            let [a, bb, c, d] = &mut s;
            assert!(append(&mut b, ld, &idx, &m, i, 1e-12, [a, bb, c, d]));
            idx.push(i);
            check(&b, ld, &idx, &m);
        }
        for p in [1, 3, 0] {
            assert!(remove(&mut b, ld, idx.len(), p));
            idx.remove(p);
            check(&b, ld, &idx, &m);
        }
    }

    #[test]
    fn a_singular_border_is_refused() {
        // Rows 0 and 1 equal: the block {0, 1} is singular.
        let m = Lcp::from_row_major(2, &[1.0, 2.0, 1.0, 2.0], &[0.0; 2]).unwrap();
        let mut b = vec![0.0; 4];
        let mut s = [[0.0; 2]; 4];
        let [a, bb, c, d] = &mut s;
        assert!(append(&mut b, 2, &[], &m, 0, 1e-12, [a, bb, c, d]));
        let [a, bb, c, d] = &mut s;
        assert!(!append(&mut b, 2, &[0], &m, 1, 1e-12, [a, bb, c, d]));
    }

    #[test]
    fn a_removal_that_leaves_a_singular_block_is_refused() {
        // M = [[1, 1], [-1, 0]]: the block {0, 1} is invertible (det 1),
        // but without row 0 the block {1} = [0] is singular.
        let m = Lcp::from_row_major(2, &[1.0, 1.0, -1.0, 0.0], &[0.0; 2]).unwrap();
        let mut b = vec![0.0; 4];
        let mut s = [[0.0; 2]; 4];
        let [a, bb, c, d] = &mut s;
        assert!(append(&mut b, 2, &[], &m, 0, 1e-12, [a, bb, c, d]));
        let [a, bb, c, d] = &mut s;
        assert!(append(&mut b, 2, &[0], &m, 1, 1e-12, [a, bb, c, d]));
        let before = b.clone();
        assert!(!remove(&mut b, 2, 2, 0));
        assert_eq!(b, before);
        assert!(remove(&mut b, 2, 2, 1));
    }
}
