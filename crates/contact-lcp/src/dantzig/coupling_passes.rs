// The coupling passes of the Dantzig solver: fixed-bound box LCPs solved
// one after the other (each by the pivoting of pivot.rs, the first one
// also by the block guess of block_guess.rs), the friction radii of each
// pass set from the normals of the one before, up to their fixed point;
// the coupled guess (coupled_guess.rs) tried between them. Without
// coupling this is a single pass.
//
// Friction coupling (bounds -mu z_j <= z_i <= mu z_j with z_j a normal row):
// as ODE does, the normal rows (and every uncoupled row) are solved first
// with the coupled friction rows held at 0 (up to `small_guess_up_to`
// rows first by the small guess, mod.rs; from `block_guess_from` rows by
// the block guess, as an uncoupled problem: with the friction rows fixed
// it is a frictionless stack). That first pass is certified
// against the coupled problem (see below): on straight towers, settled or
// just released, no friction is needed and it is the answer. Problems of
// at most 16 rows whose first pass does not certify are first guessed
// whole (tiny_coupled.rs, from mod.rs) and reach these passes only when
// that guess hands over. Otherwise
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
// its bound) and the passes go on. These restarts run at every size (the
// coupled guess from scratch only from `block_guess_from` rows): on
// stacks of 2 and 3 sliding, spinning cubes (n = 24, 36; 200 of each,
// the stepper's problems) the passes alone ended in `CouplingLimit` on 13
// and 31, with restarts on 0 and 2, and the time of a solve fell from
// 21.8 to 13.7 us and from 56 to 39 us.
//
// Relaxation: the radii of a pass are not simply mu z_j of the pass
// before. With d_k = mu z_j - r_k the step of pass k, r_(k+1) = r_k +
// omega_k d_k, and from the third pass on omega_k = -omega_(k-1)
// <d_(k-1), d_k - d_(k-1)> / |d_k - d_(k-1)|^2, clamped to [1/8, 1]
// (Aitken's dynamic relaxation, after Irons & Tuck 1969, as used for
// fixed-point coupling by Kuettler & Wall 2008, "Fixed-point
// fluid-structure interaction solvers with dynamic relaxation", Comput.
// Mech. 43). On sliding stacks the plain passes often flip between two
// sets of sliding contacts (the radii changing by 6-13 % of ||z|| a pass
// without end); the factor falls below 1 there and the flip dies out,
// while a pass map that converges keeps omega = 1. The stopping test
// still reads the unrelaxed step d_k: at the end the radii are those of
// the returned normals. Measured on random sliding 20-box stacks (n =
// 240, 16 seeds): Dantzig alone certified 13 -> 15 (the 3 that flipped
// now settle in 13-49 passes, one that settled in 5 passes now flips);
// of the 12 both certify, pivots fell on 9 (3275 -> 648 at most), held
// on 1 and rose on 2 (676 -> 913, 1246 -> 1520).
//
// From `block_guess_from` rows (symmetric M), each pass after the first
// also starts with the block guess, from the states of the pass before
// (`BlockGuess::run_from_pass`): a pass changes the friction bounds of
// every sliding contact at once, which the one-row pivoting pays for with
// a pivot per row that moves (150-250 a pass on a sliding 20-box stack),
// where a guess exchanges them all together. When the guess hands over,
// the pivoting finishes from its last guess as on the first pass.
// Measured on random sliding 20-box stacks (n = 240, 12 seeds, loaded
// machine): Dantzig alone now certifies 9 of them in 5-12 passes (before:
// the same 9, in 5-37 passes with 2-6x the pivots), and the policy's
// capped attempt, which used to run out on every seed, answers 8 in
// 30-100 ms where Lemke took 210-380 ms; on the other 4 its failed
// attempt adds 0.1-0.25 s before Lemke answers. The settled stacks and
// towers, which certify at the first pass, do not see it.

use super::block_guess::Outcome;
use super::pivot::{Settings, State, Stop};
use super::{Dantzig, DantzigEvent, DantzigStep, accept_guess};
use crate::box_problem::{BoxBounds, BoxLcp};
use crate::box_verify::finish_box_answer;
use crate::error::LcpError;
use crate::problem::Lcp;
use crate::solution::LcpSolution;
use crate::tuning::FRICTION_START_W;
use crate::verify::max_abs;

/// Smallest relaxation factor of the radii: Aitken's estimate can drop
/// near 0 when the normals jump (a singular stack's contacts share their
/// load anew), which would stall the passes.
const MIN_RELAX: f64 = 0.125;

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
        let try_coupled_guess = coupled && guesses_apply;
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
            // factorisations (peers' friction_stack_50: 2734 pivots, 40 ms
            // -> 7 guesses, 1.0 ms), and it is accepted when it certifies.
            // When it does not (friction needed), the passes go on from
            // the guess's state as from the pivoting's.
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
                // one before, and the same guess would fail the same way
                // (measured on sliding stacks of 5-20 boxes: 7 of 16
                // failed restarts, 7 guesses each, repeated the failure
                // before).
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
                // The friction rows were held at 0 in the first pass (its
                // state for them says nothing): each starts the second at
                // the bound that opposes its w there, the way the contact
                // slides (w > 0: lower; w < 0: upper; about 0, sticking,
                // where it was), as the whole guess starts (tiny_coupled.rs).
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
        let settled = self
            .coupled_guess
            .run(problem.lcp(), problem.bounds(), w_tol);
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

/// Scaled error up to which a non-symmetric pivoting path's answer is
/// accepted (the pivoting's own answers certify at 1e-16..1e-13; a failed
/// path is off by 1e-3 and more).
const NON_SYMMETRIC_ACCEPT: f64 = 1e-9;

/// Scaled error up to which a settled coupled guess is accepted; above it
/// the coupling passes run. The pivoting's own bar, as
/// `SMALL_GUESS_ACCEPT` (mod.rs).
const COUPLED_GUESS_ACCEPT: f64 = COUPLING_PASS_ACCEPT;

/// Coupled guesses started from a pass's clamped set, at most, per solve;
/// a set that already failed in this solve is not tried again and not
/// counted. Each costs a few dense LUs, each about a pass with few pivots.
/// Measured on the stepper's sliding, spinning stacks of cubes (100 of 5
/// and 10 cubes, 30 of 20) against 3 restarts counted whether tried or
/// not: `CouplingLimit` 4 -> 0, 18 -> 1 and 4 -> 1; the policy, which
/// hands those to Lemke, 358 -> 328 us, 2.9 -> 2.2 ms and 23 -> 17 ms a
/// problem.
const MAX_COUPLED_RESTARTS: usize = 12;

/// Guesses of all the restarts of a solve, at most, before no more are
/// started (the last one gets what is left): the dense LUs they cost are
/// outside the pivot budget (`max_total_pivots`), so this keeps their
/// worst case where it was with 3 restarts of at most `MAX_GUESSES` (24)
/// guesses each (coupled_guess.rs).
const MAX_RESTART_GUESSES: usize = 72;

/// Scaled error up to which a coupling pass's answer is accepted before the
/// friction radii have settled (ten times stricter than the policy's
/// default tolerance, so a certified pass is never worse than what the
/// policy would accept; the pivoting's own answers measure 1e-16..1e-11).
pub(super) const COUPLING_PASS_ACCEPT: f64 = 1e-10;

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
