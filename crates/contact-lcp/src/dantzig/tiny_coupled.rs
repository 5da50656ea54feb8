// Block principal pivoting of a small friction-coupled box LCP as a whole,
// in arrays of fixed size: a box sliding on the ground (12 rows).
//
// Why: a contact island that slides is the common case of a scene in
// motion, and there the first coupling pass (friction rows held at 0)
// does not certify. The coupling passes then solve fixed-bound problems
// up to the fixed point of the friction radii (coupling_passes.rs): on
// 64 sliding and spinning cubes (`contact_benches::sliding_box_set`, n =
// 12) that took 3-5 passes and 3.9 us a problem, 3.6x ODE's time (whose
// answers there are wrong: scaled error 0.43). The coupled problem itself
// is small enough to be guessed whole.
//
// Method: coupled_guess.rs's (Judice & Pires 1994 block principal
// pivoting extended to coupled bounds; a friction row at a bound carries
// z_i = sigma_i mu_i z_j, folded into its normal's column, Baraff 1994
// sec. 5), with this module's own bookkeeping:
// - every array has a fixed size (`TINY_COUPLED_MAX` rows) and lives in
//   the workspace; no call into faer (its setup cost more than these
//   solves: the faer-based coupled guess took 17-46 us on a sliding box);
// - the first guess is read off the first coupling pass's answer: its
//   uncoupled rows keep their place (strictly inside their bounds: free,
//   else at the bound they reached), and a friction row whose w there
//   pushes it one way starts at the bound that opposes it (w_i > 0, the
//   contact slides forward: lower bound; w_i < 0: upper), the others
//   free (sticking). On the 64 cubes (a NumPy model of this module) 22
//   settle in one guess, the mean is 3;
// - redundant rows (four contacts on one face: the normal block has rank
//   3, the friction block rank 3 of 8) are found before each solve by a
//   Cholesky factorisation of the symmetric M_FF with diagonal pivoting
//   (largest remaining pivot first), ended by the pivoting's singularity
//   rule; the rows left over are parked (held at 0, their equation
//   dropped). A parked row whose w is not 0 goes to the bound its w asks
//   for (w > 0: lower, w < 0: upper) where that bound is finite and its
//   normal carries load, else becomes free: made free, a redundant
//   friction row would be parked again at the next guess, and the guesses
//   cycled (measured in the model: 32 of 300 random sliding boxes did not
//   settle before this rule, 4 after it with the next one);
// - the exchange: normals first (coupled_guess.rs's rule: friction
//   bounds follow the normals), every violated row at once while the
//   count of violated rows falls, then, after `STALL` guesses without a
//   new lowest count, one row a guess, the largest index first (Murty's
//   rule, Judice & Pires' fallback), which breaks the cycles among
//   redundant friction rows that the block exchange enters.
// The folded block E_FF is not symmetric; it is factored by Gaussian
// elimination with partial (row) pivoting. A pivot at most `REDUNDANT`
// times the block's largest entry, a z that is not finite, or
// `MAX_GUESSES` guesses hand the problem back to the coupling passes.
// Termination of the exchanges is not guaranteed for a non-symmetric E
// (Judice & Pires' proof needs a P-matrix): the guess limit ends them, and
// an answer is returned only when no row violates its guess; the caller
// projects and certifies it.

use super::coupled_guess::{Guess, Guesses, NONE, folded};
use crate::box_problem::BoxBounds;
use crate::problem::Lcp;

/// Largest dimension solved here: a box with four contacts (12 rows) and
/// room for a few more rows.
pub(crate) const TINY_COUPLED_MAX: usize = 16;

/// Most guesses before handing over (the model's worst of 64 cubes: 18).
const MAX_GUESSES: usize = 24;
/// Guesses without a new lowest count of violated rows before the
/// exchange goes one row at a time.
const STALL: usize = 2;
/// A Cholesky pivot (Schur complement diagonal) or an LU pivot at most
/// this times the block's largest diagonal or entry marks a redundant row
/// (as Dantzig's default `pivot_tolerance`).
const REDUNDANT: f64 = 1e-10;
/// `|w_i|` above this times `||q||_inf` in the first coupling pass puts a
/// friction row at a bound in the first guess (below it: sticking). Looser
/// than the exchange's `w_tol`: a first guess only needs a direction.
/// The coupling passes start their second pass by the same rule
/// (coupling_passes.rs).
pub(super) const FIRST_GUESS_W: f64 = 1e-9;

/// Workspace of the coupled guess of small problems: fixed-size arrays, so
/// a solve allocates nothing.
#[derive(Clone, Debug)]
pub(crate) struct TinyCoupled {
    guess: [Guess; TINY_COUPLED_MAX],
    /// Row -> its normal row if coupled, else `NONE`.
    normal_of: [usize; TINY_COUPLED_MAX],
    mu: [f64; TINY_COUPLED_MAX],
    /// The free rows, uncoupled first; `k` of them.
    free: [usize; TINY_COUPLED_MAX],
    k: usize,
    /// Row -> its position in `free` (valid for free rows only).
    pos: [usize; TINY_COUPLED_MAX],
    /// Work matrix by columns: `a[c][r]`, the block of the free rows.
    a: [[f64; TINY_COUPLED_MAX]; TINY_COUPLED_MAX],
    /// Row permutation of the LU, and the Cholesky's pivot order.
    perm: [usize; TINY_COUPLED_MAX],
    rhs: [f64; TINY_COUPLED_MAX],
    /// The guess's z (the answer when settled).
    pub(crate) z: [f64; TINY_COUPLED_MAX],
    /// `M z + q` of the last guess.
    w: [f64; TINY_COUPLED_MAX],
    /// Violated rows of the last guess, with the guess each takes.
    flips: [(usize, Guess); TINY_COUPLED_MAX],
    /// Guesses of the last run.
    pub(crate) guesses: usize,
}

impl Default for TinyCoupled {
    fn default() -> Self {
        Self {
            guess: [Guess::Free; TINY_COUPLED_MAX],
            normal_of: [NONE; TINY_COUPLED_MAX],
            mu: [0.0; TINY_COUPLED_MAX],
            free: [0; TINY_COUPLED_MAX],
            k: 0,
            pos: [0; TINY_COUPLED_MAX],
            a: [[0.0; TINY_COUPLED_MAX]; TINY_COUPLED_MAX],
            perm: [0; TINY_COUPLED_MAX],
            rhs: [0.0; TINY_COUPLED_MAX],
            z: [0.0; TINY_COUPLED_MAX],
            w: [0.0; TINY_COUPLED_MAX],
            flips: [(0, Guess::Free); TINY_COUPLED_MAX],
            guesses: 0,
        }
    }
}

impl TinyCoupled {
    /// Guesses the coupled problem `m`, `bounds` (dimension at most
    /// [`TINY_COUPLED_MAX`], symmetric `M`) from the answer `first_z`,
    /// `first_w` of its first coupling pass (friction rows held at 0);
    /// true when a guess settled (`self.z[..n]` is the answer, for the
    /// caller to project and certify), false to hand over. `w_tol` is the
    /// absolute tolerance on `w`.
    pub(crate) fn run(
        &mut self,
        m: &Lcp,
        bounds: &BoxBounds,
        first_z: &[f64],
        first_w: &[f64],
        w_tol: f64,
    ) -> bool {
        let n = m.dim();
        if n > TINY_COUPLED_MAX || first_z.len() != n || first_w.len() != n {
            return false;
        }
        self.first_guess(m, bounds, first_z, first_w);
        let mut best = usize::MAX;
        let mut stalled = 0;
        for round in 1..=MAX_GUESSES {
            self.guesses = round;
            self.park_redundant(m);
            if !self.solve(m, bounds) {
                return false;
            }
            let violated = self.find_flips(bounds, w_tol);
            if violated == 0 {
                return true;
            }
            if violated < best {
                best = violated;
                stalled = 0;
            } else {
                stalled += 1;
            }
            // Friction bounds follow the normals: while an uncoupled row is
            // violated, only those are exchanged.
            let uncoupled = self.flips[..violated]
                .iter()
                .any(|&(i, _)| self.normal_of[i] == NONE);
            let eligible = |i: usize| !uncoupled || self.normal_of[i] == NONE;
            if stalled >= STALL {
                // Murty's rule: the largest eligible index alone.
                if let Some(&(i, g)) = self.flips[..violated]
                    .iter()
                    .rev()
                    .find(|&&(i, _)| eligible(i))
                {
                    self.guess[i] = g;
                }
            } else {
                for &(i, g) in &self.flips[..violated] {
                    if eligible(i) {
                        self.guess[i] = g;
                    }
                }
            }
        }
        false
    }

    /// The couplings, and the first guess from the first coupling pass
    /// (see the module comment).
    fn first_guess(&mut self, m: &Lcp, bounds: &BoxBounds, first_z: &[f64], first_w: &[f64]) {
        let n = m.dim();
        self.normal_of[..n].fill(NONE);
        for c in bounds.couplings() {
            self.normal_of[c.row] = c.normal_row;
            self.mu[c.row] = c.mu;
        }
        let push = FIRST_GUESS_W * m.q_max_abs();
        let (lo, hi) = (bounds.lo(), bounds.hi());
        for i in 0..n {
            let (zi, wi) = (first_z[i], first_w[i]);
            self.guess[i] = if self.normal_of[i] != NONE {
                if wi > push {
                    Guess::Lower
                } else if wi < -push {
                    Guess::Upper
                } else {
                    Guess::Free
                }
            } else if zi <= lo[i] && lo[i].is_finite() {
                Guess::Lower
            } else if zi >= hi[i] && hi[i].is_finite() {
                Guess::Upper
            } else {
                Guess::Free
            };
        }
    }

    /// Lists the free rows, uncoupled first, in `free` and `pos`.
    fn collect_free(&mut self, n: usize) {
        self.k = 0;
        for coupled in [false, true] {
            for i in 0..n {
                if self.guess[i] == Guess::Free && (self.normal_of[i] != NONE) == coupled {
                    self.free[self.k] = i;
                    self.pos[i] = self.k;
                    self.k += 1;
                }
            }
        }
    }

    /// Parks the free rows that depend on the others: a Cholesky
    /// factorisation of M_FF with diagonal pivoting (the largest remaining
    /// Schur complement diagonal first) stops at a pivot at most
    /// `REDUNDANT` times the largest diagonal, and the rows not yet taken
    /// are parked.
    fn park_redundant(&mut self, m: &Lcp) {
        let n = m.dim();
        self.collect_free(n);
        let k = self.k;
        let mut max_diag = 0.0_f64;
        for c in 0..k {
            let col = m.col(self.free[c]);
            for r in 0..k {
                self.a[c][r] = col[self.free[r]];
            }
            max_diag = max_diag.max(self.a[c][c]);
            self.perm[c] = c;
        }
        let tiny = REDUNDANT * max_diag;
        let mut rank = 0;
        while rank < k {
            // The largest remaining diagonal.
            let mut at = rank;
            for t in rank + 1..k {
                if self.a[self.perm[t]][self.perm[t]] > self.a[self.perm[at]][self.perm[at]] {
                    at = t;
                }
            }
            let p = self.perm[at];
            let d = self.a[p][p];
            if d.is_nan() || d <= tiny {
                break;
            }
            self.perm.swap(rank, at);
            rank += 1;
            // Schur complement of the remaining rows (symmetric: column p
            // is row p).
            for t in rank..k {
                let c = self.perm[t];
                let f = self.a[p][c] / d;
                if f != 0.0 {
                    for s in rank..k {
                        let r = self.perm[s];
                        self.a[c][r] -= f * self.a[p][r];
                    }
                }
            }
        }
        if rank < k {
            for t in rank..k {
                self.guess[self.free[self.perm[t]]] = Guess::Parked;
            }
            self.collect_free(n);
        }
    }

    /// The coefficient of a friction row's z in its normal's z under the
    /// current guess, or None (coupled_guess.rs's [`folded`]).
    fn folded(&self, i: usize) -> Option<(usize, f64)> {
        folded(&self.guess, &self.normal_of, &self.mu, i)
    }

    /// Solves `E_FF z_F = -(q_F + M_F,B z_B)` for the free rows (E: M with
    /// the folded friction columns), sets the folded and fixed rows, and
    /// computes w. False when the block is singular or z not finite.
    fn solve(&mut self, m: &Lcp, bounds: &BoxBounds) -> bool {
        let n = m.dim();
        let k = self.k;
        let (lo, hi) = (bounds.lo(), bounds.hi());
        Guesses {
            guess: &self.guess[..n],
            normal_of: &self.normal_of[..n],
            mu: &self.mu[..n],
        }
        .fixed_values(&mut self.z[..n], lo, hi);
        // E_FF by columns: M_FF, then the folded friction columns.
        for c in 0..k {
            let col = m.col(self.free[c]);
            for r in 0..k {
                self.a[c][r] = col[self.free[r]];
            }
        }
        for i in 0..n {
            if let Some((j, coef)) = self.folded(i) {
                let col = m.col(i);
                let c = self.pos[j];
                for r in 0..k {
                    self.a[c][r] += coef * col[self.free[r]];
                }
            }
        }
        let q = m.q();
        for r in 0..k {
            self.rhs[r] = -q[self.free[r]];
        }
        for l in 0..n {
            let zl = self.z[l];
            if zl != 0.0 {
                let col = m.col(l);
                for r in 0..k {
                    self.rhs[r] -= col[self.free[r]] * zl;
                }
            }
        }
        if !self.lu_solve() {
            return false;
        }
        for r in 0..k {
            self.z[self.free[r]] = self.rhs[r];
        }
        for i in 0..n {
            if let Some((j, coef)) = self.folded(i) {
                self.z[i] = coef * self.z[j];
            }
        }
        if self.z[..n].iter().any(|x| !x.is_finite()) {
            return false;
        }
        m.affine(&self.z[..n], &mut self.w[..n]);
        true
    }

    /// Solves `a x = rhs` in place (x in `rhs`) by Gaussian elimination with
    /// partial pivoting; false when a pivot is at most `REDUNDANT` times
    /// the block's largest entry.
    fn lu_solve(&mut self) -> bool {
        let k = self.k;
        let mut max_abs = 0.0_f64;
        for c in 0..k {
            for r in 0..k {
                max_abs = max_abs.max(self.a[c][r].abs());
            }
        }
        let tiny = REDUNDANT * max_abs;
        for c in 0..k {
            // Row pivoting: swap the largest entry of column c into row c,
            // in every column and in rhs.
            let mut p = c;
            for r in c + 1..k {
                if self.a[c][r].abs() > self.a[c][p].abs() {
                    p = r;
                }
            }
            let d = self.a[c][p];
            if d.is_nan() || d.abs() <= tiny {
                return false;
            }
            if p != c {
                for col in &mut self.a[c..k] {
                    col.swap(c, p);
                }
                self.rhs.swap(c, p);
            }
            for r in c + 1..k {
                let f = self.a[c][r] / d;
                self.a[c][r] = f;
                if f != 0.0 {
                    for t in c + 1..k {
                        self.a[t][r] -= f * self.a[t][c];
                    }
                    self.rhs[r] -= f * self.rhs[c];
                }
            }
        }
        for c in (0..k).rev() {
            let x = self.rhs[c] / self.a[c][c];
            self.rhs[c] = x;
            for r in 0..c {
                self.rhs[r] -= self.a[c][r] * x;
            }
        }
        true
    }

    /// Lists the rows that violate their guess in `flips`, with the guess
    /// each takes; returns how many.
    fn find_flips(&mut self, bounds: &BoxBounds, w_tol: f64) -> usize {
        let n = bounds.lo().len();
        let (lo, hi) = (bounds.lo(), bounds.hi());
        let z_norm = self.z[..n].iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        let z_tol = 1e-12 * z_norm;
        let mut count = 0;
        let g = Guesses {
            guess: &self.guess[..n],
            normal_of: &self.normal_of[..n],
            mu: &self.mu[..n],
        };
        for i in 0..n {
            let row = g.row_state(i, &self.z[..n], &self.w[..n], lo, hi);
            // A parked row goes to the bound its w asks for (see the
            // module comment).
            if let Some(g) = row.violation(z_tol, w_tol, true) {
                self.flips[count] = (i, g);
                count += 1;
            }
        }
        count
    }
}
