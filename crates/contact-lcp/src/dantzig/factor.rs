// An updatable Cholesky factor L L' = M_CC of the clamped block.
//
// The clamped set C is an ordered list of rows of M (in the order they
// entered). L is stored row-major in an n x n buffer (row r holds
// L[r, 0..=r]), so every operation walks contiguous rows:
//
// - append row/column i: solve L l = M_C,i (forward substitution, k^2
//   flops) and set the diagonal sqrt(M_ii - l'l); refused (C unchanged) when
//   M_ii - l'l <= tol, i.e. when M_{C+i, C+i} would be (numerically)
//   singular: this is how redundant contacts are kept out of C;
// - remove position p: with L = [L11 0 0; l21' l22 0; L31 l32 L33], the
//   factor of M without row/column p is [L11 0; L31 L33~] with
//   L33~ L33~' = L33 L33' + l32 l32' (a rank-one *update*, always stable),
//   done with Givens-like rotations in O((k - p)^2), then the rows and columns
//   after p move up/left by one;
// - solve M_CC x = b: one forward and one (row-oriented) backward
//   substitution.
//
// Nothing is ever refactorised from scratch (the counters in DantzigStats
// let tests check that). Removal is hand-written rather than faer 0.24's
// `ldlt::update::delete_rows_and_cols_clobber`: measured here (release,
// removing position n/3 of a dense SPD factor, copies subtracted) ours takes
// 0.18 / 1.1 / 3.8 / 6.7 / 10.3 us at n = 8 / 16 / 32 / 64 / 100 against
// faer's 0.92 / 2.3 / 4.5 / 6.0 / 7.7 us: faster up to n ~ 48, at most 1.3x
// slower at 100, and a removal costs far less than the O(n k) direction
// update of the same pivot, so one code path serves every size.

use crate::problem::Lcp;

/// Cholesky factor of `M_CC` with append and delete.
#[derive(Clone, Debug, Default)]
pub(crate) struct Factor {
    /// Row stride (the problem dimension n).
    stride: usize,
    /// `L`, row-major with stride `stride`.
    l: Vec<f64>,
    /// The rows of M in C, in factor order.
    pub(crate) idx: Vec<usize>,
}

impl Factor {
    /// Empties C for a problem of dimension `n` (allocates only when `n`
    /// grows).
    pub(crate) fn reset(&mut self, n: usize) {
        self.stride = n;
        self.l.clear();
        self.l.resize(n * n, 0.0);
        self.idx.clear();
    }

    /// Size of C.
    pub(crate) fn len(&self) -> usize {
        self.idx.len()
    }

    /// Tries to append row/column `i` of `m`; returns false (and leaves the
    /// factor unchanged) when the new diagonal `M_ii - l'l` is at most
    /// `tol` or not finite.
    pub(crate) fn try_append(&mut self, m: &Lcp, i: usize, tol: f64) -> bool {
        let k = self.idx.len();
        let s = self.stride;
        let col = m.col(i);
        let (head, tail) = self.l.split_at_mut(k * s);
        let row = &mut tail[..k];
        for r in 0..k {
            let lr = &head[r * s..r * s + r];
            let dot: f64 = lr.iter().zip(&row[..r]).map(|(a, b)| a * b).sum();
            row[r] = (col[self.idx[r]] - dot) / head[r * s + r];
        }
        let d2 = col[i] - row.iter().map(|x| x * x).sum::<f64>();
        if !(d2 > tol && d2.is_finite()) {
            return false;
        }
        tail[k] = d2.sqrt();
        self.idx.push(i);
        true
    }

    /// Removes the row/column at position `p` of C.
    pub(crate) fn remove(&mut self, p: usize) {
        let k = self.idx.len();
        let s = self.stride;
        let l = &mut self.l;
        // Rank-one update of the trailing block L33 with x = l32.
        for j in p + 1..k {
            let ljj = l[j * s + j];
            let xj = l[j * s + p];
            if xj == 0.0 {
                continue;
            }
            let r = ljj.hypot(xj);
            let c = r / ljj;
            let sn = xj / ljj;
            l[j * s + j] = r;
            for i in j + 1..k {
                let lij = (l[i * s + j] + sn * l[i * s + p]) / c;
                l[i * s + p] = c * l[i * s + p] - sn * lij;
                l[i * s + j] = lij;
            }
        }
        // Shift rows p+1.. up and columns p+1.. left.
        for r in p + 1..k {
            let (dst, src) = l.split_at_mut(r * s);
            let dst = &mut dst[(r - 1) * s..(r - 1) * s + r];
            let src = &src[..=r];
            dst[..p].copy_from_slice(&src[..p]);
            dst[p..r].copy_from_slice(&src[p + 1..=r]);
        }
        self.idx.remove(p);
    }

    /// Solves `M_CC x = b` in place (`b.len() == self.len()`).
    pub(crate) fn solve_in_place(&self, b: &mut [f64]) {
        let s = self.stride;
        let k = self.idx.len();
        for r in 0..k {
            let lr = &self.l[r * s..r * s + r];
            let dot: f64 = lr.iter().zip(&b[..r]).map(|(a, x)| a * x).sum();
            b[r] = (b[r] - dot) / self.l[r * s + r];
        }
        for r in (0..k).rev() {
            let xr = b[r] / self.l[r * s + r];
            b[r] = xr;
            let lr = &self.l[r * s..r * s + r];
            for (bj, &a) in b[..r].iter_mut().zip(lr) {
                *bj -= a * xr;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 5 x 5 SPD matrix `A A' + I` with a fixed A.
    fn spd() -> Lcp {
        let a = [
            [1.0, 2.0, 0.5],
            [-1.0, 0.3, 2.0],
            [0.7, -0.2, 1.1],
            [2.0, 1.0, -1.0],
            [0.1, 0.4, 0.9],
        ];
        let mut m = vec![0.0; 25];
        for i in 0..5 {
            for j in 0..5 {
                let d: f64 = (0..3).map(|t| a[i][t] * a[j][t]).sum();
                m[i * 5 + j] = d + if i == j { 1.0 } else { 0.0 };
            }
        }
        Lcp::from_row_major(5, &m, &[0.0; 5]).unwrap()
    }

    /// Solves `M_CC x = M_C,0 + 1` through the factor and checks the residual.
    fn check(f: &Factor, m: &Lcp) {
        let k = f.len();
        let b: Vec<f64> = f.idx.iter().map(|&i| m.col(0)[i] + 1.0).collect();
        let mut x = b.clone();
        f.solve_in_place(&mut x);
        for (r, &br) in b.iter().enumerate() {
            let mx: f64 = (0..k).map(|c| m.col(f.idx[c])[f.idx[r]] * x[c]).sum();
            assert!((mx - br).abs() < 1e-12, "{r}: {mx} vs {br}");
        }
    }

    #[test]
    fn append_and_remove_keep_the_factor_exact() {
        let m = spd();
        let mut f = Factor::default();
        f.reset(5);
        for i in [3, 0, 4, 1, 2] {
            assert!(f.try_append(&m, i, 1e-12));
            check(&f, &m);
        }
        f.remove(1);
        check(&f, &m);
        f.remove(0);
        check(&f, &m);
        f.remove(2);
        check(&f, &m);
        assert_eq!(f.idx, vec![4, 1]);
        assert!(f.try_append(&m, 0, 1e-12));
        check(&f, &m);
    }

    #[test]
    fn a_duplicated_row_is_refused() {
        // Rows 0 and 1 are equal: M_{01,01} is singular.
        let m = Lcp::from_row_major(2, &[1.0, 1.0, 1.0, 1.0], &[0.0; 2]).unwrap();
        let mut f = Factor::default();
        f.reset(2);
        assert!(f.try_append(&m, 0, 1e-10));
        assert!(!f.try_append(&m, 1, 1e-10));
        assert_eq!(f.len(), 1);
    }
}
