// Lemke's complementary pivoting method for LCP(M, q): find z with
// w = M z + q, z >= 0, w >= 0, z'w = 0. It ends with a solution when M is
// copositive-plus (positive semidefinite, or [[P, E], [-E', 0]] with P PSD as
// in the Anitescu-Potra contact LCP) and the problem is feasible, and when M
// is a P-matrix; for copositive-plus M a secondary ray proves infeasibility.
//
// Method (Cline 2002, sec. 2.7.1; Murty 1988 ch. 2): on the equilibrated
// problem (scaling.rs), with covering vector d = (1, ..., 1),
//     w - M z - d z0 = q.
// If q >= 0, z = 0 solves it. Otherwise z0 enters at -min q, replacing w_t for
// the most negative q_t (a feasible basis); then the complement of the
// variable that left enters and the minimum-ratio test with lexicographic
// tie-breaking (ratio_test.rs) picks the one that leaves, until z0 leaves (a
// solution), nothing can leave (a secondary ray) or the pivot limit. The
// tableau, its per-pivot update and refactorisation (Cline sec. 4.8.1) are in
// tableau.rs; the tolerances (Cline sec. 4.8.3) in ratio_test.rs.
//
// Warm start: from the complementary basis B that a guess suggests, with
// d = B 1 (the warm start of Fackler & Miranda's CompEcon `lemke`, and of
// Drumwright's Moby): Lemke's method on the principal pivot transform for B,
// so the guarantee holds where the transform keeps it (PSD M, the standard
// form of a box problem with fixed bounds). A singular guessed block is cut
// to a nonsingular one (independent_rows.rs). With friction coupling the
// standard form is only copositive-plus: a warm path that ends on a ray, runs
// past n pivots or does not certify hands over to the cold start.
//
// Accuracy: the final basis is solved afresh from the true q with one step of
// iterative refinement, z projected onto z >= 0, w = M z + q recomputed and
// `verify` measures the result; a failed attempt (ray, singular basis,
// inaccurate answer) is retried with other Harris tolerances.

mod independent_rows;
mod ratio_test;
mod row_kernels;
mod tableau;

use crate::box_problem::BoxLcp;
use crate::box_verify::finish_box_answer;
use crate::error::LcpError;
use crate::problem::{Lcp, check_vector};
use crate::pyramid_lift::PyramidLift;
use crate::solution::{LcpSolution, Method};
use crate::tuning::{
    LEMKE_PIVOTS_BASE, LEMKE_PIVOTS_PER_ROW, RETRY_ABOVE, RETRY_NARROWER, RETRY_WIDER, SMALL_PIVOT,
};
use crate::verify::{certified, verify_into};
use tableau::{Tableau, refill};

/// Settings of [`Lemke`]. All tolerances are relative: the solver first
/// equilibrates the problem (`D M D`, `D q` with D diagonal) and scales it so
/// that `max |M_ij|, max |q_i| <= 1`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LemkeParams {
    /// Largest number of pivots before giving up with
    /// [`LcpError::PivotLimit`]; `0` (the default) means `50 n + 1000` (see
    /// [`LemkeParams::pivot_limit`]). Contact problems need about `n` to
    /// `3n`; Murty's worst case needs `2^n`.
    pub max_pivots: usize,
    /// A row may leave only if its pivot `u_p = (B^-1 c)_p` exceeds
    /// `pivot_tolerance * max_j |(B^-1)_pj| * max_i |c_i|`: smaller pivots
    /// are rounding noise (Cline sec. 4.8.3). Default `1e-10`; sensible range
    /// `1e-13..=1e-7` (larger is safer against noise but can miss genuine
    /// small pivots and report a false ray).
    pub pivot_tolerance: f64,
    /// Harris' tolerance in the ratio test: a step may leave a basic value at
    /// `-zero_tolerance * max_j |(B^-1)_pj|` (scaled problem) instead of 0,
    /// so that among nearly tied rows the one with the largest pivot leaves.
    /// Larger values avoid near-singular bases (near-duplicate contacts) at
    /// no cost in final accuracy, as the final basis is solved afresh.
    /// Default `1e-8`; sensible range `1e-10..=1e-6`.
    pub zero_tolerance: f64,
    /// Refactorise the basis from scratch every this many pivots, to bound
    /// the drift of the updated inverse (Cline sec. 4.8.1); `0` disables it
    /// (the basis is still refactorised before accepting a ray or a small
    /// pivot, and at the end). Default `100`.
    pub refactor_interval: usize,
    /// If the first attempt ends on a ray, on a singular basis or with a
    /// scaled error above `1e-9`, the solve restarts with this zero
    /// tolerance; while the answer is still not a solution, with ten times
    /// it, then with `zero_tolerance / 10`, `/ 100` and `/ 1e5`. The best
    /// answer is returned and the pivot limit counts all attempts. `0`
    /// disables the retries. Default `1e-7`.
    pub fallback_zero_tolerance: f64,
    /// Record every pivot, readable with [`Lemke::last_trace`] (for debugging
    /// and snapshot tests; the trace may allocate). Default `false`.
    pub record_trace: bool,
}

impl Default for LemkeParams {
    fn default() -> Self {
        Self {
            max_pivots: 0,
            pivot_tolerance: 1e-10,
            zero_tolerance: 1e-8,
            refactor_interval: 100,
            fallback_zero_tolerance: 1e-7,
            record_trace: false,
        }
    }
}

impl LemkeParams {
    /// The pivot limit for a problem of dimension `n`: `max_pivots`, or
    /// `50 n + 1000` when it is 0.
    #[must_use]
    pub fn pivot_limit(&self, n: usize) -> usize {
        if self.max_pivots == 0 {
            n.saturating_mul(LEMKE_PIVOTS_PER_ROW)
                .saturating_add(LEMKE_PIVOTS_BASE)
        } else {
            self.max_pivots
        }
    }
}

/// A variable of the pivoting system `w - M z - d z0 = q`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Variable {
    /// The slack `w_i`.
    W(usize),
    /// The unknown `z_i`.
    Z(usize),
    /// Lemke's artificial variable `z0`.
    Artificial,
}

impl Variable {
    /// The variable numbered `var` in the tableau (`w_i = i`, `z_i = n + i`,
    /// `z0 = 2n`).
    fn from_index(var: usize, n: usize) -> Self {
        match var {
            v if v < n => Self::W(v),
            v if v < 2 * n => Self::Z(v - n),
            _ => Self::Artificial,
        }
    }
}

/// One basis exchange of Lemke's method.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PivotRecord {
    /// The variable that entered the basis.
    pub entering: Variable,
    /// The variable that left it.
    pub leaving: Variable,
    /// The value of the entering variable after the pivot, in the problem's
    /// units.
    pub ratio: f64,
}

/// Lemke's complementary pivoting solver with a reusable workspace.
///
/// Solves any [`Lcp`] whose matrix is copositive-plus or a P-matrix (and
/// often others); see the module source for the method. The second solve of
/// a problem of the same size allocates nothing (unless a trace is recorded
/// or an error carries a best iterate).
///
/// Covering vector: `d = (1, ..., 1)` in the equilibrated, scaled problem
/// `(D M D / sM, D q / sq)`, in the original units the positive vector
/// `d_i = 1 / D_i`.
#[derive(Clone, Debug, Default)]
pub struct Lemke {
    params: LemkeParams,
    tableau: Tableau,
    trace: Vec<PivotRecord>,
    best_z: Vec<f64>,
    scratch: Vec<f64>,
    /// Holds the best answer so far while a retry runs.
    spare: LcpSolution,
    /// Pivots and refactorisations of the current solve (all attempts).
    pivots: usize,
    refactors: usize,
    /// The standard form of the last box problem and its solution.
    lift: PyramidLift,
    lifted: LcpSolution,
    /// The basic z of a warm start.
    warm: Vec<bool>,
    /// `w = M z + q` of a box problem's warm start guess.
    guess_w: Vec<f64>,
}

impl Lemke {
    /// A solver with the given settings (allocates on the first solve).
    #[must_use]
    pub fn new(params: LemkeParams) -> Self {
        Self {
            params,
            ..Self::default()
        }
    }

    /// The settings.
    #[must_use]
    pub fn params(&self) -> &LemkeParams {
        &self.params
    }

    /// Changes the settings (the workspace is kept).
    pub fn set_params(&mut self, params: LemkeParams) {
        self.params = params;
    }

    /// The pivots of the last solve (of its last attempt, if it was retried),
    /// if [`LemkeParams::record_trace`] was set (empty otherwise).
    #[must_use]
    pub fn last_trace(&self) -> &[PivotRecord] {
        &self.trace
    }

    /// Solves `lcp`, returning a new solution.
    ///
    /// # Errors
    ///
    /// See [`Lemke::solve_into`].
    pub fn solve(&mut self, lcp: &Lcp) -> Result<LcpSolution, LcpError> {
        let mut out = LcpSolution::default();
        self.solve_into(lcp, &mut out)?;
        Ok(out)
    }

    /// Solves `lcp` into `out`, reusing its vectors (after a solve of the
    /// same size this allocates nothing).
    ///
    /// On success `out` holds `z`, `w = M z + q`, the pivots and
    /// refactorisations of all attempts and the
    /// [`VerifyReport`](crate::VerifyReport) that certifies it: an answer is
    /// returned only when its
    /// [`scaled_max`](crate::VerifyReport::scaled_max) is at most `1e-9`. On
    /// an error that has a best iterate, `out` holds it too.
    ///
    /// # Errors
    ///
    /// - [`LcpError::RayTermination`]: no solution was found (for a
    ///   copositive-plus matrix, the problem is infeasible);
    /// - [`LcpError::PivotLimit`]: [`LemkeParams::pivot_limit`] pivots were
    ///   done (counting all attempts);
    /// - [`LcpError::SingularBasis`]: a refactorisation found the basis
    ///   numerically singular (with the best iterate);
    /// - [`LcpError::NotCertified`]: the path ended on an answer whose scaled
    ///   error is above `1e-9` (numerical trouble, or a matrix outside the
    ///   method's classes), carried as the best iterate.
    pub fn solve_into(&mut self, lcp: &Lcp, out: &mut LcpSolution) -> Result<(), LcpError> {
        self.solve_from(lcp, out, None)
    }

    /// Solves `lcp` into `out` as [`Lemke::solve_into`], first from the
    /// complementary basis that `guess` suggests: `z_i` basic where
    /// `guess_i > 0`, `w_i` elsewhere (e.g. the answer of the previous time
    /// step), with the covering vector `B 1` of that basis B (Fackler &
    /// Miranda's warm start): a guess whose basis solves the problem takes no
    /// pivot, a close one few. A singular guessed block (e.g. loaded
    /// redundant contacts) is first cut to a nonsingular one. When the path
    /// ends on a ray, runs past n pivots or does not certify, the method
    /// starts again from `z = 0` (the limit counts the pivots of both).
    ///
    /// # Errors
    ///
    /// [`LcpError::BadLength`] or [`LcpError::NonFinite`] for a bad `guess`
    /// (nothing is solved); otherwise as [`Lemke::solve_into`].
    pub fn solve_warm_into(
        &mut self,
        lcp: &Lcp,
        guess: &[f64],
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        check_vector("guess", guess, lcp.dim())?;
        let mut basic = std::mem::take(&mut self.warm);
        basic.clear();
        basic.extend(guess.iter().map(|&x| x > 0.0));
        let result = self.solve_from(lcp, out, Some(&basic));
        self.warm = basic;
        result
    }

    /// [`Lemke::solve_into`], warm-started from the basis `warm` if given.
    fn solve_from(
        &mut self,
        lcp: &Lcp,
        out: &mut LcpSolution,
        warm: Option<&[bool]>,
    ) -> Result<(), LcpError> {
        self.trace.clear();
        self.pivots = 0;
        self.refactors = 0;
        out.method = Method::Lemke;
        out.pivots = 0;
        out.iterations = 0;
        reset(lcp, out);
        let params = self.params;
        // A warm start that certifies is the answer, even where `z = 0` is
        // one too: a problem with several answers keeps the guess's (the
        // event-driven stepper relies on it).
        if let Some(basic) = warm.filter(|basic| basic.contains(&true)) {
            let outcome = self.attempt(lcp, out, params.zero_tolerance, Some(basic));
            if outcome.is_ok() && out.report.is_solution(RETRY_ABOVE) {
                out.pivots = self.pivots;
                out.iterations = self.refactors;
                return Ok(());
            }
            reset(lcp, out);
        }
        if lcp.q().iter().all(|&x| x >= 0.0) {
            out.report = verify_into(lcp, &out.z, None, &mut self.scratch);
            return certified(out);
        }
        let mut outcome = self.attempt(lcp, out, params.zero_tolerance, None);
        let (fallback, zero) = (params.fallback_zero_tolerance, params.zero_tolerance);
        let retries = [
            fallback,
            fallback * RETRY_WIDER,
            zero / RETRY_NARROWER[0],
            zero / RETRY_NARROWER[1],
            zero / RETRY_NARROWER[2],
        ];
        for (i, tolerance) in retries.into_iter().enumerate() {
            let retry = match outcome {
                Ok(()) => !out.report.is_solution(RETRY_ABOVE),
                Err(failure) => failure != Failure::Limit,
            };
            if !retry || fallback <= 0.0 {
                break;
            }
            if tolerance == zero || retries[..i].contains(&tolerance) {
                continue;
            }
            // Keep the best answer so far (the spare's buffers are reused).
            self.spare.clone_from(out);
            let best = outcome;
            outcome = self.attempt(lcp, out, tolerance, None);
            let new_better = match (best, outcome) {
                (_, Ok(())) if out.report.is_solution(RETRY_ABOVE) => true,
                (Ok(()), Ok(())) => out.report.scaled_max() < self.spare.report.scaled_max(),
                (Ok(()), Err(_)) => false,
                (Err(_), _) => true,
            };
            if !new_better {
                std::mem::swap(out, &mut self.spare);
                outcome = best;
            }
        }
        out.pivots = self.pivots;
        out.iterations = self.refactors;
        let (pivots, best) = (self.pivots, || Some(Box::new(out.clone())));
        match outcome {
            Ok(()) => certified(out),
            Err(Failure::Ray) => Err(LcpError::RayTermination {
                pivots,
                best: best(),
            }),
            Err(Failure::Limit) => Err(LcpError::PivotLimit {
                pivots,
                best: best(),
            }),
            Err(Failure::Singular) => Err(LcpError::SingularBasis {
                pivots,
                best: best(),
            }),
        }
    }

    /// Solves a box LCP (bounds and friction coupling), returning a new
    /// solution.
    ///
    /// # Errors
    ///
    /// See [`Lemke::solve_box_into`].
    pub fn solve_box(&mut self, problem: &BoxLcp) -> Result<LcpSolution, LcpError> {
        let mut out = LcpSolution::default();
        self.solve_box_into(problem, &mut out)?;
        Ok(out)
    }

    /// Solves a box LCP into `out` by Lemke's method on its standard form:
    /// each row split into sign parts, each finite bound and each friction
    /// coupling given a multiplier (the polyhedral-friction LCP of Stewart &
    /// Trinkle 1996 and Anitescu & Potra, Cline 2002 sec. 2.7.3), which
    /// Lemke's method solves for contact problems (`M = J W J'` PSD, gap
    /// terms that some velocity satisfies) and ends on a ray for problems
    /// without a solution. The answer is mapped back and certified against
    /// the box problem (`out.report`, as by [`verify_box`](crate::verify_box)),
    /// returned only when its scaled error is at most `1e-9`; `pivots` and
    /// `iterations` are those of the standard form (dimension up to `4 n`). A
    /// repeated solve of a problem of the same shape allocates nothing.
    ///
    /// # Errors
    ///
    /// As [`Lemke::solve_into`], with the best iterate (if any) mapped back
    /// to the box problem.
    pub fn solve_box_into(
        &mut self,
        problem: &BoxLcp,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        self.solve_box_from(problem, None, out)
    }

    /// Solves a box LCP into `out` as [`Lemke::solve_box_into`], first
    /// warm-started ([`Lemke::solve_warm_into`]) from the standard form's
    /// basis that `guess` suggests: each sign part of a row basic where
    /// `guess` has that sign, and the multiplier of a bound basic where
    /// `guess` is at that bound (a friction row at `mu z_j` of its normal's
    /// guess, within a relative 1e-9; with its normal at 0, at the bound its
    /// `w` pushes against). The last time step's answer is a good guess;
    /// from a poor one the path may end on a ray and hand over to the cold
    /// start.
    ///
    /// # Errors
    ///
    /// [`LcpError::BadLength`] or [`LcpError::NonFinite`] for a bad `guess`;
    /// otherwise as [`Lemke::solve_box_into`].
    pub fn solve_box_warm_into(
        &mut self,
        problem: &BoxLcp,
        guess: &[f64],
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        check_vector("guess", guess, problem.dim())?;
        self.solve_box_from(problem, Some(guess), out)
    }

    /// [`Lemke::solve_box_into`], warm-started from `guess` if given.
    fn solve_box_from(
        &mut self,
        problem: &BoxLcp,
        guess: Option<&[f64]>,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        let mut lift = std::mem::take(&mut self.lift);
        let mut lifted = std::mem::take(&mut self.lifted);
        let result = match guess {
            Some(z) => {
                let mut basic = std::mem::take(&mut self.warm);
                self.guess_w.resize(z.len(), 0.0);
                problem.lcp().affine(z, &mut self.guess_w);
                let lcp = lift.build(problem, Some((z, &self.guess_w, &mut basic)));
                let r = self.solve_from(lcp, &mut lifted, Some(&basic));
                self.warm = basic;
                r
            }
            None => self.solve_from(lift.build(problem, None), &mut lifted, None),
        };
        // Maps a standard form's answer to the box problem, into `out`.
        let map = |x: &LcpSolution, out: &mut LcpSolution| {
            lift.box_z(&x.z, &mut out.z);
            finish_box_answer(problem, out);
            out.method = Method::Lemke;
            out.pivots = x.pivots;
            out.iterations = x.iterations;
        };
        // The standard form certified does not make the box problem
        // certified (their scales differ): check it.
        let result = match result {
            Ok(()) => {
                map(&lifted, out);
                certified(out)
            }
            Err(mut e) => {
                if let LcpError::RayTermination { best, .. }
                | LcpError::PivotLimit { best, .. }
                | LcpError::SingularBasis { best, .. }
                | LcpError::NotCertified { best, .. } = &mut e
                    && let Some(best) = best
                {
                    map(best, out);
                    (**best).clone_from(out);
                }
                if let LcpError::NotCertified { error, best, .. } = &mut e {
                    *error = best
                        .as_ref()
                        .map_or(f64::INFINITY, |b| b.report.scaled_max());
                }
                Err(e)
            }
        };
        self.lift = lift;
        self.lifted = lifted;
        result
    }

    /// One run of Lemke's method with the given Harris tolerance, from the
    /// basis `warm` if given. On success `out` holds the solution; on
    /// failure, the best iterate. Pivots and refactorisations are added to
    /// `self.pivots` and `self.refactors`.
    fn attempt(
        &mut self,
        lcp: &Lcp,
        out: &mut LcpSolution,
        zero_tolerance: f64,
        warm: Option<&[bool]>,
    ) -> Result<(), Failure> {
        let n = lcp.dim();
        let params = self.params;
        // A warm path longer than n pivots is no shorter than the cold
        // start's, which then gets the rest of the limit.
        let limit = match warm {
            Some(_) => params.pivot_limit(n).min(self.pivots + n),
            None => params.pivot_limit(n),
        };
        self.trace.clear();
        self.tableau.load(lcp);
        let z0 = self.tableau.z0();
        refill(&mut self.best_z, n, 0.0);
        if let Some(basic) = warm {
            self.tableau.warm_basis(lcp, basic);
            // The guessed basis, solved afresh, is the answer when it
            // certifies; else the path starts from its tableau.
            if self.final_answer(lcp, out).is_ok() && out.report.is_solution(RETRY_ABOVE) {
                return Ok(());
            }
            self.refactor(lcp, out)?;
        }
        let mut best_z0 = f64::INFINITY;
        let mut since_refactor = 0;
        let mut entering = z0;
        let mut next_row = Some(self.tableau.initial_row());
        loop {
            if self.pivots >= limit {
                self.finish_best(lcp, out);
                return Err(Failure::Limit);
            }
            let t = &mut self.tableau;
            t.entering_column(lcp, entering);
            let mut row = next_row
                .take()
                .or_else(|| t.leaving_row(params.pivot_tolerance, zero_tolerance));
            // A ray, or a pivot small relative to its row, may be an artefact
            // of drift in the updated inverse (Cline sec. 4.8.3): decide again
            // on a fresh factorisation before accepting either.
            let suspicious = row.is_none_or(|r| t.relative_pivot(r) < SMALL_PIVOT);
            if suspicious && since_refactor > 0 {
                since_refactor = 0;
                self.refactor(lcp, out)?;
                self.tableau.entering_column(lcp, entering);
                row = self
                    .tableau
                    .leaving_row(params.pivot_tolerance, zero_tolerance);
            }
            let Some(r) = row else {
                self.finish_best(lcp, out);
                return Err(Failure::Ray);
            };
            let t = &mut self.tableau;
            let leaving = t.pivot(lcp, r, entering);
            self.pivots += 1;
            since_refactor += 1;
            if params.record_trace {
                self.trace.push(PivotRecord {
                    entering: Variable::from_index(entering, n),
                    leaving: Variable::from_index(leaving, n),
                    ratio: t.value(r) * t.unscale(entering),
                });
            }
            if leaving == z0 {
                break;
            }
            if params.refactor_interval > 0 && since_refactor >= params.refactor_interval {
                since_refactor = 0;
                self.refactor(lcp, out)?;
            }
            // Remember the iterate with the smallest z0: it is the largest
            // violation of w >= 0 at an almost-complementary point.
            let t = &self.tableau;
            let z0_value = t.value(t.pos[z0]);
            if z0_value < best_z0 {
                best_z0 = z0_value;
                t.current_z(&mut self.best_z);
            }
            // The complement of the variable that left enters next.
            entering = if leaving < n {
                leaving + n
            } else {
                leaving - n
            };
        }
        self.final_answer(lcp, out)
    }

    /// Refactorises the tableau; on a singular basis, leaves the best iterate
    /// in `out`.
    fn refactor(&mut self, lcp: &Lcp, out: &mut LcpSolution) -> Result<(), Failure> {
        self.refactors += 1;
        if self.tableau.refactor(lcp).is_err() {
            self.finish_best(lcp, out);
            return Err(Failure::Singular);
        }
        Ok(())
    }

    /// Solves the final basis afresh into `out` (`Tableau::final_solve`).
    fn final_answer(&mut self, lcp: &Lcp, out: &mut LcpSolution) -> Result<(), Failure> {
        self.refactors += 1;
        if self.tableau.final_solve(lcp, &mut out.z).is_err() {
            self.finish_best(lcp, out);
            return Err(Failure::Singular);
        }
        self.finish(lcp, out);
        Ok(())
    }

    /// Projects `out.z` onto `z >= 0`, recomputes `w` and the report.
    fn finish(&mut self, lcp: &Lcp, out: &mut LcpSolution) {
        for z in &mut out.z {
            *z = z.max(0.0);
        }
        lcp.affine(&out.z, &mut out.w);
        out.report = verify_into(lcp, &out.z, Some(&out.w), &mut self.scratch);
    }

    /// Fills `out` with the best iterate.
    fn finish_best(&mut self, lcp: &Lcp, out: &mut LcpSolution) {
        out.z.copy_from_slice(&self.best_z);
        self.finish(lcp, out);
    }
}

/// Sets `out` to `z = 0`, `w = q`.
fn reset(lcp: &Lcp, out: &mut LcpSolution) {
    refill(&mut out.z, lcp.dim(), 0.0);
    out.w.clear();
    out.w.extend_from_slice(lcp.q());
}

/// Why an attempt ended without a solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Failure {
    Ray,
    Limit,
    Singular,
}
