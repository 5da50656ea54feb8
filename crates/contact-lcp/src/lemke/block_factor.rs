// Dense LU factorisation (partial pivoting) of the k x k block C = B[R, Z] of
// Lemke's basis (see tableau.rs), with faer's blocked kernels: refactorising
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
pub(super) struct Singular {
    /// Elimination step (column) of the first unusable pivot.
    pub(super) step: usize,
}

/// LU factors of a square block and their workspace.
#[derive(Clone, Debug, Default)]
pub(super) struct BlockLu {
    k: usize,
    /// Column-major k x k: the block before `factor`, L and U after.
    lu: Vec<f64>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    /// Column-major k x k: C^-1 after `invert`.
    pub(super) inv: Vec<f64>,
    /// faer's scratch memory (its stack allocator), sized by `reserve`.
    stack: Vec<MaybeUninit<u8>>,
}

impl BlockLu {
    /// Makes room for blocks up to `n x n`, so later calls never allocate.
    pub(super) fn reserve(&mut self, n: usize) {
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
    pub(super) fn reset(&mut self, k: usize) -> &mut [f64] {
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
    pub(super) fn factor(&mut self) -> Result<(), Singular> {
        let k = self.k;
        let a_max = self.lu.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        if !a_max.is_finite() || self.lu.iter().any(|x| x.is_nan()) {
            return Err(Singular { step: 0 });
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
        let tiny = (k as f64) * f64::EPSILON * a_max;
        for i in 0..k {
            let pivot = self.lu[i * k + i].abs();
            if pivot <= tiny || !pivot.is_finite() {
                return Err(Singular { step: i });
            }
        }
        Ok(())
    }

    /// Solves `C x = b` in place (`b` becomes `x`).
    pub(super) fn solve(&mut self, b: &mut [f64]) {
        let k = self.k;
        let lu = MatRef::from_column_major_slice(&self.lu, k, k);
        let perm = PermRef::new_checked(&self.perm, &self.perm_inv, k);
        let rhs = MatMut::from_column_major_slice_mut(b, k, 1);
        let stack = MemStack::new(&mut self.stack);
        solve::solve_in_place(lu, lu, perm, rhs, Par::Seq, stack);
    }

    /// Computes `inv = C^-1` (column-major).
    pub(super) fn invert(&mut self) {
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
