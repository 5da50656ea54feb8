// A block principal pivoting guess of the final clamped set, tried before
// the one-row pivoting (pivot.rs), which pays O(n) pivots of O(k^2) each.
//
// Method: Kostreva 1978; Judice & Pires 1994, "A block principal pivoting
// algorithm for large-scale strictly monotone linear complementarity
// problems", Comput. Oper. Res. 21(5). Guess all of C at once: with the
// rows outside C at a bound, solve M_CC z_C = -(q_C + M_CN z_N) (one dense
// Cholesky), compute w, and exchange every row that violates its bound or
// sign. Where Judice & Pires switch to Murty's one-row rule once the count
// of violated rows stops dropping, this hands over to the pivoting after
// `BLOCK_GUESS_STALL` such guesses (a one-row exchange is Murty's step,
// done as an update of the factor, and not a stall); `BLOCK_GUESS_MAX`
// bounds them. First guess: the caller's (the active set of the last
// time step, `Dantzig::solve_from_into`), else rows whose q fits z = 0 at
// a bound by more than `RESTING_Q` ||q|| stay there, all others (resting
// contacts, q = 0, included) are clamped.
//
// Redundant rows (singular PSD M) are refused by the factorisation as by
// the pivoting and keep z_i = 0. For such a row, a = M_CC^-1 M_Ci gives
// x = e_i - a with x'M x = 0, so M x = 0 and, once w_C = 0, w_i = x'q is a
// constant of the problem: 0 for consistent contacts. When it has the
// wrong sign, the exchange is the pivoting's move for a zero Schur
// complement: z_i moves off its bound by t s (s = -sign(w_i)) and z_C by
// -t s a until a clamped row r of the group reaches a bound (`partner`); r
// leaves C and i joins it (w_r then has the right sign: -a_r w_r = w_i).
// Such a w is off 0 by rounding beyond `w_tol`, so the guesses judge the
// rows at a bound with the looser `DEPENDENT_W`, and once settled within
// it a strict phase exchanges the rows still off by more than `w_tol`,
// factoring the rows that join C first so that a dependent group refuses
// another of its rows. The answer is never looser than the pivoting's.
//
// When the guesses stop settling, or a dependent row of the wrong sign has
// no partner, the last guess is a consistent state (C factored, z_C
// solved, every other row at a bound or parked) and the pivoting finishes
// from it (`Core::rerun`). Later coupling passes start the guesses from
// the pass before (`run_from_pass`).

use super::pivot::{Core, Settings, State};
use crate::block_pivoting::RowState;
use crate::linalg::faer_scratch::FaerScratch;
use crate::problem::Lcp;
use crate::tuning::{
    BLOCK_GUESS_MAX, BLOCK_GUESS_STALL, DEPENDENT_W, GUESS_Z_ROUNDING, PARTNER_ENTRY, RESTING_Q,
    UPDATE_AT_MOST,
};
use crate::verify::max_abs;

/// How the guess ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Solved after this many guesses: no pivoting needed.
    Solved(usize),
    /// The last of this many guesses is left for the pivoting to finish
    /// (`Core::rerun`).
    Warm(usize),
    /// No usable state (a non-finite `z`): the pivoting starts from z = 0.
    Cold,
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
    /// Scratch of `run_from_pass`: whether a row was clamped in the last pass.
    pass_clamped: Vec<bool>,
    /// `M_CC^-1 M_Ci` of each exchanging row, k entries in factor order.
    dependency: Vec<f64>,
}

/// Judice & Pires' watch on a block guess: how many guesses in a row have
/// not lowered the number of violated rows (shared with coupled_guess.rs).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Progress {
    best: Option<usize>,
    stalled: usize,
}

impl Progress {
    /// Records a guess with `violated` rows; returns the guesses in a row
    /// without a new lowest count (0 after a new lowest).
    #[inline(always)]
    pub(super) fn stalled_after(&mut self, violated: usize) -> usize {
        if self.best.is_none_or(|best| violated < best) {
            self.best = Some(violated);
            self.stalled = 0;
        } else {
            self.stalled += 1;
        }
        self.stalled
    }
}

impl BlockGuess {
    /// Tries the block guess on `core` (fixed bounds `set`), first guessing
    /// `first` where given (a row at a finite bound it names stays there,
    /// every other row is clamped). On [`Outcome::Solved`] the core holds
    /// the solution and its factor; on [`Outcome::Warm`] the last guess,
    /// for `Core::rerun` to finish.
    pub(crate) fn run(
        &mut self,
        core: &mut Core,
        m: &Lcp,
        set: &Settings<'_>,
        first: Option<&[RowState]>,
    ) -> Outcome {
        let n = m.dim();
        core.reset(n, true);
        // First guess (module comment): leaving resting contacts at 0 made
        // the guesses climb a stack one box per factorisation.
        let resting = RESTING_Q * max_abs(m.q());
        for i in 0..n {
            let (lo, hi, q) = (set.lo[i], set.hi[i], m.q()[i]);
            let named = first.map(|states| states[i]);
            core.state[i] = if lo >= hi {
                core.z[i] = lo;
                State::AtLo
            } else if let Some(state) = named {
                match state {
                    RowState::Lower if lo > f64::NEG_INFINITY => State::AtLo,
                    RowState::Upper if hi < f64::INFINITY => State::AtHi,
                    _ => State::Clamped,
                }
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

    /// As `run`, from the states of the last coupling pass: rows at a finite
    /// bound follow it, fixed rows (`lo >= hi`) stay at lo, every other row
    /// starts clamped. The core's `appends` and `removals` count the rows
    /// that joined or left C against the last pass, so a pass solved
    /// without changing C reads as one without pivots (coupling_passes.rs
    /// watches for that).
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
        core.clear_counts();
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
        // Reserved up front, so that no later solve of this size allocates.
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
                // Settled within the slack: the strict phase.
                strict = true;
                progress = Progress::default();
                if self.violations(core, m, set, true).is_none() {
                    return Outcome::Warm(guess);
                }
            } else if violated > 1 && progress.stalled_after(violated) >= BLOCK_GUESS_STALL {
                // (A single exchange, Murty's step, is not a stall.)
                return Outcome::Warm(guess);
            }
            self.exchange(core, set);
        }
        Outcome::Warm(BLOCK_GUESS_MAX)
    }

    /// Exchanges the rows `flips` (clamped rows go to the bound they broke,
    /// the others join C and are listed in `priority`) and moves the
    /// `leaving` partners to their bounds.
    fn exchange(&mut self, core: &mut Core, set: &Settings<'_>) {
        self.priority.clear();
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
                _ => {
                    self.priority.push(i);
                    State::Clamped
                }
            };
        }
        for &(r, upper) in &self.leaving {
            if core.state[r] == State::Clamped {
                core.state[r] = if upper { State::AtHi } else { State::AtLo };
                core.z[r] = if upper { set.hi[r] } else { set.lo[r] };
            }
        }
    }

    /// Brings the last guess's factor to the clamped rows of `core.state` by
    /// removals and appends (a refused append goes to `refused`) when at most
    /// `1 / UPDATE_AT_MOST` of them changed; false, with the factor untouched,
    /// otherwise (a factorisation runs at level-3 speed). In the `strict`
    /// phase also false, with the factor half updated (the caller then
    /// refactors), when a row joining C (`priority`) would be refused.
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

    /// Lists C (the clamped rows of `core.state`) in factor order and returns
    /// how many leading positions hold the last factor's rows (whose columns
    /// `factor_block` keeps): with `reuse`, the last factor's rows still
    /// clamped, in their order; otherwise the rows that joined C in the last
    /// exchange (`priority`) first; then the others in index order.
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

    /// Factors `M_CC` for the clamped rows of `core.state` (with `update`,
    /// possibly by updating the last guess's factor), solves for `z_C` and
    /// recomputes `w = M z + q`. False when `z` is not finite.
    fn solve_guess(
        &mut self,
        core: &mut Core,
        m: &Lcp,
        set: &Settings<'_>,
        update: bool,
        strict: bool,
    ) -> bool {
        let n = m.dim();
        // Parked rows are offered again (what they depended on may have left C).
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
        // A refused (redundant) row keeps z = 0 where feasible (module comment).
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
        core.polish(m) && core.z.iter().all(|z| z.is_finite())
    }

    /// Collects into `flips` the rows that break their bound (clamped) or the
    /// sign of their `w` (at a bound) by more than `DEPENDENT_W` of the
    /// certificate's scale (`w_tol` if `strict`); returns how many, and
    /// whether every row meets `w_tol`. A refused or parked row of the wrong
    /// sign joins C with a `partner` leaving it; `None` when it has none.
    fn violations(
        &mut self,
        core: &Core,
        m: &Lcp,
        set: &Settings<'_>,
        strict: bool,
    ) -> Option<(usize, bool)> {
        let z_inf = max_abs(&core.z);
        let z_tol = GUESS_Z_ROUNDING * z_inf;
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
            // a = M_CC^-1 M_Ci of every exchanging row, in one solve.
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

/// The clamped row that leaves C when a dependent row i joins it, and
/// whether it goes to its upper bound: the first to reach a bound as z_i
/// moves by t s and z_C by -t s a, `a` = M_CC^-1 M_Ci (ties: the larger
/// |a_r|, then the lower index; entries of a up to `PARTNER_ENTRY` of its
/// largest, and
/// rows already `taken`, are skipped). `None` when no clamped row bounds it.
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
        if ar.abs() <= PARTNER_ENTRY * a_max || taken.iter().any(|&(j, _)| j == r) {
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
