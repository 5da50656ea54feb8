//! A body as one step sees it: its pose, its velocity and the blocks of the
//! inverse of its step's mass matrix.
//!
//! Body damping (a force `-c v`, a torque `-c w`) is taken linearly
//! implicitly (Cline 2002, sec. 2.7.4, eq. 2.52-2.53 with `grad_v f = -C`):
//! the step's mass matrix is `M + h C`, so its inverse blocks are
//! `1 / (m + h c)` and `R (I_body + h c 1)^-1 R'`. With no damping they are
//! `1/m` and `R I^-1 R'`. A fixed body has zero blocks.

use contact_math::{Pose, Twist};
use glam::{DMat3, DVec3};

use crate::{DynamicsError, RigidBody};

/// A body's pose, twist and inverse mass blocks for one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Pose (unit rotation).
    pub pose: Pose,
    /// Twist at the start of the step.
    pub twist: Twist,
    /// Inverse of the linear block of the step's mass matrix (1/kg).
    pub inv_mass: f64,
    /// Inverse of the angular block of the step's mass matrix, world frame.
    pub inv_inertia: DMat3,
    /// Whether the body moves.
    pub dynamic: bool,
}

impl BodyState {
    /// The state of `body` at `pose`, with its damping taken implicitly over
    /// a step of `h` (pass `h = 0` for the plain inverse mass).
    #[must_use]
    pub fn at_pose(body: &RigidBody, pose: Pose, h: f64) -> Self {
        match body.mass_properties() {
            Some(mass) => {
                let (linear, angular) = body.damping();
                let (inv_mass, inv_inertia) = if linear == 0.0 && angular == 0.0 || h == 0.0 {
                    (mass.inv_mass(), mass.world_inv_inertia(pose.rotation))
                } else {
                    let damped =
                        mass.local_inertia() + DMat3::from_diagonal(DVec3::splat(h * angular));
                    let rotation = DMat3::from_quat(pose.rotation);
                    (
                        1.0 / (mass.mass() + h * linear),
                        rotation * damped.inverse() * rotation.transpose(),
                    )
                };
                Self {
                    pose,
                    twist: body.twist,
                    inv_mass,
                    inv_inertia,
                    dynamic: true,
                }
            }
            None => Self {
                pose,
                twist: Twist::ZERO,
                inv_mass: 0.0,
                inv_inertia: DMat3::ZERO,
                dynamic: false,
            },
        }
    }

    /// The state of body number `index` at its own pose, checked by the
    /// rotation rule of [`RigidBody`].
    ///
    /// # Errors
    /// [`DynamicsError::NonFiniteState`] or [`DynamicsError::NonUnitRotation`].
    pub fn of(body: &RigidBody, index: usize, h: f64) -> Result<Self, DynamicsError> {
        if !body.twist.is_finite() {
            return Err(DynamicsError::NonFiniteState { body: index });
        }
        Ok(Self::at_pose(body, body.checked_pose(index)?, h))
    }

    /// `W x`: the twist change of this body under the impulse wrench
    /// `(linear, angular)` about its centre of mass.
    #[must_use]
    pub fn response(&self, linear: DVec3, angular: DVec3) -> Twist {
        Twist::new(self.inv_mass * linear, self.inv_inertia * angular)
    }

    /// The centre of mass in the world.
    #[must_use]
    pub fn centre(&self) -> DVec3 {
        self.pose.translation
    }
}
