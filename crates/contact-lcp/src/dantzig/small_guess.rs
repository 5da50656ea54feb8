// Block principal pivoting on small problems, with dense kernels of its own.
//
// Most contact islands have a few dozen rows. There the one-row pivoting
// (pivot.rs) pays per pivot for two short triangular solves and a product
// with scattered bookkeeping (measured: 12 pivots, 3.2 us on a random SPD
// problem with n = 16, about 270 ns a pivot), and faer's Cholesky costs
// about 1.4 us at n = 16 in dispatch and setup alone. This module guesses
// the whole clamped set at once, as block_guess.rs does for large problems
// (Kostreva 1978; Judice & Pires 1994, "A block principal pivoting
// algorithm for large-scale strictly monotone linear complementarity
// problems", Comput. Oper. Res. 21(5)): with the rows outside C at a bound,
// solve M_CC z_C = -(q_C + M_CN z_N), compute w, and exchange every row
// that breaks its bound or the sign of its w. On positive definite
// problems this settles in 2-4 guesses.
//
// Kernels: each guess gathers M_CC into one contiguous column-major
// buffer (leading dimension |C|) and factors it in place by a
// right-looking Cholesky L L' (Golub & Van Loan, Matrix Computations,
// alg. 4.2.1 "outer product" form): the rank-one updates of the trailing
// block are independent multiply-adds, where a row-by-row factor would
// chain short dot products. Nothing calls into faer. A pivot (the Schur
// complement M_ii - l'l of a row given the rows before it, the append
// rule of factor.rs) at most `pivot_tol` refuses its row, which is how
// redundant contacts (singular PSD M) are kept out of C, as in the
// pivoting: the row and column leave the buffer and the factorisation goes
// on with the next row.
//
// Redundant rows: a refused row keeps z_i = 0 clamped to its bounds; for
// a PSD M its w is then q_i - a'q_C with a = M_CC^-1 M_Ci (see
// block_guess.rs), 0 for consistent contacts up to rounding. A refused row
// at a bound whose w has the wrong sign by more than `w_tol` joins C in
// the next guess, factored first, so that another row of its dependent
// group is refused instead (what the pivoting does by driving it).
//
// The answer is accepted only when every row meets the pivoting's own
// tolerances (`w_tol` for w, 1e-12 ||z|| for the bounds of z_C); when
// the guesses stop lowering the number of violated rows (`STALL`), reach
// `max_guesses`, meet a parked row whose w moved, or give a non-finite z,
// the caller runs the one-row pivoting from z = 0 instead (the guesses'
// work is lost, a few microseconds at most at these sizes).

use super::pivot::State;
use crate::dense_kernels::dot;
use crate::problem::Lcp;
use crate::verify::max_abs;

/// Guesses without fewer violated rows before giving up.
const STALL: usize = 3;

/// Tolerances of one small solve (those of the pivoting, pivot.rs).
pub(crate) struct SmallSettings<'a> {
    /// Lower bounds (coupled rows excluded: the caller sends none).
    pub(crate) lo: &'a [f64],
    /// Upper bounds.
    pub(crate) hi: &'a [f64],
    /// Cholesky pivots `L_ii^2` at most this refuse the row (absolute).
    pub(crate) pivot_tol: f64,
    /// `|w|` at most this counts as 0 (absolute).
    pub(crate) w_tol: f64,
}

/// Workspace of the small-problem block pivoting (allocates only when `n`
/// grows).
#[derive(Clone, Debug, Default)]
pub(crate) struct SmallGuess {
    /// Where each row is.
    state: Vec<State>,
    /// The guess's z (the answer on success).
    pub(crate) z: Vec<f64>,
    /// `w = M z + q` on the rows outside C.
    w: Vec<f64>,
    /// The factor `L` (n x n buffer, column-major, leading dimension `ld`).
    l: Vec<f64>,
    /// Leading dimension of `l`: the problem dimension n.
    ld: usize,
    /// `1 / L_rr`.
    inv_diag: Vec<f64>,
    /// The rows of C in factor order.
    rows: Vec<usize>,
    /// Right-hand side and solution of the `z_C` solve.
    rhs: Vec<f64>,
    /// Whether a row is in C (scratch of the ordering).
    member: Vec<bool>,
    /// Whether a row was refused by the last factorisation.
    refused: Vec<bool>,
    /// Rows joining C in the next guess that go first (dependent groups).
    priority: Vec<usize>,
    /// Whether any row of this solve was refused (M singular on C).
    singular: bool,
    /// Guesses of the last solve.
    pub(crate) guesses: usize,
}

impl SmallGuess {
    /// Solves the box LCP `m` with the fixed bounds of `set` by block
    /// pivoting; true when `self.z` holds an answer that meets the
    /// tolerances, false when the caller must pivot instead.
    pub(crate) fn run(&mut self, m: &Lcp, set: &SmallSettings<'_>, max_guesses: usize) -> bool {
        let n = m.dim();
        self.reset(n);
        let q = m.q();
        // First guess (block_guess.rs): rows whose q strictly fits z = 0 at
        // a bound stay there, the others are clamped.
        for (i, (state, &qi)) in self.state.iter_mut().zip(q).enumerate() {
            let (lo, hi) = (set.lo[i], set.hi[i]);
            *state = if lo >= hi {
                self.z[i] = lo;
                State::AtLo
            } else if lo == 0.0 && qi > 0.0 {
                State::AtLo
            } else if hi == 0.0 && qi < 0.0 {
                State::AtHi
            } else {
                State::Clamped
            };
        }
        let mut best = usize::MAX;
        let mut stalled = 0;
        for guess in 1..=max_guesses {
            self.guesses = guess;
            if !self.solve_guess(m, set) {
                return false;
            }
            let Some(violated) = self.exchange(set) else {
                return false;
            };
            if violated == 0 {
                return true;
            }
            if violated < best {
                best = violated;
                stalled = 0;
            } else {
                stalled += 1;
                if stalled >= STALL {
                    return false;
                }
            }
        }
        false
    }

    /// Sizes the workspace for dimension `n` and empties C.
    fn reset(&mut self, n: usize) {
        self.state.clear();
        self.state.resize(n, State::Clamped);
        for v in [&mut self.z, &mut self.w, &mut self.rhs, &mut self.inv_diag] {
            v.clear();
            v.resize(n, 0.0);
        }
        if self.l.len() < n * n {
            self.l.resize(n * n, 0.0);
        }
        self.ld = n;
        self.member.clear();
        self.member.resize(n, false);
        self.refused.clear();
        self.refused.resize(n, false);
        // Capacity for every row now, so that no later guess or solve of
        // this size allocates, whatever its clamped set.
        self.rows.clear();
        self.rows.reserve(n);
        self.priority.clear();
        self.priority.reserve(n);
        self.singular = false;
        self.guesses = 0;
    }

    /// Factors `M_CC` for the clamped rows, solves for `z_C` and computes
    /// `w` outside C. False when `z` is not finite.
    fn solve_guess(&mut self, m: &Lcp, set: &SmallSettings<'_>) -> bool {
        let n = m.dim();
        for i in 0..n {
            match self.state[i] {
                State::AtLo => self.z[i] = set.lo[i],
                State::AtHi => self.z[i] = set.hi[i],
                // Parked rows are offered again: the rows they depended on
                // may have left C.
                State::Parked => self.state[i] = State::Clamped,
                _ => {}
            }
        }
        // The order of C. Without priority rows: the previous factor's rows
        // in their order up to the first that left C (their factor rows
        // stay valid: a Cholesky factor's leading block depends on the
        // leading rows only), then the other clamped rows by index. With
        // priority rows (dependent groups): those first, then the others
        // by index, factored from scratch.
        let keep = if self.priority.is_empty() {
            let keep = self
                .rows
                .iter()
                .take_while(|&&i| self.state[i] == State::Clamped)
                .count();
            self.rows.truncate(keep);
            self.member.iter_mut().for_each(|x| *x = false);
            for &i in &self.rows {
                self.member[i] = true;
            }
            for i in 0..n {
                if self.state[i] == State::Clamped && !self.member[i] {
                    self.rows.push(i);
                }
            }
            keep
        } else {
            self.rows.clear();
            self.member.iter_mut().for_each(|x| *x = false);
            for &i in &self.priority {
                if self.state[i] == State::Clamped && !self.member[i] {
                    self.member[i] = true;
                    self.rows.push(i);
                }
            }
            for i in 0..n {
                if self.state[i] == State::Clamped && !self.member[i] {
                    self.rows.push(i);
                }
            }
            0
        };
        self.factor(m, set, keep);
        // rhs = -(q_C + M_CN z_N), then z_C = M_CC^-1 rhs.
        let k = self.rows.len();
        let q = m.q();
        for (r, &i) in self.rows.iter().enumerate() {
            self.rhs[r] = -q[i];
        }
        for j in 0..n {
            let zj = self.z[j];
            if self.state[j] != State::Clamped && zj != 0.0 {
                let col = m.col(j);
                for (r, &i) in self.rows.iter().enumerate() {
                    self.rhs[r] -= col[i] * zj;
                }
            }
        }
        self.solve_in_place(k);
        // z_N is at finite bounds (or 0): only z_C can overflow.
        if self.rhs[..k].iter().any(|z| !z.is_finite()) {
            return false;
        }
        for (r, &i) in self.rows.iter().enumerate() {
            self.z[i] = self.rhs[r];
        }
        // w outside C (M symmetric: row i is column i); 0 on C by the solve.
        for (i, (w, &qi)) in self.w.iter_mut().zip(q).enumerate() {
            *w = if self.state[i] == State::Clamped {
                0.0
            } else {
                qi + dot(m.col(i), &self.z)
            };
        }
        true
    }

    /// Factors `M_CC` for C = `self.rows` (right-looking Cholesky of the
    /// gathered block, column-major with leading dimension n), keeping the
    /// factor of the first `keep` rows from the previous guess. A pivot
    /// at most `pivot_tol` (the Schur complement of the row given the rows
    /// before it: the append rule of factor.rs) refuses its row: the row
    /// leaves C and goes back to `z = 0` within its bounds.
    fn factor(&mut self, m: &Lcp, set: &SmallSettings<'_>, keep: usize) {
        if self.singular {
            self.refused.iter_mut().for_each(|x| *x = false);
        }
        let (ld, k) = (self.ld, self.rows.len());
        let a = &mut self.l;
        // The new block's lower part, and its rows of the kept columns.
        for c in 0..k {
            let col = m.col(self.rows[c]);
            for r in c.max(keep)..k {
                a[c * ld + r] = col[self.rows[r]];
            }
        }
        // Rows keep.. of the kept columns: L_21 = M_21 L_11^-T, column by
        // column of L_11 (the right-looking order restricted to them), and
        // the trailing block becomes its Schur complement M_22 - L_21 L_21'.
        for c in 0..keep {
            let inv = self.inv_diag[c];
            let (head, tail) = a.split_at_mut((c + 1) * ld);
            let lc = &mut head[c * ld..c * ld + k];
            lc[keep..].iter_mut().for_each(|x| *x *= inv);
            // Earlier rows of the kept block (c + 1..keep) feed rows keep..
            // of the later kept columns; then the trailing block.
            for c2 in c + 1..k {
                let f = lc[c2];
                if f != 0.0 {
                    let dst = &mut tail[(c2 - c - 1) * ld..(c2 - c - 1) * ld + k];
                    let from = keep.max(c2);
                    for (x, &l) in dst[from..].iter_mut().zip(&lc[from..]) {
                        *x -= f * l;
                    }
                }
            }
        }
        let mut k = k;
        let mut j = keep;
        while j < k {
            let d2 = a[j * ld + j];
            if !(d2 > set.pivot_tol && d2.is_finite()) {
                // Drop position j: later rows move up, later columns left.
                let i = self.rows.remove(j);
                for c in 0..j {
                    a.copy_within(c * ld + j + 1..c * ld + k, c * ld + j);
                }
                for c in j + 1..k {
                    a.copy_within(c * ld + c..c * ld + k, (c - 1) * ld + c - 1);
                }
                k -= 1;
                self.refused[i] = true;
                self.singular = true;
                let z = 0.0_f64.max(set.lo[i]).min(set.hi[i]);
                self.z[i] = z;
                self.state[i] = if z <= set.lo[i] {
                    State::AtLo
                } else if z >= set.hi[i] {
                    State::AtHi
                } else {
                    State::Parked
                };
                continue;
            }
            let d = d2.sqrt();
            let inv = 1.0 / d;
            a[j * ld + j] = d;
            self.inv_diag[j] = inv;
            let (head, tail) = a.split_at_mut((j + 1) * ld);
            let lj = &mut head[j * ld + j + 1..j * ld + k];
            lj.iter_mut().for_each(|x| *x *= inv);
            // Rank-one update of the trailing block, column by column.
            for c in j + 1..k {
                let f = lj[c - j - 1];
                if f != 0.0 {
                    let dst = &mut tail[(c - j - 1) * ld + c..(c - j - 1) * ld + k];
                    for (x, &l) in dst.iter_mut().zip(&lj[c - j - 1..]) {
                        *x -= f * l;
                    }
                }
            }
            j += 1;
        }
    }

    /// Solves `M_CC x = rhs[..k]` in place with the factor.
    fn solve_in_place(&mut self, k: usize) {
        let (ld, l) = (self.ld, &self.l);
        let b = &mut self.rhs[..k];
        // L y = b by columns (an axpy per column keeps the serial chain
        // short), then L' x = y by rows of L' (columns of L, contiguous).
        for c in 0..k {
            let x = b[c] * self.inv_diag[c];
            b[c] = x;
            for (bi, &li) in b[c + 1..].iter_mut().zip(&l[c * ld + c + 1..c * ld + k]) {
                *bi -= li * x;
            }
        }
        for c in (0..k).rev() {
            let (head, tail) = b.split_at_mut(c + 1);
            head[c] = (head[c] - dot(&l[c * ld + c + 1..c * ld + k], tail)) * self.inv_diag[c];
        }
    }

    /// Exchanges the rows that break their bound (clamped) or the sign of
    /// their `w` (at a bound) and returns how many; `None` when a parked
    /// row's `w` moved off 0 (no exchange of its own can fix that).
    fn exchange(&mut self, set: &SmallSettings<'_>) -> Option<usize> {
        let z_tol = 1e-12 * max_abs(&self.z);
        let mut violated = 0;
        self.priority.clear();
        for i in 0..self.state.len() {
            let (lo, hi) = (set.lo[i], set.hi[i]);
            if lo >= hi {
                continue;
            }
            let (z, w) = (self.z[i], self.w[i]);
            let next = match self.state[i] {
                State::Clamped if z < lo - z_tol => {
                    self.z[i] = lo;
                    State::AtLo
                }
                State::Clamped if z > hi + z_tol => {
                    self.z[i] = hi;
                    State::AtHi
                }
                State::AtLo if w < -set.w_tol => State::Clamped,
                State::AtHi if w > set.w_tol => State::Clamped,
                State::Parked if w.abs() > set.w_tol => return None,
                _ => continue,
            };
            violated += 1;
            // A refused row that must join C goes first, so that its
            // group refuses another row (module comment). Only those: giving
            // every joining row priority once M_CC was seen singular (as
            // block_guess.rs does in its strict phase) refactors every
            // guess and measured more hand-overs to the pivoting (19
            // against 7 of the 400 singular problems of the tests).
            if next == State::Clamped && self.refused[i] {
                self.priority.push(i);
            }
            self.state[i] = next;
        }
        Some(violated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 6 x 6 SPD matrix `A A' + I` with a fixed A.
    fn spd() -> Lcp {
        let a = [
            [1.0, 2.0, 0.5],
            [-1.0, 0.3, 2.0],
            [0.7, -0.2, 1.1],
            [2.0, 1.0, -1.0],
            [0.1, 0.4, 0.9],
            [-0.6, 1.5, 0.2],
        ];
        let mut m = vec![0.0; 36];
        for i in 0..6 {
            for j in 0..6 {
                let d: f64 = (0..3).map(|t| a[i][t] * a[j][t]).sum();
                m[i * 6 + j] = d + if i == j { 1.0 } else { 0.0 };
            }
        }
        Lcp::from_row_major(6, &m, &[0.0; 6]).unwrap()
    }

    /// `max |(L L')_rc - M_CC|` over the factored block.
    fn factor_error(g: &SmallGuess, m: &Lcp) -> f64 {
        let (k, ld) = (g.rows.len(), g.ld);
        let mut worst = 0.0_f64;
        for r in 0..k {
            for c in 0..=r {
                let llt: f64 = (0..=c).map(|t| g.l[t * ld + r] * g.l[t * ld + c]).sum();
                let mrc = m.col(g.rows[c])[g.rows[r]];
                worst = worst.max((llt - mrc).abs());
            }
            assert!((g.inv_diag[r] * g.l[r * ld + r] - 1.0).abs() < 1e-15);
        }
        worst
    }

    #[test]
    fn a_kept_leading_block_gives_the_factor_of_the_new_block() {
        let m = spd();
        let (lo, hi) = (vec![0.0; 6], vec![f64::INFINITY; 6]);
        let set = SmallSettings {
            lo: &lo,
            hi: &hi,
            pivot_tol: 1e-12,
            w_tol: 1e-13,
        };
        let mut g = SmallGuess::default();
        g.reset(6);
        g.rows.extend([3, 0, 4]);
        g.factor(&m, &set, 0);
        assert!(factor_error(&g, &m) < 1e-13);
        // Rows 3 and 0 stay (their factor rows are kept), 4 leaves, and
        // 5, 1, 2 join: the result must be the factor of the new block.
        g.rows.truncate(2);
        g.rows.extend([5, 1, 2]);
        g.factor(&m, &set, 2);
        assert_eq!(g.rows, [3, 0, 5, 1, 2]);
        assert!(factor_error(&g, &m) < 1e-13, "{}", factor_error(&g, &m));
    }

    #[test]
    fn a_dependent_row_is_refused_and_leaves_the_block() {
        // Row 2 = row 0 + row 1 of a rank-2 matrix: its pivot is 0.
        let m = Lcp::from_row_major(3, &[2.0, 1.0, 3.0, 1.0, 2.0, 3.0, 3.0, 3.0, 6.0], &[0.0; 3])
            .unwrap();
        let (lo, hi) = (vec![0.0; 3], vec![f64::INFINITY; 3]);
        let set = SmallSettings {
            lo: &lo,
            hi: &hi,
            pivot_tol: 1e-10,
            w_tol: 1e-13,
        };
        let mut g = SmallGuess::default();
        g.reset(3);
        g.rows.extend([2, 0, 1]);
        g.factor(&m, &set, 0);
        assert_eq!(g.rows, [2, 0]);
        assert!(g.refused[1] && g.singular);
        assert_eq!(g.state[1], State::AtLo);
        assert!(factor_error(&g, &m) < 1e-13);
    }
}
