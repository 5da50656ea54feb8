// The solver policy: pivoting first, projected Gauss-Seidel as the fail-safe.
//
// Problem and signs: the box LCP of box_problem.rs (w = M z + q, bounds,
// friction coupling), or a plain LCP (z >= 0, w >= 0, z'w = 0).
//
// Policy (Preda & Florian 2005, sec. 4: an exact pivoting method where it
// works, an iterative one that always returns something): for a box LCP,
// two pivoting methods, then the fail-safe. Dantzig / Baraff principal
// pivoting (symmetric M) and Lemke's method on the box problem's standard
// form (pyramid_lift.rs; known to finish on contact problems, M = J W J'
// with a feasible q, Stewart & Trinkle 1996, and matching enumeration on
// random P-matrix box problems in tests/lemke_box.rs) are tried
// in turn; if both fail (pivot limit, no solution along the path, coupling
// passes not settling, ray) or their answers do not certify to `tolerance`
// (`VerifyReport::is_solution`), projected Gauss-Seidel runs, warm-started
// from the best pivoting iterate. When Dantzig goes first it has a budget
// of about n pivots per pass (`dantzig_first_pivots`); if that runs out,
// Lemke is tried, and Dantzig again with its own budget only if Lemke fails
// too. Dantzig goes first on every symmetric problem by default, with or
// without friction coupling; `lemke_coupled_from` can send coupled problems
// from a given size to Lemke first. Dantzig goes first because it
// certifies and stops at its first coupling pass where that is the answer
// (straight towers need no friction) and its block guess handles redundant
// contacts: on box towers it was several times faster than Lemke first
// (docs/benchmarks.md). A plain LCP with a non-symmetric M goes to
// Lemke first, then to the same resorts and fail-safe.
//
// Resorts, so that a problem that has a solution is solved (tried when
// the pivoting methods failed, before the fail-safe): a bimatrix-game
// LCP (M = [[0, A], [B', 0]], A, B > 0, q < 0: always solvable, but
// copositive without being copositive-plus, so Lemke's covering vector
// can end on a ray) goes to Lemke-Howson's method (lemke_howson.rs); a
// problem of at most `EXHAUSTIVE_MAX_BASES` complementary bases (a plain
// LCP of 12 rows) to the exhaustive search over them (exhaustive.rs),
// which either finds a certified solution, or proves there is none
// (every basis nonsingular: `LcpError::NoSolution`, returned at once),
// or, having met a singular basis, proves nothing and hands over to the
// fail-safe. The returned solution's `method` says which solver produced
// it.

use crate::box_problem::BoxLcp;
use crate::dantzig::{Dantzig, DantzigParams};
use crate::error::LcpError;
use crate::exhaustive::{ExhaustiveSearch, Outcome};
use crate::lemke::{Lemke, LemkeParams};
use crate::lemke_howson::{LemkeHowson, bimatrix_split};
use crate::pgs::{PgsParams, ProjectedGaussSeidel};
use crate::problem::Lcp;
use crate::solution::{LcpSolution, Method};

/// The policy's attempts, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attempt {
    /// Dantzig with the budget of `SolverParams::dantzig_first_pivots`.
    DantzigCapped,
    /// Lemke on the (lifted) box problem.
    Lemke,
    /// Dantzig with its own budget (after a capped attempt only if that
    /// one ran out of pivots).
    Dantzig,
}

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
    /// Lemke's method (on the standard form, [`Lemke::solve_box_into`])
    /// before Dantzig's; smaller ones try Dantzig first. Default
    /// `usize::MAX`: Dantzig first always (faster on box towers, see the
    /// module source); `0` puts Lemke first.
    pub lemke_coupled_from: usize,
    /// Pivots Dantzig may take in all (over its coupling passes), when it
    /// goes first, before Lemke is tried
    /// ([`DantzigParams::max_total_pivots`]); Dantzig runs again with its
    /// own budget only if Lemke fails too. `0` (the default) means `n + 20`
    /// without friction coupling: a contact problem Dantzig solves well
    /// needs about `n` pivots or, after its block guess, none, and a long
    /// path is better left to Lemke. With coupling it means `10 n` over
    /// all passes: each pass after the first moves the sliding contacts
    /// again, and a Lemke pivot on the standard form costs several Dantzig
    /// pivots.
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
/// complementary bases, the exhaustive search over them (which also
/// proves that a problem has no solution); projected Gauss-Seidel as the
/// fail-safe. Owns the workspaces of all of them.
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
            lemke_howson: LemkeHowson::default(),
            exhaustive: ExhaustiveSearch::default(),
            first: None,
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

    /// Solves a box LCP into `out`: Dantzig and Lemke in the order of the
    /// module source, then the resorts (Lemke-Howson on a bimatrix game,
    /// the exhaustive search on a small problem), then projected
    /// Gauss-Seidel if needed. `out.method` says which answered. When the
    /// first solver answers, a repeated solve of the same shape allocates
    /// nothing; the fallback copies the warm start (one vector).
    ///
    /// # Errors
    ///
    /// - [`LcpError::NoSolution`] when the exhaustive search proved that
    ///   the problem has no solution;
    /// - otherwise the fail-safe's errors (those of
    ///   [`ProjectedGaussSeidel::solve_into`], e.g.
    ///   [`LcpError::IterationLimit`] with its best iterate, or
    ///   [`LcpError::NonPositiveDiagonal`]); the first pivoting solver's
    ///   error is kept in [`Solver::first_failure`].
    pub fn solve_into(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Result<(), LcpError> {
        self.first = None;
        let lemke_first =
            !problem.couplings().is_empty() && problem.dim() >= self.params.lemke_coupled_from;
        // The warm start: the pivoting answer or iterate with the smaller
        // scaled error, and that error.
        let mut best: Option<(f64, Vec<f64>)> = None;
        let order: &[Attempt] = if lemke_first {
            &[Attempt::Lemke, Attempt::Dantzig]
        } else {
            &[Attempt::DantzigCapped, Attempt::Lemke, Attempt::Dantzig]
        };
        let mut capped_out = false;
        for (k, &attempt) in order.iter().enumerate() {
            let result = match attempt {
                Attempt::Lemke => self.lemke.solve_box_into(problem, out),
                Attempt::Dantzig if k == 2 && !capped_out => continue,
                Attempt::Dantzig => self.dantzig.solve_into(problem, out),
                Attempt::DantzigCapped => {
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
                    let r = self.dantzig.solve_into(problem, out);
                    self.dantzig.set_params(full);
                    capped_out = matches!(r, Err(LcpError::PivotLimit { .. }))
                        && full.max_total_pivots > cap;
                    r
                }
            };
            match result {
                Ok(()) if out.report.is_solution(self.params.tolerance) => return Ok(()),
                Ok(()) => keep_better(&mut best, out),
                Err(e) => {
                    if let Some(b) = e.best() {
                        keep_better(&mut best, b);
                    }
                    if self.first.is_none() && k == 0 {
                        self.first = Some(e);
                    }
                }
            }
        }
        if let Some(result) = self.resorts(problem, out) {
            return result;
        }
        self.fallback(problem, best.map(|(_, z)| z), out)
    }

    /// Lemke-Howson's method on a bimatrix-game LCP, then the exhaustive
    /// search on a small problem (module source): `Some` with the answer,
    /// or with the proof that there is none; `None` to go on to the
    /// fail-safe.
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

    /// Solves a plain LCP: Dantzig on its box form when `M` is symmetric,
    /// Lemke otherwise, then the resorts and projected Gauss-Seidel if
    /// needed ([`Solver::solve_into`]). The box form copies `M` once per
    /// call.
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
        let best = match self.lemke.solve_into(lcp, &mut out) {
            Ok(()) if out.report.is_solution(self.params.tolerance) => return Ok(out),
            Ok(()) => Some(out.z.clone()),
            Err(e) => {
                let best = e.best().map(|b| b.z.clone());
                self.first = Some(e);
                best
            }
        };
        if let Some(result) = self.resorts(&problem, &mut out) {
            return result.map(|()| out);
        }
        self.fallback(&problem, best, &mut out)?;
        Ok(out)
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
        self.pgs.solve_into(problem, warm.as_deref(), out)?;
        debug_assert_eq!(out.method, Method::ProjectedGaussSeidel);
        Ok(())
    }
}

/// Keeps `candidate`'s `z` as the warm start if there is none yet or its
/// scaled error is smaller (reusing the vector: one allocation per solve).
fn keep_better(best: &mut Option<(f64, Vec<f64>)>, candidate: &LcpSolution) {
    let error = candidate.report.scaled_max();
    match best {
        None => *best = Some((error, candidate.z.clone())),
        Some((e, z)) if error < *e => {
            *e = error;
            z.clone_from(&candidate.z);
        }
        Some(_) => {}
    }
}
