//! Fixed time stepping (Cline 2002, sec. 4.1, the simulator loop):
//! detect contacts within a margin, take the dynamics layer's step (the
//! Anitescu-Potra step problem of every constraint's rows, positions moved
//! with the new velocities, stabilisation), then commit it to the world.

use contact_dynamics::{
    ContactConstraint, StepInput, StepMemory, StepSolution, TimeStepping, TimeSteppingParams,
};

use super::carried_contacts::CarriedContacts;
use crate::{CollisionPass, SimError, World};

/// Settings of [`FixedStepper`].
#[derive(Clone, Copy, Debug)]
pub struct FixedStepParams {
    /// Step length (s, > 0; default 1/240). Contact is resolved exactly at
    /// any step; smaller steps resolve fast motion and rotation better.
    pub h: f64,
    /// Distance (m, >= 0; default 0.01) within which a pair's points become
    /// contact constraints, on top of the distance the pair can close in
    /// the step (speculative contacts, see `collision.rs`). A gap inside
    /// the margin only limits how fast the bodies can close it, so a
    /// generous margin costs LCP size, not accuracy.
    pub contact_margin: f64,
    /// Settings of the step problem and its solver.
    pub dynamics: TimeSteppingParams,
}

impl Default for FixedStepParams {
    fn default() -> Self {
        Self {
            h: 1.0 / 240.0,
            contact_margin: 0.01,
            dynamics: TimeSteppingParams::default(),
        }
    }
}

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Number of contact points in the step problem.
    pub contacts: usize,
    /// Smallest signed distance among them at the start of the step (m;
    /// negative means interpenetration; `+inf` with no contact).
    pub min_distance: f64,
    /// Pivots of the LCP solver.
    pub pivots: usize,
    /// Largest complementarity error `|z_i w_i|` of the LCP answer.
    pub complementarity: f64,
}

/// Most projections where a step arrives. A round detects, and projects
/// what overlaps; an overlap that a projection's turning brings in is
/// found and projected by the next, each round leaving a fraction of the
/// last one's depth (a landing pile at h = 1/60 needs several: see
/// docs/benchmarks.md). The bound only stops rounds that would not end:
/// what they leave, the next step's rows see as penetration.
const MAX_ARRIVAL_PROJECTIONS: usize = 16;

/// Advances a [`World`] by fixed steps. Owns all per-step memory.
#[derive(Debug)]
pub struct FixedStepper {
    params: FixedStepParams,
    collision: CollisionPass,
    dynamics: TimeStepping,
    contacts: Vec<ContactConstraint>,
    /// Contacts at the poses a step arrived at.
    arrivals: Vec<ContactConstraint>,
    /// The overlaps of the arrival projection's earlier rounds.
    carried: CarriedContacts,
    solution: StepSolution,
}

impl FixedStepper {
    /// A stepper with the given settings.
    ///
    /// # Errors
    /// [`SimError::InvalidParameter`] or [`SimError::Dynamics`] naming a bad setting.
    pub fn new(params: FixedStepParams) -> Result<Self, SimError> {
        if !(params.h.is_finite() && params.h > 0.0) {
            return Err(SimError::InvalidParameter {
                name: "h",
                value: params.h,
            });
        }
        if !(params.contact_margin.is_finite() && params.contact_margin >= 0.0) {
            return Err(SimError::InvalidParameter {
                name: "contact_margin",
                value: params.contact_margin,
            });
        }
        params.dynamics.validate()?;
        Ok(Self {
            params,
            collision: CollisionPass::default(),
            dynamics: TimeStepping::new(params.dynamics),
            contacts: Vec::new(),
            arrivals: Vec::new(),
            carried: CarriedContacts::default(),
            solution: StepSolution::default(),
        })
    }

    /// The settings in use.
    #[must_use]
    pub fn params(&self) -> &FixedStepParams {
        &self.params
    }

    /// Advances `world` by one step of `h`, then clears every body's
    /// applied loads.
    ///
    /// On error the world is left exactly as it was.
    ///
    /// # Errors
    /// [`SimError::Geometry`] or [`SimError::Dynamics`] (a bad body, joint
    /// or force element, a solver failure, a step that would leave a
    /// non-finite state).
    pub fn step(&mut self, world: &mut World) -> Result<StepReport, SimError> {
        let h = self.params.h;
        self.collision.detect(
            world.bodies(),
            world.joints(),
            self.params.contact_margin,
            h,
            world.gravity,
            &mut self.contacts,
        )?;
        let input = StepInput {
            bodies: world.bodies(),
            contacts: &self.contacts,
            joints: world.joints(),
            forces: world.forces(),
            gravity: world.gravity,
            time: world.time(),
        };
        self.dynamics.step(&input, h, &mut self.solution)?;
        self.separate_arrivals(world)?;
        let solution = &self.solution;
        for ((body, &twist), &pose) in world
            .bodies_mut()
            .iter_mut()
            .zip(&solution.velocities)
            .zip(&solution.poses)
        {
            body.pose = pose;
            if body.is_dynamic() {
                body.twist = twist;
            }
            body.clear_applied_loads();
        }
        world.advance_clock(h);
        Ok(StepReport {
            contacts: self.contacts.len(),
            min_distance: self
                .contacts
                .iter()
                .map(|c| c.distance)
                .fold(f64::INFINITY, f64::min),
            pivots: self.solution.pivots,
            complementarity: self.solution.lcp_report.complementarity,
        })
    }

    /// Contacts found at the poses the step arrived at, and projected out
    /// where they penetrate (with post-stabilised contacts): the step's
    /// rows came from the geometry at its start, so a body turning during
    /// the step can bring a feature no row held into another body. At most
    /// `MAX_ARRIVAL_PROJECTIONS` rounds of detection and projection, each
    /// round projecting the overlaps of the rounds before it too
    /// (carried_contacts.rs), until a detection finds no overlap.
    fn separate_arrivals(&mut self, world: &World) -> Result<(), SimError> {
        if self.params.dynamics.stabilisation.contacts != contact_dynamics::Stabilisation::Post {
            return Ok(());
        }
        let tolerance = self.params.dynamics.stabilisation.projection_tolerance;
        self.carried.clear();
        for round in 0..=MAX_ARRIVAL_PROJECTIONS {
            self.collision.detect_at(
                world.bodies(),
                &self.solution.poses,
                world.joints(),
                self.params.contact_margin,
                0.0,
                world.gravity,
                &mut self.arrivals,
            )?;
            if round == MAX_ARRIVAL_PROJECTIONS
                || self.arrivals.iter().all(|c| c.distance >= -tolerance)
            {
                break;
            }
            // Earlier rounds' overlaps beside this round's (carried_contacts.rs).
            let poses = &self.solution.poses;
            self.carried.keep(&self.arrivals, poses, tolerance);
            self.carried.add_to(poses, &mut self.arrivals);
            let input = StepInput {
                bodies: world.bodies(),
                contacts: &self.arrivals,
                joints: world.joints(),
                forces: world.forces(),
                gravity: world.gravity,
                time: world.time(),
            };
            self.dynamics
                .project_positions(&input, &mut self.solution.poses)?;
        }
        if let Some(body) = self.solution.poses.iter().position(|p| !p.is_finite()) {
            return Err(contact_dynamics::DynamicsError::NonFiniteResult { body }.into());
        }
        Ok(())
    }

    /// What the stepper carries into its next step (pending impacts, warm
    /// starts; see [`StepMemory`]): saved with the world, it lets a restored
    /// simulation continue bit for bit.
    #[must_use]
    pub fn memory(&self) -> StepMemory {
        self.dynamics.memory()
    }

    /// Replaces what the stepper carries into its next step by `memory`.
    ///
    /// # Errors
    /// [`SimError::Dynamics`] (`InvalidMemory`) for a malformed memory; the
    /// stepper is then unchanged.
    pub fn restore_memory(&mut self, memory: &StepMemory) -> Result<(), SimError> {
        Ok(self.dynamics.restore_memory(memory)?)
    }

    /// The contact constraints of the last step.
    #[must_use]
    pub fn contacts(&self) -> &[ContactConstraint] {
        &self.contacts
    }

    /// The force (N, world) each contact of the last step applied to its
    /// body `b` at its point, normal and friction together: the impulse over
    /// the step divided by `h` (body `a` received the opposite). For drawing
    /// contact forces at corners, as the myPhysicsLab page does.
    pub fn contact_forces(&self) -> impl Iterator<Item = (&ContactConstraint, glam::DVec3)> {
        let h = self.params.h;
        self.contacts
            .iter()
            .zip(&self.solution.normal_impulses)
            .zip(&self.solution.friction_impulses)
            .map(move |((contact, &normal), &friction)| {
                (contact, (normal * contact.normal + friction) / h)
            })
    }

    /// The number of islands the last step solved.
    #[must_use]
    pub fn last_island_count(&self) -> usize {
        self.dynamics.last_island_count()
    }

    /// The step LCP `(M, q)` of island `island` of the last step (see
    /// [`TimeStepping::last_problem`]).
    ///
    /// # Panics
    /// When the last step had no such island.
    #[must_use]
    #[track_caller]
    pub fn last_problem(&mut self, island: usize) -> (contact_lcp::faer::MatRef<'_, f64>, &[f64]) {
        self.dynamics.last_problem(island)
    }

    /// The bounds of island `island`'s last step problem, rows as in
    /// [`last_problem`](Self::last_problem) (see
    /// [`TimeStepping::last_box_bounds`]).
    ///
    /// # Panics
    /// When the last step had no such island.
    #[must_use]
    #[track_caller]
    pub fn last_box_bounds(&self, island: usize) -> &contact_lcp::BoxBounds {
        self.dynamics.last_box_bounds(island)
    }

    /// The solver's answer to island `island`'s last step problem: its
    /// `method` says which route answered (`BlockPivoting` for the sparse,
    /// factored one; see [`TimeStepping::last_lcp_solution`]).
    ///
    /// # Panics
    /// When the last step had no such island.
    #[must_use]
    #[track_caller]
    pub fn last_lcp_solution(&self, island: usize) -> &contact_lcp::LcpSolution {
        self.dynamics.last_lcp_solution(island)
    }

    /// The velocities, poses, impulses and joint reactions of the last
    /// step, indexed like the bodies, like [`contacts`](Self::contacts) and
    /// like the world's joints.
    #[must_use]
    pub fn solution(&self) -> &StepSolution {
        &self.solution
    }
}
