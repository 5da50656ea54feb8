// A block principal pivoting guess of the final clamped set, tried before
// the one-row-at-a-time pivoting on large problems.
//
// Baraff's pivoting (pivot.rs) changes C by one row per pivot and pays two
// triangular solves with a k x k factor each time: O(n) pivots of O(k^2)
// memory-bound work. Block principal pivoting (Kostreva 1978; Judice &
// Pires 1994, "A block principal pivoting algorithm for large-scale
// strictly monotone linear complementarity problems", Comput. Oper. Res.
// 21(5)) instead guesses all of C at once: with the rows outside C at a
// bound, solve M_CC z_C = -(q_C + M_CN z_N), compute w, and exchange every
// row that violates its bound or sign. For a positive definite M this
// usually ends in a handful of guesses, each one dense Cholesky of a k x k
// block (level-3 speed). Where Judice & Pires switch to Murty's one-row
// rule once the number of violated rows fails to drop for a few guesses,
// this hands the problem to the pivoting after `BLOCK_GUESS_STALL` such
// guesses. A guess that exchanges a single row is not counted as a stall:
// it is Murty's step already, and it costs an update of the factor
// (`update_factor`), not a factorisation. `BLOCK_GUESS_MAX` bounds them.
//
// First guess: the rows whose q fits z = 0 at a bound by more than
// `RESTING_Q` ||q||_inf stay there, all others (q = 0 included: a resting
// contact) are clamped; on a stack every resting contact carries load
// once the rows below it push.
//
// Redundant rows (singular PSD M): a guessed block whose Cholesky meets a
// pivot L_ii^2 at most the pivoting's own singularity tolerance
// (`pivot_tolerance`) is factored again leaving the dependent rows out, as
// the pivoting does (linalg/cholesky.rs). A refused row i keeps z_i = 0
// (at its bound, or parked inside it). Why that still gives a solution:
// its Schur complement s = M_ii - M_iC M_CC^-1 M_Ci is 0, so x = e_i - a
// with a = M_CC^-1 M_Ci has x'M x = s = 0, and for a PSD M that means
// M x = 0: column i of M is M_:C a on every row. Hence z_i can be held at
// 0 without changing what the other rows can reach, and since
// x'(M z + q) = x'q for every z, once w_C = 0 its w_i = x'q = q_i - a'q_C
// is a constant of the problem: 0 for consistent contacts, and then row i
// is complementary at z_i = 0. When the gap terms of a face are not
// consistent, w_i has one sign, and when it is the wrong one no flip of
// row i alone can help; the exchange is the pivoting's own move for a row
// with zero Schur complement (pivot.rs): move z_i off its bound in the
// direction s = -sign(w_i) and z_C by -t s a (w does not change, as
// M x = 0) until the first clamped row r of the group reaches a bound
// (`partner`, a ratio test); r leaves C for that bound and i joins C. Then
// x'w = x'q gives -a_r w_r = w_i, so w_r has the right sign at either
// bound. Numerically s is only at most the tolerance, so a dependent
// row's w is off 0 by rounding beyond the pivoting's `w_tol`: the guess
// decides its exchanges with the looser `DEPENDENT_W` (relative to the
// certificate's scale) for every row at a bound, and accepts only an
// answer that meets `w_tol` everywhere: once settled within the slack, a
// strict phase exchanges the rows still off by more than `w_tol`,
// factoring the rows that join C first, so that a dependent group refuses
// another of its rows.
//
// The guess never returns an answer looser than the pivoting's. When the
// guesses stop settling, or a dependent row of the wrong sign has no
// partner, the last guess is a consistent state (C factored with z_C
// solved, every other row at a bound or parked) and the pivoting finishes
// from it with `Core::rerun`, driving only the rows out of bounds or of
// the wrong sign.
//
// Later coupling passes (coupling_passes.rs) start the guesses from the
// states of the pass before (`run_from_pass`) instead of from q. On
// success the core holds the answer, C and its Cholesky factor, and the
// rows at their bounds; the pivoting rebuilds its active block from C
// when it starts (`Core::rerun`).

use super::pivot::{Core, Settings, State};
use crate::linalg::faer_scratch::FaerScratch;
use crate::problem::Lcp;
use crate::tuning::BLOCK_GUESS_MAX;
use crate::tuning::BLOCK_GUESS_STALL;
use crate::tuning::DEPENDENT_W;
use crate::tuning::RESTING_Q;
use crate::tuning::UPDATE_AT_MOST;
use crate::verify::max_abs;

/// How the guess ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Solved after this many guesses: no pivoting needed.
    Solved(usize),
    /// The last of this many guesses is left for the pivoting to finish
    /// (`Core::rerun`): the guesses stopped settling, or met a dependent
    /// row whose w they cannot fix.
    Warm(usize),
    /// No usable state (a non-finite `z`): the pivoting starts from z = 0.
    Cold,
}

/// Exchanges the rows `flips` (clamped rows go to the bound they broke,
/// rows at a bound join C) and lists the rows joining C in `priority`.
fn continue_flips(
    core: &mut Core,
    set: &Settings<'_>,
    flips: &[usize],
    leaving: &[(usize, bool)],
    priority: &mut Vec<usize>,
) {
    priority.clear();
    for &i in flips {
        core.state[i] = match core.state[i] {
            State::Clamped if core.z[i] < set.lo[i] => {
                core.z[i] = set.lo[i];
                State::AtLo
            }
            State::Clamped => {
                core.z[i] = set.hi[i];
                State::AtHi
            }
            _ => {
                priority.push(i);
                State::Clamped
            }
        };
    }
    for &(r, upper) in leaving {
        if core.state[r] == State::Clamped {
            core.state[r] = if upper { State::AtHi } else { State::AtLo };
            core.z[r] = if upper { set.hi[r] } else { set.lo[r] };
        }
    }
}

/// Scratch of the guess (faer's Cholesky workspace).
#[derive(Clone, Debug, Default)]
pub(crate) struct BlockGuess {
    scratch: FaerScratch,
    /// Rows to exchange in the current guess.
    flips: Vec<usize>,
    /// Rows the last factorisation refused (dependent on the others).
    refused: Vec<usize>,
    /// Scratch of `update_factor`: whether a row is in the factored C.
    member: Vec<bool>,
    /// Rows that joined C in the last exchange: factored first, so a
    /// dependent group refuses one of its other rows.
    priority: Vec<usize>,
    /// Clamped rows leaving C for a dependent row of the wrong sign, and
    /// whether they go to their upper bound.
    leaving: Vec<(usize, bool)>,
    /// Dependent rows of the wrong sign exchanged in this guess.
    exchanging: Vec<usize>,
    /// Scratch of `run_from_pass`: whether a row was clamped at the end of
    /// the last pass.
    pass_clamped: Vec<bool>,
    /// `M_CC^-1 M_Ci` of each of them, k entries in the factor's order.
    dependency: Vec<f64>,
}

/// Judice & Pires' watch on a block guess: how many guesses in a row have
/// not lowered the number of violated rows (shared with coupled_guess.rs).
#[derive(Clone, Copy, Debug)]
pub(super) struct Progress {
    best: usize,
    stalled: usize,
}

impl Default for Progress {
    fn default() -> Self {
        Self {
            best: usize::MAX,
            stalled: 0,
        }
    }
}

impl Progress {
    /// Records a guess with `violated` rows; returns the guesses in a row
    /// without a new lowest count (0 after a new lowest).
    #[inline(always)]
    pub(super) fn stalled_after(&mut self, violated: usize) -> usize {
        if violated < self.best {
            self.best = violated;
            self.stalled = 0;
        } else {
            self.stalled += 1;
        }
        self.stalled
    }
}

impl BlockGuess {
    /// Tries the block guess on `core` (fixed bounds `set`). On
    /// [`Outcome::Solved`] the core holds the solution and its factor; on
    /// [`Outcome::Warm`] it holds the last guess, a consistent state (C
    /// factored, `z_C` solved, every other row at a bound or parked) for the
    /// pivoting to finish with `Core::rerun`.
    pub(crate) fn run(&mut self, core: &mut Core, m: &Lcp, set: &Settings<'_>) -> Outcome {
        let n = m.dim();
        core.reset(n, true);
        // First guess: rows whose w = q strictly fits z = 0 at a bound stay
        // there; the others are clamped. A row with q = 0 (a resting contact
        // whose bodies move together) is clamped: on a stack every such
        // contact carries load once the rows below it push, and leaving them
        // at 0 made the guesses climb one box per factorisation.
        let resting = RESTING_Q * max_abs(m.q());
        for i in 0..n {
            let (lo, hi, q) = (set.lo[i], set.hi[i], m.q()[i]);
            core.state[i] = if lo >= hi {
                core.z[i] = lo;
                State::AtLo
            } else if lo == 0.0 && q > resting {
                State::AtLo
            } else if hi == 0.0 && q < -resting {
                State::AtHi
            } else {
                State::Clamped
            };
        }
        self.guesses(core, m, set)
    }

    /// Tries the block guess on `core` from the states of the last
    /// coupling pass, whose bounds differ (module comment, "Later coupling
    /// passes"): clamped rows stay clamped, rows at a finite bound follow
    /// it, fixed rows (`lo >= hi`) stay at lo and every other row starts
    /// clamped. Outcomes as `run`'s. The core's `appends` and `removals`
    /// count the rows that joined or left C against the last pass, so a
    /// pass the guess solves without changing C reads as one that took no
    /// pivot (the coupling passes watch for that).
    pub(crate) fn run_from_pass(
        &mut self,
        core: &mut Core,
        m: &Lcp,
        set: &Settings<'_>,
    ) -> Outcome {
        self.pass_clamped.clear();
        self.pass_clamped
            .extend(core.state.iter().map(|&s| s == State::Clamped));
        for i in 0..m.dim() {
            let (lo, hi) = (set.lo[i], set.hi[i]);
            core.state[i] = match core.state[i] {
                _ if lo >= hi => {
                    core.z[i] = lo;
                    State::AtLo
                }
                State::AtLo if lo > f64::NEG_INFINITY => State::AtLo,
                State::AtHi if hi < f64::INFINITY => State::AtHi,
                _ => State::Clamped,
            };
        }
        let outcome = self.guesses(core, m, set);
        core.pivots = 0;
        core.rejections = 0;
        core.appends = 0;
        core.removals = 0;
        for (&was, &now) in self.pass_clamped.iter().zip(&core.state) {
            match (was, now == State::Clamped) {
                (false, true) => core.appends += 1,
                (true, false) => core.removals += 1,
                _ => {}
            }
        }
        outcome
    }

    /// The guesses from the states in `core` (module comment).
    fn guesses(&mut self, core: &mut Core, m: &Lcp, set: &Settings<'_>) -> Outcome {
        let mut progress = Progress::default();
        let mut strict = false;
        // Every list holds at most one entry a row and `dependency` at most
        // n columns of the factor: reserved up front (untouched memory
        // until used), so that no later solve of this size allocates.
        let n = m.dim();
        for list in [&mut self.flips, &mut self.exchanging, &mut self.priority] {
            list.clear();
            list.reserve(n);
        }
        self.leaving.clear();
        self.leaving.reserve(n);
        self.dependency.clear();
        self.dependency.reserve(n * n);
        for guess in 1..=BLOCK_GUESS_MAX {
            if !self.solve_guess(core, m, set, guess > 1, strict) {
                return Outcome::Cold;
            }
            let Some((violated, exact)) = self.violations(core, m, set, strict) else {
                return Outcome::Warm(guess);
            };
            if violated == 0 {
                if exact {
                    return Outcome::Solved(guess);
                }
                // Settled within the slack: exchange the rows still off
                // by more than w_tol, now clamping them first.
                strict = true;
                progress = Progress::default();
                if self.violations(core, m, set, true).is_none() {
                    return Outcome::Warm(guess);
                }
                continue_flips(core, set, &self.flips, &self.leaving, &mut self.priority);
                continue;
            }
            // A single exchange is a pivot of Murty's rule done as an
            // update of the factor: not a stall (BLOCK_GUESS_MAX bounds it).
            if violated > 1 && progress.stalled_after(violated) >= BLOCK_GUESS_STALL {
                // Not settling: each further guess costs a factorisation,
                // the pivoting is the cheaper way from here.
                return Outcome::Warm(guess);
            }
            continue_flips(core, set, &self.flips, &self.leaving, &mut self.priority);
        }
        Outcome::Warm(BLOCK_GUESS_MAX)
    }

    /// Brings the factor of the last guess's C to the clamped rows of
    /// `core.state` by removals and appends (linalg/cholesky.rs; a refused append
    /// goes to `refused`, the rule `factor_block` applies) when few rows
    /// changed; false, with the factor untouched, when refactoring is
    /// cheaper. In the `strict` phase also false, with the factor half
    /// updated (the caller then refactors from scratch), when a row that
    /// joins C (`priority`) would be refused: the strict phase wants it
    /// factored first (module comment). A removal or an append costs
    /// O(k^2) against O(k^3 / 3) for a factorisation, but the
    /// factorisation runs at level-3 speed, so only small exchanges
    /// (`UPDATE_AT_MOST`) are updated.
    fn update_factor(
        &mut self,
        core: &mut Core,
        m: &Lcp,
        set: &Settings<'_>,
        strict: bool,
    ) -> bool {
        let n = m.dim();
        self.member.clear();
        self.member.resize(n, false);
        for &i in &core.factor.idx {
            self.member[i] = true;
        }
        let leaving = core
            .factor
            .idx
            .iter()
            .filter(|&&i| core.state[i] != State::Clamped)
            .count();
        let entering = (0..n)
            .filter(|&i| core.state[i] == State::Clamped && !self.member[i])
            .count();
        if UPDATE_AT_MOST * (leaving + entering) > core.factor.len() {
            return false;
        }
        self.refused.clear();
        // From the end: a removal moves only the positions after it.
        for p in (0..core.factor.len()).rev() {
            if core.state[core.factor.idx[p]] != State::Clamped {
                core.factor.remove(p);
            }
        }
        for i in 0..n {
            if core.state[i] == State::Clamped
                && !self.member[i]
                && !core.factor.try_append(m, i, set.pivot_tol)
            {
                if strict && self.priority.contains(&i) {
                    return false;
                }
                self.refused.push(i);
            }
        }
        true
    }

    /// Lists C (the clamped rows of `core.state`) in the factor's order and
    /// returns how many leading positions hold the same rows as the last
    /// factor (whose columns `factor_block` keeps). With `reuse`, the rows
    /// of the last factor still clamped, in their order, then those that
    /// join in index order; otherwise (the first guess, the strict phase)
    /// the rows that joined C in the last exchange (`priority`) first, so
    /// that a dependent group refuses another of its rows, then the others
    /// in index order.
    fn order_block(&mut self, core: &mut Core, reuse: bool) -> usize {
        let n = core.state.len();
        self.member.clear();
        self.member.resize(n, false);
        let idx = &mut core.factor.idx;
        let mut kept = 0;
        if reuse {
            kept = idx.len();
            let mut to = 0;
            for p in 0..idx.len() {
                let i = idx[p];
                if core.state[i] == State::Clamped {
                    idx[to] = i;
                    to += 1;
                    self.member[i] = true;
                } else {
                    kept = kept.min(p);
                }
            }
            idx.truncate(to);
        } else {
            idx.clear();
            for &i in &self.priority {
                if core.state[i] == State::Clamped {
                    idx.push(i);
                    self.member[i] = true;
                }
            }
        }
        let member = &self.member;
        idx.extend((0..n).filter(|&i| core.state[i] == State::Clamped && !member[i]));
        kept
    }

    /// Factors `M_CC` for the clamped rows of `core.state` into the core's
    /// factor (with `update`, by updating the last guess's factor when few
    /// rows changed), solves for `z_C` and recomputes `w = M z + q` outside
    /// C. False when `z` is not finite.
    fn solve_guess(
        &mut self,
        core: &mut Core,
        m: &Lcp,
        set: &Settings<'_>,
        update: bool,
        strict: bool,
    ) -> bool {
        let n = m.dim();
        // Parked rows are offered again: the rows they depended on may
        // have left C.
        for state in &mut core.state {
            if *state == State::Parked {
                *state = State::Clamped;
            }
        }
        for i in 0..n {
            match core.state[i] {
                State::AtLo => core.z[i] = set.lo[i],
                State::AtHi => core.z[i] = set.hi[i],
                _ => {}
            }
        }
        if !(update && self.update_factor(core, m, set, strict)) {
            let kept = self.order_block(core, update && !strict);
            core.factor
                .factor_block(m, set.pivot_tol, kept, &mut self.scratch, &mut self.refused);
        }
        // A refused (redundant) row keeps z = 0 where 0 is feasible, as the
        // pivoting leaves it: at a bound, or parked inside. Its w is then
        // q_i - a'q_C (module comment), judged by `violations`.
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
        // w = M z + q on every row, column by column over the nonzero z
        // (`violations` reads it only outside C: a clamped row is judged
        // by its z).
        m.affine(&core.z, &mut core.w);
        true
    }

    /// Collects into `flips` the rows that break their bound (clamped) or
    /// the sign of their `w` (at a bound) by more than the loose tolerance
    /// `DEPENDENT_W` of the certificate's scale (`w_tol` if `strict`), and
    /// returns how many, with whether every row also meets the pivoting's
    /// own `w_tol`. A refused (dependent) or parked row of the wrong sign
    /// joins C with a partner leaving it (`leaving`; module comment);
    /// `None` when it has none.
    fn violations(
        &mut self,
        core: &Core,
        m: &Lcp,
        set: &Settings<'_>,
        strict: bool,
    ) -> Option<(usize, bool)> {
        // Relative to the solution's own scale (problems in any units).
        let z_inf = max_abs(&core.z);
        let z_tol = 1e-12 * z_inf;
        let loose = if strict {
            set.w_tol
        } else {
            set.w_tol
                .max(DEPENDENT_W * (m.m_max_abs() * z_inf).max(max_abs(m.q())))
        };
        let mut exact = true;
        let n = core.state.len();
        self.flips.clear();
        self.leaving.clear();
        self.exchanging.clear();
        for i in 0..n {
            let (lo, hi) = (set.lo[i], set.hi[i]);
            // How far w is on the wrong side of its condition.
            let wrong = match core.state[i] {
                _ if lo >= hi => 0.0,
                State::Clamped => {
                    if core.z[i] < lo - z_tol || core.z[i] > hi + z_tol {
                        self.flips.push(i);
                    }
                    continue;
                }
                State::AtLo => -core.w[i],
                State::AtHi => core.w[i],
                State::Parked => core.w[i].abs(),
                State::Unprocessed => 0.0,
            };
            if wrong > set.w_tol {
                exact = false;
            }
            if wrong > loose {
                if core.state[i] == State::Parked || self.refused.contains(&i) {
                    self.exchanging.push(i);
                }
                self.flips.push(i);
            }
        }
        if !self.exchanging.is_empty() {
            // a = M_CC^-1 M_Ci of every exchanging row, in one solve with
            // many right-hand sides (level 3).
            let k = core.factor.len();
            let a = &mut self.dependency;
            a.clear();
            for &i in &self.exchanging {
                let col = m.col(i);
                a.extend(core.factor.idx.iter().map(|&r| col[r]));
            }
            core.factor.solve_many_in_place(a, self.exchanging.len());
            for (e, &i) in self.exchanging.iter().enumerate() {
                let s = if core.w[i] < 0.0 { 1.0 } else { -1.0 };
                let leaving = partner(
                    core,
                    set,
                    &self.dependency[e * k..(e + 1) * k],
                    s,
                    &self.leaving,
                )?;
                self.leaving.push(leaving);
            }
        }
        Some((self.flips.len(), exact))
    }
}

/// The clamped row that leaves C when a dependent row i joins it (module
/// comment), and whether it goes to its upper bound: with `a` =
/// M_CC^-1 M_Ci (factor order), moving z_i by t s and z_C by -t s a leaves
/// w unchanged; the first clamped row to reach a bound along that move
/// (ties: the larger |a_r|, then the lower index; entries of a below 1e-9
/// of its largest are rounding and not considered; rows already `taken`
/// by another exchange are skipped). `None` when no clamped row bounds the
/// move.
fn partner(
    core: &Core,
    set: &Settings<'_>,
    a: &[f64],
    s: f64,
    taken: &[(usize, bool)],
) -> Option<(usize, bool)> {
    let a_max = max_abs(a);
    let mut best: Option<(f64, f64, usize, bool)> = None;
    for (&ap, &r) in a.iter().zip(&core.factor.idx) {
        let ar = s * ap;
        if ar.abs() <= 1e-9 * a_max || taken.iter().any(|&(j, _)| j == r) {
            continue;
        }
        let (t, upper) = if ar > 0.0 {
            ((core.z[r] - set.lo[r]).max(0.0) / ar, false)
        } else {
            ((set.hi[r] - core.z[r]).max(0.0) / -ar, true)
        };
        if !t.is_finite() {
            continue;
        }
        let better = match best {
            None => true,
            Some((bt, ba, br, _)) => {
                t < bt || (t == bt && (ar.abs() > ba || (ar.abs() == ba && r < br)))
            }
        };
        if better {
            best = Some((t, ar.abs(), r, upper));
        }
    }
    best.map(|(_, _, r, upper)| (r, upper))
}
