// The solver policy: pivoting first, projected Gauss-Seidel as the fail-safe.
//
// Problem and signs: the box LCP of box_problem.rs (w = M z + q, bounds,
// friction coupling), or a plain LCP (z >= 0, w >= 0, z'w = 0).
//
// Policy (Preda & Florian 2005, sec. 4: an exact pivoting method where it
// works, an iterative one that always returns something): for a box LCP,
// Dantzig / Baraff principal pivoting (symmetric M); if it fails (pivot
// limit, no solution along its path, coupling passes not settling,
// non-symmetric M) or its answer does not certify to `tolerance`
// (`VerifyReport::is_solution`), projected Gauss-Seidel, warm-started from
// the pivoting's best iterate when there is one. A plain LCP with a
// non-symmetric M goes to Lemke first (complementary pivoting covers the
// copositive-plus and P-matrix classes Dantzig does not), then to the same
// fail-safe. The returned solution's `method` says which solver produced it.

use crate::box_problem::BoxLcp;
use crate::dantzig::{Dantzig, DantzigParams, check_symmetric};
use crate::error::LcpError;
use crate::lemke::{Lemke, LemkeParams};
use crate::pgs::{PgsParams, ProjectedGaussSeidel};
use crate::problem::Lcp;
use crate::solution::{LcpSolution, Method};

/// Settings of [`Solver`]: those of each solver, and the certification
/// tolerance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverParams {
    /// Settings of the pivoting solver tried first on symmetric problems.
    pub dantzig: DantzigParams,
    /// Settings of Lemke's method, tried first on non-symmetric plain LCPs.
    pub lemke: LemkeParams,
    /// Settings of the fail-safe.
    pub pgs: PgsParams,
    /// A pivoting answer is accepted when its
    /// [`VerifyReport::scaled_max`](crate::VerifyReport::scaled_max) is at
    /// most this (dimensionless). Default `1e-9`; sensible range
    /// `1e-12..=1e-6`. The fail-safe's own stopping test is
    /// [`PgsParams::tolerance`].
    pub tolerance: f64,
}

impl Default for SolverParams {
    fn default() -> Self {
        Self {
            dantzig: DantzigParams::default(),
            lemke: LemkeParams::default(),
            pgs: PgsParams::default(),
            tolerance: 1e-9,
        }
    }
}

/// The solver policy: Dantzig (or Lemke for a non-symmetric plain LCP)
/// first, projected Gauss-Seidel when that fails or does not certify; owns
/// the workspaces of all three.
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
            first: None,
        }
    }

    /// The settings.
    #[must_use]
    pub fn params(&self) -> &SolverParams {
        &self.params
    }

    /// Why the first solver of the last solve was not used, if the answer
    /// came from the fail-safe: its error, or `None` when it returned an
    /// answer that did not certify (or when no fallback happened).
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

    /// Solves a box LCP into `out`: Dantzig, then projected Gauss-Seidel if
    /// needed (see the module source). `out.method` says which answered.
    /// When Dantzig answers, a repeated solve of the same size allocates
    /// nothing; the fallback copies the warm start (one vector).
    ///
    /// # Errors
    ///
    /// Only the fail-safe's errors are returned (those of
    /// [`ProjectedGaussSeidel::solve_into`], e.g.
    /// [`LcpError::IterationLimit`] with its best iterate, or
    /// [`LcpError::NonPositiveDiagonal`]); the pivoting solver's error is
    /// kept in [`Solver::first_failure`].
    pub fn solve_into(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Result<(), LcpError> {
        self.first = None;
        match self.dantzig.solve_into(problem, out) {
            Ok(()) if out.report.is_solution(self.params.tolerance) => return Ok(()),
            Ok(()) => {}
            Err(e) => self.first = Some(e),
        }
        self.fallback(problem, out)
    }

    /// Solves a plain LCP: Dantzig on its box form when `M` is symmetric,
    /// Lemke otherwise, then projected Gauss-Seidel if needed. The box form
    /// copies `M` once per call.
    ///
    /// # Errors
    ///
    /// As [`Solver::solve_into`].
    pub fn solve_lcp(&mut self, lcp: &Lcp) -> Result<LcpSolution, LcpError> {
        let mut out = LcpSolution::default();
        let problem = BoxLcp::from_lcp(lcp);
        if check_symmetric(lcp, lcp.m_max_abs()).is_ok() {
            self.solve_into(&problem, &mut out)?;
            return Ok(out);
        }
        self.first = None;
        match self.lemke.solve_into(lcp, &mut out) {
            Ok(()) if out.report.is_solution(self.params.tolerance) => return Ok(out),
            Ok(()) => {}
            Err(e) => self.first = Some(e),
        }
        self.fallback(&problem, &mut out)?;
        Ok(out)
    }

    /// Projected Gauss-Seidel, warm-started from the first solver's best
    /// iterate (or its uncertified answer, in `out`).
    fn fallback(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Result<(), LcpError> {
        let warm = match &self.first {
            Some(e) => e.best().map(|b| b.z.clone()),
            None => Some(out.z.clone()),
        };
        let warm = warm.filter(|z| z.len() == problem.dim() && z.iter().all(|x| x.is_finite()));
        self.pgs.solve_into(problem, warm.as_deref(), out)?;
        debug_assert_eq!(out.method, Method::ProjectedGaussSeidel);
        Ok(())
    }
}
