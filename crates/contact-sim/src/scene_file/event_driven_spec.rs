//! The event-driven stepper's settings in a scene file
//! (`{"event_driven": {...}}`): every field of `EventDrivenParams` (its
//! solvers' in `solver_spec.rs`), and the
//! length of a scene step (`frame`), since the stepper advances by a
//! duration of its own choosing inside.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::{JsonPath, SceneError};
use super::memory_spec::EventDrivenMemorySpec;
use super::solver_spec::EventSolverSpec;
use crate::{EventDrivenMemory, EventDrivenParams, OdeMethod};

/// Settings of the event-driven stepper (see `EventDrivenParams`); an
/// absent field takes its default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EventDrivenStepperSpec {
    /// Length of one scene step (s, > 0, finite): the stepper advances the
    /// world by this much, events included, and the run measures and
    /// records after each.
    pub frame: f64,
    /// The ODE method between events.
    pub method: OdeMethodSpec,
    /// Local error tolerance of Dormand-Prince per step (dimensionless,
    /// absolute and relative, > 0).
    pub tolerance: f64,
    /// Longest ODE step (s, > 0): RK4's step, Dormand-Prince's ceiling.
    pub max_step: f64,
    /// Shortest ODE step (s, > 0, <= `max_step`).
    pub min_step: f64,
    /// A point within this gap (m, > 0) touches.
    pub contact_tolerance: f64,
    /// A touching point approaching no faster than this (m/s, > 0) rests;
    /// faster, it collides.
    pub resting_speed: f64,
    /// A resting contact slipping slower than this (m/s, > 0) sticks;
    /// faster, it slides.
    pub sticking_speed: f64,
    /// Events are located to this (s, > 0).
    pub event_tolerance: f64,
    /// Length of the impulsive step that resolves Painleve's inconsistency
    /// (s, > 0).
    pub painleve_step: f64,
    /// The solvers of the acceleration and impact LCPs.
    #[serde(skip_serializing_if = "EventSolverSpec::is_default")]
    pub solver: EventSolverSpec,
    /// What the stepper carries into its next step (next step size,
    /// sliding contacts, the forces' reference): written by a snapshot, so
    /// a restored run continues bit for bit. Leave it out of scenes
    /// written by hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<EventDrivenMemorySpec>,
}

impl Default for EventDrivenStepperSpec {
    fn default() -> Self {
        let params = EventDrivenParams::default();
        Self::of(&params, params.max_step, None)
    }
}

/// The ODE method between events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OdeMethodSpec {
    /// Classical fourth-order Runge-Kutta, steps of `max_step` shortened
    /// only to meet events.
    Rk4,
    /// Dormand-Prince 5(4): adaptive steps within `tolerance`.
    #[default]
    DormandPrince,
}

impl EventDrivenStepperSpec {
    /// The description of `params`, advancing `frame` seconds per step,
    /// with `memory` unless it is a new stepper's.
    pub(crate) fn of(
        params: &EventDrivenParams,
        frame: f64,
        memory: Option<&EventDrivenMemory>,
    ) -> Self {
        let fresh = |m: &&EventDrivenMemory| {
            m.next_step == params.max_step
                && m.stalls == 0
                && m.sliding.is_empty()
                && m.indeterminate.is_none()
                && m.reference_forces.is_empty()
        };
        Self {
            frame,
            method: match params.method {
                OdeMethod::Rk4 => OdeMethodSpec::Rk4,
                OdeMethod::DormandPrince => OdeMethodSpec::DormandPrince,
            },
            tolerance: params.tolerance,
            max_step: params.max_step,
            min_step: params.min_step,
            contact_tolerance: params.contact_tolerance,
            resting_speed: params.resting_speed,
            sticking_speed: params.sticking_speed,
            event_tolerance: params.event_tolerance,
            painleve_step: params.painleve_step,
            solver: EventSolverSpec::of(&params.solver),
            memory: memory.filter(|m| !fresh(m)).map(EventDrivenMemorySpec::of),
        }
    }

    /// The frame (s) and the stepper's settings; `path` is this spec's
    /// (`stepper.event_driven`).
    pub(crate) fn params(&self, path: &JsonPath) -> Result<(f64, EventDrivenParams), SceneError> {
        let frame = path.field("frame").positive(self.frame)?;
        let positive = |name: &str, value: f64| path.field(name).positive(value);
        let params = EventDrivenParams {
            method: match self.method {
                OdeMethodSpec::Rk4 => OdeMethod::Rk4,
                OdeMethodSpec::DormandPrince => OdeMethod::DormandPrince,
            },
            tolerance: positive("tolerance", self.tolerance)?,
            max_step: positive("max_step", self.max_step)?,
            min_step: positive("min_step", self.min_step)?,
            contact_tolerance: positive("contact_tolerance", self.contact_tolerance)?,
            resting_speed: positive("resting_speed", self.resting_speed)?,
            sticking_speed: positive("sticking_speed", self.sticking_speed)?,
            event_tolerance: positive("event_tolerance", self.event_tolerance)?,
            painleve_step: positive("painleve_step", self.painleve_step)?,
            solver: self.solver.params(&path.field("solver"))?,
        };
        if params.min_step > params.max_step {
            return Err(path.field("min_step").error("must be <= max_step"));
        }
        params.validate().map_err(|e| path.error(e.to_string()))?;
        Ok((frame, params))
    }
}
