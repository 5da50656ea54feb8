//! One velocity-level time step (Cline 2002, sec. 4.1, the simulator loop;
//! sec. 2.7.3 for the step problem):
//!
//! 1. free flight: `v* = v + W (h (f_ext - w x I w - C v) + p)` with `W`
//!    the inverse of the step's mass matrix `M + h C` (damping `C` taken
//!    implicitly, `body_state.rs`), `f_ext` gravity, the bodies' applied
//!    loads and the explicit force elements, `p` the applied impulses;
//! 2. rows: every contact, joint, planar lock and implicit spring emits its
//!    constraint rows (`constraints/`);
//! 3. the rows are split into islands (`islands.rs`: connected components
//!    of the moving bodies), and each island's step problem
//!    (`formulation/`), solved on its own and in parallel, gives its row
//!    impulses and `u+ = v* + W J' lambda` for its bodies;
//! 4. positions move with `u+` (semi-implicit: translation `h u+`, rotation
//!    by the exact exponential map);
//! 5. post-stabilisation projects the positions back onto the constraints
//!    that ask for it (`stabilisation/post.rs`);
//! 6. the result is checked finite, and reactions are read off the rows.
//!
//! Nothing of the caller's state is changed: the result is in the
//! [`StepSolution`], to be committed by the caller.

use contact_lcp::faer::MatRef;
use contact_lcp::{BoxBounds, LcpError, LcpSolution};
use contact_math::{Pose, Twist, Wrench, gyroscopic_torque, integrate_pose};
use glam::DVec3;

use rayon::prelude::*;

use super::islands::{Islands, NONE, localised};
use super::isotropic_friction::{realign, sliding_tangents};
use super::restitution::{PendingBounces, StepTwists};
use crate::constraints::{ConstraintRef, EmitRows, RowBounds, RowSet};
use crate::formulation::{VelocityProblem, WarmEntry};
use crate::friction_cone::tangent_pair;
use crate::stabilisation::post::Projection;
use crate::{
    BodyState, ContactConstraint, DynamicsError, ForceElement, JacobianRow, Joint, JointReaction,
    ProjectionReport, RigidBody, Stabilisation, StepMemory, StepSolution, TimeSteppingParams,
};

/// Everything one step acts on.
#[derive(Clone, Copy, Debug)]
pub struct StepInput<'a> {
    /// The bodies, indexed by every constraint.
    pub bodies: &'a [RigidBody],
    /// The contacts found for this step.
    pub contacts: &'a [ContactConstraint],
    /// The joints.
    pub joints: &'a [Joint],
    /// The persistent force elements.
    pub forces: &'a [ForceElement],
    /// Gravitational acceleration (m/s^2).
    pub gravity: DVec3,
    /// Simulated time at the start of the step (s), for time-dependent forces.
    pub time: f64,
}

impl<'a> StepInput<'a> {
    /// Bodies and contacts under gravity, with no joints or force elements,
    /// at time 0.
    #[must_use]
    pub fn contacts_only(
        bodies: &'a [RigidBody],
        contacts: &'a [ContactConstraint],
        gravity: DVec3,
    ) -> Self {
        Self {
            bodies,
            contacts,
            joints: &[],
            forces: &[],
            gravity,
            time: 0.0,
        }
    }
}

/// Takes velocity-level time steps of a set of bodies and constraints.
///
/// Owns its workspace (rows, the step problem, its solvers, the
/// projection), so a second step of the same shape allocates nothing.
#[derive(Debug)]
pub struct TimeStepping {
    params: TimeSteppingParams,
    states: Vec<BodyState>,
    wrenches: Vec<Wrench>,
    /// The step's rows' Jacobians, for the island partition.
    jacobians: Vec<JacobianRow>,
    islands: Islands,
    /// One workspace per island (grown to the most islands seen).
    workspaces: Vec<IslandWorkspace>,
    /// Active sets of the last step per constraint key and row, sorted.
    warm: Vec<WarmEntry>,
    /// Impacts to resolve in the next step.
    bounces: PendingBounces,
    /// The free-flight twists of the step.
    free: Vec<Twist>,
    /// Each contact's tangents for this step.
    tangents: Vec<(DVec3, DVec3)>,
    projection: Projection,
}

/// One island's problem: its rows with island-local body indices, its
/// bodies' states and velocities, and its solver.
#[derive(Debug)]
struct IslandWorkspace {
    set: RowSet,
    /// The global index of each of `set`'s rows.
    global_rows: Vec<usize>,
    states: Vec<BodyState>,
    velocities: Vec<Twist>,
    impulses: Vec<f64>,
    problem: VelocityProblem,
    result: Result<(), LcpError>,
}

impl IslandWorkspace {
    fn new(params: &TimeSteppingParams) -> Self {
        Self {
            set: RowSet::default(),
            global_rows: Vec::new(),
            states: Vec::new(),
            velocities: Vec::new(),
            impulses: Vec::new(),
            problem: VelocityProblem::new(params),
            result: Ok(()),
        }
    }

    fn solve(&mut self, params: &TimeSteppingParams, h: f64, warm: &[WarmEntry]) {
        self.result = self.problem.solve(
            params,
            &self.set,
            &self.states,
            h,
            warm,
            &mut self.velocities,
            &mut self.impulses,
        );
    }
}

impl TimeStepping {
    /// A stepper with the given settings.
    #[must_use]
    pub fn new(params: TimeSteppingParams) -> Self {
        Self {
            params,
            states: Vec::new(),
            wrenches: Vec::new(),
            jacobians: Vec::new(),
            islands: Islands::default(),
            workspaces: Vec::new(),
            warm: Vec::new(),
            bounces: PendingBounces::default(),
            free: Vec::new(),
            tangents: Vec::new(),
            projection: Projection::new(params.box_solver, params.sparse_from),
        }
    }

    /// The settings in use.
    #[must_use]
    pub fn params(&self) -> &TimeSteppingParams {
        &self.params
    }

    /// What the stepper carries into its next step (pending impacts, warm
    /// starts): with the bodies, everything a restored simulation needs to
    /// continue bit for bit (see [`StepMemory`]).
    #[must_use]
    pub fn memory(&self) -> StepMemory {
        StepMemory {
            pending_bounces: self.bounces.pending().to_vec(),
            active_sets: self.warm.clone(),
        }
    }

    /// Replaces what the stepper carries into its next step by `memory`
    /// (from [`TimeStepping::memory`] of a stepper with the same settings
    /// and bodies).
    ///
    /// # Errors
    /// [`DynamicsError::InvalidMemory`] when a list is out of order or a
    /// speed is negative or not finite; the stepper is then unchanged.
    pub fn restore_memory(&mut self, memory: &StepMemory) -> Result<(), DynamicsError> {
        memory.validate()?;
        self.bounces.set_pending(&memory.pending_bounces);
        self.warm.clone_from(&memory.active_sets);
        Ok(())
    }

    /// The number of islands of the last step.
    #[must_use]
    pub fn last_island_count(&self) -> usize {
        self.islands.count()
    }

    /// The LCP `(M, q)` of island `island` of the last step, as assembled:
    /// for inspection, fixtures and benchmarks of the solvers on real
    /// contact problems (with `TimeSteppingParams::islands` off, island 0
    /// is the whole scene).
    ///
    /// # Panics
    /// When the last step had no such island.
    #[must_use]
    #[track_caller]
    pub fn last_problem(&mut self, island: usize) -> (MatRef<'_, f64>, &[f64]) {
        assert!(island < self.islands.count(), "no island {island}");
        self.workspaces[island].problem.last_problem()
    }

    /// The bounds of island `island`'s last step problem, rows as in
    /// [`last_problem`](Self::last_problem): for the box formulation, the
    /// normal rows in `[0, inf)`, then two tangent rows per contact coupled
    /// to its normal row with the contact's friction coefficient.
    ///
    /// # Panics
    /// When the last step had no such island.
    #[must_use]
    #[track_caller]
    pub fn last_box_bounds(&self, island: usize) -> &BoxBounds {
        assert!(island < self.islands.count(), "no island {island}");
        self.workspaces[island].problem.last_bounds()
    }

    /// The solver's answer to island `island`'s last step problem.
    ///
    /// # Panics
    /// When the last step had no such island.
    #[must_use]
    #[track_caller]
    pub fn last_lcp_solution(&self, island: usize) -> &LcpSolution {
        assert!(island < self.islands.count(), "no island {island}");
        self.workspaces[island].problem.last_solution()
    }

    /// Takes one step of `h` seconds from `input` into `out`: end-of-step
    /// velocities and poses, impulses and reactions. The input is not
    /// changed; committing `out` is the caller's job.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidParameter`] for a bad `h`, `gravity`, time or
    /// setting; [`DynamicsError::NonFiniteState`],
    /// [`DynamicsError::NonUnitRotation`] or [`DynamicsError::NonFiniteLoad`]
    /// for a bad body; [`DynamicsError::InvalidContact`],
    /// [`DynamicsError::InvalidJoint`] or [`DynamicsError::InvalidForce`] for
    /// a bad constraint; [`DynamicsError::IslandSolve`] (naming the island
    /// and the solver, with its best iterate) or
    /// [`DynamicsError::Projection`] when a solver gives up;
    /// [`DynamicsError::NonFiniteResult`] when the step would leave a
    /// non-finite state.
    pub fn step(
        &mut self,
        input: &StepInput<'_>,
        h: f64,
        out: &mut StepSolution,
    ) -> Result<(), DynamicsError> {
        self.validate(input, h)?;
        let bodies = input.bodies;
        self.states.clear();
        for (i, body) in bodies.iter().enumerate() {
            self.states.push(BodyState::of(body, i, h)?);
        }
        self.free_flight(input, h, &mut out.velocities);
        self.free.clone_from(&out.velocities);
        if self.params.isotropic_friction {
            sliding_tangents(input.contacts, &self.states, &self.free, &mut self.tangents);
        } else {
            self.tangents.clear();
            self.tangents
                .extend(input.contacts.iter().map(|c| tangent_pair(c.normal)));
        }
        for pass in 1.. {
            self.emit_rows(input, h, &mut out.rows);
            out.velocities.clone_from(&self.free);
            self.solve_islands(h, out)?;
            if !self.params.isotropic_friction
                || pass == self.params.max_friction_passes
                || !realign(
                    input.contacts,
                    &out.rows,
                    &out.row_impulses,
                    &out.velocities,
                    &mut self.tangents,
                )
            {
                break;
            }
        }
        let twists = StepTwists {
            start: &self.states,
            free: &self.free,
            end: &out.velocities,
        };
        self.bounces.record(
            input.contacts,
            &out.rows,
            &twists,
            h,
            self.params.restitution_threshold,
        );

        out.poses.clear();
        out.poses.extend(
            self.states
                .iter()
                .zip(&out.velocities)
                .map(|(state, twist)| {
                    if state.dynamic {
                        integrate_pose(&state.pose, twist, h)
                    } else {
                        state.pose
                    }
                }),
        );
        out.projection = Default::default();
        let stabilisation = self.params.stabilisation;
        if out
            .rows
            .rows()
            .iter()
            .any(|row| stabilisation.projects(row.condition))
        {
            self.projection
                .carry_contacts(&out.rows, &stabilisation, &out.velocities, h);
            out.projection = self.projection.project(
                bodies,
                &mut out.poses,
                &stabilisation,
                |states, set| emit_reevaluated(input, states, h, set),
            )?;
        }
        if let Some(body) = (0..bodies.len())
            .find(|&i| !(out.poses[i].is_finite() && out.velocities[i].is_finite()))
        {
            return Err(DynamicsError::NonFiniteResult { body });
        }
        self.read_reactions(input, h, out);
        Ok(())
    }

    /// Splits the rows into islands, solves each (in parallel when there are
    /// several), and gathers the velocities, row impulses and certificate.
    fn solve_islands(&mut self, h: f64, out: &mut StepSolution) -> Result<(), DynamicsError> {
        let set = &out.rows;
        self.jacobians.clear();
        self.jacobians
            .extend(set.rows().iter().map(|row| row.jacobian));
        self.islands
            .build(self.states.len(), &self.jacobians, !self.params.islands);
        let count = self.islands.count();
        while self.workspaces.len() < count {
            self.workspaces.push(IslandWorkspace::new(&self.params));
        }
        for (k, workspace) in self.workspaces[..count].iter_mut().enumerate() {
            load_island(
                &self.islands,
                k,
                set,
                &self.states,
                &out.velocities,
                workspace,
            );
        }
        let (params, warm) = (&self.params, self.warm.as_slice());
        if count > 1 {
            self.workspaces[..count]
                .par_iter_mut()
                .for_each(|workspace| workspace.solve(params, h, warm));
        } else if let Some(workspace) = self.workspaces.first_mut().filter(|_| count == 1) {
            workspace.solve(params, h, warm);
        }
        out.row_impulses.clear();
        out.row_impulses.resize(set.len(), 0.0);
        (out.pivots, out.lcp_report) = (0, Default::default());
        for (k, workspace) in self.workspaces[..count].iter_mut().enumerate() {
            if let Err(source) = std::mem::replace(&mut workspace.result, Ok(())) {
                return Err(DynamicsError::IslandSolve {
                    island: k,
                    bodies: workspace.states.len(),
                    rows: workspace.set.len(),
                    formulation: self.params.formulation,
                    solver: workspace.problem.failed_solver(),
                    source,
                });
            }
            for (&body, &twist) in self.islands.bodies(k).iter().zip(&workspace.velocities) {
                out.velocities[body] = twist;
            }
            for (&row, &impulse) in workspace.global_rows.iter().zip(&workspace.impulses) {
                out.row_impulses[row] = impulse;
            }
            let solution = workspace.problem.last_solution();
            out.pivots += solution.pivots;
            // The least certain island's certificate stands for the step.
            if k == 0 || solution.report.scaled_max() > out.lcp_report.scaled_max() {
                out.lcp_report = solution.report;
            }
        }
        self.warm.clear();
        for workspace in &self.workspaces[..count] {
            self.warm.extend_from_slice(&workspace.problem.remembered);
        }
        self.warm
            .sort_unstable_by_key(|&(key, offset, _, _)| (key, offset));
        Ok(())
    }

    /// Post-stabilisation against the contacts of the poses a step arrived
    /// at: `input.contacts` were found with the bodies at `poses` (by the
    /// caller's collision pass, with exact distances), and `poses` are
    /// projected so that none penetrates beyond the projection tolerance
    /// while the joints and planar locks of `input` keep holding (Cline
    /// eq. 3.7 on fresh geometry). Velocities are untouched. Does nothing
    /// unless contacts are post-stabilised.
    ///
    /// # Errors
    /// [`DynamicsError::Projection`] when the projection cannot be solved.
    pub fn project_positions(
        &mut self,
        input: &StepInput<'_>,
        poses: &mut [Pose],
    ) -> Result<ProjectionReport, DynamicsError> {
        let stabilisation = self.params.stabilisation;
        if stabilisation.contacts != Stabilisation::Post {
            return Ok(ProjectionReport::default());
        }
        self.states.clear();
        self.states.extend(
            input
                .bodies
                .iter()
                .zip(poses.iter())
                .map(|(body, &pose)| BodyState::at_pose(body, pose, 0.0)),
        );
        self.projection.carry_detected(input.contacts, &self.states);
        self.projection
            .project(input.bodies, poses, &stabilisation, |states, set| {
                emit_reevaluated(input, states, 1.0, set)
            })
    }

    /// Checks the settings, `h`, gravity, time, loads and constraints.
    fn validate(&self, input: &StepInput<'_>, h: f64) -> Result<(), DynamicsError> {
        self.params.validate()?;
        if !(h.is_finite() && h > 0.0) {
            return Err(DynamicsError::InvalidParameter {
                name: "h",
                value: h,
            });
        }
        if let Some(axis) = (0..3).find(|&axis| !input.gravity[axis].is_finite()) {
            return Err(DynamicsError::InvalidParameter {
                name: "gravity",
                value: input.gravity[axis],
            });
        }
        if !input.time.is_finite() {
            return Err(DynamicsError::InvalidParameter {
                name: "time",
                value: input.time,
            });
        }
        let bodies = input.bodies;
        if let Some(body) = bodies.iter().position(|b| !b.applied_loads().is_finite()) {
            return Err(DynamicsError::NonFiniteLoad { body });
        }
        for (contact, constraint) in input.contacts.iter().enumerate() {
            constraint
                .check(bodies.len())
                .map_err(|reason| DynamicsError::InvalidContact { contact, reason })?;
        }
        for (index, joint) in input.joints.iter().enumerate() {
            joint.validate(index, bodies)?;
        }
        for (index, element) in input.forces.iter().enumerate() {
            element.validate(index, bodies)?;
        }
        Ok(())
    }

    /// `v* = v + h W (f - w x I w - C v) + W p` for dynamic bodies, zero for
    /// fixed ones (Cline eq. 2.16 for the gyroscopic term; gravity enters as
    /// `h g` exactly).
    fn free_flight(&mut self, input: &StepInput<'_>, h: f64, out: &mut Vec<Twist>) {
        self.wrenches.clear();
        self.wrenches.resize(input.bodies.len(), Wrench::ZERO);
        for element in input.forces {
            element.add_explicit(&self.states, input.time, &mut self.wrenches);
        }
        out.clear();
        out.extend(
            input
                .bodies
                .iter()
                .zip(&self.states)
                .zip(&self.wrenches)
                .map(|((body, state), wrench)| {
                    let Some(mass) = body.mass_properties() else {
                        return Twist::ZERO;
                    };
                    let loads = body.applied_loads();
                    let (linear_damping, angular_damping) = body.damping();
                    let (v, w) = (state.twist.linear, state.twist.angular);
                    let inertia = mass.world_inertia(state.pose.rotation);
                    let force = loads.force + wrench.force - linear_damping * v;
                    let torque = loads.torque + wrench.torque
                        - gyroscopic_torque(inertia, w)
                        - angular_damping * w;
                    Twist::new(
                        v + h * input.gravity + state.inv_mass * (h * force + loads.linear_impulse),
                        w + h * (state.inv_inertia * torque)
                            + state.inv_inertia * loads.angular_impulse,
                    )
                }),
        );
    }

    /// The rows of every constraint of the step.
    fn emit_rows(&self, input: &StepInput<'_>, h: f64, set: &mut RowSet) {
        set.clear();
        for (i, contact) in input.contacts.iter().enumerate() {
            set.begin(ConstraintRef::Contact(i), contact.key());
            let normal = set.len();
            contact.emit_rows_along(self.tangents[i], &self.states, set);
            let row = set.row_mut(normal);
            let approach = row.jacobian.apply(|b| self.states[b].twist);
            row.velocity_target =
                self.bounces
                    .target(contact, approach, self.params.restitution_threshold);
        }
        emit_reevaluated(input, &self.states, h, set);
        for (i, element) in input.forces.iter().enumerate() {
            if let Some(spring) = element.implicit_spring() {
                set.begin(ConstraintRef::ForceElement(i), key(3, i));
                spring.emit_rows(&self.states, h, set);
            }
        }
    }

    /// Contact impulses and joint reactions from the row impulses.
    fn read_reactions(&self, input: &StepInput<'_>, h: f64, out: &mut StepSolution) {
        out.normal_impulses.clear();
        out.friction_impulses.clear();
        out.joint_reactions.clear();
        out.joint_reactions
            .resize(input.joints.len(), JointReaction::default());
        let rows = out.rows.rows();
        for owner in out.rows.owners() {
            let impulses = &out.row_impulses[owner.rows.clone()];
            match owner.constraint {
                ConstraintRef::Contact(c) => {
                    let (t1, t2) = self.tangents[c];
                    out.normal_impulses.push(impulses[0]);
                    out.friction_impulses
                        .push(impulses[1] * t1 + impulses[2] * t2);
                }
                ConstraintRef::Joint(j) => {
                    out.joint_reactions[j] = input.joints[j].reaction(
                        &self.states,
                        &rows[owner.rows.clone()],
                        impulses,
                        h,
                    );
                }
                ConstraintRef::PlanarLock(_) | ConstraintRef::ForceElement(_) => {}
            }
        }
    }
}

/// Fills `workspace` with island `k`'s rows (bodies renumbered within the
/// island, friction rows pointing at their normal's new index), its
/// bodies' states and free-flight velocities.
fn load_island(
    islands: &Islands,
    k: usize,
    set: &RowSet,
    states: &[BodyState],
    velocities: &[Twist],
    workspace: &mut IslandWorkspace,
) {
    let bodies = islands.bodies(k);
    workspace.states.clear();
    workspace.states.extend(bodies.iter().map(|&b| states[b]));
    workspace.velocities.clear();
    workspace
        .velocities
        .extend(bodies.iter().map(|&b| velocities[b]));
    workspace.set.clear();
    workspace.global_rows.clear();
    let rows = set.rows();
    for owner in set.owners() {
        if owner.rows.is_empty() || islands.island_of_row(owner.rows.start) != k {
            continue;
        }
        let first_local = workspace.set.len();
        workspace.set.begin(owner.constraint, owner.key);
        for i in owner.rows.clone() {
            let mut row = rows[i];
            row.jacobian = localised(&row.jacobian, islands);
            if let RowBounds::Friction { normal, mu } = row.bounds {
                row.bounds = RowBounds::Friction {
                    normal: normal - owner.rows.start + first_local,
                    mu,
                };
            }
            workspace.set.push(row);
            workspace.global_rows.push(i);
        }
    }
    debug_assert!(
        workspace
            .global_rows
            .iter()
            .all(|&i| islands.island_of_row(i) != NONE)
    );
}

/// The rows re-evaluated at moved positions: joints and planar locks, each
/// after its `begin`.
fn emit_reevaluated(input: &StepInput<'_>, states: &[BodyState], h: f64, set: &mut RowSet) {
    for (j, joint) in input.joints.iter().enumerate() {
        set.begin(ConstraintRef::Joint(j), key(1, j));
        joint.emit_rows(states, h, set);
    }
    for (i, body) in input.bodies.iter().enumerate() {
        if let Some(lock) = body.planar_lock(i)
            && body.is_dynamic()
        {
            set.begin(ConstraintRef::PlanarLock(i), key(2, i));
            lock.emit_rows(states, h, set);
        }
    }
}

/// The warm-start key of constraint `index` of a kind other than contacts.
fn key(kind: u64, index: usize) -> u64 {
    crate::constraints::contact::mix(kind << 56 ^ index as u64)
}
