// The basis of Lemke's method and its explicit inverse, kept as one dense
// tableau that is updated per pivot and refactorised from scratch on demand.
//
// Scaled problem. The solver works on M~ = D M D / sM and q~ = D q / sq,
// with D a diagonal of powers of two that equilibrates the rows and columns
// of M (see scaling.rs), and sM = max|D M D|, sq = max|D q| rounded up to
// powers of two (sq > 0 here because some q_i < 0). All of this is exact in
// floating point. The scaled problem has the same complementary bases (its
// solution is z~ = z sM / (sq D), w~ = w D / sq), and its entries are at most 1
// in magnitude and comparable across rows, so the tolerances are relative.
//
// The system is  w - M~ z - d z0 = q~  with d = (1, ..., 1). Variables are
// numbered w_i = i, z_i = n + i, z0 = 2n; the columns of the constraint
// matrix [I, -M~, -d] are e_i, -M~[:, i] and -d.
//
// Tableau. Row p of `tab` (row-major, n x (n+1)) is [y_p | (B^-1)_p], with B
// the basis (column p = column of the basic variable basis[p]) and y = B^-1 q~
// the values of the basic variables. These rows are exactly the vectors
// compared by the lexicographic ratio test (Cline sec. 2.7.1). A pivot on row
// r with entering column c and u = B^-1 c replaces column r of B by c; the
// Sherman-Morrison update of B^-1 for one changed column (Cline eq. 4.21)
// is the Gauss-Jordan row operation done by `pivot`:
//     row_r <- row_r / u_r,   row_i <- row_i - u_i row_r   (i != r),
// applied to y and B^-1 together: O(n^2) per pivot, no allocation.
// `refactor` rebuilds B^-1 and y from the basis list alone, bounding the drift
// of the updates (Cline sec. 4.8.1). Only the block of B made of the basic
// z-columns and the rows whose slack is nonbasic needs a factorisation (dense
// LU with partial pivoting): the slack columns are unit vectors (see
// `factor_block`). The final solution is computed the same way.

use crate::dense_lu::{DenseLu, Singular};
use crate::problem::Lcp;
use crate::scaling::{equilibrate, pow2_ceil};

/// Marks a variable that is not in the basis.
pub(super) const NONBASIC: usize = usize::MAX;

/// Dense Lemke tableau and scratch memory (reused across solves).
#[derive(Clone, Debug, Default)]
pub(super) struct Tableau {
    pub(super) n: usize,
    /// Scaled matrix M~, column-major.
    m: Vec<f64>,
    /// max |M~_ij| over i, per column j.
    m_col_max: Vec<f64>,
    /// Scaled vector q~.
    q: Vec<f64>,
    /// sM: D M D = sM M~.
    m_scale: f64,
    /// sq: D q = sq q~.
    q_scale: f64,
    /// The diagonal D of the equilibration.
    d: Vec<f64>,
    /// Row-major n x (n+1): [y | B^-1].
    pub(super) tab: Vec<f64>,
    /// max |(B^-1)_pj| over j, per row p.
    pub(super) row_norm: Vec<f64>,
    /// basis[p] = the variable basic in row p.
    pub(super) basis: Vec<usize>,
    /// pos[var] = its row, or NONBASIC. Length 2n + 1.
    pub(super) pos: Vec<usize>,
    /// Entering column in basis coordinates, u = B^-1 c.
    pub(super) u: Vec<f64>,
    /// The next entering column, computed during a pivot.
    u_next: Vec<f64>,
    /// The variable whose column `u` already holds (set by `pivot`).
    prepared: Option<usize>,
    /// max |c_i| of the entering column c.
    pub(super) c_norm: f64,
    /// Candidate rows for the ratio test.
    pub(super) cand: Vec<usize>,
    /// Copy of the pivot row.
    prow: Vec<f64>,
    /// Length-n scratch.
    col: Vec<f64>,
    /// Positions of the basic z-type variables (see `factor_block`).
    zpos: Vec<usize>,
    /// Rows whose slack is nonbasic (see `factor_block`).
    rrows: Vec<usize>,
    /// Row-major inverse of the factorised block C.
    cinv: Vec<f64>,
    lu: DenseLu,
}

/// `x -= f y`, returning `max |x_i|` afterwards. Two simple loops (the
/// second over data already in L1) vectorise better than one fused loop.
fn axpy_max_abs(x: &mut [f64], f: f64, y: &[f64]) -> f64 {
    for (xi, &yi) in x.iter_mut().zip(y) {
        *xi -= f * yi;
    }
    max_abs(x)
}

/// [`axpy_max_abs`] and the dot product of the updated `x` with `c`.
fn axpy_max_abs_dot(x: &mut [f64], f: f64, y: &[f64], c: &[f64]) -> (f64, f64) {
    for (xi, &yi) in x.iter_mut().zip(y) {
        *xi -= f * yi;
    }
    (max_abs(x), dot(x, c))
}

/// `max |x_i|` with four independent maxima (vectorises; a NaN is dropped,
/// and caught when the basis is refactorised).
fn max_abs(x: &[f64]) -> f64 {
    let mut m = [0.0_f64; 4];
    let (x4, rest) = x.split_at(x.len() / 4 * 4);
    for xs in x4.chunks_exact(4) {
        for k in 0..4 {
            let a = xs[k].abs();
            m[k] = if a > m[k] { a } else { m[k] };
        }
    }
    for &xi in rest {
        let a = xi.abs();
        m[0] = if a > m[0] { a } else { m[0] };
    }
    let a = if m[0] > m[1] { m[0] } else { m[1] };
    let b = if m[2] > m[3] { m[2] } else { m[3] };
    if a > b { a } else { b }
}

/// Dot product with four accumulators (vectorises; order is fixed, so the
/// result is deterministic).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0; 4];
    let (a4, a_rest) = a.split_at(a.len() / 4 * 4);
    let (b4, b_rest) = b.split_at(a4.len());
    for (x, y) in a4.chunks_exact(4).zip(b4.chunks_exact(4)) {
        for k in 0..4 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in a_rest.iter().zip(b_rest) {
        s += x * y;
    }
    s
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

    /// Copies and scales the problem, and sets the all-slack basis B = I.
    ///
    /// Preconditions: `lcp.dim() > 0` and some `q_i < 0`.
    pub(super) fn load(&mut self, lcp: &Lcp) {
        let n = lcp.dim();
        self.n = n;
        equilibrate(lcp, &mut self.d, &mut self.col);
        let d = &self.d;
        let mut m_max = 0.0_f64;
        for j in 0..n {
            for (&x, &di) in lcp.col(j).iter().zip(d) {
                m_max = m_max.max((x * di * d[j]).abs());
            }
        }
        self.m_scale = if m_max > 0.0 { pow2_ceil(m_max) } else { 1.0 };
        let q_max = lcp
            .q()
            .iter()
            .zip(d)
            .fold(0.0_f64, |a, (x, di)| a.max((x * di).abs()));
        self.q_scale = pow2_ceil(q_max);
        let (ms, qs) = (self.m_scale, self.q_scale);

        self.m.clear();
        self.m_col_max.clear();
        for j in 0..n {
            let mut cmax = 0.0_f64;
            for (&x, &di) in lcp.col(j).iter().zip(d) {
                let v = x * di * d[j] / ms;
                cmax = cmax.max(v.abs());
                self.m.push(v);
            }
            self.m_col_max.push(cmax);
        }
        self.q.clear();
        self.q
            .extend(lcp.q().iter().zip(d).map(|(x, di)| x * di / qs));

        let w = n + 1;
        self.tab.clear();
        self.tab.resize(n * w, 0.0);
        for p in 0..n {
            self.tab[p * w] = self.q[p];
            self.tab[p * w + 1 + p] = 1.0;
        }
        self.row_norm.clear();
        self.row_norm.resize(n, 1.0);
        self.basis.clear();
        self.basis.extend(0..n);
        self.pos.clear();
        self.pos.extend(0..n);
        self.pos.resize(2 * n + 1, NONBASIC);
        self.u.clear();
        self.u.resize(n, 0.0);
        self.prepared = None;
        self.cand.clear();
        self.cand.reserve(n);
        self.prow.clear();
        self.prow.resize(w, 0.0);
        self.col.clear();
        self.col.resize(n, 0.0);
        // The factorised block is k x k with k <= n: reserve for the largest,
        // so later solves of this size never allocate.
        self.zpos.reserve(n);
        self.rrows.reserve(n);
        self.cinv.reserve(n * n);
        self.lu.reserve(n);
    }

    /// The row where the artificial variable enters first: the most negative
    /// q_t, the largest such index on exact ties. With B = I the rows after
    /// that pivot are [q_i - q_t, e_i - e_t] and [-q_t, -e_t], lexicographically
    /// positive exactly when every tie i has i < t.
    pub(super) fn initial_row(&self) -> usize {
        let mut t = 0;
        for (i, &qi) in self.q.iter().enumerate() {
            if qi <= self.q[t] {
                t = i;
            }
        }
        t
    }

    /// Computes u = B^-1 c for the column c of `var`, and |c|_max.
    pub(super) fn entering_column(&mut self, var: usize) {
        let n = self.n;
        let w = n + 1;
        if self.prepared.take() == Some(var) {
            return;
        }
        if var < n {
            for (p, u) in self.u.iter_mut().enumerate() {
                *u = self.tab[p * w + 1 + var];
            }
            self.c_norm = 1.0;
        } else if var < 2 * n {
            let j = var - n;
            let col = &self.m[j * n..(j + 1) * n];
            for (p, u) in self.u.iter_mut().enumerate() {
                *u = -dot(&self.tab[p * w + 1..(p + 1) * w], col);
            }
            self.c_norm = self.m_col_max[j];
        } else {
            for (p, u) in self.u.iter_mut().enumerate() {
                *u = -self.tab[p * w + 1..(p + 1) * w].iter().sum::<f64>();
            }
            self.c_norm = 1.0;
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
    /// `u` (see the header). Returns the variable that left.
    ///
    /// A row may leave with a slightly negative value (within the Harris
    /// tolerance of the ratio test); the entering variable then takes a
    /// slightly negative value. q~ is never perturbed, so the values stay
    /// those of the true problem and the final solve agrees with them.
    ///
    /// The next entering variable is the complement of the one leaving here;
    /// when that is some z_j, its column u = B^-1 c is computed in the same
    /// pass over the tableau (one sweep per pivot instead of two), and
    /// `entering_column` then reuses it.
    pub(super) fn pivot(&mut self, r: usize, var: usize) -> usize {
        let n = self.n;
        let w = n + 1;
        let Self {
            tab,
            u,
            u_next,
            row_norm,
            prow,
            m,
            ..
        } = self;
        let inv = 1.0 / u[r];
        prow.copy_from_slice(&tab[r * w..(r + 1) * w]);
        let mut norm = 0.0_f64;
        for (k, x) in prow.iter_mut().enumerate() {
            *x *= inv;
            if k > 0 {
                norm = norm.max(x.abs());
            }
        }
        tab[r * w..(r + 1) * w].copy_from_slice(prow);
        row_norm[r] = norm;

        let leaving = self.basis[r];
        // w_j leaving means z_j enters next.
        let next_col = (leaving < n).then(|| &m[leaving * n..(leaving + 1) * n]);
        u_next.resize(n, 0.0);
        for (p, row) in tab.chunks_exact_mut(w).enumerate() {
            let f = u[p];
            if p == r || f == 0.0 {
                if let Some(c) = next_col {
                    u_next[p] = -dot(&row[1..], c);
                }
                continue;
            }
            row[0] -= f * prow[0];
            if let Some(c) = next_col {
                let (nm, d) = axpy_max_abs_dot(&mut row[1..], f, &prow[1..], c);
                row_norm[p] = nm;
                u_next[p] = -d;
            } else {
                row_norm[p] = axpy_max_abs(&mut row[1..], f, &prow[1..]);
            }
        }
        if leaving < n {
            std::mem::swap(u, u_next);
            self.c_norm = self.m_col_max[leaving];
            self.clean_column();
            self.prepared = Some(n + leaving);
        } else {
            self.prepared = None;
        }

        self.basis[r] = var;
        self.pos[leaving] = NONBASIC;
        self.pos[var] = r;
        leaving
    }

    /// Lists the block of the basis that needs a factorisation: the rows R
    /// whose slack w_i is nonbasic (`rrows`) and the positions Z of the basic
    /// z-type variables (`zpos`), both ascending, |R| = |Z| = k. Ordering B's
    /// rows as (W, R) and its columns as (w-basic, Z) gives
    ///     B = [[I, F], [0, C]],   B^-1 = [[I, -F C^-1], [0, C^-1]],
    /// with C = B[R, Z] (k x k): only C is factorised (as C', see DenseLu).
    fn factor_block<'a>(&mut self, col: impl Fn(usize) -> &'a [f64]) -> Result<(), Singular> {
        let n = self.n;
        self.zpos.clear();
        self.zpos.extend((0..n).filter(|&p| self.basis[p] >= n));
        self.rrows.clear();
        self.rrows
            .extend((0..n).filter(|&i| self.pos[i] == NONBASIC));
        let k = self.zpos.len();
        debug_assert_eq!(k, self.rrows.len());
        self.lu.reset(k);
        for (a, &p) in self.zpos.iter().enumerate() {
            let var = self.basis[p];
            let row = self.lu.row_mut(a);
            if var < 2 * n {
                let c = col(var - n);
                for (x, &i) in row.iter_mut().zip(&self.rrows) {
                    *x = -c[i];
                }
            } else {
                row.fill(-1.0);
            }
        }
        self.lu.factor()
    }

    /// Rebuilds y and B^-1 from a fresh factorisation of the basis (see
    /// `factor_block`): about `2 k^3 + 2 (n - k) k^2` flops for k basic
    /// z-type variables.
    pub(super) fn refactor(&mut self) -> Result<(), Singular> {
        self.prepared = None;
        let n = self.n;
        let w = n + 1;
        let m = std::mem::take(&mut self.m);
        let factored = self.factor_block(|j| &m[j * n..(j + 1) * n]);
        self.m = m;
        factored?;
        let k = self.zpos.len();

        // C^-1, row by row: row a solves C' x = e_a.
        self.cinv.clear();
        self.cinv.resize(k * k, 0.0);
        for a in 0..k {
            let x = &mut self.cinv[a * k..(a + 1) * k];
            x[a] = 1.0;
            self.lu.solve(x);
        }
        // y_Z = C^-1 q~_R.
        let y_z = &mut self.col[..k];
        for (x, &i) in y_z.iter_mut().zip(&self.rrows) {
            *x = self.q[i];
        }
        self.lu.solve_transpose(y_z);

        for p in 0..n {
            self.tab[p * w..(p + 1) * w].fill(0.0);
        }
        for (a, &p) in self.zpos.iter().enumerate() {
            let row = &mut self.tab[p * w..(p + 1) * w];
            row[0] = self.col[a];
            for (&x, &i) in self.cinv[a * k..(a + 1) * k].iter().zip(&self.rrows) {
                row[1 + i] = x;
            }
        }
        // Rows of basic slacks: e_i' on W, -(F C^-1)_i on R; y_i = q~_i - F_i y_Z.
        let acc = &mut self.prow[..k];
        for i in 0..n {
            let p = self.pos[i];
            if p == NONBASIC {
                continue;
            }
            acc.fill(0.0);
            let mut y = self.q[i];
            for (a, &zp) in self.zpos.iter().enumerate() {
                let f = {
                    let var = self.basis[zp];
                    if var < 2 * n {
                        -self.m[(var - n) * n + i]
                    } else {
                        -1.0
                    }
                };
                if f != 0.0 {
                    y -= f * self.col[a];
                    for (s, &x) in acc.iter_mut().zip(&self.cinv[a * k..(a + 1) * k]) {
                        *s -= f * x;
                    }
                }
            }
            let row = &mut self.tab[p * w..(p + 1) * w];
            row[0] = y;
            row[1 + i] = 1.0;
            for (&x, &r) in acc.iter().zip(&self.rrows) {
                row[1 + r] = x;
            }
        }
        for (p, rn) in self.row_norm.iter_mut().enumerate() {
            *rn = self.tab[p * w + 1..(p + 1) * w]
                .iter()
                .fold(0.0_f64, |a, x| a.max(x.abs()));
        }
        if self.tab.iter().any(|x| !x.is_finite()) {
            return Err(Singular { step: k });
        }
        Ok(())
    }

    /// Solves the final basis afresh (in the scaled problem), with one step
    /// of iterative refinement, and writes the basic z into `z` in problem
    /// units (nonbasic z = 0). Only the block C of `factor_block` is needed:
    /// C y_Z = q~_R.
    pub(super) fn final_solve(&mut self, z: &mut [f64]) -> Result<(), Singular> {
        let n = self.n;
        let m = std::mem::take(&mut self.m);
        let factored = self.factor_block(|j| &m[j * n..(j + 1) * n]);
        self.m = m;
        factored?;
        let k = self.zpos.len();
        let (zpos, rrows, basis) = (&self.zpos, &self.rrows, &self.basis);
        let m = &self.m;
        // Entry b of column a of C.
        let c = |a: usize, b: usize| {
            let var = basis[zpos[a]];
            if var < 2 * n {
                -m[(var - n) * n + rrows[b]]
            } else {
                -1.0
            }
        };
        let y = &mut self.col[..k];
        for (x, &i) in y.iter_mut().zip(rrows) {
            *x = self.q[i];
        }
        self.lu.solve_transpose(y);
        // r = q~_R - C y_Z; y_Z += C^-1 r.
        let r = &mut self.prow[..k];
        for (b, rb) in r.iter_mut().enumerate() {
            *rb = self.q[rrows[b]] - (0..k).map(|a| c(a, b) * y[a]).sum::<f64>();
        }
        self.lu.solve_transpose(r);
        for (ya, ra) in y.iter_mut().zip(r.iter()) {
            *ya += ra;
        }
        if y.iter().any(|x| !x.is_finite()) {
            return Err(Singular { step: k });
        }
        z.fill(0.0);
        for (a, &p) in zpos.iter().enumerate() {
            let var = basis[p];
            if var < 2 * n {
                z[var - n] = y[a] * self.d[var - n] * self.q_scale / self.m_scale;
            }
        }
        Ok(())
    }

    /// Writes the z part of the current (scaled) basic solution into `z`, in
    /// problem units.
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
mod tests {
    use super::*;

    #[test]
    fn dot_matches_naive_sum() {
        let a: Vec<f64> = (0..11).map(|i| i as f64 * 0.5 - 1.0).collect();
        let b: Vec<f64> = (0..11).map(|i| 3.0 - i as f64).collect();
        let naive: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-12);
    }

    #[test]
    fn updated_inverse_matches_refactorised_inverse() {
        // M = [[2, 1, 0], [1, 3, 1], [0, 1, 4]], q = [-1, -2, 1].
        let lcp = Lcp::from_row_major(
            3,
            &[2.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 4.0],
            &[-1.0, -2.0, 1.0],
        )
        .unwrap();
        let mut t = Tableau::default();
        t.load(&lcp);
        let r = t.initial_row();
        assert_eq!(r, 1);
        t.entering_column(t.z0());
        t.pivot(r, t.z0());
        t.entering_column(3 + 1); // z_1 enters
        t.pivot(0, 3 + 1); // (row choice need not be feasible for this check)
        let updated = t.tab.clone();
        t.refactor().unwrap();
        for (a, b) in updated.iter().zip(&t.tab) {
            assert!((a - b).abs() < 1e-12, "{updated:?} vs {:?}", t.tab);
        }
    }
}
