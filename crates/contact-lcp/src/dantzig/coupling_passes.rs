// The coupling passes of the Dantzig solver: fixed-bound box LCPs solved
// one after the other by the pivoting of pivot.rs (each first by the block
// guess of block_guess.rs where it applies), the friction radii of each
// pass set from the normals of the one before, up to their fixed point.
// Without coupling this is a single pass.
//
// Friction coupling (-mu z_j <= z_i <= mu z_j, z_j a normal row): as in
// ODE, the first pass solves the other rows with the friction rows held at
// 0; projected on its normals' bounds, it is the answer when it certifies
// at `COUPLING_PASS_ACCEPT` (no friction needed). Otherwise, from
// `COUPLED_GUESS_FROM` rows, the coupled guess (coupled_guess.rs) tries
// the whole problem; then the passes repeat with the friction bounds of
// the last normals until the radii change by at most `coupling_tolerance`
// (unlike ODE, which stops after the second pass): at that fixed point the
// projected z solves the coupled problem, and the certificate checks it.
// The iteration need not converge (a box about to tip); it then stops
// with `LcpError::CouplingLimit` and the best pass, and the policy falls
// back to Lemke.
//
// Warm starts: each pass starts from the one before (`Core::rerun`); before
// the second, each friction row starts at the bound that opposes its w, the
// way the contact slides. A pass that takes no pivot keeps the clamped set
// of the one before: the coupled guess restarted from it (at most
// `MAX_COUPLED_RESTARTS` times a solve) jumps to the fixed point.
//
// Relaxation: with d_k = mu z_j - r_k the step of pass k, r_(k+1) = r_k +
// omega_k d_k, and from the third pass on omega_k = -omega_(k-1)
// <d_(k-1), d_k - d_(k-1)> / |d_k - d_(k-1)|^2, clamped to [MIN_RELAX, 1]
// (Aitken's dynamic relaxation, after Irons & Tuck 1969, as used for
// fixed-point coupling by Kuettler & Wall 2008, Comput. Mech. 43): it
// damps passes that flip between two sets of sliding contacts. The stopping
// test reads the unrelaxed step d_k.

use super::block_guess::Outcome;
use super::pivot::{Settings, State, Stop};
use super::{Dantzig, DantzigEvent, DantzigStep};
use crate::block_pivoting::RowState;
use crate::box_problem::{BoxBounds, BoxLcp};
use crate::box_verify::{finish_box_answer, finish_box_answer_with};
use crate::error::LcpError;
use crate::problem::Lcp;
use crate::solution::{LcpSolution, Method};
use crate::tuning::MIN_RELAX;
use crate::tuning::{COUPLED_GUESS_FROM, COUPLED_GUESS_MAX, COUPLING_PASS_ACCEPT};
use crate::tuning::{FRICTION_START_W, MAX_COUPLED_RESTARTS, MAX_RESTART_GUESSES};
use crate::verify::ACCEPT;
use crate::verify::max_abs;

impl Dantzig {
    /// Solves `problem` by the passes (module comment) into `out`, with
    /// `w_tol` the absolute tolerance of a zero `w`; the first pass's block
    /// guess starts from `first` where given.
    pub(super) fn solve_by_passes(
        &mut self,
        problem: &BoxLcp,
        first: Option<&[RowState]>,
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
        // The first pass's bounds: the problem's, friction rows held at 0.
        self.lo.clear();
        self.lo.extend_from_slice(bounds.lo());
        self.hi.clear();
        self.hi.extend_from_slice(bounds.hi());
        for c in bounds.couplings() {
            self.lo[c.row] = 0.0;
            self.hi[c.row] = 0.0;
        }
        self.radius.clear();
        self.radius.resize(n, 0.0);
        let limit = params.pivot_limit(n);
        let guesses_apply = symmetric && n >= params.block_guess_from;
        let try_coupled_guess = coupled && guesses_apply && n >= COUPLED_GUESS_FROM;
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
        // Room for every restart's states: a repeated solve allocates nothing.
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
            let guessing = guesses_apply && (round == 1 || params.warm_start_rounds);
            let guess = if !guessing {
                Outcome::Cold
            } else if round == 1 {
                self.guess.run(&mut self.core, lcp, &set, first)
            } else {
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
                Outcome::Warm(guesses) => {
                    self.stats.block_guesses += guesses;
                    self.core.rerun(lcp, &set, trace)
                }
                // A guess that left no usable state: start from z = 0.
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
            // Aitken's relaxation of the radii (module comment).
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
            // A pass that kept the clamped set of the one before: the coupled
            // guess from it, unless it already failed from the same states.
            if round > 1
                && self.core.pivots == 0
                && self.core.appends == 0
                && self.core.removals == 0
                && restart_from_passes
                && restarts < MAX_COUPLED_RESTARTS
                && restart_guesses < MAX_RESTART_GUESSES
                && !self
                    .failed_restarts
                    .chunks_exact(n)
                    .any(|states| states == self.core.state.as_slice())
            {
                restarts += 1;
                let budget = MAX_RESTART_GUESSES - restart_guesses;
                let settled = self.solve_by_coupled_guess(problem, w_tol, Some(budget), out);
                restart_guesses += self.coupled_guess.guesses;
                if settled {
                    out.pivots = self.stats.pivots;
                    out.iterations = round;
                    return Ok(());
                }
                self.failed_restarts.extend_from_slice(&self.core.state);
            }
            if round == 1 {
                // The first pass, projected, is an exact answer when no
                // friction is needed (later passes stop by the radius test).
                out.z.clone_from(&self.core.z);
                finish_box_answer_with(problem, out, Some(&self.core.w));
                if out.report.is_solution(COUPLING_PASS_ACCEPT) {
                    certified = true;
                    break;
                }
                // The coupled guess leaves the pivoting's state as it is.
                if try_coupled_guess && self.solve_by_coupled_guess(problem, w_tol, None, out) {
                    out.pivots = self.stats.pivots;
                    return Ok(());
                }
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
        // Without symmetry a path can end with a row of the wrong sign: an
        // error, never an `Ok`.
        if !symmetric && !out.report.is_solution(ACCEPT) {
            let row = wrong_sign_row(problem, &out.z, &out.w).unwrap_or(0);
            return Err(LcpError::NoSolutionOnPath {
                row,
                pivots: out.pivots,
                best: Some(Box::new(out.clone())),
            });
        }
        Ok(())
    }

    /// Before the second coupling pass: each friction row at the bound that
    /// opposes its `w` (w > 0: lower, w < 0: upper) by more than
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

    /// Runs the coupled guess, from scratch or (with `Some(max_guesses)`)
    /// from the last pass's states; true when it settled on an answer that
    /// certifies to `COUPLING_PASS_ACCEPT`, then in `out` (`out` is
    /// overwritten either way; its `pivots` are left to the caller).
    fn solve_by_coupled_guess(
        &mut self,
        problem: &BoxLcp,
        w_tol: f64,
        from_pass: Option<usize>,
        out: &mut LcpSolution,
    ) -> bool {
        let guess = &mut self.coupled_guess;
        let states = from_pass.map(|_| self.core.state.as_slice());
        let max_guesses = from_pass.unwrap_or(COUPLED_GUESS_MAX);
        let tol = self.params.pivot_tolerance;
        let settled = guess.run(
            problem.lcp(),
            problem.bounds(),
            w_tol,
            tol,
            states,
            max_guesses,
        );
        let solved = settled && {
            out.z.clone_from(&guess.z);
            finish_box_answer(problem, out);
            out.method = Method::Dantzig;
            out.report.is_solution(COUPLING_PASS_ACCEPT)
        };
        if solved {
            out.iterations = 1;
            self.stats.block_guesses += guess.guesses;
        }
        if self.params.record_trace {
            self.trace.push(guess_step(guess.guesses, solved, true));
        }
        solved
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
