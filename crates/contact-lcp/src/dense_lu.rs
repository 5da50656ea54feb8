// Dense LU factorisation (partial pivoting) of a square block with reused
// buffers: the k x k block C = B[R, Z] of Lemke's basis (lemke/tableau.rs)
// and the guessed clamped block of Dantzig's coupled guess
// (dantzig/coupled_guess.rs). With faer's blocked kernels refactorising
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

    /// Sets the size to `k` and returns the zeroed column-major block to fill.
    pub(crate) fn reset(&mut self, k: usize) -> &mut [f64] {
        self.k = k;
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

    /// faer's blocked LU of the block; `max |C_ij|` before it, or `None`
    /// for a block with a NaN or an infinity.
    fn factor_in_place(&mut self) -> Option<f64> {
        let k = self.k;
        let a_max = self.lu.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        if !a_max.is_finite() || self.lu.iter().any(|x| x.is_nan()) {
            return None;
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
        let lu = MatRef::from_column_major_slice(&self.lu, k, k);
        let perm = PermRef::new_checked(&self.perm, &self.perm_inv, k);
        let inv = MatMut::from_column_major_slice_mut(&mut self.inv, k, k);
        let stack = MemStack::new(&mut self.stack);
        inverse::inverse(inv, lu, lu, perm, Par::Seq, stack);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn singular_block_is_refused() {
        let c = faer::mat![[1.0, 2.0], [2.0, 4.0]];
        assert!(filled(&c).factor().is_err());
        let c = faer::mat![[1.0, f64::NAN], [2.0, 4.0]];
        assert!(filled(&c).factor().is_err());
    }
}
