// The guessed system of block principal pivoting on a dense M.
//
// With F the free rows, E_FF = M_FF + shift I + the folded friction
// columns (active_set.rs: a friction row c at a bound of its free normal
// j adds coef M_Fc to column j) is formed as a k x k block and factored by
// LU with partial pivoting (dense_lu.rs). E_FF is not symmetric once a
// friction row is folded, which is why it is not a Cholesky factor.

use super::active_set::ActiveSet;
use super::system::{Singular, StepSystem};
use crate::box_problem::{BoxBounds, BoxLcp};
use crate::dense_lu::BlockLu;

/// Blocks up to this size use the plain LU loops of dense_lu.rs rather
/// than faer's blocked kernels (as Dantzig's coupled guess does, whose
/// measurements set it).
pub(super) const PLAIN_UP_TO: usize = 64;

/// Workspace of the dense system.
#[derive(Clone, Debug, Default)]
pub(super) struct DenseWorkspace {
    lu: BlockLu,
    /// The right-hand side of the free rows, gathered.
    rhs: Vec<f64>,
    /// Dimension the buffers were reserved for.
    reserved: usize,
}

/// A dense problem with its workspace.
pub(super) struct DenseSystem<'a> {
    pub(super) problem: &'a BoxLcp,
    pub(super) workspace: &'a mut DenseWorkspace,
}

impl StepSystem for DenseSystem<'_> {
    fn dim(&self) -> usize {
        self.problem.dim()
    }

    fn bounds(&self) -> &BoxBounds {
        self.problem.bounds()
    }

    fn m_max_abs(&self) -> f64 {
        self.problem.lcp().m_max_abs()
    }

    fn q_max_abs(&self) -> f64 {
        self.problem.lcp().q_max_abs()
    }

    fn affine(&self, z: &[f64], out: &mut [f64]) {
        self.problem.lcp().affine(z, out);
    }

    fn prepare(&mut self) -> usize {
        let n = self.problem.dim();
        let ws = &mut *self.workspace;
        if ws.reserved < n {
            ws.lu.reserve(n);
            ws.lu.set_plain_up_to(PLAIN_UP_TO);
            ws.rhs.reserve(n);
            ws.reserved = n;
        }
        0
    }

    fn factor(&mut self, set: &ActiveSet, shift: f64) -> Result<(), Singular> {
        let k = set.free.len();
        let lcp = self.problem.lcp();
        let block = self.workspace.lu.reset(k);
        for (a, &col) in set.free.iter().enumerate() {
            let source = lcp.col(col);
            let target = &mut block[a * k..(a + 1) * k];
            for (t, &row) in target.iter_mut().zip(&set.free) {
                *t = source[row];
            }
            target[a] += shift;
        }
        for fold in &set.folds {
            let a = set.position[fold.normal];
            let source = lcp.col(fold.row);
            let target = &mut block[a * k..(a + 1) * k];
            for (t, &row) in target.iter_mut().zip(&set.free) {
                *t += fold.coef * source[row];
            }
        }
        self.workspace.lu.factor().map_err(|_| Singular)
    }

    fn solve(&mut self, set: &ActiveSet, rhs: &mut [f64]) {
        let ws = &mut *self.workspace;
        ws.rhs.clear();
        ws.rhs.extend(set.free.iter().map(|&i| rhs[i]));
        ws.lu.solve(&mut ws.rhs);
        for (&i, &x) in set.free.iter().zip(&ws.rhs) {
            rhs[i] = x;
        }
    }
}
