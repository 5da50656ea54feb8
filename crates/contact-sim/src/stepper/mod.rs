//! Steppers: what advances a world in time.

mod carried_contacts;
mod conservative_advancement;
mod event_driven;
mod fixed_step;
mod ode;
mod sphere_pairs;

pub use conservative_advancement::{
    CaError, CaEvent, CaEventKind, CaMemory, CaParams, CaStepReport, CaStepper, HISTOGRAM_DECADES,
    StepLimit, StepStatistics,
};
pub use event_driven::{
    Event, EventDrivenMemory, EventDrivenParams, EventDrivenReport, EventDrivenStepper, EventKind,
    PainleveKind,
};
pub use fixed_step::{FixedStepParams, FixedStepper, StepReport};
pub use ode::OdeMethod;
