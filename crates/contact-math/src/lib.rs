//! f64 rigid-body math on glam for the contact workspace.
//!
//! The bottom layer of the workspace: poses ([`Pose`]: translation and unit
//! quaternion), spatial velocities and forces ([`Twist`] `[v; w]` and
//! [`Wrench`] `[f; tau]`, linear first, world-aligned at the centre of mass),
//! the adjoint that moves them between frames ([`Adjoint`]), validated mass
//! properties ([`MassProperties`]), the exact quaternion exponential step
//! ([`integrate_rotation`], [`integrate_pose`]) and the Newton-Euler equations
//! ([`newton_euler_acceleration`]). Equations follow Cline's 2002 thesis,
//! chapter 2, reordered to our linear-first convention (Cline writes `[w; v]`).
//!
//! ```
//! use contact_math::{MassProperties, Pose, Twist, Wrench, integrate_pose, newton_euler_acceleration};
//! use glam::{DQuat, DVec3};
//!
//! let body = MassProperties::solid_box(2.0, DVec3::new(0.5, 0.25, 0.1))?;
//! let mut pose = Pose::from_translation(DVec3::new(0.0, 0.0, 1.0));
//! let mut twist = Twist::new(DVec3::ZERO, DVec3::new(0.0, 0.0, 3.0));
//! let gravity = Wrench::new(DVec3::new(0.0, 0.0, -9.81 * body.mass()), DVec3::ZERO);
//! let acc = newton_euler_acceleration(&body, pose.rotation, twist.angular, &gravity);
//! twist += acc * 0.01;
//! pose = integrate_pose(&pose, &twist, 0.01);
//! assert!(pose.translation.z < 1.0 && (pose.rotation.length() - 1.0).abs() < 1e-15);
//! # Ok::<(), contact_math::MathError>(())
//! ```
//!
//! Input checks: constructors that take untrusted numbers return
//! `Result<_, MathError>` and reject NaN and infinities; the plain arithmetic
//! (pose composition, twist transforms) does not check, and `is_finite`
//! methods are there for callers that receive such values from outside.

/// The crate README's example, compiled and run by `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[macro_use]
mod spatial_ops;

mod adjoint;
mod error;
mod integration;
mod mass_properties;
mod newton_euler;
mod pose;
mod skew;
mod symmetric_eigen;
mod twist;
mod wrench;

#[cfg(test)]
mod test_rng;

pub use adjoint::Adjoint;
pub use error::MathError;
pub use integration::{integrate_pose, integrate_rotation, try_integrate_pose};
pub use mass_properties::{
    INERTIA_CONDITION_TOLERANCE, INERTIA_SYMMETRY_TOLERANCE, MassProperties,
    TRIANGLE_INEQUALITY_TOLERANCE,
};
pub use newton_euler::{gyroscopic_torque, newton_euler_acceleration};
pub use pose::{Pose, UNIT_QUATERNION_TOLERANCE};
pub use skew::{skew, unskew};
pub use symmetric_eigen::{SymmetricEigen, symmetric_eigen};
pub use twist::Twist;
pub use wrench::Wrench;

/// The glam version this crate is built on, re-exported so dependants use the
/// same `DVec3`, `DQuat` and `DMat3` types.
pub use glam;
