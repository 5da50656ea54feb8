// Dense LU with partial pivoting of a square block, with reused buffers
// (sized by `reserve`, so a repeated size allocates nothing): Lemke's basis
// block (lemke/tableau.rs), where refactorising (Cline 2002 sec. 4.8.1)
// runs in faer's blocked, matrix-matrix form, the coupled guess's block
// (dantzig/coupled_guess.rs), and the small blocks of Lemke-Howson and the
// exhaustive search, which take the plain loops of `plain_lu_in_place`
// (faer's setup costing more than the arithmetic there). `Par::Seq`
// throughout: results do not depend on the number of threads.

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
    /// Blocks up to this size take the plain loops, larger ones faer's (0,
    /// the default: faer for every block but the empty one).
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

    /// Factors blocks of up to `k` rows with `plain_lu_in_place` rather than
    /// faer's blocked kernels.
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
    /// pivot is at most `relative * max |C_ij|` (or not finite): column `i`
    /// lies numerically in the span of those before it. False when the
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

    /// The LU of the block; `max |C_ij|` before it, or `None` for a block
    /// with a NaN or an infinity (nothing factored).
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
/// elimination step: the caller finds it among the small pivots.
fn plain_lu_in_place(a: &mut [f64], k: usize, perm: &mut [usize]) {
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for c in 0..k {
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

    /// A `BlockLu` holding `c`, on the plain loops if `plain`.
    fn filled(c: &Mat<f64>, plain: bool) -> BlockLu {
        let k = c.nrows();
        let mut lu = BlockLu::default();
        lu.reserve(k);
        lu.set_plain_up_to(if plain { k } else { 0 });
        let a = lu.reset(k);
        for j in 0..k {
            for i in 0..k {
                a[j * k + i] = c[(i, j)];
            }
        }
        lu
    }

    /// Checks `C x = b` for the solve of `b`, and `C C^-1 = I`, to `tol`.
    fn check(c: &Mat<f64>, lu: &mut BlockLu, b: &[f64], tol: f64) -> Vec<f64> {
        let k = c.nrows();
        let mut x = b.to_vec();
        lu.solve(&mut x);
        lu.invert();
        let inv = MatRef::from_column_major_slice(&lu.inv, k, k);
        let product = c * inv;
        for i in 0..k {
            let cx: f64 = (0..k).map(|j| c[(i, j)] * x[j]).sum();
            assert!((cx - b[i]).abs() < tol, "k {k}: residual {}", cx - b[i]);
            for j in 0..k {
                let expected = if i == j { 1.0 } else { 0.0 };
                assert!(
                    (product[(i, j)] - expected).abs() < 1e3 * tol,
                    "{product:?}"
                );
            }
        }
        x
    }

    /// Both routes solve and invert (to round-off) blocks that need row
    /// exchanges, and agree with each other.
    #[test]
    fn plain_and_faer_blocks_solve_and_invert() {
        let c = faer::mat![[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, -1.0]];
        for plain in [false, true] {
            let mut lu = filled(&c, plain);
            lu.factor().unwrap();
            check(&c, &mut lu, &[1.0, -2.0, 0.5], 1e-14);
        }
        let mut seed = 0x51A11_u64;
        let mut next = || next_uniform(&mut seed);
        for k in [1, 2, 7, 16, 33] {
            let c = Mat::from_fn(k, k, |_, _| next());
            let b: Vec<f64> = (0..k).map(|_| next()).collect();
            let (mut faer_lu, mut plain) = (filled(&c, false), filled(&c, true));
            faer_lu.factor().unwrap();
            plain.factor().unwrap();
            assert!(plain.plain && !faer_lu.plain);
            let x_faer = check(&c, &mut faer_lu, &b, 1e-12);
            let x_plain = check(&c, &mut plain, &b, 1e-12);
            for (a, b) in x_plain.iter().zip(&x_faer) {
                assert!((a - b).abs() < 1e-10 * (1.0 + b.abs()), "k {k}: {a} {b}");
            }
        }
        // A leading entry of 1e-18 needs a row exchange: without it the
        // pivot would be small and the solve far off.
        let c = faer::mat![[1e-18, 1.0, 2.0], [1.0, 1.0, 0.0], [2.0, 0.5, 1.0]];
        let mut plain = filled(&c, true);
        let mut small = vec![];
        assert!(plain.factor_listing_small(1e-10, &mut small));
        assert!(small.is_empty(), "{small:?}");
        check(&c, &mut plain, &[1.0, 2.0, 3.0], 1e-14);
    }

    #[test]
    fn singular_blocks_are_refused_or_listed() {
        let c = faer::mat![[1.0, 2.0, 0.5], [2.0, 4.0, 1.0], [0.0, 0.0, 3.0]];
        // The plain loops list the dependent column as one small pivot.
        let mut small = vec![];
        assert!(filled(&c, true).factor_listing_small(1e-10, &mut small));
        assert_eq!(small.len(), 1, "{small:?}");
        assert!(filled(&c, true).factor().is_err());
        let c = faer::mat![[1.0, 2.0], [2.0, 4.0]];
        assert!(filled(&c, false).factor().is_err());
        let c = faer::mat![[1.0, f64::NAN], [2.0, 4.0]];
        assert!(filled(&c, false).factor().is_err());
    }
}
