//! A force at a point of a body: constant or following a [`Profile`] in
//! time, its direction fixed in the world or turning with the body (a
//! thruster, switched on and off between steps with `enabled`).

use contact_math::Wrench;
use glam::DVec3;

use super::Profile;
use crate::{BodyState, RigidBody};

/// The frame a [`PointForce`]'s direction is fixed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForceFrame {
    /// The direction is a world vector.
    World,
    /// The direction is a body-frame vector and turns with the body.
    Body,
}

/// A force `magnitude(t) direction` at a body point.
#[derive(Clone, Debug, PartialEq)]
pub struct PointForce {
    /// The body it acts on.
    pub body: usize,
    /// The point of application in the body frame (m).
    pub point: DVec3,
    /// The direction (any length: the force is `magnitude(t)` times it).
    pub direction: DVec3,
    /// The frame `direction` is fixed in.
    pub frame: ForceFrame,
    /// The magnitude as a function of time (N per unit of `direction`).
    pub magnitude: Profile,
    /// Whether it acts (a thruster the user switches between steps).
    pub enabled: bool,
}

impl PointForce {
    /// A constant world force (N) at a body point (body frame, m).
    #[must_use]
    pub fn constant(body: usize, point: DVec3, force: DVec3) -> Self {
        Self {
            body,
            point,
            direction: force,
            frame: ForceFrame::World,
            magnitude: Profile::Constant(1.0),
            enabled: true,
        }
    }

    pub(super) fn check(&self, bodies: &[RigidBody]) -> Result<(), (&'static str, &'static str)> {
        if self.body >= bodies.len() {
            return Err(("body", "names a body that is not in the world"));
        }
        if !self.point.is_finite() {
            return Err(("point", "must be finite"));
        }
        if !self.direction.is_finite() {
            return Err(("direction", "must be finite"));
        }
        self.magnitude
            .check()
            .map_err(|reason| ("magnitude", reason))
    }

    pub(super) fn add_to(&self, bodies: &[BodyState], time: f64, wrenches: &mut [Wrench]) {
        let state = &bodies[self.body];
        if !self.enabled || !state.dynamic {
            return;
        }
        let direction = match self.frame {
            ForceFrame::World => self.direction,
            ForceFrame::Body => state.pose.rotation * self.direction,
        };
        let force = self.magnitude.at(time) * direction;
        let offset = state.pose.rotation * self.point;
        wrenches[self.body] += Wrench::at_point(force, offset);
    }
}
