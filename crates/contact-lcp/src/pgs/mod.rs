// Projected Gauss-Seidel / SOR for the box LCP.
//
// Problem and signs: find z with w = M z + q, lo <= z <= hi per row, w_i >= 0
// where z_i = lo_i, w_i <= 0 where z_i = hi_i, w_i = 0 strictly between
// (Cline 2002 sec. 2.7.2 for this mixed form; a plain LCP is lo = 0,
// hi = +inf). A friction row i coupled to a normal row j has the bounds
// [-mu max(z_j, 0), mu max(z_j, 0)], recomputed from the current z_j each
// time row i is visited (never frozen at the start of a sweep).
//
// Method (Preda & Florian 2005, Algorithm 1, generalised to box bounds and
// relaxation): start from z = 0 or a warm start projected onto the bounds;
// sweep the rows i = 0 .. n-1 in order, each time setting
//     z_i <- clamp(z_i - omega w_i / M_ii, lo_i(z), hi_i(z)),
// where w_i = (M z + q)_i uses the newest z. With omega = 1 this is exactly
// the paper's update: z_i solves row i for w_i = 0 given the other z_j, then
// is projected onto its bounds (the paper's bounds are [0, +inf)). omega in
// (0, 2) over- or under-relaxes. For symmetric positive definite M the
// iteration converges for every omega in (0, 2) (it is a projected SOR on a
// strictly convex QP); for PSD M it converges in residual whenever the
// problem has a solution; friction coupling makes the problem non-symmetric
// in effect and convergence is not guaranteed (measured in the tests).
//
// Cost: the dense form keeps w = M z + q up to date by adding
// delta_i * M[:, i] when z_i changes (one contiguous column), so a row whose
// z stays at its bound costs O(1) and a sweep at most one M-vector product.
// The matrix-free form (matrix_free.rs) keeps v = W J' z instead.
//
// Stopping: after each sweep, the natural residual
//     max_i |z_i - clamp(z_i - c w_i, lo_i, hi_i)|,  c = 1 / ||M||_max
// (z_scale / scale where a scale was replaced: verify::scales)
// divided by z_scale (VerifyReport::scaled_natural_residual; the scales are
// those of `verify`) is compared with `tolerance`. When it passes, the
// coupled rows are projected onto the bounds of the final normal forces (so
// the coupling holds exactly at the returned z), w is recomputed from
// scratch (dropping the drift of the incremental updates) and the test is
// repeated; the returned report is computed on that exact w.
//
// Row order: rows are visited 0 .. n-1. Putting each normal row before its
// friction rows (as contact solvers usually do) lets a friction row see the
// newest normal force in the same sweep.

mod matrix_free;

pub use matrix_free::{ContactOperator, JacobianBlock};

use crate::box_problem::{BoxBounds, BoxLcp};
use crate::box_verify::{box_report, verify_box_into};
use crate::error::LcpError;
use crate::linalg::lane_scan::max_abs_if_finite;
use crate::linalg::lanes::{Lanes, LanesOp, add_column, with_best_lanes};
use crate::solution::{LcpSolution, Method};
use crate::tuning::SWEEP_BLOCK;

/// Settings of [`ProjectedGaussSeidel`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PgsParams {
    /// Relaxation factor, in `(0, 2)`. `1` (the default) is plain
    /// Gauss-Seidel; `1.2..=1.5` often helps on well-conditioned problems,
    /// values below 1 damp oscillations on friction-coupled ones.
    pub omega: f64,
    /// Stop when the scaled natural residual
    /// ([`VerifyReport::scaled_natural_residual`](crate::VerifyReport::scaled_natural_residual))
    /// is at most this (relative, dimensionless). Default `1e-8`; sensible
    /// range `1e-12..=1e-3`. Must be `>= 0` (0 asks for an exact solution and
    /// usually ends at the sweep limit).
    pub tolerance: f64,
    /// Largest number of sweeps before giving up with
    /// [`LcpError::IterationLimit`]. Default `1000`; a sweep costs at most one
    /// `M`-vector product (dense) or `O(rows)` (matrix-free).
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
        if !(self.omega > 0.0 && self.omega < 2.0) {
            return Err(LcpError::InvalidParameter {
                what: "omega",
                value: self.omega,
            });
        }
        if self.tolerance.is_nan() || self.tolerance < 0.0 {
            return Err(LcpError::InvalidParameter {
                what: "tolerance",
                value: self.tolerance,
            });
        }
        Ok(())
    }
}

/// Projected Gauss-Seidel / SOR solver for [`BoxLcp`] (dense `M`) and for
/// contact problems given as `M = J W J'` ([`ContactOperator`]), with a
/// reusable workspace: a second solve of the same size allocates nothing
/// (unless an error carries a best iterate).
///
/// See the module source for the method (Preda & Florian 2005, Algorithm 1,
/// with box bounds, friction coupling and relaxation). The returned
/// [`LcpSolution`] has `method = ProjectedGaussSeidel`, `pivots = 0` and the
/// sweeps done in `iterations`.
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

    /// Solves `problem` into `out`, reusing its vectors. `warm_start`, if
    /// given, is projected onto the bounds (uncoupled rows first, then the
    /// coupled rows with the bounds of the projected normal forces) and used
    /// as the first iterate.
    ///
    /// On success `out` holds `z` (within its bounds up to rounding of the
    /// coupled bounds), `w = M z + q` recomputed exactly, the sweeps in
    /// `iterations`, and the report (its scaled natural residual is at most
    /// [`PgsParams::tolerance`]). On [`LcpError::IterationLimit`], `out` holds
    /// the best iterate too.
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
        let params = self.params;
        params.check()?;
        let n = problem.dim();
        self.coefficients.of(problem, params.omega)?;
        start(problem.bounds(), warm_start, &mut out.z)?;
        out.method = Method::ProjectedGaussSeidel;
        out.pivots = 0;
        out.iterations = 0;
        out.w.clear();
        out.w.resize(n, 0.0);
        problem.lcp().affine(&out.z, &mut out.w);
        self.best_z.clone_from(&out.z);
        let mut best = f64::INFINITY;
        let bounds = problem.bounds();
        let (m_norm, q_max) = (problem.lcp().m_max_abs(), problem.lcp().q_max_abs());

        for sweep in 1..=params.max_sweeps {
            out.iterations = sweep;
            sweep_dense(problem, &self.coefficients, &mut out.z, &mut out.w);
            let mut r =
                box_report(bounds, q_max, m_norm, &out.z, &out.w, None).scaled_natural_residual();
            if r <= params.tolerance {
                // Make the couplings exact, drop the drift of the incremental
                // updates, and test again on the certificate itself.
                project_coupled(bounds, &mut out.z);
                problem.lcp().affine(&out.z, &mut out.w);
                out.report = verify_box_into(problem, &out.z, Some(&out.w), &mut self.scratch);
                r = out.report.scaled_natural_residual();
                if r <= params.tolerance {
                    return Ok(());
                }
                // (NaN when the report is infinite: falls through.)
                r = if r.is_nan() { f64::INFINITY } else { r };
            }
            if r < best {
                best = r;
                self.best_z.copy_from_slice(&out.z);
            }
        }
        out.z.copy_from_slice(&self.best_z);
        problem.lcp().affine(&out.z, &mut out.w);
        out.report = verify_box_into(problem, &out.z, Some(&out.w), &mut self.scratch);
        Err(LcpError::IterationLimit {
            sweeps: out.iterations,
            residual: out.report.scaled_natural_residual(),
            best: Some(Box::new(out.clone())),
        })
    }

    /// One sweep of the iteration of [`solve_into`](Self::solve_into) over
    /// the rows of `problem`, without its stopping test: each `z_i` in turn
    /// is moved to `clamp(z_i - omega w_i / M_ii, lo_i(z), hi_i(z))` and `w`
    /// is updated incrementally. For callers with their own stopping rule
    /// and for measuring a sweep against an `M`-vector product (its cost is
    /// at most one, in column order).
    ///
    /// On entry `w` should be `M z + q` (not checked: the sweep stays
    /// well-defined, but `w` then stays off by the same amount); on return
    /// every `z_i` is within the bounds it had when row `i` was visited.
    /// Allocates nothing once the solver has seen a problem of this size.
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
        for (what, v) in [("z", &*z), ("w", &*w)] {
            if v.len() != n {
                return Err(LcpError::BadLength {
                    what,
                    expected: n,
                    found: v.len(),
                });
            }
            // One branch-free scan; the row is looked up only on failure.
            if max_abs_if_finite(v).is_none() {
                let row = v.iter().position(|x| !x.is_finite()).unwrap_or(0);
                return Err(LcpError::NonFinite { what, row, col: 0 });
            }
        }
        let coefficients = self.coefficients.of(problem, self.params.omega)?;
        sweep_dense(problem, coefficients, z, w);
        Ok(())
    }
}

/// What a dense sweep needs from `M` and `omega` besides `M`'s columns:
/// `omega / M_ii` per row and, per block of [`SWEEP_BLOCK`] rows, how each
/// row's move changes the later rows' moves. Kept with the matrix and
/// `omega` they came from, so the public `sweep`, called once per sweep,
/// computes them once per problem (buffers reused: nothing is allocated
/// once warmed up).
#[derive(Clone, Debug, Default)]
struct SweepCoefficients {
    /// `omega / M_ii`. The sweep divides by the diagonal: folding `omega`
    /// in takes one multiplication off the chain of dependent operations
    /// from one row to the next.
    steps: Vec<f64>,
    /// Per whole block starting at row `s`: `chain[k][j] = -steps[s + j]
    /// M[s + j, s + k]` for `j > k` (0 otherwise), the change in row
    /// `s + j`'s unprojected move per unit move of row `s + k`.
    chains: Vec<[[f64; SWEEP_BLOCK]; SWEEP_BLOCK]>,
    /// [`Lcp::matrix_id`](crate::Lcp) of the matrix they came from
    /// (0: none).
    matrix: u64,
    /// `omega` (bits) they came from.
    omega: u64,
}

impl SweepCoefficients {
    /// The coefficients of `problem` with `omega`, computed again unless
    /// they are those of the last call (the same matrix and `omega`). A row
    /// with `M_ii <= 0` is refused with [`LcpError::NonPositiveDiagonal`]
    /// before any sweep (`M` is finite: checked on construction).
    fn of(&mut self, problem: &BoxLcp, omega: f64) -> Result<&Self, LcpError> {
        let lcp = problem.lcp();
        if self.matrix == lcp.matrix_id() && self.omega == omega.to_bits() {
            return Ok(self);
        }
        let m = problem.m();
        let n = problem.dim();
        self.steps.clear();
        self.chains.clear();
        // Not valid until every row has passed.
        self.matrix = 0;
        for i in 0..n {
            let d = m[(i, i)];
            if d.is_nan() || d <= 0.0 {
                return Err(LcpError::NonPositiveDiagonal { row: i, value: d });
            }
            self.steps.push(omega / d);
        }
        for start in (0..n / SWEEP_BLOCK).map(|b| b * SWEEP_BLOCK) {
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
/// q` up to date by adding `delta_i M[:, i]` when `z_i` moves; a row that
/// stays at its bound costs O(1).
///
/// Rows go in blocks of [`SWEEP_BLOCK`]. Row `i`'s move is
///     d_i = clamp(t_i, lo_i - z_i, hi_i - z_i),   t_i = -omega w_i / M_ii,
/// the same step as `clamp(z_i - omega w_i / M_ii, lo_i, hi_i) - z_i`
/// with the bounds shifted by `z_i` (and `z_i` lands exactly on a bound it
/// reaches). Inside a block, each row's `t_i` gets the moves of the block's
/// earlier rows as one fused multiply-add each (`SweepCoefficients::chains`;
/// `f64::mul_add` rounds once on every machine, in software where the CPU
/// has no FMA, so the bits do not depend on the machine), so
/// the chain of dependent operations from one row to the next is a clamp
/// and a multiply-add; after the block, all of `w` gets the block's moves
/// in one pass over its four columns, so `w` is read and written once per
/// block instead of once per row, as in a matrix-vector kernel. The order
/// of the visits is unchanged: this is the same iteration, rounded
/// differently (measured in the commit that introduced it).
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
        let bounds = problem.bounds();
        let lcp = problem.lcp();
        let n = z.len();
        let steps = &coefficients.steps[..n];
        for (b, chain) in coefficients.chains.iter().enumerate() {
            let start = b * SWEEP_BLOCK;
            let block = start..start + SWEEP_BLOCK;
            // Every per-row value of the block as a fixed-size array: one
            // length check each here, none in the rows.
            let cols: [&[f64]; SWEEP_BLOCK] = std::array::from_fn(|k| &lcp.col(start + k)[..n]);
            let step: &[f64; SWEEP_BLOCK] = steps[block.clone()].try_into().expect("4");
            let lo: &[f64; SWEEP_BLOCK] = bounds.lo()[block.clone()].try_into().expect("4");
            let hi: &[f64; SWEEP_BLOCK] = bounds.hi()[block.clone()].try_into().expect("4");
            let coupled: &[Option<usize>; SWEEP_BLOCK] =
                bounds.coupled_rows()[block.clone()].try_into().expect("4");
            let wb: &[f64; SWEEP_BLOCK] = w[block].try_into().expect("4");
            let mut t: [f64; SWEEP_BLOCK] = std::array::from_fn(|k| -(step[k] * wb[k]));
            // z in three parts, so that a coupled row can read its normal
            // force wherever it is while the block's own entries are
            // written in place.
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
            // Rows at a bound stay there in a sweep near the end of a
            // solve: one column, or none, is then all `w` needs.
            match delta.iter().filter(|&&d| d != 0.0).count() {
                0 => {}
                1 => {
                    let k = delta.iter().position(|&d| d != 0.0).unwrap_or(0);
                    add_column(l, w, delta[k], cols[k]);
                }
                _ => add_block_columns(l, w, &cols, &delta),
            }
        }
        // The last n mod 4 rows one at a time, each updating all of w.
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

/// `x` clamped to `[lo, hi]` by plain comparisons: one instruction each,
/// where `f64::max` and `min` add a NaN test on the chain from one row to
/// the next (a sweep's values are finite: `z`, `w` and `M` are checked).
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
/// normal forces (one pass suffices: normal rows are never coupled). A
/// friction row visited before its normal row may otherwise end a sweep
/// slightly outside the bounds the normal row's last update implies.
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
    match warm_start {
        None => z.resize(n, 0.0),
        Some(ws) => {
            if ws.len() != n {
                return Err(LcpError::BadLength {
                    what: "warm_start",
                    expected: n,
                    found: ws.len(),
                });
            }
            if let Some(i) = ws.iter().position(|x| !x.is_finite()) {
                return Err(LcpError::NonFinite {
                    what: "warm_start",
                    row: i,
                    col: 0,
                });
            }
            z.extend_from_slice(ws);
            for coupled in [false, true] {
                for i in 0..n {
                    if bounds.coupling_of(i).is_some() == coupled {
                        let (lo, hi) = bounds.effective(i, z);
                        z[i] = z[i].max(lo).min(hi);
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::box_problem::Coupling;
    use crate::linalg::lanes::ArrayLanes;
    use faer::Mat;

    #[test]
    fn kept_coefficients_follow_the_matrix_and_omega() {
        let problem = |d: [f64; 5]| {
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
        };
        let mut cache = SweepCoefficients::default();
        let first = problem([2.0, 4.0, 1.0, 8.0, 0.5]);
        let c = cache.of(&first, 1.0).unwrap();
        assert_eq!(c.steps, [0.5, 0.25, 1.0, 0.125, 2.0]);
        // One whole block (rows 0..4): row j's move changes by
        // -steps[j] M[j, k] per unit move of an earlier row k.
        assert_eq!(c.chains.len(), 1);
        for k in 0..4 {
            for j in 0..4 {
                let expect = if j > k {
                    -c.steps[j] * 0.1 * (j + 2 * k) as f64
                } else {
                    0.0
                };
                assert_eq!(c.chains[0][k][j], expect, "k {k} j {j}");
            }
        }
        // A clone has the same matrix and is served from the cache; another
        // construction, even of the same matrix, is another matrix to it.
        let clone = first.clone();
        assert_eq!(clone.lcp().matrix_id(), first.lcp().matrix_id());
        let second = problem([2.0, 4.0, 1.0, 8.0, 0.5]);
        assert_ne!(second.lcp().matrix_id(), first.lcp().matrix_id());
        // Another diagonal: new steps.
        let other = problem([2.0, 8.0, 1.0, 8.0, 0.5]);
        assert_eq!(cache.of(&other, 1.0).unwrap().steps[1], 0.125);
        // The same matrix, another omega.
        assert_eq!(cache.of(&other, 1.5).unwrap().steps[..2], [0.75, 0.1875]);
        // A refused diagonal leaves nothing to reuse: the next call
        // computes its coefficients again.
        assert!(matches!(
            cache.of(&problem([2.0, -1.0, 1.0, 1.0, 1.0]), 1.5),
            Err(LcpError::NonPositiveDiagonal { row: 1, .. })
        ));
        assert_eq!(cache.matrix, 0);
        assert_eq!(cache.of(&other, 1.5).unwrap().steps[..2], [0.75, 0.1875]);
    }

    #[test]
    fn one_row_closed_form() {
        // w = 4 z - 2 in [-1, 0.25]: unbounded answer 0.5 is clipped at 0.25,
        // where w = -1 <= 0.
        let p = BoxLcp::new(
            Mat::from_fn(1, 1, |_, _| 4.0),
            vec![-2.0],
            vec![-1.0],
            vec![0.25],
            vec![],
        )
        .unwrap();
        let sol = ProjectedGaussSeidel::default().solve(&p, None).unwrap();
        assert_eq!((sol.z[0], sol.w[0], sol.iterations), (0.25, -1.0, 1));
        assert_eq!(sol.method, Method::ProjectedGaussSeidel);
    }

    /// One sweep on a 2 x 2 LCP, by hand: row 0 solves 4 z0 - 1 = 0, so
    /// z0 = 1/4; then w1 = -2 + z0 = -7/4 and z1 = 7/12. The returned w is
    /// M z + q.
    #[test]
    fn one_sweep_is_gauss_seidel_by_hand() {
        let m = Mat::from_fn(2, 2, |i, j| [[4.0, 1.0], [1.0, 3.0]][i][j]);
        let p = BoxLcp::new(
            m,
            vec![-1.0, -2.0],
            vec![0.0; 2],
            vec![f64::INFINITY; 2],
            vec![],
        )
        .unwrap();
        let mut pgs = ProjectedGaussSeidel::default();
        let (mut z, mut w) = (vec![0.0; 2], vec![-1.0, -2.0]);
        pgs.sweep(&p, &mut z, &mut w).unwrap();
        // z1 = 1.75 * (1/3): one rounding of the reciprocal, one of the product.
        assert_eq!(z[0], 0.25);
        assert!((z[1] - 7.0 / 12.0).abs() <= 1e-15, "{z:?}");
        let exact = [4.0 * z[0] + z[1] - 1.0, z[0] + 3.0 * z[1] - 2.0];
        for (a, b) in w.iter().zip(exact) {
            assert!((a - b).abs() <= 1e-15, "{w:?} vs {exact:?}");
        }
        assert_eq!(
            pgs.sweep(&p, &mut z[..1], &mut w),
            Err(LcpError::BadLength {
                what: "z",
                expected: 2,
                found: 1
            })
        );
        w[1] = f64::NAN;
        assert_eq!(
            pgs.sweep(&p, &mut z, &mut w),
            Err(LcpError::NonFinite {
                what: "w",
                row: 1,
                col: 0
            })
        );
    }

    /// The blocked sweep is the plain row-by-row iteration: checked against
    /// a reference that recomputes each `w_i = (M z + q)_i` from scratch
    /// (no incremental update, no blocks) on problems whose size is not a
    /// multiple of the block, with rows stuck at bounds, rows moving,
    /// friction couplings and over-relaxation. Both orders of summation
    /// round differently, so the tolerance is a few ulps of the scale.
    #[test]
    fn blocked_sweep_is_the_row_by_row_iteration() {
        // Rows ending a sweep at a bound and strictly inside, over all cases.
        let (mut at_bound, mut inside) = (0, 0);
        for (n, seed) in [(1_usize, 1_u64), (3, 2), (4, 3), (9, 4), (14, 5), (23, 6)] {
            let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut uniform = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 11) as f64 / (1_u64 << 53) as f64 * 2.0 - 1.0
            };
            let a = Mat::from_fn(n, n, |_, _| uniform());
            let m = Mat::from_fn(n, n, |i, j| {
                (0..n).map(|k| a[(i, k)] * a[(j, k)]).sum::<f64>() / n as f64
                    + if i == j { 0.5 } else { 0.0 }
            });
            let q: Vec<f64> = (0..n).map(|_| uniform()).collect();
            // Every third row j a normal (z >= 0); row j + 1 a friction row
            // coupled to it (its normal visited before it, in its block or
            // an earlier one) and row j + 2 one coupled to the normal two
            // ahead, j + 6, or else to the next one, j + 3 (visited after
            // it, in its block or a later one, at any place in that
            // block); the rows left over boxes [-0.2, 0.3].
            let (mut lo, mut hi, mut couplings) = (vec![-0.2; n], vec![0.3; n], vec![]);
            for j in (0..n).step_by(3) {
                lo[j] = 0.0;
                hi[j] = f64::INFINITY;
                let ahead = if j + 6 < n { j + 6 } else { j + 3 };
                for (row, normal_row) in [(j + 1, j), (j + 2, ahead)] {
                    if row < n && normal_row < n {
                        couplings.push(Coupling {
                            row,
                            normal_row,
                            mu: 0.4,
                        });
                        (lo[row], hi[row]) = (f64::NEG_INFINITY, f64::INFINITY);
                    }
                }
            }
            let p = BoxLcp::new(m.clone(), q.clone(), lo, hi, couplings).unwrap();
            let omega = 1.3;
            let mut pgs = ProjectedGaussSeidel::new(PgsParams {
                omega,
                ..PgsParams::default()
            });
            let (mut z, mut w) = (vec![0.0; n], q.clone());
            let mut z_ref = z.clone();
            for _ in 0..3 {
                pgs.sweep(&p, &mut z, &mut w).unwrap();
                for i in 0..n {
                    let wi = q[i] + (0..n).map(|j| m[(i, j)] * z_ref[j]).sum::<f64>();
                    let (lo, hi) = p.effective_bounds(i, &z_ref);
                    z_ref[i] = (z_ref[i] - omega * wi / m[(i, i)]).max(lo).min(hi);
                }
                for i in 0..n {
                    assert!(
                        (z[i] - z_ref[i]).abs() <= 1e-13,
                        "n {n} row {i}: {z:?} vs {z_ref:?}"
                    );
                    let wi = q[i] + (0..n).map(|j| m[(i, j)] * z[j]).sum::<f64>();
                    assert!(
                        (w[i] - wi).abs() <= 1e-13,
                        "n {n} row {i}: w {} vs {wi}",
                        w[i]
                    );
                    let (lo, hi) = p.effective_bounds(i, &z);
                    if z[i] == lo || z[i] == hi {
                        at_bound += 1;
                    } else {
                        inside += 1;
                    }
                }
            }
        }
        assert!(
            at_bound > 10 && inside > 10,
            "{at_bound} at a bound, {inside} inside"
        );
    }

    #[test]
    fn bad_settings_and_diagonals_are_typed_errors() {
        let p = BoxLcp::new(
            Mat::from_fn(2, 2, |i, j| if i == j { i as f64 } else { 0.0 }),
            vec![0.0; 2],
            vec![0.0; 2],
            vec![1.0; 2],
            vec![],
        )
        .unwrap();
        let mut pgs = ProjectedGaussSeidel::default();
        assert_eq!(
            pgs.solve(&p, None).unwrap_err(),
            LcpError::NonPositiveDiagonal { row: 0, value: 0.0 }
        );
        pgs.set_params(PgsParams {
            omega: 2.0,
            ..PgsParams::default()
        });
        assert_eq!(
            pgs.solve(&p, None).unwrap_err(),
            LcpError::InvalidParameter {
                what: "omega",
                value: 2.0
            }
        );
    }

    /// The dense sweep as dispatched (AVX2 registers when this machine has
    /// them) gives the same bits as on plain arrays, over several sweeps of
    /// problems whose size is not a multiple of the block, so both the
    /// four-column pass (several rows of a block moving) and the one-column
    /// pass (one row moving, or a short last block) run. Without AVX2 both
    /// run on arrays and the comparison is trivially true.
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
            let (lo, hi) = ((0..n).map(|_| -0.3).collect(), vec![0.5; n]);
            let p = BoxLcp::new(m, q.clone(), lo, hi, vec![]).unwrap();
            let mut cache = SweepCoefficients::default();
            let coefficients = cache.of(&p, 1.2).unwrap();
            let (mut z_best, mut w_best) = (vec![0.0; n], q.clone());
            let (mut z_array, mut w_array) = (vec![0.0; n], q);
            for sweep in 0..4 {
                sweep_dense(&p, coefficients, &mut z_best, &mut w_best);
                DenseSweep {
                    problem: &p,
                    coefficients,
                    z: &mut z_array,
                    w: &mut w_array,
                }
                .run(ArrayLanes);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&z_best), bits(&z_array), "n {n}, sweep {sweep}");
                assert_eq!(bits(&w_best), bits(&w_array), "n {n}, sweep {sweep}");
            }
            // The sweeps moved rows (the comparison is not of untouched data).
            assert!(z_best.iter().filter(|&&z| z != 0.0).count() > n / 2);
        }
    }
}
