//! A small dense LU factorisation with partial (row) pivoting that reuses its
//! buffers: `P A = L U` for a row-major `n x n` matrix `A`, `L` unit lower
//! triangular, `U` upper triangular, both stored in place of `A`.
//!
//! Written here rather than taken from faer because the pivoting solvers
//! refactorise the same-sized basis many times per solve: this type keeps its
//! storage between calls (no allocation after the first factorisation of a
//! given size), offers the transposed solve `A' x = b` on the same factors, and
//! is simple to read. faer is used to cross-check it in the tests.

/// Dense LU factors with partial pivoting and their scratch memory.
#[derive(Clone, Debug, Default)]
pub(crate) struct DenseLu {
    n: usize,
    /// Row-major `n x n`: the matrix before `factor`, `L` and `U` after.
    a: Vec<f64>,
    /// `perm[k]` = the original row that ended in position `k`.
    perm: Vec<usize>,
    scratch: Vec<f64>,
}

/// The factorisation found a pivot that is zero relative to the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Singular {
    /// Elimination step (column) at which no usable pivot was found.
    pub(crate) step: usize,
}

impl DenseLu {
    /// Sets the size, keeping capacity; the matrix is zeroed.
    pub(crate) fn reset(&mut self, n: usize) {
        self.n = n;
        self.a.clear();
        self.a.resize(n * n, 0.0);
        self.perm.clear();
        self.perm.extend(0..n);
        self.scratch.clear();
        self.scratch.resize(n, 0.0);
    }

    /// Makes room for matrices up to `n x n`, so `reset(k)` with `k <= n`
    /// never allocates.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.a.reserve(n * n);
        self.perm.reserve(n);
        self.scratch.reserve(n);
    }

    /// Row `i` of the matrix to factor, to be filled by the caller.
    pub(crate) fn row_mut(&mut self, i: usize) -> &mut [f64] {
        let n = self.n;
        &mut self.a[i * n..(i + 1) * n]
    }

    /// Factors the matrix in place.
    ///
    /// A pivot is refused (the matrix is declared singular) when its
    /// magnitude is at most `n * eps * max|A_ij|`, or when it is not finite.
    pub(crate) fn factor(&mut self) -> Result<(), Singular> {
        let n = self.n;
        let a = &mut self.a;
        let a_max = a.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        if !a_max.is_finite() {
            return Err(Singular { step: 0 });
        }
        let tiny = (n as f64) * f64::EPSILON * a_max;
        for k in 0..n {
            // Find the pivot row.
            let mut p = k;
            let mut best = a[k * n + k].abs();
            for i in k + 1..n {
                let v = a[i * n + k].abs();
                if v > best {
                    best = v;
                    p = i;
                }
            }
            if best <= tiny || !best.is_finite() {
                return Err(Singular { step: k });
            }
            if p != k {
                for j in 0..n {
                    a.swap(k * n + j, p * n + j);
                }
                self.perm.swap(k, p);
            }
            let (upper, lower) = a.split_at_mut((k + 1) * n);
            let pivot_row = &upper[k * n..];
            let inv = 1.0 / pivot_row[k];
            for row in lower.chunks_exact_mut(n) {
                let l = row[k] * inv;
                row[k] = l;
                if l != 0.0 {
                    for (x, &u) in row[k + 1..].iter_mut().zip(&pivot_row[k + 1..]) {
                        *x -= l * u;
                    }
                }
            }
        }
        Ok(())
    }

    /// Solves `A x = b` in place (`b` becomes `x`).
    pub(crate) fn solve(&mut self, b: &mut [f64]) {
        let n = self.n;
        debug_assert_eq!(b.len(), n);
        let a = &self.a;
        let x = &mut self.scratch;
        for k in 0..n {
            x[k] = b[self.perm[k]];
        }
        // L y = P b (unit lower).
        for i in 0..n {
            let row = &a[i * n..i * n + i];
            let s: f64 = row.iter().zip(&x[..i]).map(|(l, y)| l * y).sum();
            x[i] -= s;
        }
        // U x = y.
        for i in (0..n).rev() {
            let row = &a[i * n..(i + 1) * n];
            let s: f64 = row[i + 1..]
                .iter()
                .zip(&x[i + 1..])
                .map(|(u, y)| u * y)
                .sum();
            x[i] = (x[i] - s) / row[i];
        }
        b.copy_from_slice(x);
    }

    /// Solves `A' x = b` in place (`b` becomes `x`).
    ///
    /// With `P A = L U`, `A' = U' L' P`: solve `U' s = b`, `L' t = s`, then
    /// `x = P' t`.
    pub(crate) fn solve_transpose(&mut self, b: &mut [f64]) {
        let n = self.n;
        debug_assert_eq!(b.len(), n);
        let a = &self.a;
        let t = &mut self.scratch;
        t.copy_from_slice(b);
        // U' s = b: U' is lower triangular; column-oriented over rows of U.
        for k in 0..n {
            let row = &a[k * n..(k + 1) * n];
            let sk = t[k] / row[k];
            t[k] = sk;
            if sk != 0.0 {
                for (ti, &u) in t[k + 1..].iter_mut().zip(&row[k + 1..]) {
                    *ti -= u * sk;
                }
            }
        }
        // L' t = s: L' is unit upper triangular.
        for k in (0..n).rev() {
            let row = &a[k * n..k * n + k];
            let tk = t[k];
            if tk != 0.0 {
                for (ti, &l) in t[..k].iter_mut().zip(row) {
                    *ti -= l * tk;
                }
            }
        }
        for k in 0..n {
            b[self.perm[k]] = t[k];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;
    use faer::linalg::solvers::Solve;

    fn fill(lu: &mut DenseLu, n: usize, f: impl Fn(usize, usize) -> f64) {
        lu.reset(n);
        for i in 0..n {
            for (j, x) in lu.row_mut(i).iter_mut().enumerate() {
                *x = f(i, j);
            }
        }
    }

    // A fixed, non-symmetric matrix that needs row exchanges (zero (0,0) entry).
    fn entry(i: usize, j: usize) -> f64 {
        if i == j && i == 0 {
            0.0
        } else {
            ((i * 7 + j * 3) % 11) as f64 - 5.0 + if i == j { 9.0 } else { 0.0 }
        }
    }

    #[test]
    fn solves_agree_with_faer() {
        let n = 7;
        let mut lu = DenseLu::default();
        fill(&mut lu, n, entry);
        lu.factor().unwrap();
        let b: Vec<f64> = (0..n).map(|i| i as f64 - 2.5).collect();
        let a = Mat::from_fn(n, n, entry);
        let rhs = Mat::from_fn(n, 1, |i, _| b[i]);
        let x_ref = a.partial_piv_lu().solve(&rhs);
        let xt_ref = a.transpose().to_owned().partial_piv_lu().solve(&rhs);
        let mut x = b.clone();
        lu.solve(&mut x);
        let mut xt = b.clone();
        lu.solve_transpose(&mut xt);
        for i in 0..n {
            assert!((x[i] - x_ref[(i, 0)]).abs() < 1e-12, "{x:?}");
            assert!((xt[i] - xt_ref[(i, 0)]).abs() < 1e-12, "{xt:?}");
        }
    }

    #[test]
    fn singular_matrix_is_reported() {
        let mut lu = DenseLu::default();
        // Rank 1.
        fill(&mut lu, 3, |i, j| ((i + 1) * (j + 1)) as f64);
        assert!(lu.factor().is_err());
        fill(&mut lu, 2, |_, _| f64::NAN);
        assert_eq!(lu.factor(), Err(Singular { step: 0 }));
    }
}
