//! A linear spring-damper between two points (body points or world points;
//! the myPhysicsLab page's mouse spring joins a body point to a world point).
//!
//! With `d = p_b - p_a`, `L = |d|`, `n = d / L` and the relative velocity
//! `v = v_b - v_a` of the two points, the force on b is
//! `f = -(k (L - L0) + c n . v) n` (a gets `-f`).
//!
//! Explicitly, `f` at the start of the step enters the free flight.
//! Implicitly (Cline 2002, sec. 2.7.4, eq. 2.50-2.55), the step takes the
//! force at the end of the step, linearised: along `n`, the impulse
//! `lambda = -h (k (g + h J u+) + c J u+)` with `g = L - L0` and `J` the
//! row of `n . v`, which is a bilateral row
//! `J u+ + lambda / (h (h k + c)) + k g / (h k + c) = 0`: compliance
//! `1 / (h (h k + c))`, velocity target `-k g / (h k + c)`. Across `n` the
//! force's gradient is `k (1 - L0 / L)` per metre (the spring turning), two
//! rows with compliance `1 / (h^2 k (1 - L0 / L))` when that is positive.
//! The stiffness thus enters the step's matrix, and a stiff spring
//! (`k h^2 / m >> 1`) stays stable. At `L = 0` the three world axes serve
//! as directions.

use contact_math::Wrench;
use glam::DVec3;

use crate::constraints::{ConstraintRow, EmitRows, PositionCondition, RowBounds, RowSet};
use crate::friction_cone::tangent_pair;
use crate::{BodyState, JacobianRow, RigidBody};

/// One end of a spring.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Attachment {
    /// A fixed world point (m).
    World(DVec3),
    /// A point of a body, in the body frame (m).
    Body {
        /// The body.
        body: usize,
        /// The point in the body frame.
        point: DVec3,
    },
}

impl Attachment {
    fn body(&self) -> Option<usize> {
        match *self {
            Self::World(_) => None,
            Self::Body { body, .. } => Some(body),
        }
    }

    /// The world position of the attachment point.
    fn position(&self, bodies: &[BodyState]) -> DVec3 {
        match *self {
            Self::World(point) => point,
            Self::Body { body, point } => bodies[body].pose.transform_point(point),
        }
    }

    /// Its world velocity.
    fn velocity(&self, bodies: &[BodyState]) -> DVec3 {
        match *self {
            Self::World(_) => DVec3::ZERO,
            Self::Body { body, point } => {
                let state = &bodies[body];
                state.twist.point_velocity(state.pose.rotation * point)
            }
        }
    }
}

/// A linear spring-damper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring {
    /// First end.
    pub a: Attachment,
    /// Second end.
    pub b: Attachment,
    /// Stiffness `k` (N/m, >= 0).
    pub stiffness: f64,
    /// Damping `c` along the spring (N s/m, >= 0).
    pub damping: f64,
    /// Rest length `L0` (m, >= 0).
    pub rest_length: f64,
    /// Whether the step takes it linearly implicitly (see the module comment).
    pub implicit: bool,
}

impl Spring {
    pub(super) fn check(&self, bodies: &[RigidBody]) -> Result<(), (&'static str, &'static str)> {
        for (field, end) in [("a", &self.a), ("b", &self.b)] {
            match *end {
                Attachment::World(point) if !point.is_finite() => {
                    return Err((field, "point must be finite"));
                }
                Attachment::Body { body, .. } if body >= bodies.len() => {
                    return Err((field, "names a body that is not in the world"));
                }
                Attachment::Body { point, .. } if !point.is_finite() => {
                    return Err((field, "point must be finite"));
                }
                _ => {}
            }
        }
        if self.a.body().is_some() && self.a.body() == self.b.body() {
            return Err(("b", "a spring needs two different bodies"));
        }
        for (field, value) in [
            ("stiffness", self.stiffness),
            ("damping", self.damping),
            ("rest_length", self.rest_length),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err((field, "must be finite and >= 0"));
            }
        }
        Ok(())
    }

    pub(super) fn check_ends(
        &self,
        bodies: &[RigidBody],
    ) -> Result<(), (&'static str, &'static str)> {
        let position = |end: &Attachment| match *end {
            Attachment::World(point) => point,
            Attachment::Body { body, point } => bodies[body].pose.transform_point(point),
        };
        if self.rest_length == 0.0 && position(&self.a) == position(&self.b) {
            return Err((
                "rest_length",
                "the ends coincide and the rest length is 0: the spring has no direction",
            ));
        }
        Ok(())
    }

    /// The ends' positions, separation and unit direction (`None` at `L = 0`).
    fn geometry(&self, bodies: &[BodyState]) -> (DVec3, DVec3, f64, Option<DVec3>) {
        let (pa, pb) = (self.a.position(bodies), self.b.position(bodies));
        let length = (pb - pa).length();
        let direction = (length > 0.0).then(|| (pb - pa) / length);
        (pa, pb, length, direction)
    }

    /// The force on end b (N), world frame, at the bodies' states.
    #[must_use]
    pub fn force(&self, bodies: &[BodyState]) -> DVec3 {
        let (_, _, length, direction) = self.geometry(bodies);
        let relative = self.b.velocity(bodies) - self.a.velocity(bodies);
        match direction {
            Some(n) => {
                -(self.stiffness * (length - self.rest_length) + self.damping * n.dot(relative)) * n
            }
            // L = 0: the force is -k d - c v with d = 0.
            None => -self.damping * relative,
        }
    }

    pub(super) fn add_to(&self, bodies: &[BodyState], wrenches: &mut [Wrench]) {
        let force = self.force(bodies);
        let (pa, pb, _, _) = self.geometry(bodies);
        for (end, point, sign) in [(&self.a, pa, -1.0), (&self.b, pb, 1.0)] {
            if let Some(body) = end.body() {
                let offset = point - bodies[body].centre();
                wrenches[body] += Wrench::at_point(sign * force, offset);
            }
        }
    }
}

impl EmitRows for Spring {
    fn emit_rows(&self, bodies: &[BodyState], h: f64, out: &mut RowSet) {
        let (pa, pb, length, direction) = self.geometry(bodies);
        let (k, c) = (self.stiffness, self.damping);
        let row = |direction: DVec3| {
            JacobianRow::points(bodies, self.a.body(), self.b.body(), pa, pb, direction)
        };
        // A row whose impulse is -h (k_row (g + h J u+) + c_row J u+).
        let mut push = |jacobian: JacobianRow, k_row: f64, c_row: f64, g: f64| {
            let stiffness_rate = h * k_row + c_row;
            if stiffness_rate > 0.0 {
                out.push(ConstraintRow {
                    velocity_target: -k_row * g / stiffness_rate,
                    compliance: 1.0 / (h * stiffness_rate),
                    ..ConstraintRow::new(jacobian, RowBounds::Free, PositionCondition::None)
                });
            }
        };
        match direction {
            Some(n) => {
                push(row(n), k, c, length - self.rest_length);
                let transverse = k * (1.0 - self.rest_length / length);
                if transverse > 0.0 {
                    let (t1, t2) = tangent_pair(n);
                    push(row(t1), transverse, 0.0, 0.0);
                    push(row(t2), transverse, 0.0, 0.0);
                }
            }
            None => {
                for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
                    push(row(axis), k, c, 0.0);
                }
            }
        }
    }
}
