// A block principal pivoting guess of the final clamped set, tried before
// the one-row-at-a-time pivoting on large problems.
//
// Baraff's pivoting (pivot.rs) changes C by one row per pivot and pays two
// triangular solves with a k x k factor each time: on a dense problem with
// n = 1024 that is about 2 n pivots of O(k^2) memory-bound work, several
// times one dense Cholesky factorisation. Block principal pivoting (Kostreva
// 1978; Judice & Pires 1994, "A block principal pivoting algorithm for
// large-scale strictly monotone linear complementarity problems", Comput.
// Oper. Res. 21(5)) instead guesses all of C at once: with the rows outside
// C at a bound, solve M_CC z_C = -(q_C + M_CN z_N), compute w, and exchange
// every row that violates its bound or sign. For a positive definite M this
// usually ends in a handful of guesses, each one dense Cholesky of a k x k
// block (level-3 speed). Where Judice & Pires switch to Murty's one-row
// rule once the number of violated rows fails to drop for a few guesses
// (finite for P-matrices, but one factorisation per exchanged row), this
// hands the problem to the pivoting after `STALL` such guesses: measured on
// the frictionless 50-box stack (n = 200, singular), the Murty phase made
// the failed guess cost 30 % on top of the pivoting, the early hand-over
// 3 %.
//
// Redundant rows: a guessed block whose Cholesky meets a pivot L_ii^2 at
// most the pivoting's own singularity tolerance is rebuilt by appends that
// refuse the dependent rows, as the pivoting does (factor.rs). A refused row
// keeps z = 0; when its w then has the wrong sign (its q is not consistent
// with the rows it depends on, e.g. four contacts of a tilted face with
// different gap terms), no exchange of the guess can fix it.
//
// The guess is only a shortcut, for symmetric problems without friction
// coupling: on such a row, on a parked row with w != 0, or when the guesses
// stop settling, the caller runs the pivoting from z = 0 as before (measured
// on a frictionless 50-box stack, n = 200: 3 % on top of the pivoting). On
// success the core holds the answer, C and its Cholesky factor, and the
// rows at their bounds; the active block is left empty, as nothing pivots
// after it.

use super::pivot::{Core, Settings, State};
use crate::dense_kernels::dot;
use crate::problem::Lcp;
use faer::Par;
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt::factor::cholesky_in_place_scratch;

/// Most guesses before giving the problem to the pivoting.
const MAX_GUESSES: usize = 24;
/// Guesses without fewer violated rows before the hand-over.
const STALL: usize = 3;

/// Scratch of the guess (faer's Cholesky workspace).
pub(crate) struct BlockGuess {
    scratch: MemBuffer,
    scratch_dim: usize,
    /// Rows to exchange in the current guess.
    flips: Vec<usize>,
    /// Rows the last factorisation refused (dependent on the others).
    refused: Vec<usize>,
}

impl std::fmt::Debug for BlockGuess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockGuess")
            .field("scratch_dim", &self.scratch_dim)
            .finish_non_exhaustive()
    }
}

impl Default for BlockGuess {
    fn default() -> Self {
        Self {
            scratch: MemBuffer::new(StackReq::EMPTY),
            scratch_dim: 0,
            flips: Vec::new(),
            refused: Vec::new(),
        }
    }
}

impl Clone for BlockGuess {
    fn clone(&self) -> Self {
        // The scratch is a cache: a clone rebuilds it on first use.
        Self::default()
    }
}

impl BlockGuess {
    /// Tries the block guess on `core` (fixed bounds `set`); returns the
    /// number of guesses on success (the core then holds the solution and
    /// its factor), `None` when the pivoting must take over.
    pub(crate) fn run(&mut self, core: &mut Core, m: &Lcp, set: &Settings<'_>) -> Option<usize> {
        let n = m.dim();
        if self.scratch_dim < n {
            let req = cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default());
            self.scratch = MemBuffer::new(req);
            self.scratch_dim = n;
        }
        core.reset(n, true);
        // First guess: rows whose w = q already fits z = 0 at a bound stay
        // there; the others are clamped.
        for i in 0..n {
            let (lo, hi, q) = (set.lo[i], set.hi[i], m.q()[i]);
            core.state[i] = if lo >= hi {
                core.z[i] = lo;
                State::AtLo
            } else if lo == 0.0 && q >= 0.0 {
                State::AtLo
            } else if hi == 0.0 && q <= 0.0 {
                State::AtHi
            } else {
                State::Clamped
            };
        }
        let mut best = usize::MAX;
        let mut stalled = 0;
        for guess in 1..=MAX_GUESSES {
            if !self.solve_guess(core, m, set) {
                return None;
            }
            let violated = self.violations(core, set)?;
            if violated == 0 {
                return Some(guess);
            }
            if violated < best {
                best = violated;
                stalled = 0;
            } else {
                stalled += 1;
            }
            if stalled >= STALL {
                // Not settling: each further guess costs a factorisation,
                // the pivoting is the cheaper way from here.
                return None;
            }
            for &i in &self.flips {
                core.state[i] = match core.state[i] {
                    State::Clamped if core.z[i] < set.lo[i] => {
                        core.z[i] = set.lo[i];
                        State::AtLo
                    }
                    State::Clamped => {
                        core.z[i] = set.hi[i];
                        State::AtHi
                    }
                    _ => State::Clamped,
                };
            }
        }
        None
    }

    /// Factors `M_CC` for the clamped rows of `core.state` into the core's
    /// factor, solves for `z_C` and recomputes `w = M z + q`. False when the
    /// block is singular by the pivoting's tolerance.
    fn solve_guess(&mut self, core: &mut Core, m: &Lcp, set: &Settings<'_>) -> bool {
        let n = m.dim();
        // Parked rows are offered again: the rows they depended on may
        // have left C.
        for state in &mut core.state {
            if *state == State::Parked {
                *state = State::Clamped;
            }
        }
        core.factor.idx.clear();
        core.factor
            .idx
            .extend((0..n).filter(|&i| core.state[i] == State::Clamped));
        for i in 0..n {
            match core.state[i] {
                State::AtLo => core.z[i] = set.lo[i],
                State::AtHi => core.z[i] = set.hi[i],
                _ => {}
            }
        }
        let stack = MemStack::new(&mut self.scratch);
        core.factor
            .factor_block(m, set.pivot_tol, stack, &mut self.refused);
        // A refused (redundant) row keeps z = 0 where 0 is feasible, as the
        // pivoting leaves it: at a bound, or parked inside. For a contact
        // problem (M = J W J', q = J v) its w is then a combination of the
        // clamped rows' w = 0; if not, `violations` gives up.
        for &i in &self.refused {
            let z = 0.0_f64.max(set.lo[i]).min(set.hi[i]);
            core.z[i] = z;
            core.state[i] = if z <= set.lo[i] {
                State::AtLo
            } else if z >= set.hi[i] {
                State::AtHi
            } else {
                State::Parked
            };
        }
        let k = core.factor.len();
        // rhs = -(q_C + M_CN z_N), then z_C = M_CC^-1 rhs. Column by column
        // over the rows outside C with z != 0 (none on a plain LCP), so this
        // costs O(k) plus O(k) per such row.
        let rhs = &mut core.dz[..k];
        for (r, &i) in core.factor.idx.iter().enumerate() {
            rhs[r] = -m.q()[i];
        }
        for j in 0..n {
            let zj = core.z[j];
            if core.state[j] != State::Clamped && zj != 0.0 {
                let col = m.col(j);
                for (r, &i) in core.factor.idx.iter().enumerate() {
                    rhs[r] -= col[i] * zj;
                }
            }
        }
        core.factor.solve_in_place(rhs);
        for (r, &i) in core.factor.idx.iter().enumerate() {
            core.z[i] = rhs[r];
        }
        if core.z.iter().any(|z| !z.is_finite()) {
            return false;
        }
        // w only where `violations` reads it: a clamped row is judged by its
        // z (its w is 0 by the solve), so its O(n) product is skipped.
        for i in 0..n {
            core.w[i] = if core.state[i] == State::Clamped {
                0.0
            } else {
                m.q()[i] + dot(m.col(i), &core.z)
            };
        }
        true
    }

    /// Collects into `flips` the rows that break their bound (clamped) or
    /// sign (at a bound), and returns how many; `None` when a parked
    /// (refused) row has `w != 0`, which no exchange of the guess can fix.
    fn violations(&mut self, core: &Core, set: &Settings<'_>) -> Option<usize> {
        // Relative to the solution's own scale (problems in any units).
        let z_tol = 1e-12 * core.z.iter().fold(0.0_f64, |a, z| a.max(z.abs()));
        self.flips.clear();
        for i in 0..core.state.len() {
            let (lo, hi, w) = (set.lo[i], set.hi[i], core.w[i]);
            let bad = match core.state[i] {
                _ if lo >= hi => false,
                // A refused (dependent) row cannot join C in this guess:
                // a wrong sign of its w is beyond what an exchange fixes.
                State::AtLo if w < -set.w_tol && self.refused.contains(&i) => return None,
                State::AtHi if w > set.w_tol && self.refused.contains(&i) => return None,
                State::Clamped => core.z[i] < lo - z_tol || core.z[i] > hi + z_tol,
                State::AtLo => w < -set.w_tol,
                State::AtHi => w > set.w_tol,
                State::Parked if w.abs() > set.w_tol => return None,
                _ => false,
            };
            if bad {
                self.flips.push(i);
            }
        }
        Some(self.flips.len())
    }
}
