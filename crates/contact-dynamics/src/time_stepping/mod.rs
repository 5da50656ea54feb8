//! Velocity-level time stepping after Anitescu and Potra (Cline 2002,
//! sec. 2.7.3): the contact problem of one step as an LCP.

mod delassus;
mod params;
mod solution;
mod stepper;

pub use params::{Formulation, TimeSteppingParams};
pub use solution::StepSolution;
pub use stepper::TimeStepping;
