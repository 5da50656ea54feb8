// The block principal pivoting loop (Judice & Pires 1994, with the
// box and friction extensions of mod.rs), on any StepSystem.
//
// Each guess: plan the system (active_set.rs), factor it, solve
//     E_FF z_F = -(M z_B + q)_F
// with z_B the rows at a constant bound, set the folded friction rows from
// their normals, and compute w = M z + q. The rows that violate their
// guess are exchanged: all of them while their number keeps falling, or
// for BLOCK_TRIES more guesses when it does not; after that one row per
// guess, the largest violated index (Murty's rule), until the number
// falls below its best again. Judice & Pires prove this finite for a
// P-matrix, which the regularised M + shift I of a box problem without
// coupling is. A cold start with friction coupling first settles the
// frictionless problem (mod.rs), then counts afresh. A guess with no
// violated row is finished (projected on the
// bounds, w recomputed, certified against the unregularised problem);
// if the certificate refuses it, up to MAX_REFINEMENTS steps of iterative
// refinement with the same factor remove the shift's part of the error
// (each solves E_FF d = -w_F: w_F is the residual of the unshifted
// system).

use super::active_set::ActiveSet;
use super::system::StepSystem;
use super::{BlockPivotingParams, BlockPivotingStats, RowState};
use crate::box_verify::box_report;
use crate::error::LcpError;
use crate::solution::{LcpSolution, Method};
use crate::verify::scales;

/// Guesses without fewer violated rows before single exchanges (Judice &
/// Pires' p). Above their 3: on friction-coupled problems, whose system is
/// no P-matrix, single exchanges rarely finish, and cold starts of stacks
/// settle more often with longer block phases (measured: see the commit).
const BLOCK_TRIES: usize = 10;
/// Refinement steps after a settled guess whose answer does not certify.
const MAX_REFINEMENTS: usize = 3;
/// A row counts as violated only beyond this share of the caller's
/// tolerance (times the certificate's scale of `z` or of `w`), so that
/// rounding never exchanges a row and a settled guess certifies.
const EXCHANGE_SHARE: f64 = 1.0 / 16.0;

/// Workspace of the loop.
#[derive(Clone, Debug, Default)]
pub(super) struct Pivoting {
    pub(super) set: ActiveSet,
    z: Vec<f64>,
    w: Vec<f64>,
    rhs: Vec<f64>,
    /// The iterate with the fewest violated rows so far, and their number.
    best_z: Vec<f64>,
    best_violations: usize,
}

impl Pivoting {
    /// Solves the box LCP of `system` from `guess` (every row at its lower
    /// bound if `None`); see the module comment.
    pub(super) fn run<S: StepSystem>(
        &mut self,
        system: &mut S,
        params: &BlockPivotingParams,
        guess: Option<&[RowState]>,
        stats: &mut BlockPivotingStats,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        let n = system.dim();
        *stats = BlockPivotingStats {
            symbolic_factorizations: system.prepare(),
            ..BlockPivotingStats::default()
        };
        for v in [&mut self.z, &mut self.w, &mut self.rhs, &mut self.best_z] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.set.start(system.bounds(), guess);
        let shift = params.regularization * system.m_max_abs();
        let share = params.tolerance * EXCHANGE_SHARE;
        self.best_violations = usize::MAX;
        // Judice & Pires' ninf and p.
        let (mut fewest, mut tries) = (usize::MAX, BLOCK_TRIES);
        loop {
            if stats.solves == params.max_solves {
                return Err(self.failure(system, stats, "solve limit reached", out));
            }
            self.set.plan(system.bounds());
            stats.free_rows = self.set.free.len();
            if system.factor(&self.set, shift).is_err() {
                return Err(self.failure(system, stats, "singular guessed block", out));
            }
            stats.solves += 1;
            stats.folded_solves += usize::from(!self.set.folds.is_empty());
            self.solve_guess(system);
            if self.z.iter().any(|x| !x.is_finite()) {
                return Err(self.failure(system, stats, "singular guessed block", out));
            }
            let mut violations = self.scan(system, share);
            if self.set.holding {
                if violations == 0 {
                    // The frictionless pass settled: release the friction
                    // rows, and count the coupled problem's violations
                    // afresh.
                    self.set.release(system.bounds(), &self.w);
                    (fewest, tries) = (usize::MAX, BLOCK_TRIES);
                    continue;
                }
            } else {
                let mut refinements = 0;
                while violations == 0 {
                    finish(system, &self.z, out);
                    if out.report.is_solution(params.tolerance) {
                        out.pivots = stats.exchanges;
                        out.iterations = stats.solves;
                        return Ok(());
                    }
                    if refinements == MAX_REFINEMENTS {
                        let reason = "settled answer not certified";
                        return Err(self.failure(system, stats, reason, out));
                    }
                    self.refine(system);
                    refinements += 1;
                    stats.refinements += 1;
                    violations = self.scan(system, share);
                }
            }
            let single = if violations < fewest {
                fewest = violations;
                tries = BLOCK_TRIES;
                false
            } else if tries > 0 {
                tries -= 1;
                false
            } else {
                true
            };
            stats.exchanges += self.set.exchange(system.bounds(), &self.z, single);
            stats.single_exchanges += usize::from(single);
        }
    }

    /// Lists the rows of the current iterate that violate their guess
    /// (thresholds: `share` of the certificate's scales at this `z`), and
    /// keeps the iterate if it violates the fewest rows so far (of the
    /// coupled problem: not during the frictionless pass).
    fn scan<S: StepSystem>(&mut self, system: &S, share: f64) -> usize {
        let z_inf = self.z.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        let (scale, z_scale, _) = scales(system.m_max_abs(), z_inf, system.q_max_abs());
        let count = self.set.scan(
            system.bounds(),
            &self.z,
            &self.w,
            share * z_scale,
            share * scale,
        );
        if count < self.best_violations && !self.set.holding {
            self.best_violations = count;
            self.best_z.copy_from_slice(&self.z);
        }
        count
    }

    /// Solves the factored guess: `z` and `w = M z + q`.
    fn solve_guess<S: StepSystem>(&mut self, system: &mut S) {
        self.set.fixed_values(system.bounds(), &mut self.z);
        system.affine(&self.z, &mut self.w);
        for (r, &w) in self.rhs.iter_mut().zip(&self.w) {
            *r = -w;
        }
        system.solve(&self.set, &mut self.rhs);
        for &i in &self.set.free {
            self.z[i] = self.rhs[i];
        }
        self.set.unfold(&mut self.z);
        system.affine(&self.z, &mut self.w);
    }

    /// One step of iterative refinement of the free rows with the last
    /// factor: `E_FF d = -w_F`, `z_F += d`.
    fn refine<S: StepSystem>(&mut self, system: &mut S) {
        for (r, &w) in self.rhs.iter_mut().zip(&self.w) {
            *r = -w;
        }
        system.solve(&self.set, &mut self.rhs);
        for &i in &self.set.free {
            self.z[i] += self.rhs[i];
        }
        self.set.unfold(&mut self.z);
        system.affine(&self.z, &mut self.w);
    }

    /// The error for a solve that stops without a certified answer, with
    /// the iterate that had the fewest violated rows, finished.
    fn failure<S: StepSystem>(
        &self,
        system: &S,
        stats: &BlockPivotingStats,
        reason: &'static str,
        out: &mut LcpSolution,
    ) -> LcpError {
        finish(system, &self.best_z, out);
        out.pivots = stats.exchanges;
        out.iterations = stats.solves;
        LcpError::BlockPivotingFailed {
            solves: stats.solves,
            reason,
            best: Some(Box::new(out.clone())),
        }
    }
}

/// `out` from `z`: projected on the bounds (coupled rows on their final
/// normals), `w = M z + q`, certified.
fn finish<S: StepSystem>(system: &S, z: &[f64], out: &mut LcpSolution) {
    let bounds = system.bounds();
    out.z.clear();
    out.z.extend_from_slice(z);
    bounds.project(&mut out.z);
    out.w.clear();
    out.w.resize(z.len(), 0.0);
    system.affine(&out.z, &mut out.w);
    out.report = box_report(
        bounds,
        system.q_max_abs(),
        system.m_max_abs(),
        &out.z,
        &out.w,
        None,
    );
    out.method = Method::BlockPivoting;
}
