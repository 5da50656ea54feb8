//! The machinery the acceleration problem and the impact problem share: a
//! list of Jacobian rows, their Gram matrix `G = J W J'` (the Delassus
//! matrix of `formulation/delassus.rs`), and a bounded LCP over some of the
//! rows solved by the `contact_lcp::Solver` policy, then by Lemke's method
//! warm-started from a reference answer when one is kept and the policy's
//! answer leaves its support (see `RowProblem::keep_reference`). Owns
//! every buffer, so a second solve of the same size allocates nothing.

use contact_lcp::faer::Mat;
use contact_lcp::{
    BoxBounds, BoxLcp, Coupling, Lcp, LcpError, LcpSolution, Lemke, Solver, SolverParams,
};
use contact_math::Twist;

use crate::formulation::delassus::Delassus;
use crate::{BodyState, JacobianRow};

/// Bounds of one unknown of the LCP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum UnknownBounds {
    /// `z >= 0` (a normal force or impulse).
    NonNegative,
    /// `|z| <= mu z_normal` with `normal` the unknown of its normal.
    Friction { normal: usize, mu: f64 },
    /// Free (a bilateral row).
    Free,
}

#[derive(Debug)]
pub(crate) struct RowProblem {
    /// The rows; the first `unknowns` are the LCP's unknowns, the rest only
    /// enter `G` (the sliding-friction rows of the acceleration problem).
    pub(crate) rows: Vec<JacobianRow>,
    /// `W J'` per block of each row.
    pub(crate) responses: Vec<[Twist; 2]>,
    pub(crate) bounds_of: Vec<UnknownBounds>,
    delassus: Delassus,
    /// `J W J'` over every row.
    pub(crate) gram: Mat<f64>,
    /// The LCP's matrix (filled by the caller from `gram`) and offsets.
    pub(crate) matrix: Mat<f64>,
    pub(crate) offsets: Vec<f64>,
    bounds: BoxBounds,
    solver: Solver,
    /// Lemke's method for the warm start, and the certification tolerance
    /// its answer must meet (the policy's).
    lemke: Lemke,
    tolerance: f64,
    /// The reference answer the next solves keep to (empty: none), and
    /// the warm start's answer before it is taken.
    reference: Vec<f64>,
    warm: LcpSolution,
    pub(crate) solution: LcpSolution,
}

impl RowProblem {
    pub(crate) fn new(params: SolverParams) -> Self {
        Self {
            rows: Vec::new(),
            responses: Vec::new(),
            bounds_of: Vec::new(),
            delassus: Delassus::default(),
            gram: Mat::new(),
            matrix: Mat::new(),
            offsets: Vec::new(),
            bounds: BoxBounds::unilateral(0),
            solver: Solver::new(params),
            lemke: Lemke::new(params.lemke),
            tolerance: params.tolerance,
            reference: Vec::new(),
            warm: LcpSolution::default(),
            solution: LcpSolution::default(),
        }
    }

    /// Keeps the last answer as the reference of the next solves (`false`:
    /// forgets it). Where a problem has several answers (sliding friction
    /// makes the matrix non-symmetric; Baraff 1994, sec. 6) the policy may
    /// pick either of two on problems an instant apart. When its answer
    /// has another support (the unknowns that are not zero) than the
    /// reference, or it fails, Lemke's method warm-started from the
    /// reference's basis, which keeps that basis while it stays feasible
    /// (no pivot), is taken if it certifies: so the forces follow one
    /// answer continuously, as an ODE method needs.
    pub(crate) fn keep_reference(&mut self, keep: bool) {
        self.reference.clear();
        if keep {
            self.reference.extend_from_slice(&self.solution.z);
        }
    }

    /// The reference answer kept (empty: none).
    pub(crate) fn reference(&self) -> &[f64] {
        &self.reference
    }

    /// Replaces the reference answer by `reference` (empty: none).
    pub(crate) fn set_reference(&mut self, reference: &[f64]) {
        self.reference.clear();
        self.reference.extend_from_slice(reference);
    }

    /// Forgets the rows of the last problem.
    pub(crate) fn clear(&mut self) {
        self.rows.clear();
        self.bounds_of.clear();
    }

    /// Appends an unknown's row (before any row that is not an unknown).
    pub(crate) fn push_unknown(&mut self, row: JacobianRow, bounds: UnknownBounds) -> usize {
        debug_assert_eq!(self.rows.len(), self.bounds_of.len());
        self.rows.push(row);
        self.bounds_of.push(bounds);
        self.rows.len() - 1
    }

    /// Number of unknowns.
    pub(crate) fn unknowns(&self) -> usize {
        self.bounds_of.len()
    }

    /// Fills `gram` with `J W J'` of every row, and sizes `matrix` (set to
    /// `gram`'s unknown block) and `offsets` (zeros) for the unknowns.
    pub(crate) fn assemble(&mut self, bodies: &[BodyState]) {
        self.responses.clear();
        self.responses
            .extend(self.rows.iter().map(|row| row.responses(bodies)));
        let all = self.rows.len();
        self.gram.resize_with(all, all, |_, _| 0.0);
        self.gram.as_mut().fill(0.0);
        self.delassus
            .fill(&self.rows, &self.responses, self.gram.as_mut());
        let n = self.unknowns();
        self.matrix.resize_with(n, n, |_, _| 0.0);
        for j in 0..n {
            for i in 0..n {
                self.matrix[(i, j)] = self.gram[(i, j)];
            }
        }
        self.offsets.clear();
        self.offsets.resize(n, 0.0);
    }

    /// Solves the LCP `w = matrix z + offsets` with the unknowns' bounds,
    /// keeping to the reference when `from_reference` (and it has the
    /// right size); the answer is in `solution`.
    pub(crate) fn solve(&mut self, from_reference: bool) -> Result<(), LcpError> {
        let n = self.unknowns();
        let kinds = &self.bounds_of;
        self.bounds.rebuild(|lo, hi, couplings| {
            lo.clear();
            hi.clear();
            couplings.clear();
            for (row, kind) in kinds.iter().enumerate() {
                let (l, h) = match *kind {
                    UnknownBounds::NonNegative => (0.0, f64::INFINITY),
                    UnknownBounds::Free => (f64::NEG_INFINITY, f64::INFINITY),
                    UnknownBounds::Friction { normal, mu } => {
                        couplings.push(Coupling {
                            row,
                            normal_row: normal,
                            mu,
                        });
                        (f64::NEG_INFINITY, f64::INFINITY)
                    }
                };
                lo.push(l);
                hi.push(h);
            }
            debug_assert_eq!(lo.len(), n);
        })?;
        let lcp = Lcp::new(
            std::mem::replace(&mut self.matrix, Mat::new()),
            std::mem::take(&mut self.offsets),
        )?;
        let problem = BoxLcp::with_bounds(
            lcp,
            std::mem::replace(&mut self.bounds, BoxBounds::unilateral(0)),
        )?;
        let mut solved = self.solver.solve_into(&problem, &mut self.solution);
        let reference = &self.reference;
        let left_reference = from_reference
            && reference.len() == n
            && (solved.is_err()
                || (self.solution.z.iter())
                    .zip(reference)
                    .any(|(z, r)| (*z == 0.0) != (*r == 0.0)));
        if left_reference
            && self
                .lemke
                .solve_box_warm_into(&problem, reference, &mut self.warm)
                .is_ok()
            && self.warm.report.is_solution(self.tolerance)
        {
            std::mem::swap(&mut self.solution, &mut self.warm);
            solved = Ok(());
        }
        let (lcp, bounds) = problem.into_parts();
        (self.matrix, self.offsets) = lcp.into_parts();
        self.bounds = bounds;
        solved
    }

    /// Adds `W J_row' impulse` to the twists (or accelerations) of the
    /// row's bodies.
    pub(crate) fn apply(&self, row: usize, impulse: f64, twists: &mut [Twist]) {
        if impulse == 0.0 {
            return;
        }
        let blocks = [self.rows[row].a, self.rows[row].b];
        for (block, change) in blocks.iter().zip(&self.responses[row]) {
            if let Some(block) = block {
                twists[block.body] += *change * impulse;
            }
        }
    }
}
