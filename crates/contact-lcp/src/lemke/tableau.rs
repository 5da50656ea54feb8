// The basis of Lemke's method and its explicit inverse, as one dense tableau
// updated per pivot and refactorised from scratch on demand.
//
// Scaled problem: M~ = D M D / sM and q~ = D q / sq, with D the powers of two
// that equilibrate M (scaling.rs) and sM = max|D M D|, sq = max|D q| rounded
// up to powers of two: exact in floating point, with the same complementary
// bases (z~ = z sM / (sq D), w~ = w D / sq) and entries at most 1, so the
// tolerances are relative. The system is w - M~ z - d z0 = q~ with d = 1 (a
// warm start: d = B 1 of its first basis); variables are numbered w_i = i,
// z_i = n + i, z0 = 2n, with columns e_i, -M~[:, i] and -d.
//
// Tableau: B is the basis, y = B^-1 q~ the basic values. With W the rows
// whose slack w_i is basic, R the others, and Z the basic z-type variables,
//     B = [[I, F], [0, C]],   B^-1 = [[I, -F C^-1], [0, C^-1]],
// C = B[R, Z] of k x k. Only the k columns of B^-1 for R are dense: the
// n x k block G = B^-1[:, R]. Row p of `tab` (stride n + 1) is [y_p | G_p],
// G's columns in "slots" (`slot_row[s]` = the row of R of slot s), so a pivot
// costs O(n k) instead of O(n^2) (contact problems: k = active constraints).
//
// A pivot on row r with entering column c, u = B^-1 c, is the Gauss-Jordan
// step (Sherman-Morrison for one changed column, Cline eq. 4.21)
//     row_r <- row_r / u_r,   row_i <- row_i - u_i row_r   (i != r)
// on y and G together. Before it the slots follow R: a slack w_l leaving adds
// row l (its column of B^-1, e_r, becomes a slot), a slack w_j entering drops
// row j's slot (its column is exactly e_r). `refactor` rebuilds y and G from
// the basis list with an LU of C alone (Cline sec. 4.8.1); `final_solve`
// solves the final basis the same way.

use super::independent_rows::independent_rows;
use super::row_kernels::{axpy_max_abs, axpy_max_abs_dot, axpy_max_abs_dot_2, dot, dot_in};
use crate::linalg::lane_scan::{max_abs, max_abs_in};
use crate::linalg::lanes::{Lanes, LanesOp, with_best_lanes};
use crate::linalg::lu::{BlockLu, Singular};
use crate::problem::Lcp;
use crate::scaling::{equilibrate, pow2_ceil, pow2_ceil_full};
use crate::tuning::WARM_PIVOT;
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};

/// Marks a variable that is not in the basis.
pub(super) const NONBASIC: usize = usize::MAX;

/// Dense Lemke tableau and scratch memory (reused across solves).
#[derive(Clone, Debug, Default)]
pub(super) struct Tableau {
    pub(super) n: usize,
    /// 1 / sM (M~ is read from the problem's M on access, [`ScaledColumn`]).
    inv_ms: f64,
    /// max |M~_ij| over i, per column j.
    m_col_max: Vec<f64>,
    /// q~.
    q: Vec<f64>,
    /// sM and sq.
    m_scale: f64,
    q_scale: f64,
    /// The diagonal D of the equilibration.
    d: Vec<f64>,
    /// The covering vector d~ (z0's column is -d~): ones after `load`, `B 1`
    /// after `warm_basis`.
    cover: Vec<f64>,
    /// Whether `lu` holds the factor of the current block C (left by
    /// `warm_basis` for `final_solve`, cleared by any change of the basis).
    block_factored: bool,
    /// Row-major n x (n + 1), the first k + 1 columns used: [y | G].
    pub(super) tab: Vec<f64>,
    /// Slots in use: k = |R|.
    k: usize,
    /// slot_row[s] = the row of R whose column of B^-1 is slot s.
    slot_row: Vec<usize>,
    /// slot_of[i] = the slot of row i, or NONBASIC when w_i is basic.
    pub(super) slot_of: Vec<usize>,
    /// The entering z-column gathered in slot order, c_R.
    c_r: Vec<f64>,
    /// max |(B^-1)_pj| over j, per row p.
    pub(super) row_norm: Vec<f64>,
    /// basis[p] = the variable basic in row p.
    pub(super) basis: Vec<usize>,
    /// pos[var] = its row, or NONBASIC (length 2n + 1).
    pub(super) pos: Vec<usize>,
    /// The entering column in basis coordinates, u = B^-1 c, and the next
    /// one, computed during a pivot.
    pub(super) u: Vec<f64>,
    u_next: Vec<f64>,
    /// The variable whose column `u` already holds (set by `pivot`).
    prepared: Option<usize>,
    /// max |c_i| of the entering column c.
    pub(super) c_norm: f64,
    /// Candidate rows of the ratio test.
    pub(super) cand: Vec<usize>,
    /// The pivot row; length-n scratch.
    prow: Vec<f64>,
    col: Vec<f64>,
    /// Positions of the basic z-type variables and rows of R, listed by
    /// `fill_block`; rows of W, listed by `refactor`.
    zpos: Vec<usize>,
    rrows: Vec<usize>,
    wrows: Vec<usize>,
    /// F = B[W, Z] and G_W', column-major (`refactor`); a column of C
    /// (`final_solve`).
    fbuf: Vec<f64>,
    gbuf: Vec<f64>,
    cbuf: Vec<f64>,
    lu: BlockLu,
}

/// Empties `v` and fills it with `len` copies of `x`.
pub(super) fn refill<T: Clone>(v: &mut Vec<T>, len: usize, x: T) {
    v.clear();
    v.resize(len, x);
}

/// Column j of M~ = D M D / sM, formed on access from the problem's M as
/// `M_ij d_i d_j / sM`, in that order: every factor is a power of two, so an
/// entry has the bits a scaled copy would have, without the O(n^2) copy.
#[derive(Clone, Copy)]
struct ScaledColumn<'a> {
    col: &'a [f64],
    d: &'a [f64],
    dj: f64,
    inv_ms: f64,
}

impl<'a> ScaledColumn<'a> {
    /// Column `j` of M~ for `lcp`, scaling `d` and `inv_ms` = 1/sM.
    #[inline(always)]
    fn new(lcp: &'a Lcp, d: &'a [f64], inv_ms: f64, j: usize) -> Self {
        Self {
            col: lcp.col(j),
            d,
            dj: d[j],
            inv_ms,
        }
    }

    /// M~_ij.
    #[inline(always)]
    fn get(&self, i: usize) -> f64 {
        self.col[i] * self.d[i] * self.dj * self.inv_ms
    }
}

/// Writes the entries `rows` of the column of the z-type variable `var` in
/// `[I, -M~, -d~]` into `out` (d~ = `cover`).
fn basic_column(
    lcp: &Lcp,
    (d, cover): (&[f64], &[f64]),
    inv_ms: f64,
    var: usize,
    rows: &[usize],
    out: &mut [f64],
) {
    let n = d.len();
    if var < 2 * n {
        let col = ScaledColumn::new(lcp, d, inv_ms, var - n);
        for (x, &i) in out.iter_mut().zip(rows) {
            *x = -col.get(i);
        }
    } else {
        for (x, &i) in out.iter_mut().zip(rows) {
            *x = -cover[i];
        }
    }
}

/// The pivot on row `r` of the variable whose column `u` holds, in the
/// tableau (`Tableau::pivot`): row r scaled by 1 / u_r, then the
/// Gauss-Jordan sweep row p <- row p - u_p row r for p != r, with each row's
/// new maximum and, when `leaving` is a slack w_j (z_j enters next), the
/// entry u_next_p = c_p + G_p c_R of z_j's column in the same pass.
struct RowSweep<'a> {
    t: &'a mut Tableau,
    lcp: &'a Lcp,
    r: usize,
    leaving: usize,
}

impl LanesOp for RowSweep<'_> {
    type Output = ();

    #[inline(always)]
    fn run<L: Lanes>(self, lanes: L) {
        let RowSweep { t, lcp, r, leaving } = self;
        let (n, k, w) = (t.n, t.k, t.n + 1);
        let Tableau {
            tab,
            u,
            u_next,
            row_norm,
            prow,
            d,
            inv_ms,
            basis,
            c_r,
            ..
        } = t;
        let next_col = (leaving < n).then(|| ScaledColumn::new(lcp, d, *inv_ms, leaving));
        let c_r = &c_r[..k];
        let inv = 1.0 / u[r];
        let prow = &mut prow[..=k];
        prow.copy_from_slice(&tab[r * w..r * w + 1 + k]);
        for x in prow.iter_mut() {
            *x *= inv;
        }
        tab[r * w..r * w + 1 + k].copy_from_slice(prow);
        u_next.resize(n, 0.0);
        // A basic slack's row of B^-1 holds a 1 outside G.
        let unit_norm = |p: usize| if basis[p] < n { 1.0 } else { 0.0 };
        let c_w = |c: ScaledColumn<'_>, p: usize| if basis[p] < n { -c.get(basis[p]) } else { 0.0 };
        let mut p = 0;
        while p < n {
            let (f, updated) = (u[p], p != r && u[p] != 0.0);
            // Two rows at once share the loads of the pivot row and of c_R.
            if let Some(c) = next_col
                && updated
                && p + 1 < n
                && p + 1 != r
                && u[p + 1] != 0.0
            {
                let (row_a, row_b) = tab[p * w..(p + 2) * w].split_at_mut(w);
                let (row_a, row_b) = (&mut row_a[..=k], &mut row_b[..=k]);
                let g = u[p + 1];
                row_a[0] -= f * prow[0];
                row_b[0] -= g * prow[0];
                let (ra, rb) = (&mut row_a[1..], &mut row_b[1..]);
                let ((ma, da), (mb, db)) = axpy_max_abs_dot_2(lanes, ra, f, rb, g, &prow[1..], c_r);
                row_norm[p] = ma.max(unit_norm(p));
                row_norm[p + 1] = mb.max(unit_norm(p + 1));
                u_next[p] = c_w(c, p) + da;
                u_next[p + 1] = c_w(c, p + 1) + db;
                p += 2;
                continue;
            }
            let row = &mut tab[p * w..p * w + 1 + k];
            let (norm, dot) = if updated {
                row[0] -= f * prow[0];
                match next_col {
                    Some(_) => axpy_max_abs_dot(lanes, &mut row[1..], f, &prow[1..], c_r),
                    None => (axpy_max_abs(lanes, &mut row[1..], f, &prow[1..]), 0.0),
                }
            } else {
                let dot = next_col.map_or(0.0, |_| dot_in(lanes, &row[1..], c_r));
                (max_abs_in(lanes, &row[1..]), dot)
            };
            row_norm[p] = norm.max(unit_norm(p));
            if let Some(c) = next_col {
                u_next[p] = c_w(c, p) + dot;
            }
            p += 1;
        }
    }
}

impl Tableau {
    /// The artificial variable's index.
    pub(super) fn z0(&self) -> usize {
        2 * self.n
    }

    /// Value of the basic variable in row `p` (scaled units).
    pub(super) fn value(&self, p: usize) -> f64 {
        self.tab[p * (self.n + 1)]
    }

    /// Factor that turns a scaled value of `var` into problem units:
    /// z_j = z~_j D_j sq / sM, w_i = w~_i sq / D_i, z0 = z0~ sq.
    pub(super) fn unscale(&self, var: usize) -> f64 {
        let n = self.n;
        if var < n {
            self.q_scale / self.d[var]
        } else if var < 2 * n {
            self.d[var - n] * self.q_scale / self.m_scale
        } else {
            self.q_scale
        }
    }

    /// Scales the problem (M~ is read from `lcp` on access: every later call
    /// gets the same `lcp`) and sets the all-slack basis B = I.
    ///
    /// Preconditions: `lcp.dim() > 0` and some `q_i < 0`.
    pub(super) fn load(&mut self, lcp: &Lcp) {
        let n = lcp.dim();
        self.n = n;
        let converged_max = equilibrate(lcp, &mut self.d, &mut self.col, &mut self.m_col_max);
        let d = &self.d;
        // The column maxima of D M D are those of equilibrate's last sweep
        // when it converged, else one more pass; all factors are powers of
        // two, so the scaled entries are exact in either order.
        if converged_max.is_none() {
            self.m_col_max.clear();
            self.m_col_max.extend((0..n).map(|j| {
                let dj = d[j];
                lcp.col(j)
                    .iter()
                    .zip(d)
                    .fold(0.0_f64, |a, (&x, &di)| a.max((x * di * dj).abs()))
            }));
        }
        let m_max = self.m_col_max.iter().fold(0.0_f64, |a, &x| a.max(x));
        self.m_scale = if m_max > 0.0 { pow2_ceil(m_max) } else { 1.0 };
        self.inv_ms = 1.0 / self.m_scale;
        for v in &mut self.m_col_max {
            *v *= self.inv_ms;
        }
        let q_max = lcp
            .q()
            .iter()
            .zip(d)
            .fold(0.0_f64, |a, (x, di)| a.max((x * di).abs()));
        self.q_scale = pow2_ceil_full(q_max);
        let qs = self.q_scale;
        self.q.clear();
        self.q
            .extend(lcp.q().iter().zip(d).map(|(x, di)| x * di / qs));
        refill(&mut self.cover, n, 1.0);
        self.block_factored = false;

        // B = I: no slot is used. Only column 0 and the slots in use are
        // read, and a slot is zeroed when it is added.
        let w = n + 1;
        self.tab.resize(n * w, 0.0);
        for p in 0..n {
            self.tab[p * w] = self.q[p];
        }
        self.k = 0;
        refill(&mut self.slot_row, n, NONBASIC);
        refill(&mut self.slot_of, n, NONBASIC);
        refill(&mut self.c_r, n, 0.0);
        refill(&mut self.row_norm, n, 1.0);
        self.basis.clear();
        self.basis.extend(0..n);
        self.pos.clear();
        self.pos.extend(0..n);
        self.pos.resize(2 * n + 1, NONBASIC);
        refill(&mut self.u, n, 0.0);
        self.prepared = None;
        refill(&mut self.prow, w, 0.0);
        refill(&mut self.col, n, 0.0);
        // Reserve for the largest block (k <= n, (n - k) k <= n^2 / 4), so
        // later solves of this size never allocate (`reserve` counts from
        // the current length: cleared first).
        for v in [
            &mut self.cand,
            &mut self.zpos,
            &mut self.rrows,
            &mut self.wrows,
        ] {
            v.clear();
            v.reserve(n);
        }
        self.cbuf.clear();
        self.cbuf.reserve(n);
        for v in [&mut self.fbuf, &mut self.gbuf] {
            v.clear();
            v.reserve(n * n / 4 + 1);
        }
        self.lu.reserve(n);
    }

    /// The row where the artificial variable enters first: the most negative
    /// basic value, the largest such row on exact ties. Its column is
    /// `u = B^-1 (-d~) = -1` in both starts, so that step makes every value
    /// nonnegative; from B = I the rows after it are [q_i - q_t, e_i - e_t]
    /// and [-q_t, -e_t], lexicographically positive exactly when every tie
    /// i has i < t.
    pub(super) fn initial_row(&self) -> usize {
        let w = self.n + 1;
        let mut t = 0;
        for p in 0..self.n {
            if self.tab[p * w] <= self.tab[t * w] {
                t = p;
            }
        }
        t
    }

    /// Replaces the all-slack basis of `load` by the complementary basis with
    /// `z_i` basic where `basic[i]` and `w_i` elsewhere (cut to a
    /// nonsingular block by `independent_subset` when an LU of the guessed
    /// block finds a pivot at most `WARM_PIVOT` times its largest entry), and
    /// sets the covering vector to `d~ = B 1`, so that z0's column in basis
    /// coordinates is -1 as from B = I (see mod.rs). Only the basis is set:
    /// the caller solves it (`final_solve`) or builds its tableau
    /// (`refactor`).
    pub(super) fn warm_basis(&mut self, lcp: &Lcp, basic: &[bool]) {
        let n = self.n;
        self.rrows.clear();
        self.rrows.extend((0..n).filter(|&i| basic[i]));
        self.enter_rows();
        // A guess from an answer is usually nonsingular as it is: one LU
        // tells, and the final solve reuses it.
        self.fill_block(lcp);
        let mut small = std::mem::take(&mut self.cand);
        let nonsingular = self.lu.factor_listing_small(WARM_PIVOT, &mut small) && small.is_empty();
        self.cand = small;
        self.block_factored = nonsingular;
        if !nonsingular {
            for &i in &self.rrows {
                self.basis[i] = i;
                self.pos[i] = i;
                self.pos[n + i] = NONBASIC;
                self.slot_row[self.slot_of[i]] = NONBASIC;
                self.slot_of[i] = NONBASIC;
            }
            self.k = 0;
            self.independent_subset(lcp, basic);
            self.enter_rows();
        }
        // d~ = B 1: the unit columns of the basic slacks, minus the columns
        // M~[:, j] of the basic z_j.
        self.cover.fill(1.0);
        for &j in &self.rrows {
            self.cover[j] = 0.0;
        }
        for &j in &self.rrows {
            let col = ScaledColumn::new(lcp, &self.d, self.inv_ms, j);
            for (i, c) in self.cover.iter_mut().enumerate() {
                *c -= col.get(i);
            }
        }
    }

    /// Makes `z_i` basic in row i, in a new slot, for every row of `rrows`.
    fn enter_rows(&mut self) {
        let n = self.n;
        for &i in &self.rrows {
            self.basis[i] = n + i;
            self.pos[i] = NONBASIC;
            self.pos[n + i] = i;
            self.slot_row[self.k] = i;
            self.slot_of[i] = self.k;
            self.k += 1;
        }
    }

    /// The rows of `basic` whose principal block of M~ is kept nonsingular
    /// (independent_rows.rs), in `rrows`, ascending.
    fn independent_subset(&mut self, lcp: &Lcp, basic: &[bool]) {
        let rows = &mut self.rrows;
        rows.clear();
        rows.extend((0..self.n).filter(|&i| basic[i]));
        let k = rows.len();
        // The block, column-major, in the refactorisation's buffer.
        let c = &mut self.fbuf;
        refill(c, k * k, 0.0);
        for (a, &j) in rows.iter().enumerate() {
            let col = ScaledColumn::new(lcp, &self.d, self.inv_ms, j);
            for (x, &i) in c[a * k..(a + 1) * k].iter_mut().zip(rows.iter()) {
                *x = col.get(i);
            }
        }
        let order = &mut self.cand;
        let kept = independent_rows(c, k, WARM_PIVOT, order);
        order.truncate(kept);
        order.sort_unstable();
        for (r, &t) in order.iter().enumerate() {
            rows[r] = rows[t];
        }
        rows.truncate(kept);
    }

    /// (B^-1)_pj: an entry of a unit column (j in W) or of G (j in R).
    #[cfg(test)]
    fn inverse_entry(&self, p: usize, j: usize) -> f64 {
        match self.slot_of[j] {
            NONBASIC => f64::from(u8::from(self.pos[j] == p)),
            s => self.tab[p * (self.n + 1) + 1 + s],
        }
    }

    /// Gathers c_R = -M~[R, j] in slot order (the R part of z_j's column).
    fn gather_z_column(&mut self, lcp: &Lcp, j: usize) {
        let col = ScaledColumn::new(lcp, &self.d, self.inv_ms, j);
        for (c, &i) in self.c_r[..self.k].iter_mut().zip(&self.slot_row) {
            *c = -col.get(i);
        }
    }

    /// Computes u = B^-1 c for the column c of `var`, and |c|_max.
    pub(super) fn entering_column(&mut self, lcp: &Lcp, var: usize) {
        let n = self.n;
        let w = n + 1;
        let k = self.k;
        if self.prepared.take() == Some(var) {
            return;
        }
        if var < n {
            // c = e_var with var in R: u is its column of G.
            let s = 1 + self.slot_of[var];
            for (p, u) in self.u.iter_mut().enumerate() {
                *u = self.tab[p * w + s];
            }
            self.c_norm = 1.0;
        } else {
            // u_p = c_i (w_i basic in row p) + G_p c_R, for c = -M~[:, j]
            // or c = -d~.
            let col = (var < 2 * n).then(|| ScaledColumn::new(lcp, &self.d, self.inv_ms, var - n));
            let c_at = |i: usize| col.map_or(-self.cover[i], |col| -col.get(i));
            for (c, &i) in self.c_r[..k].iter_mut().zip(&self.slot_row) {
                *c = c_at(i);
            }
            for (p, u) in self.u.iter_mut().enumerate() {
                let g = &self.tab[p * w + 1..p * w + 1 + k];
                let unit = self.basis[p];
                let c_w = if unit < n { c_at(unit) } else { 0.0 };
                *u = c_w + dot(g, &self.c_r[..k]);
            }
            self.c_norm = match col {
                Some(_) => self.m_col_max[var - n],
                None => max_abs(&self.cover),
            };
        }
        self.clean_column();
    }

    /// Entries of u at the level of a rounding error of their row are zero:
    /// this keeps exact zeros of B^-1 exact, which the lexicographic test
    /// relies on in degenerate problems.
    fn clean_column(&mut self) {
        for (u, &rn) in self.u.iter_mut().zip(&self.row_norm) {
            if u.abs() <= f64::EPSILON * rn * self.c_norm {
                *u = 0.0;
            }
        }
    }

    /// The pivot element of row `p` relative to the scale of its row and of
    /// the entering column (the quantity `pivot_tolerance` bounds).
    pub(super) fn relative_pivot(&self, p: usize) -> f64 {
        self.u[p] / (self.row_norm[p] * self.c_norm)
    }

    /// Exchanges the variable basic in row `r` for `var`, using the current
    /// `u` (see the header), and returns the variable that left.
    ///
    /// A row may leave slightly negative (within the Harris tolerance), the
    /// entering variable then too; q~ is never perturbed, so the final solve
    /// agrees with the values. When the next entering variable (the
    /// complement of the one leaving) is some z_j, its column is computed in
    /// the same sweep and `entering_column` reuses it.
    pub(super) fn pivot(&mut self, lcp: &Lcp, r: usize, var: usize) -> usize {
        let n = self.n;
        self.block_factored = false;
        let leaving = self.basis[r];
        if var < n {
            self.remove_slot(var);
        }
        if leaving < n {
            self.add_slot(leaving, r);
            // w_j leaving means z_j enters next.
            self.gather_z_column(lcp, leaving);
        }
        self.basis[r] = var;
        self.pos[leaving] = NONBASIC;
        self.pos[var] = r;
        // The hot loop of Lemke's method, compiled for the best vector
        // instructions of the machine (the same bits either way).
        with_best_lanes(RowSweep {
            t: self,
            lcp,
            r,
            leaving,
        });
        if leaving < n {
            std::mem::swap(&mut self.u, &mut self.u_next);
            self.c_norm = self.m_col_max[leaving];
            self.clean_column();
            self.prepared = Some(n + leaving);
        } else {
            self.prepared = None;
        }
        leaving
    }

    /// Row j leaves R (w_j enters): its slot is dropped and the last slot
    /// moves into its place.
    fn remove_slot(&mut self, j: usize) {
        let w = self.n + 1;
        let s = self.slot_of[j];
        let last = self.k - 1;
        if s != last {
            for row in self.tab.chunks_exact_mut(w) {
                row[1 + s] = row[1 + last];
            }
            let moved = self.slot_row[last];
            self.slot_row[s] = moved;
            self.slot_of[moved] = s;
        }
        self.slot_row[last] = NONBASIC;
        self.slot_of[j] = NONBASIC;
        self.k = last;
    }

    /// Row l joins R (w_l, basic in row r, leaves): its column of B^-1, the
    /// unit vector e_r, becomes a new slot.
    fn add_slot(&mut self, l: usize, r: usize) {
        let w = self.n + 1;
        let s = self.k;
        for row in self.tab.chunks_exact_mut(w) {
            row[1 + s] = 0.0;
        }
        self.tab[r * w + 1 + s] = 1.0;
        self.slot_row[s] = l;
        self.slot_of[l] = s;
        self.k = s + 1;
    }

    /// Lists the block C = B[R, Z] of the basis and fills it (column-major)
    /// in `lu`, not factorised: the rows R (`rrows`, in slot order) and the
    /// positions Z of the basic z-type variables (`zpos`, ascending);
    /// C[b, a] is row rrows[b] of the column of the variable basic at
    /// zpos[a].
    fn fill_block(&mut self, lcp: &Lcp) {
        let n = self.n;
        self.zpos.clear();
        self.zpos.extend((0..n).filter(|&p| self.basis[p] >= n));
        self.rrows.clear();
        self.rrows.extend_from_slice(&self.slot_row[..self.k]);
        let k = self.zpos.len();
        debug_assert_eq!(k, self.rrows.len());
        debug_assert!(self.rrows.iter().all(|&i| self.pos[i] == NONBASIC));
        let c = self.lu.reset(k);
        for (a, &p) in self.zpos.iter().enumerate() {
            let column = &mut c[a * k..(a + 1) * k];
            let scaling = (&self.d[..], &self.cover[..]);
            basic_column(
                lcp,
                scaling,
                self.inv_ms,
                self.basis[p],
                &self.rrows,
                column,
            );
        }
    }

    /// Rebuilds y and G from a fresh LU of C (`fill_block`, linalg/lu.rs):
    /// y_Z = C^-1 q~_R and G_Z = C^-1 on the rows of Z; G_W = -F C^-1 and
    /// y_W = q~_W - F y_Z on the rows of the basic slacks, F = B[W, Z].
    pub(super) fn refactor(&mut self, lcp: &Lcp) -> Result<(), Singular> {
        self.prepared = None;
        self.block_factored = false;
        let n = self.n;
        let w = n + 1;
        self.fill_block(lcp);
        self.lu.factor()?;
        let k = self.zpos.len();
        let nw = n - k;
        self.lu.invert();
        let y_z = &mut self.col[..k];
        for (x, &i) in y_z.iter_mut().zip(&self.rrows) {
            *x = self.q[i];
        }
        self.lu.solve(y_z);

        // F (column-major nw x k) and y_W.
        self.wrows.clear();
        self.wrows
            .extend((0..n).filter(|&i| self.pos[i] != NONBASIC));
        refill(&mut self.fbuf, nw * k, 0.0);
        let y_w = &mut self.prow[..nw];
        for (y, &i) in y_w.iter_mut().zip(&self.wrows) {
            *y = self.q[i];
        }
        for (a, &p) in self.zpos.iter().enumerate() {
            let column = &mut self.fbuf[a * nw..(a + 1) * nw];
            let scaling = (&self.d[..], &self.cover[..]);
            basic_column(
                lcp,
                scaling,
                self.inv_ms,
                self.basis[p],
                &self.wrows,
                column,
            );
            let ya = self.col[a];
            for (y, &f) in y_w.iter_mut().zip(column.iter()) {
                *y -= f * ya;
            }
        }
        // G_W' = -(C^-1)' F' (column-major k x nw): column iw is row iw of
        // G_W, contiguous as the tableau's rows are.
        refill(&mut self.gbuf, k * nw, 0.0);
        matmul(
            MatMut::from_column_major_slice_mut(&mut self.gbuf, k, nw),
            Accum::Replace,
            MatRef::from_column_major_slice(&self.lu.inv, k, k).transpose(),
            MatRef::from_column_major_slice(&self.fbuf, nw, k).transpose(),
            -1.0,
            Par::Seq,
        );

        // Slot b stays the column of rrows[b] = slot_row[b].
        let inv = &self.lu.inv;
        for (a, &p) in self.zpos.iter().enumerate() {
            let row = &mut self.tab[p * w..p * w + 1 + k];
            row[0] = self.col[a];
            for (g, b) in row[1..].iter_mut().zip(0..k) {
                *g = inv[b * k + a];
            }
        }
        for (iw, &i) in self.wrows.iter().enumerate() {
            let p = self.pos[i];
            let row = &mut self.tab[p * w..p * w + 1 + k];
            row[0] = self.prow[iw];
            row[1..].copy_from_slice(&self.gbuf[iw * k..(iw + 1) * k]);
        }
        for (p, rn) in self.row_norm.iter_mut().enumerate() {
            let unit_norm = if self.basis[p] < n { 1.0 } else { 0.0 };
            *rn = max_abs(&self.tab[p * w + 1..p * w + 1 + k]).max(unit_norm);
        }
        if self
            .tab
            .chunks_exact(w)
            .any(|row| row[..=k].iter().any(|x| !x.is_finite()))
        {
            return Err(Singular { step: k });
        }
        Ok(())
    }

    /// Solves the final basis afresh (C y_Z = q~_R, in the scaled problem)
    /// with one step of iterative refinement, and writes the basic z into
    /// `z` in problem units (nonbasic z = 0).
    pub(super) fn final_solve(&mut self, lcp: &Lcp, z: &mut [f64]) -> Result<(), Singular> {
        let n = self.n;
        if !std::mem::take(&mut self.block_factored) {
            self.fill_block(lcp);
            self.lu.factor()?;
        }
        let k = self.zpos.len();
        let y = &mut self.col[..k];
        for (x, &i) in y.iter_mut().zip(&self.rrows) {
            *x = self.q[i];
        }
        self.lu.solve(y);
        // r = q~_R - C y_Z; y_Z += C^-1 r.
        let r = &mut self.prow[..k];
        for (rb, &i) in r.iter_mut().zip(&self.rrows) {
            *rb = self.q[i];
        }
        let c = &mut self.cbuf;
        refill(c, k, 0.0);
        for (a, &p) in self.zpos.iter().enumerate() {
            let scaling = (&self.d[..], &self.cover[..]);
            basic_column(lcp, scaling, self.inv_ms, self.basis[p], &self.rrows, c);
            for (rb, &cb) in r.iter_mut().zip(c.iter()) {
                *rb -= cb * y[a];
            }
        }
        self.lu.solve(r);
        for (ya, ra) in y.iter_mut().zip(r.iter()) {
            *ya += ra;
        }
        if y.iter().any(|x| !x.is_finite()) {
            return Err(Singular { step: k });
        }
        z.fill(0.0);
        for (a, &p) in self.zpos.iter().enumerate() {
            let var = self.basis[p];
            if var < 2 * n {
                z[var - n] = y[a] * self.d[var - n] * self.q_scale / self.m_scale;
            }
        }
        Ok(())
    }

    /// Writes the z part of the current basic solution into `z`, in problem
    /// units.
    pub(super) fn current_z(&self, z: &mut [f64]) {
        let n = self.n;
        z.fill(0.0);
        for (p, &var) in self.basis.iter().enumerate() {
            if (n..2 * n).contains(&var) {
                z[var - n] = self.value(p) * self.unscale(var);
            }
        }
    }
}

#[cfg(test)]
mod tests;
