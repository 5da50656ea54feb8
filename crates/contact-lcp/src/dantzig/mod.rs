// Dantzig / Baraff principal pivoting for the box LCP with friction coupling.
//
// Problem and signs: find z with w = M z + q, lo_i <= z_i <= hi_i,
// z_i = lo_i => w_i >= 0, z_i = hi_i => w_i <= 0, strictly between =>
// w_i = 0 (a plain LCP is lo = 0, hi = +inf; see box_problem.rs).
//
// Method: Baraff 1994 sec. 4 (drive-to-zero one index at a time,
// fdirection, maxstep), generalised to bounds as in the Dantzig solvers of
// ODE and Bullet, written afresh: the pivoting of one fixed-bound problem
// (pivot.rs) on an updatable Cholesky factor of the clamped block
// (linalg/cholesky.rs), and coupling passes for friction
// (coupling_passes.rs). For a symmetric M (assumed PSD; singular M is
// handled) Baraff's termination argument holds, and each pass first tries a
// block principal pivoting guess of the whole clamped set (block_guess.rs,
// Judice & Pires 1994); where it cannot finish, the pivoting finishes from
// its last guess, so the answer is the same method's either way.
//
// Non-symmetric M (dynamic friction, Baraff 1994 sec. 5-6) is pivoted the
// same way on an explicit inverse of the clamped block (linalg/inverse.rs),
// without the block guess or the termination argument: a driven row may
// find no event bounding its step (LcpError::NoSolutionOnPath), and the
// pivot limit stops cycling.

mod active_block;
mod block_guess;
mod coupled_guess;
mod coupling_passes;
mod pivot;

use crate::block_pivoting::RowState;
use crate::box_problem::BoxLcp;
use crate::error::LcpError;
use crate::problem::check_len;
use crate::solution::{LcpSolution, Method};
use crate::tuning::{DANTZIG_PIVOTS_BASE, DANTZIG_PIVOTS_PER_ROW};
use crate::verify::certified;
use block_guess::BlockGuess;
use coupled_guess::CoupledGuess;
use pivot::{Core, State};

/// Settings of [`Dantzig`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DantzigParams {
    /// Largest number of pivots per pivoting pass before
    /// [`LcpError::PivotLimit`]; `usize::MAX` (the default) means `10 n + 100`
    /// (see [`DantzigParams::pivot_limit`]).
    pub max_pivots: usize,
    /// Largest number of pivots over all the coupling passes of one solve
    /// before [`LcpError::PivotLimit`]. Default `usize::MAX`: no limit of its
    /// own (the policy, [`Solver`](crate::Solver), bounds its first Dantzig
    /// attempt with it).
    pub max_total_pivots: usize,
    /// A row joins the clamped set only if its Schur complement
    /// `M_ii - M_iC M_CC^-1 M_Ci` exceeds `pivot_tolerance * ||M||_max`
    /// (otherwise it is redundant, or would move against its own `w`).
    /// Dimensionless; default `1e-10`, sensible range `1e-13..=1e-7`.
    pub pivot_tolerance: f64,
    /// `|w_i| <= zero_tolerance * max(||q||_inf, tiny)` counts as `w_i = 0`.
    /// Dimensionless; default `1e-13`.
    pub zero_tolerance: f64,
    /// Most pivoting passes for friction coupling: the first solves the
    /// normal rows, each further one re-solves with the friction bounds of the
    /// last normals. Default `50`; at least 2 with couplings.
    pub max_coupling_rounds: usize,
    /// The coupling passes stop when no friction radius `mu z_j` changed by
    /// more than this times `||z||_inf`, or after the first pass if its answer
    /// certifies. Dimensionless; default `1e-12`.
    pub coupling_tolerance: f64,
    /// Start each coupling pass after the first from the final state of the
    /// one before instead of from `z = 0` (default `true`; `false` is the
    /// plain ODE-like restart, several times slower on stacks).
    pub warm_start_rounds: bool,
    /// Record every step, readable with [`Dantzig::last_trace`]: each pivot,
    /// and each run of block guesses as a [`DantzigEvent::BlockGuess`].
    /// Default `false`; the trace may allocate and changes nothing else.
    pub record_trace: bool,
    /// Problems of at least this dimension with a symmetric `M` first try a
    /// block principal pivoting guess of the clamped set (Judice & Pires
    /// 1994), one dense Cholesky factorisation per guess, the pivoting
    /// finishing from the last guess when they do not settle; friction-coupled
    /// problems also get a guess of the whole coupled problem. Default `1`
    /// (every problem); `usize::MAX` turns all the guesses off.
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
            n.saturating_mul(DANTZIG_PIVOTS_PER_ROW)
                .saturating_add(DANTZIG_PIVOTS_BASE)
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
    /// A run of block principal pivoting guesses (of a pass, or of the whole
    /// coupled problem when `coupled`), each exchanging every violated row
    /// at once; its [`DantzigStep::driven`] is `usize::MAX` and its step 0.
    BlockGuess {
        /// Guesses in the run.
        guesses: usize,
        /// Whether they solved the pass's problem (the whole problem when
        /// `coupled`); if not, the pivoting goes on.
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
    /// Rows deleted from it.
    pub removals: usize,
    /// Rows refused because they would make the clamped block singular.
    pub rejections: usize,
    /// Block guesses: those of every pass's block guess, plus those of a
    /// coupled guess that solved the problem (one that handed over is not
    /// counted).
    pub block_guesses: usize,
}

/// Dantzig / Baraff principal pivoting solver for [`BoxLcp`] (and so for a
/// plain [`Lcp`](crate::Lcp) through [`BoxLcp::from_lcp`]) with a reusable
/// workspace: a second solve of the same size allocates nothing (unless a
/// trace is recorded or an error carries a best iterate).
///
/// Meant for a symmetric positive semidefinite `M` (Baraff 1994 sec. 4);
/// handles redundant (singular) rows and friction coupling. A non-symmetric
/// `M` (dynamic friction) is pivoted with an updated inverse and its answer
/// certified or reported as an error. The returned [`LcpSolution`] has
/// `method = Dantzig`, the pivots of all passes, and the passes in
/// `iterations`.
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
    /// `params.first_invalid()`, found when the settings are set.
    invalid_param: Option<(&'static str, f64)>,
    core: Core,
    guess: BlockGuess,
    coupled_guess: CoupledGuess,
    lo: Vec<f64>,
    hi: Vec<f64>,
    order: Vec<usize>,
    radius: Vec<f64>,
    best_z: Vec<f64>,
    /// The pass states (`n` each) from which the coupled guess failed in
    /// this solve: not tried again.
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
    /// exactly, and the [`VerifyReport`](crate::VerifyReport). On an error
    /// that has a best iterate, `out` holds it too.
    ///
    /// # Errors
    ///
    /// - [`LcpError::InvalidParameter`] for a negative, NaN or infinite
    ///   tolerance;
    /// - [`LcpError::PivotLimit`] after [`DantzigParams::pivot_limit`]
    ///   pivots in one pass;
    /// - [`LcpError::NoSolutionOnPath`] when a driven row can move without
    ///   bound (for a PSD `M`: the problem is infeasible); for a
    ///   non-symmetric `M` also when a row must leave a clamped block that
    ///   would then be singular, or when the path ends on an answer that
    ///   does not certify (scaled error above 1e-9; `row` is the worst row);
    /// - [`LcpError::CouplingLimit`] when the coupling passes did not settle
    ///   within [`DantzigParams::max_coupling_rounds`];
    /// - [`LcpError::NotCertified`] when the answer's scaled error
    ///   ([`VerifyReport::scaled_max`](crate::VerifyReport::scaled_max)) is
    ///   above `1e-9`: an answer is returned only when it certifies.
    pub fn solve_into(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Result<(), LcpError> {
        self.solve_guessed(problem, None, out)
    }

    /// As [`Dantzig::solve_into`], with the first block guess taken from
    /// `guess` (one state per row, e.g. the active set of the previous time
    /// step, [`active_set_of`](crate::active_set_of)): a row guessed at a
    /// finite bound starts there, every other row clamped. A right guess
    /// answers with one factorisation; a wrong one only costs more guesses
    /// or pivots, and the answer is certified either way.
    ///
    /// # Errors
    ///
    /// [`LcpError::BadLength`] when `guess` does not have one entry per
    /// row; otherwise those of [`Dantzig::solve_into`].
    pub fn solve_from_into(
        &mut self,
        problem: &BoxLcp,
        guess: &[RowState],
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        check_len("guess", problem.dim(), guess.len())?;
        self.solve_guessed(problem, Some(guess), out)
    }

    /// `solve_into` (`guess` None) or `solve_from_into` (its length checked).
    pub(crate) fn solve_guessed(
        &mut self,
        problem: &BoxLcp,
        guess: Option<&[RowState]>,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
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
        self.solve_by_passes(problem, guess, out, w_tol)?;
        certified(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    fn one_row(m: f64, q: f64, lo: f64, hi: f64) -> BoxLcp {
        BoxLcp::new(
            Mat::from_fn(1, 1, |_, _| m),
            vec![q],
            vec![lo],
            vec![hi],
            vec![],
        )
        .unwrap()
    }

    #[test]
    fn one_row_closed_forms() {
        // w = 4 z - 2: unconstrained root 0.5.
        for (lo, hi, z) in [(0.0, 1.0, 0.5), (-1.0, 0.25, 0.25), (0.0, 0.0, 0.0)] {
            let sol = Dantzig::default()
                .solve(&one_row(4.0, -2.0, lo, hi))
                .unwrap();
            assert_eq!(sol.z[0], z);
            assert_eq!(sol.method, Method::Dantzig);
        }
    }

    #[test]
    fn non_symmetric_problems_solve_and_bad_settings_are_typed_errors() {
        // w = [1 0.5; 0 1] z - 1: both rows clamped, z = (0.5, 1).
        let inf = f64::INFINITY;
        let p = BoxLcp::new(
            faer::mat![[1.0, 0.5], [0.0, 1.0]],
            vec![-1.0; 2],
            vec![0.0; 2],
            vec![inf; 2],
            vec![],
        )
        .unwrap();
        let sol = Dantzig::default().solve(&p).unwrap();
        assert!((sol.z[0] - 0.5).abs() < 1e-15 && (sol.z[1] - 1.0).abs() < 1e-15);
        // Settings are checked when made and when changed; valid ones clear
        // the error.
        let bad = |what: &str, value: f64| {
            let mut params = DantzigParams::default();
            match what {
                "pivot_tolerance" => params.pivot_tolerance = value,
                "zero_tolerance" => params.zero_tolerance = value,
                _ => params.coupling_tolerance = value,
            }
            params
        };
        let mut d = Dantzig::new(bad("pivot_tolerance", f64::NAN));
        for (what, value) in [
            ("pivot_tolerance", f64::NAN),
            ("zero_tolerance", -1e-9),
            ("coupling_tolerance", f64::INFINITY),
        ] {
            d.set_params(bad(what, value));
            match d.solve(&p).unwrap_err() {
                LcpError::InvalidParameter { what: got, .. } => assert_eq!(got, what),
                e => panic!("{e:?}"),
            }
        }
        d.set_params(DantzigParams::default());
        assert!(d.solve(&p).is_ok());
        assert!(matches!(
            Dantzig::new(bad("pivot_tolerance", f64::NAN))
                .solve(&p)
                .unwrap_err(),
            LcpError::InvalidParameter {
                what: "pivot_tolerance",
                ..
            }
        ));
    }
}
