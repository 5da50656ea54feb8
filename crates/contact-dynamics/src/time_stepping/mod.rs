//! Velocity-level time stepping after Anitescu and Potra (Cline 2002,
//! sec. 2.7.3): the step problem of the constraint rows, then the new
//! positions and their stabilisation.

pub(crate) mod islands;
mod isotropic_friction;
mod memory;
mod params;
mod restitution;
mod solution;
mod stepper;

pub use memory::StepMemory;
pub use params::{SPARSE_FROM, TimeSteppingParams};
pub use solution::StepSolution;
pub use stepper::{StepInput, TimeStepping};
