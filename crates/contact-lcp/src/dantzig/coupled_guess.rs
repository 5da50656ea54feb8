// A block principal pivoting guess of a box LCP with friction coupling
// (-mu_i z_j <= z_i <= mu_i z_j), tried when the first coupling pass does
// not certify and restarted from passes that keep their clamped set
// (coupling_passes.rs).
//
// Method (Judice & Pires 1994 block principal pivoting, as block_guess.rs,
// extended to coupled bounds): each row is guessed free (w = 0), at its
// lower or upper bound, or parked (held at 0, its equation dropped). A
// friction row at a bound carries z_i = sigma_i mu_i z_j, linear in its
// normal's z_j: folding sigma_i mu_i M_:i into the normal's column (Baraff
// 1994 sec. 5) makes one guess one dense LU solve (linalg/lu.rs) of the
// non-symmetric E_FF z_F = -(q_F + M_F,B z_B), F the free rows, z_B the
// rows at a constant bound. Then w = M z + q and the violated rows are
// exchanged: a free row outside its bounds goes to the bound it crossed, a
// row at a bound or parked whose w has the wrong sign (is not 0) becomes
// free; a friction row whose normal is 0 is complementary whatever its w.
// While any uncoupled row is violated only those are exchanged.
//
// Redundant rows: a pivoted Cholesky of the symmetric M_FF (faer's
// llt_pivoting) keeps a numerically independent subset of the free rows,
// stopping at a pivot L_jj^2 at most `pivot_tolerance` times the largest
// diagonal; the rest are parked. If E_FF still has an LU pivot that small
// the guess hands over, as it does after `COUPLED_GUESS_STALL` guesses
// without fewer violated rows or `COUPLED_GUESS_MAX` in all (nothing
// guarantees settling on a non-symmetric E). An answer is returned only
// when no row is violated; the caller certifies it.

use super::block_guess::Progress;
use super::pivot::State;
use crate::box_problem::BoxBounds;
use crate::linalg::faer_scratch::FaerScratch;
use crate::linalg::lu::BlockLu;
use crate::problem::Lcp;
use crate::tuning::{COUPLED_GUESS_MAX, COUPLED_GUESS_STALL, GUESS_Z_ROUNDING};
use faer::linalg::cholesky::llt_pivoting::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::{MatMut, Par};

/// Marks "not coupled" / "not free".
const NONE: usize = usize::MAX;

/// Workspace of the coupled guess.
#[derive(Clone, Debug, Default)]
pub(crate) struct CoupledGuess {
    /// What each row is guessed to be, in the pivoting's states (as a
    /// coupling pass hands them over): free is `Clamped`; never
    /// `Unprocessed`.
    guess: Vec<State>,
    /// Row -> its normal row if coupled, else NONE.
    normal_of: Vec<usize>,
    mu: Vec<f64>,
    /// The free rows, normals (uncoupled rows) first.
    free: Vec<usize>,
    /// Row -> its position in `free`, or NONE.
    pos: Vec<usize>,
    lu: BlockLu,
    small: Vec<usize>,
    /// M_FF for the pivoted Cholesky, column-major.
    sym: Vec<f64>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    chol_scratch: FaerScratch,
    rhs: Vec<f64>,
    pub(crate) z: Vec<f64>,
    w: Vec<f64>,
    flips: Vec<(usize, State)>,
    /// Folded friction rows: (row, position of its normal in F, sigma mu).
    folds: Vec<(usize, usize, f64)>,
    /// Guesses of the last run.
    pub(crate) guesses: usize,
    /// The singularity threshold, relative (`DantzigParams::pivot_tolerance`).
    redundant: f64,
}

impl CoupledGuess {
    /// Tries at most `max_guesses` (and `COUPLED_GUESS_MAX`) guesses on `m`
    /// with `bounds`; true when one settled (then `self.z` is the answer),
    /// false to hand over. `w_tol` is the absolute tolerance on `w`,
    /// `redundant` the relative singularity threshold
    /// (`DantzigParams::pivot_tolerance`). The first guess is `setup`'s, or
    /// a coupling pass's `states` (clamped rows free, the others at their
    /// bound or parked): once passes repeat their clamped set they only move
    /// the radii along one linear map, whose fixed point is this folded solve.
    pub(crate) fn run(
        &mut self,
        m: &Lcp,
        bounds: &BoxBounds,
        w_tol: f64,
        redundant: f64,
        states: Option<&[State]>,
        max_guesses: usize,
    ) -> bool {
        self.setup(m, bounds);
        self.redundant = redundant;
        for (g, &state) in self.guess.iter_mut().zip(states.unwrap_or_default()) {
            // Unprocessed is not reached after a finished pass; keep setup's guess.
            if state != State::Unprocessed {
                *g = state;
            }
        }
        let mut progress = Progress::default();
        for round in 1..=max_guesses.min(COUPLED_GUESS_MAX) {
            self.guesses = round;
            if !self.solve(m, bounds) {
                return false;
            }
            self.find_flips(bounds, w_tol);
            let violated = self.flips.len();
            if violated == 0 {
                return true;
            }
            if progress.stalled_after(violated) >= COUPLED_GUESS_STALL {
                return false;
            }
            // While an uncoupled row is violated, only those are exchanged
            // (flipping friction against normals about to change oscillates).
            let uncoupled = self.flips.iter().any(|&(i, _)| self.normal_of[i] == NONE);
            for &(i, g) in &self.flips {
                if !uncoupled || self.normal_of[i] == NONE {
                    self.guess[i] = g;
                }
            }
        }
        false
    }

    /// First guess: every friction row free (sticking), every other row
    /// free where q < 0, else at its lower bound (its upper one if the lower
    /// is infinite; free if both are).
    fn setup(&mut self, m: &Lcp, bounds: &BoxBounds) {
        let n = m.dim();
        self.normal_of.clear();
        self.normal_of.resize(n, NONE);
        self.mu.clear();
        self.mu.resize(n, 0.0);
        for c in bounds.couplings() {
            self.normal_of[c.row] = c.normal_row;
            self.mu[c.row] = c.mu;
        }
        self.guess.clear();
        let (lo, hi) = (bounds.lo(), bounds.hi());
        for i in 0..n {
            let g = if self.normal_of[i] != NONE || (lo[i] < hi[i] && m.q()[i] < 0.0) {
                State::Clamped
            } else if lo[i].is_finite() {
                State::AtLo
            } else if hi[i].is_finite() {
                State::AtHi
            } else {
                State::Clamped
            };
            self.guess.push(g);
        }
        self.pos.clear();
        self.pos.resize(n, NONE);
        for v in [&mut self.z, &mut self.w, &mut self.rhs] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.lu.reserve(n);
        self.guesses = 0;
    }

    /// The coefficient of friction row `i`'s z in its normal's z under the
    /// current guess (`sigma mu`: -mu at the lower bound, +mu at the upper,
    /// with the normal free), with that normal, or None (not coupled, not
    /// at a bound, or the normal not free).
    fn folded(&self, i: usize) -> Option<(usize, f64)> {
        let j = self.normal_of[i];
        if j == NONE || self.guess[j] != State::Clamped {
            return None;
        }
        match self.guess[i] {
            State::AtLo => Some((j, -self.mu[i])),
            State::AtHi => Some((j, self.mu[i])),
            _ => None,
        }
    }

    /// Parks the free rows that depend on others (pivoted Cholesky of M_FF,
    /// module comment), then solves E_FF z_F = -(q_F + M_F,B z_B) by LU,
    /// sets the folded and fixed rows, and computes w. False when the block
    /// is singular.
    fn solve(&mut self, m: &Lcp, bounds: &BoxBounds) -> bool {
        let n = m.dim();
        self.collect_free(n);
        let k = self.free.len();
        // M_FF and its pivoted Cholesky.
        self.sym.clear();
        self.sym.resize(k * k, 0.0);
        for (b, &j) in self.free.iter().enumerate() {
            let col = m.col(j);
            for (x, &i) in self.sym[b * k..(b + 1) * k].iter_mut().zip(&self.free) {
                *x = col[i];
            }
        }
        let max_diag = (0..k).fold(0.0_f64, |a, c| a.max(self.sym[c * k + c]));
        self.perm.clear();
        self.perm.resize(k, 0);
        self.perm_inv.clear();
        self.perm_inv.resize(k, 0);
        let tiny = self.redundant * max_diag;
        let req = cholesky_in_place_scratch::<usize, f64>(k, Par::Seq, Default::default());
        let factored = cholesky_in_place(
            MatMut::from_column_major_slice_mut(&mut self.sym, k, k),
            &mut self.perm,
            &mut self.perm_inv,
            Par::Seq,
            self.chol_scratch.stack(req),
            Default::default(),
        );
        let Ok((info, _)) = factored else {
            return false;
        };
        let rank = (0..info.rank)
            .find(|&c| self.sym[c * k + c].powi(2) <= tiny || self.sym[c * k + c].is_nan())
            .unwrap_or(info.rank);
        if rank < k {
            for c in rank..k {
                self.guess[self.free[self.perm[c]]] = State::Parked;
            }
            self.collect_free(n);
        }
        let (lo, hi) = (bounds.lo(), bounds.hi());
        // z of the rows at a constant bound (uncoupled, at lo or hi), 0
        // elsewhere: the right-hand side's fixed part.
        for (i, zi) in self.z.iter_mut().enumerate() {
            *zi = match self.guess[i] {
                State::AtLo if self.normal_of[i] == NONE => lo[i],
                State::AtHi if self.normal_of[i] == NONE => hi[i],
                _ => 0.0,
            };
        }
        let k = self.free.len();
        self.folds.clear();
        for i in 0..n {
            if let Some((j, coef)) = self.folded(i) {
                self.folds.push((i, self.pos[j], coef));
            }
        }
        // E_FF, column-major, and rhs = -(q_F + M_F,B z_B).
        let block = self.lu.reset(k);
        for (b, &j) in self.free.iter().enumerate() {
            let col = m.col(j);
            for (x, &i) in block[b * k..(b + 1) * k].iter_mut().zip(&self.free) {
                *x = col[i];
            }
        }
        for &(i, b, coef) in &self.folds {
            let col = m.col(i);
            for (x, &r) in block[b * k..(b + 1) * k].iter_mut().zip(&self.free) {
                *x += coef * col[r];
            }
        }
        for (a, &i) in self.free.iter().enumerate() {
            self.rhs[a] = -m.q()[i];
        }
        for l in 0..n {
            let zl = self.z[l];
            if zl != 0.0 {
                let col = m.col(l);
                for (a, &i) in self.free.iter().enumerate() {
                    self.rhs[a] -= col[i] * zl;
                }
            }
        }
        if !self
            .lu
            .factor_listing_small(self.redundant, &mut self.small)
            || !self.small.is_empty()
        {
            return false;
        }
        self.lu.solve(&mut self.rhs[..k]);
        for (a, &i) in self.free.iter().enumerate() {
            self.z[i] = self.rhs[a];
        }
        for i in 0..n {
            if let Some((j, coef)) = self.folded(i) {
                self.z[i] = coef * self.z[j];
            }
        }
        if self.z.iter().any(|x| !x.is_finite()) {
            return false;
        }
        m.affine(&self.z, &mut self.w);
        true
    }

    /// `free` (normals first) and `pos` from the guesses.
    fn collect_free(&mut self, n: usize) {
        self.free.clear();
        for coupled in [false, true] {
            for i in 0..n {
                if self.guess[i] == State::Clamped && (self.normal_of[i] != NONE) == coupled {
                    self.free.push(i);
                }
            }
        }
        self.pos.iter_mut().for_each(|p| *p = NONE);
        for (a, &i) in self.free.iter().enumerate() {
            self.pos[i] = a;
        }
    }

    /// Lists the rows that violate their guess, with the guess they take
    /// (module comment; a friction row's bounds are `+-mu z_j`).
    fn find_flips(&mut self, bounds: &BoxBounds, w_tol: f64) {
        let (lo, hi) = (bounds.lo(), bounds.hi());
        let z_norm = self.z.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        let z_tol = GUESS_Z_ROUNDING * z_norm;
        self.flips.clear();
        for i in 0..self.z.len() {
            let j = self.normal_of[i];
            let (l, h, active) = if j == NONE {
                (lo[i], hi[i], true)
            } else {
                let r = self.mu[i] * self.z[j].max(0.0);
                (-r, r, self.z[j] > 0.0)
            };
            let (zi, wi) = (self.z[i], self.w[i]);
            let flip = match self.guess[i] {
                State::Clamped if zi < l - z_tol => Some(State::AtLo),
                State::Clamped if zi > h + z_tol => Some(State::AtHi),
                State::AtLo if l < h && active && wi < -w_tol => Some(State::Clamped),
                State::AtHi if l < h && active && wi > w_tol => Some(State::Clamped),
                State::Parked if wi.abs() > w_tol => Some(State::Clamped),
                _ => None,
            };
            if let Some(g) = flip {
                self.flips.push((i, g));
            }
        }
    }
}
