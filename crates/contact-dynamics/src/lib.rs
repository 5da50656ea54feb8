//! Rigid-body dynamics with contact: bodies and their mass matrices, the
//! Jacobians of contact constraints, and the assembly of the contact problem
//! as a linear complementarity problem (LCP) solved by `contact-lcp`.
//!
//! The stepper of this crate is the velocity-level time-stepping scheme of
//! Anitescu and Potra (Cline 2002, sec. 2.7.3, eq. 2.45-2.49): unknowns are
//! the velocities at the end of the step and the contact impulses, with a
//! polyhedral friction cone of `k` directions per contact. It has a solution
//! for every configuration, which is why it is the default.
//!
//! ```
//! use contact_dynamics::{ContactConstraint, RigidBody, TimeStepping, TimeSteppingParams, StepSolution};
//! use contact_geometry::Shape;
//! use contact_math::{MassProperties, Pose};
//! use glam::DVec3;
//!
//! let ground = RigidBody::fixed(Shape::half_space(DVec3::Z).unwrap(), Pose::IDENTITY);
//! let cube_mass = MassProperties::solid_box(1.0, DVec3::splat(0.5)).unwrap();
//! let cube = RigidBody::dynamic(Shape::cuboid(DVec3::splat(0.5)).unwrap(), cube_mass,
//!     Pose::from_translation(DVec3::new(0.0, 0.0, 0.5))).unwrap();
//! // One contact under the cube's centre, touching (distance 0), friction 0.5.
//! let contact = ContactConstraint { body_a: 0, body_b: 1, point: DVec3::ZERO,
//!     normal: DVec3::Z, distance: 0.0, friction: 0.5 };
//! let mut stepper = TimeStepping::new(TimeSteppingParams::default());
//! let mut solution = StepSolution::default();
//! let h = 0.01;
//! stepper.solve(&[ground, cube], &[contact], DVec3::new(0.0, 0.0, -9.81), h, &mut solution).unwrap();
//! assert!((solution.normal_impulses[0] - 9.81 * h).abs() < 1e-9); // it holds the cube's weight
//! assert!(solution.velocities[1].linear.length() < 1e-9);           // and the cube stays at rest
//! ```

mod body;
mod contact_constraint;
mod error;
mod friction_cone;
mod jacobian;
mod time_stepping;

pub use body::RigidBody;
pub use contact_constraint::ContactConstraint;
pub use error::DynamicsError;
pub use friction_cone::friction_directions;
pub use jacobian::{BodyJacobian, JacobianRow};
pub use time_stepping::{Formulation, StepSolution, TimeStepping, TimeSteppingParams};
