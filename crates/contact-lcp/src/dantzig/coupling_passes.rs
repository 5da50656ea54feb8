// The coupling passes of the Dantzig solver: fixed-bound box LCPs solved
// one after the other by the pivoting of pivot.rs (symmetric M, from
// `block_guess_from` rows: each pass first by the block guess of
// block_guess.rs),
// the friction radii of each pass set from the normals of the one before,
// up to their fixed point. Without coupling this is a single pass.
//
// Friction coupling (bounds -mu z_j <= z_i <= mu z_j with z_j a normal
// row): as ODE does, the first pass solves the normal rows (and every
// uncoupled row) with the coupled friction rows held at 0. That pass,
// projected on the bounds of its own normals, is certified against the
// coupled problem and accepted at `COUPLING_PASS_ACCEPT`: on straight
// towers, settled or just released, no friction is needed and it is the
// answer. Otherwise (symmetric M, from `COUPLED_GUESS_FROM` rows) the coupled guess
// (coupled_guess.rs) tries the whole coupled problem; when it hands over,
// the friction bounds are set from the solved normals and the problem is
// solved again with those bounds fixed. Unlike ODE, which stops there (its
// friction boxes are "frozen early" and violated by the normals of the
// second pass), this repeats until the radii mu z_j change by at most
// `coupling_tolerance` (relative): at that fixed point the projected z
// satisfies the coupled problem, and the certificate checks it. Later
// passes stop by the radius test only, since they are iterates of the
// fixed point, only as exact as the radii have settled.
//
// The fixed-point iteration is not guaranteed to converge (a normal force
// that depends strongly on friction, e.g. a box about to tip); it then
// stops after `max_coupling_rounds` with `LcpError::CouplingLimit` and the
// best round, and the policy (policy.rs) falls back to Lemke on the
// standard form, then to projected Gauss-Seidel.
//
// Warm starts: each pass after the first starts from the previous one
// (`Core::rerun`): rows at a bound follow their new bound and only rows
// made infeasible are driven again. Before the second pass each friction
// row starts at the bound that opposes its w at the first pass's answer,
// the way the contact slides. A pass that takes no pivot keeps the clamped
// set of the one before; from there on the passes only move the radii
// along one linear map, so the coupled guess is started from that clamped
// set (`run_from`, at most `MAX_COUPLED_RESTARTS` times a solve): its one
// folded solve is the map's fixed point.
//
// Relaxation: with d_k = mu z_j - r_k the step of pass k, r_(k+1) = r_k +
// omega_k d_k, and from the third pass on omega_k = -omega_(k-1)
// <d_(k-1), d_k - d_(k-1)> / |d_k - d_(k-1)|^2, clamped to [MIN_RELAX, 1]
// (Aitken's dynamic relaxation, after Irons & Tuck 1969, as used for
// fixed-point coupling by Kuettler & Wall 2008, Comput. Mech. 43). On
// sliding stacks the plain passes can flip between two sets of sliding
// contacts; the factor falls below 1 there and the flip dies out, while a
// pass map that converges keeps omega = 1. The stopping test reads the
// unrelaxed step d_k, so at the end the radii are those of the returned
// normals.

use super::block_guess::Outcome;
use super::pivot::{Settings, State, Stop};
use super::{Dantzig, DantzigEvent, DantzigStep, accept_guess};
use crate::box_problem::{BoxBounds, BoxLcp};
use crate::box_verify::{finish_box_answer, finish_box_answer_with};
use crate::error::LcpError;
use crate::problem::Lcp;
use crate::solution::LcpSolution;
use crate::tuning::COUPLED_GUESS_ACCEPT;
use crate::tuning::COUPLING_PASS_ACCEPT;
use crate::tuning::MAX_COUPLED_RESTARTS;
use crate::tuning::MAX_RESTART_GUESSES;
use crate::tuning::MIN_RELAX;
use crate::tuning::NON_SYMMETRIC_ACCEPT;
use crate::tuning::{COUPLED_GUESS_FROM, FRICTION_START_W};
use crate::verify::max_abs;

impl Dantzig {
    /// Sets `lo` and `hi` to the bounds of the first coupling pass: the
    /// problem's, with every coupled (friction) row held at 0.
    pub(super) fn hold_coupled_rows_at_zero(&mut self, bounds: &BoxBounds) {
        self.lo.clear();
        self.lo.extend_from_slice(bounds.lo());
        self.hi.clear();
        self.hi.extend_from_slice(bounds.hi());
        for c in bounds.couplings() {
            self.lo[c.row] = 0.0;
            self.hi[c.row] = 0.0;
        }
    }

    /// Solves `problem` by the passes (module comment) into `out`, with
    /// `w_tol` the absolute tolerance of a zero `w`.
    pub(super) fn solve_by_passes(
        &mut self,
        problem: &BoxLcp,
        out: &mut LcpSolution,
        w_tol: f64,
    ) -> Result<(), LcpError> {
        let params = self.params;
        let n = problem.dim();
        let lcp = problem.lcp();
        let m_norm = lcp.m_max_abs();
        let symmetric = lcp.is_symmetric();
        let bounds = problem.bounds();
        let coupled = !bounds.couplings().is_empty();
        // Uncoupled rows first (normals before friction), each in index order.
        self.order.clear();
        self.order
            .extend((0..n).filter(|&i| bounds.coupling_of(i).is_none()));
        self.order
            .extend((0..n).filter(|&i| bounds.coupling_of(i).is_some()));
        self.hold_coupled_rows_at_zero(bounds);
        self.radius.clear();
        self.radius.resize(n, 0.0);
        let limit = params.pivot_limit(n);
        // The block guesses (of a pass, and of the coupled problem from
        // scratch) need a symmetric M and enough rows to pay off.
        let guesses_apply = symmetric && n >= params.block_guess_from;
        // The coupled guess from scratch pays only on larger problems: on
        // small sliding ones it mostly hands over (COUPLED_GUESS_FROM).
        let try_coupled_guess = coupled && guesses_apply && n >= COUPLED_GUESS_FROM;
        // The coupled guess from a pass that kept its clamped set, at any
        // size: one folded solve where the passes would go on converging
        // linearly, or flip between two sets of sliding contacts (module
        // comment).
        let restart_from_passes = coupled && symmetric && params.block_guess_from != usize::MAX;
        let max_rounds = if coupled {
            params.max_coupling_rounds.max(2)
        } else {
            1
        };
        let mut best_change = f64::INFINITY;
        let mut relax = 1.0_f64;
        self.last_step.clear();
        self.last_step.resize(bounds.couplings().len(), 0.0);
        let mut change = f64::INFINITY;
        let mut certified = false;
        let (mut restarts, mut restart_guesses) = (0, 0);
        self.failed_restarts.clear();
        // Room for every restart's states: a repeated solve allocates
        // nothing, whatever fails.
        self.failed_restarts.reserve(MAX_COUPLED_RESTARTS * n);
        for round in 1..=max_rounds {
            // What is left of the solve's own budget bounds this pass too.
            let left = params.max_total_pivots.saturating_sub(self.stats.pivots);
            let set = Settings {
                lo: &self.lo,
                hi: &self.hi,
                order: &self.order,
                pivot_tol: params.pivot_tolerance * m_norm,
                w_tol,
                max_pivots: limit.min(left),
                symmetric,
            };
            let mut trace = params.record_trace.then_some(&mut self.trace);
            // With couplings too: the first pass (friction rows held at 0)
            // is a frictionless stack, where the guess settles in a few
            // factorisations. When its answer does not certify (friction
            // needed), the passes go on from the guess's state.
            let guessing = guesses_apply && (round == 1 || params.warm_start_rounds);
            let guess = if !guessing {
                Outcome::Cold
            } else if round == 1 {
                self.guess.run(&mut self.core, lcp, &set)
            } else {
                // Later passes too, from the states of the pass before
                // (module comment).
                self.guess.run_from_pass(&mut self.core, lcp, &set)
            };
            if let Some(trace) = trace.as_deref_mut() {
                match guess {
                    Outcome::Solved(guesses) => trace.push(guess_step(guesses, true, false)),
                    Outcome::Warm(guesses) => trace.push(guess_step(guesses, false, false)),
                    Outcome::Cold => {}
                }
            }
            let run = match guess {
                Outcome::Solved(guesses) => {
                    self.stats.block_guesses += guesses;
                    Ok(())
                }
                // The pivoting finishes from the last guess: only its rows
                // out of bounds or of the wrong sign are driven again.
                Outcome::Warm(guesses) => {
                    self.stats.block_guesses += guesses;
                    self.core.rerun(lcp, &set, trace)
                }
                // A guess that gave a non-finite z left no usable state:
                // the pivoting starts from z = 0, as on a first pass.
                Outcome::Cold if round == 1 || !params.warm_start_rounds || guessing => {
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
            let (mut num, mut den) = (0.0, 0.0);
            for (t, c) in bounds.couplings().iter().enumerate() {
                let d = c.mu * z[c.normal_row].max(0.0) - self.radius[c.row];
                change = f64::max(change, d.abs() / z_norm);
                let dd = d - self.last_step[t];
                num += self.last_step[t] * dd;
                den += dd * dd;
                self.last_step[t] = d;
            }
            // Aitken's relaxation of the radii (module comment): the step
            // of this pass against the one before gives the factor.
            if round >= 3 && den > 0.0 {
                relax = (-relax * num / den).clamp(MIN_RELAX, 1.0);
            }
            for (t, c) in bounds.couplings().iter().enumerate() {
                let r = (self.radius[c.row] + relax * self.last_step[t]).max(0.0);
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
                && restart_from_passes
                && restarts < MAX_COUPLED_RESTARTS
                && restart_guesses < MAX_RESTART_GUESSES
                // A pass that took no pivot often keeps the states of the
                // one before, and the same guess would fail the same way.
                && !self
                    .failed_restarts
                    .chunks_exact(n)
                    .any(|states| states == self.core.state.as_slice())
            {
                restarts += 1;
                let budget = MAX_RESTART_GUESSES - restart_guesses;
                let settled = self.solve_by_coupled_guess_from_pass(problem, w_tol, budget, out);
                restart_guesses += self.coupled_guess.guesses;
                if settled {
                    out.pivots = self.stats.pivots;
                    out.iterations = round;
                    return Ok(());
                }
                self.failed_restarts.extend_from_slice(&self.core.state);
            }
            if round == 1 {
                // The first pass, projected on the bounds of its own
                // normals, is an exact pivoting answer when no friction is
                // needed: accept it if it certifies. (Later passes are
                // iterates of the fixed point, only as exact as the radii
                // have settled: they stop by the radius test.)
                out.z.clone_from(&self.core.z);
                finish_box_answer_with(problem, out, Some(&self.core.w));
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
                // The friction rows were held at 0 in the first pass (its
                // state for them says nothing): each starts the second at
                // the bound that opposes its w there, the way the contact
                // slides (w > 0: lower; w < 0: upper; about 0, sticking,
                // where it was).
                // At its lower bound, every friction row was driven across
                // its whole range when it slides the other way. (A cold
                // second pass starts from z = 0 and reads no state.)
                if params.warm_start_rounds {
                    self.start_friction_against_w(lcp, bounds);
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
        finish_box_answer_with(problem, out, Some(&self.core.w));
        // Without symmetry nothing proves that a row refused into C (its
        // Schur complement not positive) keeps a complementary w: such a
        // path can end with a row at a bound whose w has the wrong sign.
        // That answer is an error, never an `Ok`.
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

    /// Before the second coupling pass: each coupled (friction) row at the
    /// bound that opposes its `w` at the first pass's answer, by more than
    /// `FRICTION_START_W` of `||q||`; the others keep their state.
    fn start_friction_against_w(&mut self, lcp: &Lcp, bounds: &BoxBounds) {
        let push = FRICTION_START_W * lcp.q_max_abs();
        let core = &mut self.core;
        let symmetric = lcp.is_symmetric();
        for c in bounds.couplings() {
            let i = c.row;
            // Held at lo = hi = 0, the row was never driven or clamped.
            debug_assert!(
                !matches!(core.state[i], State::Clamped | State::Parked),
                "friction row {i} in C after the first pass"
            );
            // core.w may not hold it for these fixed rows.
            let w = lcp.affine_row(i, &core.z, symmetric);
            if w > push {
                core.state[i] = State::AtLo;
            } else if w < -push {
                core.state[i] = State::AtHi;
            }
        }
    }

    /// Records the coupled guess just run in the trace, if one is kept.
    fn trace_coupled_guess(&mut self, solved: bool) {
        if self.params.record_trace {
            let guesses = self.coupled_guess.guesses;
            self.trace.push(guess_step(guesses, solved, true));
        }
    }

    /// Puts the coupled guess's settled `z` in `out` with its certificate;
    /// true when it certifies to `COUPLED_GUESS_ACCEPT`.
    fn accept_coupled_guess(&self, problem: &BoxLcp, out: &mut LcpSolution) -> bool {
        accept_guess(problem, &self.coupled_guess.z, COUPLED_GUESS_ACCEPT, out)
    }

    /// Runs the coupled guess; true when it settled on an answer that
    /// certifies, then in `out` (its `pivots` left to the caller; `out` is
    /// overwritten either way).
    fn solve_by_coupled_guess(
        &mut self,
        problem: &BoxLcp,
        w_tol: f64,
        out: &mut LcpSolution,
    ) -> bool {
        let settled = self.coupled_guess.run(
            problem.lcp(),
            problem.bounds(),
            w_tol,
            self.params.pivot_tolerance,
        );
        let solved = settled && self.accept_coupled_guess(problem, out);
        self.trace_coupled_guess(solved);
        if solved {
            // Added to the first pass's block guesses, if any.
            self.stats.block_guesses += self.coupled_guess.guesses;
            self.stats.rounds = 1;
            return true;
        }
        false
    }

    /// Runs the coupled guess from the clamped set of the last coupling
    /// pass, with at most `max_guesses` guesses; true when it settled on an
    /// answer that certifies, then in `out` (`out` is overwritten either
    /// way; the passes' state is kept).
    fn solve_by_coupled_guess_from_pass(
        &mut self,
        problem: &BoxLcp,
        w_tol: f64,
        max_guesses: usize,
        out: &mut LcpSolution,
    ) -> bool {
        let settled = self.coupled_guess.run_from(
            problem.lcp(),
            problem.bounds(),
            w_tol,
            self.params.pivot_tolerance,
            &self.core.state,
            max_guesses,
        );
        let solved = settled && self.accept_coupled_guess(problem, out);
        self.trace_coupled_guess(solved);
        if solved {
            self.stats.block_guesses += self.coupled_guess.guesses;
            return true;
        }
        false
    }
}

/// The trace step of a run of block guesses.
fn guess_step(guesses: usize, solved: bool, coupled: bool) -> DantzigStep {
    DantzigStep {
        driven: usize::MAX,
        event: DantzigEvent::BlockGuess {
            guesses,
            solved,
            coupled,
        },
        step: 0.0,
    }
}

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
