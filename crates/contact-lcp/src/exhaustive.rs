// Exhaustive search over the complementary bases of a small box LCP (the
// box LCP of box_problem.rs): the policy's last resort.
//
// In a solution every row is at its lower bound with w_i >= 0, at its upper
// bound with w_i <= 0, or free (w_i = 0) within its bounds (a friction
// row's bounds are -mu z_j and mu z_j). Fixing a state per row (a
// complementary basis) leaves n linear equations; where they are
// nonsingular the basis has one candidate z, a solution exactly when it
// meets the basis's inequalities: the complementary cones of Murty 1988
// (Linear Complementarity, Linear and Nonlinear Programming, ch. 1), one of
// which holds q when the problem has a solution. The search tries every
// basis in lexicographic order and returns the first candidate its
// certificate accepts.
//
// Where every basis is nonsingular (M nondegenerate), finding none proves
// there is no solution (`LcpError::NoSolution`). A singular basis may hold
// solutions on an affine set that its candidates (the LU's and the
// least-norm one) do not represent: a search that met one proves nothing.
// Cost: at most `EXHAUSTIVE_MAX_BASES` solves of at most n rows.

use crate::box_problem::{BoxLcp, clamp};
use crate::box_verify::finish_box_answer;
use crate::linalg::lane_scan::max_abs;
use crate::linalg::lu::BlockLu;
use crate::solution::{LcpSolution, Method};
use crate::tuning::RULED_OUT;
use crate::tuning::SINGULAR;
use crate::verify::ACCEPT;

/// The most complementary bases the exhaustive search tries (a product of 2
/// per one-sided row, 3 per two-sided or friction row, 1 per fixed or free
/// row): a plain LCP of 12 rows, a box LCP of 7 two-sided rows. Each basis
/// costs one LU of at most n x n.
pub const EXHAUSTIVE_MAX_BASES: usize = 4096;

/// The state of a row in a complementary basis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// `z_i` at its lower bound (`-mu z_j` for a friction row).
    Lower,
    /// `z_i` at its upper bound (`mu z_j`).
    Upper,
    /// `w_i = 0`.
    Free,
}

/// How a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A certified solution is in `out`.
    Solved,
    /// No basis holds a solution and none was singular: there is none.
    NoSolution,
    /// Nothing found, but a singular basis (or a near miss) was met.
    Inconclusive,
    /// More than `EXHAUSTIVE_MAX_BASES` bases: not searched.
    TooLarge,
}

/// The search's workspace.
#[derive(Clone, Debug, Default)]
pub(crate) struct ExhaustiveSearch {
    /// The states each row may take (and how many), the choice per row.
    options: Vec<([State; 3], usize)>,
    choice: Vec<usize>,
    lu: BlockLu,
    /// The current basis's scaled equations (column-major).
    system: Vec<f64>,
    rhs: Vec<f64>,
    /// The rows whose z the basis's equations determine, and their values.
    unknown: Vec<usize>,
    x: Vec<f64>,
    /// A refinement step's residual, then correction.
    correction: Vec<f64>,
    z: Vec<f64>,
    w: Vec<f64>,
    small: Vec<usize>,
    /// Bases tried by the last search.
    pub(crate) bases: usize,
}

impl ExhaustiveSearch {
    /// The number of complementary bases of `problem` (saturating).
    pub(crate) fn count(problem: &BoxLcp) -> usize {
        (0..problem.dim())
            .map(|i| options(problem, i).1)
            .fold(1usize, usize::saturating_mul)
    }

    /// Searches every complementary basis of `problem` (module comment);
    /// on `Solved`, `out` holds the certified answer.
    pub(crate) fn solve(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Outcome {
        self.bases = 0;
        if Self::count(problem) > EXHAUSTIVE_MAX_BASES {
            return Outcome::TooLarge;
        }
        let n = problem.dim();
        self.options.clear();
        self.options.extend((0..n).map(|i| options(problem, i)));
        self.choice.clear();
        self.choice.resize(n, 0);
        self.lu.set_plain_up_to(usize::MAX);
        let mut proof = true;
        loop {
            self.bases += 1;
            match self.try_basis(problem, out) {
                Candidate::Solution => return Outcome::Solved,
                Candidate::RuledOut => {}
                Candidate::Unsure => proof = false,
            }
            // The next basis, odometer order (row 0 fastest).
            let mut i = 0;
            while i < n && self.choice[i] + 1 == self.options[i].1 {
                self.choice[i] = 0;
                i += 1;
            }
            if i == n {
                return match proof {
                    true => Outcome::NoSolution,
                    false => Outcome::Inconclusive,
                };
            }
            self.choice[i] += 1;
        }
    }

    /// The state of row `i` in the current basis.
    fn state(&self, i: usize) -> State {
        self.options[i].0[self.choice[i]]
    }

    /// Solves the current basis's equations and checks its candidate.
    fn try_basis(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Candidate {
        let n = problem.dim();
        let lcp = problem.lcp();
        let bounds = problem.bounds();
        // Rows at an uncoupled bound have their z; the others (free, or
        // coupled to a normal) are the unknowns, in `self.unknown`.
        self.z.clear();
        self.z.resize(n, 0.0);
        self.unknown.clear();
        for i in 0..n {
            match (self.state(i), bounds.coupling_of(i)) {
                (State::Free, _) | (_, Some(_)) => self.unknown.push(i),
                (side, None) => {
                    let (lo, hi) = (bounds.lo()[i], bounds.hi()[i]);
                    self.z[i] = if side == State::Upper { hi } else { lo };
                }
            }
        }
        let k = self.unknown.len();
        let a = self.lu.reset(k);
        self.rhs.clear();
        for (r, &i) in self.unknown.iter().enumerate() {
            // Row r of the column-major k x k matrix: a[r + k c].
            let b = match (self.options[i].0[self.choice[i]], bounds.coupling_of(i)) {
                (State::Free, _) => {
                    let mut b = -lcp.q()[i];
                    for j in 0..n {
                        b -= lcp.col(j)[i] * self.z[j];
                    }
                    for (c, &j) in self.unknown.iter().enumerate() {
                        a[r + k * c] = lcp.col(j)[i];
                    }
                    b
                }
                (side, Some(c)) => {
                    // z_i = mu z_j at the upper bound, -mu z_j at the lower.
                    let sign = if side == State::Upper { -1.0 } else { 1.0 };
                    a[r + k * r] = 1.0;
                    match self.unknown.iter().position(|&j| j == c.normal_row) {
                        Some(col) => {
                            a[r + k * col] = sign * c.mu;
                            0.0
                        }
                        None => -sign * c.mu * self.z[c.normal_row],
                    }
                }
                (_, None) => unreachable!("a row at an uncoupled bound is known"),
            };
            // Each row divided by its largest entry: rows of M and the unit
            // rows of the bounds may differ by many orders, which the LU's
            // singularity test (relative to the largest entry) must not see.
            let largest = (0..k).fold(0.0_f64, |m, c| m.max(a[r + k * c].abs()));
            let d = if largest > 0.0 { largest } else { 1.0 };
            for c in 0..k {
                a[r + k * c] /= d;
            }
            self.rhs.push(b / d);
        }
        // Kept for a singular basis (the LU overwrites `a`).
        self.system.clear();
        self.system.extend_from_slice(a);
        if !self.lu.factor_listing_small(SINGULAR, &mut self.small) {
            return Candidate::Unsure;
        }
        self.x.clone_from(&self.rhs);
        self.lu.solve(&mut self.x);
        self.refine(k);
        self.place();
        if self.small.is_empty() {
            return self.judge(problem, out);
        }
        // A singular (or nearly singular) basis proves nothing by a miss:
        // its solutions may fill an affine set. Its candidates are the
        // LU's, if finite, and the least-norm solution, if consistent.
        if self.judge(problem, out) == Candidate::Solution {
            return Candidate::Solution;
        }
        self.x.clone_from(&self.rhs);
        if min_norm_solution(k, &self.system, &mut self.x) == Some(true) {
            self.place();
            if self.judge(problem, out) == Candidate::Solution {
                return Candidate::Solution;
            }
        }
        Candidate::Unsure
    }

    /// Two steps of iterative refinement of `self.x` against the kept system
    /// (`x += A^-1 (b - A x)`): where the unknowns differ by many orders (a
    /// friction row at `mu z_n` with mu = 2^34) the LU's answer alone fails
    /// the certificate.
    fn refine(&mut self, k: usize) {
        for _ in 0..2 {
            self.correction.clear();
            self.correction.extend((0..k).map(|r| {
                let ax: f64 = (0..k).map(|c| self.system[r + k * c] * self.x[c]).sum();
                self.rhs[r] - ax
            }));
            self.lu.solve(&mut self.correction);
            for (x, d) in self.x.iter_mut().zip(&self.correction) {
                *x += d;
            }
        }
    }

    /// Copies the unknowns `self.x` into their rows of `self.z`.
    fn place(&mut self) {
        for (&i, &x) in self.unknown.iter().zip(&self.x) {
            self.z[i] = x;
        }
    }

    /// Checks the candidate `self.z` of the current basis against the
    /// basis's inequalities, then the certificate (into `out`).
    fn judge(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Candidate {
        let n = problem.dim();
        let (lcp, bounds) = (problem.lcp(), problem.bounds());
        if self.z.iter().any(|x| !x.is_finite()) {
            return Candidate::Unsure;
        }
        // The basis's inequalities, scaled as the certificate scales.
        self.w.clear();
        self.w.resize(n, 0.0);
        lcp.affine(&self.z, &mut self.w);
        let m_norm = lcp.m_max_abs();
        let z_inf = max_abs(&self.z);
        let scale = (m_norm * z_inf).max(lcp.q_max_abs());
        let z_scale = z_inf.max(if m_norm > 0.0 { scale / m_norm } else { 0.0 });
        let (scale, z_scale) = (positive_or_one(scale), positive_or_one(z_scale));
        let mut miss = 0.0_f64;
        for i in 0..n {
            let (lo, hi) = bounds.effective(i, &self.z);
            let (zi, wi) = (self.z[i], self.w[i]);
            // A row whose bounds meet (fixed, or a friction row of a zero
            // normal) takes w of either sign.
            let m = match self.state(i) {
                State::Free => (zi - clamp(zi, lo, hi)).abs() / z_scale,
                _ if lo == hi => 0.0,
                State::Lower => (-wi).max(0.0) / scale,
                State::Upper => wi.max(0.0) / scale,
            };
            miss = miss.max(m);
        }
        // (miss is finite: z and w are.)
        if miss > RULED_OUT {
            return Candidate::RuledOut;
        }
        out.z.clone_from(&self.z);
        finish_box_answer(problem, out);
        out.method = Method::ExhaustiveSearch;
        out.pivots = 0;
        out.iterations = self.bases;
        if out.report.is_solution(ACCEPT) {
            Candidate::Solution
        } else {
            Candidate::Unsure
        }
    }
}

/// The least-squares solution of least norm of the column-major `n x n`
/// system `a x = b` (`b` given in `x`) by the SVD (singular values below
/// `1e-12` of the largest count as 0): `Some(true)` with it in `x` when the
/// equations are consistent (residual at most `1e-9` of `|x| + |b|` in every
/// row), `Some(false)` when not, `None` when the SVD fails. On a singular
/// basis this is a candidate the LU does not give: a free variable no
/// equation pins down is 0.
fn min_norm_solution(n: usize, a: &[f64], x: &mut [f64]) -> Option<bool> {
    let svd = faer::MatRef::from_column_major_slice(a, n, n)
        .thin_svd()
        .ok()?;
    let (u, s, v) = (svd.U(), svd.S().column_vector(), svd.V());
    let s_max = (0..n).fold(0.0_f64, |m, k| m.max(s[k]));
    let b = x.to_vec();
    let y: Vec<f64> = (0..n)
        .map(|k| match s[k] > 1e-12 * s_max {
            true => (0..n).map(|i| u[(i, k)] * b[i]).sum::<f64>() / s[k],
            false => 0.0,
        })
        .collect();
    for (i, xi) in x.iter_mut().enumerate() {
        *xi = (0..n).map(|k| v[(i, k)] * y[k]).sum();
    }
    let x_norm = max_abs(x);
    let consistent = (0..n).all(|i| {
        let ax: f64 = (0..n).map(|j| a[i + n * j] * x[j]).sum();
        (ax - b[i]).abs() <= 1e-9 * (x_norm + b[i].abs())
    });
    Some(consistent)
}

/// What one basis gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Candidate {
    Solution,
    RuledOut,
    Unsure,
}

/// `x` if positive and finite, else 1 (the certificate's convention).
fn positive_or_one(x: f64) -> f64 {
    if x > 0.0 && x.is_finite() { x } else { 1.0 }
}

/// The states row `i` may take, and how many.
fn options(problem: &BoxLcp, i: usize) -> ([State; 3], usize) {
    use State::{Free, Lower, Upper};
    let bounds = problem.bounds();
    let (lo, hi) = (bounds.lo()[i], bounds.hi()[i]);
    match bounds.coupling_of(i) {
        Some(c) if c.mu > 0.0 => ([Lower, Upper, Free], 3),
        Some(_) => ([Lower; 3], 1),
        None if lo == hi => ([Lower; 3], 1),
        None => match (lo.is_finite(), hi.is_finite()) {
            (true, true) => ([Lower, Upper, Free], 3),
            (true, false) => ([Lower, Free, Free], 2),
            (false, true) => ([Upper, Free, Free], 2),
            (false, false) => ([Free; 3], 1),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::box_problem::Coupling;
    use faer::Mat;

    const INF: f64 = f64::INFINITY;

    fn problem(
        m: Mat<f64>,
        q: Vec<f64>,
        lo: Vec<f64>,
        hi: Vec<f64>,
        c: Option<Coupling>,
    ) -> BoxLcp {
        BoxLcp::new(m, q, lo, hi, c.into_iter().collect()).unwrap()
    }

    /// One row of each kind: plain (2 states), fixed (1), free (1), upper
    /// bound only (2), two-sided (3), a normal (2) and its friction row (3,
    /// or 1 with mu = 0); more than the limit is not searched.
    #[test]
    fn bases_are_counted_per_row() {
        let bounds = |mu: f64| {
            let lo = vec![0.0, 0.0, -INF, -INF, -1.0, 0.0, -INF];
            let hi = vec![INF, 0.0, INF, 2.0, 1.0, INF, INF];
            let c = Coupling {
                row: 6,
                normal_row: 5,
                mu,
            };
            problem(Mat::identity(7, 7), vec![0.0; 7], lo, hi, Some(c))
        };
        assert_eq!(ExhaustiveSearch::count(&bounds(0.5)), 2 * 2 * 3 * 2 * 3);
        assert_eq!(ExhaustiveSearch::count(&bounds(0.0)), 2 * 2 * 3 * 2);
        let plain = problem(
            Mat::identity(13, 13),
            vec![-1.0; 13],
            vec![0.0; 13],
            vec![INF; 13],
            None,
        );
        let mut out = LcpSolution::default();
        let outcome = ExhaustiveSearch::default().solve(&plain, &mut out);
        assert_eq!(outcome, Outcome::TooLarge);
    }

    /// Every row kind in one problem with a unique solution (M = 2 I): the
    /// search finds it, whatever row is at which bound.
    #[test]
    fn the_unique_solution_of_a_mixed_problem_is_found() {
        // w = 2 z + q. Row 0 plain (z = 1), row 1 at its upper bound 0.5
        // (w < 0), row 2 at its lower bound -1 (w > 0), row 3 free (z = -2),
        // row 4 a normal (z = 1.5) whose friction row 5 sticks at its bound
        // mu z_4 = 0.75 (w < 0).
        let c = Coupling {
            row: 5,
            normal_row: 4,
            mu: 0.5,
        };
        let p = problem(
            Mat::from_fn(6, 6, |i, j| if i == j { 2.0 } else { 0.0 }),
            vec![-2.0, -3.0, 4.0, 4.0, -3.0, -5.0],
            vec![0.0, -1.0, -1.0, -INF, 0.0, -INF],
            vec![INF, 0.5, 1.0, INF, INF, INF],
            Some(c),
        );
        let mut out = LcpSolution::default();
        assert_eq!(
            ExhaustiveSearch::default().solve(&p, &mut out),
            Outcome::Solved
        );
        assert_eq!(out.z, vec![1.0, 0.5, -1.0, -2.0, 1.5, 0.75]);
        assert_eq!(out.method, Method::ExhaustiveSearch);
        assert!(out.report.is_solution(1e-15), "{:?}", out.report);
    }
}
