//! Steppers: what advances a world in time.

mod conservative_advancement;
mod fixed_step;

pub use conservative_advancement::{
    CaError, CaEvent, CaEventKind, CaParams, CaStepReport, CaStepper, HISTOGRAM_DECADES, StepLimit,
    StepStatistics,
};
pub use fixed_step::{FixedStepParams, FixedStepper, StepReport};
