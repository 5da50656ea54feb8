//! Rigid bodies: state, shape, material (friction, restitution), mass,
//! damping and the loads applied to them between steps.

use contact_geometry::Shape;
use contact_math::{MassProperties, Pose, Twist};
use glam::{DMat3, DVec3};

use crate::{DynamicsError, PlanarLock};

/// Where a planar lock holds a body: see [`PlanarLock`].
#[derive(Clone, Copy, Debug, PartialEq)]
struct PlanarLockFrame {
    plane_y: f64,
    axis_in_body: DVec3,
}

/// Loads accumulated on a body between two steps, cleared by the stepper
/// after each successful step (see [`RigidBody::apply_force_at_point`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AppliedLoads {
    /// Force acting through the step (N), world frame.
    pub force: DVec3,
    /// Torque about the centre of mass acting through the step (N m), world frame.
    pub torque: DVec3,
    /// Linear impulse applied at the start of the step (N s), world frame.
    pub linear_impulse: DVec3,
    /// Angular impulse about the centre of mass (N m s), world frame.
    pub angular_impulse: DVec3,
}

impl AppliedLoads {
    /// Whether every component is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.force.is_finite()
            && self.torque.is_finite()
            && self.linear_impulse.is_finite()
            && self.angular_impulse.is_finite()
    }
}

/// A rigid body: its pose, its velocity, its shape, its material (friction,
/// restitution), its damping and, if it moves, its mass properties.
///
/// The body frame's origin is the centre of mass: `pose.translation` is the
/// centre of mass in the world, and `twist` is measured there (linear first,
/// world-aligned; see `docs/conventions.md`). Shapes are given in the body
/// frame.
///
/// Rotation rule: each step takes `pose.rotation` as [`Pose::try_new`] does,
/// renormalising a quaternion within
/// [`UNIT_QUATERNION_TOLERANCE`](contact_math::UNIT_QUATERNION_TOLERANCE) of
/// unit length (the body keeps the normalised pose after the step) and
/// refusing one further from it with [`DynamicsError::NonUnitRotation`].
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
    /// Newton's coefficient of restitution (0..=1): the fraction of the
    /// approach speed a contact gives back. A pair uses the larger of its
    /// two bodies' coefficients (Box2D's rule), so a bouncy ball keeps its
    /// bounce on a ground left at the default 0.
    restitution: f64,
    mass: Option<MassProperties>,
    /// Linear damping coefficient (N s/m, >= 0): a force `-c v`.
    linear_damping: f64,
    /// Angular damping coefficient (N m s, >= 0): a torque `-c w`.
    angular_damping: f64,
    /// The body's lock to a vertical x-z plane, if any.
    planar: Option<PlanarLockFrame>,
    loads: AppliedLoads,
}

impl RigidBody {
    /// A body that moves under forces and contacts, at rest, friction 0.5.
    ///
    /// # Errors
    /// [`DynamicsError::UnboundedDynamicShape`] for a half-space,
    /// [`DynamicsError::FrameNotAtCentreOfMass`] when the mass properties put
    /// the centre of mass away from the body frame's origin (by more than
    /// 1e-12 relative to the shape's size), and
    /// [`DynamicsError::NonUnitRotation`] / [`DynamicsError::NonFiniteState`]
    /// for a pose that [`Pose::try_new`] refuses (a rotation within its
    /// tolerance of unit length is renormalised).
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
        let mut body = Self::fixed(shape, pose);
        body.mass = Some(mass);
        body.pose = body.checked_pose(0)?;
        Ok(body)
    }

    /// A body that never moves (ground, walls), friction 0.5. Its pose is
    /// checked by the first step (see the rotation rule above).
    #[must_use]
    pub fn fixed(shape: Shape, pose: Pose) -> Self {
        Self {
            pose,
            twist: Twist::ZERO,
            shape,
            friction: 0.5,
            restitution: 0.0,
            mass: None,
            linear_damping: 0.0,
            angular_damping: 0.0,
            planar: None,
            loads: AppliedLoads::default(),
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

    /// The same body with another coefficient of restitution.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidParameter`] (`restitution`) outside `[0, 1]`
    /// or NaN.
    pub fn with_restitution(mut self, restitution: f64) -> Result<Self, DynamicsError> {
        if !(0.0..=1.0).contains(&restitution) {
            return Err(DynamicsError::InvalidParameter {
                name: "restitution",
                value: restitution,
            });
        }
        self.restitution = restitution;
        Ok(self)
    }

    /// Newton's coefficient of restitution of the body.
    #[must_use]
    pub fn restitution(&self) -> f64 {
        self.restitution
    }

    /// The same body with viscous damping: a force `-linear v` (N s/m) and a
    /// torque `-angular w` (N m s), the myPhysicsLab page's "damping". The
    /// stepper takes damping linearly implicitly (Cline 2002, sec. 2.7.4),
    /// so any coefficient is stable.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidParameter`] for a negative or non-finite coefficient.
    pub fn with_damping(mut self, linear: f64, angular: f64) -> Result<Self, DynamicsError> {
        for (name, value) in [("linear_damping", linear), ("angular_damping", angular)] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(DynamicsError::InvalidParameter { name, value });
            }
        }
        self.linear_damping = linear;
        self.angular_damping = angular;
        Ok(self)
    }

    /// The same body held in the vertical plane through its current
    /// position, parallel to x-z, rotating about y only (the myPhysicsLab
    /// world), by a planar lock to the world ([`PlanarLock`]).
    #[must_use]
    pub fn with_planar(mut self, planar: bool) -> Self {
        self.set_planar(planar);
        self
    }

    /// Locks the body to the x-z plane through its current position and to
    /// rotations about y from its current orientation, or frees it.
    pub fn set_planar(&mut self, planar: bool) {
        self.planar = planar.then(|| {
            let lock = PlanarLock::at(0, &self.pose);
            PlanarLockFrame {
                plane_y: lock.plane_y,
                axis_in_body: lock.axis_in_body,
            }
        });
    }

    /// The same body held by an explicit planar lock: in the plane
    /// `y = plane_y`, with its body-frame vector `axis_in_body` kept along
    /// world y (what [`RigidBody::planar_lock`] reports). For restoring a
    /// saved body whose lock was set at an earlier pose; `with_planar(true)`
    /// takes the lock at the current pose instead.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidParameter`] (`planar_lock.plane_y` or
    /// `planar_lock.axis_in_body`) for a non-finite plane or an axis that is
    /// not a finite unit vector (within 1e-9).
    pub fn with_planar_lock(
        mut self,
        plane_y: f64,
        axis_in_body: DVec3,
    ) -> Result<Self, DynamicsError> {
        if !plane_y.is_finite() {
            return Err(DynamicsError::InvalidParameter {
                name: "planar_lock.plane_y",
                value: plane_y,
            });
        }
        let length = axis_in_body.length();
        if !(length.is_finite() && (length - 1.0).abs() <= 1e-9) {
            return Err(DynamicsError::InvalidParameter {
                name: "planar_lock.axis_in_body",
                value: length,
            });
        }
        self.planar = Some(PlanarLockFrame {
            plane_y,
            axis_in_body,
        });
        Ok(self)
    }

    /// Whether the body is held in a plane.
    #[must_use]
    pub fn is_planar(&self) -> bool {
        self.planar.is_some()
    }

    /// The planar lock of this body, numbered `index`, if it has one.
    #[must_use]
    pub fn planar_lock(&self, index: usize) -> Option<PlanarLock> {
        self.planar.map(|frame| PlanarLock {
            body: index,
            plane_y: frame.plane_y,
            axis_in_body: frame.axis_in_body,
        })
    }

    /// The body's Coulomb friction coefficient.
    #[must_use]
    pub fn friction(&self) -> f64 {
        self.friction
    }

    /// The damping coefficients `(linear N s/m, angular N m s)`.
    #[must_use]
    pub fn damping(&self) -> (f64, f64) {
        (self.linear_damping, self.angular_damping)
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
            Some(mass) => mass.kinetic_energy(self.pose.rotation, &self.twist),
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

    /// Adds a force (N, world) acting at a world point through the next
    /// step: the force and its moment about the centre of mass.
    pub fn apply_force_at_point(&mut self, force: DVec3, world_point: DVec3) {
        self.loads.force += force;
        self.loads.torque += (world_point - self.pose.translation).cross(force);
    }

    /// Adds a force (N, world) through the centre of mass for the next step.
    pub fn apply_force(&mut self, force: DVec3) {
        self.loads.force += force;
    }

    /// Adds a torque (N m, world) for the next step.
    pub fn apply_torque(&mut self, torque: DVec3) {
        self.loads.torque += torque;
    }

    /// Adds an impulse (N s, world) at a world point, applied at the start of
    /// the next step.
    pub fn apply_impulse_at_point(&mut self, impulse: DVec3, world_point: DVec3) {
        self.loads.linear_impulse += impulse;
        self.loads.angular_impulse += (world_point - self.pose.translation).cross(impulse);
    }

    /// Adds an angular impulse (N m s, world) applied at the start of the next step.
    pub fn apply_angular_impulse(&mut self, impulse: DVec3) {
        self.loads.angular_impulse += impulse;
    }

    /// The loads accumulated since the last step.
    #[must_use]
    pub fn applied_loads(&self) -> &AppliedLoads {
        &self.loads
    }

    /// Clears the accumulated loads (the stepper does it after each step).
    pub fn clear_applied_loads(&mut self) {
        self.loads = AppliedLoads::default();
    }

    /// The pose by the rotation rule of the type's documentation: finite,
    /// rotation renormalised when within tolerance. `index` names the body
    /// in an error.
    pub(crate) fn checked_pose(&self, index: usize) -> Result<Pose, DynamicsError> {
        if !self.pose.is_finite() {
            return Err(DynamicsError::NonFiniteState { body: index });
        }
        Pose::try_new(self.pose.translation, self.pose.rotation).map_err(|_| {
            DynamicsError::NonUnitRotation {
                body: index,
                norm: self.pose.rotation.length(),
            }
        })
    }
}
