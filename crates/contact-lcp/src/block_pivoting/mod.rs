// Block principal pivoting for box LCPs with friction coupling, warm-started
// from a guessed active set: the step solves of a simulator, whose active
// set changes little from one time step to the next.
//
// Problem and signs: the box LCP of box_problem.rs, w = M z + q, lo <= z <=
// hi, a friction row coupled to a normal row j bounded by -mu z_j <= z_i
// <= mu z_j; M symmetric positive semidefinite (J W J' of a contact
// problem, singular when contacts are redundant), dense (BoxLcp) or sparse
// (SparseBoxLcp).
//
// Method: Judice & Pires 1994, "A block principal pivoting algorithm for
// large-scale strictly monotone linear complementarity problems" (Comput.
// Oper. Res. 21(5)), for box bounds as in Kostreva 1978's block pivoting:
// guess for every row whether it is free (w_i = 0), at its lower or at its
// upper bound; solve the one linear system that guess defines; exchange
// the rows whose z leaves its bounds or whose w has the wrong sign; repeat
// until no row is violated (pivoting.rs). A friction row at a bound is
// z_i = sigma mu z_j, substituted into the system, so the coupling is exact
// at the answer of one solve (active_set.rs). Given the right active set,
// the answer takes one factorisation and one solve, then the certificate.
//
// Why this and not projected Gauss-Seidel with subspace minimisation
// (Silcowitz, Niebe & Erleben 2010): PGS-SM alternates Gauss-Seidel sweeps,
// which estimate the active set, with a solve of the free rows' system in
// which the friction bounds are held at their last value; its termination
// is a merit-function test, its guarantee none, and a sliding contact's
// bound moves with the normal after the solve, so even a right active set
// leaves a linearly converging fixed point in the friction radii (the
// coupling passes that do not settle on 50-box piles). Block pivoting with
// the friction folded in is exact in one solve when the guess is right,
// certifies after every solve, is finite for the P-matrices of regularised
// box problems without coupling (Judice & Pires, with Murty's one-row rule
// as the fall-back), and needs nothing but a factorisation per guess.
// Drake's and Siconos's pivoting solvers also work on the active set of
// the whole problem; none of them warm-starts from a previous step.
//
// Cold start (no guess): every row at its lower bound and, with friction
// coupling, the friction rows first held at 0 until the normal rows settle
// (the frictionless problem, a P-matrix problem once regularised); then
// each friction row of a loaded contact is guessed sticking (free), the
// others at the bound their w points to, and the pivoting goes on. Without
// that first pass the folded guesses of a tall stack wander: the friction
// rows' exchanges outrun the normals'. Nothing guarantees that the
// friction-coupled guesses settle (their system is not a P-matrix): when
// they do not within `max_solves`, the solver says so with the best
// iterate, and the caller's policy hands the problem to Dantzig or Lemke.
//
// Singular M (redundant contacts): the guessed system is factored with
// M + shift I, shift = `regularization` ||M||_max (only inside the linear
// solve), which makes it a P-matrix problem: the pivoting finds the answer
// of the regularised problem, whose w differs from the true one by shift
// |z| (a scaled error of `regularization`). Every answer is projected,
// its w recomputed from the unregularised M, and certified at the
// caller's tolerance; where that fails, iterative refinement with the same
// factor removes the shift's part of the error on the free rows. The
// shift also spreads the load of redundant contacts evenly (the least
// squares answer), where a rank-revealing factor would put it on a few and
// push their friction out of the cone.
//
// Linear algebra: once a friction row is folded the system is not
// symmetric (the normal's column carries the friction column, its row
// does not). The dense path (dense_system.rs) factors every guessed block
// by LU with partial pivoting (dense_lu.rs). The sparse path
// (sparse_system.rs) keeps one pattern for every guess so that the
// symbolic analysis is made once per pattern, and factors a guess without
// folded rows (a settled pile) by faer's sparse LDL', allocation-free, and
// one with folded rows by faer's sparse LU.

mod active_set;
mod dense_system;
mod pivoting;
mod sparse_system;
mod system;

pub use active_set::active_set_of;

use crate::box_problem::BoxLcp;
use crate::error::LcpError;
use crate::solution::LcpSolution;
use crate::sparse_box_problem::SparseBoxLcp;
use dense_system::{DenseSystem, DenseWorkspace};
use pivoting::Pivoting;
use sparse_system::{SparseSystem, SparseWorkspace};

/// Where a row of a box LCP sits: the guess block principal pivoting
/// starts from, and the active set it ends with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RowState {
    /// At the lower bound: `z_i = lo_i`, or `-mu z_j` for a friction row
    /// coupled to normal row `j`; `w_i >= 0`.
    #[default]
    Lower,
    /// At the upper bound: `z_i = hi_i`, or `+mu z_j`; `w_i <= 0`.
    Upper,
    /// Between the bounds: `w_i = 0`.
    Free,
}

/// Settings of [`BlockPivoting`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BlockPivotingParams {
    /// Most linear solves (each a factorisation of a guessed block) per
    /// call before giving up with [`LcpError::BlockPivotingFailed`].
    /// Default `50`; at least 1. A right guess takes 1, a cold start on a
    /// contact problem about 3 to 10.
    pub max_solves: usize,
    /// An answer is returned only when its
    /// [`VerifyReport::scaled_max`](crate::VerifyReport::scaled_max) is at
    /// most this (dimensionless); rows are exchanged only when they
    /// violate their guess by more than a sixteenth of it. Default `1e-9`;
    /// sensible range `1e-13..=1e-6`.
    pub tolerance: f64,
    /// The shift added to the diagonal of every guessed block, relative to
    /// `||M||_max` (dimensionless): it makes the blocks of redundant
    /// contacts factorisable. Its part of the error is about this much of
    /// the certificate's scale, and is refined away where the tolerance
    /// asks for less. Default `1e-12`; `0` for positive definite problems.
    pub regularization: f64,
}

impl Default for BlockPivotingParams {
    fn default() -> Self {
        Self {
            max_solves: 50,
            tolerance: 1e-9,
            regularization: 1e-12,
        }
    }
}

impl BlockPivotingParams {
    /// The first setting outside its range, as the error to return.
    fn check(&self) -> Result<(), LcpError> {
        let bad = |what, value| Err(LcpError::InvalidParameter { what, value });
        if self.max_solves == 0 {
            return bad("max_solves", 0.0);
        }
        if !(self.tolerance > 0.0 && self.tolerance.is_finite()) {
            return bad("tolerance", self.tolerance);
        }
        if !(self.regularization >= 0.0 && self.regularization.is_finite()) {
            return bad("regularization", self.regularization);
        }
        Ok(())
    }
}

/// What the last solve of a [`BlockPivoting`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BlockPivotingStats {
    /// Linear solves: factorisations of a guessed block, each followed by
    /// one solve (also [`LcpSolution::iterations`]).
    pub solves: usize,
    /// Rows whose guess was exchanged (also [`LcpSolution::pivots`]).
    pub exchanges: usize,
    /// Guesses that exchanged a single row (Murty's rule, after the block
    /// exchanges stopped reducing the number of violated rows).
    pub single_exchanges: usize,
    /// Iterative refinement steps (a solve with the last factor).
    pub refinements: usize,
    /// Linear solves whose guess had folded friction rows (a friction row
    /// at a bound of a free normal): a non-symmetric system, on the sparse
    /// path an LU factor rather than the LDL' of the others.
    pub folded_solves: usize,
    /// Symbolic factorisations made by this solve on the sparse path (0
    /// when the pattern was that of the solve before, and on the dense
    /// path).
    pub symbolic_factorizations: usize,
    /// Free rows of the last guessed block.
    pub free_rows: usize,
}

/// Block principal pivoting for box LCPs with a symmetric positive
/// semidefinite `M`, dense or sparse, with friction coupling, warm-started
/// from a guessed active set (Judice & Pires 1994; see the module source).
///
/// Owns its workspace: a second solve of the same size (and, on the sparse
/// path, the same pattern) allocates nothing, except on the sparse path
/// for guesses with folded friction rows, whose LU factor faer allocates
/// as it factors (see the module source). Returns
/// `Ok` only with an answer that certifies at
/// [`BlockPivotingParams::tolerance`]; otherwise
/// [`LcpError::BlockPivotingFailed`] with the best iterate, for a policy to
/// hand to another solver.
///
/// ```
/// use contact_lcp::{BlockPivoting, BoxLcp, Method, RowState, faer::mat};
///
/// let inf = f64::INFINITY;
/// let m = mat![[2.0, 1.0], [1.0, 2.0]];
/// let p = BoxLcp::new(m, vec![-1.0, 1.0], vec![0.0; 2], vec![inf; 2], vec![])?;
/// let mut solver = BlockPivoting::default();
/// let sol = solver.solve(&p, None)?;
/// assert_eq!(sol.method, Method::BlockPivoting);
/// assert!((sol.z[0] - 0.5).abs() < 1e-12 && sol.z[1] == 0.0);
/// // Warm-started from that answer's active set: one linear solve.
/// let guess = solver.active_set().to_vec();
/// assert_eq!(guess, [RowState::Free, RowState::Lower]);
/// let again = solver.solve(&p, Some(&guess))?;
/// assert_eq!(solver.last_stats().solves, 1);
/// assert_eq!(again.z, sol.z);
/// # Ok::<(), contact_lcp::LcpError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct BlockPivoting {
    params: BlockPivotingParams,
    stats: BlockPivotingStats,
    pivoting: Pivoting,
    dense: DenseWorkspace,
    sparse: SparseWorkspace,
}

impl BlockPivoting {
    /// A solver with the given settings (allocates on the first solve).
    #[must_use]
    pub fn new(params: BlockPivotingParams) -> Self {
        Self {
            params,
            ..Self::default()
        }
    }

    /// The settings.
    #[must_use]
    pub fn params(&self) -> &BlockPivotingParams {
        &self.params
    }

    /// Replaces the settings (the workspace is kept).
    pub fn set_params(&mut self, params: BlockPivotingParams) {
        self.params = params;
    }

    /// Statistics of the last solve.
    #[must_use]
    pub fn last_stats(&self) -> &BlockPivotingStats {
        &self.stats
    }

    /// The active set of the last solve: of its answer when it succeeded,
    /// else of its last guess. The guess for the next time step.
    #[must_use]
    pub fn active_set(&self) -> &[RowState] {
        &self.pivoting.set.states
    }

    /// Solves a dense box LCP from `guess` (one state per row; `None`:
    /// every row at its lower bound, bilateral rows free).
    ///
    /// # Errors
    ///
    /// See [`solve_into`](Self::solve_into).
    pub fn solve(
        &mut self,
        problem: &BoxLcp,
        guess: Option<&[RowState]>,
    ) -> Result<LcpSolution, LcpError> {
        let mut out = LcpSolution::default();
        self.solve_into(problem, guess, &mut out)?;
        Ok(out)
    }

    /// [`solve`](Self::solve) into a caller-owned solution (no allocation
    /// once `out` and the workspace have grown to this size).
    ///
    /// # Errors
    ///
    /// - [`LcpError::InvalidParameter`] for a setting out of range;
    /// - [`LcpError::BadLength`] (`what = "guess"`) if the guess has
    ///   another length than the problem;
    /// - [`LcpError::BlockPivotingFailed`] when no certified answer was
    ///   found within [`BlockPivotingParams::max_solves`] solves, a guessed
    ///   block could not be factored, or a settled answer does not certify;
    ///   with the iterate that violated the fewest rows.
    pub fn solve_into(
        &mut self,
        problem: &BoxLcp,
        guess: Option<&[RowState]>,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        check(&self.params, problem.dim(), guess)?;
        let mut system = DenseSystem {
            problem,
            workspace: &mut self.dense,
        };
        self.pivoting
            .run(&mut system, &self.params, guess, &mut self.stats, out)
    }

    /// Solves a sparse box LCP from `guess`; the symbolic factor is kept
    /// for the next solve with the same pattern of `M` and couplings.
    ///
    /// # Errors
    ///
    /// See [`solve_into`](Self::solve_into).
    pub fn solve_sparse(
        &mut self,
        problem: &SparseBoxLcp,
        guess: Option<&[RowState]>,
    ) -> Result<LcpSolution, LcpError> {
        let mut out = LcpSolution::default();
        self.solve_sparse_into(problem, guess, &mut out)?;
        Ok(out)
    }

    /// [`solve_sparse`](Self::solve_sparse) into a caller-owned solution.
    ///
    /// # Errors
    ///
    /// As [`solve_into`](Self::solve_into).
    pub fn solve_sparse_into(
        &mut self,
        problem: &SparseBoxLcp,
        guess: Option<&[RowState]>,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        check(&self.params, problem.dim(), guess)?;
        let mut system = SparseSystem {
            problem,
            workspace: &mut self.sparse,
        };
        self.pivoting
            .run(&mut system, &self.params, guess, &mut self.stats, out)
    }
}

/// The input checks of a solve.
fn check(
    params: &BlockPivotingParams,
    n: usize,
    guess: Option<&[RowState]>,
) -> Result<(), LcpError> {
    params.check()?;
    match guess {
        Some(g) if g.len() != n => Err(LcpError::BadLength {
            what: "guess",
            expected: n,
            found: g.len(),
        }),
        _ => Ok(()),
    }
}
