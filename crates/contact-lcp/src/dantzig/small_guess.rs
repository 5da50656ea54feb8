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
// Kernels: each guess factors M_CC = U'DU (U unit upper triangular, D
// diagonal) by bordering (the "up-looking" form of Golub & Van Loan,
// Matrix Computations, sec. 4.1.2 and 4.2.6): the row appended at
// position j gathers its column of M_CC, solves U_11' c = M_1j, takes
// u = D_11^-1 c as its column of U and the pivot D_jj = M_jj - c'u. U is
// column-major with columns padded to groups of four (zeros from the
// diagonal down; the unit diagonal is not stored, 1 / D_jj is), so the
// bordering solves and the triangular solves of z_C are the blocked
// kernels of upper_factor.rs, contiguous from row 0. With U'U (a Cholesky
// factor) each step of a triangular solve waited on a multiply by
// 1 / U_jj and each row of the factor on a square root; without them, in
// paired runs a whole Dantzig solve took 0.90x the time on spd_16_set,
// 0.91x on spd_16, 0.93x on normal_stack_5, 0.89x on spd_64 and
// normal_stack_20 (more instructions: the scaling by D^-1 is a pass of
// its own). The rows of C up to the first that left it keep
// their columns of U from the previous guess (a factor's leading
// block depends on the leading rows only); the first guess orders C by q
// ascending, the rows likeliest to stay first (measured: spd_64 of the
// peers' problems 299k -> 279k instructions a solve, others within 1 %).
// Rows are appended four at a time (block bordering): the four solves
// U_11' c = M_1j run as one, in four lanes (upper_factor.rs), then each of
// the four is bordered against those of the four accepted before it in a
// 4 x 4 Schur complement. One row at a time, each row's solve waited on
// the row before (its last block reads the new column of U) and the solves
// were short loops; together, four chains of dependent operations overlap
// and share the loads of U. Measured against one row at a time (paired
// runs, whole Dantzig solves): normal_stack_5 0.72x the time, spd_16
// 0.96x, spd_16_set 0.96x; callgrind, instructions a solve, normal_stack_5
// 14.69k -> 12.37k, spd_64 119.9k -> 100.9k, spd_16 10.81k -> 11.23k
// (fewer rows per guess there, so part-filled groups).
// A pivot at most `pivot_tol` (the Schur complement of the row given the
// rows before it, the append rule of factor.rs) refuses its row, which is
// how redundant contacts (singular PSD M) are kept out of C, as in the
// pivoting: the row leaves C and the rows after it are factored without
// it (those of its group of four are bordered against the group's
// accepted rows only), so nothing else moves. Nothing calls into faer, and
// the whole solve runs inside one `with_best_lanes` dispatch (lanes.rs),
// so the plain loops are compiled for AVX2 where the machine has it; no
// multiply-add is fused by the compiler and no sum reordered (the
// triangles and the pairs of products of upper_factor.rs, and the group's
// own block here, fuse explicitly with `f64::mul_add` or
// `Lanes::mul_add`, which round once on every machine), so the bits are
// those of the plain build (tested). Measured (callgrind, instructions per whole Dantzig solve,
// certificate included, the peers' problems; before: a right-looking L L'
// with a matrix shift per refused row, in scalar loops): spd_16 27.6k ->
// 19.1k, normal_stack_5 61.6k -> 27.4k (with the first guess below).
// At these sizes most instructions are loop setup and per-row tests, not
// arithmetic, so the loops over all rows avoid indexing and what a plain
// LCP does not need (the z_N sweep of the rhs, see `zero_bounds`):
// with the leaner blocks of upper_factor.rs, spd_16 15.4k -> 13.7k,
// normal_stack_5 22.2k -> 18.5k (docs/benchmarks.md).
// On a plain LCP the forward solve U' y = -q_C is appended with the
// factor's rows (one more product per row in the pass that scales the
// four new columns, then the group's own rows), and kept from one guess
// to the next for the rows whose factor rows are kept: the z_C solve of a
// guess is then D^-1 y and the backward solve alone. One row at a time
// this cost more than a blocked forward solve per guess (normal_stack_5
// +0.5k instructions); with four rows at a time it takes the forward
// solve's chain of dependent blocks out of every guess. Paired runs
// against 89aa0ab: spd_16 0.92x the time, spd_16_set 0.95x,
// normal_stack_5 0.94x (instructions 11.14k -> 10.82k, 12.22k -> 12.21k).
//
// First guess: as in block_guess.rs, rows whose q fits z = 0 at a bound
// by more than `RESTING_Q` ||q|| stay there and all others are clamped,
// resting contacts (q ~ 0) included: on the 5-box stack (n = 20) leaving
// them at 0 took 4 guesses instead of 1.
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
// the caller solves the problem from the start as without this module:
// the faer-based block guess from `block_guess_from` rows on, else the
// one-row pivoting from z = 0 (the guesses' work is lost: a few
// microseconds at n = 16, up to about 0.1 ms at the default limit of 128
// rows).

use super::block_guess::Progress;
use super::upper_factor;
use crate::dense_kernels::dot;
use crate::lane_scan::max_abs_in;
use crate::lanes::{Lanes, LanesOp, with_best_lanes};
use crate::problem::Lcp;

/// Guesses without fewer violated rows before giving up.
pub(super) const STALL: usize = 3;

/// Rows with `|q_i|` at most this times `||q||_inf` start clamped, as
/// resting contacts (block_guess.rs's rule and value).
pub(super) const RESTING_Q: f64 = 1e-6;

/// Tolerances of one small solve (those of the pivoting, pivot.rs).
pub(crate) struct SmallSettings<'a> {
    /// Lower bounds (a coupled row comes held at 0: lo = hi = 0).
    pub(crate) lo: &'a [f64],
    /// Upper bounds.
    pub(crate) hi: &'a [f64],
    /// Pivots (Schur complements `D_ii`) at most this refuse the row
    /// (absolute).
    pub(crate) pivot_tol: f64,
    /// `|w|` at most this counts as 0 (absolute).
    pub(crate) w_tol: f64,
    /// `||q||_inf` (the caller has it from `w_tol`).
    pub(crate) q_max: f64,
}

/// Where a row of the guess is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Row {
    /// In C: `z` solved for, `w = 0`.
    Clamped,
    /// At its lower bound.
    AtLo,
    /// At its upper bound.
    AtHi,
    /// Refused from C with `z` strictly inside its bounds: its `w` must
    /// stay 0.
    Parked,
    /// `lo >= hi`: `z = lo` for good, never exchanged.
    Fixed,
}

/// Workspace of the small-problem block pivoting (allocates only when `n`
/// grows).
#[derive(Clone, Debug, Default)]
pub(crate) struct SmallGuess {
    /// Where each row is.
    row: Vec<Row>,
    /// The guess's z (the answer on success).
    pub(crate) z: Vec<f64>,
    /// `w = M z + q` of the last guess outside C (see `w_affine`).
    w: Vec<f64>,
    /// Whether `w` holds `M z + q` on every row with the bits of
    /// `Lcp::affine`.
    w_affine: bool,
    /// The factor `U` of `M_CC = U' D U` (column-major unit upper
    /// triangle without its diagonal, leading dimension `ld`).
    u: Vec<f64>,
    /// Leading dimension of `u`: the problem dimension n.
    ld: usize,
    /// `1 / D_rr`.
    inv_diag: Vec<f64>,
    /// The rows of C in factor order.
    rows: Vec<usize>,
    /// The bordering solves of four appended rows, interleaved (row `r`
    /// of the four in one entry; `upper_factor::solve_transposed_four`).
    xs: Vec<[f64; 4]>,
    /// Rows that joined C in the last exchange (not refused before).
    joined: Vec<usize>,
    /// The rows outside C and not fixed, as bits (row `i` is bit `i % 64`
    /// of word `i / 64`), marked by each guess after its factor.
    outside: Vec<u64>,
    /// The rows not fixed (`lo < hi`), as bits, marked by the first guess.
    movable: Vec<u64>,
    /// Sort keys of the first guess's rows (`order_key` of q, index in
    /// the low bits).
    keys: Vec<u64>,
    /// Rows joining C that were refused by the last factorisation: they
    /// go first in the next one (dependent groups, see the module comment).
    priority: Vec<usize>,
    /// Right-hand side and solution of the `z_C` solve.
    rhs: Vec<f64>,
    /// `U' y = -q_C` in factor order, appended by the factor with its
    /// rows (read when every finite bound is 0, `zero_bounds`): the next
    /// guess keeps its entries for the rows whose factor rows it keeps.
    y: Vec<f64>,
    /// Whether a row was refused by the last factorisation.
    refused: Vec<bool>,
    /// Parked rows (offered to C again at the next guess).
    parked: usize,
    /// Whether every finite bound is 0 (so `z` is 0 off C).
    zero_bounds: bool,
    /// Whether any row of this solve was refused (M singular on C).
    singular: bool,
    /// Guesses of the last solve.
    pub(crate) guesses: usize,
}

/// One solve, run inside [`with_best_lanes`] so that the plain loops of
/// the kernels are compiled for the machine's vectors (AVX2 where there is
/// one). No multiply-add is fused implicitly (only the explicit
/// `f64::mul_add` and `Lanes::mul_add`, here and in upper_factor.rs) and
/// every sum keeps its order, so the bits do not depend on which vectors
/// ran (checked in the tests).
struct Solve<'a, 'b> {
    guess: &'a mut SmallGuess,
    m: &'a Lcp,
    set: &'a SmallSettings<'b>,
    max_guesses: usize,
}

impl LanesOp for Solve<'_, '_> {
    type Output = bool;

    #[inline(always)]
    fn run<L: Lanes>(self, lanes: L) -> bool {
        self.guess.solve(lanes, self.m, self.set, self.max_guesses)
    }
}

impl SmallGuess {
    /// Solves the box LCP `m` with the fixed bounds of `set` by block
    /// pivoting; true when `self.z` holds an answer that meets the
    /// tolerances, false when the caller must pivot instead.
    pub(crate) fn run(&mut self, m: &Lcp, set: &SmallSettings<'_>, max_guesses: usize) -> bool {
        let settled = with_best_lanes(Solve {
            guess: self,
            m,
            set,
            max_guesses,
        });
        // The last guess's w is the answer's only if it settled (an
        // exchange moves z).
        self.w_affine &= settled;
        settled
    }

    /// `M z + q` for the answer in `self.z`, with the bits of
    /// `Lcp::affine`, when the last [`SmallGuess::run`] settled and its last
    /// guess computed w so (see `solve_guess`).
    pub(crate) fn w_of_z(&self) -> Option<&[f64]> {
        self.w_affine.then_some(&self.w[..])
    }

    /// The body of [`SmallGuess::run`].
    #[inline(always)]
    fn solve<L: Lanes>(
        &mut self,
        lanes: L,
        m: &Lcp,
        set: &SmallSettings<'_>,
        max_guesses: usize,
    ) -> bool {
        let n = m.dim();
        self.reset(n);
        let q = m.q();
        // First guess (block_guess.rs): rows whose q fits z = 0 at a bound
        // by more than `RESTING_Q` ||q|| stay there, the others are clamped
        // (a resting contact, q ~ 0, carries load once the rows below it
        // push).
        let resting = RESTING_Q * set.q_max;
        let mut zero_bounds = true;
        // C is listed without a branch on the guess (which follows the
        // signs of q, so it is mispredicted on problems that differ from
        // one solve to the next): every index is written, the count moves
        // past the clamped ones only.
        self.rows.extend(0..n);
        let mut clamped = 0;
        let mut movable = 0_u64;
        let listed = &mut self.rows[..];
        let rows = self.row.iter_mut().zip(&mut self.z).zip(q);
        for (i, (((row, z), &qi), (&lo, &hi))) in rows.zip(set.lo.iter().zip(set.hi)).enumerate() {
            // b + b == b exactly for b = ±0 and ±inf (not for other
            // numbers): no branch per row.
            zero_bounds &= (lo + lo == lo) & (hi + hi == hi);
            let guess = first_guess(lo, hi, qi, resting);
            *row = guess;
            *z = if guess == Row::Fixed { lo } else { 0.0 };
            listed[clamped] = i;
            clamped += usize::from(guess == Row::Clamped);
            movable |= u64::from(guess != Row::Fixed) << (i % 64);
            if i % 64 == 63 || i + 1 == n {
                self.movable[i / 64] = movable;
                movable = 0;
            }
        }
        self.rows.truncate(clamped);
        // The most negative q first: those rows are the likeliest to stay
        // in C, and the factor of the rows before the first that leaves C
        // is kept for the next guess (module comment). Ties by index, so
        // the order depends on the problem only.
        // Sorted as integers: `order_key` orders as `f64::total_cmp`,
        // without the indirect loads and float compares of a comparison
        // sort on (q, index) (measured: normal_stack_5, whose 20 rows all
        // start in C, 22.2k -> 20.8k instructions a solve). One 64-bit
        // word per row: the key's low bits give way to the row index (6
        // bits at n <= 64), so q values that agree but for the last few
        // bits of their mantissa tie and go by index (the order is a
        // heuristic); 128-bit keys cost twice the compares
        // (normal_stack_5: 0.9k instructions of a 16k solve in the sort).
        let index_bits = usize::BITS - (n.max(2) - 1).leading_zeros();
        let high = u64::MAX.checked_shl(index_bits).unwrap_or(0);
        self.keys.clear();
        self.keys.extend(
            self.rows
                .iter()
                .map(|&i| (order_key(q[i]) & high) | i as u64),
        );
        self.keys.sort_unstable();
        let low = !high;
        for (r, &k) in self.rows.iter_mut().zip(&self.keys) {
            *r = (k & low) as usize;
        }
        self.zero_bounds = zero_bounds;
        let mut keep = 0;
        let mut progress = Progress::default();
        for guess in 1..=max_guesses {
            self.guesses = guess;
            if !self.solve_guess(lanes, m, set, keep) {
                return false;
            }
            let Some(violated) = self.exchange(lanes, set) else {
                return false;
            };
            if violated == 0 {
                return true;
            }
            if progress.stalled_after(violated) >= STALL {
                return false;
            }
            keep = self.reorder();
        }
        false
    }

    /// Sizes the workspace for dimension `n` and empties C.
    #[inline(always)]
    fn reset(&mut self, n: usize) {
        // `row` and `z` are written on every row by the first guess, `w` and
        // `inv_diag` before they are read in every guess: sized, not
        // cleared (each clear was a call to memset).
        self.row.resize(n, Row::Clamped);
        self.z.resize(n, 0.0);
        self.w.resize(n, 0.0);
        self.inv_diag.resize(n, 0.0);
        // Columns padded to whole groups of four (at least one), zero below
        // the strict upper triangle: column j holds U_0j..U_(j-1)j and
        // zeros (the unit diagonal is implicit, `1 / D_jj` is in
        // `inv_diag`), whichever rows it was
        // built for, so the invariant survives from one solve to the next
        // as long as the layout does.
        let ld = n.next_multiple_of(4).max(4);
        if ld != self.ld {
            self.u.clear();
            self.ld = ld;
        }
        if self.u.len() < n * ld {
            self.u.resize(n * ld, 0.0);
        }
        // The solves read no row past those in use but as padding of
        // unknowns they do not store (upper_factor.rs): any value will do.
        self.rhs.resize(ld, 0.0);
        self.y.resize(ld, 0.0);
        self.xs.resize(ld, [0.0; 4]);
        // Only a solve that refused a row left a flag set.
        if self.singular {
            self.refused.fill(false);
        }
        self.refused.resize(n, false);
        // Capacity for every row now, so that no later guess or solve of
        // this size allocates, whatever its clamped set.
        let words = n.div_ceil(64);
        self.outside.resize(words, 0);
        self.movable.resize(words, 0);
        for v in [&mut self.rows, &mut self.joined, &mut self.priority] {
            v.clear();
            v.reserve(n);
        }
        self.keys.clear();
        self.keys.reserve(n);
        self.parked = 0;
        self.singular = false;
        self.guesses = 0;
    }

    /// The order of C for the next guess, and how many of its leading rows
    /// keep their factor rows. Without priority rows: the previous factor's
    /// rows in their order up to the first that left C (a U'DU factor's
    /// leading block depends on the leading rows only), then its other rows
    /// still in C, then the rows that joined. With priority rows (dependent
    /// groups): those first, then the others, factored from scratch.
    #[inline(always)]
    fn reorder(&mut self) -> usize {
        if self.parked > 0 {
            // Parked rows are offered again: the rows they depended on may
            // have left C.
            for (i, row) in self.row.iter_mut().enumerate() {
                if *row == Row::Parked {
                    *row = Row::Clamped;
                    self.joined.push(i);
                }
            }
            self.parked = 0;
        }
        let row = &self.row;
        let keep = self
            .rows
            .iter()
            .take_while(|&&i| row[i] == Row::Clamped)
            .count();
        let mut len = keep;
        for r in keep..self.rows.len() {
            let i = self.rows[r];
            if row[i] == Row::Clamped {
                self.rows[len] = i;
                len += 1;
            }
        }
        self.rows.truncate(len);
        self.rows.extend_from_slice(&self.joined);
        self.joined.clear();
        if self.priority.is_empty() {
            return keep;
        }
        let first = self.priority.len();
        self.rows.extend_from_slice(&self.priority);
        self.rows.rotate_right(first);
        self.priority.clear();
        0
    }

    /// Factors `M_CC` for the clamped rows (keeping the factor of the first
    /// `keep`), solves for `z_C` and computes `w` outside C. False when `z`
    /// is not finite.
    #[inline(always)]
    fn solve_guess<L: Lanes>(
        &mut self,
        lanes: L,
        m: &Lcp,
        set: &SmallSettings<'_>,
        keep: usize,
    ) -> bool {
        self.factor(lanes, m, set, keep);
        // rhs = -(q_C + M_CN z_N), then z_C = M_CC^-1 rhs.
        let (n, k) = (m.dim(), self.rows.len());
        let q = m.q();
        if self.zero_bounds {
            // z_N = 0 (a plain LCP), so rhs = -q_C, whose forward solve
            // U' y = -q_C the factor computed row by row as it appended
            // them (`append_four`), and kept for the rows whose factor rows
            // it kept: D^-1 y, then U z_C = D^-1 y. Measured: see the
            // module comment.
            let inv_diag = &self.inv_diag[..k];
            for ((x, &y), &inv) in self.rhs[..k].iter_mut().zip(&self.y[..k]).zip(inv_diag) {
                *x = y * inv;
            }
            upper_factor::solve_in_place(lanes, &self.u, self.ld, k, &mut self.rhs);
        } else {
            let rhs = &mut self.rhs[..k];
            for (b, &i) in rhs.iter_mut().zip(&self.rows) {
                *b = -q[i];
            }
            for (j, (&zj, &row)) in self.z.iter().zip(&self.row).enumerate() {
                if row != Row::Clamped && zj != 0.0 {
                    let col = m.col(j);
                    for (b, &i) in rhs.iter_mut().zip(&self.rows) {
                        *b -= col[i] * zj;
                    }
                }
            }
            self.solve_in_place(lanes, k);
        }
        // z_N is at finite bounds (or 0): only z_C can overflow.
        if self.rhs[..k].iter().any(|z| !z.is_finite()) {
            return false;
        }
        // On local slices, as in `factor`: a store through a field's
        // buffer could alias the fields for all the compiler knows.
        let z = &mut self.z[..];
        for (&x, &i) in self.rhs[..k].iter().zip(&self.rows) {
            z[i] = x;
        }
        // The rows outside C that the exchange tests by their w (all but
        // the fixed ones), as bits, taken in order of index: which rows are
        // in C follows the data, so a branch on it was mispredicted on
        // problems that differ from one solve to the next, here and in the
        // exchange. Measured: see `exchange`.
        mark_outside(&mut self.outside, &self.movable, &self.rows);
        // w = M z + q where it is read: outside C (on C it is 0 by the
        // solve, and not read).
        // Either as `Lcp::affine` computes it, column by column over the
        // z_j != 0 (C's, when every bound is 0), on every row and to the
        // bit: a guess that settles then hands w to the certificate, which
        // need not compute it again (`w_of_z`). Or by one dot product per
        // row outside C (M symmetric: row i is column i). The first costs
        // k columns, the second n - k rows plus the certificate's k
        // columns when the guess settles, so the columns are taken while
        // k <= 2 (n - k). Measured (callgrind, instructions a whole solve,
        // the certificate included): spd_16 11.86k -> 11.06k, spd_64
        // 130.3k -> 122.2k, normal_stack_5 15.46k -> 15.51k. Columns on
        // every guess cost normal_stack_5 15.88k and normal_stack_20
        // 182.0k instead of 178.4k: most of their rows are in C, and the
        // certificate computes w again anyway when it projects a z_C of
        // -1e-17 onto its bound.
        self.w_affine = k <= 2 * (n - k);
        if self.w_affine {
            m.affine_in(lanes, z, &mut self.w);
        } else {
            // Only the rows outside C: the others' w is not read (not
            // handed to the certificate either, `w_affine` being false).
            let (z, w) = (&*z, &mut self.w[..]);
            for i in rows_of(&self.outside) {
                w[i] = q[i] + dot(m.col(i), z);
            }
        }
        true
    }

    /// Factors `M_CC = U' D U` for C = `self.rows` by bordering (Golub &
    /// Van Loan, Matrix Computations, sec. 4.1.2 and 4.2.6: each row
    /// appended solves `U_11' c = M_1j`, takes `u = D_11^-1 c` and the
    /// pivot `D_jj = M_jj - c'u`), keeping the first `keep` columns of `U`
    /// from the previous guess, four rows at a time (`append_four`). `U`
    /// is column-major upper triangular: every kernel is a dot or axpy over
    /// a leading part of a column, contiguous from row 0. A pivot at most
    /// `pivot_tol` (the Schur complement of the row given the rows before
    /// it: the append rule of factor.rs) refuses its row: the row leaves C
    /// and goes back to `z = 0` within its bounds; the rows after it are
    /// factored without it, so nothing else moves.
    #[inline(always)]
    fn factor<L: Lanes>(&mut self, lanes: L, m: &Lcp, set: &SmallSettings<'_>, keep: usize) {
        if self.singular {
            self.refused.iter_mut().for_each(|x| *x = false);
        }
        let mut j = keep;
        while j < self.rows.len() {
            let group = (self.rows.len() - j).min(4);
            let (accepted, refused) = self.append_four(lanes, m, set.pivot_tol, j, group);
            // Last first, so the positions of the others stay put.
            for t in (0..group).rev() {
                if refused[t] {
                    self.refuse(set, j + t);
                }
            }
            j += accepted;
        }
    }

    /// Appends the `group` (1 to 4) rows of C at positions `j..j + group`
    /// to the factor of the `j` before them, together (block bordering):
    /// one solve of `U_11' C = M_1J` for their four columns at once
    /// (`upper_factor::solve_transposed_four`), their Gram products
    /// `C' D_11^-1 C`, then the rows one by one against the group's rows
    /// accepted before them, in the small 4 x 4 Schur complement. The
    /// accepted rows' columns of `U` go to positions `j..` in order.
    /// Returns how many were accepted and which were refused (the caller
    /// removes those from C).
    ///
    /// Four rows at once instead of one: the four solves share every load
    /// of `U` and every loop, and their chains of dependent operations
    /// (each block of a solve waits on the one before) overlap. Measured:
    /// see the module comment.
    #[inline(always)]
    fn append_four<L: Lanes>(
        &mut self,
        lanes: L,
        m: &Lcp,
        pivot_tol: f64,
        j: usize,
        group: usize,
    ) -> (usize, [bool; 4]) {
        let ld = self.ld;
        // On local slices: a store into U could alias the fields for all
        // the compiler knows.
        let rows = &self.rows[..];
        let (u, inv_diag, xs) = (&mut self.u[..], &mut self.inv_diag[..], &mut self.xs[..]);
        let y = &mut self.y[..];
        let q = m.q();
        // The group's rows; lanes past the group repeat its first row
        // (computed alongside, never stored: lanes do not mix).
        let pick = |t: usize| rows[j + if t < group { t } else { 0 }];
        let new = [pick(0), pick(1), pick(2), pick(3)];
        let cols = [m.col(new[0]), m.col(new[1]), m.col(new[2]), m.col(new[3])];
        for (x, &r) in xs[..j].iter_mut().zip(&rows[..j]) {
            *x = [cols[0][r], cols[1][r], cols[2][r], cols[3][r]];
        }
        upper_factor::solve_transposed_four(lanes, u, ld, j, xs);
        let (gram, with_y) = upper_factor::scale_with_products(lanes, &inv_diag[..j], y, xs);
        // The group's own block: for each row, `c` at the group's rows
        // accepted before it (`U'` of those, by substitution with the
        // latest term fused last, as in upper_factor.rs), then its pivot.
        let mut refused = [false; 4];
        // Block index of the accepted rows, in order.
        let mut at = [0_usize; 4];
        // `block_u[a][b]`: U between the accepted rows b < a.
        let mut block_u = [[0.0_f64; 4]; 4];
        let mut block_inv = [0.0_f64; 4];
        let mut accepted = 0;
        for t in 0..group {
            let col = cols[t];
            let mut c = [0.0_f64; 4];
            let mut squares = gram[t][t];
            for a in 0..accepted {
                let s = at[a];
                let mut v = col[new[s]] - gram[s][t];
                for b in 0..a {
                    v = (-block_u[a][b]).mul_add(c[b], v);
                }
                c[a] = v;
                squares += v * (v * block_inv[a]);
            }
            let d = col[new[t]] - squares;
            if !(d > pivot_tol && d.is_finite()) {
                refused[t] = true;
                continue;
            }
            let p = j + accepted;
            let column = &mut u[p * ld..p * ld + p];
            for (x, solved) in column[..j].iter_mut().zip(&xs[..j]) {
                *x = solved[t];
            }
            // The new row's entry of `U' y = -q_C` (used when every finite
            // bound is 0, see `solve_guess`): `-q_i` less the rows before
            // it, the group's own last and fused as in the triangles.
            let mut yp = -q[new[t]] - with_y[t];
            for b in 0..accepted {
                let v = c[b] * block_inv[b];
                block_u[accepted][b] = v;
                column[j + b] = v;
                yp = (-v).mul_add(y[j + b], yp);
            }
            y[p] = yp;
            // No square root: U'DU instead of U'U.
            let inv = 1.0 / d;
            inv_diag[p] = inv;
            block_inv[accepted] = inv;
            at[accepted] = t;
            accepted += 1;
        }
        (accepted, refused)
    }

    /// Refuses the row at position `j` of C: it leaves C and goes back to
    /// `z = 0` within its bounds.
    #[inline(never)]
    fn refuse(&mut self, set: &SmallSettings<'_>, j: usize) {
        let i = self.rows.remove(j);
        self.refused[i] = true;
        self.singular = true;
        let (z, row) = refused(set.lo[i], set.hi[i]);
        self.z[i] = z;
        self.row[i] = row;
        self.parked += usize::from(row == Row::Parked);
    }

    /// Solves `M_CC x = rhs[..k]` in place with the factor: `U' y = b`,
    /// `y <- D^-1 y`, then `U x = y` (upper_factor.rs).
    #[inline(always)]
    fn solve_in_place<L: Lanes>(&mut self, lanes: L, k: usize) {
        let inv_diag = &self.inv_diag[..k];
        upper_factor::solve_transposed_in_place(lanes, &self.u, self.ld, k, &mut self.rhs);
        for (x, &inv) in self.rhs[..k].iter_mut().zip(inv_diag) {
            *x *= inv;
        }
        upper_factor::solve_in_place(lanes, &self.u, self.ld, k, &mut self.rhs);
    }

    /// Exchanges the rows that break their bound (clamped) or the sign of
    /// their `w` (at a bound) and returns how many; `None` when a parked
    /// row's `w` moved off 0 (no exchange of its own can fix that).
    #[inline(always)]
    fn exchange<L: Lanes>(&mut self, lanes: L, set: &SmallSettings<'_>) -> Option<usize> {
        // The maximum in four lanes (lane_scan.rs): the same value as a
        // running f64::max over the finite z.
        let z_tol = 1e-12 * max_abs_in(lanes, &self.z);
        let mut violated = 0;
        // A local copy: the stores below could alias `set` for all the
        // compiler knows (see `factor`).
        let w_tol = set.w_tol;
        // The rows of C (by their z, from the list of C), then those
        // outside it (by their w, from the bits of `outside`, in order of
        // index): no branch on which a row is. A row of C that breaks its
        // bound leaves C and joins no list, so the lists and the count are
        // those of one pass over the rows in order (tested). Measured,
        // paired runs against 8448bcc: 64 different problems of 16 rows in
        // turn (spd_16_set) 0.88-0.91x the time; the peers' spd_16, one
        // problem over and over (its branches learnt by the predictor),
        // 1.02-1.04x (10.80k -> 11.39k instructions); normal_stack_5
        // 0.99-1.01x. Tried: the outside rows listed as indices (spd_16
        // 1.05x), and one pass in order with the state tested branch-free
        // by bit masks on w (0.91x and 1.07x).
        let (row, z, w) = (&mut self.row[..], &mut self.z[..], &self.w[..]);
        // The bounds as local slices too (their pointers and lengths would
        // be read again after every store otherwise).
        let (lo, hi) = (set.lo, set.hi);
        for &i in &self.rows {
            // Clamped, known here: the rule's z tests alone.
            if let Some(next) = clamped_breaks(&mut z[i], (lo[i], hi[i]), z_tol) {
                violated += 1;
                row[i] = next;
            }
        }
        for i in rows_of(&self.outside) {
            let next = match outside_breaks(row[i], w[i], w_tol) {
                Exchange::Keep => continue,
                Exchange::To(next) => next,
                Exchange::GiveUp => return None,
            };
            violated += 1;
            // A refused row that must join C goes first, so that its
            // group refuses another row (module comment). Only those: giving
            // every joining row priority once M_CC was seen singular (as
            // block_guess.rs does in its strict phase) refactors every
            // guess and measured more hand-overs to the pivoting (19
            // against 7 of the 400 singular problems of the tests).
            if next == Row::Clamped {
                if self.refused[i] {
                    self.priority.push(i);
                } else {
                    self.joined.push(i);
                }
            }
            row[i] = next;
        }
        Some(violated)
    }
}

/// Marks in `outside` the rows of `movable` that are not in C (`rows`),
/// as bits, without a branch per row.
#[inline(always)]
fn mark_outside(outside: &mut [u64], movable: &[u64], rows: &[usize]) {
    for (word, (out, &free)) in outside.iter_mut().zip(movable).enumerate() {
        let mut clamped = 0_u64;
        for &i in rows {
            clamped |= u64::from(i / 64 == word) << (i % 64);
        }
        *out = free & !clamped;
    }
}

/// The rows whose bits are set in `bits` (row `i` is bit `i % 64` of word
/// `i / 64`), in order of index.
#[inline(always)]
fn rows_of(bits: &[u64]) -> SetBits<'_> {
    SetBits {
        words: bits,
        word: 0,
        left: bits.first().copied().unwrap_or(0),
    }
}

/// Iterator of [`rows_of`].
struct SetBits<'a> {
    words: &'a [u64],
    /// The word being read.
    word: usize,
    /// Its bits not yet returned.
    left: u64,
}

impl Iterator for SetBits<'_> {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        while self.left == 0 {
            self.word += 1;
            self.left = *self.words.get(self.word)?;
        }
        let bit = self.left.trailing_zeros() as usize;
        self.left &= self.left - 1;
        Some(self.word * 64 + bit)
    }
}

/// The first guess of a row with bounds `lo <= hi` and `q_i`: `Fixed` when
/// `lo >= hi`; at a zero bound whose `w = q_i` fits it by more than
/// `resting` (`RESTING_Q ||q||`); else clamped (module comment).
#[inline(always)]
pub(super) fn first_guess(lo: f64, hi: f64, qi: f64, resting: f64) -> Row {
    if lo >= hi {
        Row::Fixed
    } else if lo == 0.0 && qi > resting {
        Row::AtLo
    } else if hi == 0.0 && qi < -resting {
        Row::AtHi
    } else {
        Row::Clamped
    }
}

/// Where a row refused from C goes: `z = 0` within its bounds, at the
/// bound that holds it or, strictly inside them, parked.
#[inline(always)]
pub(super) fn refused(lo: f64, hi: f64) -> (f64, Row) {
    let z = 0.0_f64.max(lo).min(hi);
    let row = if z <= lo {
        Row::AtLo
    } else if z >= hi {
        Row::AtHi
    } else {
        Row::Parked
    };
    (z, row)
}

/// What the exchange of a guess does with one row.
pub(super) enum Exchange {
    /// The row meets its guess.
    Keep,
    /// The row breaks its guess and goes there (a clamped row's `z` is set
    /// to the bound it crossed).
    To(Row),
    /// A parked row's `w` moved off 0: no exchange of its own can fix
    /// that, the guesses give up.
    GiveUp,
}

/// The exchange rule of one row (module comment): a clamped row outside
/// its bounds (by more than `z_tol`) goes to the bound it crossed, a row
/// at a bound whose `w` has the wrong sign (by more than `w_tol`) is
/// clamped.
#[inline(always)]
pub(super) fn exchanged(
    row: Row,
    z: &mut f64,
    w: f64,
    bounds: (f64, f64),
    z_tol: f64,
    w_tol: f64,
) -> Exchange {
    match row {
        Row::Clamped => match clamped_breaks(z, bounds, z_tol) {
            Some(next) => Exchange::To(next),
            None => Exchange::Keep,
        },
        _ => outside_breaks(row, w, w_tol),
    }
}

/// [`exchanged`] for a clamped row: the bound it crossed (`z` set to it),
/// if any.
#[inline(always)]
fn clamped_breaks(z: &mut f64, (lo, hi): (f64, f64), z_tol: f64) -> Option<Row> {
    if *z < lo - z_tol {
        *z = lo;
        Some(Row::AtLo)
    } else if *z > hi + z_tol {
        *z = hi;
        Some(Row::AtHi)
    } else {
        None
    }
}

/// [`exchanged`] for a row outside C (its `w` alone decides).
#[inline(always)]
fn outside_breaks(row: Row, w: f64, w_tol: f64) -> Exchange {
    match row {
        Row::AtLo if w < -w_tol => Exchange::To(Row::Clamped),
        Row::AtHi if w > w_tol => Exchange::To(Row::Clamped),
        Row::Parked if w.abs() > w_tol => Exchange::GiveUp,
        _ => Exchange::Keep,
    }
}

/// `x` as an unsigned integer key that orders as [`f64::total_cmp`]
/// (negative numbers with their magnitude bits flipped, the sign bit
/// flipped for all).
#[inline(always)]
fn order_key(x: f64) -> u64 {
    let bits = x.to_bits();
    let flip = if bits >> 63 == 1 { u64::MAX } else { 1 << 63 };
    bits ^ flip
}

/// Test support: the next number in [-1, 1) of a seeded linear
/// congruential sequence.
#[cfg(test)]
pub(crate) fn next_uniform(seed: &mut u64) -> f64 {
    *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (*seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}

/// Test support: `A A' + shift I`, row-major, with `A` of `rank` columns
/// of [`next_uniform`] numbers.
#[cfg(test)]
pub(super) fn random_sym(seed: &mut u64, n: usize, rank: usize, shift: f64) -> Vec<f64> {
    let a: Vec<f64> = (0..n * rank).map(|_| next_uniform(seed)).collect();
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let d: f64 = (0..rank).map(|t| a[i * rank + t] * a[j * rank + t]).sum();
            m[i * n + j] = d + if i == j { shift } else { 0.0 };
        }
    }
    m
}

/// Test support: runs `check` on a rank-2 problem of 3 rows whose row 2
/// is row 0 + row 1 (so whichever row is factored last has pivot 0), plain
/// bounds, `q = 0`, pivot tolerance 1e-10 and w tolerance 1e-13.
#[cfg(test)]
pub(super) fn with_dependent_rows(check: impl FnOnce(&Lcp, &SmallSettings<'_>)) {
    let m =
        Lcp::from_row_major(3, &[2.0, 1.0, 3.0, 1.0, 2.0, 3.0, 3.0, 3.0, 6.0], &[0.0; 3]).unwrap();
    let (lo, hi) = (vec![0.0; 3], vec![f64::INFINITY; 3]);
    let set = SmallSettings {
        lo: &lo,
        hi: &hi,
        pivot_tol: 1e-10,
        w_tol: 1e-13,
        q_max: 0.0,
    };
    check(&m, &set);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lanes::ArrayLanes;

    /// `max |(U' D U)_rc - M_CC|` over the factored block.
    fn factor_error(g: &SmallGuess, m: &Lcp) -> f64 {
        let (k, ld) = (g.rows.len(), g.ld);
        let mut worst = 0.0_f64;
        for r in 0..k {
            for c in 0..=r {
                let u = |t: usize, j: usize| if t == j { 1.0 } else { g.u[j * ld + t] };
                let utu: f64 = (0..=c).map(|t| u(t, r) * u(t, c) / g.inv_diag[t]).sum();
                let mrc = m.col(g.rows[c])[g.rows[r]];
                worst = worst.max((utu - mrc).abs());
            }
            // The unit diagonal is not stored; below it U's column is 0.
            assert!(g.u[r * ld + r..(r + 1) * ld].iter().all(|&x| x == 0.0));
        }
        worst
    }

    /// With every bound 0 or infinite, a guess after the first reuses the
    /// forward solve of its kept leading rows (`y`); a far upper bound
    /// that binds nothing takes the general path, which solves afresh.
    /// Both must give the same answer (to rounding: 1e-12 of ||z||) on
    /// problems that take several guesses (counted, so the reuse runs).
    #[test]
    fn the_reused_forward_solve_agrees_with_a_fresh_one() {
        let mut seed = 0x5EED_F00D_u64;
        let mut several = 0;
        for _ in 0..50 {
            let n = 16;
            let m = random_sym(&mut seed, n, n, 0.1);
            let q: Vec<f64> = (0..n).map(|_| next_uniform(&mut seed)).collect();
            let lcp = Lcp::from_row_major(n, &m, &q).unwrap();
            let lo = vec![0.0; n];
            let settle = |hi: &[f64]| {
                let set = SmallSettings {
                    lo: &lo,
                    hi,
                    pivot_tol: 1e-12 * lcp.m_max_abs(),
                    w_tol: 1e-13 * lcp.q_max_abs(),
                    q_max: lcp.q_max_abs(),
                };
                let mut g = SmallGuess::default();
                assert!(g.run(&lcp, &set, 16));
                (g.z.clone(), g.guesses, g.zero_bounds)
            };
            let (reused, guesses, zero) = settle(&vec![f64::INFINITY; n]);
            let (fresh, _, general) = settle(&vec![1e300; n]);
            assert!(zero && !general);
            several += usize::from(guesses > 1);
            let scale = reused.iter().fold(1e-300_f64, |a, z| a.max(z.abs()));
            for (a, b) in reused.iter().zip(&fresh) {
                assert!((a - b).abs() <= 1e-12 * scale, "{reused:?}\n{fresh:?}");
            }
        }
        assert!(several >= 25, "{several} of 50 took more than one guess");
    }

    #[test]
    fn a_kept_leading_block_gives_the_factor_of_the_new_block() {
        let m = super::super::spd_fixture(6);
        let (lo, hi) = (vec![0.0; 6], vec![f64::INFINITY; 6]);
        let set = SmallSettings {
            lo: &lo,
            hi: &hi,
            pivot_tol: 1e-12,
            w_tol: 1e-13,
            q_max: 0.0,
        };
        let mut g = SmallGuess::default();
        g.reset(6);
        g.rows.extend([3, 0, 4]);
        g.factor(ArrayLanes, &m, &set, 0);
        assert!(factor_error(&g, &m) < 1e-13);
        // Rows 3 and 0 stay (their factor rows are kept), 4 leaves, and
        // 5, 1, 2 join: the result must be the factor of the new block.
        g.rows.truncate(2);
        g.rows.extend([5, 1, 2]);
        g.factor(ArrayLanes, &m, &set, 2);
        assert_eq!(g.rows, [3, 0, 5, 1, 2]);
        assert!(factor_error(&g, &m) < 1e-13, "{}", factor_error(&g, &m));
    }

    #[test]
    fn vector_and_array_lanes_give_the_same_bits() {
        // The same solve compiled for the machine's vectors (AVX2 where
        // there is one) and for plain arrays: same outcome, guesses and z
        // to the bit, on definite and singular problems with box bounds.
        let mut seed = 0x5A11_2222_u64;
        let mut affine_checked = 0;
        for trial in 0..60_usize {
            let n = 1 + trial % 23;
            let rank = if trial % 3 == 0 { 1 + n / 2 } else { n };
            let shift = if trial % 3 == 0 { 0.0 } else { 0.1 };
            let m = random_sym(&mut seed, n, rank, shift);
            let q: Vec<f64> = random_sym(&mut seed, n, 1, 0.0)[..n].to_vec();
            let lcp = Lcp::from_row_major(n, &m, &q).unwrap();
            let lo: Vec<f64> = (0..n)
                .map(|i| if i % 4 == 1 { -0.5 } else { 0.0 })
                .collect();
            let hi: Vec<f64> = (0..n)
                .map(|i| if i % 4 == 1 { 0.5 } else { f64::INFINITY })
                .collect();
            let set = SmallSettings {
                lo: &lo,
                hi: &hi,
                pivot_tol: 1e-10,
                w_tol: 1e-13,
                q_max: crate::lane_scan::max_abs(&q),
            };
            let mut best = SmallGuess::default();
            let mut array = SmallGuess::default();
            let settled = best.run(&lcp, &set, 16);
            let settled_array = Solve {
                guess: &mut array,
                m: &lcp,
                set: &set,
                max_guesses: 16,
            }
            .run(ArrayLanes);
            array.w_affine &= settled_array;
            assert_eq!(settled, settled_array, "trial {trial}");
            assert_eq!(best.guesses, array.guesses, "trial {trial}");
            let bits = |z: &[f64]| z.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&best.z), bits(&array.z), "trial {trial}");
            // The w handed to the certificate is Lcp::affine's, to the bit.
            assert_eq!(best.w_affine, array.w_affine, "trial {trial}");
            if let Some(w) = best.w_of_z() {
                let mut affine = vec![f64::NAN; n];
                lcp.affine(&best.z, &mut affine);
                assert_eq!(bits(w), bits(&affine), "trial {trial}");
                affine_checked += 1;
            }
        }
        // Both kinds of w were met (columns when C is small, dots when not).
        assert!((10..60).contains(&affine_checked), "{affine_checked}");
    }

    #[test]
    fn the_integer_key_orders_as_total_cmp() {
        let mut seed = 0x0DDE_u64;
        let mut xs = vec![
            f64::NEG_INFINITY,
            -f64::MAX,
            -1.0,
            -f64::MIN_POSITIVE,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            f64::MIN_POSITIVE,
            1.0,
            f64::MAX,
            f64::INFINITY,
        ];
        xs.extend(random_sym(&mut seed, 40, 1, 0.0).iter().map(|x| x * 1e3));
        for &a in &xs {
            for &b in &xs {
                assert_eq!(order_key(a).cmp(&order_key(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    #[test]
    fn a_bound_is_its_own_double_only_when_zero_or_infinite() {
        for b in [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(b + b == b, "{b}");
        }
        for b in [1.0, -1.0, 5e-324, -5e-324, 0.5, f64::MAX, -f64::MAX] {
            assert!(b + b != b, "{b}");
        }
    }

    /// `M_ii - M_iA M_AA^-1 M_Ai` by Gaussian elimination with partial
    /// pivoting on the dense `M_AA` (independent of the factor's kernels).
    fn schur_complement(m: &Lcp, a: &[usize], i: usize) -> f64 {
        let k = a.len();
        let entry = |r: usize, c: usize| m.col(c)[r];
        let mut g: Vec<Vec<f64>> = (0..k)
            .map(|r| {
                let mut row: Vec<f64> = a.iter().map(|&c| entry(a[r], c)).collect();
                row.push(entry(a[r], i));
                row
            })
            .collect();
        for c in 0..k {
            let p = (c..k)
                .max_by(|&x, &y| g[x][c].abs().total_cmp(&g[y][c].abs()))
                .unwrap();
            g.swap(c, p);
            let (top, below) = g.split_at_mut(c + 1);
            let pivot = &top[c];
            for row in below {
                let f = row[c] / pivot[c];
                for (x, &p) in row[c..].iter_mut().zip(&pivot[c..]) {
                    *x -= f * p;
                }
            }
        }
        let mut x = vec![0.0; k];
        for r in (0..k).rev() {
            let s: f64 = (r + 1..k).map(|t| g[r][t] * x[t]).sum();
            x[r] = (g[r][k] - s) / g[r][r];
        }
        entry(i, i) - (0..k).map(|t| entry(a[t], i) * x[t]).sum::<f64>()
    }

    /// `A A'` for rows of `A` (n x n) drawn at random, except that with
    /// probability about 1/3 a row is a combination of two earlier ones:
    /// dependent rows scattered among independent ones.
    fn interleaved_dependent(seed: &mut u64, n: usize) -> Vec<f64> {
        let mut a: Vec<Vec<f64>> = Vec::with_capacity(n);
        for i in 0..n {
            let row = if i > 0 && next_uniform(seed) < -1.0 / 3.0 {
                let mut pick =
                    || (((next_uniform(seed) + 1.0) * 0.5 * i as f64) as usize).min(i - 1);
                let (p, r) = (pick(), pick());
                (0..n).map(|t| a[p][t] - 0.5 * a[r][t]).collect()
            } else {
                (0..n).map(|_| next_uniform(seed)).collect()
            };
            a.push(row);
        }
        let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(u, v)| u * v).sum::<f64>();
        (0..n * n).map(|e| dot(&a[e / n], &a[e % n])).collect()
    }

    /// Rows appended four at a time are refused exactly when one row at a
    /// time would refuse them (their Schur complement given the rows
    /// accepted before them at most the tolerance), wherever a dependent
    /// row falls in a group of four, and the others are factored: generic
    /// rank-deficient matrices (every row after the rank refused) and
    /// dependent rows scattered among independent ones (rows accepted after
    /// a refusal in their group, whose columns of U move up).
    #[test]
    fn rows_appended_four_at_a_time_refuse_as_one_at_a_time() {
        let mut seed = 0x6A0F_u64;
        let (mut checked, mut refusals, mut inside, mut after) = (0, 0, 0, 0);
        let tol = 1e-9;
        for trial in 0..600_usize {
            let n = 2 + trial % 22;
            let m = if trial % 2 == 0 {
                random_sym(&mut seed, n, 1 + (trial * 7) % n, 0.0)
            } else {
                interleaved_dependent(&mut seed, n)
            };
            let q: Vec<f64> = (0..n).map(|_| next_uniform(&mut seed)).collect();
            let lcp = Lcp::from_row_major(n, &m, &q).unwrap();
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                let j = ((next_uniform(&mut seed) + 1.0) * 0.5 * (i + 1) as f64) as usize;
                order.swap(i, j.min(i));
            }
            // The reference, one row at a time; a pivot too near the
            // tolerance to call either way skips the trial.
            let (mut accepted, mut refused) = (Vec::new(), Vec::new());
            let mut decisive = true;
            // Groups are runs of four in `order`: a refused row leaves C
            // and the next group starts after the four.
            let (mut inside_here, mut after_here, mut refused_in_group) = (0, 0, false);
            for &i in &order {
                let position = (accepted.len() + refused.len()) % 4;
                refused_in_group &= position != 0;
                let d = schur_complement(&lcp, &accepted, i);
                decisive &= !(1e-13..1e-6).contains(&d.abs());
                if d > tol {
                    after_here += usize::from(refused_in_group);
                    accepted.push(i);
                } else {
                    inside_here += usize::from(position != 0);
                    refused_in_group = true;
                    refused.push(i);
                }
            }
            if !decisive {
                continue;
            }
            inside += inside_here;
            after += after_here;
            let (lo, hi) = (vec![0.0; n], vec![f64::INFINITY; n]);
            let set = SmallSettings {
                lo: &lo,
                hi: &hi,
                pivot_tol: tol,
                w_tol: 1e-13,
                q_max: 0.0,
            };
            let mut g = SmallGuess::default();
            g.reset(n);
            g.rows.extend(&order);
            g.factor(ArrayLanes, &lcp, &set, 0);
            assert_eq!(g.rows, accepted, "trial {trial}");
            for i in 0..n {
                assert_eq!(g.refused[i], refused.contains(&i), "trial {trial} row {i}");
            }
            assert!(
                factor_error(&g, &lcp) < 1e-12 * lcp.m_max_abs(),
                "trial {trial}"
            );
            // The factor's forward solve U' y = -q_C, appended row by row,
            // against the blocked solve with the finished factor.
            let k = g.rows.len();
            let mut b: Vec<f64> = g.rows.iter().map(|&i| -q[i]).collect();
            b.resize(g.ld, f64::NAN);
            upper_factor::solve_transposed_in_place(ArrayLanes, &g.u, g.ld, k, &mut b);
            let scale = b[..k].iter().fold(1.0_f64, |a, x| a.max(x.abs()));
            for (r, (&got, &want)) in g.y[..k].iter().zip(&b[..k]).enumerate() {
                assert!(
                    (got - want).abs() <= 1e-11 * scale,
                    "trial {trial} row {r}: {got} {want}"
                );
            }
            checked += 1;
            refusals += refused.len();
        }
        assert!(
            checked >= 500 && inside >= 1500 && after >= 400,
            "{checked} {refusals} {inside} {after}"
        );
    }

    /// The exchange by lists (C by its z, then the rows outside C by their
    /// w, from bits) against one pass over the rows in order with the
    /// rule: the same states, z, count and joining lists (in order), on
    /// random states over three words of bits, fixed and parked rows
    /// included.
    #[test]
    fn the_exchange_by_lists_is_one_pass_in_order() {
        let mut seed = 0xE8C4_u64;
        let mut broke = 0;
        for trial in 0..200_usize {
            let n = 1 + trial % 150;
            let pick = |seed: &mut u64, k: usize| {
                ((next_uniform(seed) + 1.0) * 0.5 * k as f64) as usize % k
            };
            let states = [Row::Clamped, Row::AtLo, Row::AtHi, Row::Parked, Row::Fixed];
            let mut lo = vec![0.0; n];
            let mut hi = vec![f64::INFINITY; n];
            let mut g = SmallGuess::default();
            g.reset(n);
            for i in 0..n {
                // Parked rows rarely: one whose w moved ends the exchange.
                let row = states[pick(&mut seed, 5)];
                let row = if row == Row::Parked && pick(&mut seed, 8) != 0 {
                    Row::AtLo
                } else {
                    row
                };
                (lo[i], hi[i]) = match row {
                    Row::Fixed => (0.25, 0.25),
                    Row::Parked | Row::AtHi => (-1.0, 1.0),
                    _ => (if i % 3 == 0 { -1.0 } else { 0.0 }, 1.0),
                };
                g.row[i] = row;
                g.z[i] = match row {
                    Row::Clamped => 1.5 * next_uniform(&mut seed),
                    Row::AtHi => hi[i],
                    Row::Fixed => lo[i],
                    _ => lo[i].max(0.0).min(hi[i]),
                };
                // w within the tolerance, or far either side, or NaN; a
                // parked row's mostly within.
                g.w[i] = match pick(&mut seed, 4) {
                    _ if row == Row::Parked && pick(&mut seed, 4) != 0 => 1e-13,
                    0 => f64::NAN,
                    1 => 1e-13 * next_uniform(&mut seed),
                    _ => next_uniform(&mut seed),
                };
                g.refused[i] = pick(&mut seed, 4) == 0;
                g.movable[i / 64] |= u64::from(row != Row::Fixed) << (i % 64);
                if row == Row::Clamped {
                    g.rows.push(i);
                }
            }
            // C in some order other than by index, as after a factor.
            g.rows.reverse();
            mark_outside(&mut g.outside, &g.movable, &g.rows);
            let set = SmallSettings {
                lo: &lo,
                hi: &hi,
                pivot_tol: 1e-12,
                w_tol: 1e-12,
                q_max: 1.0,
            };
            let mut reference = g.clone();
            let got = g.exchange(ArrayLanes, &set);
            // One pass in order, the rule on every row.
            let z_tol = 1e-12 * reference.z.iter().fold(0.0_f64, |a, z| a.max(z.abs()));
            let mut violated = Some(0);
            for i in 0..n {
                match exchanged(
                    reference.row[i],
                    &mut reference.z[i],
                    reference.w[i],
                    (lo[i], hi[i]),
                    z_tol,
                    set.w_tol,
                ) {
                    Exchange::Keep => {}
                    Exchange::GiveUp => {
                        violated = None;
                        break;
                    }
                    Exchange::To(next) => {
                        violated = violated.map(|v| v + 1);
                        if next == Row::Clamped {
                            if reference.refused[i] {
                                reference.priority.push(i);
                            } else {
                                reference.joined.push(i);
                            }
                        }
                        reference.row[i] = next;
                    }
                }
            }
            assert_eq!(got, violated, "trial {trial}");
            if got.is_some() {
                assert_eq!(g.row, reference.row, "trial {trial}");
                assert_eq!(g.z, reference.z, "trial {trial}");
                assert_eq!(g.joined, reference.joined, "trial {trial}");
                assert_eq!(g.priority, reference.priority, "trial {trial}");
                broke += usize::from(got > Some(0));
            }
        }
        assert!(broke >= 100, "{broke}");
    }

    /// Past one word of bits (n > 64) with most rows in C, so that w is
    /// computed by rows on the rows outside C (not by columns): the
    /// guesses settle on an answer that solves the problem (checked with
    /// `M z + q` computed apart, to 1e-9 of the problem's scale).
    #[test]
    fn a_large_guess_with_most_rows_in_c_settles_on_a_solution() {
        let mut seed = 0xB16_u64;
        let mut by_rows = 0;
        for trial in 0..12_usize {
            let n = [70, 100, 130][trial % 3];
            let m = random_sym(&mut seed, n, n, 0.1);
            // Most q negative: most rows end in C.
            let q: Vec<f64> = (0..n).map(|_| next_uniform(&mut seed) - 0.7).collect();
            let lcp = Lcp::from_row_major(n, &m, &q).unwrap();
            let (lo, hi) = (vec![0.0; n], vec![f64::INFINITY; n]);
            let set = SmallSettings {
                lo: &lo,
                hi: &hi,
                pivot_tol: 1e-12 * lcp.m_max_abs(),
                w_tol: 1e-13 * lcp.q_max_abs(),
                q_max: lcp.q_max_abs(),
            };
            let mut g = SmallGuess::default();
            assert!(g.run(&lcp, &set, 16), "trial {trial}");
            by_rows += usize::from(!g.w_affine);
            let scale =
                lcp.q_max_abs() + lcp.m_max_abs() * g.z.iter().fold(0.0_f64, |a, z| a.max(z.abs()));
            for i in 0..n {
                let w = q[i] + (0..n).map(|j| m[i * n + j] * g.z[j]).sum::<f64>();
                let z = g.z[i];
                assert!(
                    z >= 0.0 && w >= -1e-9 * scale,
                    "trial {trial} row {i}: z {z} w {w}"
                );
                assert!(
                    (z * w).abs() <= 1e-9 * scale * scale,
                    "trial {trial} row {i}"
                );
            }
        }
        assert!(by_rows >= 6, "{by_rows} of 12 settled with w by rows");
    }

    #[test]
    fn a_dependent_row_is_refused_and_leaves_the_block() {
        // Row 2 = row 0 + row 1: factored after rows 2 and 0, row 1's
        // pivot is 0.
        with_dependent_rows(|m, set| {
            let mut g = SmallGuess::default();
            g.reset(3);
            g.rows.extend([2, 0, 1]);
            g.factor(ArrayLanes, m, set, 0);
            assert_eq!(g.rows, [2, 0]);
            assert!(g.refused[1] && g.singular);
            assert_eq!(g.row[1], Row::AtLo);
            assert!(factor_error(&g, m) < 1e-13);
        });
    }
}
