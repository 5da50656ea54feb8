//! Simulation of rigid bodies in contact: a [`World`] of bodies, joints and
//! force elements under gravity, the collision pass that turns shapes into
//! contact constraints, and steppers that advance the world in time.
//!
//! The default stepper, [`FixedStepper`], takes fixed steps of the
//! velocity-level Anitescu-Potra scheme (Cline 2002, sec. 2.7.3): contacts
//! within a margin are found, the step's complementarity problem over every
//! contact's and joint's rows is solved exactly (with a certificate), positions
//! are integrated with the new velocities and projected back onto the
//! constraints (post-stabilisation, Cline ch. 3). See [`guide_mechanisms`]
//! for joints, forces and stabilisation.
//!
//! [`CaStepper`] advances by conservative advancement (Drumwright 2016,
//! Algorithm 1) instead: steps as long as no contact manifold can change
//! within them, every change logged, no pair ever deeper than a tolerance;
//! see [`guide_conservative_advancement`].
//! [`EventDrivenStepper`] integrates the accelerations, with the
//! contact forces of the acceleration-level LCP (Baraff 1994) between
//! events located in time: collisions (Newton impacts), contacts coming
//! to rest, Painleve's configurations.
//!
//! ```
//! use contact_sim::{FixedStepParams, FixedStepper, scenes};
//!
//! let mut world = scenes::box_stack(&scenes::BoxStack::default()).unwrap();
//! let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
//! for _ in 0..10 {
//!     stepper.step(&mut world).unwrap();
//! }
//! assert!(world.time() > 0.04);
//! ```

/// The crate README's example, compiled and run by `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[doc = include_str!("../../../docs/guide.md")]
pub mod guide {}

#[doc = include_str!("../../../docs/mechanisms.md")]
pub mod guide_mechanisms {}

#[doc = include_str!("../../../docs/conservative_advancement.md")]
pub mod guide_conservative_advancement {}

/// The README's examples, compiled and run by `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;

/// Everything a scene needs, in one import: `use contact_sim::prelude::*;`.
pub mod prelude {
    pub use crate::glam::{DQuat, DVec3};
    pub use crate::{
        Attachment, BodyId, FixedStepParams, FixedStepper, ForceElement, ForceFrame, Formulation,
        Joint, JointKind, MassProperties, PointForce, Pose, Profile, RigidBody, Shape, Spring,
        Stabilisation, StabilisationParams, TimeSteppingParams, Twist, World,
    };
}

mod collision;
mod error;
#[cfg(feature = "serde")]
pub mod scene_file;
pub mod scenes;
#[cfg(feature = "serde")]
pub mod simulation;
mod stepper;
#[cfg(feature = "serde")]
pub mod trajectory;
mod world;

pub use collision::CollisionPass;
pub use error::SimError;
pub use stepper::{
    CaError, CaEvent, CaEventKind, CaMemory, CaParams, CaStepReport, CaStepper, Event,
    EventDrivenMemory, EventDrivenParams, EventDrivenReport, EventDrivenStepper, EventKind,
    FixedStepParams, FixedStepper, HISTOGRAM_DECADES, OdeMethod, PainleveKind, StepLimit,
    StepReport, StepStatistics,
};
pub use world::{BodyId, ForceId, JointId, World};

pub use contact_dynamics::{
    Attachment, ContactConstraint, ContactFeature, ForceElement, ForceFrame, Formulation, Joint,
    JointKind, JointLimit, JointMotor, JointReaction, PointForce, Profile, RigidBody, Spring,
    Stabilisation, StabilisationParams, StepMemory, StepSolution, TimeSteppingParams,
    TrackedContact,
};
pub use contact_geometry::{ContactKind, Feature, Shape};
/// The LCP layer (problems, solvers, their file format with the `serde`
/// feature), for programs that solve LCPs beside simulating.
pub use contact_lcp;
/// The glam version the workspace is built on (`DVec3`, `DQuat`), so a
/// scene needs no glam of its own.
pub use contact_math::glam;
pub use contact_math::{MassProperties, Pose, Twist};
