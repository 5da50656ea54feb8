//! The world: bodies, joints, force elements, gravity and the clock.

use contact_dynamics::{BodyState, ForceElement, Joint, JointKind, RigidBody};
use glam::DVec3;

use crate::SimError;

/// Handle of a body in a [`World`]: its index, stable for the world's life
/// (bodies are never removed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyId(pub usize);

/// Handle of a joint in a [`World`]: its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JointId(pub usize);

/// Handle of a force element in a [`World`]: its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ForceId(pub usize);

/// Bodies, the joints between them and the force elements acting on them,
/// under gravity, and the simulated time.
#[derive(Clone, Debug, PartialEq)]
pub struct World {
    bodies: Vec<RigidBody>,
    joints: Vec<Joint>,
    forces: Vec<ForceElement>,
    /// Gravitational acceleration (m/s^2), world frame; e.g. `(0, 0, -9.81)`.
    pub gravity: DVec3,
    time: f64,
    planar: bool,
}

impl World {
    /// An empty world with the given gravity.
    #[must_use]
    pub fn new(gravity: DVec3) -> Self {
        Self {
            bodies: Vec::new(),
            joints: Vec::new(),
            forces: Vec::new(),
            gravity,
            time: 0.0,
            planar: false,
        }
    }

    /// An empty planar world (the myPhysicsLab world): every body added is
    /// held in the vertical x-z plane through its position, rotating about y
    /// only ([`RigidBody::with_planar`]).
    #[must_use]
    pub fn planar(gravity: DVec3) -> Self {
        Self {
            planar: true,
            ..Self::new(gravity)
        }
    }

    /// Whether every body added is made planar.
    #[must_use]
    pub fn is_planar(&self) -> bool {
        self.planar
    }

    /// Adds a body and returns its handle (planar in a planar world: a
    /// dynamic body not planar yet is locked at its pose as added).
    pub fn add_body(&mut self, body: RigidBody) -> BodyId {
        let body = if self.planar && body.is_dynamic() && !body.is_planar() {
            body.with_planar(true)
        } else {
            body
        };
        self.bodies.push(body);
        BodyId(self.bodies.len() - 1)
    }

    /// A body by handle.
    ///
    /// # Panics
    /// When the handle is not from this world.
    #[must_use]
    #[track_caller]
    pub fn body(&self, id: BodyId) -> &RigidBody {
        &self.bodies[id.0]
    }

    /// A body by handle, mutably (to set a velocity or apply a force, say).
    ///
    /// # Panics
    /// When the handle is not from this world.
    #[track_caller]
    pub fn body_mut(&mut self, id: BodyId) -> &mut RigidBody {
        &mut self.bodies[id.0]
    }

    /// All bodies, indexed by `BodyId.0`.
    #[must_use]
    pub fn bodies(&self) -> &[RigidBody] {
        &self.bodies
    }

    pub(crate) fn bodies_mut(&mut self) -> &mut [RigidBody] {
        &mut self.bodies
    }

    /// Adds a joint, checked against the world's bodies.
    ///
    /// # Errors
    /// [`SimError::Dynamics`] with `DynamicsError::InvalidJoint` naming the
    /// joint it would have been and the field; the world is unchanged.
    pub fn add_joint(&mut self, joint: Joint) -> Result<JointId, SimError> {
        let index = self.joints.len();
        joint.validate(index, &self.bodies)?;
        self.joints.push(joint);
        Ok(JointId(index))
    }

    /// Adds a joint of `kind` between body `a` (or the world, `None`) and
    /// body `b`, its anchor frame at `anchor` (world) with its z axis along
    /// `axis` (world), so it holds exactly at the bodies' current poses (see
    /// `Joint::at_world_frame`). A hinge turns about `axis`, a prismatic
    /// joint slides along it.
    ///
    /// # Errors
    /// As [`World::add_joint`], and for a zero or non-finite axis or anchor.
    pub fn add_joint_at(
        &mut self,
        kind: JointKind,
        a: Option<BodyId>,
        b: BodyId,
        anchor: DVec3,
        axis: DVec3,
    ) -> Result<JointId, SimError> {
        let joint = Joint::at_world_frame(kind, &self.bodies, a.map(|a| a.0), b.0, anchor, axis)
            .map_err(|e| with_joint_index(e, self.joints.len()))?;
        self.add_joint(joint)
    }

    /// A joint by handle.
    ///
    /// # Panics
    /// When the handle is not from this world.
    #[must_use]
    #[track_caller]
    pub fn joint(&self, id: JointId) -> &Joint {
        &self.joints[id.0]
    }

    /// A joint by handle, mutably (a motor's speed, say); checked again by
    /// the next step.
    ///
    /// # Panics
    /// When the handle is not from this world.
    #[track_caller]
    pub fn joint_mut(&mut self, id: JointId) -> &mut Joint {
        &mut self.joints[id.0]
    }

    /// All joints, indexed by `JointId.0`.
    #[must_use]
    pub fn joints(&self) -> &[Joint] {
        &self.joints
    }

    /// Adds a force element, checked against the world's bodies.
    ///
    /// # Errors
    /// [`SimError::Dynamics`] with `DynamicsError::InvalidForce` naming the
    /// element and the field; the world is unchanged.
    pub fn add_force(&mut self, element: ForceElement) -> Result<ForceId, SimError> {
        let index = self.forces.len();
        element.validate_new(index, &self.bodies)?;
        self.forces.push(element);
        Ok(ForceId(index))
    }

    /// A force element by handle.
    ///
    /// # Panics
    /// When the handle is not from this world.
    #[must_use]
    #[track_caller]
    pub fn force(&self, id: ForceId) -> &ForceElement {
        &self.forces[id.0]
    }

    /// A force element by handle, mutably (to switch a thruster, say);
    /// checked again by the next step.
    ///
    /// # Panics
    /// When the handle is not from this world.
    #[track_caller]
    pub fn force_mut(&mut self, id: ForceId) -> &mut ForceElement {
        &mut self.forces[id.0]
    }

    /// All force elements, indexed by `ForceId.0`.
    #[must_use]
    pub fn forces(&self) -> &[ForceElement] {
        &self.forces
    }

    /// The largest position error of any joint (m or rad): how far the
    /// joints are from holding (see `Joint::error`).
    #[must_use]
    pub fn largest_joint_error(&self) -> f64 {
        let states: Vec<BodyState> = self
            .bodies
            .iter()
            .map(|body| BodyState::at_pose(body, body.pose, 0.0))
            .collect();
        self.joints
            .iter()
            .map(|joint| joint.error(&states))
            .fold(0.0, f64::max)
    }

    /// Simulated time (s).
    #[must_use]
    pub fn time(&self) -> f64 {
        self.time
    }

    pub(crate) fn advance_clock(&mut self, h: f64) {
        self.time += h;
    }

    /// Sets the clock (a scene file's start time).
    #[cfg(feature = "serde")]
    pub(crate) fn set_time(&mut self, time: f64) {
        self.time = time;
    }

    /// Total kinetic energy (J).
    #[must_use]
    pub fn kinetic_energy(&self) -> f64 {
        self.bodies.iter().map(RigidBody::kinetic_energy).sum()
    }

    /// Total gravitational potential energy `-m g . x` (J), zero at the
    /// origin.
    #[must_use]
    pub fn potential_energy(&self) -> f64 {
        self.bodies
            .iter()
            .filter_map(|b| {
                b.mass_properties()
                    .map(|m| -m.mass() * self.gravity.dot(b.pose.translation))
            })
            .sum()
    }
}

fn with_joint_index(error: contact_dynamics::DynamicsError, index: usize) -> SimError {
    match error {
        contact_dynamics::DynamicsError::InvalidJoint { field, reason, .. } => {
            contact_dynamics::DynamicsError::InvalidJoint {
                joint: Some(index),
                field,
                reason,
            }
            .into()
        }
        other => other.into(),
    }
}
