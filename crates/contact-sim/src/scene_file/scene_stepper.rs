//! The stepper a scene file names, built: one interface over the steppers
//! for a run (step, what the step measured, its contacts and forces) and
//! for a snapshot (settings and carried state back as a spec).

use super::error::{JsonPath, SceneError};
use super::event_driven_spec::EventDrivenStepperSpec;
use super::stepper::{CaStepperSpec, FixedStepperSpec, StepperSpec};
use crate::{CaStepper, ContactConstraint, EventDrivenStepper, FixedStepper, SimError, World};

/// What one step of a scene's stepper did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneStep {
    /// The simulated time it advanced (s).
    pub duration: f64,
    /// The smallest signed distance among its contacts (m; negative:
    /// interpenetration; `+inf` with none): at the start of the step for
    /// the fixed stepper, over every pair after it for conservative
    /// advancement, over the resting contacts at its end for the
    /// event-driven stepper (which ends every integration step before a
    /// collision).
    pub min_distance: f64,
}

/// The stepper a scene file names, built.
#[non_exhaustive]
#[derive(Debug)]
pub enum SceneStepper {
    /// [`FixedStepper`] (boxed, as the other: steppers are large).
    Fixed(Box<FixedStepper>),
    /// [`CaStepper`].
    ConservativeAdvancement(Box<CaStepper>),
    /// [`EventDrivenStepper`], advanced `frame` seconds per step.
    EventDriven {
        /// The stepper.
        stepper: Box<EventDrivenStepper>,
        /// The simulated time of one step (s, > 0).
        frame: f64,
    },
}

impl SceneStepper {
    /// The stepper of `spec` for `world` (a memory in `spec` is of its
    /// state); `path` names the field in an error.
    pub(crate) fn build(
        spec: &StepperSpec,
        path: &JsonPath,
        world: &World,
    ) -> Result<Self, SceneError> {
        let bodies = world.bodies().len();
        match spec {
            StepperSpec::Fixed(fixed) => {
                let path = path.field("fixed");
                let params = fixed.params(&path)?;
                let mut stepper =
                    FixedStepper::new(params).map_err(|e| path.error(e.to_string()))?;
                if let Some(memory) = &fixed.memory {
                    stepper
                        .restore_memory(&memory.memory(&path.field("memory"))?)
                        .map_err(|e| path.field("memory").error(e.to_string()))?;
                }
                Ok(Self::Fixed(Box::new(stepper)))
            }
            StepperSpec::ConservativeAdvancement(ca) => {
                let path = path.field("conservative_advancement");
                let params = ca.params(&path)?;
                let mut stepper = CaStepper::new(params).map_err(|e| path.error(e.to_string()))?;
                if let Some(memory) = &ca.memory {
                    let path = path.field("memory");
                    stepper
                        .restore_memory(&memory.memory(&path, bodies)?, world)
                        .map_err(|e| path.error(e.to_string()))?;
                }
                Ok(Self::ConservativeAdvancement(Box::new(stepper)))
            }
            StepperSpec::EventDriven(event_driven) => {
                let path = path.field("event_driven");
                let (frame, params) = event_driven.params(&path)?;
                let mut stepper =
                    EventDrivenStepper::new(params).map_err(|e| path.error(e.to_string()))?;
                if let Some(memory) = &event_driven.memory {
                    let path = path.field("memory");
                    stepper
                        .restore_memory(&memory.memory(&path, bodies)?)
                        .map_err(|e| path.error(e.to_string()))?;
                }
                Ok(Self::EventDriven {
                    stepper: Box::new(stepper),
                    frame,
                })
            }
        }
    }

    /// The description of the stepper as it advances `world`: its settings
    /// and what it carries into its next step (`memory`: see
    /// `FixedStepper::memory`, `CaStepper::memory`,
    /// `EventDrivenStepper::memory`), so a scene restored from it continues
    /// bit for bit, whichever the stepper. The steppers' event logs and
    /// statistics are histories, not carried state, and are not written.
    #[must_use]
    pub fn spec(&self, world: &World) -> StepperSpec {
        match self {
            Self::Fixed(stepper) => StepperSpec::Fixed(FixedStepperSpec::of(
                stepper.params(),
                Some(&stepper.memory()),
            )),
            Self::ConservativeAdvancement(stepper) => StepperSpec::ConservativeAdvancement(
                CaStepperSpec::of(stepper.params(), Some(&stepper.memory(world))),
            ),
            Self::EventDriven { stepper, frame } => StepperSpec::EventDriven(Box::new(
                EventDrivenStepperSpec::of(stepper.params(), *frame, Some(&stepper.memory())),
            )),
        }
    }

    /// The length of a step (s): the fixed stepper's `h`, conservative
    /// advancement's longest step, the event-driven stepper's `frame`.
    #[must_use]
    pub fn nominal_step(&self) -> f64 {
        match self {
            Self::Fixed(stepper) => stepper.params().h,
            Self::ConservativeAdvancement(stepper) => stepper.params().max_step,
            Self::EventDriven { frame, .. } => *frame,
        }
    }

    /// Whether every step is [`nominal_step`](Self::nominal_step) long.
    #[must_use]
    pub fn has_fixed_steps(&self) -> bool {
        matches!(self, Self::Fixed(_) | Self::EventDriven { .. })
    }

    /// Advances `world` by one step.
    ///
    /// # Errors
    /// The stepper's ([`FixedStepper::step`], [`CaStepper::step`],
    /// [`EventDrivenStepper::advance`]).
    pub fn step(&mut self, world: &mut World) -> Result<SceneStep, SimError> {
        match self {
            Self::Fixed(stepper) => {
                let report = stepper.step(world)?;
                Ok(SceneStep {
                    duration: stepper.params().h,
                    min_distance: report.min_distance,
                })
            }
            Self::ConservativeAdvancement(stepper) => {
                let report = stepper.step(world)?;
                Ok(SceneStep {
                    duration: report.h,
                    min_distance: report.min_distance,
                })
            }
            Self::EventDriven { stepper, frame } => {
                let start = world.time();
                stepper.advance(world, *frame)?;
                Ok(SceneStep {
                    duration: world.time() - start,
                    min_distance: stepper
                        .contact_kinematics()
                        .iter()
                        .map(|contact| contact.distance)
                        .fold(f64::INFINITY, f64::min),
                })
            }
        }
    }

    /// Calls `visit` for each contact of `last`, the last step (what
    /// [`step`](Self::step) returned): its bodies, point, normal, the force
    /// on body b (N, normal and friction: the step's impulse over its
    /// length) and its signed distance at the step's start. For the
    /// event-driven stepper: its resting contacts at the step's end, with
    /// their forces and gaps there.
    pub fn visit_contacts(&self, last: &SceneStep, mut visit: impl FnMut(ContactForce)) {
        let (contacts, solution): (&[ContactConstraint], _) = match self {
            Self::Fixed(stepper) => (stepper.contacts(), stepper.solution()),
            Self::ConservativeAdvancement(stepper) => (stepper.contacts(), stepper.solution()),
            Self::EventDriven { stepper, .. } => {
                let forces = stepper.contact_forces().map(|(_, _, force)| force);
                let contacts = stepper.contacts().iter().zip(stepper.contact_kinematics());
                for ((contact, kinematics), force) in contacts.zip(forces) {
                    visit(ContactForce {
                        body_a: contact.body_a,
                        body_b: contact.body_b,
                        point: kinematics.point,
                        normal: kinematics.normal,
                        force,
                        distance: kinematics.distance,
                    });
                }
                return;
            }
        };
        let h = last.duration;
        if h <= 0.0 {
            return;
        }
        let impulses = solution
            .normal_impulses
            .iter()
            .zip(&solution.friction_impulses);
        for (contact, (&normal, &friction)) in contacts.iter().zip(impulses) {
            visit(ContactForce {
                body_a: contact.body_a,
                body_b: contact.body_b,
                point: contact.point,
                normal: contact.normal,
                force: (normal * contact.normal + friction) / h,
                distance: contact.distance,
            });
        }
    }
}

/// A contact of the last step and the force it carried.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactForce {
    /// First body.
    pub body_a: usize,
    /// Second body.
    pub body_b: usize,
    /// The contact point (m, world).
    pub point: glam::DVec3,
    /// The unit normal from a to b.
    pub normal: glam::DVec3,
    /// The force on b (N, world; a received the opposite).
    pub force: glam::DVec3,
    /// The signed distance at the start of the step (m).
    pub distance: f64,
}
