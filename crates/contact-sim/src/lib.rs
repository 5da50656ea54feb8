//! Simulation of rigid bodies in contact: a [`World`] of bodies, joints and
//! force elements under gravity, the collision pass that turns shapes into
//! contact constraints, and steppers that advance the world in time.
//!
//! The default stepper, [`FixedStepper`], takes fixed steps of the
//! velocity-level Anitescu-Potra scheme (Cline 2002, sec. 2.7.3): contacts
//! within a margin are found, the step's complementarity problem over every
//! contact's and joint's rows is solved exactly (Lemke's method), positions
//! are integrated with the new velocities and projected back onto the
//! constraints (post-stabilisation, Cline ch. 3). See [`guide_mechanisms`]
//! for joints, forces and stabilisation.
//!
//! [`EventDrivenStepper`] integrates the accelerations instead, with the
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

#[doc = include_str!("../../../docs/mechanisms.md")]
pub mod guide_mechanisms {}

/// The README's examples, compiled and run by `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;

mod collision;
mod error;
pub mod scenes;
mod stepper;
mod world;

pub use collision::CollisionPass;
pub use error::SimError;
pub use stepper::{
    Event, EventDrivenParams, EventDrivenReport, EventDrivenStepper, EventKind, FixedStepParams,
    FixedStepper, OdeMethod, PainleveKind, StepReport,
};
pub use world::{BodyId, ForceId, JointId, World};

pub use contact_dynamics::{
    Attachment, ContactConstraint, ContactFeature, ForceElement, ForceFrame, Formulation, Joint,
    JointKind, JointLimit, JointMotor, JointReaction, PointForce, Profile, RigidBody, Spring,
    Stabilisation, StabilisationParams, StepSolution, TimeSteppingParams, TrackedContact,
};
pub use contact_geometry::Shape;
/// The glam version the workspace is built on (`DVec3`, `DQuat`), so a
/// scene needs no glam of its own.
pub use contact_math::glam;
pub use contact_math::{MassProperties, Pose, Twist};
