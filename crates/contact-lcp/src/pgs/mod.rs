// Projected Gauss-Seidel / SOR for the box LCP (Preda & Florian 2005,
// Algorithm 1, generalised to box bounds and relaxation).
//
// Problem and signs: find z with w = M z + q, lo <= z <= hi per row, w_i >= 0
// where z_i = lo_i, w_i <= 0 where z_i = hi_i, w_i = 0 strictly between
// (Cline 2002 sec. 2.7.2; a plain LCP is lo = 0, hi = +inf). A friction row i
// coupled to a normal row j has the bounds [-mu max(z_j, 0), mu max(z_j, 0)],
// recomputed from the current z_j each time row i is visited.
//
// Method: from z = 0 or a warm start projected onto the bounds, sweep the
// rows 0 .. n-1 in order, each time setting
//     z_i <- clamp(z_i - omega w_i / M_ii, lo_i(z), hi_i(z)),
// with w_i = (M z + q)_i from the newest z (omega = 1 is the paper's update).
// For symmetric positive definite M it converges for every omega in (0, 2)
// (projected SOR on a strictly convex QP); friction coupling makes the
// problem non-symmetric in effect and convergence is not guaranteed.
// Putting each normal row before its friction rows lets a friction row see
// the newest normal force in the same sweep.
//
// Stopping: after each sweep, the scaled natural residual of `verify`
// (max_i |z_i - clamp(z_i - w_i / ||M||_max, lo_i, hi_i)| over the scale of
// z: VerifyReport::scaled_natural_residual) is compared with `tolerance`. When
// it passes, the coupled rows are projected onto the bounds of the final
// normal forces, w is recomputed from scratch (dropping the drift of the
// incremental updates) and the test is repeated on that exact w.
//
// The dense form keeps w up to date by adding delta_i M[:, i] when z_i
// moves; the matrix-free form (matrix_free.rs) keeps v = W J' z instead.

mod matrix_free;

pub use matrix_free::{ContactOperator, JacobianBlock};

use crate::box_problem::{BoxBounds, BoxLcp};
use crate::box_verify::{box_report, verify_box_into};
use crate::error::LcpError;
use crate::linalg::lanes::{Lanes, LanesOp, add_column, with_best_lanes};
use crate::problem::check_vector;
use crate::solution::{LcpSolution, Method};
use crate::tuning::SWEEP_BLOCK;
use crate::verify::VerifyReport;

/// Settings of [`ProjectedGaussSeidel`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PgsParams {
    /// Relaxation factor, in `(0, 2)`. `1` (the default) is plain
    /// Gauss-Seidel; values below 1 damp oscillations on friction-coupled
    /// problems.
    pub omega: f64,
    /// Stop when the scaled natural residual
    /// ([`VerifyReport::scaled_natural_residual`](crate::VerifyReport::scaled_natural_residual))
    /// is at most this (relative, dimensionless). Default `1e-8`; sensible
    /// range `1e-12..=1e-3`. Must be `>= 0` (0 asks for an exact solution and
    /// usually ends at the sweep limit).
    pub tolerance: f64,
    /// Largest number of sweeps before giving up with
    /// [`LcpError::IterationLimit`]. Default `1000`.
    pub max_sweeps: usize,
}

impl Default for PgsParams {
    fn default() -> Self {
        Self {
            omega: 1.0,
            tolerance: 1e-8,
            max_sweeps: 1000,
        }
    }
}

impl PgsParams {
    /// Checks `omega` in `(0, 2)` and `tolerance >= 0` (not NaN).
    fn check(&self) -> Result<(), LcpError> {
        let (what, value) = if !(self.omega > 0.0 && self.omega < 2.0) {
            ("omega", self.omega)
        } else if self.tolerance.is_nan() || self.tolerance < 0.0 {
            ("tolerance", self.tolerance)
        } else {
            return Ok(());
        };
        Err(LcpError::InvalidParameter { what, value })
    }
}

/// Projected Gauss-Seidel / SOR solver (Preda & Florian 2005, Algorithm 1,
/// with box bounds, friction coupling and relaxation: see the module
/// source) for [`BoxLcp`] and for contact problems given as `M = J W J'`
/// ([`ContactOperator`]). A second solve of the same size allocates nothing
/// (unless an error carries a best iterate). The returned [`LcpSolution`]
/// has `method = ProjectedGaussSeidel`, `pivots = 0` and the sweeps done in
/// `iterations`.
///
/// ```
/// use contact_lcp::{BoxLcp, Coupling, ProjectedGaussSeidel, faer::mat};
///
/// // A normal row (z_0 >= 0) and a friction row coupled to it,
/// // |z_1| <= 0.5 z_0, pulled hard enough to slide.
/// let m = mat![[2.0, 0.5], [0.5, 1.0]];
/// let coupling = Coupling { row: 1, normal_row: 0, mu: 0.5 };
/// let (lo, hi) = (vec![0.0, f64::NEG_INFINITY], vec![f64::INFINITY; 2]);
/// let p = BoxLcp::new(m, vec![-2.0, -3.0], lo, hi, vec![coupling])?;
/// let sol = ProjectedGaussSeidel::default().solve(&p, None)?;
/// // Closed form: z_1 = z_0 / 2 at its upper bound, 2.25 z_0 = 2.
/// assert!((sol.z[0] - 8.0 / 9.0).abs() < 1e-8);
/// assert_eq!(sol.z[1], 0.5 * sol.z[0]);
/// assert!(sol.w[1] < 0.0 && sol.report.is_solution(1e-8));
/// # Ok::<(), contact_lcp::LcpError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ProjectedGaussSeidel {
    params: PgsParams,
    coefficients: SweepCoefficients,
    best_z: Vec<f64>,
    scratch: Vec<f64>,
    free: matrix_free::Workspace,
}

impl ProjectedGaussSeidel {
    /// A solver with the given settings (allocates on the first solve).
    #[must_use]
    pub fn new(params: PgsParams) -> Self {
        Self {
            params,
            ..Self::default()
        }
    }

    /// The settings.
    #[must_use]
    pub fn params(&self) -> &PgsParams {
        &self.params
    }

    /// Changes the settings (the workspace is kept).
    pub fn set_params(&mut self, params: PgsParams) {
        self.params = params;
    }

    /// Solves `problem` from `warm_start` (or from `z = 0`), returning a new
    /// solution.
    ///
    /// # Errors
    ///
    /// See [`ProjectedGaussSeidel::solve_into`].
    pub fn solve(
        &mut self,
        problem: &BoxLcp,
        warm_start: Option<&[f64]>,
    ) -> Result<LcpSolution, LcpError> {
        let mut out = LcpSolution::default();
        self.solve_into(problem, warm_start, &mut out)?;
        Ok(out)
    }

    /// Solves `problem` into `out`, reusing its vectors, from `warm_start`
    /// projected onto the bounds (uncoupled rows first) or from `z = 0`.
    ///
    /// On success `out` holds `z`, `w = M z + q` recomputed exactly, the
    /// sweeps in `iterations`, and the report (its scaled natural residual
    /// is at most [`PgsParams::tolerance`]). On [`LcpError::IterationLimit`],
    /// `out` holds the best iterate too.
    ///
    /// # Errors
    ///
    /// - [`LcpError::InvalidParameter`] for `omega` outside `(0, 2)` or a
    ///   negative or NaN tolerance;
    /// - [`LcpError::BadLength`] (`what = "warm_start"`) for a warm start of
    ///   the wrong length, [`LcpError::NonFinite`] for one with a NaN or an
    ///   infinity;
    /// - [`LcpError::NonPositiveDiagonal`] naming the first row with
    ///   `M_ii <= 0`;
    /// - [`LcpError::IterationLimit`] after [`PgsParams::max_sweeps`] sweeps
    ///   without reaching the tolerance, with the iterate of smallest
    ///   residual.
    pub fn solve_into(
        &mut self,
        problem: &BoxLcp,
        warm_start: Option<&[f64]>,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        self.params.check()?;
        let coefficients = self.coefficients.of(problem, self.params.omega)?;
        let (bounds, lcp) = (problem.bounds(), problem.lcp());
        start(bounds, warm_start, &mut out.z)?;
        out.w.resize(problem.dim(), 0.0);
        lcp.affine(&out.z, &mut out.w);
        let (q_max, m_norm) = (lcp.q_max_abs(), lcp.m_max_abs());
        iterate(
            &self.params,
            bounds,
            &mut self.best_z,
            out,
            &mut self.scratch,
            |_, z, w| {
                sweep_dense(problem, coefficients, z, w);
                box_report(bounds, q_max, m_norm, z, w, None).scaled_natural_residual()
            },
            |scratch, z, w| {
                lcp.affine(z, w);
                verify_box_into(problem, z, Some(w), scratch)
            },
        )
    }

    /// One sweep of [`solve_into`](Self::solve_into) without its stopping
    /// test: each `z_i` in turn moves to `clamp(z_i - omega w_i / M_ii,
    /// lo_i(z), hi_i(z))` and `w` is updated incrementally (at most one
    /// `M`-vector product). For callers with their own stopping rule.
    ///
    /// On entry `w` should be `M z + q` (not checked: otherwise `w` stays
    /// off by the same amount). Allocates nothing once the solver has seen
    /// a problem of this size.
    ///
    /// # Errors
    ///
    /// - [`LcpError::InvalidParameter`] for `omega` outside `(0, 2)` or a
    ///   negative or NaN tolerance;
    /// - [`LcpError::BadLength`] (`what = "z"` or `"w"`) for a vector of the
    ///   wrong length, [`LcpError::NonFinite`] for one holding a NaN or an
    ///   infinity;
    /// - [`LcpError::NonPositiveDiagonal`] naming the first row with
    ///   `M_ii <= 0`.
    pub fn sweep(
        &mut self,
        problem: &BoxLcp,
        z: &mut [f64],
        w: &mut [f64],
    ) -> Result<(), LcpError> {
        self.params.check()?;
        let n = problem.dim();
        check_vector("z", z, n)?;
        check_vector("w", w, n)?;
        let coefficients = self.coefficients.of(problem, self.params.omega)?;
        sweep_dense(problem, coefficients, z, w);
        Ok(())
    }
}

/// The loop of both solves, from the first iterate in `out.z` and its
/// `w`: `sweep(state, z, w)` does one sweep and returns the scaled natural
/// residual of the updated `w`; `exact(state, z, w)` recomputes `w` from
/// `z` and returns its report. Stops as the module source says, else
/// returns [`LcpError::IterationLimit`] with the iterate of smallest
/// residual (kept in `best_z`).
fn iterate<S>(
    params: &PgsParams,
    bounds: &BoxBounds,
    best_z: &mut Vec<f64>,
    out: &mut LcpSolution,
    state: &mut S,
    mut sweep: impl FnMut(&mut S, &mut [f64], &mut [f64]) -> f64,
    mut exact: impl FnMut(&mut S, &[f64], &mut Vec<f64>) -> VerifyReport,
) -> Result<(), LcpError> {
    out.method = Method::ProjectedGaussSeidel;
    out.pivots = 0;
    best_z.clone_from(&out.z);
    let mut best = f64::INFINITY;
    for sweeps in 1..=params.max_sweeps {
        out.iterations = sweeps;
        let mut r = sweep(state, &mut out.z, &mut out.w);
        if r <= params.tolerance {
            project_coupled(bounds, &mut out.z);
            out.report = exact(state, &out.z, &mut out.w);
            r = out.report.scaled_natural_residual();
            if r <= params.tolerance {
                return Ok(());
            }
        }
        // (A NaN residual, of an infinite report, is never the best.)
        if r < best {
            best = r;
            best_z.copy_from_slice(&out.z);
        }
    }
    out.iterations = params.max_sweeps;
    out.z.copy_from_slice(best_z);
    out.report = exact(state, &out.z, &mut out.w);
    Err(LcpError::IterationLimit {
        sweeps: out.iterations,
        residual: out.report.scaled_natural_residual(),
        best: Some(Box::new(out.clone())),
    })
}

/// What a dense sweep needs besides `M`'s columns, kept with the matrix and
/// `omega` they came from so that repeated solves and sweeps of one problem
/// compute them once.
#[derive(Clone, Debug, Default)]
struct SweepCoefficients {
    /// `omega / M_ii` (folding `omega` in shortens the chain of dependent
    /// operations from one row to the next).
    steps: Vec<f64>,
    /// Per whole block starting at row `s`: `chain[k][j] = -steps[s + j]
    /// M[s + j, s + k]` for `j > k` (0 otherwise), the change in row
    /// `s + j`'s unprojected move per unit move of row `s + k`.
    chains: Vec<[[f64; SWEEP_BLOCK]; SWEEP_BLOCK]>,
    /// [`Lcp::matrix_id`](crate::Lcp) of the matrix they came from (0: none).
    matrix: u64,
    /// `omega` (bits) they came from.
    omega: u64,
}

impl SweepCoefficients {
    /// The coefficients of `problem` with `omega`, computed again unless
    /// they are those of the last call. A row with `M_ii <= 0` is refused
    /// with [`LcpError::NonPositiveDiagonal`] (`M` is finite: checked on
    /// construction).
    fn of(&mut self, problem: &BoxLcp, omega: f64) -> Result<&Self, LcpError> {
        let lcp = problem.lcp();
        if self.matrix == lcp.matrix_id() && self.omega == omega.to_bits() {
            return Ok(self);
        }
        let m = problem.m();
        self.steps.clear();
        self.chains.clear();
        // Not valid until every row has passed.
        self.matrix = 0;
        for i in 0..problem.dim() {
            let d = m[(i, i)];
            if d.is_nan() || d <= 0.0 {
                return Err(LcpError::NonPositiveDiagonal { row: i, value: d });
            }
            self.steps.push(omega / d);
        }
        for start in (0..problem.dim() / SWEEP_BLOCK).map(|b| b * SWEEP_BLOCK) {
            let steps = &self.steps;
            self.chains.push(std::array::from_fn(|k| {
                std::array::from_fn(|j| {
                    if j > k {
                        -steps[start + j] * m[(start + j, start + k)]
                    } else {
                        0.0
                    }
                })
            }));
        }
        self.matrix = lcp.matrix_id();
        self.omega = omega.to_bits();
        Ok(self)
    }
}

/// One projected SOR sweep over rows 0..n-1 (Preda & Florian 2005,
/// Algorithm 1, step 2, with box bounds and relaxation), keeping `w = M z +
/// q` up to date by adding `delta_i M[:, i]` when `z_i` moves.
///
/// Rows go in blocks of [`SWEEP_BLOCK`]. Row `i`'s move is
///     d_i = clamp(t_i, lo_i - z_i, hi_i - z_i),   t_i = -omega w_i / M_ii,
/// (`z_i` lands exactly on a bound it reaches). Inside a block, each row's
/// `t_i` gets the moves of the block's earlier rows as one `f64::mul_add`
/// each (`SweepCoefficients::chains`; rounded once on every machine, so the
/// bits do not depend on it); after the block, all of `w` gets the block's
/// moves in one pass over its columns. The order of the visits is that of
/// the plain iteration; only the rounding differs.
fn sweep_dense(problem: &BoxLcp, coefficients: &SweepCoefficients, z: &mut [f64], w: &mut [f64]) {
    with_best_lanes(DenseSweep {
        problem,
        coefficients,
        z,
        w,
    });
}

/// [`sweep_dense`]'s arguments, so that its body runs with the best
/// [`Lanes`] of the machine (linalg/lanes.rs: the same bits on every machine).
struct DenseSweep<'a> {
    problem: &'a BoxLcp,
    coefficients: &'a SweepCoefficients,
    z: &'a mut [f64],
    w: &'a mut [f64],
}

impl LanesOp for DenseSweep<'_> {
    type Output = ();

    #[inline(always)]
    fn run<L: Lanes>(self, l: L) {
        let DenseSweep {
            problem,
            coefficients,
            z,
            w,
        } = self;
        let (bounds, lcp) = (problem.bounds(), problem.lcp());
        let n = z.len();
        let steps = &coefficients.steps[..n];
        for (b, chain) in coefficients.chains.iter().enumerate() {
            let start = b * SWEEP_BLOCK;
            let block = start..start + SWEEP_BLOCK;
            // The block's per-row values as fixed-size arrays: one length
            // check each here, none in the rows.
            let cols: [&[f64]; SWEEP_BLOCK] = std::array::from_fn(|k| &lcp.col(start + k)[..n]);
            let step: &[f64; SWEEP_BLOCK] = steps[block.clone()].try_into().expect("4");
            let lo: &[f64; SWEEP_BLOCK] = bounds.lo()[block.clone()].try_into().expect("4");
            let hi: &[f64; SWEEP_BLOCK] = bounds.hi()[block.clone()].try_into().expect("4");
            let coupled: &[Option<usize>; SWEEP_BLOCK] =
                bounds.coupled_rows()[block.clone()].try_into().expect("4");
            let wb: &[f64; SWEEP_BLOCK] = w[block].try_into().expect("4");
            let mut t: [f64; SWEEP_BLOCK] = std::array::from_fn(|k| -(step[k] * wb[k]));
            // z in three parts: a coupled row reads its normal force
            // wherever it is while the block is written in place.
            let (before, rest) = z.split_at_mut(start);
            let (zb, after) = rest.split_at_mut(SWEEP_BLOCK);
            let zb: &mut [f64; SWEEP_BLOCK] = zb.try_into().expect("4");
            let mut delta = [0.0; SWEEP_BLOCK];
            for k in 0..SWEEP_BLOCK {
                let (lo, hi) = match coupled[k] {
                    None => (lo[k], hi[k]),
                    Some(c) => {
                        let c = &bounds.couplings()[c];
                        let normal = match c.normal_row.checked_sub(start) {
                            None => before[c.normal_row],
                            Some(j) if j < SWEEP_BLOCK => zb[j],
                            Some(j) => after[j - SWEEP_BLOCK],
                        };
                        let r = c.mu * normal.max(0.0);
                        (-r, r)
                    }
                };
                let zk = zb[k];
                let (down, up) = (lo - zk, hi - zk);
                let d = clamp(t[k], down, up);
                zb[k] = if d == down {
                    lo
                } else if d == up {
                    hi
                } else {
                    zk + d
                };
                for j in k + 1..SWEEP_BLOCK {
                    t[j] = d.mul_add(chain[k][j], t[j]);
                }
                delta[k] = d;
            }
            // Near the end of a solve most rows stay at their bounds: one
            // column, or none, is then all `w` needs.
            match delta.iter().filter(|&&d| d != 0.0).count() {
                0 => {}
                1 => {
                    let k = delta.iter().position(|&d| d != 0.0).unwrap_or(0);
                    add_column(l, w, delta[k], cols[k]);
                }
                _ => add_block_columns(l, w, &cols, &delta),
            }
        }
        // The last n mod 4 rows one at a time.
        for i in n / SWEEP_BLOCK * SWEEP_BLOCK..n {
            let (lo, hi) = bounds.effective(i, z);
            let zi = z[i];
            let new = clamp(zi - w[i] * steps[i], lo, hi);
            let d = new - zi;
            if d != 0.0 {
                z[i] = new;
                add_column(l, w, d, lcp.col(i));
            }
        }
    }
}

/// `x` clamped to `[lo, hi]` by plain comparisons (`f64::max` and `min` add
/// a NaN test to the chain from one row to the next; a sweep's values are
/// finite).
#[inline(always)]
fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    let x = if x > lo { x } else { lo };
    if x < hi { x } else { hi }
}

/// `w += sum_k delta_k cols[k]`: the moves of one block of rows, applied to
/// all of `w` (every column has `w`'s length).
#[inline(always)]
fn add_block_columns<L: Lanes>(
    l: L,
    w: &mut [f64],
    cols: &[&[f64]; SWEEP_BLOCK],
    delta: &[f64; SWEEP_BLOCK],
) {
    let len = w.len();
    let [c0, c1, c2, c3] = cols.map(|c| &c[..len]);
    let (w4, w_rest) = pulp::as_arrays_mut::<4, f64>(w);
    let ((a4, a_rest), (b4, b_rest)) = (pulp::as_arrays::<4, f64>(c0), pulp::as_arrays(c1));
    let ((c4, c_rest), (d4, d_rest)) = (pulp::as_arrays::<4, f64>(c2), pulp::as_arrays(c3));
    let [d0, d1, d2, d3] = *delta;
    let dv = delta.map(|d| l.splat(d));
    for ((((ws, a), b), c), d) in w4.iter_mut().zip(a4).zip(b4).zip(c4).zip(d4) {
        let ab = l.add(l.mul(l.load(a), dv[0]), l.mul(l.load(b), dv[1]));
        let cd = l.add(l.mul(l.load(c), dv[2]), l.mul(l.load(d), dv[3]));
        l.store(ws, l.add(l.load(ws), l.add(ab, cd)));
    }
    let rests = w_rest
        .iter_mut()
        .zip(a_rest)
        .zip(b_rest)
        .zip(c_rest)
        .zip(d_rest);
    for ((((w, &a), &b), &c), &d) in rests {
        *w += (a * d0 + b * d1) + (c * d2 + d * d3);
    }
}

/// Projects every coupled friction row onto its bounds at the current
/// normal forces (one pass suffices: normal rows are never coupled); a
/// friction row visited before its normal row may otherwise end a sweep
/// slightly outside them.
fn project_coupled(bounds: &BoxBounds, z: &mut [f64]) {
    for c in bounds.couplings() {
        let (lo, hi) = bounds.effective(c.row, z);
        z[c.row] = z[c.row].max(lo).min(hi);
    }
}

/// Fills `z` with the first iterate: `warm_start` (checked) or 0, projected
/// onto the bounds, uncoupled rows first.
fn start(bounds: &BoxBounds, warm_start: Option<&[f64]>, z: &mut Vec<f64>) -> Result<(), LcpError> {
    let n = bounds.len();
    z.clear();
    let Some(ws) = warm_start else {
        z.resize(n, 0.0);
        return Ok(());
    };
    check_vector("warm_start", ws, n)?;
    z.extend_from_slice(ws);
    for coupled in [false, true] {
        for i in 0..n {
            if bounds.coupling_of(i).is_some() == coupled {
                let (lo, hi) = bounds.effective(i, z);
                z[i] = z[i].max(lo).min(hi);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::lanes::ArrayLanes;
    use faer::Mat;

    /// A 5 x 5 LCP with diagonal `d` and off-diagonal `0.1 (i + 2 j)`.
    fn problem(d: [f64; 5]) -> BoxLcp {
        let m = Mat::from_fn(5, 5, |i, j| {
            if i == j {
                d[i]
            } else {
                0.1 * (i + 2 * j) as f64
            }
        });
        BoxLcp::new(
            m,
            vec![-1.0; 5],
            vec![0.0; 5],
            vec![f64::INFINITY; 5],
            vec![],
        )
        .unwrap()
    }

    #[test]
    fn kept_coefficients_follow_the_matrix_and_omega() {
        let mut cache = SweepCoefficients::default();
        let first = problem([2.0, 4.0, 1.0, 8.0, 0.5]);
        let c = cache.of(&first, 1.0).unwrap();
        assert_eq!(c.steps, [0.5, 0.25, 1.0, 0.125, 2.0]);
        // One whole block (rows 0..4): row j's move changes by
        // -steps[j] M[j, k] per unit move of an earlier row k.
        assert_eq!(c.chains.len(), 1);
        for k in 0..4 {
            for j in 0..4 {
                let m_jk = 0.1 * (j + 2 * k) as f64;
                let expect = if j > k { -c.steps[j] * m_jk } else { 0.0 };
                assert_eq!(c.chains[0][k][j], expect, "k {k} j {j}");
            }
        }
        // A clone has the same matrix and is served from the cache; another
        // construction, even of the same matrix, is another matrix to it.
        assert_eq!(first.clone().lcp().matrix_id(), first.lcp().matrix_id());
        let second = problem([2.0, 4.0, 1.0, 8.0, 0.5]);
        assert_ne!(second.lcp().matrix_id(), first.lcp().matrix_id());
        // Another diagonal: new steps; the same matrix, another omega.
        let other = problem([2.0, 8.0, 1.0, 8.0, 0.5]);
        assert_eq!(cache.of(&other, 1.0).unwrap().steps[1], 0.125);
        assert_eq!(cache.of(&other, 1.5).unwrap().steps[..2], [0.75, 0.1875]);
        // A refused diagonal leaves nothing to reuse.
        assert!(matches!(
            cache.of(&problem([2.0, -1.0, 1.0, 1.0, 1.0]), 1.5),
            Err(LcpError::NonPositiveDiagonal { row: 1, .. })
        ));
        assert_eq!(cache.matrix, 0);
        assert_eq!(cache.of(&other, 1.5).unwrap().steps[..2], [0.75, 0.1875]);
    }

    /// The dense sweep as dispatched (AVX2 registers when this machine has
    /// them) gives the same bits as on plain arrays, over several sweeps of
    /// problems whose size is not a multiple of the block, so both the
    /// four-column pass and the one-column pass run. Without AVX2 both run
    /// on arrays and the comparison is trivially true.
    #[test]
    fn dispatched_sweep_matches_array_lanes_to_the_bit() {
        for (n, seed) in [(3_usize, 7_u64), (4, 8), (9, 9), (14, 10), (37, 11)] {
            let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut uniform = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 11) as f64 / (1_u64 << 53) as f64 * 2.0 - 1.0
            };
            // Entries over several orders of magnitude, so that a different
            // order of the operations would show in the last bits.
            let m = Mat::from_fn(n, n, |i, j| {
                if i == j {
                    2.0 + uniform().abs()
                } else {
                    uniform() * 10f64.powf(2.0 * uniform()) / n as f64
                }
            });
            let q: Vec<f64> = (0..n).map(|_| uniform() * 3.0).collect();
            let p = BoxLcp::new(m, q.clone(), vec![-0.3; n], vec![0.5; n], vec![]).unwrap();
            let mut cache = SweepCoefficients::default();
            let coefficients = cache.of(&p, 1.2).unwrap();
            let (mut z_best, mut w_best) = (vec![0.0; n], q.clone());
            let (mut z_array, mut w_array) = (vec![0.0; n], q);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            for sweep in 0..4 {
                sweep_dense(&p, coefficients, &mut z_best, &mut w_best);
                let (z, w) = (&mut z_array[..], &mut w_array[..]);
                DenseSweep {
                    problem: &p,
                    coefficients,
                    z,
                    w,
                }
                .run(ArrayLanes);
                assert_eq!(bits(&z_best), bits(&z_array), "n {n}, sweep {sweep}");
                assert_eq!(bits(&w_best), bits(&w_array), "n {n}, sweep {sweep}");
            }
            // The sweeps moved rows (the comparison is not of untouched data).
            assert!(z_best.iter().filter(|&&z| z != 0.0).count() > n / 2);
        }
    }
}
