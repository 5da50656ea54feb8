// Matrix-free projected Gauss-Seidel on M = J W J'.
//
// Problem and signs: the box LCP of pgs/mod.rs with M = J W J', where J has
// at most two nonzero 6-blocks per row (the two bodies of a contact: linear
// then angular part) and W is block diagonal with one symmetric positive
// semidefinite 6 x 6 inverse mass per body. z holds impulses along the
// rows, w = J v + q the row velocities, v = W J' z the body velocity change.
//
// Method: the iteration of pgs/mod.rs (Preda & Florian 2005, Algorithm 1)
// with the standard trick for M = J W J' (e.g. Catto's sequential
// impulses): keep v up to date, so that visiting row i costs O(1) bodies:
//     w_i = q_i + J_i v,  z_i <- clamp(z_i - omega w_i / d_i, lo_i, hi_i),
//     v_b += (z_i new - z_i old) W_b J_ib'  for the (at most two) bodies b,
// with d_i = J_i W J_i' = M_ii precomputed; M is never formed. Since W is
// PSD so is M, and ||M||_max = max_i M_ii, the scale of the report (whose
// `residual` is 0: there is no separately given w).

use crate::box_problem::BoxBounds;
use crate::box_verify::box_report;
use crate::error::LcpError;
use crate::problem::{check_finite, check_len};
use crate::solution::LcpSolution;
use crate::verify::max_abs;

use super::{ProjectedGaussSeidel, iterate, start};

/// One body's part of a constraint row of `J`: the row's 6 entries (linear
/// then angular, in the frame of [`ContactOperator::inverse_mass`]) for
/// `body`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JacobianBlock {
    /// The body index, `< ContactOperator::bodies()`.
    pub body: usize,
    /// The 6 entries of the row for this body.
    pub j: [f64; 6],
}

/// A contact problem's matrix `M = J W J'` given by its factors: the rows of
/// `J` (at most two bodies each) and the block-diagonal inverse mass `W`.
///
/// Preconditions (not all checked): every `inverse_mass` block is symmetric
/// positive semidefinite, and the methods return the same values each time
/// they are called during one solve. Non-finite entries and body indices out
/// of range are reported as errors.
pub trait ContactOperator {
    /// Number of constraint rows (the size of `z`).
    fn rows(&self) -> usize;
    /// Number of bodies.
    fn bodies(&self) -> usize;
    /// The nonzero blocks of row `row` of `J` (a row touching one body, e.g.
    /// a contact with static ground, has one `None`).
    fn jacobian(&self, row: usize) -> [Option<JacobianBlock>; 2];
    /// The 6 x 6 inverse mass (and inertia) block of `body`: `W_b`, with
    /// `W_b[r][c]` the entry of row `r`, column `c`. Zero for a static body.
    fn inverse_mass(&self, body: usize) -> [[f64; 6]; 6];
}

/// One row of `J`, read from the operator: its blocks and `W_b J_ib'`.
#[derive(Clone, Copy, Debug, Default)]
struct RowData {
    /// Number of blocks (0, 1 or 2).
    count: usize,
    body: [usize; 2],
    j: [[f64; 6]; 2],
    wj: [[f64; 6]; 2],
    inv_diag: f64,
}

impl RowData {
    /// `J_i v`.
    fn dot_v(&self, v: &[[f64; 6]]) -> f64 {
        (0..self.count).fold(0.0, |s, a| s + dot(&self.j[a], &v[self.body[a]]))
    }

    /// `v += delta W J_i'`.
    fn add_to_v(&self, delta: f64, v: &mut [[f64; 6]]) {
        for a in 0..self.count {
            for (vk, wk) in v[self.body[a]].iter_mut().zip(&self.wj[a]) {
                *vk += delta * wk;
            }
        }
    }
}

/// The matrix-free part of the workspace of [`ProjectedGaussSeidel`].
#[derive(Clone, Debug, Default)]
pub(crate) struct Workspace {
    rows: Vec<RowData>,
    v: Vec<[f64; 6]>,
}

fn dot(a: &[f64; 6], b: &[f64; 6]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl ProjectedGaussSeidel {
    /// Solves the box LCP with `M = J W J'` given by `op`, vector `q` and
    /// `bounds`, without forming `M`, returning a new solution.
    ///
    /// # Errors
    ///
    /// See [`ProjectedGaussSeidel::solve_matrix_free_into`].
    pub fn solve_matrix_free<O: ContactOperator + ?Sized>(
        &mut self,
        op: &O,
        q: &[f64],
        bounds: &BoxBounds,
        warm_start: Option<&[f64]>,
    ) -> Result<LcpSolution, LcpError> {
        let mut out = LcpSolution::default();
        self.solve_matrix_free_into(op, q, bounds, warm_start, &mut out)?;
        Ok(out)
    }

    /// [`ProjectedGaussSeidel::solve_into`] for `M = J W J'` given by `op`:
    /// the same iteration and stopping test, at `O(rows)` per sweep. The
    /// second solve with the same numbers of rows and bodies allocates
    /// nothing.
    ///
    /// # Errors
    ///
    /// - [`LcpError::DimensionMismatch`] if `q.len() != op.rows()`,
    ///   [`LcpError::BadLength`] (`what = "bounds"`) if `bounds.len()`
    ///   differs;
    /// - [`LcpError::NonFinite`] for a NaN or infinity in `q`, in a Jacobian
    ///   block (`what = "jacobian"`, `col` = 6 * block + entry) or in an
    ///   inverse mass (`what = "inverse_mass"`, `row` = body, `col` = 6 * r +
    ///   c);
    /// - [`LcpError::BodyOutOfRange`] for a block naming a missing body;
    /// - [`LcpError::NonPositiveDiagonal`] for a row with `J_i W J_i' <= 0`
    ///   (e.g. an all-zero row, or one acting only on static bodies);
    /// - the errors of [`ProjectedGaussSeidel::solve_into`] (parameters,
    ///   warm start, [`LcpError::IterationLimit`]).
    pub fn solve_matrix_free_into<O: ContactOperator + ?Sized>(
        &mut self,
        op: &O,
        q: &[f64],
        bounds: &BoxBounds,
        warm_start: Option<&[f64]>,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        self.params.check()?;
        let n = op.rows();
        if q.len() != n {
            return Err(LcpError::DimensionMismatch {
                matrix: n,
                vector: q.len(),
            });
        }
        check_len("bounds", n, bounds.len())?;
        check_finite("q", q, 0)?;
        let m_norm = self.free.load(op)?;
        let q_max = max_abs(q);
        start(bounds, warm_start, &mut out.z)?;
        self.free.recompute(&out.z, q, &mut out.w);
        let omega = self.params.omega;
        iterate(
            &self.params,
            bounds,
            &mut self.best_z,
            out,
            &mut self.free,
            |ws, z, w| {
                for (i, row) in ws.rows.iter().enumerate() {
                    let (lo, hi) = bounds.effective(i, z);
                    let zi = z[i];
                    let wi = q[i] + row.dot_v(&ws.v);
                    let new = (zi - omega * wi * row.inv_diag).max(lo).min(hi);
                    let delta = new - zi;
                    if delta != 0.0 {
                        z[i] = new;
                        row.add_to_v(delta, &mut ws.v);
                    }
                }
                for ((w, row), &qi) in w.iter_mut().zip(&ws.rows).zip(q) {
                    *w = qi + row.dot_v(&ws.v);
                }
                box_report(bounds, q_max, m_norm, z, w, None).scaled_natural_residual()
            },
            |ws, z, w| {
                ws.recompute(z, q, w);
                box_report(bounds, q_max, m_norm, z, w, None)
            },
        )
    }
}

impl Workspace {
    /// Reads and checks the operator; returns `||M||_max = max_i M_ii`.
    fn load<O: ContactOperator + ?Sized>(&mut self, op: &O) -> Result<f64, LcpError> {
        let (n, nb) = (op.rows(), op.bodies());
        // `v` holds the inverse masses for now (one 6 x 6 block as 6 rows).
        self.v.clear();
        for b in 0..nb {
            let w = op.inverse_mass(b);
            for (r, row) in w.iter().enumerate() {
                if let Some(c) = row.iter().position(|x| !x.is_finite()) {
                    return Err(LcpError::NonFinite {
                        what: "inverse_mass",
                        row: b,
                        col: 6 * r + c,
                    });
                }
            }
            self.v.extend_from_slice(&w);
        }
        self.rows.clear();
        let mut m_norm = 0.0_f64;
        for i in 0..n {
            let mut row = RowData::default();
            for (a, block) in op.jacobian(i).into_iter().flatten().enumerate() {
                if block.body >= nb {
                    return Err(LcpError::BodyOutOfRange {
                        row: i,
                        body: block.body,
                        bodies: nb,
                    });
                }
                if let Some(k) = block.j.iter().position(|x| !x.is_finite()) {
                    return Err(LcpError::NonFinite {
                        what: "jacobian",
                        row: i,
                        col: 6 * a + k,
                    });
                }
                let w = &self.v[6 * block.body..6 * block.body + 6];
                row.body[a] = block.body;
                row.j[a] = block.j;
                row.wj[a] = std::array::from_fn(|r| dot(&w[r], &block.j));
                row.count = a + 1;
            }
            let mut d = 0.0;
            for a in 0..row.count {
                for b in 0..row.count {
                    if row.body[a] == row.body[b] {
                        d += dot(&row.j[a], &row.wj[b]);
                    }
                }
            }
            if !(d > 0.0 && d.is_finite()) {
                return Err(LcpError::NonPositiveDiagonal { row: i, value: d });
            }
            row.inv_diag = 1.0 / d;
            m_norm = m_norm.max(d);
            self.rows.push(row);
        }
        self.v.clear();
        self.v.resize(nb, [0.0; 6]);
        Ok(m_norm)
    }

    /// `v = W J' z` from scratch, then `w = J v + q`.
    fn recompute(&mut self, z: &[f64], q: &[f64], w: &mut Vec<f64>) {
        self.v.fill([0.0; 6]);
        for (row, &zi) in self.rows.iter().zip(z) {
            if zi != 0.0 {
                row.add_to_v(zi, &mut self.v);
            }
        }
        w.clear();
        w.extend(
            self.rows
                .iter()
                .zip(q)
                .map(|(r, &qi)| qi + r.dot_v(&self.v)),
        );
    }
}
