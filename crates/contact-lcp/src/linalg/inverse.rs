// The explicit inverse B = M_CC^-1 of a non-symmetric clamped block (dynamic
// friction folded into the normals' columns, Baraff 1994 sec. 5-6), updated
// per exchange in O(k^2) as Lemke's basis is (Cline 2002 sec. 4.8.1):
//
// - append row/column i, with u = M_Ci, v' = M_iC, d = M_ii and the Schur
//   complement s = d - v' B u (refused when s <= tol):
//       [B + (B u)(v' B)/s   -(B u)/s]
//       [    -(v' B)/s          1/s  ]
// - remove position p: B' = B_{-p,-p} - B_{-p,p} B_{p,-p} / B_pp, then the
//   row and column p are deleted.
//
// Less robust than a factor: the caller re-solves z_C, recomputes w and
// certifies the answer.

use crate::linalg::kernels::{axpy, dot, gemv};
use crate::problem::Lcp;
use crate::tuning::REMOVAL_PIVOT;

/// Appends row/column `i` of `m` to the `k x k` inverse in `b` (column-major,
/// leading dimension `ld`) of the block of the rows `idx`, with `scratch`
/// of length >= k. False (nothing changed) when the Schur
/// complement is at most `tol` or not finite: a negative one would make the
/// row's z move against its w and leave again at once (a zero-step cycle).
pub(super) fn append(
    b: &mut [f64],
    ld: usize,
    idx: &[usize],
    m: &Lcp,
    i: usize,
    tol: f64,
    scratch: &mut [Vec<f64>; 4],
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
/// changed) when the block left without `p` is singular (`|B_pp|` at most
/// `REMOVAL_PIVOT` of B's largest diagonal entry).
pub(super) fn remove(b: &mut [f64], ld: usize, k: usize, p: usize) -> bool {
    let largest = (0..k).fold(0.0_f64, |a, c| a.max(b[c * ld + c].abs()));
    let bpp = b[p * ld + p];
    if !(bpp.abs() > REMOVAL_PIVOT * largest && bpp.is_finite()) {
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

    /// Appends `rows` in turn to the inverse of `m`'s empty block; whether
    /// each was accepted.
    fn appended(m: &Lcp, rows: &[usize], b: &mut [f64], idx: &mut Vec<usize>) -> Vec<bool> {
        let n = m.dim();
        let mut scratch = std::array::from_fn(|_| vec![0.0; n]);
        rows.iter()
            .map(|&i| {
                let ok = append(b, n, idx, m, i, 1e-12, &mut scratch);
                if ok {
                    idx.push(i);
                    check(b, n, idx, m);
                }
                ok
            })
            .collect()
    }

    #[test]
    fn appends_and_removals_keep_the_inverse_exact() {
        // Non-symmetric with a dominant diagonal.
        let n = 5;
        let entries: Vec<f64> = (0..n * n)
            .map(|t| {
                let (i, j) = (t / n, t % n);
                if i == j {
                    4.0 + i as f64
                } else {
                    ((i * 3 + j * 7) % 5) as f64 / 5.0 - 0.3
                }
            })
            .collect();
        let m = Lcp::from_row_major(n, &entries, &[0.0; 5]).unwrap();
        let (mut b, mut idx) = (vec![0.0; 25], vec![]);
        assert_eq!(appended(&m, &[2, 0, 4, 1, 3], &mut b, &mut idx), [true; 5]);
        for p in [1, 3, 0] {
            assert!(remove(&mut b, n, idx.len(), p));
            idx.remove(p);
            check(&b, n, &idx, &m);
        }
    }

    #[test]
    fn singular_blocks_are_refused() {
        // Rows 0 and 1 equal: the block {0, 1} is singular.
        let m = Lcp::from_row_major(2, &[1.0, 2.0, 1.0, 2.0], &[0.0; 2]).unwrap();
        let (mut b, mut idx) = (vec![0.0; 4], vec![]);
        assert_eq!(appended(&m, &[0, 1], &mut b, &mut idx), [true, false]);
        // M = [[1, 1], [-1, 0]]: the block {0, 1} is invertible (det 1),
        // but without row 0 the block {1} = [0] is singular.
        let m = Lcp::from_row_major(2, &[1.0, 1.0, -1.0, 0.0], &[0.0; 2]).unwrap();
        let (mut b, mut idx) = (vec![0.0; 4], vec![]);
        assert_eq!(appended(&m, &[0, 1], &mut b, &mut idx), [true, true]);
        let before = b.clone();
        assert!(!remove(&mut b, 2, 2, 0));
        assert_eq!(b, before);
        assert!(remove(&mut b, 2, 2, 1));
    }
}
