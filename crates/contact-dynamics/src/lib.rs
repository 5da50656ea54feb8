//! Rigid-body dynamics with contact and joints: bodies and their mass
//! matrices, constraints that emit Jacobian rows (contacts with friction,
//! joints with limits and motors, planar locks, implicit springs), applied
//! forces, the step problem built from those rows as a complementarity
//! problem solved by `contact-lcp`, and stabilisation.
//!
//! Where each piece lives:
//! - `constraints/`: the row design (`mod.rs`), contacts, joints (one file
//!   per kind), the planar lock;
//! - `forces/`: force elements (point forces, springs) and their profiles;
//! - `formulation/`: the step problem from rows, Anitescu-Potra's LCP or the
//!   box-friction problem, and the Delassus matrix `J W J'`;
//! - `stabilisation/`: Baumgarte's term and the post-stabilisation
//!   projection (Cline 2002, ch. 3);
//! - `time_stepping/`: the step itself (Cline sec. 4.1);
//! - `acceleration/`: contact forces at acceleration level (Baraff 1994)
//!   and simultaneous impacts with restitution, for event-driven steppers.
//!
//! The stepper is the velocity-level time-stepping scheme of Anitescu and
//! Potra (Cline 2002, sec. 2.7.3, eq. 2.45-2.49): unknowns are the
//! velocities at the end of the step and the constraint impulses, with a
//! polyhedral friction cone of `k` directions per contact. It has a solution
//! for every configuration, which is why it is the default.
//!
//! ```
//! use contact_dynamics::{ContactConstraint, RigidBody, StepInput, StepSolution, TimeStepping, TimeSteppingParams};
//! use contact_geometry::{Feature, Shape};
//! use contact_math::{MassProperties, Pose};
//! use glam::DVec3;
//!
//! let ground = RigidBody::fixed(Shape::half_space(DVec3::Z).unwrap(), Pose::IDENTITY);
//! let cube_mass = MassProperties::solid_box(1.0, DVec3::splat(0.5)).unwrap();
//! let cube = RigidBody::dynamic(Shape::cuboid(DVec3::splat(0.5)).unwrap(), cube_mass,
//!     Pose::from_translation(DVec3::new(0.0, 0.0, 0.5))).unwrap();
//! // One contact under the cube's centre, touching (distance 0), friction 0.5.
//! let contact = ContactConstraint { body_a: 0, body_b: 1, point: DVec3::ZERO,
//!     normal: DVec3::Z, distance: 0.0, friction: 0.5, restitution: 0.0,
//!     features: [Feature::Unknown; 2] };
//! let (bodies, contacts) = ([ground, cube], [contact]);
//! let mut stepper = TimeStepping::new(TimeSteppingParams::default());
//! let mut solution = StepSolution::default();
//! let h = 0.01;
//! let input = StepInput::contacts_only(&bodies, &contacts, DVec3::new(0.0, 0.0, -9.81));
//! stepper.step(&input, h, &mut solution).unwrap();
//! assert!((solution.normal_impulses[0] - 9.81 * h).abs() < 1e-9); // it holds the cube's weight
//! assert!(solution.velocities[1].linear.length() < 1e-9);           // and the cube stays at rest
//! ```

/// The crate README's example, compiled and run by `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod acceleration;
mod body;
mod body_state;
mod constraints;
mod error;
mod forces;
mod formulation;
mod friction_cone;
mod jacobian;
mod jet;
mod stabilisation;
mod time_stepping;

pub use acceleration::{
    AccelerationInput, AccelerationProblem, AccelerationSolution, ContactFeature,
    ContactKinematics, FrictionMode, ImpactProblem, ImpactSolution, TrackedContact,
};
pub use body::{AppliedLoads, RigidBody};
pub use body_state::BodyState;
pub use constraints::contact::ContactConstraint;
pub use constraints::joints::{Joint, JointKind, JointLimit, JointMotor, JointReaction};
pub use constraints::planar::PlanarLock;
pub use constraints::{
    ConstraintRef, ConstraintRow, PositionCondition, RowBounds, RowOwner, RowSet,
    StabilisationGroup,
};
pub use error::DynamicsError;
pub use forces::{Attachment, ForceElement, ForceFrame, PointForce, Profile, Spring};
pub use formulation::Formulation;
pub use friction_cone::{friction_directions, friction_generators, tangent_pair};
pub use jacobian::{BodyJacobian, JacobianRow};
pub use stabilisation::post::ProjectionReport;
pub use stabilisation::{Stabilisation, StabilisationParams};
pub use time_stepping::{
    SPARSE_FROM, StepInput, StepMemory, StepSolution, TimeStepping, TimeSteppingParams,
};
