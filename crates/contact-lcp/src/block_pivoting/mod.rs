// Block principal pivoting on proximal subproblems, in body space: the
// warm-startable solver of a simulator's step problems.
//
// Problem and signs: the box LCP of box_problem.rs with M = J W J' + C given
// by its factors (factored_problem.rs): w = M z + q, lo <= z <= hi, a
// friction row coupled to a normal row j bounded by -mu z_j <= z_i <= mu
// z_j. M is positive semidefinite and singular wherever contacts are
// redundant (the four corners of a box resting flat on another).
//
// Method. The proximal point algorithm (Rockafellar 1976, "Monotone
// operators and the proximal point algorithm"; for LCPs Bertsekas 1982,
// "Constrained optimization and Lagrange multiplier methods", sec. 5.2)
// solves a sequence of subproblems around a centre c,
//     w' = (M + P) z + q - P c,  P = diag(rho_i),  rho_i = eps M_ii
// (a hundred times that on friction rows, FRICTION_WEIGHT),
// whose matrix is positive definite, so each has one answer, and whose
// answers converge to an answer of the LCP; at a solution c of the LCP the
// subproblem's answer is c itself. Each subproblem is solved exactly by
// block principal pivoting (Judice & Pires 1994, "A block principal
// pivoting algorithm for large-scale strictly monotone linear
// complementarity problems", Comput. Oper. Res. 21(5)): guess for every
// row free (w'_i = 0) or at a bound, solve the one linear system the guess
// defines, exchange every row that violates its guess, while the number
// of violations falls. A friction row at a bound of a free normal is
// folded onto it (z_t = +-mu z_n, Baraff 1994 sec. 5), so the coupling is
// exact within the subproblem; that makes the guessed system
// non-symmetric and the subproblem no longer a P-matrix problem, and
// redundant contacts make it nearly degenerate, so the exchanges can
// cycle. When the count stops falling (BLOCK_TRIES exchanges), the rest
// of the subproblem holds the friction bounds at the centre's normals, the
// outer loop making the coupling exact: a strictly convex quadratic
// program with fixed bounds, solved by Newton's method on its dual with an
// exact line search (dual_newton.rs). Its dual's curvature jumps by
// 1 / rho_i where a row meets a bound, so with small weights each Newton
// step is short: a frozen subproblem that takes more than SLOW_SUBPROBLEM
// solves, or that ends a two-cycle of the outer loop (CYCLE_MATCH), raises
// eps tenfold for the subproblems after it, up to
// MAX_PROXIMAL_WEIGHT, and a subproblem whose guess held lowers it tenfold
// again, down to LOWEST_WEIGHT_SHARE of the setting (large weights make
// the outer loop's steps short; the first subproblem, the one a settled
// pile's warm start certifies, keeps the setting). On a monotone problem
// (no friction coupling) the proximal point method converges with
// weights that vary from one subproblem to the next while bounded
// (Rockafellar 1976, Theorem 1); the coupling can make it cycle, which the
// raised weight breaks. Judice & Pires's own fallback, Murty's one-row
// rule, is finite too but takes one factorisation per exchanged row:
// thousands on a landing pile's islands. Each linear system is solved in
// body space (body_system.rs): one sparse factor of size 6 x bodies
// (Cholesky, LU with folded rows), with the symbolic analysis kept while
// the contact graph stays.
//
// After each subproblem the answer is certified against the LCP itself,
// with the coupled bounds at its own normals; an answer is returned only if
// it passes, after at most FINISH_STEPS proximal steps on its guess (one
// solve each with the factor in hand) that shrink the proximal term's
// share of w. While a guess holds, the outer loop jumps ahead along the
// line of its answers (extrapolation.rs). Warm start: a guessed
// active set and centre (a simulator passes the last step's active set and
// normal impulses, its friction centred at 0); on a pile at rest that is
// one subproblem on one factor. Cold start: projected Gauss-Seidel sweeps
// guess the normals' active set.
//
// Why proximal subproblems: the redundant contacts make M singular, and
// block pivoting on M itself cycles between their equally valid load
// distributions (Judice & Pires's finiteness needs a P-matrix). The
// proximal term picks, among them, the one nearest the centre, which is
// what a warm start wants. Why body space: a contact problem has many more
// rows than body coordinates (a box resting on two others has 24 rows for
// 6 coordinates), and the rows' own system couples every pair of rows on a
// body.

mod body_system;
mod dual_newton;
mod extrapolation;
mod row_state;

pub use row_state::{RowState, active_set_of};

use crate::error::LcpError;
use crate::factored_problem::FactoredBoxLcp;
use crate::pgs::{PgsParams, ProjectedGaussSeidel};
use crate::problem::{check_len, check_vector};
use crate::solution::{LcpSolution, Method};
use crate::tuning::{
    BLOCK_TRIES, COLD_ACTIVE, COLD_SWEEPS, CYCLE_MATCH, FINISH_STEPS, FRICTION_WEIGHT,
    LOWEST_WEIGHT_SHARE, MAX_PROXIMAL_WEIGHT, PROXIMAL_GROWTH, REFINEMENTS, ROWS_SQUARED_PER_SOLVE,
    SLOW_SUBPROBLEM, SOLVES_AT_LEAST, VIOLATION_SHARE,
};
use crate::verify::VerifyReport;
use crate::verify::scales;
use body_system::{BodySystem, Role, Unfactored};
use extrapolation::Extrapolation;

/// Settings of [`BlockPivoting`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BlockPivotingParams {
    /// Most linear solves (each a factorisation and a solve) per call
    /// before giving up with [`LcpError::BlockPivotingFailed`]; `0` (the
    /// default) means `max(100, n^2 / 1500)` for `n` rows: a solve costs
    /// about linear time in the rows, the dense pivoting a caller falls
    /// back to cubic time, so the budget stays below that fallback's cost
    /// while a landing pile's large islands, which need hundreds to
    /// thousands of solves, get them.
    pub max_solves: usize,
    /// An answer is returned only when its
    /// [`VerifyReport::scaled_max`](crate::VerifyReport::scaled_max) is at
    /// most this. Default `1e-9`; sensible range `1e-13..=1e-6`.
    pub tolerance: f64,
    /// `eps`: the proximal weight of each row relative to its diagonal
    /// entry `M_ii` (a friction row's is a hundred times larger). Smaller
    /// converges in fewer subproblems when the answer is far from the
    /// centre; larger keeps the body-space system better conditioned (its
    /// condition number is about `1 / eps`) and, among the many answers of
    /// redundant contacts, holds the one nearest the last step's against
    /// the small changes of `q` a position projection's tolerance leaves
    /// from step to step (which otherwise move load between the corners of
    /// a resting box and cost exchanges every step). Default `3e-6`; range
    /// `1e-12..=1`.
    pub proximal_weight: f64,
}

impl Default for BlockPivotingParams {
    fn default() -> Self {
        Self {
            max_solves: 0,
            tolerance: 1e-9,
            proximal_weight: 3e-6,
        }
    }
}

impl BlockPivotingParams {
    /// The solves allowed on a problem of `n` rows (see `max_solves`).
    fn solve_budget(&self, n: usize) -> usize {
        match self.max_solves {
            0 => (n.saturating_mul(n) / ROWS_SQUARED_PER_SOLVE).max(SOLVES_AT_LEAST),
            given => given,
        }
    }

    fn check(&self) -> Result<(), LcpError> {
        let bad = |what, value| Err(LcpError::InvalidParameter { what, value });
        if !(self.tolerance > 0.0 && self.tolerance.is_finite()) {
            return bad("tolerance", self.tolerance);
        }
        if !(1e-12..=1.0).contains(&self.proximal_weight) {
            return bad("proximal_weight", self.proximal_weight);
        }
        Ok(())
    }
}

/// What the last solve of a [`BlockPivoting`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BlockPivotingStats {
    /// Linear solves (also [`LcpSolution::iterations`]).
    pub solves: usize,
    /// Factorisations (a solve whose free rows are those of the solve
    /// before reuses its factor).
    pub factorizations: usize,
    /// Proximal subproblems solved.
    pub subproblems: usize,
    /// Rows whose guess was exchanged (also [`LcpSolution::pivots`]).
    pub exchanges: usize,
    /// Symbolic factorisations (0 when the contact graph was that of the
    /// solve before).
    pub symbolic_factorizations: usize,
    /// Iterative refinement steps (a solve with the last factor).
    pub refinements: usize,
    /// Proximal steps on the certified answer's guess (a solve with the
    /// last factor each, not counted in `solves`).
    pub finishing_steps: usize,
    /// Jumps ahead along the answers of a guess that held (Aitken's
    /// extrapolation, or a drift up to its first bound), each taken because
    /// its certificate beat the last answer's.
    pub extrapolations: usize,
    /// Subproblems that held their friction bounds at the centre's normals
    /// once block exchanges stopped lowering the number of violated rows
    /// (each then solved by Newton's method on its dual).
    pub frozen_subproblems: usize,
}

/// Block principal pivoting on proximal subproblems, in body space, for box
/// LCPs with `M = J W J' + C` ([`FactoredBoxLcp`]), warm-started from the
/// last answer and its active set (Rockafellar 1976; Judice & Pires 1994;
/// see the module source).
///
/// Returns `Ok` only with an answer that certifies at
/// [`BlockPivotingParams::tolerance`]; otherwise
/// [`LcpError::BlockPivotingFailed`] with the best iterate. A second solve
/// of a problem with the same contact graph allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct BlockPivoting {
    params: BlockPivotingParams,
    stats: BlockPivotingStats,
    system: BodySystem,
    states: Vec<RowState>,
    centre: Vec<f64>,
    rho: Vec<f64>,
    d: Vec<f64>,
    roles: Vec<Role>,
    factored_roles: Vec<Role>,
    b: Vec<f64>,
    z: Vec<f64>,
    jv: Vec<f64>,
    w: Vec<f64>,
    v: Vec<[f64; 6]>,
    violated: Vec<(usize, RowState)>,
    correction: Vec<f64>,
    /// A frozen subproblem's Newton iterate `v`, `s = o + J v`, the step
    /// in both, and its bounds (dual_newton.rs).
    x: Vec<f64>,
    s: Vec<f64>,
    step: Vec<f64>,
    delta: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// The line search's kinks: where `t` is, and the curvature's change.
    kinks: Vec<(f64, f64)>,
    /// The last answers on the guess in hand (extrapolation.rs).
    extrapolation: Extrapolation,
    /// The sweeps of a cold start and their iterate.
    sweeps: ProjectedGaussSeidel,
    swept: LcpSolution,
    /// Whether the subproblem holds the friction bounds at the centre's
    /// normals (after block exchanges stalled).
    frozen: bool,
    /// The proximal weight `eps` of the current subproblem.
    weight: f64,
    best: LcpSolution,
}

impl BlockPivoting {
    /// A solver with the given settings.
    #[must_use]
    pub fn new(params: BlockPivotingParams) -> Self {
        Self {
            params,
            ..Self::default()
        }
    }

    /// Statistics of the last solve.
    #[must_use]
    pub fn last_stats(&self) -> &BlockPivotingStats {
        &self.stats
    }

    /// Solves `problem` from a warm start: `guess` the last answer's active
    /// set and `centre` the answer to stay nearest to, usually its `z`
    /// (each one entry per row). `None`: a cold start, the
    /// normals' active set guessed by projected Gauss-Seidel sweeps,
    /// friction rows free, centre 0.
    ///
    /// # Errors
    ///
    /// - [`LcpError::InvalidParameter`] for a setting out of range;
    /// - [`LcpError::BadLength`] (`what = "guess"` or `"centre"`) for a warm
    ///   start of another length; [`LcpError::NonFinite`] (`what =
    ///   "centre"`) for a non-finite centre;
    /// - [`LcpError::BlockPivotingFailed`] when no certified answer was
    ///   found within [`BlockPivotingParams::max_solves`] solves, or the
    ///   body-space system could not be factored; with the best iterate.
    pub fn solve_into(
        &mut self,
        problem: &FactoredBoxLcp,
        warm: Option<(&[RowState], &[f64])>,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        self.params.check()?;
        let n = problem.dim();
        if let Some((guess, centre)) = warm {
            check_len("guess", n, guess.len())?;
            check_vector("centre", centre, n)?;
        }
        self.stats = BlockPivotingStats::default();
        match self.system.prepare(problem) {
            Ok(symbolic) => self.stats.symbolic_factorizations = symbolic,
            Err(e) => {
                // No solve has started: the best iterate is the start, the
                // warm start's centre or 0 (projected by `failure`).
                self.z.clear();
                match warm {
                    Some((_, centre)) => self.z.extend_from_slice(centre),
                    None => self.z.resize(n, 0.0),
                }
                self.w.clear();
                self.w.resize(n, 0.0);
                return Err(self.failure(problem, e.reason(), false));
            }
        }
        self.start(problem, warm);
        let bounds = problem.bounds();
        // The best certified-against-the-LCP iterate so far, kept in the
        // solver's storage so that a successful solve allocates nothing.
        let mut have_best = false;
        self.extrapolation.reset();
        // The scaled errors of the last two subproblems' answers.
        let mut last_errors = [f64::NAN; 2];
        loop {
            let exchanges = self.stats.exchanges;
            let solves = self.stats.solves;
            if let Err(reason) = self.solve_subproblem(problem) {
                return Err(self.failure(problem, reason, have_best));
            }
            self.stats.subproblems += 1;
            let held = self.stats.exchanges == exchanges;
            // The subproblem's answer on the LCP's own (coupled) bounds.
            bounds.project(&mut self.z);
            problem.affine(&self.z, &mut self.v, &mut self.w);
            let mut report = problem.report(&self.z, &self.w, None);
            // While the guess holds, jump ahead along the iterates' line.
            if !held {
                self.extrapolation.restart(&self.z);
            } else if let Some(better) = self.extrapolation.advance(
                problem,
                &mut self.z,
                &mut self.w,
                &mut self.v,
                report.scaled_max(),
            ) {
                report = better;
                self.stats.extrapolations += 1;
            }
            let error = report.scaled_max();
            if !have_best || error < self.best.report.scaled_max() {
                have_best = true;
                self.best.z.clone_from(&self.z);
                self.best.w.clone_from(&self.w);
                self.best.report = report;
                self.best.method = Method::BlockPivoting;
                self.best.pivots = self.stats.exchanges;
                self.best.iterations = self.stats.solves;
            }
            if error <= self.params.tolerance {
                let report = self.finish(problem, report);
                out.z.clone_from(&self.z);
                out.w.clone_from(&self.w);
                out.report = report;
                out.method = Method::BlockPivoting;
                out.pivots = self.stats.exchanges;
                out.iterations = self.stats.solves;
                return Ok(());
            }
            if self.stats.solves >= self.params.solve_budget(problem.dim()) {
                return Err(self.failure(problem, "solve limit reached", have_best));
            }
            // A frozen subproblem is slow when it takes many solves, or when
            // the outer loop cycles: its answer as far from the solution as
            // the answer two subproblems ago, the guess not holding (the
            // friction coupling makes the proximal map other than
            // nonexpansive; a larger weight takes shorter steps).
            let cycling = !held && (error - last_errors[0]).abs() <= CYCLE_MATCH * error;
            last_errors = [last_errors[1], error];
            let slow = self.stats.solves - solves > SLOW_SUBPROBLEM || cycling;
            if self.frozen && slow && self.weight < MAX_PROXIMAL_WEIGHT {
                self.scale_weight(problem, PROXIMAL_GROWTH);
            } else if held && !self.frozen && self.weight > self.min_weight() {
                self.scale_weight(problem, 1.0 / PROXIMAL_GROWTH);
            }
            self.centre.clone_from(&self.z);
        }
    }

    /// The failure of a solve, with the best iterate: the best subproblem
    /// answer, or where no subproblem finished, the last guess's `z`
    /// projected on the bounds.
    fn failure(
        &mut self,
        problem: &FactoredBoxLcp,
        reason: &'static str,
        have_best: bool,
    ) -> LcpError {
        if !have_best {
            problem.bounds().project(&mut self.z);
            problem.affine(&self.z, &mut self.v, &mut self.w);
            self.best = LcpSolution {
                z: self.z.clone(),
                w: self.w.clone(),
                report: problem.report(&self.z, &self.w, None),
                method: Method::BlockPivoting,
                pivots: self.stats.exchanges,
                iterations: self.stats.solves,
            };
        }
        LcpError::BlockPivotingFailed {
            solves: self.stats.solves,
            reason,
            best: Some(Box::new(self.best.clone())),
        }
    }

    /// The first centre, guess and proximal weights.
    fn start(&mut self, problem: &FactoredBoxLcp, warm: Option<(&[RowState], &[f64])>) {
        let n = problem.dim();
        let bounds = problem.bounds();
        self.states.clear();
        self.centre.clear();
        match warm {
            Some((guess, centre)) => {
                self.states.extend_from_slice(guess);
                self.centre.extend_from_slice(centre);
                bounds.project(&mut self.centre);
            }
            None => {
                self.cold_guess(problem);
            }
        }
        self.weight = self.params.proximal_weight;
        self.set_weights(problem);
        self.roles.clear();
        self.roles.resize(n, Role::Free);
        self.factored_roles.clear();
        self.z.clear();
        self.z.resize(n, 0.0);
        self.jv.clear();
        self.jv.resize(n, 0.0);
        self.w.clear();
        self.w.resize(n, 0.0);
        self.b.clear();
        self.b.resize(n, 0.0);
        self.correction.clear();
        self.correction.resize(n, 0.0);
    }

    /// Proximal steps on the certified answer's guess with the factor in
    /// hand (only the centre moves, so each is one solve): the proximal
    /// term's share of the free rows' `w` shrinks geometrically, so a
    /// resting contact's answer leaves it as little sink as rounding
    /// allows. Each step is kept only if its certificate is smaller.
    fn finish(&mut self, problem: &FactoredBoxLcp, mut report: VerifyReport) -> VerifyReport {
        let bounds = problem.bounds();
        // `best` keeps the answer before each step (a certified answer is
        // returned, so the best iterate of a failure is not needed).
        for _ in 0..FINISH_STEPS {
            self.best.z.clone_from(&self.z);
            self.best.w.clone_from(&self.w);
            self.centre.clone_from(&self.z);
            self.set_roles(problem);
            if self.factored_roles != self.roles {
                break;
            }
            self.system
                .solve(&self.roles, &self.d, &self.b, &mut self.z, &mut self.jv);
            self.stats.finishing_steps += 1;
            self.refine(problem);
            bounds.project(&mut self.z);
            problem.affine(&self.z, &mut self.v, &mut self.w);
            let next = problem.report(&self.z, &self.w, None);
            if next.scaled_max() < report.scaled_max() {
                report = next;
            } else {
                std::mem::swap(&mut self.z, &mut self.best.z);
                std::mem::swap(&mut self.w, &mut self.best.w);
                break;
            }
        }
        report
    }

    /// Scales `eps` by `factor` for the subproblems after this one, within
    /// `min_weight` and `MAX_PROXIMAL_WEIGHT`: raised after a slow frozen
    /// subproblem (its dual is better conditioned, the curvature of a free
    /// row being `1 / d_i`, so Newton's method takes longer steps), lowered
    /// again after a subproblem whose guess held (the outer loop then takes
    /// longer steps towards the LCP's answer).
    fn scale_weight(&mut self, problem: &FactoredBoxLcp, factor: f64) {
        self.weight = (self.weight * factor)
            .min(MAX_PROXIMAL_WEIGHT)
            .max(self.min_weight());
        self.set_weights(problem);
        // The factor in hand is of the old weights.
        self.factored_roles.clear();
        self.extrapolation.reset();
    }

    /// The least weight `scale_weight` lowers to: `LOWEST_WEIGHT_SHARE` of
    /// the setting.
    fn min_weight(&self) -> f64 {
        self.params.proximal_weight * LOWEST_WEIGHT_SHARE
    }

    /// The proximal weights `rho_i = eps M_ii` (`eps ||M||_max` for a row
    /// with `M_ii = 0`; `FRICTION_WEIGHT` times that for a friction row),
    /// `eps` the current weight (the `proximal_weight` setting, scaled by
    /// `scale_weight`), and the rows' `d_i = C_i + rho_i`.
    fn set_weights(&mut self, problem: &FactoredBoxLcp) {
        let eps = self.weight;
        let scale = if problem.m_max_abs() > 0.0 {
            problem.m_max_abs()
        } else {
            1.0
        };
        self.rho.clear();
        self.rho.extend(
            problem
                .diagonal()
                .iter()
                .map(|&m| eps * if m > 0.0 { m } else { scale }),
        );
        for c in problem.bounds().couplings() {
            self.rho[c.row] *= FRICTION_WEIGHT;
        }
        self.d.clear();
        self.d.extend(
            problem
                .compliance()
                .iter()
                .zip(&self.rho)
                .map(|(c, r)| c + r),
        );
    }

    /// The first guess and centre without a warm start: a few sweeps of
    /// projected Gauss-Seidel on the factored problem (matrix-free, O(rows)
    /// a sweep) estimate the active set, as in Silcowitz, Niebe & Erleben
    /// 2010 ("A nonsmooth Newton method with applications to computer
    /// animation"'s PGS-subspace minimisation); friction rows start free.
    /// Where the sweeps cannot run (a row with `M_ii` from its compliance
    /// only), a row that `z = 0` leaves violated (`q_i < 0`) starts free.
    fn cold_guess(&mut self, problem: &FactoredBoxLcp) {
        let (n, bounds, q) = (problem.dim(), problem.bounds(), problem.q());
        self.sweeps.set_params(PgsParams {
            max_sweeps: COLD_SWEEPS,
            ..PgsParams::default()
        });
        let swept = self
            .sweeps
            .solve_matrix_free_into(problem, q, bounds, None, &mut self.swept);
        let z = match &swept {
            Ok(()) => Some(&self.swept.z),
            Err(LcpError::IterationLimit {
                best: Some(best), ..
            }) => Some(&best.z),
            Err(_) => None,
        };
        self.centre.clear();
        match z {
            Some(z) => self.centre.extend_from_slice(z),
            None => self.centre.resize(n, 0.0),
        }
        let scale = self.centre.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        let tiny = COLD_ACTIVE * scale;
        let centre = &self.centre;
        self.states.extend((0..n).map(|i| {
            if z.is_none() {
                return if bounds.coupling_of(i).is_some() || q[i] < 0.0 {
                    RowState::Free
                } else {
                    RowState::Lower
                };
            }
            if bounds.coupling_of(i).is_some() {
                // Friction rows start sticking, as after a warm start.
                return RowState::Free;
            }
            let (lo, hi) = bounds.effective(i, centre);
            if centre[i] <= lo + tiny && lo < hi {
                RowState::Lower
            } else if centre[i] >= hi - tiny && lo < hi {
                RowState::Upper
            } else {
                RowState::Free
            }
        }));
        // The centre is 0: of the many answers of redundant contacts the
        // first subproblem picks the one of least norm (a centre at the
        // sweeps' normals would make friction make up for their uneven
        // load, up to the cone's edge).
        self.centre.fill(0.0);
    }

    /// Iterative refinement of the subproblem's answer with the last
    /// factor: the free rows' residual `w'_i`, recomputed from `z` through
    /// `W J' z` (not from the solve's `v`), is solved away; the rows at a
    /// bound keep their value. Undoes the rounding that the small
    /// proximal weights amplify (the system's condition number is about
    /// `1 / eps`).
    fn refine(&mut self, problem: &FactoredBoxLcp) {
        let q = problem.q();
        problem.affine(&self.z, &mut self.v, &mut self.w);
        for i in 0..q.len() {
            self.b[i] = if self.roles[i] == Role::Free {
                self.w[i] + self.rho[i] * (self.z[i] - self.centre[i])
            } else {
                0.0
            };
        }
        self.system.solve(
            &self.roles,
            &self.d,
            &self.b,
            &mut self.correction,
            &mut self.jv,
        );
        for (z, dz) in self.z.iter_mut().zip(&self.correction) {
            *z += dz;
        }
        self.stats.refinements += 1;
    }

    /// Block principal pivoting on the subproblem around the centre (its
    /// matrix `M + P` positive definite; friction rows at a bound folded
    /// onto their normal): leaves its answer in `z`.
    fn solve_subproblem(&mut self, problem: &FactoredBoxLcp) -> Result<(), &'static str> {
        let mut fewest = usize::MAX;
        let mut block_tries = BLOCK_TRIES;
        self.frozen = false;
        loop {
            if self.stats.solves >= self.params.solve_budget(problem.dim()) {
                return Err("solve limit reached");
            }
            self.solve_guess(problem)?;
            if self.find_violations(problem) == 0 {
                for _ in 0..REFINEMENTS {
                    self.refine(problem);
                }
                return Ok(());
            }
            // Judice & Pires: exchange every violated row while their number
            // falls (BLOCK_TRIES tries without a fall allowed).
            let count = self.violated.len();
            if count < fewest {
                fewest = count;
                block_tries = BLOCK_TRIES;
            }
            if block_tries == 0 {
                // The exchanges cycle (folded friction makes the subproblem
                // non-symmetric, not a P-matrix problem, and redundant
                // contacts make it nearly degenerate): the rest of this
                // subproblem holds the friction bounds at the centre's
                // normals, a strictly convex quadratic program, solved by
                // Newton's method on its dual from here.
                self.frozen = true;
                self.stats.frozen_subproblems += 1;
                self.descend(problem)?;
                for _ in 0..REFINEMENTS {
                    self.refine(problem);
                }
                return Ok(());
            }
            block_tries -= 1;
            for &(i, next) in &self.violated {
                self.states[i] = next;
                self.stats.exchanges += 1;
            }
        }
    }

    /// Factors the guess in `states` (unless its roles are those of the
    /// factor in hand) and solves it into `z`.
    fn solve_guess(&mut self, problem: &FactoredBoxLcp) -> Result<(), &'static str> {
        self.set_roles(problem);
        if self.factored_roles != self.roles {
            self.system
                .factor(&self.roles, &self.d)
                .map_err(Unfactored::reason)?;
            self.factored_roles.clone_from(&self.roles);
            self.stats.factorizations += 1;
        }
        self.system
            .solve(&self.roles, &self.d, &self.b, &mut self.z, &mut self.jv);
        self.stats.solves += 1;
        Ok(())
    }

    /// The rows whose guess the last solve's `z` violates, with the state
    /// each moves to, in `violated`; returns their number.
    fn find_violations(&mut self, problem: &FactoredBoxLcp) -> usize {
        let (q, compliance, bounds) = (problem.q(), problem.compliance(), problem.bounds());
        let (lo, hi) = (bounds.lo(), bounds.hi());
        // Thresholds below which a violation is rounding.
        let z_inf = self.z.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        let (scale, z_scale, _) = scales(problem.m_max_abs(), z_inf, problem.q_max_abs());
        let tol = self.params.tolerance / VIOLATION_SHARE;
        let (tw, tz) = (tol * scale, tol * z_scale);
        self.violated.clear();
        for i in 0..q.len() {
            let zi = self.z[i];
            let wi = q[i] + self.jv[i] + compliance[i] * zi + self.rho[i] * (zi - self.centre[i]);
            let (l, h) = match bounds.coupling_of(i) {
                Some(c) => {
                    let normal = if self.frozen { &self.centre } else { &self.z };
                    let r = c.mu * normal[c.normal_row].max(0.0);
                    (-r, r)
                }
                None => (lo[i], hi[i]),
            };
            let state = self.states[i];
            if self.roles[i] == Role::Fixed && l == h {
                // A friction row of an unloaded normal: complementary
                // whatever its w; it waits on the side its w points to.
                self.states[i] = if wi < 0.0 {
                    RowState::Upper
                } else {
                    RowState::Lower
                };
                continue;
            }
            let next = match state {
                RowState::Free if zi < l - tz => RowState::Lower,
                RowState::Free if zi > h + tz => RowState::Upper,
                RowState::Lower if wi < -tw => RowState::Free,
                RowState::Upper if wi > tw => RowState::Free,
                _ => continue,
            };
            self.violated.push((i, next));
        }
        self.violated.len()
    }

    /// The roles and right-hand sides of the guess in `states`.
    fn set_roles(&mut self, problem: &FactoredBoxLcp) {
        let (q, bounds) = (problem.q(), problem.bounds());
        let (lo, hi) = (bounds.lo(), bounds.hi());
        // Uncoupled rows first: a friction row's role depends on its
        // normal's.
        for i in 0..q.len() {
            if bounds.coupling_of(i).is_some() {
                continue;
            }
            let state = &mut self.states[i];
            if *state == RowState::Lower && lo[i] == f64::NEG_INFINITY
                || *state == RowState::Upper && hi[i] == f64::INFINITY
            {
                *state = RowState::Free;
            }
            (self.roles[i], self.b[i]) = match *state {
                RowState::Free => (Role::Free, q[i] - self.rho[i] * self.centre[i]),
                RowState::Lower => (Role::Fixed, lo[i]),
                RowState::Upper => (Role::Fixed, hi[i]),
            };
        }
        for c in bounds.couplings() {
            let i = c.row;
            (self.roles[i], self.b[i]) = if self.frozen {
                let r = c.mu * self.centre[c.normal_row].max(0.0);
                match self.states[i] {
                    _ if r == 0.0 => (Role::Fixed, 0.0),
                    RowState::Free => (Role::Free, q[i] - self.rho[i] * self.centre[i]),
                    RowState::Lower => (Role::Fixed, -r),
                    RowState::Upper => (Role::Fixed, r),
                }
            } else if self.roles[c.normal_row] != Role::Free {
                // The normal is held at 0: so is its friction.
                (Role::Fixed, 0.0)
            } else {
                match self.states[i] {
                    RowState::Free => (Role::Free, q[i] - self.rho[i] * self.centre[i]),
                    RowState::Lower => (
                        Role::Folded {
                            normal: c.normal_row,
                            coef: -c.mu,
                        },
                        0.0,
                    ),
                    RowState::Upper => (
                        Role::Folded {
                            normal: c.normal_row,
                            coef: c.mu,
                        },
                        0.0,
                    ),
                }
            };
        }
    }
}
