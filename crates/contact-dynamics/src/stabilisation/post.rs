//! Post-stabilisation as an LCP (Cline 2002, sec. 3.3-3.4, eq. 3.5-3.7):
//! after the velocity step has moved the bodies, find a displacement `dp`
//! (a twist per body, applied over unit time) that brings every projected
//! constraint back, with the least kinetic-metric motion:
//!
//! ```text
//! dp = W J' lambda,   w = J W J' lambda + g,
//! equality rows: w = 0, lambda free;   gap rows: w >= 0, lambda >= 0, w lambda = 0
//! ```
//!
//! `W` is the plain inverse mass matrix (no damping), `g` the rows' errors
//! at the moved positions: joints and planar locks re-evaluated exactly,
//! contact gaps predicted to first order (`g + h J u+` after the step, then
//! `+ J dp` per projection) since the contact points are not recomputed.
//! Each projection is one Newton step on the nonlinear constraints (eq.
//! 3.2), repeated while an error exceeds the tolerance, up to the setting's
//! limit. Velocities are not changed, so the projection adds no kinetic
//! energy. The rows split into islands (connected components of the
//! moving bodies), and only the islands with an error above the tolerance
//! are solved, each on its own: an island of at least `sparse_from` rows
//! first in factored form, by block pivoting in body space
//! (`contact_lcp::BlockPivoting`, as the velocity step's large islands)
//! within `FACTORED_SOLVES` linear solves, then (where that gives up, and
//! for smaller islands) by the `contact_lcp::Solver` policy; both take
//! redundant rows (a closed loop of joints, a face resting on four contact
//! points) like any singular contact problem.

use contact_lcp::faer::Mat;
use contact_lcp::{
    BlockPivoting, BlockPivotingParams, BoxBounds, BoxLcp, Coupling, FactoredBoxLcp, FactoredParts,
    Lcp, LcpError, LcpSolution, Solver, SolverParams,
};
use contact_math::{Pose, Twist, integrate_pose};

use super::StabilisationParams;
use crate::constraints::{PositionCondition, RowSet, StabilisationGroup};
use crate::formulation::delassus::Delassus;
use crate::formulation::factored;

/// The linear solves block pivoting may take on a projection before the
/// dense policy answers: a projection from a cold start either settles in
/// a few dozen or cycles (every contact of a resting pile touching to
/// 1e-10 m makes every row degenerate).
const FACTORED_SOLVES: usize = 30;
use crate::time_stepping::islands::{Islands, localised};
use crate::{BodyState, ContactConstraint, DynamicsError, JacobianRow, RigidBody};

/// What one step's projection did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProjectionReport {
    /// Projections solved (0 when every error was within tolerance).
    pub projections: usize,
    /// Largest error before the first projection (m or rad).
    pub error_before: f64,
    /// Largest error after the last one.
    pub error_after: f64,
}

/// The projection's workspace, reused from step to step.
#[derive(Debug)]
pub(crate) struct Projection {
    set: RowSet,
    /// Contact gap rows carried from the velocity step: Jacobian and
    /// predicted gap.
    contact_rows: Vec<(JacobianRow, f64)>,
    rows: Vec<JacobianRow>,
    responses: Vec<[Twist; 2]>,
    free: Vec<bool>,
    errors: Vec<f64>,
    delassus: Delassus,
    matrix: Mat<f64>,
    offsets: Vec<f64>,
    bounds: BoxBounds,
    solver: Solver,
    /// Islands of at least this many rows go to `block_pivoting` first.
    sparse_from: usize,
    block_pivoting: BlockPivoting,
    factored: FactoredParts,
    solution: LcpSolution,
    states: Vec<BodyState>,
    displacement: Vec<Twist>,
    islands: Islands,
    /// One island's rows (bodies renumbered), states and bounds.
    local_rows: Vec<JacobianRow>,
    local_states: Vec<BodyState>,
    local_free: Vec<bool>,
}

/// The bounds of a projection's rows: equality rows free, gap rows
/// `[0, inf)`.
fn gap_bounds(free: &[bool], lo: &mut Vec<f64>, hi: &mut Vec<f64>, couplings: &mut Vec<Coupling>) {
    couplings.clear();
    lo.clear();
    hi.clear();
    lo.extend(
        free.iter()
            .map(|&f| if f { f64::NEG_INFINITY } else { 0.0 }),
    );
    hi.resize(free.len(), f64::INFINITY);
}

/// How far a row is from holding: `|g|` for an equality, `max(-g, 0)` for
/// a gap.
fn violation(free: bool, g: f64) -> f64 {
    if free { g.abs() } else { (-g).max(0.0) }
}

impl Projection {
    pub(crate) fn new(solver: SolverParams, sparse_from: usize) -> Self {
        Self {
            set: RowSet::default(),
            contact_rows: Vec::new(),
            rows: Vec::new(),
            responses: Vec::new(),
            free: Vec::new(),
            errors: Vec::new(),
            delassus: Delassus::default(),
            matrix: Mat::new(),
            offsets: Vec::new(),
            bounds: BoxBounds::unilateral(0),
            solver: Solver::new(solver),
            sparse_from,
            block_pivoting: BlockPivoting::new(BlockPivotingParams {
                max_solves: FACTORED_SOLVES,
                ..BlockPivotingParams::default()
            }),
            factored: FactoredParts::default(),
            solution: LcpSolution::default(),
            states: Vec::new(),
            displacement: Vec::new(),
            islands: Islands::default(),
            local_rows: Vec::new(),
            local_states: Vec::new(),
            local_free: Vec::new(),
        }
    }

    /// Takes the contact gap rows of the velocity step's `set` whose
    /// stabilisation is the projection, with their gaps predicted after a
    /// step of `h` at `velocities`.
    pub(crate) fn carry_contacts(
        &mut self,
        set: &RowSet,
        params: &StabilisationParams,
        velocities: &[Twist],
        h: f64,
    ) {
        self.contact_rows.clear();
        for row in set.rows() {
            if let PositionCondition::Gap {
                gap,
                group: StabilisationGroup::Contact,
            } = row.condition
                && params.projects(row.condition)
            {
                let moved = gap + h * row.jacobian.apply(|body| velocities[body]);
                self.contact_rows.push((row.jacobian, moved));
            }
        }
    }

    /// Takes `contacts`, found at the poses of `states`, as the contact gap
    /// rows: their normal rows and their distances.
    pub(crate) fn carry_detected(&mut self, contacts: &[ContactConstraint], states: &[BodyState]) {
        self.contact_rows.clear();
        self.contact_rows.extend(contacts.iter().map(|c| {
            let row = JacobianRow::relative_velocity(states, c.body_a, c.body_b, c.point, c.normal);
            (row, c.distance)
        }));
    }

    /// Projects `poses` (the bodies' moved poses) onto the constraints that
    /// `emit` re-evaluates and the carried contacts.
    pub(crate) fn project(
        &mut self,
        bodies: &[RigidBody],
        poses: &mut [Pose],
        params: &StabilisationParams,
        mut emit: impl FnMut(&[BodyState], &mut RowSet),
    ) -> Result<ProjectionReport, DynamicsError> {
        let mut report = ProjectionReport::default();
        loop {
            self.states.clear();
            self.states.extend(
                bodies
                    .iter()
                    .zip(poses.iter())
                    .map(|(body, &pose)| BodyState::at_pose(body, pose, 0.0)),
            );
            self.gather(params, &mut emit);
            let error = self.largest_error();
            if report.projections == 0 {
                report.error_before = error;
            }
            report.error_after = error;
            if error <= params.projection_tolerance || report.projections == params.max_projections
            {
                return Ok(report);
            }
            self.displacement.clear();
            self.displacement.resize(poses.len(), Twist::ZERO);
            self.islands.build(poses.len(), &self.rows, false);
            for k in 0..self.islands.count() {
                let rows = self.islands.rows(k);
                let error = rows
                    .iter()
                    .map(|&i| violation(self.free[i], self.errors[i]))
                    .fold(0.0, f64::max);
                if error > params.projection_tolerance {
                    self.solve_island(k)?;
                }
            }
            self.displace(poses);
            report.projections += 1;
        }
    }

    /// The rows and errors at the current states.
    fn gather(
        &mut self,
        params: &StabilisationParams,
        emit: &mut impl FnMut(&[BodyState], &mut RowSet),
    ) {
        self.set.clear();
        emit(&self.states, &mut self.set);
        self.rows.clear();
        self.free.clear();
        self.errors.clear();
        for row in self.set.rows() {
            if !params.projects(row.condition) {
                continue;
            }
            let (free, error) = match row.condition {
                PositionCondition::Equality { error } => (true, error),
                PositionCondition::Gap { gap, .. } => (false, gap),
                PositionCondition::None => continue,
            };
            self.rows.push(row.jacobian);
            self.free.push(free);
            self.errors.push(error);
        }
        for &(jacobian, gap) in &self.contact_rows {
            self.rows.push(jacobian);
            self.free.push(false);
            self.errors.push(gap);
        }
    }

    fn largest_error(&self) -> f64 {
        self.free
            .iter()
            .zip(&self.errors)
            .map(|(&free, &g)| violation(free, g))
            .fold(0.0, f64::max)
    }

    /// Solves island `k`'s `w = J W J' lambda + g` with its rows' bounds,
    /// and adds its `dp = W J' lambda` to the displacement.
    fn solve_island(&mut self, k: usize) -> Result<(), DynamicsError> {
        let islands = &self.islands;
        let (rows, bodies) = (islands.rows(k), islands.bodies(k));
        self.local_rows.clear();
        self.local_rows
            .extend(rows.iter().map(|&i| localised(&self.rows[i], islands)));
        self.local_states.clear();
        self.local_states
            .extend(bodies.iter().map(|&b| self.states[b]));
        self.local_free.clear();
        self.local_free.extend(rows.iter().map(|&i| self.free[i]));
        let n = rows.len();
        if n >= self.sparse_from && self.solve_factored(k).is_ok() {
            self.add_displacement(k);
            return Ok(());
        }
        let rows = self.islands.rows(k);
        self.responses.clear();
        self.responses.extend(
            self.local_rows
                .iter()
                .map(|row| row.responses(&self.local_states)),
        );
        self.matrix.resize_with(n, n, |_, _| 0.0);
        self.matrix.as_mut().fill(0.0);
        self.delassus
            .fill(&self.local_rows, &self.responses, self.matrix.as_mut());
        self.offsets.clear();
        self.offsets.extend(rows.iter().map(|&i| self.errors[i]));
        let free = &self.local_free;
        self.bounds
            .rebuild(|lo, hi, couplings| gap_bounds(free, lo, hi, couplings))
            .map_err(DynamicsError::Projection)?;
        let lcp = Lcp::new(
            std::mem::replace(&mut self.matrix, Mat::new()),
            std::mem::take(&mut self.offsets),
        )
        .map_err(DynamicsError::Projection)?;
        let problem = BoxLcp::with_bounds(
            lcp,
            std::mem::replace(&mut self.bounds, BoxBounds::unilateral(0)),
        )
        .map_err(DynamicsError::Projection)?;
        let solved = self.solver.solve_into(&problem, &mut self.solution);
        let (lcp, bounds) = problem.into_parts();
        (self.matrix, self.offsets) = lcp.into_parts();
        self.bounds = bounds;
        solved.map_err(DynamicsError::Projection)?;
        self.add_displacement(k);
        Ok(())
    }

    /// Island `k`'s problem in factored form, solved by block pivoting from
    /// a cold start (a projection has no memory).
    fn solve_factored(&mut self, k: usize) -> Result<(), LcpError> {
        let rows = self.islands.rows(k);
        let mut parts = std::mem::take(&mut self.factored);
        factored::fill_rows_and_masses(&mut parts, &self.local_rows, &self.local_states);
        parts.compliance.clear();
        parts.compliance.resize(rows.len(), 0.0);
        parts.q.clear();
        parts.q.extend(rows.iter().map(|&i| self.errors[i]));
        let free = &self.local_free;
        parts
            .bounds
            .rebuild(|lo, hi, couplings| gap_bounds(free, lo, hi, couplings))?;
        let problem = FactoredBoxLcp::new(parts)?;
        let solved = self
            .block_pivoting
            .solve_into(&problem, None, &mut self.solution);
        self.factored = problem.into_parts();
        solved
    }

    /// `dp += W J' lambda` of island `k`'s answer.
    fn add_displacement(&mut self, k: usize) {
        let bodies = self.islands.bodies(k);
        for (row, &impulse) in self.local_rows.iter().zip(&self.solution.z) {
            for (block, state) in [row.a, row.b]
                .iter()
                .flatten()
                .map(|b| (b, &self.local_states[b.body]))
            {
                self.displacement[bodies[block.body]] += block.response(state) * impulse;
            }
        }
    }

    /// The displacement applied to the poses; carried contact gaps move by
    /// `J dp`.
    fn displace(&mut self, poses: &mut [Pose]) {
        for (pose, dp) in poses.iter_mut().zip(&self.displacement) {
            if *dp != Twist::ZERO {
                *pose = integrate_pose(pose, dp, 1.0);
            }
        }
        let displacement = &self.displacement;
        for (jacobian, gap) in &mut self.contact_rows {
            *gap += jacobian.apply(|body| displacement[body]);
        }
    }
}
