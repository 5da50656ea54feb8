// Dantzig / Baraff principal pivoting for the box LCP with friction coupling.
//
// Problem and signs: find z with w = M z + q, lo_i <= z_i <= hi_i,
// z_i = lo_i => w_i >= 0, z_i = hi_i => w_i <= 0, strictly between =>
// w_i = 0 (a plain LCP is lo = 0, hi = +inf; see box_problem.rs). For a
// symmetric M (checked, relative tolerance 1e-12 of ||M||_max), assumed
// positive semidefinite, the method is Baraff's with its termination
// argument; singular M (redundant contacts) is handled. A non-symmetric M
// (dynamic friction) is pivoted too, without that guarantee (see below).
//
// Method: Baraff 1994 sec. 4 (drive-to-zero one index at a time, fdirection,
// maxstep), generalised to bounds as in the Dantzig solvers of ODE and
// Bullet, written afresh; the pivoting of one fixed-bound problem is in
// pivot.rs, the updatable Cholesky factor of the clamped block in factor.rs,
// the packed block of the rows whose w the pivoting watches in
// active_block.rs. Problems of dimension >= `block_guess_from` first try a
// block principal pivoting guess of the whole clamped set (block_guess.rs,
// Judice & Pires 1994): on positive definite problems it usually settles in
// 2-5 dense factorisations and no pivot is needed; redundant contacts are
// left out of the guessed block as the pivoting leaves them out of C (a
// redundant contact whose w has the wrong sign trades places with a row of
// its group), and where the guess cannot finish (unsettled) the pivoting
// finishes from its last guess (`Core::rerun`).
// Measured on random SPD problems (n = 256 / 1024, same run, loaded 2-core
// machine): one-row pivoting alone 7.2x / 14.6x faer's Cholesky of the
// same M, with the guess 0.6x / 1.3x.
//
// Small problems (dimension <= `small_guess_up_to`, symmetric) go first
// to a block guess of their own with small dense kernels (small_guess.rs:
// no faer call, no per-pivot bookkeeping); with friction coupling, the
// problem of the first coupling pass (friction rows held at 0), accepted
// only if it certifies against the coupled problem, as contacts at rest
// do (measured: the peers' single box with friction, n = 12, 1.45 ->
// 0.77 us; the 5-box stack, n = 60, 11.4 -> 5.5 us; where friction is
// needed the guess is wasted: +0.8 us on a sliding single box, within
// noise on a sliding 5-box stack). When it does not settle or certify,
// the problem is solved from the start as without it (block guess from
// `block_guess_from` rows, else pivoting).
// Measured (release, random SPD): n = 16 3.2 -> 1.9 us, n = 32 11.0 ->
// 4.6 us against the pivoting alone; from 48 to 128 rows it also beat the
// faer-based block guess 1.2-1.7x (see `small_guess_up_to`). Up to
// `TINY_MAX` (8) rows the same method runs in arrays of fixed size
// (tiny_guess.rs), without the small kernels' fixed costs.
//
// Friction coupling: the passes of fixed-bound problems and their fixed
// point, with the coupled guess between them, are in coupling_passes.rs.
// A problem of at most `TINY_COUPLED_MAX` (16) rows whose first coupling
// pass settles but does not certify (a box that slides) is first guessed
// whole, friction rows at a bound folded into their normals, in arrays of
// fixed size (tiny_coupled.rs), from that pass's answer; the passes run
// only when that guess hands over or does not certify. Measured on 64
// cubes sliding and spinning on the ground (n = 12): 4.2 -> 0.97 us a
// problem, every one settled by the whole guess in 1-18 guesses.
//
// Non-symmetric M (dynamic friction: a sliding contact's friction force
// -mu f_n along its sliding direction substituted into the normal column,
// Baraff 1994 sec. 5-6) is pivoted the same way, with the clamped block
// kept as an explicit inverse updated by bordering (inverse.rs) instead of
// a Cholesky factor, and without the block guess. Baraff's termination
// argument needs symmetry: on a non-symmetric M the driven row may find no
// event that bounds its step (Painleve's configurations, which have no
// solution), reported as `LcpError::NoSolutionOnPath`; cycling is stopped
// by the pivot limit. The policy still sends plain non-symmetric LCPs to
// Lemke, which is complete for them.

mod active_block;
mod block_guess;
mod coupled_guess;
mod coupling_passes;
mod factor;
mod inverse;
mod pivot;
mod small_guess;
#[cfg(test)]
pub(crate) use small_guess::next_uniform;
mod tiny_coupled;
mod tiny_guess;
mod upper_factor;

use crate::box_problem::BoxLcp;
use crate::box_verify::{finish_box_answer, finish_box_answer_with_w, finish_projected_answer};
use crate::error::LcpError;
use crate::solution::{LcpSolution, Method};
use crate::verify::certified;
use block_guess::BlockGuess;
use coupled_guess::CoupledGuess;
use pivot::{Core, State};
use small_guess::{SmallGuess, SmallSettings};
use tiny_coupled::{TINY_COUPLED_MAX, TinyCoupled};
use tiny_guess::{TINY_MAX, TinyGuess};

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
    /// stacks (measured: 60-264 rows).
    pub warm_start_rounds: bool,
    /// Record every pivot, readable with [`Dantzig::last_trace`]. Default
    /// `false`; the trace may allocate. Recording a trace turns the block
    /// guess off, so the trace shows every exchange.
    pub record_trace: bool,
    /// Problems of at least this dimension first try a block principal
    /// pivoting guess of the clamped set (Judice & Pires 1994; see
    /// block_guess.rs): each guess is one dense Cholesky factorisation of
    /// the guessed block, and when the guesses settle no pivoting is needed.
    /// Redundant (dependent) rows are left out of the guessed block; where
    /// the guesses do not settle, the pivoting finishes from the last one.
    /// On friction-coupled problems the guess solves the first coupling
    /// pass (friction rows held at 0); they also have their own guess of
    /// the coupled problem (symmetric `M`; see the module source), tried
    /// when the first pass does not certify, handing over to the further
    /// passes.
    /// Default `48` (below it one-row pivoting is as fast); `usize::MAX`
    /// turns both guesses off, and with them the coupled guess restarted
    /// from a coupling pass (which otherwise runs at every size).
    pub block_guess_from: usize,
    /// Problems of at most this dimension with a symmetric `M` are first
    /// solved by block principal pivoting (with friction coupling: the
    /// first coupling pass, friction rows held at 0, accepted only if it
    /// certifies) with small dense kernels of their own (see
    /// small_guess.rs): one
    /// U'DU (LDL') factor per guess, its leading rows kept from the guess
    /// before, no call into faer. When the guesses do not settle the problem is solved from the
    /// start as without them (the faer-based block guess from
    /// `block_guess_from` rows on, else the one-row pivoting). Default
    /// `128`: from 48 to 128 rows it beat the
    /// faer-based block guess (`block_guess_from`) by 1.2-1.7x (measured:
    /// random SPD n = 48, 64, 96, 128 and the peers' spd_64 and 20-box
    /// stack, n = 80); on the 50-box stack (n = 200) it was 5 % slower.
    /// Problems of at most 8 rows run the same method in arrays of fixed
    /// size (tiny_guess.rs; 0.7x the time of the small kernels on a box
    /// resting on the ground, n = 4). A coupled problem of at most 16 rows
    /// whose first pass does not certify (it needs friction) is then
    /// guessed whole (tiny_coupled.rs; a sliding box, n = 12: 0.23x the
    /// time of the coupling passes).
    /// `0` turns all three off (as does recording a trace).
    pub small_guess_up_to: usize,
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
            block_guess_from: 48,
            small_guess_up_to: 128,
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
}

/// One pivot of [`Dantzig`]: the row being driven, what ended the step, and
/// the step length (the change of the driven `z`, in the problem's units).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DantzigStep {
    /// The row being driven to complementarity.
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
    /// Factorisations of a clamped block from scratch by the pivoting:
    /// always 0 (the factor is only ever updated); kept so tests can guard
    /// it. The block guess is counted apart, in `block_guesses`.
    pub refactorizations: usize,
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
    /// every solve (the check of three numbers took 60 instructions, 8 %
    /// of a one-row solve: LLVM compiles `x >= 0 && x.is_finite()` to
    /// integer tests of the bits). `None` for the default settings.
    invalid_param: Option<(&'static str, f64)>,
    core: Core,
    guess: BlockGuess,
    coupled_guess: CoupledGuess,
    small_guess: SmallGuess,
    tiny_guess: TinyGuess,
    tiny_coupled: TinyCoupled,
    /// The rows a problem's bounds do not fix, when at most `TINY_MAX`.
    free_rows: Vec<usize>,
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
        let n = problem.dim();
        let lcp = problem.lcp();
        let m_norm = lcp.m_max_abs();
        let symmetric = lcp.is_symmetric();
        self.trace.clear();
        self.stats = DantzigStats::default();
        out.method = Method::Dantzig;
        out.pivots = 0;
        out.iterations = 0;

        let bounds = problem.bounds();
        let coupled = !bounds.couplings().is_empty();
        let q_max = lcp.q_max_abs();
        let w_tol = params.zero_tolerance * q_max.max(f64::MIN_POSITIVE);
        if symmetric && n <= params.small_guess_up_to && !params.record_trace {
            // With friction coupling, the first coupling pass: the coupled
            // rows held at 0 (coupling_passes.rs), accepted only if that
            // certifies against the coupled problem (no friction needed,
            // as for contacts at rest); else the passes solve it.
            let (lo, hi) = if coupled {
                self.hold_coupled_rows_at_zero(bounds);
                (&self.lo[..], &self.hi[..])
            } else {
                (bounds.lo(), bounds.hi())
            };
            let set = SmallSettings {
                lo,
                hi,
                pivot_tol: params.pivot_tolerance * m_norm,
                w_tol,
                q_max,
            };
            // Tiny problems in arrays of fixed size (tiny_guess.rs), the
            // others with the small guess's kernels: the same method.
            // Each branch is true when its guesses settled, with the
            // answer finished (projected, certified) in `out`.
            let (settled, guesses) = if n <= TINY_MAX {
                let tiny = &mut self.tiny_guess;
                (
                    tiny.run_and_finish(
                        problem,
                        &set,
                        !coupled && bounds.is_plain(),
                        SMALL_GUESS_LIMIT,
                        out,
                    ),
                    tiny.guesses,
                )
            } else if free_rows_fit(lo, hi, &mut self.free_rows) {
                // At most TINY_MAX rows not fixed (a box's four normals
                // with its friction rows held at 0): the tiny path on
                // those, the others at 0. Measured: see `free_rows_fit`.
                let tiny = &mut self.tiny_guess;
                let settled = tiny.run_rows(lcp, &set, &self.free_rows, SMALL_GUESS_LIMIT) && {
                    out.z.clear();
                    out.z.extend(
                        lo.iter()
                            .zip(hi)
                            .map(|(&l, &h)| if l >= h { l } else { 0.0 }),
                    );
                    // Projected as the certificate projects these rows
                    // (uncoupled: their own bounds; the others stay at 0,
                    // inside any friction bounds), so z is already on the
                    // problem's bounds and the certificate need not
                    // project it again. z is 0 off the free rows, so
                    // their columns give w (the bits of `Lcp::affine`).
                    // Measured, with the report's inlined bounds: the
                    // peers' friction_stack_1 3.70k -> 3.10k instructions a
                    // solve.
                    for (&i, &zi) in self.free_rows.iter().zip(&tiny.z) {
                        out.z[i] = zi.max(lo[i]).min(hi[i]);
                    }
                    out.w.clear();
                    out.w.resize(n, 0.0);
                    lcp.affine_on_columns(&self.free_rows, &out.z, &mut out.w);
                    finish_projected_answer(problem, out);
                    true
                };
                (settled, tiny.guesses)
            } else {
                let small = &mut self.small_guess;
                (
                    small.run(lcp, &set, SMALL_GUESS_LIMIT)
                        && finish_guess(problem, &small.z, small.w_of_z(), out),
                    small.guesses,
                )
            };
            if settled && accepted(out, SMALL_GUESS_ACCEPT) {
                self.stats.block_guesses = guesses;
                self.stats.rounds = 1;
                return Ok(());
            }
            // A small coupled problem whose first pass settled but needs
            // friction (it slides): guessed whole, from that pass's answer
            // (tiny_coupled.rs); else the coupling passes solve it.
            if settled && coupled && n <= TINY_COUPLED_MAX {
                let whole = &mut self.tiny_coupled;
                if whole.run(lcp, bounds, &out.z, &out.w, w_tol) {
                    out.z.clear();
                    out.z.extend_from_slice(&whole.z[..n]);
                    finish_box_answer(problem, out);
                    if accepted(out, SMALL_GUESS_ACCEPT) {
                        self.stats.block_guesses = guesses + whole.guesses;
                        self.stats.rounds = 1;
                        return Ok(());
                    }
                }
            }
        }
        // The guesses above return only certified answers; the passes'
        // answers are certified here.
        self.solve_by_passes(problem, out, w_tol)?;
        certified(out)
    }
}

/// Lists in `free` the rows that `lo`, `hi` do not fix (`lo < hi`) and
/// tells whether they are at most `TINY_MAX`, so that the tiny path can
/// solve the problem on them (the fixed rows are at 0, see
/// `TinyGuess::run_rows`). Measured on the peers' friction_stack_1 (n =
/// 12, its 8 friction rows held at 0 in the first coupling pass), against
/// the small guess on all 12 rows: 5406 -> 4385 instructions a whole
/// solve (callgrind), 0.82x the time (12 ABBA pairs).
fn free_rows_fit(lo: &[f64], hi: &[f64], free: &mut Vec<usize>) -> bool {
    free.clear();
    for (i, (&l, &h)) in lo.iter().zip(hi).enumerate() {
        if l < h {
            if free.len() == TINY_MAX {
                return false;
            }
            free.push(i);
        }
    }
    true
}

/// Puts a settled guess `z` in `out` with its certificate
/// (`finish_box_answer`); always true, so that it chains after the guess.
/// `w_of_z`, if given, is `M z + q` with the bits of `Lcp::affine` (the
/// small guess has it), used unless projecting `z` moves it.
fn finish_guess(
    problem: &BoxLcp,
    z: &[f64],
    w_of_z: Option<&[f64]>,
    out: &mut LcpSolution,
) -> bool {
    out.z.clear();
    out.z.extend_from_slice(z);
    match w_of_z {
        Some(w) => finish_box_answer_with_w(problem, out, w),
        None => finish_box_answer(problem, out),
    }
    true
}

/// [`finish_guess`], then whether `out` is a solution to the scaled error
/// `accept`.
fn accept_guess(
    problem: &BoxLcp,
    z: &[f64],
    w_of_z: Option<&[f64]>,
    accept: f64,
    out: &mut LcpSolution,
) -> bool {
    finish_guess(problem, z, w_of_z, out) && accepted(out, accept)
}

/// Whether the finished guess in `out` is a solution to the scaled error
/// `accept`; marks `out` as Dantzig's, in one iteration if so.
fn accepted(out: &mut LcpSolution, accept: f64) -> bool {
    out.method = Method::Dantzig;
    let solved = out.report.within(accept);
    if solved {
        out.iterations = 1;
    }
    solved
}

/// Most guesses of the small-problem block pivoting (small_guess.rs) before
/// the one-row pivoting takes over.
const SMALL_GUESS_LIMIT: usize = 16;

/// Scaled error up to which a settled small-problem guess is accepted;
/// above it the one-row pivoting solves the problem again. The pivoting's
/// own bar (`COUPLING_PASS_ACCEPT`), so a shortcut is never looser than
/// the path it skips: every guess the tests accept certifies at
/// 2e-16..5e-16.
const SMALL_GUESS_ACCEPT: f64 = coupling_passes::COUPLING_PASS_ACCEPT;

/// Test support of the module's factor kernels: an `n x n` (n <= 6) SPD
/// matrix `A A' + I` from the leading rows of one fixed `6 x 3` A, q = 0.
#[cfg(test)]
fn spd_fixture(n: usize) -> crate::problem::Lcp {
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

    /// Problems of more than `TINY_MAX` rows of which at most `TINY_MAX`
    /// are not fixed go to the tiny path on those rows: each settles in
    /// one round without a pivot, certifies, keeps the fixed rows at 0,
    /// and gives the answer of the small guess on all rows (M positive
    /// definite: the answer is unique).
    #[test]
    fn few_free_rows_are_solved_on_their_own() {
        use crate::box_problem::{BoxBounds, Coupling};
        use crate::problem::Lcp;
        use small_guess::{next_uniform, random_sym};
        let mut seed = 0xF4EE;
        for case in 0..120 {
            let n = 9 + case % 8;
            let mut m = random_sym(&mut seed, n, n, 0.1);
            // Some q exactly +0 or -0.
            let mut q: Vec<f64> = (0..n)
                .map(|i| match (case + i) % 11 {
                    0 => 0.0,
                    1 => -0.0,
                    _ => next_uniform(&mut seed),
                })
                .collect();
            // In every third case the last row is fixed and touches no
            // other (w = q = -0.0 there, whatever z is: a sum that adds
            // a zero product would turn it to +0).
            let lonely = case % 3 == 0;
            if lonely {
                for j in 0..n - 1 {
                    m[(n - 1) * n + j] = 0.0;
                    m[j * n + n - 1] = 0.0;
                }
                q[n - 1] = -0.0;
            }
            let lcp = Lcp::from_row_major(n, &m, &q).unwrap();
            // Every other row fixed (at +0 or -0), then the free ones
            // trimmed to 8; free rows plain, bilateral or a box around 0.
            let zeros = [(0.0, 0.0), (-0.0, -0.0), (0.0, -0.0), (-0.0, 0.0)];
            let (mut lo, mut hi): (Vec<f64>, Vec<f64>) =
                (0..n).map(|i| zeros[(case + i) % 4]).unzip();
            let mut free = 0;
            for i in (case % 2..n).step_by(2) {
                if free < TINY_MAX {
                    (lo[i], hi[i]) = [
                        (0.0, f64::INFINITY),
                        (-f64::INFINITY, f64::INFINITY),
                        (-0.5, 0.75),
                    ][i % 3];
                    free += 1;
                }
            }
            if lonely {
                (lo[n - 1], hi[n - 1]) = (-0.0, -0.0);
            }
            // In every fourth case, fixed rows coupled as friction to the
            // plain free rows (held at 0 in the first pass, so still not
            // free).
            let mut couplings = vec![];
            if case % 4 == 3 {
                let normals: Vec<usize> = (0..n)
                    .filter(|&i| (lo[i], hi[i]) == (0.0, f64::INFINITY))
                    .collect();
                let fixed = (0..n).filter(|&i| lo[i] >= hi[i]);
                for (row, &normal_row) in fixed.zip(normals.iter().cycle()) {
                    couplings.push(Coupling {
                        row,
                        normal_row,
                        mu: 0.4,
                    });
                }
            }
            let coupled = !couplings.is_empty();
            let problem = BoxLcp::with_bounds(
                lcp.clone(),
                BoxBounds::new(lo.clone(), hi.clone(), couplings).unwrap(),
            )
            .unwrap();
            let mut d = Dantzig::default();
            let out = d.solve(&problem).unwrap();
            // Whatever path gave it, the answer is finished as
            // `finish_box_answer` finishes its z: the same z, w and
            // report, to the bit (the free rows' shortcut skips the
            // projection and sums w over their columns alone).
            let mut again = out.clone();
            finish_box_answer(&problem, &mut again);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&again.z), bits(&out.z), "case {case}");
            assert_eq!(bits(&again.w), bits(&out.w), "case {case}");
            assert_eq!(format!("{:?}", again.report), format!("{:?}", out.report));
            if coupled {
                assert!(
                    out.report.is_solution(1e-9),
                    "case {case}: {:?}",
                    out.report
                );
                continue;
            }
            assert_eq!(
                (d.last_stats().rounds, d.last_stats().pivots),
                (1, 0),
                "case {case}"
            );
            assert!(
                out.report.is_solution(1e-12),
                "case {case}: {:?}",
                out.report
            );
            for i in 0..n {
                if lo[i] >= hi[i] {
                    assert_eq!(out.z[i], 0.0, "case {case}, row {i}");
                }
            }
            let set = SmallSettings {
                lo: &lo,
                hi: &hi,
                pivot_tol: DantzigParams::default().pivot_tolerance * lcp.m_max_abs(),
                w_tol: DantzigParams::default().zero_tolerance * lcp.q_max_abs(),
                q_max: lcp.q_max_abs(),
            };
            let mut small = SmallGuess::default();
            assert!(small.run(&lcp, &set, SMALL_GUESS_LIMIT), "case {case}");
            let scale = out.z.iter().fold(1.0_f64, |a, z| a.max(z.abs()));
            for (a, b) in out.z.iter().zip(&small.z) {
                assert!(
                    (a - b).abs() <= 1e-9 * scale,
                    "case {case}: {:?} {:?}",
                    out.z,
                    small.z
                );
            }
        }
    }

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
