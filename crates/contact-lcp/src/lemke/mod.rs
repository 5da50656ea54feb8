// Lemke's complementary pivoting method for LCP(M, q).
//
// Problem and signs: find z with w = M z + q, z >= 0, w >= 0, z'w = 0. Any
// square M; the method is guaranteed to end with a solution when M is
// copositive-plus (positive semidefinite, or e.g. [[P, E], [-E', 0]] with P
// PSD, as in the Anitescu-Potra contact LCP) and the problem is feasible,
// and when M is a P-matrix; for copositive-plus M, ending on a secondary ray
// proves that the problem is infeasible.
//
// Method (Cline 2002, sec. 2.7.1; Murty 1988 ch. 2): after an exact diagonal
// equilibration (scaling.rs), add an artificial variable z0 with covering
// vector d = (1, ..., 1):
//     w - M z - d z0 = q.
// If q >= 0, z = 0 solves the problem (no pivot). Otherwise z0 enters at the
// value -min q, replacing w_t for the most negative q_t; this basis is
// feasible. Then repeat: the complement of the variable that just left
// enters; the minimum-ratio test (with lexicographic tie-breaking, see
// ratio_test.rs) picks the variable that leaves. Every basis has one
// variable of each pair (w_i, z_i) except one pair, and z0 is basic; the method
// stops when z0 leaves (a solution), when no variable can leave (a secondary
// ray), or at the pivot limit. Scaling, the tableau [y | B^-1] (stored as
// its k dense columns, k = number of basic z-type variables) and its
// per-pivot update are in tableau.rs, refactorisation in tableau.rs and
// linalg/lu.rs (Cline sec. 4.8.1); tolerances in ratio_test.rs (Cline
// sec. 4.8.3).
//
// Warm start (`solve_warm_into`, `solve_box_warm_into`): the method may
// start from the complementary basis B that a guess suggests (z_i basic
// where the guess is positive), with the covering vector d = B 1 so that
// z0's column in basis coordinates is -1 as from B = I (the warm start of
// Fackler & Miranda's CompEcon `lemke`; Drumwright's Moby LCP solver has
// one too). This is Lemke's method on the principal pivot transform of
// the problem for B with the unit covering vector, so it keeps the
// guarantee where the transform does: for positive semidefinite M (and
// the standard form of a box problem with fixed bounds, [[A, E], [-E',
// 0]] with A PSD, whose transforms are monotone). A guessed block that is
// singular (loaded redundant contacts) is first cut to a nonsingular one
// (independent_rows.rs). The standard form of friction coupling
// is only copositive-plus, and from a poor guess the path may end on a
// ray: a warm path that fails, or runs past n pivots, hands over to the
// cold start. From the policy's capped Dantzig attempt the warm path
// mostly ended on a ray (docs/architecture.md, known limits), so the
// policy does not use it.
//
// Accuracy: the final basis is factorised afresh and solved from the true q
// with one step of iterative refinement; z is projected onto z >= 0,
// w = M z + q is recomputed from it in the problem's units, and `verify`
// measures the result. If the first attempt fails numerically (ray, singular
// basis, inaccurate result), up to five retries with other Harris tolerances
// follow (see `fallback_zero_tolerance`).

mod independent_rows;
mod ratio_test;
mod tableau;

use crate::box_problem::BoxLcp;
use crate::box_verify::finish_box_answer;
use crate::error::LcpError;
use crate::problem::Lcp;
use crate::pyramid_lift::PyramidLift;
use crate::solution::{LcpSolution, Method};
use crate::tuning::RETRY_ABOVE;
use crate::tuning::SMALL_PIVOT;
use crate::verify::{ACCEPT, certified, verify_into};
use tableau::Tableau;

/// Settings of [`Lemke`]. All tolerances are relative: the solver first
/// equilibrates the problem (`D M D`, `D q` with D diagonal, see the module
/// source) and scales it so that `max |M_ij|, max |q_i| <= 1`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LemkeParams {
    /// Largest number of pivots before giving up with
    /// [`LcpError::PivotLimit`]. `0` (the default) means automatic:
    /// `50 n + 1000` (see [`LemkeParams::pivot_limit`]). Contact problems need
    /// about `n` to `3n`; Murty's worst case needs `2^n`.
    pub max_pivots: usize,
    /// A row may leave only if its pivot element `u_p = (B^-1 c)_p` exceeds
    /// `pivot_tolerance * max_j |(B^-1)_pj| * max_i |c_i|`: smaller pivots are
    /// rounding noise (Cline sec. 4.8.3). Default `1e-10`; sensible range
    /// `1e-13..=1e-7`. Larger values are safer against noise but can miss
    /// genuine small pivots (and report a false ray).
    pub pivot_tolerance: f64,
    /// Harris' tolerance in the ratio test (see `ratio_test.rs`): a step may
    /// leave a basic value at `-zero_tolerance * max_j |(B^-1)_pj|` (scaled
    /// problem) instead of exactly 0, so that among nearly tied rows the one
    /// with the largest pivot can leave. Larger values avoid tiny pivots and
    /// near-singular bases (near-duplicate contacts); they do not cost final
    /// accuracy, because the final basis is solved afresh from the true q.
    /// Default `1e-8`; sensible range `1e-10..=1e-6`.
    pub zero_tolerance: f64,
    /// Refactorise the basis from scratch every this many pivots, to bound the
    /// drift of the per-pivot updates of its inverse (Cline sec. 4.8.1). `0`
    /// disables periodic refactorisation (the basis is still refactorised
    /// before accepting a ray or a small pivot, and at the end). Default `100`;
    /// a refactorisation costs about `2 k^3 + 2 (n - k) k^2` flops (in
    /// faer's blocked kernels) for `k` basic z-variables, a pivot about
    /// `4 n k`.
    pub refactor_interval: usize,
    /// If the first attempt ends on a ray, on a singular basis, or with a
    /// result whose scaled error exceeds `1e-9`, the solve restarts from
    /// scratch with this zero tolerance; while the answer is still not a
    /// solution, with ten times it, then with `zero_tolerance / 10`,
    /// `zero_tolerance / 100` and `zero_tolerance / 1e5`. The best answer is
    /// returned. `0` disables the
    /// retries. Default `1e-7`. A different Harris tolerance gives a
    /// different pivot path, which usually avoids the numerical trouble of
    /// the first (stacks of boxes with near-duplicate contacts and large
    /// mass ratios; see docs/architecture.md, known limits). The pivot
    /// limit counts all attempts.
    pub fallback_zero_tolerance: f64,
    /// Record every pivot, readable with [`Lemke::last_trace`] (for debugging
    /// and snapshot tests). Default `false`. The trace vector may allocate.
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
    /// The pivot limit used for a problem of dimension `n`: `max_pivots`, or
    /// `50 n + 1000` when it is 0.
    #[must_use]
    pub fn pivot_limit(&self, n: usize) -> usize {
        if self.max_pivots == 0 {
            n.saturating_mul(50).saturating_add(1000)
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
    fn from_index(var: usize, n: usize) -> Self {
        if var < n {
            Self::W(var)
        } else if var < 2 * n {
            Self::Z(var - n)
        } else {
            Self::Artificial
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
    /// The step of the ratio test: the value of the entering variable after
    /// the pivot, in the problem's units.
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
/// `(D M D / sM, D q / sq)`; in the original units that is the positive
/// vector `d_i = 1 / D_i` (constant when the rows of M have similar sizes).
#[derive(Clone, Debug, Default)]
pub struct Lemke {
    params: LemkeParams,
    tableau: Tableau,
    trace: Vec<PivotRecord>,
    best_z: Vec<f64>,
    scratch: Vec<f64>,
    /// Holds the first answer while a retry runs.
    spare: LcpSolution,
    /// Pivots of the current solve (all attempts).
    pivots: usize,
    /// Refactorisations of the current solve (all attempts).
    refactors: usize,
    /// The standard form of the last box problem (`solve_box_into`).
    lift: PyramidLift,
    /// The solution of that standard form.
    lifted: LcpSolution,
    /// The basic z of a warm start (`solve_warm_into`).
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

    /// Solves `lcp` into `out`, reusing its vectors. After a solve of the same
    /// size this allocates nothing.
    ///
    /// On success `out` holds `z`, `w = M z + q`, the statistics (pivots and
    /// refactorisations of all attempts, see
    /// [`LemkeParams::fallback_zero_tolerance`]) and the
    /// [`VerifyReport`](crate::VerifyReport), which certifies it: an
    /// answer is returned only when its
    /// [`scaled_max`](crate::VerifyReport::scaled_max) is at most `1e-9`.
    /// On an error that has a best iterate, `out` holds it too.
    ///
    /// # Errors
    ///
    /// - [`LcpError::RayTermination`]: no solution was found (for a
    ///   copositive-plus matrix, the problem is infeasible);
    /// - [`LcpError::PivotLimit`]: [`LemkeParams::pivot_limit`] pivots were done
    ///   (counting all attempts);
    /// - [`LcpError::SingularBasis`]: a refactorisation found the basis
    ///   numerically singular;
    /// - [`LcpError::NotCertified`]: the path ended on an answer whose
    ///   scaled error is above `1e-9` (numerical trouble, or a matrix
    ///   outside the method's classes), carried as the best iterate.
    pub fn solve_into(&mut self, lcp: &Lcp, out: &mut LcpSolution) -> Result<(), LcpError> {
        self.solve_from(lcp, out, None)
    }

    /// Solves `lcp` into `out` as [`Lemke::solve_into`], first from the
    /// complementary basis that `guess` suggests: `z_i` basic where
    /// `guess_i > 0`, `w_i` elsewhere (e.g. the answer of a previous time
    /// step, or another solver's best iterate). Lemke's method then starts
    /// with the covering vector `B 1` of that basis B (Fackler & Miranda's
    /// warm start, see the module source): a guess whose basis solves the
    /// problem takes no pivot, a close one few. A guessed block that is
    /// singular (e.g. loaded redundant contacts) is first cut to a
    /// nonsingular one, the rest left out of the basis. When the path from
    /// it ends on a ray, runs past n pivots or ends on an answer that does
    /// not certify, the method starts again from `z = 0` as `solve_into`
    /// does (the limit counts the pivots of both).
    ///
    /// # Errors
    ///
    /// [`LcpError::BadLength`] or [`LcpError::NonFinite`] for a bad
    /// `guess` (nothing is solved); otherwise as [`Lemke::solve_into`].
    pub fn solve_warm_into(
        &mut self,
        lcp: &Lcp,
        guess: &[f64],
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        check_guess(guess, lcp.dim())?;
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
        let n = lcp.dim();
        self.trace.clear();
        self.pivots = 0;
        self.refactors = 0;
        out.method = Method::Lemke;
        out.pivots = 0;
        out.iterations = 0;
        out.z.clear();
        out.z.resize(n, 0.0);
        out.w.clear();
        out.w.extend_from_slice(lcp.q());
        let params = self.params;
        let trivial = lcp.q().iter().all(|&x| x >= 0.0);
        // A warm start that certifies is the answer, even where `z = 0` is
        // one too (`q >= 0`): a problem with several answers keeps the
        // guess's (the event-driven stepper relies on it); otherwise the
        // cold start below runs as if it had not been tried (its pivots
        // count against the same limit).
        if let Some(basic) = warm.filter(|basic| basic.contains(&true)) {
            let outcome = self.attempt(lcp, out, params.zero_tolerance, Some(basic));
            if outcome.is_ok() && out.report.is_solution(RETRY_ABOVE) {
                out.pivots = self.pivots;
                out.iterations = self.refactors;
                return Ok(());
            }
            out.z.clear();
            out.z.resize(n, 0.0);
            out.w.clear();
            out.w.extend_from_slice(lcp.q());
        }
        if trivial {
            out.report = verify_into(lcp, &out.z, None, &mut self.scratch);
            return certified(out);
        }
        let mut outcome = self.attempt(lcp, out, params.zero_tolerance, None);
        let fallback = params.fallback_zero_tolerance;
        let retries = [
            fallback,
            fallback * 10.0,
            params.zero_tolerance / 10.0,
            params.zero_tolerance / 100.0,
            params.zero_tolerance / 1e5,
        ];
        for (i, tolerance) in retries.into_iter().enumerate() {
            let retry = match outcome {
                Ok(()) => !out.report.is_solution(RETRY_ABOVE),
                Err(Failure::Ray | Failure::Singular) => true,
                Err(Failure::Limit) => false,
            };
            if !retry || fallback <= 0.0 {
                break;
            }
            if tolerance == params.zero_tolerance || retries[..i].contains(&tolerance) {
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
        let pivots = self.pivots;
        match outcome {
            Ok(()) => certified(out),
            Err(Failure::Ray) => Err(LcpError::RayTermination {
                pivots,
                best: Some(Box::new(out.clone())),
            }),
            Err(Failure::Limit) => Err(LcpError::PivotLimit {
                pivots,
                best: Some(Box::new(out.clone())),
            }),
            Err(Failure::Singular) => Err(LcpError::SingularBasis { pivots }),
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
    /// coupling given a multiplier, as in the polyhedral-friction LCP of
    /// Stewart & Trinkle and Anitescu & Potra (Cline 2002 sec. 2.7.3; see
    /// `pyramid_lift.rs`). On contact problems (`M = J W J'` positive
    /// semidefinite, `q = J v` plus gap terms that some velocity satisfies)
    /// Lemke's method is known to finish with a solution (Stewart & Trinkle
    /// 1996), where Dantzig's pivoting may not; on a problem without a
    /// solution it ends on a ray (`RayTermination`). The answer is
    /// mapped back, `w = M z + q` recomputed and certified against the box
    /// problem (`out.report`, as by [`verify_box`](crate::verify_box)),
    /// returned only when its scaled error is at most `1e-9`: the
    /// friction bounds hold exactly at the returned normals. `pivots` and
    /// `iterations` are those of the standard form (of dimension up to
    /// `4 n`). A repeated solve of a problem of the same shape allocates
    /// nothing.
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
    /// basis that the box problem's `guess` suggests: each sign part of a
    /// row basic where `guess` has that sign, and the multiplier of a
    /// bound basic where `guess` is at that bound (a friction row at
    /// `mu z_j` of its normal's guess, within a relative 1e-9). A friction
    /// row whose normal is 0 in `guess` is taken at the bound its `w`
    /// pushes against. The answer of a nearby problem (the last time step)
    /// is a good guess; with friction coupling the standard form is only
    /// copositive-plus, and from a poor guess the path may end on a ray and
    /// hand over to the cold start (measured in the module source).
    ///
    /// # Errors
    ///
    /// [`LcpError::BadLength`] or [`LcpError::NonFinite`] for a bad
    /// `guess`; otherwise as [`Lemke::solve_box_into`].
    pub fn solve_box_warm_into(
        &mut self,
        problem: &BoxLcp,
        guess: &[f64],
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        check_guess(guess, problem.dim())?;
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
                let lcp = lift.build_warm(problem, (z, &self.guess_w), &mut basic);
                let r = self.solve_from(lcp, &mut lifted, Some(&basic));
                self.warm = basic;
                r
            }
            None => self.solve_from(lift.build(problem), &mut lifted, None),
        };
        let map = |x: &LcpSolution, out: &mut LcpSolution| {
            lift.box_z(&x.z, &mut out.z);
            finish_box_answer(problem, out);
            out.method = Method::Lemke;
            out.pivots = x.pivots;
            out.iterations = x.iterations;
        };
        let result = match result {
            Ok(()) => {
                // The standard form certified does not make the box
                // problem certified (their scales differ): check it.
                map(&lifted, out);
                certified(out)
            }
            Err(e) => {
                let mut boxed = |best: Option<Box<LcpSolution>>| {
                    best.map(|b| {
                        map(&b, out);
                        Box::new(out.clone())
                    })
                };
                Err(match e {
                    LcpError::RayTermination { pivots, best } => LcpError::RayTermination {
                        pivots,
                        best: boxed(best),
                    },
                    LcpError::PivotLimit { pivots, best } => LcpError::PivotLimit {
                        pivots,
                        best: boxed(best),
                    },
                    LcpError::NotCertified { best, .. } => {
                        let best = boxed(best);
                        LcpError::NotCertified {
                            error: best
                                .as_ref()
                                .map_or(f64::INFINITY, |b| b.report.scaled_max()),
                            tolerance: ACCEPT,
                            best,
                        }
                    }
                    other => other,
                })
            }
        };
        self.lift = lift;
        self.lifted = lifted;
        result
    }

    /// One run of Lemke's method with the given Harris tolerance. On success
    /// `out` holds the solution; on failure, the best iterate. Pivots and
    /// refactorisations are added to `self.pivots` and `self.refactors`.
    fn attempt(
        &mut self,
        lcp: &Lcp,
        out: &mut LcpSolution,
        zero_tolerance: f64,
        warm: Option<&[bool]>,
    ) -> Result<(), Failure> {
        let n = lcp.dim();
        let params = self.params;
        let limit = match warm {
            // A warm start from a good guess is short; a path longer than n
            // pivots is no shorter than the cold start's (contact
            // problems: n to 3n), which then gets the rest of the limit.
            Some(_) => params.pivot_limit(n).min(self.pivots + n),
            None => params.pivot_limit(n),
        };
        self.trace.clear();
        let t = &mut self.tableau;
        t.load(lcp);
        let z0 = t.z0();
        self.best_z.clear();
        self.best_z.resize(n, 0.0);
        if let Some(basic) = warm {
            t.warm_basis(lcp, basic);
            // The guessed basis may be the answer: solved afresh, it is
            // when it certifies; else the path starts from its tableau.
            if self.final_answer(lcp, out).is_ok() && out.report.is_solution(RETRY_ABOVE) {
                return Ok(());
            }
            self.refactors += 1;
            if self.tableau.refactor(lcp).is_err() {
                self.finish_best(lcp, out);
                return Err(Failure::Singular);
            }
        }
        let mut best_z0 = f64::INFINITY;
        let mut since_refactor = 0;

        let t = &mut self.tableau;
        let mut entering = z0;
        let mut next_row = Some(t.initial_row());
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
                self.refactors += 1;
                since_refactor = 0;
                if t.refactor(lcp).is_err() {
                    self.finish_best(lcp, out);
                    return Err(Failure::Singular);
                }
                t.entering_column(lcp, entering);
                row = t.leaving_row(params.pivot_tolerance, zero_tolerance);
            }
            let Some(r) = row else {
                self.finish_best(lcp, out);
                return Err(Failure::Ray);
            };
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
                self.refactors += 1;
                since_refactor = 0;
                if t.refactor(lcp).is_err() {
                    self.finish_best(lcp, out);
                    return Err(Failure::Singular);
                }
            }
            // Remember the iterate with the smallest z0: z0 is exactly the
            // largest violation of w >= 0 at an almost-complementary point
            // (in the scaled problem).
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

/// Checks a warm start's guess: length `n`, finite entries.
fn check_guess(guess: &[f64], n: usize) -> Result<(), LcpError> {
    if guess.len() != n {
        return Err(LcpError::BadLength {
            what: "guess",
            expected: n,
            found: guess.len(),
        });
    }
    match guess.iter().position(|x| !x.is_finite()) {
        Some(row) => Err(LcpError::NonFinite {
            what: "guess",
            row,
            col: 0,
        }),
        None => Ok(()),
    }
}

/// Why an attempt ended without a solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Failure {
    Ray,
    Limit,
    Singular,
}
