// Dantzig / Baraff principal pivoting for the box LCP with friction coupling.
//
// Problem and signs: find z with w = M z + q, lo_i <= z_i <= hi_i,
// z_i = lo_i => w_i >= 0, z_i = hi_i => w_i <= 0, strictly between =>
// w_i = 0 (a plain LCP is lo = 0, hi = +inf; see box_problem.rs). For a
// symmetric M, assumed positive semidefinite, the method is Baraff's with
// its termination argument; singular M (redundant contacts) is handled. A
// non-symmetric M (dynamic friction) is pivoted too, without that
// guarantee (see below).
//
// Method: Baraff 1994 sec. 4 (drive-to-zero one index at a time,
// fdirection, maxstep), generalised to bounds as in the Dantzig solvers of
// ODE and Bullet, written afresh. One route: the pivoting of one
// fixed-bound problem (pivot.rs) on an updatable Cholesky factor of the
// clamped block (linalg/cholesky.rs), the packed block of the rows whose w the
// pivoting watches (active_block.rs), and the coupling passes for friction
// (coupling_passes.rs). Symmetric problems (by default all; from
// `block_guess_from` rows) first try a block principal pivoting guess of
// the whole clamped set (block_guess.rs, Judice & Pires 1994), which on
// positive definite problems settles in a few dense factorisations where
// the one-row pivoting needs O(n) pivots; where the guess cannot finish
// the pivoting finishes from its last guess (`Core::rerun`), so the answer
// is the same method's either way.
//
// Non-symmetric M (dynamic friction, Baraff 1994 sec. 5-6) is pivoted the
// same way with the clamped block kept as an explicit inverse updated by
// bordering (linalg/inverse.rs) instead of a Cholesky factor, and without the
// block guess. Baraff's termination argument needs symmetry: on a
// non-symmetric M the driven row may find no event that bounds its step
// (Painleve's configurations), reported as `LcpError::NoSolutionOnPath`;
// cycling is stopped by the pivot limit. The policy sends plain
// non-symmetric LCPs to Lemke, which is complete for them.

mod active_block;
mod block_guess;
mod coupled_guess;
mod coupling_passes;
mod pivot;

use crate::box_problem::BoxLcp;
use crate::box_verify::finish_box_answer;
use crate::error::LcpError;
use crate::solution::{LcpSolution, Method};
use crate::verify::certified;
use block_guess::BlockGuess;
use coupled_guess::CoupledGuess;
use pivot::{Core, State};

/// Settings of [`Dantzig`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DantzigParams {
    /// Largest number of pivots (basis exchanges) per pivoting pass before
    /// giving up with [`LcpError::PivotLimit`]. `usize::MAX` (the default)
    /// means automatic: `10 n + 100` (see [`DantzigParams::pivot_limit`]).
    /// A first pass on a contact problem needs about `0.5 n` to `n` pivots,
    /// a warm-started coupling pass a handful.
    pub max_pivots: usize,
    /// Largest number of pivots over all the coupling passes of one solve
    /// before giving up with [`LcpError::PivotLimit`] (each pass also keeps
    /// its own limit, `max_pivots`). Default `usize::MAX`: no limit of its
    /// own. The policy ([`Solver`](crate::Solver)) uses it to bound its
    /// first Dantzig attempt before Lemke's method.
    pub max_total_pivots: usize,
    /// A row joins the clamped set only if its Schur complement
    /// `M_ii - M_iC M_CC^-1 M_Ci` exceeds `pivot_tolerance * ||M||_max`;
    /// smaller (or, for a non-symmetric `M`, negative) means the row is
    /// (numerically) redundant or would move against its own `w`. Dimensionless;
    /// default `1e-10`, sensible range `1e-13..=1e-7`.
    pub pivot_tolerance: f64,
    /// `|w_i| <= zero_tolerance * max(||q||_inf, tiny)` counts as `w_i = 0`
    /// when deciding whether a row is already complementary. Dimensionless;
    /// default `1e-13`.
    pub zero_tolerance: f64,
    /// Most pivoting passes for friction coupling (see the module source):
    /// the first pass solves the normal rows, each further pass re-solves with
    /// the friction bounds of the last normals. Default `50`; at least 2 is
    /// needed for a problem with couplings.
    pub max_coupling_rounds: usize,
    /// The coupling passes stop when no friction radius `mu z_j` changed by
    /// more than this times `||z||_inf` (dimensionless), or after the first
    /// pass if its answer certifies (scaled error at most 1e-10, see the
    /// module source). Default `1e-12`.
    pub coupling_tolerance: f64,
    /// Start each coupling pass after the first from the final state of the
    /// previous one (rows at a bound follow their new bounds, only rows made
    /// infeasible are driven again) instead of from `z = 0`. Default `true`;
    /// `false` gives the plain ODE-like restart, several times slower on
    /// stacks.
    pub warm_start_rounds: bool,
    /// Record every step, readable with [`Dantzig::last_trace`]: each
    /// pivot, and each guess of the block guess as a
    /// [`DantzigEvent::BlockGuess`] step. Default `false`; the trace may
    /// allocate. Recording changes nothing else: the trace is of the
    /// algorithm that runs.
    pub record_trace: bool,
    /// Problems of at least this dimension with a symmetric `M` first try a
    /// block principal pivoting guess of the clamped set (Judice & Pires
    /// 1994; see block_guess.rs): each guess is one dense Cholesky
    /// factorisation of the guessed block, and when the guesses settle no
    /// pivoting is needed. Redundant (dependent) rows are left out of the
    /// guessed block; where the guesses do not settle, the pivoting
    /// finishes from the last one. On friction-coupled problems the guess
    /// solves each coupling pass, and the coupled problem has a guess of
    /// its own (see the module source). Default `1`: every problem (faster
    /// than the one-row pivoting alone at every size measured, 12 to 128
    /// rows and up); `usize::MAX` turns the guesses off, and with them the
    /// coupled guess restarted from a coupling pass.
    pub block_guess_from: usize,
}

impl Default for DantzigParams {
    fn default() -> Self {
        Self {
            max_pivots: usize::MAX,
            max_total_pivots: usize::MAX,
            pivot_tolerance: 1e-10,
            zero_tolerance: 1e-13,
            max_coupling_rounds: 50,
            coupling_tolerance: 1e-12,
            warm_start_rounds: true,
            record_trace: false,
            block_guess_from: 1,
        }
    }
}

impl DantzigParams {
    /// The pivot limit per pass for a problem of dimension `n`:
    /// `max_pivots`, or `10 n + 100` when it is `usize::MAX`.
    #[must_use]
    pub fn pivot_limit(&self, n: usize) -> usize {
        if self.max_pivots == usize::MAX {
            n.saturating_mul(10).saturating_add(100)
        } else {
            self.max_pivots
        }
    }

    /// The first tolerance that is negative or not finite, with its name.
    fn first_invalid(&self) -> Option<(&'static str, f64)> {
        [
            ("pivot_tolerance", self.pivot_tolerance),
            ("zero_tolerance", self.zero_tolerance),
            ("coupling_tolerance", self.coupling_tolerance),
        ]
        .into_iter()
        .find(|&(_, value)| !(value >= 0.0 && value.is_finite()))
    }
}

/// What happened at one pivot of [`Dantzig`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum DantzigEvent {
    /// The driven row's `w` reached 0: it joined the clamped set.
    Solved,
    /// The driven row's `z` reached the bound it moved towards.
    AtBound,
    /// A clamped row's `z` reached a bound (upper if `upper`) and left the
    /// clamped set.
    Leaves {
        /// The row.
        row: usize,
        /// Whether it stopped at its upper bound.
        upper: bool,
    },
    /// A row at a bound had `w` reach 0 and joined the clamped set.
    Enters {
        /// The row.
        row: usize,
    },
    /// As `Enters`, but the row was refused: it would have made the clamped
    /// block singular (a redundant row), so it stays at its bound.
    Refused {
        /// The row.
        row: usize,
    },
    /// A run of block principal pivoting guesses (block_guess.rs, or the
    /// guess of the whole coupled problem when `coupled`), each exchanging
    /// every violated row at once. Such a step drives no single row: its
    /// [`DantzigStep::driven`] is `usize::MAX` and its step 0.
    BlockGuess {
        /// Guesses in the run.
        guesses: usize,
        /// Whether they solved the problem of the pass (or, when
        /// `coupled`, the whole problem). If not, the pivoting goes on
        /// from the last guess (or, after a coupled guess, from the pass
        /// before it).
        solved: bool,
        /// Whether it was the guess of the coupled problem.
        coupled: bool,
    },
}

/// One pivot of [`Dantzig`]: the row being driven, what ended the step, and
/// the step length (the change of the driven `z`, in the problem's units).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DantzigStep {
    /// The row being driven to complementarity (`usize::MAX` for a
    /// [`DantzigEvent::BlockGuess`] step).
    pub driven: usize,
    /// The event that ended the step.
    pub event: DantzigEvent,
    /// The step length `|delta z_driven|` (problem units, `>= 0`).
    pub step: f64,
}

/// Counters of the last [`Dantzig`] solve (all passes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DantzigStats {
    /// Pivots (steps), as in [`LcpSolution::pivots`].
    pub pivots: usize,
    /// Pivoting passes (1 without coupling).
    pub rounds: usize,
    /// Rows appended to the Cholesky factor of the clamped block.
    pub appends: usize,
    /// Rows deleted from it (by a rank-one update, see the module source).
    pub removals: usize,
    /// Rows refused because they would make the clamped block singular.
    pub rejections: usize,
    /// Guesses of the block principal pivoting shortcuts (each one dense
    /// factorisation of a guessed block, or an update of the last one):
    /// those of the block guess on every coupling pass, whether they solved
    /// it alone or the pivoting finished from the last one, plus those of
    /// the coupled guess that solved the whole coupled problem, if one did
    /// (a coupled guess that handed over is not counted); 0 when no guess
    /// was tried.
    pub block_guesses: usize,
}

/// Dantzig / Baraff principal pivoting solver for [`BoxLcp`] (and so for a
/// plain [`Lcp`](crate::Lcp) through [`BoxLcp::from_lcp`]) with a reusable
/// workspace: a second solve of the same size allocates nothing (unless a
/// trace is recorded or an error carries a best iterate).
///
/// Meant for a symmetric positive semidefinite `M` (Baraff's termination
/// argument); handles redundant (singular) rows and friction coupling. A
/// non-symmetric `M` (dynamic friction) is pivoted with an updated inverse
/// and its answer is certified or reported as an error. See the module source for the
/// method (Baraff 1994 sec. 4) and the coupling passes. The returned
/// [`LcpSolution`] has `method = Dantzig`, the pivots of all passes, and the
/// passes in `iterations`.
///
/// ```
/// use contact_lcp::{BoxLcp, Dantzig, faer::mat};
///
/// // z_0 free in [-1, 1], z_1 >= 0.
/// let m = mat![[2.0, 1.0], [1.0, 2.0]];
/// let inf = f64::INFINITY;
/// let p = BoxLcp::new(m, vec![-4.0, 1.0], vec![-1.0, 0.0], vec![1.0, inf], vec![])?;
/// let sol = Dantzig::default().solve(&p)?;
/// // z_0 = 2 would solve row 0; it stops at its bound 1 with w_0 = -2 <= 0.
/// assert_eq!(sol.z, vec![1.0, 0.0]);
/// assert_eq!(sol.w, vec![-2.0, 2.0]);
/// assert!(sol.report.is_solution(1e-14));
/// # Ok::<(), contact_lcp::LcpError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Dantzig {
    params: DantzigParams,
    /// `params.first_invalid()`, found when the settings are set, not on
    /// every solve. `None` for valid settings.
    invalid_param: Option<(&'static str, f64)>,
    core: Core,
    guess: BlockGuess,
    coupled_guess: CoupledGuess,
    lo: Vec<f64>,
    hi: Vec<f64>,
    order: Vec<usize>,
    radius: Vec<f64>,
    best_z: Vec<f64>,
    /// The pass states from which the coupled guess failed in this solve,
    /// one set of `n` after another. The guess from given states is
    /// deterministic, so a restart from any of them is not run again.
    failed_restarts: Vec<State>,
    /// The last pass's radius step `mu z_j - r` per coupling (relaxation).
    last_step: Vec<f64>,
    trace: Vec<DantzigStep>,
    stats: DantzigStats,
}

impl Dantzig {
    /// A solver with the given settings (allocates on the first solve).
    #[must_use]
    pub fn new(params: DantzigParams) -> Self {
        Self {
            params,
            invalid_param: params.first_invalid(),
            ..Self::default()
        }
    }

    /// The settings.
    #[must_use]
    pub fn params(&self) -> &DantzigParams {
        &self.params
    }

    /// Changes the settings (the workspace is kept).
    pub fn set_params(&mut self, params: DantzigParams) {
        self.params = params;
        self.invalid_param = params.first_invalid();
    }

    /// The pivots of the last solve (all passes), if
    /// [`DantzigParams::record_trace`] was set (empty otherwise).
    #[must_use]
    pub fn last_trace(&self) -> &[DantzigStep] {
        &self.trace
    }

    /// The counters of the last solve.
    #[must_use]
    pub fn last_stats(&self) -> &DantzigStats {
        &self.stats
    }

    /// Solves `problem`, returning a new solution.
    ///
    /// # Errors
    ///
    /// See [`Dantzig::solve_into`].
    pub fn solve(&mut self, problem: &BoxLcp) -> Result<LcpSolution, LcpError> {
        let mut out = LcpSolution::default();
        self.solve_into(problem, &mut out)?;
        Ok(out)
    }

    /// Solves `problem` into `out`, reusing its vectors.
    ///
    /// On success `out` holds `z` (within its bounds, coupled rows within the
    /// bounds of the returned normal forces), `w = M z + q` recomputed
    /// exactly, and the [`VerifyReport`](crate::VerifyReport); a singular `M`
    /// whose problem has a solution is solved exactly (no regularisation).
    /// On an error that has a best iterate, `out` holds it too.
    ///
    /// # Errors
    ///
    /// - [`LcpError::InvalidParameter`] for a negative, NaN or infinite
    ///   tolerance;
    /// - [`LcpError::PivotLimit`] after [`DantzigParams::pivot_limit`]
    ///   pivots in one pass;
    /// - [`LcpError::NoSolutionOnPath`] when a driven row can move without
    ///   bound (no solution along this pivoting path: for a PSD `M`, the
    ///   problem is infeasible, e.g. inconsistent bilateral rows); for a
    ///   non-symmetric `M` also when a row must leave a clamped block that
    ///   would then be singular, or when the path ends on an answer that
    ///   does not certify (scaled error above 1e-9; `row` is the worst row);
    /// - [`LcpError::CouplingLimit`] when the coupling passes did not settle
    ///   within [`DantzigParams::max_coupling_rounds`];
    /// - [`LcpError::NotCertified`] when the answer's scaled error
    ///   ([`VerifyReport::scaled_max`](crate::VerifyReport::scaled_max)) is
    ///   above `1e-9`: an answer is returned only when it certifies.
    pub fn solve_into(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Result<(), LcpError> {
        if let Some((what, value)) = self.invalid_param {
            return Err(LcpError::InvalidParameter { what, value });
        }
        let params = self.params;
        let lcp = problem.lcp();
        self.trace.clear();
        self.stats = DantzigStats::default();
        out.method = Method::Dantzig;
        out.pivots = 0;
        out.iterations = 0;

        let w_tol = params.zero_tolerance * lcp.q_max_abs().max(f64::MIN_POSITIVE);
        self.solve_by_passes(problem, out, w_tol)?;
        certified(out)
    }
}

/// Puts a settled guess `z` in `out` with its certificate; true when its
/// scaled error is at most `accept` (then marked as one iteration of
/// Dantzig's).
fn accept_guess(problem: &BoxLcp, z: &[f64], accept: f64, out: &mut LcpSolution) -> bool {
    out.z.clear();
    out.z.extend_from_slice(z);
    finish_box_answer(problem, out);
    out.method = Method::Dantzig;
    let solved = out.report.is_solution(accept);
    if solved {
        out.iterations = 1;
    }
    solved
}

/// Test support of the module's factor kernels: an `n x n` (n <= 6) SPD
/// matrix `A A' + I` from the leading rows of one fixed `6 x 3` A, q = 0.
#[cfg(test)]
pub(crate) fn spd_fixture(n: usize) -> crate::problem::Lcp {
    let a = [
        [1.0, 2.0, 0.5],
        [-1.0, 0.3, 2.0],
        [0.7, -0.2, 1.1],
        [2.0, 1.0, -1.0],
        [0.1, 0.4, 0.9],
        [-0.6, 1.5, 0.2],
    ];
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let d: f64 = (0..3).map(|t| a[i][t] * a[j][t]).sum();
            m[i * n + j] = d + if i == j { 1.0 } else { 0.0 };
        }
    }
    crate::problem::Lcp::from_row_major(n, &m, &vec![0.0; n]).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    #[test]
    fn one_row_closed_forms() {
        // w = 4 z - 2: unconstrained root 0.5.
        for (lo, hi, z) in [(0.0, 1.0, 0.5), (-1.0, 0.25, 0.25), (0.0, 0.0, 0.0)] {
            let p = BoxLcp::new(
                Mat::from_fn(1, 1, |_, _| 4.0),
                vec![-2.0],
                vec![lo],
                vec![hi],
                vec![],
            )
            .unwrap();
            let sol = Dantzig::default().solve(&p).unwrap();
            assert_eq!(sol.z[0], z);
            assert_eq!(sol.method, Method::Dantzig);
        }
    }

    #[test]
    fn non_symmetric_problems_solve_and_bad_settings_are_typed_errors() {
        // w = [1 0.5; 0 1] z - 1: both rows clamped, z = (0.5, 1).
        let p = BoxLcp::new(
            faer::mat![[1.0, 0.5], [0.0, 1.0]],
            vec![-1.0; 2],
            vec![0.0; 2],
            vec![f64::INFINITY; 2],
            vec![],
        )
        .unwrap();
        let sol = Dantzig::default().solve(&p).unwrap();
        assert!((sol.z[0] - 0.5).abs() < 1e-15 && (sol.z[1] - 1.0).abs() < 1e-15);
        // w = -z - 1 < 0 for every z >= 0: no solution, and no loop.
        let none = BoxLcp::new(
            faer::mat![[-1.0]],
            vec![-1.0],
            vec![0.0],
            vec![f64::INFINITY],
            vec![],
        )
        .unwrap();
        assert!(matches!(
            Dantzig::default().solve(&none).unwrap_err(),
            LcpError::NoSolutionOnPath { row: 0, .. }
        ));
        let mut d = Dantzig::new(DantzigParams {
            pivot_tolerance: f64::NAN,
            ..DantzigParams::default()
        });
        assert!(matches!(
            d.solve(&p).unwrap_err(),
            LcpError::InvalidParameter {
                what: "pivot_tolerance",
                ..
            }
        ));
        // Settings changed later are checked as well, and valid ones clear
        // the error.
        for (params, bad) in [
            (
                DantzigParams {
                    zero_tolerance: -1e-9,
                    ..DantzigParams::default()
                },
                "zero_tolerance",
            ),
            (
                DantzigParams {
                    coupling_tolerance: f64::INFINITY,
                    ..DantzigParams::default()
                },
                "coupling_tolerance",
            ),
        ] {
            d.set_params(params);
            match d.solve(&p).unwrap_err() {
                LcpError::InvalidParameter { what, .. } => assert_eq!(what, bad),
                e => panic!("{e:?}"),
            }
        }
        d.set_params(DantzigParams::default());
        assert!(d.solve(&p).is_ok());
    }
}
