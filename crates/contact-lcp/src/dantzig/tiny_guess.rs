// Block principal pivoting on problems of at most `TINY_MAX` rows, in
// arrays of fixed size.
//
// A single contact, a box on the ground (4 rows) or two (8): most contact
// islands of a scene are this small, and there a solve of small_guess.rs
// spends most of its instructions on what does not grow with n (measured,
// callgrind, a box resting on the ground, n = 4: 3.0k instructions a
// whole Dantzig solve, of which about 2.0k in small_guess.rs for some 60
// multiply-adds): sizing its vectors, sorting the first guess, dispatching
// to vector kernels blocked by four, keeping factor rows between guesses.
// ODE's Dantzig solver was faster there (0.63 against 0.83 us, one box
// resting).
//
// The method and its rules are small_guess.rs's (Kostreva 1978; Judice &
// Pires 1994, block principal pivoting; the shared rules are
// `first_guess`, `refused` and `exchanged` there): guess the clamped set
// C, factor M_CC = L D L' by bordering (Golub & Van Loan, Matrix
// Computations, sec. 4.1-4.2; L unit lower, so no square root on the
// chain from one row to the next and no multiply on that of a triangular
// solve: against L L', paired runs, 0.93x the time on 64 random problems
// of n = 4, 0.91x at n = 8, 0.88x on the box resting on the ground),
// refusing a row whose pivot is at most
// `pivot_tol` (a redundant contact), solve for z_C with the rows outside C
// at their bounds, compute w and exchange every row that breaks its guess.
// What differs is the bookkeeping: every array has a fixed size and lives
// in the workspace, and the factor is rebuilt on each guess (at most 8
// rows, about 85 multiply-adds). Each dimension N is compiled on its own
// (a const generic): the problem is copied into arrays of size N (M by
// columns, at most 64 numbers), so the loops over the rows have a length
// the compiler knows, unrolled and without bounds checks, and so do the
// answer's projection and copies (`finish_fixed_answer`, box_verify.rs).
// Measured (callgrind, instructions a whole Dantzig solve, as below):
// n = 1 1104 -> 950, n = 2 1416 -> 1184, n = 4 2189 -> 1854, n = 8 3944
// -> 3530, the box on the ground 2276 -> 2059 (0.89x the time, 16 ABBA
// pairs). C is ordered as small_guess.rs orders it, so both take the
// same decisions (tested on random problems): q
// ascending in the first guess (an insertion sort, ties by index; values
// of q that agree but for their last few bits, which small_guess.rs's
// integer keys order by index, are ordered by value here, so on such
// near-ties the two may refuse different rows of a redundant group, and
// return different, equally certified, forces), then the refused rows
// that rejoin C (so that another row of their dependent group is
// refused), the rows that stay in their order, and the rows that join.
// w is computed on every row as
// `Lcp::affine` computes it (columns with z_j != 0 in order of j, one
// product and one sum each), so a settled guess hands w to the
// certificate with the bits it would compute.
// Measured (callgrind, instructions a whole Dantzig solve, certificate
// included; 64 different random SPD problems in turn): n = 1 1645 ->
// 1099, n = 2 2059 -> 1407, n = 4 2942 -> 2184, n = 8 4452 -> 3939; the
// box resting on the ground (n = 4, singular) 3324 -> 2372, 0.70x the
// time (docs/benchmarks.md, session 12). Beyond about
// 10 rows the blocked vector kernels of small_guess.rs win (n = 16: 9.2k
// against 11.0k in these arrays).
//
// A larger problem whose bounds leave at most `TINY_MAX` rows free (the
// others fixed at 0, lo = hi: a box's friction rows held at 0 in the
// first coupling pass) is solved here too, on those rows (`run_rows`;
// mod.rs scatters the answer back and certifies it against the whole
// problem).
//
// When the guesses do not settle (the stall rule and limit of
// small_guess.rs, a parked row whose w moved, a z that is not finite) the
// caller solves the problem as without this module.

use super::block_guess::Progress;
use super::small_guess::{
    Exchange, RESTING_Q, Row, STALL, SmallSettings, exchanged, first_guess, refused,
};
use crate::box_problem::BoxLcp;
use crate::box_verify::finish_fixed_answer;
use crate::problem::Lcp;
use crate::solution::LcpSolution;

/// Largest dimension solved here.
pub(crate) const TINY_MAX: usize = 8;

/// `$call` with the constant `$size` set to `$n` when that is one of 1 to
/// `TINY_MAX` (each a const generic instance of its own), else `$other`.
macro_rules! with_size {
    ($n:expr, $size:ident => $call:expr, _ => $other:expr) => {{
        const _: () = assert!(TINY_MAX == 8, "one arm per dimension");
        match $n {
            1 => {
                const $size: usize = 1;
                $call
            }
            2 => {
                const $size: usize = 2;
                $call
            }
            3 => {
                const $size: usize = 3;
                $call
            }
            4 => {
                const $size: usize = 4;
                $call
            }
            5 => {
                const $size: usize = 5;
                $call
            }
            6 => {
                const $size: usize = 6;
                $call
            }
            7 => {
                const $size: usize = 7;
                $call
            }
            8 => {
                const $size: usize = 8;
                $call
            }
            _ => $other,
        }
    }};
}

/// Whether the bounds of `set` are a plain LCP's: 0 and +inf on every
/// row (what the plain instance of `Fixed` takes them to be).
fn plain_bounds(set: &SmallSettings<'_>) -> bool {
    set.lo.iter().all(|&l| l == 0.0) && set.hi.iter().all(|&h| h == f64::INFINITY)
}

/// Workspace of the tiny-problem block pivoting: fixed-size arrays, so a
/// solve allocates nothing.
#[derive(Clone, Debug)]
pub(crate) struct TinyGuess {
    /// Where each row is.
    row: [Row; TINY_MAX],
    /// The guess's z (the answer on success).
    pub(crate) z: [f64; TINY_MAX],
    /// `w = M z + q` of the last guess on every row, with the bits of
    /// `Lcp::affine`.
    pub(crate) w: [f64; TINY_MAX],
    /// The factor of `M_CC = L D L'`, by rows: `l[j][t]` for `t < j` (the
    /// unit diagonal is not stored; `1 / D_jj` is in `inv_diag`).
    l: [[f64; TINY_MAX]; TINY_MAX],
    /// `1 / D_jj`.
    inv_diag: [f64; TINY_MAX],
    /// The rows of C in factor order.
    order: [usize; TINY_MAX],
    /// Right-hand side, then solution, of the `z_C` solve in factor order.
    x: [f64; TINY_MAX],
    /// Whether the last factorisation refused the row.
    refused: [bool; TINY_MAX],
    /// Whether the row joins C first in the next factorisation (refused by
    /// the last one, its w then had the wrong sign).
    priority: [bool; TINY_MAX],
    /// Guesses of the last solve.
    pub(crate) guesses: usize,
}

impl Default for TinyGuess {
    fn default() -> Self {
        Self {
            row: [Row::Clamped; TINY_MAX],
            z: [0.0; TINY_MAX],
            w: [0.0; TINY_MAX],
            l: [[0.0; TINY_MAX]; TINY_MAX],
            inv_diag: [0.0; TINY_MAX],
            order: [0; TINY_MAX],
            x: [0.0; TINY_MAX],
            refused: [false; TINY_MAX],
            priority: [false; TINY_MAX],
            guesses: 0,
        }
    }
}

/// One problem in arrays of its own size `N`, copied from the caller's
/// (`M` by columns): every loop over the rows has a length the compiler
/// knows, so it is unrolled and needs no bounds checks. `PLAIN`: the
/// bounds are a plain LCP's (`lo = 0`, `hi = +inf` on every row, the
/// arrays left unread): a frictionless contact problem, the commonest
/// island; its instance of the guesses is compiled with those constants,
/// so every test of a bound folds away, and the rows outside C, all at 0,
/// are not read for the right-hand side. The same guesses to the bit
/// (tested). Measured (callgrind, whole Dantzig solves; paired runs): the
/// box at rest 1303 -> 1137 instructions, 0.95x the time; 64 random
/// plain problems of n = 4 0.95x, of n = 8 0.91x.
struct Fixed<const N: usize, const PLAIN: bool> {
    /// `m[j]` is column `j` of M.
    m: [[f64; N]; N],
    q: [f64; N],
    lo: [f64; N],
    hi: [f64; N],
    pivot_tol: f64,
    w_tol: f64,
    /// `RESTING_Q ||q||`.
    resting: f64,
}

impl<const N: usize, const PLAIN: bool> Fixed<N, PLAIN> {
    /// Row `i`'s lower bound.
    #[inline(always)]
    fn lo(&self, i: usize) -> f64 {
        if PLAIN { 0.0 } else { self.lo[i] }
    }

    /// Row `i`'s upper bound.
    #[inline(always)]
    fn hi(&self, i: usize) -> f64 {
        if PLAIN { f64::INFINITY } else { self.hi[i] }
    }

    /// Zero arrays with the tolerances of `set`.
    fn zeros(set: &SmallSettings<'_>) -> Self {
        Self {
            m: [[0.0; N]; N],
            q: [0.0; N],
            lo: [0.0; N],
            hi: [0.0; N],
            pivot_tol: set.pivot_tol,
            w_tol: set.w_tol,
            resting: RESTING_Q * set.q_max,
        }
    }

    /// Copies `m` (dimension `N`) and the bounds of `set` in; false if a
    /// length is not `N`. Filled in place, not built and returned in an
    /// `Option`: that copy was moved again by a call to `memcpy` (224
    /// bytes at N = 4), whose wide loads read the narrower stores just
    /// made, which the processor cannot forward (a stall). Measured
    /// (paired runs, whole Dantzig solves): the box at rest 0.82x the
    /// time (1368 -> 1326 instructions), 64 random problems of n = 4
    /// 0.82x, of n = 8 0.95x.
    fn fill(&mut self, m: &Lcp, set: &SmallSettings<'_>) -> bool {
        let (Some(q), Some(lo), Some(hi)) = (
            m.q().first_chunk(),
            set.lo.first_chunk(),
            set.hi.first_chunk(),
        ) else {
            return false;
        };
        for (j, col) in self.m.iter_mut().enumerate() {
            match m.col(j).first_chunk() {
                Some(c) => *col = *c,
                None => return false,
            }
        }
        self.q = *q;
        if !PLAIN {
            (self.lo, self.hi) = (*lo, *hi);
        }
        true
    }

    /// The principal subproblem of `m` on `rows` (`N` of them, in range),
    /// with their bounds and the tolerances of `set` (taken from the whole
    /// problem). The rows left out must be fixed at 0 (`lo = hi`, which
    /// bounds with `lo <= 0 <= hi` put at 0): they add nothing to `M z`.
    fn from_rows(m: &Lcp, set: &SmallSettings<'_>, rows: &[usize; N]) -> Self {
        // Plain loops, not `<[T; N]>::map`: whether the compiler inlined
        // the closures of `map` changed with unrelated code elsewhere in the
        // crate (after commit cc46498 they were called, a call an entry:
        // the peers' friction_stack_1 1061 -> 1187 instructions here, 1.07x
        // the time of a whole solve).
        let (q, lo, hi) = (m.q(), set.lo, set.hi);
        let mut p = Self {
            m: [[0.0; N]; N],
            q: [0.0; N],
            lo: [0.0; N],
            hi: [0.0; N],
            pivot_tol: set.pivot_tol,
            w_tol: set.w_tol,
            resting: RESTING_Q * set.q_max,
        };
        for (column, &j) in p.m.iter_mut().zip(rows) {
            let col = m.col(j);
            for (x, &i) in column.iter_mut().zip(rows) {
                *x = col[i];
            }
        }
        for (t, &i) in rows.iter().enumerate() {
            (p.q[t], p.lo[t], p.hi[t]) = (q[i], lo[i], hi[i]);
        }
        p
    }
}

impl TinyGuess {
    /// Solves the box LCP `m` (dimension at most [`TINY_MAX`], symmetric)
    /// with the fixed bounds of `set` by block pivoting; true when
    /// `self.z[..n]` holds an answer that meets the tolerances and
    /// `self.w[..n]` its `M z + q`, false when the caller must solve the
    /// problem otherwise.
    #[cfg(test)]
    pub(crate) fn run(&mut self, m: &Lcp, set: &SmallSettings<'_>, max_guesses: usize) -> bool {
        let plain = plain_bounds(set);
        with_size!(m.dim(), N => self.run_fixed::<N>(m, set, plain, max_guesses), _ => false)
    }

    /// `TinyGuess::run` on the problem of `problem` (with the fixed
    /// bounds of `set`; `plain` when those are a plain LCP's, 0 and +inf
    /// on every row), then, if it settled, its answer in `out` with its
    /// certificate (`finish_fixed_answer`, box_verify.rs); false, leaving
    /// `out` as it is, when the guesses did not settle or the dimension
    /// is not one of this module's. One dispatch on the dimension for
    /// both (two cost 20 more instructions a solve).
    pub(crate) fn run_and_finish(
        &mut self,
        problem: &BoxLcp,
        set: &SmallSettings<'_>,
        plain: bool,
        max_guesses: usize,
        out: &mut LcpSolution,
    ) -> bool {
        with_size!(problem.dim(), N => {
            self.run_fixed::<N>(problem.lcp(), set, plain, max_guesses)
                && self.finish_fixed::<N>(problem, out)
        }, _ => false)
    }

    /// `TinyGuess::run` on the principal subproblem of `m` on `rows`
    /// (at most [`TINY_MAX`] of them, in range): the other rows must be
    /// fixed at 0 by `set` (`lo = hi`), as a friction row held at 0 in the
    /// first coupling pass is. On success `self.z[..k]` and `self.w[..k]`
    /// (k = `rows.len()`) hold the answer on `rows`, in their order, and
    /// `M z + q` there.
    pub(crate) fn run_rows(
        &mut self,
        m: &Lcp,
        set: &SmallSettings<'_>,
        rows: &[usize],
        max_guesses: usize,
    ) -> bool {
        with_size!(rows.len(), N => match rows.first_chunk::<N>() {
            Some(rows) => {
                self.solve(&Fixed::<N, false>::from_rows(m, set, rows), max_guesses)
            }
            None => false,
        }, _ => false)
    }

    /// The answer of the last settled guesses, of dimension `N`, in `out`
    /// (see [`TinyGuess::run_and_finish`]).
    fn finish_fixed<const N: usize>(&self, problem: &BoxLcp, out: &mut LcpSolution) -> bool {
        let (Some(z), Some(w)) = (self.z.first_chunk::<N>(), self.w.first_chunk::<N>()) else {
            return false;
        };
        finish_fixed_answer(problem, out, z, w);
        true
    }

    /// `TinyGuess::run` for dimension `N`.
    fn run_fixed<const N: usize>(
        &mut self,
        m: &Lcp,
        set: &SmallSettings<'_>,
        plain: bool,
        max_guesses: usize,
    ) -> bool {
        debug_assert!(
            !plain || plain_bounds(set),
            "the plain instance needs bounds 0 and +inf"
        );
        if plain {
            self.run_instance::<N, true>(m, set, max_guesses)
        } else {
            self.run_instance::<N, false>(m, set, max_guesses)
        }
    }

    /// [`TinyGuess::run_fixed`] on the instance `PLAIN` of `Fixed`.
    fn run_instance<const N: usize, const PLAIN: bool>(
        &mut self,
        m: &Lcp,
        set: &SmallSettings<'_>,
        max_guesses: usize,
    ) -> bool {
        let mut p = Fixed::<N, PLAIN>::zeros(set);
        p.fill(m, set) && self.solve(&p, max_guesses)
    }

    /// The guesses on `p`.
    fn solve<const N: usize, const PLAIN: bool>(
        &mut self,
        p: &Fixed<N, PLAIN>,
        max_guesses: usize,
    ) -> bool {
        // C in order of q, the most negative first (small_guess.rs's
        // first order: those rows are the likeliest to stay in C, so a
        // redundant row refused is the one that carries least), by
        // insertion.
        let mut k = 0;
        for i in 0..N {
            let (lo, qi) = (p.lo(i), p.q[i]);
            let row = first_guess(lo, p.hi(i), qi, p.resting);
            self.row[i] = row;
            // A row at a bound in the first guess is at a zero bound.
            self.z[i] = if row == Row::Fixed { lo } else { 0.0 };
            self.priority[i] = false;
            if row == Row::Clamped {
                let mut at = k;
                while at > 0 && p.q[self.order[at - 1]] > qi {
                    self.order[at] = self.order[at - 1];
                    at -= 1;
                }
                self.order[at] = i;
                k += 1;
            }
        }
        let mut progress = Progress::default();
        for guess in 1..=max_guesses {
            self.guesses = guess;
            k = self.factor(p, k);
            if !self.solve_clamped(p, k) {
                return false;
            }
            self.affine_w(p);
            let Some(violated) = self.exchange(p) else {
                return false;
            };
            if violated == 0 {
                return true;
            }
            if progress.stalled_after(violated) >= STALL {
                return false;
            }
            k = self.reorder::<N>(k);
        }
        false
    }

    /// The order of C for the next guess: the rows refused by the last
    /// factorisation that rejoin it, then the rows of the last order still
    /// in C, in that order, then the rows that joined (parked rows offered
    /// again, since the rows they depended on may have left C), each by
    /// index. Returns the size of C.
    fn reorder<const N: usize>(&mut self, k: usize) -> usize {
        let mut in_order = [false; TINY_MAX];
        for &i in &self.order[..k] {
            in_order[i] = true;
        }
        let previous = self.order;
        let mut len = 0;
        for i in 0..N {
            if self.priority[i] {
                self.order[len] = i;
                len += 1;
            }
        }
        for &i in &previous[..k] {
            if self.row[i] == Row::Clamped {
                self.order[len] = i;
                len += 1;
            }
        }
        for (i, row) in self.row[..N].iter_mut().enumerate() {
            if *row == Row::Parked {
                *row = Row::Clamped;
            }
            if *row == Row::Clamped && !in_order[i] && !self.priority[i] {
                self.order[len] = i;
                len += 1;
            }
        }
        self.priority = [false; TINY_MAX];
        len
    }

    /// Factors `M_CC = L D L'` for the first `k` rows of `order` by
    /// bordering: row `j` solves `L_11 c = M_1j`, takes `l = D_11^-1 c`
    /// and the pivot `D_jj = M_jj - c'l`; a pivot at most `pivot_tol` (or
    /// not finite) refuses its row, which leaves C for `z = 0` within its
    /// bounds (the rows after it are not factored yet, so nothing else
    /// moves). Returns the number of rows left in C.
    ///
    /// The loops here and in `solve_clamped` run to `N` with an exit at
    /// `k`, so the compiler unrolls them, the bounds of every inner loop
    /// known; a refused row's successors move up by a loop of the same
    /// kind, not `copy_within` (a call to `memmove`, and reloads around
    /// it). Measured (callgrind, whole Dantzig solves; paired runs): the
    /// box at rest 1511 -> 1368 instructions, 0.97x the time; the box
    /// with friction (n = 12, 4 free rows) 2961 -> 2818, 0.92x; 64
    /// random problems of n = 4 0.92x, of n = 8 0.99x. Leaving
    /// a refused row in place as a hole (a zero row of L, `1 / D_jj` = 0)
    /// took fewer instructions still (1351) but 1.12x the time.
    fn factor<const N: usize, const PLAIN: bool>(
        &mut self,
        p: &Fixed<N, PLAIN>,
        mut k: usize,
    ) -> usize {
        self.refused = [false; TINY_MAX];
        let mut j = 0;
        for _ in 0..N {
            if j >= k {
                break;
            }
            let i = self.order[j];
            let col = &p.m[i];
            // c_t = L_jt D_t = M_jt - sum_u c_u L_tu, then L_jt = c_t / D_t
            // and D_j = M_jj - sum_t c_t L_jt.
            let mut c = [0.0; N];
            let mut squares = 0.0;
            for t in 0..j {
                let row_t = &self.l[t];
                let mut s = col[self.order[t]];
                for u in 0..t {
                    s -= c[u] * row_t[u];
                }
                c[t] = s;
                let x = s * self.inv_diag[t];
                self.l[j][t] = x;
                squares += s * x;
            }
            let d = col[i] - squares;
            if d > p.pivot_tol && d < f64::INFINITY {
                // No square root: the next row waits on this division
                // alone (as in small_guess.rs).
                self.inv_diag[j] = 1.0 / d;
                j += 1;
            } else {
                for t in j..N - 1 {
                    if t + 1 >= k {
                        break;
                    }
                    self.order[t] = self.order[t + 1];
                }
                k -= 1;
                self.refused[i] = true;
                (self.z[i], self.row[i]) = refused(p.lo(i), p.hi(i));
            }
        }
        k
    }

    /// Solves `M_CC z_C = -(q_C + M_CN z_N)` with the factor of the first
    /// `k` rows of `order`; false when z_C is not finite.
    fn solve_clamped<const N: usize, const PLAIN: bool>(
        &mut self,
        p: &Fixed<N, PLAIN>,
        k: usize,
    ) -> bool {
        for j in 0..N {
            if j >= k {
                break;
            }
            self.x[j] = -p.q[self.order[j]];
        }
        // A plain LCP's rows outside C are at 0: they add nothing.
        for c in 0..N {
            let zc = self.z[c];
            if !PLAIN && self.row[c] != Row::Clamped && zc != 0.0 {
                let col = &p.m[c];
                for j in 0..N {
                    if j >= k {
                        break;
                    }
                    self.x[j] -= col[self.order[j]] * zc;
                }
            }
        }
        // L y = b, y <- D^-1 y, then L' x = y (L unit lower).
        for j in 0..N {
            if j >= k {
                break;
            }
            let mut s = self.x[j];
            for t in 0..j {
                s -= self.l[j][t] * self.x[t];
            }
            self.x[j] = s;
        }
        for j in 0..N {
            if j >= k {
                break;
            }
            self.x[j] *= self.inv_diag[j];
        }
        for j in (0..N).rev() {
            if j >= k {
                continue;
            }
            let mut s = self.x[j];
            for t in j + 1..N {
                if t >= k {
                    break;
                }
                s -= self.l[t][j] * self.x[t];
            }
            self.x[j] = s;
        }
        let mut finite = true;
        for j in 0..N {
            if j >= k {
                break;
            }
            self.z[self.order[j]] = self.x[j];
            finite &= self.x[j].is_finite();
        }
        finite
    }

    /// `w = M z + q` on every row, as `Lcp::affine` computes it (the bits
    /// are tested). Not `Lcp::affine` itself: its vector dispatch and
    /// chunked column listing cost 150 more instructions a solve at these
    /// sizes (n = 1: 1099 -> 1252; the box on the ground 2354 -> 2440).
    fn affine_w<const N: usize, const PLAIN: bool>(&mut self, p: &Fixed<N, PLAIN>) {
        self.w[..N].copy_from_slice(&p.q);
        for j in 0..N {
            let zj = self.z[j];
            if zj != 0.0 {
                for (w, &c) in self.w[..N].iter_mut().zip(&p.m[j]) {
                    *w += zj * c;
                }
            }
        }
    }

    /// Exchanges the rows that break their guess (`exchanged`) and returns
    /// how many; `None` when a parked row's `w` moved off 0.
    fn exchange<const N: usize, const PLAIN: bool>(
        &mut self,
        p: &Fixed<N, PLAIN>,
    ) -> Option<usize> {
        // A plain fold: `lane_scan::max_abs` (the same value) sets up four
        // lanes, 43 more instructions a solve at n = 1.
        let z_max = self.z[..N].iter().fold(0.0_f64, |a, z| a.max(z.abs()));
        let z_tol = 1e-12 * z_max;
        let mut violated = 0;
        for i in 0..N {
            let bounds = (p.lo(i), p.hi(i));
            match exchanged(
                self.row[i],
                &mut self.z[i],
                self.w[i],
                bounds,
                z_tol,
                p.w_tol,
            ) {
                Exchange::Keep => {}
                Exchange::GiveUp => return None,
                Exchange::To(next) => {
                    violated += 1;
                    self.priority[i] = next == Row::Clamped && self.refused[i];
                    self.row[i] = next;
                }
            }
        }
        Some(violated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::box_problem::BoxBounds;
    use crate::box_verify::box_report;
    use crate::dantzig::small_guess::{SmallGuess, next_uniform, random_sym, with_dependent_rows};

    /// Bounds of one of four kinds per row: plain (0, inf), bilateral,
    /// a finite box around 0, an upper bound of 0.
    fn random_bounds(seed: &mut u64, n: usize) -> (Vec<f64>, Vec<f64>) {
        let inf = f64::INFINITY;
        (0..n)
            .map(|_| match ((next_uniform(seed) + 1.0) * 2.0) as usize {
                0 => (0.0, inf),
                1 => (-inf, inf),
                2 => (-0.5, 0.75),
                _ => (-inf, 0.0),
            })
            .unzip()
    }

    struct Outcome {
        settled: usize,
        small_settled: usize,
        agreed: usize,
    }

    /// Runs the tiny and the small guess on `count` random problems of
    /// dimension `n` (`rank` of M; q = -M x + y with x, y >= 0
    /// complementary, so a plain LCP has a solution), checking every
    /// settled tiny answer: its w is `Lcp::affine`'s to the bit and it
    /// certifies to 1e-12 (scaled). Counts the tiny guesses that settled
    /// and, among the problems both settled, the answers within 1e-9 of
    /// the small guess's (unique when M is positive definite).
    fn compare(n: usize, rank: usize, shift: f64, boxed: bool, count: usize) -> Outcome {
        let mut seed = 0x7140 + 31 * n as u64 + rank as u64;
        let mut out = Outcome {
            settled: 0,
            small_settled: 0,
            agreed: 0,
        };
        for _ in 0..count {
            let m = random_sym(&mut seed, n, rank, shift);
            let x: Vec<f64> = (0..n).map(|_| next_uniform(&mut seed).max(0.0)).collect();
            let mut q = vec![0.0; n];
            for i in 0..n {
                let mx: f64 = (0..n).map(|j| m[i * n + j] * x[j]).sum();
                q[i] = -mx
                    + if x[i] > 0.0 {
                        0.0
                    } else {
                        next_uniform(&mut seed).abs()
                    };
            }
            let lcp = Lcp::from_row_major(n, &m, &q).unwrap();
            let (lo, hi) = if boxed {
                random_bounds(&mut seed, n)
            } else {
                (vec![0.0; n], vec![f64::INFINITY; n])
            };
            let bounds = BoxBounds::new(lo.clone(), hi.clone(), vec![]).unwrap();
            let set = SmallSettings {
                lo: &lo,
                hi: &hi,
                pivot_tol: 1e-10 * lcp.m_max_abs(),
                w_tol: 1e-13 * lcp.q_max_abs().max(f64::MIN_POSITIVE),
                q_max: lcp.q_max_abs(),
            };
            let mut small = SmallGuess::default();
            let small_settled = small.run(&lcp, &set, 16);
            out.small_settled += usize::from(small_settled);
            let mut tiny = TinyGuess::default();
            let settled = tiny.run(&lcp, &set, 16);
            if !boxed {
                // The plain instance (bounds folded to constants) takes the
                // general one's guesses, to the bit.
                let mut plain = TinyGuess::default();
                let plain_settled = with_size!(n, N => {
                    plain.run_fixed::<N>(&lcp, &set, true, 16)
                }, _ => false);
                let mut general = TinyGuess::default();
                let general_settled = with_size!(n, N => {
                    general.run_fixed::<N>(&lcp, &set, false, 16)
                }, _ => false);
                let bits = |g: &TinyGuess| -> Vec<u64> {
                    g.z[..n]
                        .iter()
                        .chain(&g.w[..n])
                        .map(|x| x.to_bits())
                        .collect()
                };
                assert_eq!(
                    (plain_settled, plain.guesses, bits(&plain)),
                    (general_settled, general.guesses, bits(&general))
                );
                assert_eq!((settled, bits(&tiny)), (plain_settled, bits(&plain)));
            }
            if !settled {
                continue;
            }
            out.settled += 1;
            let (z, w) = (&tiny.z[..n], &tiny.w[..n]);
            let mut affine = vec![0.0; n];
            lcp.affine(z, &mut affine);
            assert!(
                w.iter()
                    .zip(&affine)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "w as Lcp::affine: {w:?} {affine:?}"
            );
            let mut projected = z.to_vec();
            bounds.project(&mut projected);
            lcp.affine(&projected, &mut affine);
            let report = box_report(
                &bounds,
                lcp.q_max_abs(),
                lcp.m_max_abs(),
                &projected,
                &affine,
                None,
            );
            assert!(report.is_solution(1e-12), "n = {n}: {report:?}");
            if small_settled {
                let scale = small.z.iter().fold(1.0_f64, |a, v| a.max(v.abs()));
                let close = z
                    .iter()
                    .zip(&small.z)
                    .all(|(a, b)| (a - b).abs() <= 1e-9 * scale);
                out.agreed += usize::from(close);
            }
        }
        out
    }

    /// The same method as small_guess.rs in other bookkeeping: on every
    /// problem both settle or both hand over, with the same answer (to
    /// 1e-9, unique or not: the same rules pick the same clamped set).
    /// Positive definite problems all settle; singular ones (rank n / 2)
    /// with random box bounds often have no solution (inconsistent
    /// bilateral rows) and hand over.
    #[test]
    fn settles_as_the_small_guess_does_with_its_answers() {
        let count = 200;
        let mut singular_settled = 0;
        for n in 1..=TINY_MAX {
            for boxed in [false, true] {
                for (rank, shift) in [(n, 0.1), (n.div_ceil(2), 0.0)] {
                    let o = compare(n, rank, shift, boxed, count);
                    let case = format!("n = {n}, rank {rank}, boxed {boxed}");
                    assert_eq!(o.settled, o.small_settled, "{case}");
                    assert_eq!(o.agreed, o.settled, "{case}");
                    if rank == n {
                        assert_eq!(o.settled, count, "{case}");
                    } else {
                        singular_settled += o.settled;
                    }
                }
            }
        }
        // Measured: 1844 of the 2800 singular problems (n = 2..8), 1376 of
        // the 1400 plain ones.
        assert!(singular_settled > 1500, "{singular_settled}");
    }

    /// Row 2 = row 0 + row 1 of a rank-2 matrix: factored last, its
    /// pivot is 0 and it is refused, at its lower bound.
    #[test]
    fn a_dependent_row_is_refused() {
        with_dependent_rows(|m, set| {
            let mut g = TinyGuess::default();
            g.order[..3].copy_from_slice(&[0, 1, 2]);
            let mut p = Fixed::<3, false>::zeros(set);
            assert!(p.fill(m, set));
            assert_eq!(g.factor(&p, 3), 2);
            assert_eq!(&g.order[..2], &[0, 1]);
            assert!(g.refused[2] && !g.refused[0] && !g.refused[1]);
            assert_eq!(g.row[2], Row::AtLo);
            // L D L' = M on the kept block.
            let l = |r: usize, c: usize| match c.cmp(&r) {
                std::cmp::Ordering::Less => g.l[r][c],
                std::cmp::Ordering::Equal => 1.0,
                std::cmp::Ordering::Greater => 0.0,
            };
            for r in 0..2 {
                for c in 0..2 {
                    let llt: f64 = (0..2).map(|t| l(r, t) * l(c, t) / g.inv_diag[t]).sum();
                    assert!((llt - m.col(c)[r]).abs() < 1e-14, "({r}, {c})");
                }
            }
        });
    }
}
