//! The stepper of a scene file and its settings, as a tagged enum (one
//! variant per stepper: `{"fixed": {...}}`), and the stepper built from it.

use contact_dynamics::{Formulation, Stabilisation, StepMemory};
use contact_lcp::RowState;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::{JsonPath, SceneError};
use crate::{FixedStepParams, FixedStepper, SimError, World};

/// The stepper that advances the scene, with its settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum StepperSpec {
    /// Fixed steps of the velocity-level Anitescu-Potra scheme
    /// (`FixedStepper`): contacts within a margin, the step's
    /// complementarity problem solved exactly, positions projected back
    /// onto the constraints.
    Fixed(FixedStepperSpec),
}

impl Default for StepperSpec {
    fn default() -> Self {
        Self::Fixed(FixedStepperSpec::default())
    }
}

/// Settings of the fixed stepper; an absent field takes its default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FixedStepperSpec {
    /// Step length (s, > 0).
    pub h: f64,
    /// Distance (m, >= 0) within which points of two bodies become
    /// contacts, on top of what the bodies can close in a step.
    pub contact_margin: f64,
    /// The problem each step solves.
    pub formulation: FormulationSpec,
    /// Tangent directions of the polyhedral friction cone per contact
    /// (even, >= 4; complementarity formulation).
    pub friction_directions: usize,
    /// How joint drift and penetration are removed.
    pub stabilisation: StabilisationSpec,
    /// Whether friction is made isotropic (turned onto the Coulomb circle).
    pub isotropic_friction: bool,
    /// Most solves of one step when friction is isotropic (>= 1).
    pub max_friction_passes: usize,
    /// Contacts approaching slower than this (m/s, >= 0) do not bounce.
    pub restitution_threshold: f64,
    /// Whether each island of touching bodies is solved on its own.
    pub islands: bool,
    /// Box problems of at least this many rows are solved sparse, warm
    /// started from the step before (absent: never).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sparse_from: Option<usize>,
    /// What the stepper carries into its next step (pending impacts, warm
    /// starts): written by a snapshot, so a restored run continues bit for
    /// bit. Leave it out of scenes written by hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<StepMemorySpec>,
}

impl Default for FixedStepperSpec {
    fn default() -> Self {
        Self::of(&FixedStepParams::default(), None)
    }
}

/// The problem each step solves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FormulationSpec {
    /// Anitescu-Potra's LCP with a polyhedral friction cone, by Lemke's
    /// method: always solvable.
    #[default]
    Complementarity,
    /// Box friction bounded by the normal impulse (a square cone), by the
    /// pivoting policy with projected Gauss-Seidel as the fail-safe.
    BoxFriction,
}

/// Stabilisation settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct StabilisationSpec {
    /// For joints, joint limits and planar locks.
    pub joints: StabilisationKind,
    /// For contact penetration.
    pub contacts: StabilisationKind,
    /// The projection stops once every error is at most this (m or rad, > 0).
    pub projection_tolerance: f64,
    /// Most projections per step (>= 1).
    pub max_projections: usize,
}

impl Default for StabilisationSpec {
    fn default() -> Self {
        FixedStepperSpec::default().stabilisation
    }
}

/// How a group of constraints has its position errors removed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum StabilisationKind {
    /// Nothing: errors grow.
    None,
    /// Baumgarte's term `J u+ = -alpha g`.
    Baumgarte {
        /// Gain (1/s, >= 0); keep `alpha h <= 1`.
        alpha: f64,
    },
    /// A position projection after each step.
    Post,
}

impl StabilisationKind {
    fn build(self, path: &JsonPath) -> Result<Stabilisation, SceneError> {
        Ok(match self {
            Self::None => Stabilisation::None,
            Self::Post => Stabilisation::Post,
            Self::Baumgarte { alpha } => Stabilisation::Baumgarte {
                alpha: path.field("baumgarte").field("alpha").non_negative(alpha)?,
            },
        })
    }

    fn of(stabilisation: Stabilisation) -> Self {
        match stabilisation {
            Stabilisation::None => Self::None,
            Stabilisation::Post => Self::Post,
            Stabilisation::Baumgarte { alpha } => Self::Baumgarte { alpha },
        }
    }
}

/// What a fixed stepper carries between steps (see `StepMemory`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct StepMemorySpec {
    /// Impacts to resolve in the next step: `[contact key, separating
    /// speed (m/s)]`, keys increasing.
    pub pending_bounces: Vec<(u64, f64)>,
    /// The last step's active sets: `[constraint key, row offset, state]`,
    /// increasing.
    pub active_sets: Vec<(u64, usize, RowStateSpec)>,
}

/// Where a row of a box problem sat in the last answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RowStateSpec {
    /// At its lower bound.
    Lower,
    /// At its upper bound.
    Upper,
    /// Between its bounds.
    Free,
}

impl StepMemorySpec {
    fn memory(&self) -> StepMemory {
        StepMemory {
            pending_bounces: self.pending_bounces.clone(),
            active_sets: self
                .active_sets
                .iter()
                .map(|&(key, offset, state)| {
                    let state = match state {
                        RowStateSpec::Lower => RowState::Lower,
                        RowStateSpec::Upper => RowState::Upper,
                        RowStateSpec::Free => RowState::Free,
                    };
                    (key, offset, state)
                })
                .collect(),
        }
    }

    fn of(memory: &StepMemory) -> Self {
        Self {
            pending_bounces: memory.pending_bounces.clone(),
            active_sets: memory
                .active_sets
                .iter()
                .map(|&(key, offset, state)| {
                    let state = match state {
                        RowState::Lower => RowStateSpec::Lower,
                        RowState::Upper => RowStateSpec::Upper,
                        RowState::Free => RowStateSpec::Free,
                    };
                    (key, offset, state)
                })
                .collect(),
        }
    }
}

impl FixedStepperSpec {
    /// The description of `params`, with `memory` if given.
    fn of(params: &FixedStepParams, memory: Option<&StepMemory>) -> Self {
        let dynamics = &params.dynamics;
        Self {
            h: params.h,
            contact_margin: params.contact_margin,
            formulation: match dynamics.formulation {
                Formulation::Complementarity => FormulationSpec::Complementarity,
                Formulation::BoxFriction => FormulationSpec::BoxFriction,
            },
            friction_directions: dynamics.friction_directions,
            stabilisation: StabilisationSpec {
                joints: StabilisationKind::of(dynamics.stabilisation.joints),
                contacts: StabilisationKind::of(dynamics.stabilisation.contacts),
                projection_tolerance: dynamics.stabilisation.projection_tolerance,
                max_projections: dynamics.stabilisation.max_projections,
            },
            isotropic_friction: dynamics.isotropic_friction,
            max_friction_passes: dynamics.max_friction_passes,
            restitution_threshold: dynamics.restitution_threshold,
            islands: dynamics.islands,
            sparse_from: (dynamics.sparse_from != usize::MAX).then_some(dynamics.sparse_from),
            memory: memory
                .filter(|m| **m != StepMemory::default())
                .map(StepMemorySpec::of),
        }
    }

    /// The stepper's settings; `path` is this spec's (`stepper.fixed`).
    fn params(&self, path: &JsonPath) -> Result<FixedStepParams, SceneError> {
        let mut params = FixedStepParams {
            h: path.field("h").positive(self.h)?,
            contact_margin: path.field("contact_margin").non_negative(self.contact_margin)?,
            ..FixedStepParams::default()
        };
        let dynamics = &mut params.dynamics;
        dynamics.formulation = match self.formulation {
            FormulationSpec::Complementarity => Formulation::Complementarity,
            FormulationSpec::BoxFriction => Formulation::BoxFriction,
        };
        let k = self.friction_directions;
        if k < 4 || k % 2 != 0 {
            return Err(path
                .field("friction_directions")
                .error("must be even and >= 4"));
        }
        dynamics.friction_directions = k;
        let stabilisation = path.field("stabilisation");
        dynamics.stabilisation.joints = self
            .stabilisation
            .joints
            .build(&stabilisation.field("joints"))?;
        dynamics.stabilisation.contacts = self
            .stabilisation
            .contacts
            .build(&stabilisation.field("contacts"))?;
        dynamics.stabilisation.projection_tolerance = stabilisation
            .field("projection_tolerance")
            .positive(self.stabilisation.projection_tolerance)?;
        if self.stabilisation.max_projections == 0 {
            return Err(stabilisation.field("max_projections").error("must be >= 1"));
        }
        dynamics.stabilisation.max_projections = self.stabilisation.max_projections;
        dynamics.isotropic_friction = self.isotropic_friction;
        if self.max_friction_passes == 0 {
            return Err(path.field("max_friction_passes").error("must be >= 1"));
        }
        dynamics.max_friction_passes = self.max_friction_passes;
        dynamics.restitution_threshold = path
            .field("restitution_threshold")
            .non_negative(self.restitution_threshold)?;
        dynamics.islands = self.islands;
        dynamics.sparse_from = self.sparse_from.unwrap_or(usize::MAX);
        Ok(params)
    }
}

/// What one step of a scene's stepper did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneStep {
    /// The simulated time it advanced (s).
    pub duration: f64,
    /// The smallest signed distance among its contacts at its start (m;
    /// negative: interpenetration; `+inf` with none).
    pub min_distance: f64,
}

/// The stepper a scene file names, built.
#[non_exhaustive]
#[derive(Debug)]
pub enum SceneStepper {
    /// [`FixedStepper`].
    Fixed(FixedStepper),
}

impl SceneStepper {
    /// The stepper of `spec`; `path` names the field in an error.
    pub(crate) fn build(spec: &StepperSpec, path: &JsonPath) -> Result<Self, SceneError> {
        match spec {
            StepperSpec::Fixed(fixed) => {
                let path = path.field("fixed");
                let params = fixed.params(&path)?;
                let mut stepper = FixedStepper::new(params).map_err(|e| path.error(e.to_string()))?;
                if let Some(memory) = &fixed.memory {
                    stepper
                        .restore_memory(&memory.memory())
                        .map_err(|e| path.field("memory").error(e.to_string()))?;
                }
                Ok(Self::Fixed(stepper))
            }
        }
    }

    /// The description of the stepper: its settings and what it carries
    /// into its next step.
    #[must_use]
    pub fn spec(&self) -> StepperSpec {
        match self {
            Self::Fixed(stepper) => {
                StepperSpec::Fixed(FixedStepperSpec::of(stepper.params(), Some(&stepper.memory())))
            }
        }
    }

    /// The length of a step (s): the fixed stepper's `h`.
    #[must_use]
    pub fn nominal_step(&self) -> f64 {
        match self {
            Self::Fixed(stepper) => stepper.params().h,
        }
    }

    /// Advances `world` by one step.
    ///
    /// # Errors
    /// The stepper's ([`FixedStepper::step`]).
    pub fn step(&mut self, world: &mut World) -> Result<SceneStep, SimError> {
        match self {
            Self::Fixed(stepper) => {
                let report = stepper.step(world)?;
                Ok(SceneStep {
                    duration: stepper.params().h,
                    min_distance: report.min_distance,
                })
            }
        }
    }

    /// Calls `visit(body_a, body_b, point, normal, force, distance)` for
    /// each contact of the last step: its bodies, its point and normal
    /// (world, from a to b), the force on b (N, normal and friction) and
    /// its signed distance at the start of the step (m).
    pub fn visit_contacts(&self, mut visit: impl FnMut(ContactForce)) {
        match self {
            Self::Fixed(stepper) => {
                for (contact, force) in stepper.contact_forces() {
                    visit(ContactForce {
                        body_a: contact.body_a,
                        body_b: contact.body_b,
                        point: contact.point,
                        normal: contact.normal,
                        force,
                        distance: contact.distance,
                    });
                }
            }
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
