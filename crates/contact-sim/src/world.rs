//! The world: bodies, gravity and the clock.

use contact_dynamics::RigidBody;
use glam::DVec3;

/// Handle of a body in a [`World`]: its index, stable for the world's life
/// (bodies are never removed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyId(pub usize);

/// Bodies under gravity, and the simulated time.
#[derive(Clone, Debug, PartialEq)]
pub struct World {
    bodies: Vec<RigidBody>,
    /// Gravitational acceleration (m/s^2), world frame; e.g. `(0, 0, -9.81)`.
    pub gravity: DVec3,
    time: f64,
}

impl World {
    /// An empty world with the given gravity.
    #[must_use]
    pub fn new(gravity: DVec3) -> Self {
        Self {
            bodies: Vec::new(),
            gravity,
            time: 0.0,
        }
    }

    /// Adds a body and returns its handle.
    pub fn add_body(&mut self, body: RigidBody) -> BodyId {
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

    /// A body by handle, mutably (to set a velocity, say).
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

    /// Simulated time (s).
    #[must_use]
    pub fn time(&self) -> f64 {
        self.time
    }

    pub(crate) fn advance_clock(&mut self, h: f64) {
        self.time += h;
    }

    /// Total kinetic energy (J).
    #[must_use]
    pub fn kinetic_energy(&self) -> f64 {
        self.bodies.iter().map(RigidBody::kinetic_energy).sum()
    }
}
