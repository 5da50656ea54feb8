// An updatable Cholesky factor L L' = M_CC of the clamped block C (or, for
// a non-symmetric M, its explicit inverse: linalg/inverse.rs), C an ordered
// list of rows of M. L is column-major in an n x n buffer, so the solves
// and the removal walk contiguous columns:
//
// - append row/column i: solve L l = M_C,i and set the diagonal
//   sqrt(M_ii - l'l); refused (C unchanged) when M_ii - l'l <= tol, which
//   keeps redundant contacts out of C;
// - remove position p: with L = [L11 0 0; l21' l22 0; L31 l32 L33], the
//   factor without p is [L11 0; L31 L33~], L33~ L33~' = L33 L33' + l32 l32'
//   (a rank-one update, always stable, by Givens-like rotations in
//   O((k - p)^2)); hand-written, as faer's `delete_rows_and_cols_clobber`
//   was slower at contact sizes;
// - a whole block factored at once, for the block guess only (`factor_block`).

use crate::linalg::faer_scratch::FaerScratch;
use crate::linalg::inverse;
use crate::linalg::kernels::{dot, gemv, substitute};
use crate::linalg::lanes::{Lanes, LanesOp, add_column, with_best_lanes};
use crate::problem::Lcp;
use crate::tuning::{REFUSED_PIVOT, SHORT_RUNS, SMALL_BLOCK_UP_TO};
use faer::linalg::cholesky::ldlt::factor::{
    LdltRegularization, cholesky_in_place as ldlt_in_place,
    cholesky_in_place_scratch as ldlt_scratch,
};
use faer::linalg::cholesky::llt::factor::{
    LltRegularization, cholesky_in_place as llt_in_place, cholesky_in_place_scratch as llt_scratch,
};
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::{MatMut, MatRef, Par};

/// Cholesky factor of `M_CC` (explicit inverse when M is not symmetric)
/// with append and delete.
#[derive(Clone, Debug, Default)]
pub(crate) struct Factor {
    /// Cholesky factor (symmetric M) or explicit inverse (otherwise).
    symmetric: bool,
    /// Scratch of an append (the new row first) and of the inverse's solve.
    scratch: [Vec<f64>; 4],
    /// Leading dimension (the problem dimension n).
    ld: usize,
    /// `L`, column-major with leading dimension `ld`.
    l: Vec<f64>,
    /// `1 / L_cc` for every position of C.
    inv_diag: Vec<f64>,
    /// Scratch of `factor_block`: the rows it was asked to factor.
    pending: Vec<usize>,
    /// Scratch of `factor_block`: the pivot signs faer enforces (all +1).
    signs: Vec<i8>,
    /// Scratch of `copy_block`: (position in C, row of M) where each run
    /// of consecutive rows of C starts.
    runs: Vec<(usize, usize)>,
    /// The rows of M in C, in factor order.
    pub(crate) idx: Vec<usize>,
}

impl Factor {
    /// Empties C for a problem of dimension `n` (allocates only when `n`
    /// grows; every entry a solve reads is written after the reset).
    pub(crate) fn reset(&mut self, n: usize, symmetric: bool) {
        // Four rows of padding for `LeftLooking`'s tiles of four rows, four
        // more where columns would be a multiple of 512 bytes apart (cache
        // sets shared, faer's blocked kernels slower).
        self.ld = n + 4;
        if self.ld % 64 == 0 {
            self.ld += 4;
        }
        self.symmetric = symmetric;
        for v in self.scratch.iter_mut().chain([&mut self.inv_diag]) {
            if v.len() < n {
                v.resize(n, 0.0);
            }
        }
        if self.l.len() < n * self.ld {
            self.l.resize(n * self.ld, 0.0);
        }
        self.idx.clear();
        self.idx.reserve(n);
        self.runs.clear();
        self.runs.reserve(n);
    }

    /// Size of C.
    pub(crate) fn len(&self) -> usize {
        self.idx.len()
    }

    /// Tries to append row/column `i` of `m`; returns false (and leaves the
    /// factor unchanged) when the new diagonal `M_ii - l'l` is at most
    /// `tol` or not finite.
    pub(crate) fn try_append(&mut self, m: &Lcp, i: usize, tol: f64) -> bool {
        if !self.symmetric {
            let (b, scratch) = (&mut self.l, &mut self.scratch);
            let ok = inverse::append(b, self.ld, &self.idx, m, i, tol, scratch);
            if ok {
                self.idx.push(i);
            }
            return ok;
        }
        let k = self.idx.len();
        let col = m.col(i);
        let mut row = std::mem::take(&mut self.scratch[0]);
        for (x, &r) in row[..k].iter_mut().zip(&self.idx) {
            *x = col[r];
        }
        substitute(&self.l, self.ld, &self.inv_diag, &mut row[..k], false);
        let ok = self.try_append_solved(i, col[i], &row[..k], tol);
        self.scratch[0] = row;
        ok
    }

    /// Whether this is a Cholesky factor (M symmetric).
    pub(crate) fn is_symmetric(&self) -> bool {
        self.symmetric
    }

    /// Appends row/column `i` given `l = L^-1 M_C,i` (already solved by the
    /// caller) and `m_ii`; refused as in [`Factor::try_append`]. Cholesky
    /// factor only.
    pub(crate) fn try_append_solved(&mut self, i: usize, m_ii: f64, l: &[f64], tol: f64) -> bool {
        let k = self.idx.len();
        let d2 = m_ii - dot(l, l);
        if !(d2 > tol && d2.is_finite()) {
            return false;
        }
        let ld = self.ld;
        for (c, &x) in l.iter().enumerate() {
            self.l[c * ld + k] = x;
        }
        let d = d2.sqrt();
        self.l[k * ld + k] = d;
        self.inv_diag[k] = 1.0 / d;
        self.idx.push(i);
        true
    }

    /// Factors `M_CC` for C = `self.idx` (set by the caller; the block
    /// guess's), keeping the first `kept` columns of the last factor when the
    /// block is small (the caller kept those positions of C). A redundant row
    /// (pivot at most `tol`, the append rule) is left out and listed in
    /// `refused`; the others keep their order.
    ///
    /// Up to `SMALL_BLOCK_UP_TO` rows, `factor_small`. Larger blocks by
    /// faer's blocked LL', and when a pivot is at most `tol` by faer's LDL'
    /// with every such pivot replaced by `huge` (`REFUSED_PIVOT` times the
    /// largest diagonal): that row's column then falls below the rounding of
    /// every later update, so the others are factored as if it were not
    /// there, by `try_append`'s test; the refused rows are cut out and the
    /// kept columns scaled by sqrt(D). (faer 0.24's LL' with the same
    /// regularisation divides by a stored diagonal that is not the replaced
    /// value.) Should `huge` not be representable (or `tol` be 0), the block
    /// is rebuilt by appends.
    pub(crate) fn factor_block(
        &mut self,
        m: &Lcp,
        tol: f64,
        kept: usize,
        scratch: &mut FaerScratch,
        refused: &mut Vec<usize>,
    ) {
        refused.clear();
        let (k, ld) = (self.idx.len(), self.ld);
        if k == 0 {
            return;
        }
        if k <= SMALL_BLOCK_UP_TO {
            self.copy_block(m, kept);
            self.factor_small(tol, kept, refused);
            return;
        }
        let diag_max = self.copy_block(m, 0);
        // faer's LL' and LDL' need the same scratch.
        let req = ldlt_scratch::<f64>(k, Par::Seq, Default::default()).or(llt_scratch::<f64>(
            k,
            Par::Seq,
            Default::default(),
        ));
        let stack = scratch.stack(req);
        let view = MatMut::from_column_major_slice_with_stride_mut(
            &mut self.l[..(k - 1) * ld + k],
            k,
            k,
            ld,
        );
        let factored = llt_in_place(
            view,
            LltRegularization::default(),
            Par::Seq,
            stack,
            Default::default(),
        );
        if factored.is_ok() && (0..k).all(|c| self.l[c * ld + c].powi(2) > tol) {
            for c in 0..k {
                self.inv_diag[c] = 1.0 / self.l[c * ld + c];
            }
            return;
        }
        let huge = REFUSED_PIVOT * diag_max;
        if tol > 0.0 && huge.is_finite() && huge > tol {
            self.copy_block(m, 0);
            self.signs.clear();
            self.signs.resize(k, 1);
            let view = MatMut::from_column_major_slice_with_stride_mut(
                &mut self.l[..(k - 1) * ld + k],
                k,
                k,
                ld,
            );
            let regularization = LdltRegularization {
                dynamic_regularization_signs: Some(&self.signs),
                dynamic_regularization_delta: huge,
                dynamic_regularization_epsilon: tol,
            };
            let factored = ldlt_in_place(view, regularization, Par::Seq, stack, Default::default());
            // D_c > tol for a kept row, D_c = huge for a refused one.
            let kept_pivot = |d: f64| d > tol && d < huge;
            if factored.is_ok() && (0..k).all(|c| self.l[c * ld + c].is_finite()) {
                let mut kept = 0;
                for c in 0..k {
                    let d = self.l[c * ld + c];
                    if !kept_pivot(d) {
                        refused.push(self.idx[c]);
                        continue;
                    }
                    // Column c moves to `kept` and its rows up past the
                    // refused ones (a destination never passes its source).
                    let root = d.sqrt();
                    self.l[kept * ld + kept] = root;
                    let mut to = kept + 1;
                    for r in c + 1..k {
                        if kept_pivot(self.l[r * ld + r]) {
                            self.l[kept * ld + to] = self.l[c * ld + r] * root;
                            to += 1;
                        }
                    }
                    self.inv_diag[kept] = 1.0 / root;
                    self.idx[kept] = self.idx[c];
                    kept += 1;
                }
                self.idx.truncate(kept);
                return;
            }
            refused.clear();
        }
        let mut wanted = std::mem::take(&mut self.pending);
        wanted.clear();
        wanted.append(&mut self.idx);
        for &i in &wanted {
            if !self.try_append(m, i, tol) {
                refused.push(i);
            }
        }
        self.pending = wanted;
    }

    /// `factor_block` of a small block whose columns from `kept` on were
    /// copied by `copy_block` (the columns before are the last factor's): the
    /// left-looking Cholesky of `LeftLooking` (faer's blocked LL' costs more
    /// in setup at these sizes). A pivot at most `tol` (or not finite)
    /// refuses its row: its column is zeroed, so the later columns are
    /// factored without it, and the refused rows are cut out at the end.
    fn factor_small(&mut self, tol: f64, kept: usize, refused: &mut Vec<usize>) {
        let k = self.idx.len();
        with_best_lanes(LeftLooking {
            l: &mut self.l,
            ld: self.ld,
            inv_diag: &mut self.inv_diag[..k],
            from: kept,
            tol,
        });
        for c in kept..k {
            if self.inv_diag[c] == 0.0 {
                refused.push(self.idx[c]);
            }
        }
        if refused.is_empty() {
            return;
        }
        // The rows of the kept columns move up past the refused ones, then
        // column c moves to `to_col` with its rows (a destination never
        // passes its source).
        let ld = self.ld;
        for c in 0..kept {
            let mut to = kept;
            for r in kept..k {
                if self.inv_diag[r] != 0.0 {
                    self.l[c * ld + to] = self.l[c * ld + r];
                    to += 1;
                }
            }
        }
        let mut to_col = kept;
        for c in kept..k {
            if self.inv_diag[c] == 0.0 {
                continue;
            }
            let mut to = to_col;
            for r in c..k {
                if self.inv_diag[r] != 0.0 {
                    self.l[to_col * ld + to] = self.l[c * ld + r];
                    to += 1;
                }
            }
            self.inv_diag[to_col] = self.inv_diag[c];
            self.idx[to_col] = self.idx[c];
            to_col += 1;
        }
        self.idx.truncate(to_col);
    }

    /// Copies the lower triangle of `M_CC` (C = `self.idx`) into L's storage,
    /// from row `from` on; returns the largest diagonal entry copied. Each
    /// column is copied as one slice per run of consecutive rows of C (a
    /// contact problem's guess), or gathered entry by entry when the runs
    /// are short (a random problem's).
    fn copy_block(&mut self, m: &Lcp, from: usize) -> f64 {
        let ld = self.ld;
        let runs = &mut self.runs;
        runs.clear();
        for (p, &i) in self.idx.iter().enumerate() {
            match runs.last() {
                Some(&(start, first)) if first + (p - start) == i => {}
                _ => runs.push((p, i)),
            }
        }
        let k = self.idx.len();
        let mut diag_max = 0.0_f64;
        let scattered = SHORT_RUNS * runs.len() > k;
        let mut run = 0;
        for (c, &j) in self.idx.iter().enumerate() {
            let col = m.col(j);
            let top = c.max(from);
            if c >= from {
                diag_max = diag_max.max(col[j]);
            }
            let dst = &mut self.l[c * ld..c * ld + k];
            if scattered {
                // One gather per entry.
                for (d, &i) in dst[top..].iter_mut().zip(&self.idx[top..]) {
                    *d = col[i];
                }
                continue;
            }
            // The run holding position top, then every run after it.
            while run + 1 < runs.len() && runs[run + 1].0 <= top {
                run += 1;
            }
            for (t, &(start, first)) in runs.iter().enumerate().skip(run) {
                let end = runs.get(t + 1).map_or(k, |&(next, _)| next);
                let begin = start.max(top);
                let src = first + (begin - start);
                dst[begin..end].copy_from_slice(&col[src..src + (end - begin)]);
            }
        }
        diag_max
    }

    /// Removes the row/column at position `p` of C. False (C unchanged)
    /// only for an explicit inverse whose block would be singular without
    /// `p`.
    pub(crate) fn remove(&mut self, p: usize) -> bool {
        let k = self.idx.len();
        let ld = self.ld;
        if !self.symmetric {
            let ok = inverse::remove(&mut self.l, ld, k, p);
            if ok {
                self.idx.remove(p);
            }
            return ok;
        }
        // Rank-one update of L33 with x = l32 (column p, overwritten).
        for j in p + 1..k {
            let (front, back) = self.l.split_at_mut(j * ld);
            let x = &mut front[p * ld + j..p * ld + k];
            let col = &mut back[j..k];
            let (ljj, xj) = (col[0], x[0]);
            if xj == 0.0 {
                continue;
            }
            let r = ljj.hypot(xj);
            let c = r / ljj;
            let inv_c = ljj / r;
            let sn = xj / ljj;
            col[0] = r;
            for (lij, xi) in col[1..].iter_mut().zip(&mut x[1..]) {
                let v = (*lij + sn * *xi) * inv_c;
                *xi = c * *xi - sn * v;
                *lij = v;
            }
        }
        // Delete row p and column p.
        for c in 0..p {
            self.l.copy_within(c * ld + p + 1..c * ld + k, c * ld + p);
        }
        for c in p + 1..k {
            self.l
                .copy_within(c * ld + c..c * ld + k, (c - 1) * ld + (c - 1));
            self.inv_diag[c - 1] = 1.0 / self.l[(c - 1) * ld + (c - 1)];
        }
        self.idx.remove(p);
        true
    }

    /// Solves `L y = b` (or `L' x = b` if `transposed`) in place.
    fn triangular(&self, b: &mut [f64], transposed: bool) {
        substitute(&self.l, self.ld, &self.inv_diag, b, transposed);
    }

    /// Solves `M_CC X = B` in place for the `cols` columns of `b`
    /// (column-major, `self.len()` rows each) by faer's blocked triangular
    /// solves. Cholesky factor only.
    pub(crate) fn solve_many_in_place(&self, b: &mut [f64], cols: usize) {
        let (k, ld) = (self.idx.len(), self.ld);
        if k == 0 || cols == 0 {
            return;
        }
        let lk = MatRef::from_column_major_slice_with_stride(&self.l[..(k - 1) * ld + k], k, k, ld);
        let mut x = MatMut::from_column_major_slice_mut(&mut b[..k * cols], k, cols);
        solve_lower_triangular_in_place(lk, x.as_mut(), Par::Seq);
        solve_upper_triangular_in_place(lk.transpose(), x, Par::Seq);
    }

    /// Solves `M_CC x = b` in place (`b.len() == self.len()`).
    pub(crate) fn solve_in_place(&mut self, b: &mut [f64]) {
        if self.symmetric {
            self.triangular(b, false);
            self.triangular(b, true);
        } else {
            let k = b.len();
            self.scratch[0][..k].copy_from_slice(b);
            gemv(&self.l, self.ld, &self.scratch[0][..k], b);
        }
    }

    /// The pivoting direction `dz_C = -s M_CC^-1 M_Cd` from `y = M_Cd`
    /// (gathered by the caller). With a Cholesky factor `y` is left holding
    /// `L^-1 M_Cd`, the factor row of `d` should it join C next.
    pub(crate) fn direction(&mut self, y: &mut [f64], s: f64, dz: &mut [f64]) {
        if self.symmetric {
            self.triangular(y, false);
            for (dz, &y) in dz.iter_mut().zip(y.iter()) {
                *dz = -s * y;
            }
            self.triangular(dz, true);
        } else {
            gemv(&self.l, self.ld, y, dz);
            dz.iter_mut().for_each(|x| *x *= -s);
        }
    }
}

/// The left-looking ("gaxpy") Cholesky of Golub & Van Loan, Matrix
/// Computations, 4th ed., Alg. 4.2.1, blocked by panels of four columns
/// (sec. 4.2.9), on the rows from `from` on (k = `inv_diag.len()`) of the
/// column-major `l` (leading dimension `ld >= k + 4`): each panel first
/// gets `-L[rows, j] L[panel, j]'` of every column j before it, in tiles of
/// four rows by four columns (rows past k and entries above the diagonal
/// are computed and never read), then its columns are factored in turn,
/// each scaled by `1 / L_cc` (the kept one before `from`), or zeroed
/// (`inv_diag[c] = 0`) when its pivot is at most `tol` or not finite.
struct LeftLooking<'a> {
    l: &'a mut [f64],
    ld: usize,
    inv_diag: &'a mut [f64],
    from: usize,
    tol: f64,
}

impl LanesOp for LeftLooking<'_> {
    type Output = ();
    #[inline(always)]
    fn run<L: Lanes>(self, lanes: L) {
        let (l, ld, k, from) = (self.l, self.ld, self.inv_diag.len(), self.from);
        let tile = |l: &[f64], at: usize| -> L::V {
            lanes.load(l[at..at + 4].try_into().expect("four entries"))
        };
        for c0 in (0..k).step_by(4) {
            let width = (k - c0).min(4);
            let mut r = c0.max(from);
            while r < k {
                let mut acc = [0, 1, 2, 3].map(|t| tile(l, (c0 + t).min(k - 1) * ld + r));
                for j in 0..c0 {
                    let a = tile(l, j * ld + r);
                    for (t, acc) in acc.iter_mut().enumerate() {
                        let b = lanes.splat(l[j * ld + c0 + t]);
                        *acc = lanes.sub(*acc, lanes.mul(a, b));
                    }
                }
                for (t, acc) in acc.iter().enumerate().take(width) {
                    let at = (c0 + t) * ld + r;
                    let out: &mut [f64; 4] = (&mut l[at..at + 4]).try_into().expect("four");
                    lanes.store(out, *acc);
                }
                r += 4;
            }
            for c in c0..c0 + width {
                let top = c.max(from);
                let (done, rest) = l.split_at_mut(c * ld);
                let col = &mut rest[top..k];
                for j in c0..c {
                    let d = -done[j * ld + c];
                    add_column(lanes, col, d, &done[j * ld + top..j * ld + k]);
                }
                if c < from {
                    let inv = self.inv_diag[c];
                    col.iter_mut().for_each(|x| *x *= inv);
                    continue;
                }
                let pivot = col[0];
                if pivot > self.tol && pivot.is_finite() {
                    let root = pivot.sqrt();
                    let inv = 1.0 / root;
                    col[0] = root;
                    col[1..].iter_mut().for_each(|x| *x *= inv);
                    self.inv_diag[c] = inv;
                } else {
                    col.fill(0.0);
                    self.inv_diag[c] = 0.0;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `B B' + shift I` for a fixed `n x r` B: PSD of rank `r` when
    /// `shift = 0`.
    fn gram(n: usize, r: usize, shift: f64) -> Lcp {
        let b = |i: usize, t: usize| {
            ((i * 7 + t * 3) % 11) as f64 / 5.0 - 1.0 + f64::from(u8::from(i == t))
        };
        let entries: Vec<f64> = (0..n * n)
            .map(|e| {
                let (i, j) = (e / n, e % n);
                (0..r).map(|t| b(i, t) * b(j, t)).sum::<f64>() + if i == j { shift } else { 0.0 }
            })
            .collect();
        Lcp::from_row_major(n, &entries, &vec![0.0; n]).unwrap()
    }

    fn factor(n: usize) -> Factor {
        let mut f = Factor::default();
        f.reset(n, true);
        f
    }

    /// Solves `M_CC x = M_C,0 + 1` through the factor and checks the residual.
    fn check(f: &mut Factor, m: &Lcp) {
        let k = f.len();
        let b: Vec<f64> = f.idx.iter().map(|&i| m.col(0)[i] + 1.0).collect();
        let mut x = b.clone();
        f.solve_in_place(&mut x);
        for (r, &br) in b.iter().enumerate() {
            let mx: f64 = (0..k).map(|c| m.col(f.idx[c])[f.idx[r]] * x[c]).sum();
            assert!((mx - br).abs() < 1e-12, "{r}: {mx} vs {br}");
        }
    }

    #[test]
    fn append_and_remove_keep_the_factor_exact_and_refuse_a_duplicate() {
        let m = gram(5, 3, 1.0);
        let mut f = factor(5);
        for i in [3, 0, 4, 1, 2] {
            assert!(f.try_append(&m, i, 1e-12));
            check(&mut f, &m);
        }
        for p in [1, 0, 2] {
            assert!(f.remove(p));
            check(&mut f, &m);
        }
        assert_eq!(f.idx, vec![4, 1]);
        assert!(f.try_append(&m, 0, 1e-12));
        check(&mut f, &m);
        // Rows 0 and 1 are equal: M_{01,01} is singular.
        let m = Lcp::from_row_major(2, &[1.0, 1.0, 1.0, 1.0], &[0.0; 2]).unwrap();
        let mut f = factor(2);
        assert!(f.try_append(&m, 0, 1e-10));
        assert!(!f.try_append(&m, 1, 1e-10));
        assert_eq!(f.len(), 1);
    }

    #[test]
    fn a_small_block_keeps_its_leading_columns_and_refuses_dependent_rows() {
        let (n, rank) = (12, 7);
        let m = gram(n, rank, 0.0);
        let mut scratch = FaerScratch::default();
        let mut refused = Vec::new();
        let (mut fresh, mut kept) = (factor(n), factor(n));
        // A first block, then one whose first 3 rows are the first's: the
        // factor kept from position 3 equals the one factored afresh, and
        // the rows beyond the rank are refused by both, as appends would.
        kept.idx = vec![4, 0, 9, 2, 7];
        kept.factor_block(&m, 1e-10, 0, &mut scratch, &mut refused);
        assert!(refused.is_empty());
        let next = vec![4, 0, 9, 1, 3, 5, 6, 8, 10, 11];
        kept.idx.clone_from(&next);
        kept.factor_block(&m, 1e-10, 3, &mut scratch, &mut refused);
        let kept_refused = refused.clone();
        fresh.idx.clone_from(&next);
        fresh.factor_block(&m, 1e-10, 0, &mut scratch, &mut refused);
        assert_eq!(kept_refused, refused);
        assert_eq!(kept.idx, fresh.idx);
        assert_eq!(kept.len(), rank);
        let mut appended = factor(n);
        let by_appends: Vec<usize> = next
            .iter()
            .copied()
            .filter(|&i| appended.try_append(&m, i, 1e-10))
            .collect();
        assert_eq!(by_appends, fresh.idx);
        for c in 0..rank {
            for r in c..rank {
                let (a, b) = (kept.l[c * kept.ld + r], fresh.l[c * fresh.ld + r]);
                assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "({r}, {c})");
            }
        }
        check(&mut kept, &m);
    }

    #[test]
    fn the_copied_block_is_m_cc_for_runs_and_scattered_rows() {
        // Long runs (slices), runs out of order, and scattered rows (one
        // gather per entry): each copy must be the lower triangle of M_CC.
        let n = 24;
        // Symmetric, every unordered pair its own value.
        let entries: Vec<f64> = (0..n * n)
            .map(|e| {
                let (i, j) = (e / n, e % n);
                (100 * i.min(j) + i.max(j)) as f64
            })
            .collect();
        let m = Lcp::from_row_major(n, &entries, &vec![0.0; n]).unwrap();
        let long: Vec<usize> = (0..8).chain(12..20).chain(9..11).chain([23]).collect();
        let scattered: Vec<usize> = (0..n).step_by(3).chain((1..n).step_by(5)).collect();
        for idx in [long, scattered, vec![7]] {
            let mut f = factor(n);
            f.idx.clone_from(&idx);
            let diag_max = f.copy_block(&m, 0);
            let expected = idx.iter().map(|&i| m.col(i)[i]).fold(0.0, f64::max);
            assert_eq!(diag_max, expected);
            for (c, &j) in idx.iter().enumerate() {
                for (r, &i) in idx.iter().enumerate().skip(c) {
                    assert_eq!(f.l[c * f.ld + r], m.col(j)[i], "{idx:?}: ({r}, {c})");
                }
            }
        }
    }
}
