// The guessed system of block principal pivoting on a sparse M.
//
// The guessed block changes shape with every guess; a sparse factor is
// cheap only when its symbolic analysis (ordering, elimination structure)
// is kept. So the matrix factored here has one pattern for every guess:
// n x n, the guessed block on the free rows and columns, the identity on
// the other rows (their z is set apart), explicit zeros wherever a guess
// leaves an entry out. Two such matrices, each analysed once and kept
// while the pattern of M and the couplings stay the same (compared on
// every solve, O(nnz)):
//
// - without folded friction rows the block is M_FF + shift I, symmetric:
//   faer's sparse LDL' (AMD ordering) on the upper triangle of the pattern
//   of M plus the diagonal, its values refactored into storage kept here,
//   so such a solve allocates nothing;
// - with folded rows (active_set.rs: a friction row c at a bound of its
//   free normal j adds coef M_Fc to column j) it is not symmetric: faer's
//   sparse LU with partial pivoting, on the pattern of M plus the diagonal
//   plus, for each coupled row c, the pattern of column c copied into the
//   column of its normal (in a contact problem a friction row and its
//   normal touch the same bodies, so this adds nothing). faer's supernodal
//   LU allocates while it factors.
//
// Why not one factor for both: on the pyramids' step problems faer's
// sparse LU refactors 4-8x slower than the LDL' from n = 1 200 (COLAMD on
// M'M's structure and row pivoting against AMD on M's), and the settled
// piles a simulator warm-starts have no folded row. A symmetric factor
// with a low-rank (Sherman-Morrison-Woodbury) correction for the folded
// rows was tried: the shift's near-null directions of the redundant
// contacts amplify rounding in S^-1 U, and the solves kept a relative
// residual of 1e-10 even after iterative refinement, which misled the
// pivoting (see the commit message).

use std::sync::Arc;

use faer::dyn_stack::StackReq;
use faer::linalg::cholesky::ldlt::factor::LdltRegularization;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, LdltRef, SymbolicCholesky, SymmetricOrdering,
    factorize_symbolic_cholesky,
};
use faer::sparse::linalg::lu::{
    LuRef, LuSymbolicParams, NumericLu, SymbolicLu, factorize_symbolic_lu,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};

use super::active_set::{ActiveSet, NONE};
use super::system::{Singular, StepSystem};
use crate::box_problem::BoxBounds;
use crate::faer_scratch::FaerScratch;
use crate::sparse_box_problem::SparseBoxLcp;

/// Workspace of the sparse system.
#[derive(Clone, Debug, Default)]
pub(super) struct SparseWorkspace {
    /// The pattern of `M` this workspace was built for (compact columns),
    /// and each row's coupled normal (or NONE).
    key_col_ptr: Vec<usize>,
    key_row_idx: Vec<usize>,
    key_normal: Vec<usize>,
    symmetric: Symmetric,
    folded: Folded,
    scratch: FaerScratch,
    /// Whether the last factor was the folded one.
    last_folded: bool,
}

/// The symmetric matrix and its LDL' factor.
#[derive(Clone, Debug, Default)]
struct Symmetric {
    /// The upper triangle, sorted by row within each column.
    pattern: Pattern,
    /// For each stored entry of `M`: its place in `values`, or NONE below
    /// the diagonal.
    at: Vec<usize>,
    /// Shared, not copied, by a clone (it never changes once built).
    symbolic: Option<Arc<SymbolicCholesky<usize>>>,
    factor: Vec<f64>,
}

/// The folded matrix and its LU factor, built on first need.
#[derive(Clone, Debug, Default)]
struct Folded {
    pattern: Pattern,
    /// For each stored entry of `M`: its place in `values`; and, for an
    /// entry of a coupled column, the place of the same row in the column
    /// of its normal.
    at: Vec<usize>,
    folded_at: Vec<usize>,
    symbolic: Option<SymbolicLu<usize>>,
    numeric: NumericLu<usize, f64>,
}

/// A fixed sparsity pattern with room for values.
#[derive(Clone, Debug, Default)]
struct Pattern {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
    /// The place of each diagonal entry in `values`.
    diagonal: Vec<usize>,
}

impl Pattern {
    /// Builds the pattern from its columns (each sorted here), with room
    /// for values.
    fn from_columns(columns: &mut [Vec<usize>]) -> Self {
        let mut p = Self::default();
        p.col_ptr.push(0);
        for column in columns.iter_mut() {
            column.sort_unstable();
            column.dedup();
            p.row_idx.extend_from_slice(column);
            p.col_ptr.push(p.row_idx.len());
        }
        p.values = vec![0.0; p.row_idx.len()];
        p.diagonal = (0..columns.len()).map(|c| p.place(c, c)).collect();
        p
    }

    /// The place of entry `(row, col)` in `values`.
    fn place(&self, col: usize, row: usize) -> usize {
        let range = self.col_ptr[col]..self.col_ptr[col + 1];
        let found = self.row_idx[range.clone()].binary_search(&row);
        range.start + found.unwrap_or_else(|_| unreachable!("in the pattern"))
    }

    fn view(&self) -> SymbolicSparseColMatRef<'_, usize> {
        let n = self.diagonal.len();
        SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx)
    }

    /// Zeroes the values, and puts 1 on the diagonal of the rows that are
    /// not free.
    fn reset(&mut self, set: &ActiveSet) {
        self.values.fill(0.0);
        for (&d, &p) in self.diagonal.iter().zip(&set.position) {
            if p == NONE {
                self.values[d] = 1.0;
            }
        }
    }
}

/// A sparse problem with its workspace.
pub(super) struct SparseSystem<'a> {
    pub(super) problem: &'a SparseBoxLcp,
    pub(super) workspace: &'a mut SparseWorkspace,
}

impl SparseWorkspace {
    /// Whether the workspace was built for the pattern of `problem`.
    fn fits(&self, problem: &SparseBoxLcp) -> bool {
        let m = problem.m();
        let n = problem.dim();
        if self.symmetric.symbolic.is_none() || self.key_col_ptr.len() != n + 1 {
            return false;
        }
        let same_columns = (0..n).all(|col| {
            let rows = m.symbolic().row_idx_of_col_raw(col);
            rows == &self.key_row_idx[self.key_col_ptr[col]..self.key_col_ptr[col + 1]]
        });
        same_columns && (0..n).all(|i| self.key_normal[i] == normal_of(problem.bounds(), i))
    }

    /// Builds the symmetric pattern and its symbolic factor for `problem`
    /// (the folded one waits for a guess that needs it).
    fn build(&mut self, problem: &SparseBoxLcp) {
        let m = problem.m();
        let n = problem.dim();
        self.key_col_ptr.clear();
        self.key_row_idx.clear();
        self.key_col_ptr.push(0);
        for col in 0..n {
            self.key_row_idx
                .extend_from_slice(m.symbolic().row_idx_of_col_raw(col));
            self.key_col_ptr.push(self.key_row_idx.len());
        }
        self.key_normal.clear();
        self.key_normal
            .extend((0..n).map(|i| normal_of(problem.bounds(), i)));
        let mut columns: Vec<Vec<usize>> = (0..n)
            .map(|col| {
                let mut column = vec![col];
                column.extend(self.rows(col).iter().filter(|&&r| r < col));
                column
            })
            .collect();
        let pattern = Pattern::from_columns(&mut columns);
        let mut at = Vec::with_capacity(self.key_row_idx.len());
        for col in 0..n {
            for &row in self.rows(col) {
                at.push(if row <= col {
                    pattern.place(col, row)
                } else {
                    NONE
                });
            }
        }
        // Allocation failure is the only error of the symbolic phase on a
        // valid square pattern.
        let symbolic = factorize_symbolic_cholesky(
            pattern.view(),
            Side::Upper,
            SymmetricOrdering::Amd,
            CholeskySymbolicParams::default(),
        )
        .unwrap_or_else(|e| panic!("symbolic LDL': {e:?}"));
        self.symmetric = Symmetric {
            pattern,
            at,
            factor: vec![0.0; symbolic.len_val()],
            symbolic: Some(Arc::new(symbolic)),
        };
        self.folded = Folded::default();
    }

    /// Builds the folded pattern and its symbolic factor.
    fn build_folded(&mut self) {
        let n = self.key_normal.len();
        let mut columns: Vec<Vec<usize>> = (0..n).map(|col| vec![col]).collect();
        for col in 0..n {
            columns[col].extend_from_slice(self.rows(col));
            let normal = self.key_normal[col];
            if normal != NONE {
                let rows = &self.key_row_idx[self.key_col_ptr[col]..self.key_col_ptr[col + 1]];
                columns[normal].extend_from_slice(rows);
            }
        }
        let pattern = Pattern::from_columns(&mut columns);
        let (mut at, mut folded_at) = (Vec::new(), Vec::new());
        for col in 0..n {
            let normal = self.key_normal[col];
            for &row in self.rows(col) {
                at.push(pattern.place(col, row));
                folded_at.push(if normal == NONE {
                    NONE
                } else {
                    pattern.place(normal, row)
                });
            }
        }
        let symbolic = factorize_symbolic_lu(pattern.view(), LuSymbolicParams::default())
            .unwrap_or_else(|e| panic!("symbolic LU: {e:?}"));
        self.folded = Folded {
            pattern,
            at,
            folded_at,
            symbolic: Some(symbolic),
            numeric: NumericLu::new(),
        };
    }

    /// The stored rows of column `col` of `M`.
    fn rows(&self, col: usize) -> &[usize] {
        &self.key_row_idx[self.key_col_ptr[col]..self.key_col_ptr[col + 1]]
    }
}

/// The normal row of row `i` if it is a coupled friction row, else NONE.
fn normal_of(bounds: &BoxBounds, i: usize) -> usize {
    bounds.coupling_of(i).map_or(NONE, |c| c.normal_row)
}

impl StepSystem for SparseSystem<'_> {
    fn dim(&self) -> usize {
        self.problem.dim()
    }

    fn bounds(&self) -> &BoxBounds {
        self.problem.bounds()
    }

    fn m_max_abs(&self) -> f64 {
        self.problem.m_max_abs()
    }

    fn q_max_abs(&self) -> f64 {
        self.problem.q_max_abs()
    }

    fn affine(&self, z: &[f64], out: &mut [f64]) {
        self.problem.affine(z, out);
    }

    fn prepare(&mut self) -> usize {
        if self.workspace.fits(self.problem) {
            return 0;
        }
        self.workspace.build(self.problem);
        1
    }

    fn factor(&mut self, set: &ActiveSet, shift: f64) -> Result<(), Singular> {
        let m = self.problem.m();
        let ws = &mut *self.workspace;
        ws.last_folded = !set.folds.is_empty();
        let free = |i: usize| set.position[i] != NONE;
        if !ws.last_folded {
            let s = &mut ws.symmetric;
            s.pattern.reset(set);
            for &col in &set.free {
                let entries = ws.key_col_ptr[col]..ws.key_col_ptr[col + 1];
                for (e, &value) in entries.zip(m.val_of_col(col)) {
                    if s.at[e] != NONE && free(ws.key_row_idx[e]) {
                        s.pattern.values[s.at[e]] += value;
                    }
                }
                s.pattern.values[s.pattern.diagonal[col]] += shift;
            }
            let Some(symbolic) = s.symbolic.as_ref() else {
                unreachable!("prepare builds the symbolic factor")
            };
            let req = StackReq::any_of(&[
                symbolic.factorize_numeric_ldlt_scratch::<f64>(Par::Seq, Default::default()),
                symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
            ]);
            let matrix = SparseColMatRef::new(s.pattern.view(), &s.pattern.values);
            return symbolic
                .factorize_numeric_ldlt(
                    &mut s.factor,
                    matrix,
                    Side::Upper,
                    LdltRegularization::default(),
                    Par::Seq,
                    ws.scratch.stack(req),
                    Default::default(),
                )
                .map(|_| ())
                .map_err(|_| Singular);
        }
        if ws.folded.symbolic.is_none() {
            ws.build_folded();
        }
        let f = &mut ws.folded;
        f.pattern.reset(set);
        for &col in &set.free {
            let entries = ws.key_col_ptr[col]..ws.key_col_ptr[col + 1];
            for (e, &value) in entries.zip(m.val_of_col(col)) {
                if free(ws.key_row_idx[e]) {
                    f.pattern.values[f.at[e]] += value;
                }
            }
            f.pattern.values[f.pattern.diagonal[col]] += shift;
        }
        for fold in &set.folds {
            let entries = ws.key_col_ptr[fold.row]..ws.key_col_ptr[fold.row + 1];
            for (e, &value) in entries.zip(m.val_of_col(fold.row)) {
                if free(ws.key_row_idx[e]) {
                    f.pattern.values[f.folded_at[e]] += fold.coef * value;
                }
            }
        }
        let Some(symbolic) = f.symbolic.as_ref() else {
            unreachable!("built above")
        };
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        let matrix = SparseColMatRef::new(f.pattern.view(), &f.pattern.values);
        symbolic
            .factorize_numeric_lu(
                &mut f.numeric,
                matrix,
                Par::Seq,
                ws.scratch.stack(req),
                Default::default(),
            )
            .map(|_| ())
            .map_err(|_| Singular)
    }

    fn solve(&mut self, set: &ActiveSet, rhs: &mut [f64]) {
        let ws = &mut *self.workspace;
        // The identity rows: their unknowns are 0.
        for (x, &p) in rhs.iter_mut().zip(&set.position) {
            if p == NONE {
                *x = 0.0;
            }
        }
        let n = rhs.len();
        let rhs = MatMut::from_column_major_slice_mut(rhs, n, 1);
        if ws.last_folded {
            let f = &ws.folded;
            let Some(symbolic) = f.symbolic.as_ref() else {
                unreachable!("factor builds it")
            };
            let stack = ws
                .scratch
                .stack(symbolic.solve_in_place_scratch::<f64>(1, Par::Seq));
            LuRef::new_unchecked(symbolic, &f.numeric).solve_in_place_with_conj(
                Conj::No,
                rhs,
                Par::Seq,
                stack,
            );
        } else {
            let s = &ws.symmetric;
            let Some(symbolic) = s.symbolic.as_ref() else {
                unreachable!("prepare builds it")
            };
            let stack = ws
                .scratch
                .stack(symbolic.solve_in_place_scratch::<f64>(1, Par::Seq));
            LdltRef::new(symbolic, &s.factor).solve_in_place_with_conj(
                Conj::No,
                rhs,
                Par::Seq,
                stack,
            );
        }
    }
}
