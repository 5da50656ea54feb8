// Dense LU factorisation (partial pivoting) of a square block with reused
// buffers: the k x k block C = B[R, Z] of Lemke's basis (lemke/tableau.rs),
// the guessed clamped block of Dantzig's coupled guess
// (dantzig/coupled_guess.rs) and block pivoting's dense step systems
// (whose small blocks take the plain loops of `plain_lu_in_place`, faer's
// setup costing more than the arithmetic there). With faer's blocked kernels refactorising
// a basis costs 2/3 k^3 (LU) + 4/3 k^3 (C^-1) + 2 (n - k) k^2 (F C^-1) flops,
// all in matrix-matrix form, which is what keeps periodic refactorisation
// (Cline 2002, sec. 4.8.1) cheap next to the pivots at large k.
//
// All buffers, including faer's scratch stack, are kept between calls and
// sized for the largest block (k = n) by `reserve`, so a solve of a size
// seen before allocates nothing. Everything runs with `Par::Seq`: results do
// not depend on the number of threads.

use std::mem::MaybeUninit;

use faer::dyn_stack::{MemStack, StackReq};
use faer::linalg::lu::partial_pivoting::{factor, inverse, solve};
use faer::perm::PermRef;
use faer::{MatMut, MatRef, Par};

/// The factorisation met a pivot that is zero relative to the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Singular {
    /// Elimination step (column) of the first unusable pivot.
    pub(crate) step: usize,
}

/// LU factors of a square block and their workspace.
#[derive(Clone, Debug, Default)]
pub(crate) struct BlockLu {
    /// Blocks up to this size are factored and solved by the plain loops
    /// of this module (`plain_lu_in_place`), larger ones by faer; 0 (the
    /// default): faer for every block but the empty one.
    plain_up_to: usize,
    /// Whether the current factors are the plain loops'.
    plain: bool,
    /// `P b` during a plain solve.
    work: Vec<f64>,
    k: usize,
    /// Column-major k x k: the block before `factor`, L and U after.
    lu: Vec<f64>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    /// Column-major k x k: C^-1 after `invert`.
    pub(crate) inv: Vec<f64>,
    /// faer's scratch memory (its stack allocator), sized by `reserve`.
    stack: Vec<MaybeUninit<u8>>,
}

impl BlockLu {
    /// Makes room for blocks up to `n x n`, so later calls never allocate.
    pub(crate) fn reserve(&mut self, n: usize) {
        // Cleared first: `reserve` counts from the current length.
        self.k = 0;
        for v in [&mut self.lu, &mut self.inv] {
            v.clear();
            v.reserve(n * n);
        }
        for v in [&mut self.perm, &mut self.perm_inv] {
            v.clear();
            v.reserve(n);
        }
        self.work.clear();
        self.work.reserve(n);
        let req = StackReq::any_of(&[
            factor::lu_in_place_scratch::<usize, f64>(n, n, Par::Seq, Default::default()),
            inverse::inverse_scratch::<usize, f64>(n, Par::Seq),
            solve::solve_in_place_scratch::<usize, f64>(n, 1, Par::Seq),
        ]);
        let bytes = req.unaligned_bytes_required();
        if self.stack.len() < bytes {
            self.stack.resize(bytes, MaybeUninit::new(0));
        }
    }

    /// Factors blocks of up to `k` rows with the plain loops of this module
    /// rather than faer's blocked kernels, whose setup costs more than the
    /// arithmetic at those sizes (see `plain_lu_in_place`).
    pub(crate) fn set_plain_up_to(&mut self, k: usize) {
        self.plain_up_to = k;
    }

    /// Sets the size to `k` and returns the zeroed column-major block to fill.
    pub(crate) fn reset(&mut self, k: usize) -> &mut [f64] {
        self.k = k;
        self.plain = false;
        self.lu.clear();
        self.lu.resize(k * k, 0.0);
        self.perm.clear();
        self.perm.resize(k, 0);
        self.perm_inv.clear();
        self.perm_inv.resize(k, 0);
        &mut self.lu
    }

    /// Factors the block in place. A pivot is refused (the block declared
    /// singular) when its magnitude is at most `k * eps * max |C_ij|`, or
    /// when it is not finite.
    pub(crate) fn factor(&mut self) -> Result<(), Singular> {
        let k = self.k;
        let Some(a_max) = self.factor_in_place() else {
            return Err(Singular { step: 0 });
        };
        let tiny = (k as f64) * f64::EPSILON * a_max;
        match (0..k).find(|&i| !Self::usable(self.lu[i * k + i], tiny)) {
            Some(step) => Err(Singular { step }),
            None => Ok(()),
        }
    }

    /// Factors the block in place and lists in `small` the positions whose
    /// pivot is at most `relative * max |C_ij|` (or not finite). With row
    /// pivoting only, a small pivot at position `i` means column `i` lies
    /// (numerically) in the span of the columns before it. False when the
    /// block holds a NaN or an infinity (nothing factored).
    pub(crate) fn factor_listing_small(&mut self, relative: f64, small: &mut Vec<usize>) -> bool {
        small.clear();
        let k = self.k;
        let Some(a_max) = self.factor_in_place() else {
            return false;
        };
        let tiny = relative * a_max;
        small.extend((0..k).filter(|&i| !Self::usable(self.lu[i * k + i], tiny)));
        true
    }

    /// Whether a pivot is finite and larger than `tiny` in magnitude.
    fn usable(pivot: f64, tiny: f64) -> bool {
        pivot.abs() > tiny && pivot.is_finite()
    }

    /// The LU of the block (`plain_lu_in_place` up to `plain_up_to` rows,
    /// else faer's blocked LU); `max |C_ij|` before it, or `None` for a
    /// block with a NaN or an infinity (nothing factored, and no solve
    /// allowed: `plain` is cleared).
    fn factor_in_place(&mut self) -> Option<f64> {
        let k = self.k;
        let a_max = self.lu.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        if !a_max.is_finite() || self.lu.iter().any(|x| x.is_nan()) {
            self.plain = false;
            return None;
        }
        self.plain = k <= self.plain_up_to;
        if self.plain {
            plain_lu_in_place(&mut self.lu, k, &mut self.perm);
            return Some(a_max);
        }
        let a = MatMut::from_column_major_slice_mut(&mut self.lu, k, k);
        factor::lu_in_place(
            a,
            &mut self.perm,
            &mut self.perm_inv,
            Par::Seq,
            MemStack::new(&mut self.stack),
            Default::default(),
        );
        Some(a_max)
    }

    /// Solves `C x = b` in place (`b` becomes `x`).
    pub(crate) fn solve(&mut self, b: &mut [f64]) {
        let k = self.k;
        if self.plain {
            return plain_lu_solve(&self.lu, k, &self.perm, &mut self.work, &mut b[..k]);
        }
        let lu = MatRef::from_column_major_slice(&self.lu, k, k);
        let perm = PermRef::new_checked(&self.perm, &self.perm_inv, k);
        let rhs = MatMut::from_column_major_slice_mut(b, k, 1);
        let stack = MemStack::new(&mut self.stack);
        solve::solve_in_place(lu, lu, perm, rhs, Par::Seq, stack);
    }

    /// Computes `inv = C^-1` (column-major).
    pub(crate) fn invert(&mut self) {
        let k = self.k;
        self.inv.clear();
        self.inv.resize(k * k, 0.0);
        if self.plain {
            // Column by column: C x = e_j.
            for (j, col) in self.inv.chunks_exact_mut(k.max(1)).enumerate().take(k) {
                col[j] = 1.0;
                plain_lu_solve(&self.lu, k, &self.perm, &mut self.work, col);
            }
            return;
        }
        let lu = MatRef::from_column_major_slice(&self.lu, k, k);
        let perm = PermRef::new_checked(&self.perm, &self.perm_inv, k);
        let inv = MatMut::from_column_major_slice_mut(&mut self.inv, k, k);
        let stack = MemStack::new(&mut self.stack);
        inverse::inverse(inv, lu, lu, perm, Par::Seq, stack);
    }
}

/// LU with partial (row) pivoting of the column-major `k x k` block `a`
/// in place, right-looking (Golub & Van Loan, Matrix Computations, alg.
/// 3.4.1): `P A = L U`, `L` unit lower below the diagonal, `U` upper,
/// row `i` of `P A` row `perm[i]` of `A`. A zero pivot skips its
/// elimination step (its column of `L` left 0): the caller finds it among
/// the small pivots and does not solve with the factors. For the small
/// blocks of block pivoting's dense step systems (`set_plain_up_to`),
/// where faer's blocked LU spends more on its setup than on its
/// arithmetic.
fn plain_lu_in_place(a: &mut [f64], k: usize, perm: &mut [usize]) {
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for c in 0..k {
        // The largest magnitude on or below the diagonal of column c.
        let col = &a[c * k..(c + 1) * k];
        let mut p = c;
        for i in c + 1..k {
            if col[i].abs() > col[p].abs() {
                p = i;
            }
        }
        if p != c {
            perm.swap(c, p);
            for column in a.chunks_exact_mut(k) {
                column.swap(c, p);
            }
        }
        let pivot = a[c * k + c];
        if pivot == 0.0 {
            continue;
        }
        let inv = 1.0 / pivot;
        let (head, tail) = a.split_at_mut((c + 1) * k);
        let l = &mut head[c * k + c + 1..(c + 1) * k];
        for x in l.iter_mut() {
            *x *= inv;
        }
        let l = &*l;
        for column in tail.chunks_exact_mut(k) {
            let u = column[c];
            if u != 0.0 {
                for (x, &m) in column[c + 1..].iter_mut().zip(l) {
                    *x -= m * u;
                }
            }
        }
    }
}

/// Solves `C x = b` in place with the factors of [`plain_lu_in_place`]:
/// `L y = P b`, then `U x = y`. `work` is scratch.
fn plain_lu_solve(lu: &[f64], k: usize, perm: &[usize], work: &mut Vec<f64>, b: &mut [f64]) {
    work.clear();
    work.extend(perm.iter().map(|&p| b[p]));
    // L y = P b (unit lower), column by column.
    for c in 0..k {
        let y = work[c];
        if y != 0.0 {
            for (x, &l) in work[c + 1..]
                .iter_mut()
                .zip(&lu[c * k + c + 1..(c + 1) * k])
            {
                *x -= l * y;
            }
        }
    }
    // U x = y, column by column from the last.
    for c in (0..k).rev() {
        let x = work[c] / lu[c * k + c];
        work[c] = x;
        if x != 0.0 {
            for (y, &u) in work[..c].iter_mut().zip(&lu[c * k..c * k + c]) {
                *y -= u * x;
            }
        }
    }
    b.copy_from_slice(work);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::next_uniform;
    use faer::Mat;

    fn filled(c: &Mat<f64>) -> BlockLu {
        let k = c.nrows();
        let mut lu = BlockLu::default();
        lu.reserve(k);
        let a = lu.reset(k);
        for j in 0..k {
            for i in 0..k {
                a[j * k + i] = c[(i, j)];
            }
        }
        lu
    }

    #[test]
    fn inverse_and_solve_match_the_matrix() {
        // A non-symmetric matrix that needs row exchanges.
        let c = faer::mat![[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, -1.0]];
        let mut lu = filled(&c);
        lu.factor().unwrap();
        lu.invert();
        let inv = MatRef::from_column_major_slice(&lu.inv, 3, 3);
        let product = &c * inv;
        for i in 0..3 {
            for j in 0..3 {
                let expected = if i == j { 1.0 } else { 0.0 };
                assert!((product[(i, j)] - expected).abs() < 1e-14, "{product:?}");
            }
        }
        let b = [1.0, -2.0, 0.5];
        let mut x = b;
        lu.solve(&mut x);
        for i in 0..3 {
            let cx: f64 = (0..3).map(|j| c[(i, j)] * x[j]).sum();
            assert!((cx - b[i]).abs() < 1e-14);
        }
    }

    /// The plain loops of small blocks solve, invert and refuse as faer's
    /// LU does (to round-off), on random blocks that need row exchanges.
    #[test]
    fn plain_small_blocks_agree_with_faer() {
        let mut seed = 0x51A11_u64;
        let mut next = || next_uniform(&mut seed);
        for k in [1, 2, 3, 7, 16, 33] {
            let c = Mat::from_fn(k, k, |_, _| next());
            let b: Vec<f64> = (0..k).map(|_| next()).collect();
            let mut faer_lu = filled(&c);
            let mut plain = filled(&c);
            plain.set_plain_up_to(k);
            faer_lu.factor().unwrap();
            plain.factor().unwrap();
            assert!(plain.plain && !faer_lu.plain);
            let (mut x_faer, mut x_plain) = (b.clone(), b.clone());
            faer_lu.solve(&mut x_faer);
            plain.solve(&mut x_plain);
            for i in 0..k {
                let cx: f64 = (0..k).map(|j| c[(i, j)] * x_plain[j]).sum();
                assert!((cx - b[i]).abs() < 1e-12, "k {k}: residual {}", cx - b[i]);
                assert!((x_plain[i] - x_faer[i]).abs() < 1e-10 * (1.0 + x_faer[i].abs()));
            }
            faer_lu.invert();
            plain.invert();
            for (a, b) in plain.inv.iter().zip(&faer_lu.inv) {
                assert!((a - b).abs() < 1e-9 * (1.0 + b.abs()), "k {k}: {a} {b}");
            }
        }
        // A leading entry of 1e-18 needs a row exchange: without it the
        // pivot is listed as small and the solve is far off.
        let c = faer::mat![[1e-18, 1.0, 2.0], [1.0, 1.0, 0.0], [2.0, 0.5, 1.0]];
        let mut plain = filled(&c);
        plain.set_plain_up_to(3);
        let mut small = vec![];
        assert!(plain.factor_listing_small(1e-10, &mut small));
        assert!(small.is_empty(), "{small:?}");
        let b = [1.0, 2.0, 3.0];
        let mut x = b;
        plain.solve(&mut x);
        for i in 0..3 {
            let cx: f64 = (0..3).map(|j| c[(i, j)] * x[j]).sum();
            assert!((cx - b[i]).abs() < 1e-14, "{x:?}");
        }
        // A dependent column is listed as a small pivot.
        let c = faer::mat![[1.0, 2.0, 0.5], [2.0, 4.0, 1.0], [0.0, 0.0, 3.0]];
        let mut plain = filled(&c);
        plain.set_plain_up_to(3);
        let mut small = vec![];
        assert!(plain.factor_listing_small(1e-10, &mut small));
        assert_eq!(small.len(), 1, "{small:?}");
        let mut plain = filled(&c);
        plain.set_plain_up_to(3);
        assert!(plain.factor().is_err());
    }

    #[test]
    fn singular_block_is_refused() {
        let c = faer::mat![[1.0, 2.0], [2.0, 4.0]];
        assert!(filled(&c).factor().is_err());
        let c = faer::mat![[1.0, f64::NAN], [2.0, 4.0]];
        assert!(filled(&c).factor().is_err());
    }
}
