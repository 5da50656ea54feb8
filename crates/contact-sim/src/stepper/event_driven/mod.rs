//! Event-driven stepping with contact forces (Baraff 1994; the myPhysicsLab
//! ContactSim and ImpulseSim pages): the world's accelerations are
//! integrated by an ODE method between events, with the contact forces of
//! the resting contacts from the acceleration-level LCP
//! (`contact_dynamics::AccelerationProblem`), and every change of the
//! contact state is an event met exactly.
//!
//! One step, from the world's state:
//! 1. **Classify** (the page's criteria): every manifold point within
//!    `contact_tolerance` touches. Touching points approaching faster than
//!    `resting_speed` collide: all touching points take one simultaneous
//!    Newton impact with friction (`contact_dynamics::ImpactProblem`),
//!    logged as [`EventKind::Impact`], and the points are classified again.
//!    The others approaching no faster than `resting_speed`, and
//!    separating no faster than a hundredth of it, rest (the others
//!    leave); the resting points' residual approach is removed by an
//!    impulse with `e = 0` (a projection, counted, not an event). Resting contacts slipping faster
//!    than `sticking_speed` slide (dynamic friction along the slip), the
//!    others stick (static friction; their residual slip decays at the
//!    rate `1 / max_step`, see `AccelerationInput::slip_decay`).
//! 2. **Forces at the start.** The acceleration LCP is solved at the state.
//!    No consistent forces while a contact slides (Painleve's
//!    inconsistency) is resolved by an impulsive step: the same impact
//!    problem with `e = 0` and friction on every resting contact, which
//!    jams the sliding ones (a tangential impact), logged as
//!    [`EventKind::Painleve`]; then back to 1. A sliding contact whose
//!    normal force closes its own gap (possible indeterminacy) is logged
//!    once with kind [`PainleveKind::Indeterminate`] and the solver's
//!    answer kept (it starts from zero force).
//! 3. **Integrate** one step of the ODE method (`ode.rs`: RK4 at
//!    `max_step`, or Dormand-Prince 5(4) with error control), the resting
//!    contacts and friction modes held, the contact geometry re-evaluated
//!    at every stage, and the forces following the answer found at the
//!    step's start where they are not unique (sliding friction; see
//!    `AccelerationProblem::keep_reference`). A stage with no consistent
//!    forces halves the step;
//!    at `min_step` the impulsive step of 2 is taken at the step's start.
//! 4. **Locate events** at the step's end: a point of a pair that no
//!    resting contact covers gone below zero gap (a collision), or a
//!    sliding contact's slip reversed (it sticks). The earliest is found by
//!    the Illinois method on the event functions, each evaluated by
//!    integrating again from the step's start (Baraff's backing up in
//!    time), to `event_tolerance`; the step ends just before it, and the
//!    next classification resolves it.
//!
//! Joints are not supported (their acceleration-level rows are not
//! modelled); planar locks are. Applied impulses act at the start of
//! [`EventDrivenStepper::advance`], applied forces through it; both are
//! cleared at its end.

mod classify;
mod contacts;
mod integrate;
mod memory;

use contact_dynamics::{
    AccelerationProblem, AccelerationSolution, BodyState, ContactConstraint, ContactKinematics,
    FrictionMode, ImpactProblem, ImpactSolution, TrackedContact,
};
use contact_lcp::{PgsParams, SolverParams};
use contact_math::Twist;
use glam::DVec3;

pub use self::memory::EventDrivenMemory;

use self::contacts::{ContactFinder, Touching};
use super::ode::{OdeMethod, RungeKutta};
use crate::{SimError, World};

/// Settings of [`EventDrivenStepper`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventDrivenParams {
    /// The ODE method between events.
    pub method: OdeMethod,
    /// Local error tolerance of Dormand-Prince per step (dimensionless,
    /// absolute and relative per state component: m, m/s, rad/s and the
    /// rotation's quaternion; > 0, default 1e-9; sensible 1e-12..=1e-5).
    pub tolerance: f64,
    /// Longest step (s, > 0, finite; default 1e-2): RK4's step, and
    /// Dormand-Prince's ceiling.
    pub max_step: f64,
    /// Shortest step (s, > 0, finite, at most `max_step`; default 1e-10):
    /// Dormand-Prince gives up below it ([`SimError::StepTooSmall`]).
    pub min_step: f64,
    /// A point within this gap (m, > 0; default 1e-6) touches: the page's
    /// "corner very close to an edge".
    pub contact_tolerance: f64,
    /// A touching point approaching no faster than this (m/s, > 0;
    /// default 1e-3), and separating no faster than a hundredth of it,
    /// rests; approaching faster, it collides: the page's "moving very
    /// slowly". It also ends a bouncing ball's bounces.
    pub resting_speed: f64,
    /// A resting contact slipping slower than this (m/s, > 0; default
    /// 1e-6) sticks (static friction); faster, it slides.
    pub sticking_speed: f64,
    /// Events are located to this (s, > 0; default 1e-10).
    pub event_tolerance: f64,
    /// Length of the impulsive step that resolves Painleve's
    /// inconsistency (s, > 0; default 1e-6): a velocity-level step whose
    /// impulse jams the sliding contacts (see `classify.rs`).
    pub painleve_step: f64,
    /// Solvers of the acceleration and impact LCPs (projected Gauss-Seidel
    /// capped at 2000 sweeps by default: a problem with no solution, as
    /// Painleve's, should fail fast).
    pub solver: SolverParams,
}

impl Default for EventDrivenParams {
    fn default() -> Self {
        Self {
            method: OdeMethod::default(),
            tolerance: 1e-9,
            max_step: 1e-2,
            min_step: 1e-10,
            contact_tolerance: 1e-6,
            resting_speed: 1e-3,
            sticking_speed: 1e-6,
            event_tolerance: 1e-10,
            painleve_step: 1e-6,
            solver: SolverParams {
                pgs: PgsParams {
                    max_sweeps: 2000,
                    ..PgsParams::default()
                },
                ..SolverParams::default()
            },
        }
    }
}

impl EventDrivenParams {
    /// Checks every field's range.
    ///
    /// # Errors
    /// [`SimError::InvalidParameter`] naming the first bad field.
    pub fn validate(&self) -> Result<(), SimError> {
        let positive = [
            ("tolerance", self.tolerance),
            ("max_step", self.max_step),
            ("min_step", self.min_step),
            ("contact_tolerance", self.contact_tolerance),
            ("resting_speed", self.resting_speed),
            ("sticking_speed", self.sticking_speed),
            ("event_tolerance", self.event_tolerance),
            ("painleve_step", self.painleve_step),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(SimError::InvalidParameter { name, value });
            }
        }
        if self.min_step > self.max_step {
            return Err(SimError::InvalidParameter {
                name: "min_step",
                value: self.min_step,
            });
        }
        Ok(())
    }
}

/// Which of Painleve's problems a configuration has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PainleveKind {
    /// No contact forces keep the resting contacts from penetrating while
    /// one slides: resolved by an impulsive step (a tangential impact
    /// that jams the sliding contacts).
    Inconsistent,
    /// A sliding contact's normal force closes its own gap, so the forces
    /// need not be unique: the solver's answer (from zero force) is kept.
    Indeterminate,
}

/// What happened at an event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EventKind {
    /// Touching points approached faster than `resting_speed`: every
    /// touching point took one simultaneous Newton impact.
    Impact {
        /// The pair of the fastest approaching point.
        bodies: (usize, usize),
        /// Touching points in the impact.
        contacts: usize,
        /// The fastest approach (m/s, > 0).
        approach_speed: f64,
        /// Sum of the normal impulses (N s).
        normal_impulse: f64,
    },
    /// A sliding contact's slip came to zero: it sticks from here.
    Stick {
        /// The contact's pair.
        bodies: (usize, usize),
    },
    /// A configuration of Painleve's (see [`PainleveKind`]).
    Painleve {
        /// The pair of the sliding contact concerned.
        bodies: (usize, usize),
        /// Which problem.
        kind: PainleveKind,
        /// Sum of the normal impulses of the impulsive step (N s; 0 for
        /// an indeterminacy).
        normal_impulse: f64,
    },
}

/// An event and the simulated time it happened (s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event {
    /// Simulated time (s).
    pub time: f64,
    /// What happened.
    pub kind: EventKind,
}

/// Counters of one [`EventDrivenStepper::advance`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EventDrivenReport {
    /// Steps taken (each ends at its full length or at an event).
    pub steps: usize,
    /// Steps refused by the error control or shortened because a stage had
    /// no consistent forces.
    pub rejected_steps: usize,
    /// Evaluations of the accelerations (acceleration LCPs solved).
    pub evaluations: usize,
    /// Events logged ([`EventDrivenStepper::events`]).
    pub events: usize,
    /// Velocity projections of resting contacts (impulses with `e = 0`
    /// removing a residual approach or slip).
    pub projections: usize,
    /// Iterations spent locating events.
    pub location_iterations: usize,
    /// Shortest and longest step taken (s; `inf` and 0 with no step).
    pub shortest_step: f64,
    /// See `shortest_step`.
    pub longest_step: f64,
}

/// Advances a [`World`] by event-driven integration of its accelerations.
/// Owns all its memory.
#[derive(Debug)]
pub struct EventDrivenStepper {
    params: EventDrivenParams,
    finder: ContactFinder,
    acceleration: AccelerationProblem,
    impact: ImpactProblem,
    ode: RungeKutta,
    /// Index of the body in each slot of the state vector.
    slots: Vec<usize>,
    /// Body states of the last evaluation.
    states: Vec<BodyState>,
    y0: Vec<f64>,
    y1: Vec<f64>,
    /// A state integrated to an event function's trial time, and the last
    /// one found before the event.
    trial: Vec<f64>,
    before: Vec<f64>,
    touching: Vec<Touching>,
    /// The resting contacts and their friction modes.
    resting: Vec<TrackedContact>,
    modes: Vec<FrictionMode>,
    solution: AccelerationSolution,
    impact_contacts: Vec<ContactConstraint>,
    velocities: Vec<Twist>,
    impulses: ImpactSolution,
    /// Watch values of the pairs at the step's start, the trial's (those
    /// below the cap), and the resting contacts' pairs and points at a
    /// trial state.
    watch_start: Vec<contacts::WatchValue>,
    watch_now: Vec<contacts::WatchValue>,
    covered: Vec<contacts::CoveredPoint>,
    /// The contacts that slid in the last step, and the one flagged as
    /// indeterminate.
    sliding_before: Vec<TrackedContact>,
    flagged: Vec<TrackedContact>,
    next_step: f64,
    /// Consecutive steps that made no progress in time.
    stalls: usize,
    events: Vec<Event>,
    report: EventDrivenReport,
}

impl EventDrivenStepper {
    /// A stepper with the given settings.
    ///
    /// # Errors
    /// [`SimError::InvalidParameter`] naming a bad setting.
    pub fn new(params: EventDrivenParams) -> Result<Self, SimError> {
        params.validate()?;
        Ok(Self {
            params,
            finder: ContactFinder::default(),
            acceleration: AccelerationProblem::new(params.solver),
            impact: ImpactProblem::new(params.solver),
            ode: RungeKutta::new(params.method),
            slots: Vec::new(),
            states: Vec::new(),
            y0: Vec::new(),
            y1: Vec::new(),
            trial: Vec::new(),
            before: Vec::new(),
            touching: Vec::new(),
            resting: Vec::new(),
            modes: Vec::new(),
            solution: AccelerationSolution::default(),
            impact_contacts: Vec::new(),
            velocities: Vec::new(),
            impulses: ImpactSolution::default(),
            watch_start: Vec::new(),
            watch_now: Vec::new(),
            covered: Vec::new(),
            sliding_before: Vec::new(),
            flagged: Vec::new(),
            next_step: params.max_step,
            stalls: 0,
            events: Vec::new(),
            report: EventDrivenReport::default(),
        })
    }

    /// The settings in use.
    #[must_use]
    pub fn params(&self) -> &EventDrivenParams {
        &self.params
    }

    /// Advances `world` by `duration` seconds (events included), then
    /// clears every body's applied loads. The contacts, their forces and
    /// any impact at the end time are those of the final state.
    ///
    /// # Errors
    /// [`SimError::InvalidParameter`] for a negative or non-finite
    /// `duration`; [`SimError::Unsupported`] for a world with joints;
    /// [`SimError::Dynamics`] for a bad body or force element, a solver
    /// failure, or a Painleve configuration the impulsive step does not
    /// resolve; [`SimError::StepTooSmall`] when the error control or
    /// repeated events cannot advance; [`SimError::Geometry`]. The world
    /// is left at the last completed step.
    pub fn advance(
        &mut self,
        world: &mut World,
        duration: f64,
    ) -> Result<EventDrivenReport, SimError> {
        if !(duration.is_finite() && duration >= 0.0) {
            return Err(SimError::InvalidParameter {
                name: "duration",
                value: duration,
            });
        }
        self.check(world)?;
        self.report = EventDrivenReport {
            shortest_step: f64::INFINITY,
            ..EventDrivenReport::default()
        };
        apply_impulses(world);
        let end = world.time() + duration;
        while world.time() < end {
            self.step(world, end)?;
        }
        self.classify(world)?;
        for body in world.bodies_mut() {
            body.clear_applied_loads();
        }
        Ok(self.report)
    }

    /// Every event since the stepper was made (or last cleared), in order.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Forgets the logged events.
    pub fn clear_events(&mut self) {
        self.events.clear();
    }

    /// The resting contacts at the end of the last advance.
    #[must_use]
    pub fn contacts(&self) -> &[TrackedContact] {
        &self.resting
    }

    /// The geometry of each resting contact (point, normal, gap, rates) at
    /// the end of the last advance, in the order of
    /// [`contacts`](Self::contacts).
    #[must_use]
    pub fn contact_kinematics(&self) -> &[ContactKinematics] {
        &self.solution.kinematics
    }

    /// The force (N, world) each resting contact applies to its body b at
    /// its point, normal and friction together, at the end of the last
    /// advance (body a receives the opposite): for drawing contact forces
    /// at corners, as the myPhysicsLab page does.
    pub fn contact_forces(&self) -> impl Iterator<Item = (&TrackedContact, DVec3, DVec3)> {
        self.resting
            .iter()
            .zip(&self.solution.kinematics)
            .zip(
                self.solution
                    .normal_forces
                    .iter()
                    .zip(&self.solution.friction_forces),
            )
            .map(|((contact, kinematics), (&normal, &friction))| {
                (
                    contact,
                    kinematics.point,
                    normal * kinematics.normal + friction,
                )
            })
    }

    /// Checks the world once per advance: no joints, valid bodies, loads and
    /// force elements.
    fn check(&self, world: &World) -> Result<(), SimError> {
        if !world.joints().is_empty() {
            return Err(SimError::Unsupported {
                what: "joints in the event-driven stepper",
            });
        }
        for (i, body) in world.bodies().iter().enumerate() {
            BodyState::of(body, i, 0.0)?;
            if !body.applied_loads().is_finite() {
                return Err(contact_dynamics::DynamicsError::NonFiniteLoad { body: i }.into());
            }
        }
        for (i, element) in world.forces().iter().enumerate() {
            element.validate(i, world.bodies())?;
        }
        if !world.gravity.is_finite() {
            return Err(SimError::InvalidParameter {
                name: "gravity",
                value: world.gravity.x + world.gravity.y + world.gravity.z,
            });
        }
        Ok(())
    }

    /// Appends an event to the log.
    fn log(&mut self, time: f64, kind: EventKind) {
        self.events.push(Event { time, kind });
        self.report.events += 1;
    }
}

/// Applies the bodies' accumulated impulses to their twists.
fn apply_impulses(world: &mut World) {
    for body in world.bodies_mut() {
        if let Some(mass) = body.mass_properties() {
            let loads = *body.applied_loads();
            let inverse_inertia = mass.world_inv_inertia(body.pose.rotation);
            body.twist.linear += mass.inv_mass() * loads.linear_impulse;
            body.twist.angular += inverse_inertia * loads.angular_impulse;
        }
    }
}
