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
// Small problems (dimension <= `small_guess_up_to`, symmetric, without
// friction coupling) go first to a block guess of their own with small
// dense kernels (small_guess.rs: no faer call, no per-pivot bookkeeping);
// when it does not settle, the problem is solved from the start as
// without it (block guess from `block_guess_from` rows, else pivoting).
// Measured (release, random SPD): n = 16 3.2 -> 1.9 us, n = 32 11.0 ->
// 4.6 us against the pivoting alone; from 48 to 128 rows it also beat the
// faer-based block guess 1.2-1.7x (see `small_guess_up_to`).
//
// Friction coupling (bounds -mu z_j <= z_i <= mu z_j with z_j a normal row):
// as ODE does, the normal rows (and every uncoupled row) are solved first
// with the coupled friction rows held at 0 (from `block_guess_from` rows
// by the block guess, as an uncoupled problem: with the friction rows
// fixed it is a frictionless stack). That first pass is certified
// against the coupled problem (see below): on straight towers, settled or
// just released, no friction is needed and it is the answer. Otherwise
// problems of dimension >= `block_guess_from` with a symmetric M try a
// block principal pivoting guess of the coupled problem itself
// (coupled_guess.rs: a friction row at a bound folded into its normal's
// column, one dense LU per guess; it works on its own copy, so the passes
// go on from the first one when it hands over). Measured on the benches'
// towers of 5 cubes (3 steps after release), when the first pass was
// still pivoted: the coupled guess took 5 / 3 / 7 guesses at n = 60 /
// 240 / 1020 (0.10 / 0.82 / 74 ms) where the first pass certified in 16
// / 68 / 282 pivots (0.01 / 0.17 / 10 ms); on the peers' settled 20-box
// stack (n = 240) it handed over after 18 guesses (16 ms) where the first
// pass took 0.15 ms; on random positive definite coupled problems it
// settles (tests/dantzig_block_guess.rs). When the guess hands
// over, the friction bounds are set
// from the solved normal forces and the whole problem is solved again with
// those bounds fixed. Unlike ODE (which stops there, so its friction boxes
// are "frozen early" and violated by the normals that change in the second
// pass), this repeats: bounds from the last normals, solve again, until the
// radii mu z_j change by at most `coupling_tolerance` (relative). At that
// fixed point the returned z satisfies the coupled problem (the friction
// rows are finally projected onto the bounds of the final normals and w is
// recomputed, so `verify_box` certifies it). The first pass's projected
// answer is certified (one O(n^2) product, next to a pass's O(n k^2)) and
// accepted when its scaled error is at most `COUPLING_PASS_ACCEPT`; later
// passes stop by the radius test only (accepting them at 1e-10 returned a
// sliding box's friction 1.3e-11 off its closed form, which the radius
// test keeps within 1e-12). On settled stacks the friction is (nearly) 0
// and the first pass already certifies, while the radii, each 1e-12 close
// to its limit, kept moving at round-off (measured on the peers' friction
// stacks: 20 boxes, n = 240, 32 passes and 25 328
// pivots down to 1 pass and 61 pivots; 50 boxes, n = 600, `CouplingLimit`
// after 50 passes with change 1.3e-12 down to 1 pass, 2734 pivots, 40 ms,
// scaled error 8e-12; with the block guess on that pass, 7 guesses, no
// pivot, 1.0 ms quiet). Limits: the fixed-point
// iteration is not guaranteed to converge (a normal force that depends
// strongly on friction, e.g. a box about to tip); it then stops after
// `max_coupling_rounds` with `LcpError::CouplingLimit` and the best round,
// and the policy (policy.rs) falls back to Lemke on the standard form,
// then to projected Gauss-Seidel. The iteration converges linearly:
// measured 3 passes for one box, 16-35 for stacks of 5-22 boxes (60-264
// rows). Each pass after the first is
// warm-started from the previous one (pivot.rs, `Core::rerun`): rows at a
// bound follow their new bound and only rows made infeasible are driven
// again, which cut the pivots 7-10x against restarting from z = 0. A pass
// that takes no pivot keeps the clamped set of the one before; from there
// on the passes only move the radii along one linear map, converging
// linearly (measured: ratio 0.78 a pass on a sliding 20-box stack), so the
// coupled guess is started from that clamped set (`run_from`, at most
// `MAX_COUPLED_RESTARTS` times a solve): its one folded solve is the map's
// fixed point. Measured on sliding 5-box stacks (n = 60): `CouplingLimit`
// after 50 passes -> certified after 4-7 passes; on 20 boxes the guesses
// from those sets do not settle (a normal row flips between free and at
// its bound) and the passes go on.
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
mod factor;
mod inverse;
mod pivot;
mod small_guess;
mod upper_factor;

use crate::box_problem::BoxLcp;
use crate::box_verify::finish_box_answer;
use crate::error::LcpError;
use crate::solution::{LcpSolution, Method};
use crate::verify::max_abs;
use block_guess::{BlockGuess, Outcome};
use coupled_guess::CoupledGuess;
use pivot::{Core, Settings, State, Stop};
use small_guess::{SmallGuess, SmallSettings};

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
    /// turns both guesses off.
    pub block_guess_from: usize,
    /// Problems of at most this dimension without friction coupling and
    /// with a symmetric `M` are first solved by block principal pivoting
    /// with small dense kernels of their own (see small_guess.rs): one
    /// Cholesky factor per guess, updated when rows join, no call into
    /// faer. When the guesses do not settle the problem is solved from the
    /// start as without them (the faer-based block guess from
    /// `block_guess_from` rows on, else the one-row pivoting). Default
    /// `128`: from 48 to 128 rows it beat the
    /// faer-based block guess (`block_guess_from`) by 1.2-1.7x (measured:
    /// random SPD n = 48, 64, 96, 128 and the peers' spd_64 and 20-box
    /// stack, n = 80); on the 50-box stack (n = 200) it was 5 % slower.
    /// `0` turns it off (as does recording a trace).
    pub small_guess_up_to: usize,
}

impl Default for DantzigParams {
    fn default() -> Self {
        Self {
            max_pivots: usize::MAX,
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

    fn check(&self) -> Result<(), LcpError> {
        for (what, value) in [
            ("pivot_tolerance", self.pivot_tolerance),
            ("zero_tolerance", self.zero_tolerance),
            ("coupling_tolerance", self.coupling_tolerance),
        ] {
            if !(value >= 0.0 && value.is_finite()) {
                return Err(LcpError::InvalidParameter { what, value });
            }
        }
        Ok(())
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
    /// factorisation of a guessed block): those of the block guess on the
    /// first pass, whether they solved it alone or the pivoting finished
    /// from the last one (then `pivots > 0`), plus those of the coupled
    /// guess that solved the whole coupled problem, if one did (a coupled
    /// guess that handed over is not counted); 0 when no guess was tried.
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
    core: Core,
    guess: BlockGuess,
    coupled_guess: CoupledGuess,
    small_guess: SmallGuess,
    lo: Vec<f64>,
    hi: Vec<f64>,
    order: Vec<usize>,
    radius: Vec<f64>,
    best_z: Vec<f64>,
    /// The pass states from which the coupled guess last failed in this
    /// solve (empty: none). The guess from given states is deterministic,
    /// so a restart from the same states again is counted, not run.
    failed_restart_from: Vec<State>,
    trace: Vec<DantzigStep>,
    stats: DantzigStats,
}

impl Dantzig {
    /// A solver with the given settings (allocates on the first solve).
    #[must_use]
    pub fn new(params: DantzigParams) -> Self {
        Self {
            params,
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
    ///   within [`DantzigParams::max_coupling_rounds`].
    pub fn solve_into(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Result<(), LcpError> {
        let params = self.params;
        params.check()?;
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
        let q_max = max_abs(problem.q());
        let w_tol = params.zero_tolerance * q_max.max(f64::MIN_POSITIVE);
        if !coupled && symmetric && n <= params.small_guess_up_to && !params.record_trace {
            let set = SmallSettings {
                lo: bounds.lo(),
                hi: bounds.hi(),
                pivot_tol: params.pivot_tolerance * m_norm,
                w_tol,
                q_max,
            };
            if self.small_guess.run(lcp, &set, SMALL_GUESS_LIMIT)
                && accept_guess(problem, &self.small_guess.z, SMALL_GUESS_ACCEPT, out)
            {
                self.stats.block_guesses = self.small_guess.guesses;
                self.stats.rounds = 1;
                return Ok(());
            }
        }
        // Uncoupled rows first (normals before friction), each in index order.
        self.order.clear();
        self.order
            .extend((0..n).filter(|&i| bounds.coupling_of(i).is_none()));
        self.order
            .extend((0..n).filter(|&i| bounds.coupling_of(i).is_some()));
        self.lo.clear();
        self.lo.extend_from_slice(bounds.lo());
        self.hi.clear();
        self.hi.extend_from_slice(bounds.hi());
        self.radius.clear();
        self.radius.resize(n, 0.0);
        for c in bounds.couplings() {
            self.lo[c.row] = 0.0;
            self.hi[c.row] = 0.0;
        }
        let limit = params.pivot_limit(n);
        let try_coupled_guess =
            coupled && symmetric && n >= params.block_guess_from && !params.record_trace;
        let max_rounds = if coupled {
            params.max_coupling_rounds.max(2)
        } else {
            1
        };
        let mut best_change = f64::INFINITY;
        let mut change = f64::INFINITY;
        let mut certified = false;
        let mut restarts = 0;
        self.failed_restart_from.clear();
        for round in 1..=max_rounds {
            let set = Settings {
                lo: &self.lo,
                hi: &self.hi,
                order: &self.order,
                pivot_tol: params.pivot_tolerance * m_norm,
                w_tol,
                max_pivots: limit,
                symmetric,
            };
            let trace = params.record_trace.then_some(&mut self.trace);
            // With couplings too: the first pass (friction rows held at 0)
            // is a frictionless stack, where the guess settles in a few
            // factorisations (peers' friction_stack_50: 2734 pivots, 40 ms
            // -> 7 guesses, 1.0 ms), and it is accepted when it certifies.
            // When it does not (friction needed), the passes go on from
            // the guess's state as from the pivoting's.
            let guess = if round == 1
                && symmetric
                && n >= params.block_guess_from
                && !params.record_trace
            {
                self.guess.run(&mut self.core, lcp, &set)
            } else {
                Outcome::Cold
            };
            let run = match guess {
                Outcome::Solved(guesses) => {
                    self.stats.block_guesses = guesses;
                    Ok(())
                }
                // The pivoting finishes from the last guess: only its rows
                // out of bounds or of the wrong sign are driven again.
                Outcome::Warm(guesses) => {
                    self.stats.block_guesses = guesses;
                    self.core.rerun(lcp, &set, trace)
                }
                Outcome::Cold if round == 1 || !params.warm_start_rounds => {
                    self.core.run(lcp, &set, trace)
                }
                Outcome::Cold => self.core.rerun(lcp, &set, trace),
            };
            self.stats.rounds = round;
            self.stats.pivots += self.core.pivots;
            self.stats.appends += self.core.appends;
            self.stats.removals += self.core.removals;
            self.stats.rejections += self.core.rejections;
            out.pivots = self.stats.pivots;
            out.iterations = round;
            if let Err(stop) = run {
                let z = &self.core.z;
                out.z.clone_from(z);
                finish_box_answer(problem, out);
                let best = Some(Box::new(out.clone()));
                return Err(match stop {
                    Stop::Limit => LcpError::PivotLimit {
                        pivots: out.pivots,
                        best,
                    },
                    Stop::Unbounded(row) => LcpError::NoSolutionOnPath {
                        row,
                        pivots: out.pivots,
                        best,
                    },
                });
            }
            if !coupled {
                break;
            }
            // New friction radii from the normals of this pass.
            let z = &self.core.z;
            let z_norm = max_abs(z).max(f64::MIN_POSITIVE);
            change = 0.0;
            for c in bounds.couplings() {
                let r = c.mu * z[c.normal_row].max(0.0);
                change = f64::max(change, (r - self.radius[c.row]).abs() / z_norm);
                self.radius[c.row] = r;
                self.lo[c.row] = -r;
                self.hi[c.row] = r;
            }
            if round > 1 && change < best_change {
                best_change = change;
                self.best_z.clone_from(&self.core.z);
            }
            if round > 1 && change <= params.coupling_tolerance {
                break;
            }
            // A pass without pivots, appends or removals kept the clamped
            // set of the one before: the coupled guess from that set jumps
            // to the fixed point of the remaining passes (coupled_guess.rs,
            // `run_from`).
            if round > 1
                && self.core.pivots == 0
                && self.core.appends == 0
                && self.core.removals == 0
                && try_coupled_guess
                && restarts < MAX_COUPLED_RESTARTS
            {
                restarts += 1;
                // A pass that took no pivot often keeps the states of the
                // one before, and the same guess would fail the same way
                // (measured on sliding stacks of 5-20 boxes: 7 of 16
                // failed restarts, 7 guesses each, repeated the failure
                // before).
                if self.failed_restart_from != self.core.state {
                    if self.solve_by_coupled_guess_from_pass(problem, w_tol, out) {
                        out.pivots = self.stats.pivots;
                        out.iterations = round;
                        return Ok(());
                    }
                    self.failed_restart_from.clone_from(&self.core.state);
                }
            }
            if round == 1 {
                // The first pass, projected on the bounds of its own
                // normals, is an exact pivoting answer when no friction is
                // needed: accept it if it certifies. (Later passes are
                // iterates of the fixed point, only as exact as the radii
                // have settled: they stop by the radius test.)
                out.z.clone_from(&self.core.z);
                finish_box_answer(problem, out);
                if out.report.is_solution(COUPLING_PASS_ACCEPT) {
                    certified = true;
                    break;
                }
                // Else try the coupled guess before more passes (it leaves
                // the pivoting's state as it is, so the passes go on from
                // this one if it hands over).
                if try_coupled_guess && self.solve_by_coupled_guess(problem, w_tol, out) {
                    out.pivots = self.stats.pivots;
                    return Ok(());
                }
            }
        }
        if certified {
            return Ok(());
        }
        if coupled && change > params.coupling_tolerance {
            out.z.clone_from(&self.best_z);
            finish_box_answer(problem, out);
            return Err(LcpError::CouplingLimit {
                rounds: out.iterations,
                change: best_change,
                best: Some(Box::new(out.clone())),
            });
        }
        out.z.clone_from(&self.core.z);
        finish_box_answer(problem, out);
        // Without symmetry nothing proves that a row refused into C (its
        // Schur complement not positive) keeps a complementary w: such a
        // path can end with a row at a bound whose w has the wrong sign.
        // That answer is an error, never an `Ok` (measured: 119 of 20 000
        // random low-rank non-symmetric LCPs before this check).
        if !symmetric && !out.report.is_solution(NON_SYMMETRIC_ACCEPT) {
            let row = wrong_sign_row(problem, &out.z, &out.w).unwrap_or(0);
            return Err(LcpError::NoSolutionOnPath {
                row,
                pivots: out.pivots,
                best: Some(Box::new(out.clone())),
            });
        }
        Ok(())
    }
}

impl Dantzig {
    /// Runs the coupled guess; true when it settled on an answer that
    /// certifies, then in `out` (its `pivots` left to the caller; `out` is
    /// overwritten either way).
    fn solve_by_coupled_guess(
        &mut self,
        problem: &BoxLcp,
        w_tol: f64,
        out: &mut LcpSolution,
    ) -> bool {
        let settled = self
            .coupled_guess
            .run(problem.lcp(), problem.bounds(), w_tol);
        if settled && accept_guess(problem, &self.coupled_guess.z, COUPLED_GUESS_ACCEPT, out) {
            // Added to the first pass's block guesses, if any.
            self.stats.block_guesses += self.coupled_guess.guesses;
            self.stats.rounds = 1;
            return true;
        }
        false
    }

    /// Runs the coupled guess from the clamped set of the last coupling
    /// pass; true when it settled on an answer that certifies, then in `out`
    /// (`out` is overwritten either way; the passes' state is kept).
    fn solve_by_coupled_guess_from_pass(
        &mut self,
        problem: &BoxLcp,
        w_tol: f64,
        out: &mut LcpSolution,
    ) -> bool {
        let settled =
            self.coupled_guess
                .run_from(problem.lcp(), problem.bounds(), w_tol, &self.core.state);
        if settled && accept_guess(problem, &self.coupled_guess.z, COUPLED_GUESS_ACCEPT, out) {
            self.stats.block_guesses += self.coupled_guess.guesses;
            return true;
        }
        false
    }
}

/// Puts a settled guess `z` in `out` with its certificate (`finish_box_answer`)
/// and tells whether it is a solution to the scaled error `accept`; `out`
/// is overwritten either way.
fn accept_guess(problem: &BoxLcp, z: &[f64], accept: f64, out: &mut LcpSolution) -> bool {
    out.method = Method::Dantzig;
    out.z.clear();
    out.z.extend_from_slice(z);
    finish_box_answer(problem, out);
    let solved = out.report.is_solution(accept);
    if solved {
        out.iterations = 1;
    }
    solved
}

/// Scaled error up to which a non-symmetric pivoting path's answer is
/// accepted (the pivoting's own answers certify at 1e-16..1e-13; a failed
/// path is off by 1e-3 and more).
const NON_SYMMETRIC_ACCEPT: f64 = 1e-9;

/// Most guesses of the small-problem block pivoting (small_guess.rs) before
/// the one-row pivoting takes over.
const SMALL_GUESS_LIMIT: usize = 16;

/// Scaled error up to which a settled small-problem guess is accepted;
/// above it the one-row pivoting solves the problem again. The pivoting's
/// own bar (`COUPLING_PASS_ACCEPT`), so a shortcut is never looser than
/// the path it skips: every guess the tests accept certifies at
/// 2e-16..5e-16.
const SMALL_GUESS_ACCEPT: f64 = COUPLING_PASS_ACCEPT;

/// Scaled error up to which a settled coupled guess is accepted; above it
/// the coupling passes run. As `SMALL_GUESS_ACCEPT`.
const COUPLED_GUESS_ACCEPT: f64 = COUPLING_PASS_ACCEPT;

/// Coupled guesses started from a pass's clamped set, at most, per solve:
/// each costs one dense LU, about a pass with few pivots.
const MAX_COUPLED_RESTARTS: usize = 3;

/// Scaled error up to which a coupling pass's answer is accepted before the
/// friction radii have settled (ten times stricter than the policy's
/// default tolerance, so a certified pass is never worse than what the
/// policy would accept; the pivoting's own answers measure 1e-16..1e-11).
const COUPLING_PASS_ACCEPT: f64 = 1e-10;

/// The row whose `w` has the wrong sign for where its `z` is (at the lower
/// bound `w < 0`, at the upper `w > 0`, strictly inside `w != 0`) by the
/// largest amount (the lowest index among equals); `None` if none.
fn wrong_sign_row(problem: &BoxLcp, z: &[f64], w: &[f64]) -> Option<usize> {
    let mut worst: Option<(usize, f64)> = None;
    for i in 0..problem.dim() {
        let (lo, hi) = problem.bounds().effective(i, z);
        let bad = if z[i] <= lo {
            (-w[i]).max(0.0)
        } else if z[i] >= hi {
            w[i].max(0.0)
        } else {
            w[i].abs()
        };
        if bad > 0.0 && worst.is_none_or(|(_, b)| bad > b) {
            worst = Some((i, bad));
        }
    }
    worst.map(|(i, _)| i)
}

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
    }
}
