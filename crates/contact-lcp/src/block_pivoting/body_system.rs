// The linear system of one guess of block pivoting, in body space.
//
// A guess fixes every row: free (its equation w'_i = 0 is kept), at a
// value l_i, or, for a friction row at a bound of its free normal n,
// folded: z_t = s mu z_n (s = -1 at the lower bound, +1 at the upper; the
// coupling exact within one solve, Baraff 1994 sec. 5). With v = W J' z the
// body velocity change, a free row of the proximal subproblem (mod.rs)
// reads
//     o_i + J_i v + d_i z_i = 0,   d_i = C_i + rho_i,
// so z_i = -(o_i + J_i v) / d_i; its impulse acts along
// G_i = J_i + sum over its folded rows t of s_t mu_t J_t. W^-1 v = J' z then
// gives the body-space system (the Schur complement of the rows in the KKT
// system [W^-1 -G'; J D]):
//     K v = sum_fixed J_i' l_i - sum_free G_i' o_i / d_i,
//     K = W^-1 + sum_free G_i' J_i / d_i,
// of size 6 x bodies, sparse: block (a, b) is nonzero only where a row
// joins bodies a and b. A pile of b bodies with n rows gives 6 b unknowns
// with about as many blocks as the contact graph has edges, where the
// rows' own system M_FF has n unknowns and couples every pair of rows on a
// body.
//
// Without folded rows K is symmetric positive definite: faer's sparse
// Cholesky LL' on its upper triangle. With them it is not symmetric:
// faer's sparse LU with partial pivoting on the whole pattern. The pattern
// of K is that of the contact graph whatever the guess (a guess only
// changes values), so each symbolic factorisation (ordering, elimination
// structure) is made once per contact graph and kept while the graph
// stays.

use std::sync::Arc;

use faer::dyn_stack::StackReq;
use faer::linalg::cholesky::llt::factor::LltRegularization;
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, LltRef, SymbolicCholesky, SymmetricOrdering,
    factorize_symbolic_cholesky,
};
use faer::sparse::linalg::lu::{
    LuRef, LuSymbolicParams, NumericLu, SymbolicLu, factorize_symbolic_lu,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};

use crate::factored_problem::{FactoredBoxLcp, cholesky6, inverse_from_cholesky6};
use crate::linalg::faer_scratch::FaerScratch;

/// Marks "no body".
const NONE: usize = usize::MAX;

/// Why the body-space system could not be factored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unfactored {
    /// `K` could not be factored, an inverse mass has no inverse, or a
    /// friction row couples to a normal on other bodies (no place in the
    /// pattern).
    Singular,
    /// faer's symbolic factorisation of the pattern failed (it fails only
    /// when it cannot allocate).
    Symbolic,
}

impl Unfactored {
    /// The reason of the [`LcpError::BlockPivotingFailed`] it ends a solve
    /// with.
    ///
    /// [`LcpError::BlockPivotingFailed`]: crate::LcpError::BlockPivotingFailed
    pub(super) fn reason(self) -> &'static str {
        match self {
            Self::Singular => "singular guessed block",
            Self::Symbolic => "symbolic factorisation failed",
        }
    }
}

/// How a row enters a guess's system.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Role {
    /// `w'_i = 0` is an equation.
    Free,
    /// `z_i` takes a value.
    Fixed,
    /// `z_i = coef z_normal`, the normal row free.
    Folded { normal: usize, coef: f64 },
}

/// A row's blocks by local body.
#[derive(Clone, Copy, Debug, Default)]
struct Row {
    /// Number of blocks (0, 1 or 2).
    count: usize,
    body: [usize; 2],
    j: [[f64; 6]; 2],
    /// `slot[k][l]`: the place of `body[k]` among the neighbours of
    /// `body[l]` (itself included), the block of `K` at rows `body[k]`,
    /// columns `body[l]`.
    slot: [[usize; 2]; 2],
}

/// A sparsity pattern (compressed columns) with room for values.
#[derive(Clone, Debug, Default)]
struct Pattern {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<f64>,
}

impl Pattern {
    fn view(&self) -> SymbolicSparseColMatRef<'_, usize> {
        let n = self.col_ptr.len() - 1;
        SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx)
    }
}

/// The body-space system and its factors; kept between solves.
#[derive(Clone, Debug, Default)]
pub(super) struct BodySystem {
    /// Local index of each body of the problem, or NONE (no row touches it).
    local: Vec<usize>,
    /// `W^-1` per local body.
    mass: Vec<[[f64; 6]; 6]>,
    rows: Vec<Row>,
    /// The rows of the problem before, and whether `prepare` finished it
    /// (its rows' slots and the patterns are then its own).
    previous_rows: Vec<Row>,
    prepared: bool,
    /// Neighbours of each local body, itself included, sorted.
    neighbour_start: Vec<usize>,
    neighbours: Vec<usize>,
    /// The whole pattern of K (column 6 b + c holds the 6 rows of each
    /// neighbour of b in order) and its values.
    full: Pattern,
    /// The upper triangle, and where each of its entries sits in `full`.
    upper: Pattern,
    upper_from_full: Vec<usize>,
    cholesky: Option<Arc<SymbolicCholesky<usize>>>,
    cholesky_factor: Vec<f64>,
    lu: Option<Arc<SymbolicLu<usize>>>,
    lu_factor: NumericLu<usize, f64>,
    /// Whether the last factor is the LU one.
    folded: bool,
    scratch: FaerScratch,
    /// The blocks of `K` by (body, neighbour slot), column-major.
    blocks: Vec<[[f64; 6]; 6]>,
    /// Per row, the impulse direction `G_i` of the last factor.
    g: Vec<[[f64; 6]; 2]>,
    /// The right-hand side, then the solution `v`, per local body.
    v: Vec<f64>,
    /// Scratch of the pattern build.
    pairs: Vec<(usize, usize)>,
}

fn dot(a: &[f64; 6], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl BodySystem {
    /// Takes the rows and masses of `problem`; returns the number of
    /// symbolic factorisations made (0 when the contact graph is that of
    /// the problem before).
    pub(super) fn prepare(&mut self, problem: &FactoredBoxLcp) -> Result<usize, Unfactored> {
        self.local.clear();
        self.local.resize(problem.bodies(), NONE);
        self.mass.clear();
        // The rows of the last problem, whose slots stand while every row
        // joins the bodies it joined (if that problem was prepared whole).
        let prepared = std::mem::replace(&mut self.prepared, false);
        std::mem::swap(&mut self.rows, &mut self.previous_rows);
        self.rows.clear();
        let last = &self.previous_rows;
        let mut same_rows =
            prepared && self.cholesky.is_some() && last.len() == problem.rows().len();
        let inverse_mass = problem.inverse_mass();
        for (r, blocks) in problem.rows().iter().enumerate() {
            let mut row = Row::default();
            for block in blocks.iter().flatten() {
                if self.local[block.body] == NONE {
                    self.local[block.body] = self.mass.len();
                    let l = cholesky6(&inverse_mass[block.body]).ok_or(Unfactored::Singular)?;
                    self.mass.push(inverse_from_cholesky6(&l));
                }
                let b = self.local[block.body];
                if row.count == 1 && row.body[0] == b {
                    // Two blocks on one body: one block, their sum.
                    for (x, y) in row.j[0].iter_mut().zip(&block.j) {
                        *x += y;
                    }
                    continue;
                }
                row.body[row.count] = b;
                row.j[row.count] = block.j;
                row.count += 1;
            }
            if same_rows {
                let old = &last[r];
                same_rows = old.count == row.count && old.body == row.body;
                row.slot = old.slot;
            }
            self.rows.push(row);
        }
        if same_rows {
            // The contact graph, its pattern and symbolic factor stand.
            self.prepared = true;
            return Ok(0);
        }
        // The contact graph: each body's neighbours, itself included.
        let bodies = self.mass.len();
        self.pairs.clear();
        self.pairs.extend((0..bodies).map(|b| (b, b)));
        for r in self.rows.iter().filter(|r| r.count == 2) {
            self.pairs.push((r.body[0], r.body[1]));
            self.pairs.push((r.body[1], r.body[0]));
        }
        self.pairs.sort_unstable();
        self.pairs.dedup();
        let same_graph = self.cholesky.is_some()
            && self.neighbour_start.len() == bodies + 1
            && self.neighbours.len() == self.pairs.len()
            && self.pairs.iter().enumerate().all(|(k, &(b, a))| {
                self.neighbours[k] == a
                    && (self.neighbour_start[b]..self.neighbour_start[b + 1]).contains(&k)
            });
        if !same_graph {
            self.neighbour_start.clear();
            self.neighbour_start.resize(bodies + 1, 0);
            for &(b, _) in &self.pairs {
                self.neighbour_start[b + 1] += 1;
            }
            for b in 0..bodies {
                self.neighbour_start[b + 1] += self.neighbour_start[b];
            }
            self.neighbours.clear();
            self.neighbours.extend(self.pairs.iter().map(|&(_, a)| a));
        }
        let (starts, neighbours) = (&self.neighbour_start, &self.neighbours);
        let slot = |a: usize, b: usize| {
            let found = neighbours[starts[b]..starts[b + 1]].binary_search(&a);
            found.unwrap_or_else(|_| unreachable!("every pair is listed"))
        };
        for row in &mut self.rows {
            for k in 0..row.count {
                for l in 0..row.count {
                    row.slot[k][l] = slot(row.body[k], row.body[l]);
                }
            }
        }
        if same_graph {
            self.prepared = true;
            return Ok(0);
        }
        self.build_patterns()?;
        self.prepared = true;
        Ok(1)
    }

    /// The scalar patterns of `K` and the symbolic Cholesky factor (the LU
    /// one waits for a guess with folded rows). On failure no symbolic
    /// factor is kept, so the next `prepare` builds the patterns again.
    fn build_patterns(&mut self) -> Result<(), Unfactored> {
        self.cholesky = None;
        self.lu = None;
        let bodies = self.mass.len();
        let (full, upper) = (&mut self.full, &mut self.upper);
        for p in [&mut *full, &mut *upper] {
            p.col_ptr.clear();
            p.row_idx.clear();
            p.col_ptr.push(0);
        }
        self.upper_from_full.clear();
        for b in 0..bodies {
            let around = &self.neighbours[self.neighbour_start[b]..self.neighbour_start[b + 1]];
            for c in 0..6 {
                for &a in around {
                    for r in 0..6 {
                        if 6 * a + r <= 6 * b + c {
                            self.upper_from_full.push(full.row_idx.len());
                            upper.row_idx.push(6 * a + r);
                        }
                        full.row_idx.push(6 * a + r);
                    }
                }
                full.col_ptr.push(full.row_idx.len());
                upper.col_ptr.push(upper.row_idx.len());
            }
        }
        for p in [&mut *full, &mut *upper] {
            p.values.clear();
            p.values.resize(p.row_idx.len(), 0.0);
        }
        // Allocation failure is the only error of the symbolic phase on a
        // valid square pattern.
        let symbolic = factorize_symbolic_cholesky(
            self.upper.view(),
            Side::Upper,
            SymmetricOrdering::Amd,
            CholeskySymbolicParams::default(),
        )
        .map_err(|_| Unfactored::Symbolic)?;
        self.cholesky_factor.clear();
        self.cholesky_factor.resize(symbolic.len_val(), 0.0);
        self.cholesky = Some(Arc::new(symbolic));
        Ok(())
    }

    /// Factors `K` for the rows' roles, `d_i` their weights.
    pub(super) fn factor(&mut self, roles: &[Role], d: &[f64]) -> Result<(), Unfactored> {
        // The impulse directions: J_i, plus the folded rows' parts.
        self.g.clear();
        self.g.extend(self.rows.iter().map(|r| r.j));
        self.folded = false;
        for (t, role) in roles.iter().enumerate() {
            if let Role::Folded { normal, coef } = *role {
                let (rt, rn) = (&self.rows[t], &self.rows[normal]);
                if rt.count != rn.count || rt.body[..rt.count] != rn.body[..rn.count] {
                    return Err(Unfactored::Singular);
                }
                for k in 0..rt.count {
                    for (g, j) in self.g[normal][k].iter_mut().zip(&rt.j[k]) {
                        *g += coef * j;
                    }
                }
                self.folded = true;
            }
        }
        // Blocks of K, one per (body, neighbour slot), accumulated as dense
        // 6 x 6 arrays, then scattered into the pattern's values.
        self.blocks.clear();
        self.blocks.resize(self.neighbours.len(), [[0.0; 6]; 6]);
        for (b, m) in self.mass.iter().enumerate() {
            let own = self.neighbours[self.neighbour_start[b]..self.neighbour_start[b + 1]]
                .binary_search(&b)
                .unwrap_or_else(|_| unreachable!("a body is its own neighbour"));
            self.blocks[self.neighbour_start[b] + own] = *m;
        }
        for ((row, g), (role, &di)) in self.rows.iter().zip(&self.g).zip(roles.iter().zip(d)) {
            if *role != Role::Free {
                continue;
            }
            let s = 1.0 / di;
            // Block (rows of body k, columns of body l) += G_k' J_l / d,
            // stored by column: block[c][r].
            for (slots, gk) in row.slot.iter().zip(g).take(row.count) {
                let columns = row.body.iter().zip(slots).zip(&row.j).take(row.count);
                for ((&body, &slot), jl) in columns {
                    let block = &mut self.blocks[self.neighbour_start[body] + slot];
                    for (column, &jc) in block.iter_mut().zip(jl) {
                        let sc = s * jc;
                        for (x, &gr) in column.iter_mut().zip(gk) {
                            *x += sc * gr;
                        }
                    }
                }
            }
        }
        let col_ptr = &self.full.col_ptr;
        let values = &mut self.full.values;
        for b in 0..self.mass.len() {
            for slot in 0..self.neighbour_start[b + 1] - self.neighbour_start[b] {
                let block = &self.blocks[self.neighbour_start[b] + slot];
                for (c, column) in block.iter().enumerate() {
                    let p = col_ptr[6 * b + c] + 6 * slot;
                    values[p..p + 6].copy_from_slice(column);
                }
            }
        }
        if self.folded {
            return self.factor_lu();
        }
        for (u, &f) in self.upper.values.iter_mut().zip(&self.upper_from_full) {
            *u = self.full.values[f];
        }
        let Some(symbolic) = self.cholesky.as_ref() else {
            unreachable!("prepare builds the symbolic factor")
        };
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_llt_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        symbolic
            .factorize_numeric_llt(
                &mut self.cholesky_factor,
                SparseColMatRef::new(self.upper.view(), &self.upper.values),
                Side::Upper,
                LltRegularization::default(),
                Par::Seq,
                self.scratch.stack(req),
                Default::default(),
            )
            .map(|_| ())
            .map_err(|_| Unfactored::Singular)
    }

    /// The LU factor of the whole `K` (faer allocates as it factors).
    fn factor_lu(&mut self) -> Result<(), Unfactored> {
        if self.lu.is_none() {
            let params = LuSymbolicParams {
                supernodal_flop_ratio_threshold: SupernodalThreshold::FORCE_SUPERNODAL,
                ..LuSymbolicParams::default()
            };
            let symbolic = factorize_symbolic_lu(self.full.view(), params)
                .map_err(|_| Unfactored::Symbolic)?;
            self.lu = Some(Arc::new(symbolic));
        }
        let Some(symbolic) = self.lu.as_ref() else {
            unreachable!("built above")
        };
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        symbolic
            .factorize_numeric_lu(
                &mut self.lu_factor,
                SparseColMatRef::new(self.full.view(), &self.full.values),
                Par::Seq,
                self.scratch.stack(req),
                Default::default(),
            )
            .map(|_| ())
            .map_err(|_| Unfactored::Singular)
    }

    /// The body velocity change `v` of the last solve, 6 entries per local
    /// body.
    pub(super) fn velocity(&self) -> &[f64] {
        &self.v
    }

    /// `out_i = J_i v` for a body vector laid out as [`Self::velocity`].
    pub(super) fn row_products(&self, v: &[f64], out: &mut [f64]) {
        for (row, o) in self.rows.iter().zip(out) {
            let mut s = 0.0;
            for k in 0..row.count {
                let at = 6 * row.body[k];
                s += dot(&row.j[k], &v[at..at + 6]);
            }
            *o = s;
        }
    }

    /// `a' W^-1 b` for two body vectors laid out as [`Self::velocity`].
    pub(super) fn mass_product(&self, a: &[f64], b: &[f64]) -> f64 {
        let (a, b) = (a.chunks_exact(6), b.chunks_exact(6));
        let mut sum = 0.0;
        for ((m, a), b) in self.mass.iter().zip(a).zip(b) {
            for (column, &bc) in m.iter().zip(b) {
                sum += bc * column.iter().zip(a).map(|(x, y)| x * y).sum::<f64>();
            }
        }
        sum
    }

    /// Solves the guess with the last factor (made for the same roles):
    /// `b_i` is `o_i` for a free row and `l_i` for a fixed one (unused for
    /// a folded one). Writes `z` (every row) and `jv_i = J_i v`.
    pub(super) fn solve(
        &mut self,
        roles: &[Role],
        d: &[f64],
        b: &[f64],
        z: &mut [f64],
        jv: &mut [f64],
    ) {
        let n = 6 * self.mass.len();
        self.v.clear();
        self.v.resize(n, 0.0);
        for (((row, g), (role, &di)), &bi) in self
            .rows
            .iter()
            .zip(&self.g)
            .zip(roles.iter().zip(d))
            .zip(b)
        {
            let (s, dir) = match role {
                Role::Free => (-bi / di, g),
                Role::Fixed => (bi, &row.j),
                Role::Folded { .. } => continue,
            };
            if s == 0.0 {
                continue;
            }
            for (&body, dk) in row.body.iter().zip(dir).take(row.count) {
                let at = 6 * body;
                for (x, j) in self.v[at..at + 6].iter_mut().zip(dk) {
                    *x += s * j;
                }
            }
        }
        let rhs = MatMut::from_column_major_slice_mut(&mut self.v, n, 1);
        if self.folded {
            let Some(symbolic) = self.lu.as_ref() else {
                unreachable!("factor builds it")
            };
            let stack = self
                .scratch
                .stack(symbolic.solve_in_place_scratch::<f64>(1, Par::Seq));
            LuRef::new_unchecked(symbolic, &self.lu_factor).solve_in_place_with_conj(
                Conj::No,
                rhs,
                Par::Seq,
                stack,
            );
        } else {
            let Some(symbolic) = self.cholesky.as_ref() else {
                unreachable!("prepare builds the symbolic factor")
            };
            let stack = self
                .scratch
                .stack(symbolic.solve_in_place_scratch::<f64>(1, Par::Seq));
            LltRef::new(symbolic, &self.cholesky_factor).solve_in_place_with_conj(
                Conj::No,
                rhs,
                Par::Seq,
                stack,
            );
        }
        self.row_products(&self.v, jv);
        for (i, &s) in jv.iter().enumerate() {
            z[i] = match roles[i] {
                Role::Free => -(b[i] + s) / d[i],
                Role::Fixed => b[i],
                Role::Folded { .. } => 0.0,
            };
        }
        for (i, role) in roles.iter().enumerate() {
            if let Role::Folded { normal, coef } = *role {
                z[i] = coef * z[normal];
            }
        }
    }
}
