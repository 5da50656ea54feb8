//! The Anitescu-Potra step problem (Cline 2002, eq. 2.45-2.49) assembled
//! as a pure LCP and solved with Lemke's method.
//!
//! Unknowns per contact c: the normal impulse `cn_c`, the friction-direction
//! impulses `beta_c` (k of them) and the auxiliary `lambda_c` of eq. 2.47-2.48
//! (the sliding speed when sliding). With `W = M^-1`, `N`/`D` the normal and
//! friction Jacobian rows and the free-flight velocity
//! `v* = v + h W (f_ext - w x I w)` (gravity and the gyroscopic term of
//! Cline eq. 2.16, explicit), the end-of-step velocity is
//! `v+ = v* + W (N' cn + D' beta)` and the LCP is
//!
//! ```text
//! [ N W N'   N W D'   0 ] [cn    ]   [ N v* + phi/h ]
//! [ D W N'   D W D'   E ] [beta  ] + [ D v*         ]  = w >= 0, z >= 0, z'w = 0
//! [ mu       -E'      0 ] [lambda]   [ 0            ]
//! ```
//!
//! `E` is block diagonal with a column of ones per contact. The first row
//! block is "no approach faster than closes the gap `phi` in one step"
//! (Stewart-Trinkle's distance term, which keeps polytopes from
//! interpenetrating); penetration already present (phi < 0) is removed at the
//! rate `error_reduction`. The matrix is copositive-plus, so Lemke's method
//! always finds a solution (Anitescu and Potra 1997).
//!
//! [`Formulation::BoxFriction`] trades the polyhedral cone for the bounded
//! form that ODE and Bullet solve: per contact the normal impulse
//! `cn >= 0` and two tangent impulses `f_1, f_2` along `t1, t2` with
//! `-mu cn <= f_i <= mu cn` (a square approximation of the cone, sides
//! along the tangents). The matrix is `J W J'` itself (symmetric, positive
//! semidefinite), `q = J v*` plus the same gap term, and a friction row at
//! its upper bound has `w <= 0`: the tangential velocity opposes the
//! friction impulse, as Coulomb's law requires. Solved by the solver
//! policy of `contact_lcp`: Dantzig principal pivoting (Baraff 1994, sec. 4,
//! with its guess of the coupled problem) and Lemke's method on the bounded
//! problem's standard form (Stewart & Trinkle's friction LCP, which Lemke
//! always finishes), Dantzig first, with projected
//! Gauss-Seidel (Preda & Florian 2005, Algorithm 1) as the fail-safe when
//! both fail or their answers do not certify (Preda & Florian, sec. 4).

use contact_lcp::faer::{Mat, MatRef};
use contact_lcp::{BoxBounds, BoxLcp, Coupling, Lcp, LcpSolution, Lemke, Solver};
use contact_math::{Twist, gyroscopic_torque};
use glam::DVec3;

use super::delassus::Delassus;
use crate::friction_cone::friction_directions;
use crate::{
    ContactConstraint, DynamicsError, Formulation, JacobianRow, RigidBody, StepSolution,
    TimeSteppingParams,
};

/// Solves the contact problem of one velocity-level time step.
///
/// Owns its workspace (Jacobian rows, the LCP's matrix and vectors, the
/// Lemke solver), so a second solve of the same size allocates nothing.
#[derive(Debug)]
pub struct TimeStepping {
    params: TimeSteppingParams,
    lemke: Lemke,
    /// Rows: `nc` normal rows, then `k` friction rows per contact.
    rows: Vec<JacobianRow>,
    /// `W J'` for each row, per block (a, b).
    responses: Vec<[Twist; 2]>,
    /// Assembles `J W J'` from `rows` and `responses`.
    delassus: Delassus,
    /// Friction directions, `k` per contact.
    directions: Vec<DVec3>,
    scratch_directions: Vec<DVec3>,
    matrix: Mat<f64>,
    offsets: Vec<f64>,
    lcp_solution: LcpSolution,
    /// Tangent directions per contact in this step's rows.
    tangents: usize,
    /// Box formulation: its bounds (rebuilt in place every step) and the
    /// solver policy (Dantzig, then projected Gauss-Seidel).
    bounds: BoxBounds,
    box_solver: Solver,
}

impl TimeStepping {
    /// A stepper with the given settings.
    #[must_use]
    pub fn new(params: TimeSteppingParams) -> Self {
        Self {
            params,
            lemke: Lemke::new(params.lcp),
            rows: Vec::new(),
            responses: Vec::new(),
            delassus: Delassus::default(),
            directions: Vec::new(),
            scratch_directions: Vec::new(),
            matrix: Mat::new(),
            offsets: Vec::new(),
            lcp_solution: LcpSolution::default(),
            tangents: 0,
            bounds: BoxBounds::unilateral(0),
            box_solver: Solver::new(params.box_solver),
        }
    }

    /// The settings in use.
    #[must_use]
    pub fn params(&self) -> &TimeSteppingParams {
        &self.params
    }

    /// The LCP `(M, q)` of the last call to [`solve`](Self::solve) that had
    /// contacts, as assembled (empty before the first one): for inspection,
    /// fixtures and benchmarks of the solvers on real contact problems.
    #[must_use]
    pub fn last_problem(&self) -> (MatRef<'_, f64>, &[f64]) {
        (self.matrix.as_ref(), &self.offsets)
    }

    /// The bounds of the last box-friction solve
    /// ([`Formulation::BoxFriction`](crate::Formulation::BoxFriction)),
    /// rows as in [`last_problem`](Self::last_problem): the normal rows in
    /// `[0, inf)`, then two tangent rows per contact coupled to its normal
    /// row with the contact's friction coefficient. Empty before the first
    /// such solve; the LCP formulation does not touch it. Callers that turn
    /// the last problem into a box LCP take the layout from here rather than
    /// rebuild it.
    #[must_use]
    pub fn last_box_bounds(&self) -> &BoxBounds {
        &self.bounds
    }

    /// Computes the end-of-step velocities and the contact impulses for
    /// `bodies` with `contacts`, under `gravity` (m/s^2) over a step of `h`
    /// seconds, into `out`. Positions are not changed: integrating them is
    /// the caller's (the world's) job.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidParameter`] for a bad `h`, `gravity` or
    /// setting, [`DynamicsError::NonFiniteState`], [`DynamicsError::InvalidContact`],
    /// and [`DynamicsError::Lcp`] if the solver gives up (pivot limit).
    pub fn solve(
        &mut self,
        bodies: &[RigidBody],
        contacts: &[ContactConstraint],
        gravity: DVec3,
        h: f64,
        out: &mut StepSolution,
    ) -> Result<(), DynamicsError> {
        self.params.validate()?;
        if !(h.is_finite() && h > 0.0) {
            return Err(DynamicsError::InvalidParameter {
                name: "h",
                value: h,
            });
        }
        if let Some(axis) = (0..3).find(|&axis| !gravity[axis].is_finite()) {
            return Err(DynamicsError::InvalidParameter {
                name: "gravity",
                value: gravity[axis],
            });
        }
        if let Some(body) = bodies.iter().position(|b| !b.is_finite()) {
            return Err(DynamicsError::NonFiniteState { body });
        }
        for (contact, constraint) in contacts.iter().enumerate() {
            constraint
                .check(bodies.len())
                .map_err(|reason| DynamicsError::InvalidContact { contact, reason })?;
        }

        free_flight_velocities(bodies, gravity, h, &mut out.velocities);
        out.normal_impulses.clear();
        out.friction_impulses.clear();
        out.pivots = 0;
        out.lcp_report = Default::default();
        if contacts.is_empty() {
            return Ok(());
        }

        self.tangents = match self.params.formulation {
            Formulation::Complementarity => self.params.friction_directions,
            Formulation::BoxFriction => 2,
        };
        self.build_rows(bodies, contacts);
        match self.params.formulation {
            Formulation::Complementarity => {
                self.assemble_complementarity(contacts, &out.velocities, h);
                let lcp = Lcp::new(
                    std::mem::replace(&mut self.matrix, Mat::new()),
                    std::mem::take(&mut self.offsets),
                )?;
                let solved = self.lemke.solve_into(&lcp, &mut self.lcp_solution);
                (self.matrix, self.offsets) = lcp.into_parts();
                solved?;
            }
            Formulation::BoxFriction => self.solve_box(contacts, &out.velocities, h)?,
        }
        self.apply_impulses(contacts.len(), out);
        Ok(())
    }

    /// Normal rows first, then `self.tangents` friction rows per contact
    /// (the first directions of the `k`-direction cone: `t1, t2` for the box
    /// formulation), with their `W J'` responses.
    fn build_rows(&mut self, bodies: &[RigidBody], contacts: &[ContactConstraint]) {
        let k = self.params.friction_directions;
        let tangents = self.tangents;
        self.rows.clear();
        self.directions.clear();
        for c in contacts {
            self.rows.push(JacobianRow::relative_velocity(
                bodies, c.body_a, c.body_b, c.point, c.normal,
            ));
        }
        for c in contacts {
            friction_directions(c.normal, k, &mut self.scratch_directions);
            for &direction in &self.scratch_directions[..tangents] {
                self.rows.push(JacobianRow::relative_velocity(
                    bodies, c.body_a, c.body_b, c.point, direction,
                ));
                self.directions.push(direction);
            }
        }
        self.responses.clear();
        for row in &self.rows {
            let response = |block: Option<&crate::BodyJacobian>| match block {
                Some(block) => {
                    let (inv_mass, inv_inertia) = bodies[block.body].inverse_mass_blocks();
                    block.response(inv_mass, inv_inertia)
                }
                None => Twist::ZERO,
            };
            self.responses
                .push([response(row.a.as_ref()), response(row.b.as_ref())]);
        }
    }

    /// Sizes the matrix to `n` and fills its top-left block with `J W J'`
    /// (only rows sharing a dynamic body couple), the rest with zeros; fills
    /// the offsets with `J v*` plus the gap term on the normal rows.
    fn fill_common(
        &mut self,
        n: usize,
        contacts: &[ContactConstraint],
        free_velocities: &[Twist],
        h: f64,
    ) {
        self.matrix.resize_with(n, n, |_, _| 0.0);
        self.matrix.as_mut().fill(0.0);
        self.delassus
            .fill(&self.rows, &self.responses, self.matrix.as_mut());
        self.offsets.clear();
        self.offsets.resize(n, 0.0);
        for (i, row) in self.rows.iter().enumerate() {
            self.offsets[i] = row.apply(|body| free_velocities[body]);
        }
        for (c, contact) in contacts.iter().enumerate() {
            let gap = if contact.distance >= 0.0 {
                contact.distance
            } else {
                self.params.error_reduction * contact.distance
            };
            self.offsets[c] += gap / h;
        }
    }

    /// Fills the LCP of the module comment (Cline eq. 2.49).
    fn assemble_complementarity(
        &mut self,
        contacts: &[ContactConstraint],
        free_velocities: &[Twist],
        h: f64,
    ) {
        let nc = contacts.len();
        let k = self.tangents;
        let rows = self.rows.len(); // nc * (k + 1)
        self.fill_common(rows + nc, contacts, free_velocities, h);
        // E, -E' and mu (eq. 2.47-2.49).
        for (c, contact) in contacts.iter().enumerate() {
            let lambda = rows + c;
            self.matrix[(lambda, c)] = contact.friction;
            for d in 0..k {
                let beta = nc + c * k + d;
                self.matrix[(beta, lambda)] = 1.0;
                self.matrix[(lambda, beta)] = -1.0;
            }
        }
    }

    /// Assembles and solves the bounded-friction problem of the module
    /// comment: Dantzig pivoting, projected Gauss-Seidel if it fails.
    fn solve_box(
        &mut self,
        contacts: &[ContactConstraint],
        free_velocities: &[Twist],
        h: f64,
    ) -> Result<(), DynamicsError> {
        let nc = contacts.len();
        let rows = self.rows.len(); // nc * 3
        self.fill_common(rows, contacts, free_velocities, h);
        self.bounds.rebuild(|lo, hi, couplings| {
            lo.clear();
            hi.clear();
            couplings.clear();
            lo.resize(rows, 0.0);
            hi.resize(rows, f64::INFINITY);
            for (c, contact) in contacts.iter().enumerate() {
                for d in 0..2 {
                    let row = nc + 2 * c + d;
                    // Placeholders: a coupled row's bounds follow mu * cn.
                    (lo[row], hi[row]) = (f64::NEG_INFINITY, f64::INFINITY);
                    couplings.push(Coupling {
                        row,
                        normal_row: c,
                        mu: contact.friction,
                    });
                }
            }
        })?;
        let lcp = Lcp::new(
            std::mem::replace(&mut self.matrix, Mat::new()),
            std::mem::take(&mut self.offsets),
        )?;
        let problem = BoxLcp::with_bounds(
            lcp,
            std::mem::replace(&mut self.bounds, BoxBounds::unilateral(0)),
        )?;
        let solved = self.box_solver.solve_into(&problem, &mut self.lcp_solution);
        let (lcp, bounds) = problem.into_parts();
        (self.matrix, self.offsets) = lcp.into_parts();
        self.bounds = bounds;
        solved?;
        Ok(())
    }

    /// `v+ = v* + W J' z`, and the impulses per contact.
    fn apply_impulses(&mut self, nc: usize, out: &mut StepSolution) {
        let k = self.tangents;
        let z = &self.lcp_solution.z;
        for ((row, response), &impulse) in self.rows.iter().zip(&self.responses).zip(z) {
            if impulse == 0.0 {
                continue;
            }
            for (block, change) in [row.a, row.b].iter().zip(response) {
                if let Some(block) = block {
                    out.velocities[block.body] += *change * impulse;
                }
            }
        }
        out.normal_impulses.extend_from_slice(&z[..nc]);
        for c in 0..nc {
            let range = nc + c * k..nc + (c + 1) * k;
            let impulse = z[range.clone()]
                .iter()
                .zip(&self.directions[c * k..(c + 1) * k])
                .map(|(&beta, &direction)| beta * direction)
                .fold(DVec3::ZERO, |sum, term| sum + term);
            out.friction_impulses.push(impulse);
        }
        out.pivots = self.lcp_solution.pivots;
        out.lcp_report = self.lcp_solution.report;
    }
}

/// `v* = v + h W (f_ext - w x I w)` for dynamic bodies, zero for fixed ones
/// (Cline eq. 2.16 for the gyroscopic term, explicit over the step).
fn free_flight_velocities(bodies: &[RigidBody], gravity: DVec3, h: f64, out: &mut Vec<Twist>) {
    out.clear();
    out.extend(bodies.iter().map(|body| match body.mass_properties() {
        Some(mass) => {
            let inertia = mass.world_inertia(body.pose.rotation);
            let inv_inertia = mass.world_inv_inertia(body.pose.rotation);
            let w = body.twist.angular;
            let torque = -gyroscopic_torque(inertia, w);
            Twist::new(
                body.twist.linear + h * gravity,
                w + h * (inv_inertia * torque),
            )
        }
        None => Twist::ZERO,
    }));
}
