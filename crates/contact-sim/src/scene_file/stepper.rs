//! The stepper of a scene file and its settings, as a tagged enum (one
//! variant per stepper: `{"fixed": {...}}`, `{"conservative_advancement":
//! {...}}`, `{"event_driven": {...}}`). The settings of the velocity-level
//! step the first two solve are one block, `dynamics` ([`DynamicsSpec`]);
//! the event-driven stepper's are in `event_driven_spec.rs`.
//!
//! Adding a stepper is one variant here with its settings struct, and one
//! arm in each `match` of `scene_stepper.rs`
//! ([`SceneStepper`](super::SceneStepper)): build, spec, nominal step,
//! step, contacts.

use contact_dynamics::{Formulation, SPARSE_FROM, Stabilisation, StepMemory, TimeSteppingParams};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::{JsonPath, SceneError};
use super::event_driven_spec::EventDrivenStepperSpec;
use super::memory_spec::{CaMemorySpec, StepMemorySpec};
use crate::{CaMemory, CaParams, FixedStepParams};

/// The stepper that advances the scene, with its settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum StepperSpec {
    /// Fixed steps of the velocity-level Anitescu-Potra scheme
    /// (`FixedStepper`): contacts within a margin, the step's
    /// complementarity problem solved exactly, positions projected back
    /// onto the constraints.
    Fixed(FixedStepperSpec),
    /// Conservative advancement (`CaStepper`, Drumwright 2016, Algorithm
    /// 1): steps as long as no contact manifold can change within them, no
    /// pair ever deeper than a tolerance.
    ConservativeAdvancement(CaStepperSpec),
    /// Event-driven integration of the accelerations (`EventDrivenStepper`,
    /// Baraff 1994): contact forces from the acceleration-level LCP, an ODE
    /// method between events, every collision and change of contact state
    /// met at its time. (Boxed: its settings and memory are larger than
    /// the others'.)
    EventDriven(Box<EventDrivenStepperSpec>),
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
    /// The step problem and its solution.
    #[serde(skip_serializing_if = "is_default_dynamics")]
    pub dynamics: DynamicsSpec,
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

/// Settings of the conservative-advancement stepper (see `CaParams`); an
/// absent field takes its default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CaStepperSpec {
    /// The longest step (s, > 0), taken when no pair limits it.
    pub max_step: f64,
    /// The shortest step (s, > 0, <= `max_step`).
    pub min_step: f64,
    /// Distance (m, > 0) within which two bodies touch.
    pub touch_distance: f64,
    /// Points within this distance (m, >= `touch_distance`) of a touching
    /// pair's deepest point are its contact.
    pub contact_band: f64,
    /// After every step every pair's signed distance is at least minus
    /// this (m, > 0).
    pub penetration_tolerance: f64,
    /// The step problem and its solution.
    #[serde(skip_serializing_if = "is_default_dynamics")]
    pub dynamics: DynamicsSpec,
    /// What the stepper carries into its next step (pairs held touching,
    /// drift, the velocity step's memory): written by a snapshot, so a
    /// restored run continues bit for bit. Leave it out of scenes written
    /// by hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<CaMemorySpec>,
}

impl Default for CaStepperSpec {
    fn default() -> Self {
        Self::of(&CaParams::default(), None)
    }
}

/// Settings of the velocity-level step problem (`TimeSteppingParams`);
/// an absent field takes its default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DynamicsSpec {
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
    /// Islands of at least this many rows are solved in factored form by
    /// block pivoting, warm started from the step before (absent: 64; a
    /// number above any island's rows turns it off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sparse_from: Option<usize>,
}

impl Default for DynamicsSpec {
    fn default() -> Self {
        Self::of(&TimeSteppingParams::default())
    }
}

fn is_default_dynamics(dynamics: &DynamicsSpec) -> bool {
    *dynamics == DynamicsSpec::default()
}

/// The problem each step solves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FormulationSpec {
    /// Anitescu-Potra's LCP with a polyhedral friction cone: always
    /// solvable; with four directions (the default) solved as the
    /// equivalent box problem on tangents turned by 45 degrees, otherwise
    /// by Lemke's method.
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
        DynamicsSpec::default().stabilisation
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

impl DynamicsSpec {
    /// The description of `dynamics`.
    fn of(dynamics: &TimeSteppingParams) -> Self {
        Self {
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
            sparse_from: (dynamics.sparse_from != SPARSE_FROM).then_some(dynamics.sparse_from),
        }
    }

    /// The settings, on top of the defaults for what the file cannot set;
    /// `path` is this block's (`stepper.fixed.dynamics`).
    fn params(&self, path: &JsonPath) -> Result<TimeSteppingParams, SceneError> {
        let mut dynamics = TimeSteppingParams {
            formulation: match self.formulation {
                FormulationSpec::Complementarity => Formulation::Complementarity,
                FormulationSpec::BoxFriction => Formulation::BoxFriction,
            },
            ..TimeSteppingParams::default()
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
        dynamics.stabilisation.projection_tolerance =
            stabilisation
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
        dynamics.sparse_from = self.sparse_from.unwrap_or(SPARSE_FROM);
        dynamics.validate().map_err(|e| path.error(e.to_string()))?;
        Ok(dynamics)
    }
}

impl FixedStepperSpec {
    /// The description of `params`, with `memory` if given.
    pub(crate) fn of(params: &FixedStepParams, memory: Option<&StepMemory>) -> Self {
        Self {
            h: params.h,
            contact_margin: params.contact_margin,
            dynamics: DynamicsSpec::of(&params.dynamics),
            memory: memory
                .filter(|m| **m != StepMemory::default())
                .map(StepMemorySpec::of),
        }
    }

    /// The stepper's settings; `path` is this spec's (`stepper.fixed`).
    pub(crate) fn params(&self, path: &JsonPath) -> Result<FixedStepParams, SceneError> {
        Ok(FixedStepParams {
            h: path.field("h").positive(self.h)?,
            contact_margin: path
                .field("contact_margin")
                .non_negative(self.contact_margin)?,
            dynamics: self.dynamics.params(&path.field("dynamics"))?,
        })
    }
}

impl CaStepperSpec {
    /// The description of `params`, with `memory` if given.
    pub(crate) fn of(params: &CaParams, memory: Option<&CaMemory>) -> Self {
        Self {
            max_step: params.max_step,
            min_step: params.min_step,
            touch_distance: params.touch_distance,
            contact_band: params.contact_band,
            penetration_tolerance: params.penetration_tolerance,
            dynamics: DynamicsSpec::of(&params.dynamics),
            memory: memory
                .filter(|m| **m != CaMemory::default())
                .map(CaMemorySpec::of),
        }
    }

    /// The stepper's settings; `path` is this spec's
    /// (`stepper.conservative_advancement`).
    pub(crate) fn params(&self, path: &JsonPath) -> Result<CaParams, SceneError> {
        let params = CaParams {
            max_step: path.field("max_step").positive(self.max_step)?,
            min_step: path.field("min_step").positive(self.min_step)?,
            touch_distance: path.field("touch_distance").positive(self.touch_distance)?,
            contact_band: path.field("contact_band").positive(self.contact_band)?,
            penetration_tolerance: path
                .field("penetration_tolerance")
                .positive(self.penetration_tolerance)?,
            dynamics: self.dynamics.params(&path.field("dynamics"))?,
        };
        if params.min_step > params.max_step {
            return Err(path.field("min_step").error("must be <= max_step"));
        }
        if params.contact_band < params.touch_distance {
            return Err(path
                .field("contact_band")
                .error("must be >= touch_distance"));
        }
        params.validate().map_err(|e| path.error(e.to_string()))?;
        Ok(params)
    }
}
