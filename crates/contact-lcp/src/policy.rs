// The solver policy: pivoting first, projected Gauss-Seidel as the fail-safe
// (Preda & Florian 2005, sec. 4: an exact pivoting method where it works, an
// iterative one that always returns something).
//
// Problem and signs: the box LCP of box_problem.rs (w = M z + q, bounds,
// friction coupling), or a plain LCP (z >= 0, w >= 0, z'w = 0).
//
// Order: Dantzig / Baraff principal pivoting (symmetric M) with a budget of
// about n pivots (`dantzig_first_pivots`), then Lemke's method on the box
// problem's standard form (pyramid_lift.rs; it finishes on contact problems
// with a feasible q, Stewart & Trinkle 1996), then Dantzig with its own
// budget if the capped run ran out of pivots. Dantzig goes first because it
// stops at its first coupling pass where that is the answer and its block
// guess handles redundant contacts (docs/benchmarks.md);
// `lemke_coupled_from` sends large coupled problems to Lemke first. A plain
// LCP with a non-symmetric M goes to Lemke first. An answer counts only if it
// certifies to `tolerance` (`VerifyReport::is_solution`).
//
// Resorts, when the pivoting methods failed: a bimatrix-game LCP (M = [[0,
// A], [B', 0]], A, B > 0, q < 0: always solvable, but Lemke's covering vector
// can end on a ray) goes to Lemke-Howson's method (lemke_howson.rs); a
// problem of at most `EXHAUSTIVE_MAX_BASES` complementary bases (and
// `EXHAUSTIVE_MAX_ROWS` rows) to the
// exhaustive search (exhaustive.rs), which finds a certified solution, or
// proves there is none (`LcpError::NoSolution`), or, having met a basis it
// cannot rule out (a near miss, a rank unclear in rounding, its face budget
// spent), hands over. Last, projected Gauss-Seidel warm-started from the
// best pivoting iterate; where it cannot run (a diagonal entry <= 0), the
// best pivoting failure is returned. The solution's `method` says which
// solver produced it.

use crate::block_pivoting::RowState;
use crate::box_problem::BoxLcp;
use crate::dantzig::{Dantzig, DantzigParams};
use crate::error::LcpError;
use crate::exhaustive::{ExhaustiveSearch, Outcome};
use crate::lemke::{Lemke, LemkeParams};
use crate::lemke_howson::{LemkeHowson, bimatrix_split};
use crate::pgs::{PgsParams, ProjectedGaussSeidel};
use crate::problem::{Lcp, check_len};
use crate::solution::{LcpSolution, Method};

/// Settings of [`Solver`]: those of each solver, and the certification
/// tolerance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverParams {
    /// Settings of the pivoting solver tried first on symmetric problems.
    pub dantzig: DantzigParams,
    /// Settings of Lemke's method: tried first on non-symmetric plain LCPs
    /// and on large coupled box problems, second on the other box problems.
    pub lemke: LemkeParams,
    /// Settings of the fail-safe.
    pub pgs: PgsParams,
    /// A pivoting answer is accepted when its
    /// [`VerifyReport::scaled_max`](crate::VerifyReport::scaled_max) is at
    /// most this (dimensionless). Default `1e-9`; sensible range
    /// `1e-12..=1e-6`. The fail-safe's own stopping test is
    /// [`PgsParams::tolerance`].
    pub tolerance: f64,
    /// Box problems with friction coupling and at least this many rows try
    /// Lemke's method ([`Lemke::solve_box_into`]) before Dantzig's. Default
    /// `usize::MAX`: Dantzig first always; `0` puts Lemke first.
    pub lemke_coupled_from: usize,
    /// Pivots Dantzig may take over all its coupling passes when it goes
    /// first, before Lemke is tried ([`DantzigParams::max_total_pivots`]).
    /// `0` (the default) means `n + 20` without friction coupling (a
    /// contact problem Dantzig solves well needs about `n` pivots; a long
    /// path is better left to Lemke) and `10 n` with it (each pass after
    /// the first moves the sliding contacts again).
    pub dantzig_first_pivots: usize,
}

impl Default for SolverParams {
    fn default() -> Self {
        Self {
            dantzig: DantzigParams::default(),
            lemke: LemkeParams::default(),
            pgs: PgsParams::default(),
            tolerance: 1e-9,
            lemke_coupled_from: usize::MAX,
            dantzig_first_pivots: 0,
        }
    }
}

/// The solver policy: Dantzig and Lemke (in the order the problem suits,
/// see the module source); when both fail or do not certify,
/// Lemke-Howson's method on a bimatrix-game LCP and, on a problem of at
/// most [`EXHAUSTIVE_MAX_BASES`](crate::EXHAUSTIVE_MAX_BASES)
/// complementary bases and [`EXHAUSTIVE_MAX_ROWS`](crate::EXHAUSTIVE_MAX_ROWS)
/// rows, the exhaustive search; projected Gauss-Seidel as
/// the fail-safe. Owns the workspaces of all of them.
///
/// ```
/// use contact_lcp::{BoxLcp, Method, Solver, faer::mat};
///
/// let m = mat![[2.0, 1.0], [1.0, 2.0]];
/// let inf = f64::INFINITY;
/// let p = BoxLcp::new(m, vec![-1.0, -1.0], vec![0.0; 2], vec![inf; 2], vec![])?;
/// let sol = Solver::default().solve(&p)?;
/// assert_eq!(sol.method, Method::Dantzig);
/// assert!((sol.z[0] - 1.0 / 3.0).abs() < 1e-15);
/// # Ok::<(), contact_lcp::LcpError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Solver {
    params: SolverParams,
    dantzig: Dantzig,
    lemke: Lemke,
    pgs: ProjectedGaussSeidel,
    lemke_howson: LemkeHowson,
    exhaustive: ExhaustiveSearch,
    first: Option<LcpError>,
    /// The pivoting failure whose answer or best iterate was the best of
    /// the last solve (the warm start), and its solver: returned when the
    /// fail-safe cannot run.
    failure: Option<(LcpError, Method)>,
    /// The solver whose error the last solve returned.
    failed: Option<Method>,
}

impl Solver {
    /// A policy with the given settings (allocates on the first solve).
    #[must_use]
    pub fn new(params: SolverParams) -> Self {
        Self {
            params,
            dantzig: Dantzig::new(params.dantzig),
            lemke: Lemke::new(params.lemke),
            pgs: ProjectedGaussSeidel::new(params.pgs),
            ..Self::default()
        }
    }

    /// The settings.
    #[must_use]
    pub fn params(&self) -> &SolverParams {
        &self.params
    }

    /// Why the first solver of the last solve was not used, if another one
    /// answered: its error, or `None` when it returned an answer that did
    /// not certify (or when it answered).
    #[must_use]
    pub fn first_failure(&self) -> Option<&LcpError> {
        self.first.as_ref()
    }

    /// The solver whose error the last solve returned (`None` when it
    /// answered): the one its best iterate names where it has one, else
    /// the exhaustive search for [`LcpError::NoSolution`], projected
    /// Gauss-Seidel for the fail-safe's errors, or the pivoting solver
    /// whose failure is returned where the fail-safe cannot run.
    #[must_use]
    pub fn failed_method(&self) -> Option<Method> {
        self.failed
    }

    /// Solves a box LCP, returning a new solution.
    ///
    /// # Errors
    ///
    /// See [`Solver::solve_into`].
    pub fn solve(&mut self, problem: &BoxLcp) -> Result<LcpSolution, LcpError> {
        let mut out = LcpSolution::default();
        self.solve_into(problem, &mut out)?;
        Ok(out)
    }

    /// Solves a box LCP into `out`, trying the solvers in the order of
    /// [`Solver`]; `out.method` says which answered. When the first solver
    /// answers, a repeated solve of the same shape allocates nothing.
    ///
    /// # Errors
    ///
    /// - [`LcpError::NoSolution`] when the exhaustive search proved that
    ///   the problem has no solution;
    /// - otherwise the fail-safe's errors (those of
    ///   [`ProjectedGaussSeidel::solve_into`], e.g.
    ///   [`LcpError::IterationLimit`] with its best iterate); the first
    ///   pivoting solver's error is kept in [`Solver::first_failure`];
    /// - but where the fail-safe cannot run on the problem
    ///   ([`LcpError::NonPositiveDiagonal`]: a precondition of projected
    ///   Gauss-Seidel, not a fault of the problem), the failure of the
    ///   pivoting solver whose answer or best iterate came closest (its
    ///   error, e.g. [`LcpError::RayTermination`] or
    ///   [`LcpError::PivotLimit`], with that iterate; an uncertified answer
    ///   as [`LcpError::NotCertified`]); `NonPositiveDiagonal` only when no
    ///   pivoting solver reported one.
    pub fn solve_into(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Result<(), LcpError> {
        self.solve_guessed(problem, None, out)
    }

    /// As [`Solver::solve_into`], with Dantzig's first block guess taken
    /// from `guess` (see [`Dantzig::solve_from_into`]).
    ///
    /// # Errors
    ///
    /// [`LcpError::BadLength`] when `guess` does not have one entry per
    /// row; otherwise those of [`Solver::solve_into`].
    pub fn solve_from_into(
        &mut self,
        problem: &BoxLcp,
        guess: &[RowState],
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        check_len("guess", problem.dim(), guess.len())?;
        self.solve_guessed(problem, Some(guess), out)
    }

    fn solve_guessed(
        &mut self,
        problem: &BoxLcp,
        guess: Option<&[RowState]>,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        let result = self.pivot_then_resort(problem, guess, out);
        self.note_failure(&result);
        result
    }

    /// Records which solver's error `result` is (`failed_method`), unless
    /// `fallback` named it.
    fn note_failure(&mut self, result: &Result<(), LcpError>) {
        let Err(e) = result else {
            self.failed = None;
            return;
        };
        self.failed = Some(match (e.best(), e, self.failed) {
            (Some(best), _, _) => best.method,
            (None, LcpError::NoSolution { .. }, _) => Method::ExhaustiveSearch,
            (None, _, Some(named)) => named,
            (None, _, None) => Method::ProjectedGaussSeidel,
        });
    }

    /// The pivoting solvers, then the resorts, then the fail-safe (the
    /// order of [`Solver`]).
    fn pivot_then_resort(
        &mut self,
        problem: &BoxLcp,
        guess: Option<&[RowState]>,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        self.first = None;
        self.failure = None;
        self.failed = None;
        let mut best = None;
        if !problem.couplings().is_empty() && problem.dim() >= self.params.lemke_coupled_from {
            let r = self.lemke.solve_box_into(problem, out);
            if self.certified(r, out, &mut best, Method::Lemke, true) {
                return Ok(());
            }
            let r = self.dantzig.solve_guessed(problem, guess, out);
            if self.certified(r, out, &mut best, Method::Dantzig, false) {
                return Ok(());
            }
        } else {
            let full = *self.dantzig.params();
            let n = problem.dim();
            let first = match self.params.dantzig_first_pivots {
                0 if problem.couplings().is_empty() => n + 20,
                0 => n.saturating_mul(10),
                k => k,
            };
            let cap = full.max_total_pivots.min(first);
            self.dantzig.set_params(DantzigParams {
                max_total_pivots: cap,
                ..full
            });
            let r = self.dantzig.solve_guessed(problem, guess, out);
            self.dantzig.set_params(full);
            let capped_out =
                matches!(r, Err(LcpError::PivotLimit { .. })) && full.max_total_pivots > cap;
            if self.certified(r, out, &mut best, Method::Dantzig, true) {
                return Ok(());
            }
            let r = self.lemke.solve_box_into(problem, out);
            if self.certified(r, out, &mut best, Method::Lemke, false) {
                return Ok(());
            }
            if capped_out {
                let r = self.dantzig.solve_guessed(problem, guess, out);
                if self.certified(r, out, &mut best, Method::Dantzig, false) {
                    return Ok(());
                }
            }
        }
        if let Some(result) = self.resorts(problem, out) {
            return result;
        }
        self.fallback(problem, best.map(|(_, z)| z), out)
    }

    /// Whether a pivoting solver's `result` (its answer in `out`) certifies.
    /// If not, its answer or best iterate becomes the warm start `best` (a
    /// scaled error and `z`) when its error is the smallest yet, with its
    /// failure (`self.failure`, with `method`, the solver that ran; the
    /// first error when none has an iterate), and the error of the `first`
    /// solver is kept for [`Solver::first_failure`].
    fn certified(
        &mut self,
        result: Result<(), LcpError>,
        out: &LcpSolution,
        best: &mut Option<(f64, Vec<f64>)>,
        method: Method,
        first: bool,
    ) -> bool {
        let candidate = match &result {
            Ok(()) if out.report.is_solution(self.params.tolerance) => return true,
            Ok(()) => Some(out),
            Err(e) => e.best(),
        };
        let mut improved = false;
        if let Some(c) = candidate {
            let error = c.report.scaled_max();
            match best {
                Some((e, z)) if error < *e => {
                    *e = error;
                    z.clone_from(&c.z);
                    improved = true;
                }
                Some(_) => {}
                None => {
                    *best = Some((error, c.z.clone()));
                    improved = true;
                }
            }
        }
        if improved || self.failure.is_none() {
            let error = match &result {
                Err(e) => e.clone(),
                Ok(()) => LcpError::NotCertified {
                    error: out.report.scaled_max(),
                    tolerance: self.params.tolerance,
                    best: Some(Box::new(out.clone())),
                },
            };
            self.failure = Some((error, method));
        }
        if first {
            self.first = result.err();
        }
        false
    }

    /// Lemke-Howson's method on a bimatrix-game LCP, then the exhaustive
    /// search on a small problem: `Some` with the answer or the proof that
    /// there is none; `None` to go on to the fail-safe.
    fn resorts(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Option<Result<(), LcpError>> {
        let tolerance = self.params.tolerance;
        if let Some(n1) = bimatrix_split(problem) {
            let limit = self.params.lemke.pivot_limit(problem.dim());
            if self.lemke_howson.solve(problem, n1, limit, out) && out.report.is_solution(tolerance)
            {
                return Some(Ok(()));
            }
        }
        match self.exhaustive.solve(problem, out) {
            Outcome::Solved if out.report.is_solution(tolerance) => Some(Ok(())),
            Outcome::NoSolution => Some(Err(LcpError::NoSolution {
                bases: self.exhaustive.bases,
            })),
            _ => None,
        }
    }

    /// Solves a plain LCP: as [`Solver::solve_into`] on its box form (a
    /// copy of `M`) when `M` is symmetric, else Lemke first.
    ///
    /// # Errors
    ///
    /// As [`Solver::solve_into`].
    pub fn solve_lcp(&mut self, lcp: &Lcp) -> Result<LcpSolution, LcpError> {
        let mut out = LcpSolution::default();
        let problem = BoxLcp::from_lcp(lcp);
        if lcp.is_symmetric() {
            self.solve_into(&problem, &mut out)?;
            return Ok(out);
        }
        self.first = None;
        self.failure = None;
        self.failed = None;
        let mut best = None;
        let r = self.lemke.solve_into(lcp, &mut out);
        if self.certified(r, &out, &mut best, Method::Lemke, true) {
            return Ok(out);
        }
        let result = match self.resorts(&problem, &mut out) {
            Some(result) => result,
            None => self.fallback(&problem, best.map(|(_, z)| z), &mut out),
        };
        self.note_failure(&result);
        result.map(|()| out)
    }

    /// Projected Gauss-Seidel, warm-started from `warm` (a pivoting
    /// solver's best iterate or uncertified answer) when it is usable.
    fn fallback(
        &mut self,
        problem: &BoxLcp,
        warm: Option<Vec<f64>>,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        let warm = warm.filter(|z| z.len() == problem.dim() && z.iter().all(|x| x.is_finite()));
        match self.pgs.solve_into(problem, warm.as_deref(), out) {
            Ok(()) => {}
            // Projected Gauss-Seidel cannot run here: a pivoting solver's
            // failure says more about the problem than its precondition.
            Err(e @ LcpError::NonPositiveDiagonal { .. }) => {
                return Err(match self.failure.take() {
                    Some((failure, method)) => {
                        self.failed = Some(method);
                        failure
                    }
                    None => e,
                });
            }
            Err(e) => return Err(e),
        }
        debug_assert_eq!(out.method, Method::ProjectedGaussSeidel);
        Ok(())
    }
}
