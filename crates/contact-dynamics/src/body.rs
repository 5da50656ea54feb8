//! Rigid bodies: state, shape, material and mass.

use contact_geometry::Shape;
use contact_math::{MassProperties, Pose, Twist};
use glam::{DMat3, DVec3};

use crate::DynamicsError;

/// A rigid body: its pose, its velocity, its shape, its friction
/// coefficient and, if it moves, its mass properties.
///
/// The body frame's origin is the centre of mass: `pose.translation` is the
/// centre of mass in the world, and `twist` is measured there (linear first,
/// world-aligned; see `docs/conventions.md`). Shapes are given in the body
/// frame.
#[derive(Clone, Debug, PartialEq)]
pub struct RigidBody {
    /// World pose of the body frame (m, unit quaternion).
    pub pose: Pose,
    /// Velocity at the centre of mass, world-aligned (m/s, rad/s).
    /// Always zero for a fixed body.
    pub twist: Twist,
    /// Shape in the body frame.
    pub shape: Shape,
    /// Coulomb friction coefficient (dimensionless, >= 0, typically 0.2-1).
    /// A contact uses the geometric mean of its two bodies' coefficients.
    friction: f64,
    mass: Option<MassProperties>,
}

impl RigidBody {
    /// A body that moves under forces and contacts, at rest, friction 0.5.
    ///
    /// # Errors
    /// [`DynamicsError::UnboundedDynamicShape`] for a half-space, and
    /// [`DynamicsError::FrameNotAtCentreOfMass`] when the mass properties put
    /// the centre of mass away from the body frame's origin (by more than
    /// 1e-12 relative to the shape's size).
    pub fn dynamic(shape: Shape, mass: MassProperties, pose: Pose) -> Result<Self, DynamicsError> {
        if !shape.is_bounded() {
            return Err(DynamicsError::UnboundedDynamicShape { kind: shape.kind() });
        }
        let local_com = mass.local_com();
        if local_com.length() > 1e-12 * shape.bounding_radius() {
            return Err(DynamicsError::FrameNotAtCentreOfMass {
                local_com: local_com.to_array(),
            });
        }
        Ok(Self {
            pose,
            twist: Twist::ZERO,
            shape,
            friction: 0.5,
            mass: Some(mass),
        })
    }

    /// A body that never moves (ground, walls), friction 0.5.
    #[must_use]
    pub fn fixed(shape: Shape, pose: Pose) -> Self {
        Self {
            pose,
            twist: Twist::ZERO,
            shape,
            friction: 0.5,
            mass: None,
        }
    }

    /// The same body with another friction coefficient.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidFriction`] when `friction` is negative or not finite.
    pub fn with_friction(mut self, friction: f64) -> Result<Self, DynamicsError> {
        if !(friction.is_finite() && friction >= 0.0) {
            return Err(DynamicsError::InvalidFriction { value: friction });
        }
        self.friction = friction;
        Ok(self)
    }

    /// The body's Coulomb friction coefficient.
    #[must_use]
    pub fn friction(&self) -> f64 {
        self.friction
    }

    /// Whether the body moves.
    #[must_use]
    pub fn is_dynamic(&self) -> bool {
        self.mass.is_some()
    }

    /// The mass properties of a dynamic body; `None` for a fixed one.
    #[must_use]
    pub fn mass_properties(&self) -> Option<&MassProperties> {
        self.mass.as_ref()
    }

    /// The two blocks of the inverse mass matrix: `1/m` and the world-frame
    /// inverse inertia `R I^-1 R'`; both zero for a fixed body, which is
    /// what makes it immovable in every formula that uses them.
    #[must_use]
    pub fn inverse_mass_blocks(&self) -> (f64, DMat3) {
        match &self.mass {
            Some(mass) => (mass.inv_mass(), mass.world_inv_inertia(self.pose.rotation)),
            None => (0.0, DMat3::ZERO),
        }
    }

    /// Kinetic energy `m v'v / 2 + w' I w / 2` (J); zero for a fixed body.
    #[must_use]
    pub fn kinetic_energy(&self) -> f64 {
        match &self.mass {
            Some(mass) => {
                let inertia = mass.world_inertia(self.pose.rotation);
                let w = self.twist.angular;
                0.5 * mass.mass() * self.twist.linear.length_squared() + 0.5 * w.dot(inertia * w)
            }
            None => 0.0,
        }
    }

    /// Whether pose and twist are finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.pose.is_finite() && self.twist.is_finite()
    }

    /// The velocity of a world point moving with the body (Cline eq. 2.8).
    #[must_use]
    pub fn point_velocity(&self, world_point: DVec3) -> DVec3 {
        self.twist
            .point_velocity(world_point - self.pose.translation)
    }
}
