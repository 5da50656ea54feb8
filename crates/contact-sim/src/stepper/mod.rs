//! Steppers: what advances a world in time.

mod fixed_step;

pub use fixed_step::{FixedStepParams, FixedStepper, StepReport};
