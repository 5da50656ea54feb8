//! The anchor frames of a joint in the world, and the rows joints share:
//! coincident points, equal orientations, aligned axes (Cline 2002,
//! sec. 4.4.1, in our linear-first twist order).
//!
//! Errors are measured so that each row's Jacobian is the exact time
//! derivative of its error where the joint holds:
//! - points: `g = e . (p_b - p_a)` along a world axis `e`, whose rate is the
//!   relative velocity of the two anchor points;
//! - orientation: `g = e . theta`, with `theta` the rotation vector of
//!   `R_b R_a'` (frame a to frame b in the world), whose rate is
//!   `e . (w_b - w_a)`;
//! - axes: `g = t . (n_a x n_b)` for a tangent `t` of `n_a`, whose rate at
//!   `n_a = n_b` is `t . (w_b - w_a)`.
//!
//! Curvature: the step moves the bodies along the chord `q -> q + h u+`,
//! which stays on a curved constraint (to second order) when `u+` is
//! tangent to it at the chord's midpoint: `J(q + h u / 2) u+ = 0`, that is
//! `J(q) u+ = -(h / 2) (dJ/dt) u` to first order, with `(dJ/dt) u` the
//! velocity-product terms of the rows (the `w x (w x r)` of a point, the
//! turning of an axis fixed in a body; cf. the myPhysicsLab page's eq. 5-11
//! at acceleration level). Asking `J(q) u+ = 0` instead projects each
//! step's velocity onto a tangent turned by `w h` from the last one, and a
//! pendulum loses energy at first order in `h`; asking it at the step's end
//! gains as much.

use contact_math::Twist;
use glam::{DQuat, DVec3};

use super::Joint;
use crate::constraints::{ConstraintRow, PositionCondition, RowBounds, RowSet};
use crate::friction_cone::tangent_pair;
use crate::{BodyState, JacobianRow};

/// A joint's two anchor frames in the world, at the bodies' states.
#[derive(Clone, Copy, Debug)]
pub(super) struct AnchorFrames {
    pub(super) a: Option<usize>,
    pub(super) b: usize,
    /// Anchor point on a (world).
    pub(super) point_a: DVec3,
    /// Anchor point on b (world).
    pub(super) point_b: DVec3,
    /// Orientation of frame a (world).
    pub(super) rotation_a: DQuat,
    /// Orientation of frame b (world).
    pub(super) rotation_b: DQuat,
    /// Twists of a and b at the start of the step (zero for the world).
    pub(super) twist_a: Twist,
    pub(super) twist_b: Twist,
    /// Centres of mass of a and b (a: the anchor for the world).
    pub(super) centre_a: DVec3,
    pub(super) centre_b: DVec3,
}

impl AnchorFrames {
    pub(super) fn of(joint: &Joint, bodies: &[BodyState]) -> Self {
        let frame_a = match joint.body_a {
            Some(i) => bodies[i].pose * joint.frame_a,
            None => joint.frame_a,
        };
        let frame_b = bodies[joint.body_b].pose * joint.frame_b;
        let (twist_a, centre_a) = match joint.body_a {
            Some(i) => (bodies[i].twist, bodies[i].centre()),
            None => (Twist::ZERO, frame_a.translation),
        };
        let b = &bodies[joint.body_b];
        Self {
            twist_a,
            twist_b: b.twist,
            centre_a,
            centre_b: b.centre(),
            a: joint.body_a,
            b: joint.body_b,
            point_a: frame_a.translation,
            point_b: frame_b.translation,
            rotation_a: frame_a.rotation,
            rotation_b: frame_b.rotation,
        }
    }

    /// Frame a's axis `local` (a unit vector of the frame) in the world.
    pub(super) fn axis_a(&self, local: DVec3) -> DVec3 {
        self.rotation_a * local
    }

    /// Frame b's axis `local` in the world.
    pub(super) fn axis_b(&self, local: DVec3) -> DVec3 {
        self.rotation_b * local
    }

    /// The row of the relative velocity along `direction` of b's material
    /// point at `point` with respect to a's material point there.
    pub(super) fn velocity_at(
        &self,
        bodies: &[BodyState],
        point: DVec3,
        direction: DVec3,
    ) -> JacobianRow {
        JacobianRow::points(bodies, self.a, Some(self.b), point, point, direction)
    }

    /// The row of `direction . (w_b - w_a)`.
    pub(super) fn angular(&self, bodies: &[BodyState], direction: DVec3) -> JacobianRow {
        JacobianRow::angular(bodies, self.a, Some(self.b), direction)
    }
}

/// A bilateral row with its error and its curvature `(dJ/dt) u`: its
/// velocity target is `-(h / 2) (dJ/dt) u` (see the module comment).
pub(super) fn equality(
    out: &mut RowSet,
    jacobian: JacobianRow,
    error: f64,
    curvature: f64,
    h: f64,
) {
    out.push(ConstraintRow {
        velocity_target: -0.5 * h * curvature,
        ..ConstraintRow::new(
            jacobian,
            RowBounds::Free,
            PositionCondition::Equality { error },
        )
    });
}

/// `w x (w x r)`: the centripetal part of a body point's acceleration.
fn centripetal(twist: &Twist, offset: DVec3) -> DVec3 {
    twist.angular.cross(twist.angular.cross(offset))
}

/// Three rows holding the anchor points together, along the world axes.
pub(super) fn coincident_points(
    frames: &AnchorFrames,
    bodies: &[BodyState],
    h: f64,
    out: &mut RowSet,
) {
    let separation = frames.point_b - frames.point_a;
    let curvature = centripetal(&frames.twist_b, frames.point_b - frames.centre_b)
        - centripetal(&frames.twist_a, frames.point_a - frames.centre_a);
    for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
        let row = JacobianRow::points(
            bodies,
            frames.a,
            Some(frames.b),
            frames.point_a,
            frames.point_b,
            axis,
        );
        equality(out, row, axis.dot(separation), axis.dot(curvature), h);
    }
}

/// Three rows holding the orientations equal, about the world axes (their
/// rows do not change with the configuration: no curvature).
pub(super) fn equal_orientations(frames: &AnchorFrames, bodies: &[BodyState], out: &mut RowSet) {
    let theta = rotation_vector(frames.rotation_b * frames.rotation_a.inverse());
    for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
        equality(out, frames.angular(bodies, axis), axis.dot(theta), 0.0, 0.0);
    }
}

/// The relative angular velocity `w_b - w_a`.
pub(super) fn relative_spin(frames: &AnchorFrames) -> DVec3 {
    frames.twist_b.angular - frames.twist_a.angular
}

/// Two rows holding frame b's z axis along frame a's. Their tangents turn
/// with a: curvature `(w_a x t) . (w_b - w_a)`.
pub(super) fn aligned_axes(frames: &AnchorFrames, bodies: &[BodyState], h: f64, out: &mut RowSet) {
    let n_a = frames.axis_a(DVec3::Z);
    let n_b = frames.axis_b(DVec3::Z);
    let (t1, t2) = tangent_pair(n_a);
    let cross = n_a.cross(n_b);
    let spin = relative_spin(frames);
    for t in [t1, t2] {
        let curvature = frames.twist_a.angular.cross(t).dot(spin);
        equality(out, frames.angular(bodies, t), t.dot(cross), curvature, h);
    }
}

/// Two rows holding b's anchor on the line through a's anchor along frame
/// a's z axis: the relative velocity at b's anchor across the line. With
/// `d = v_pb - v_a - w_a x (p_b - c_a)` that velocity, the curvature is
/// `(w_a x t) . d + t . (w_b x (w_b x r_b) - w_a x (v_pb - v_a))`.
pub(super) fn point_on_line(frames: &AnchorFrames, bodies: &[BodyState], h: f64, out: &mut RowSet) {
    let n_a = frames.axis_a(DVec3::Z);
    let (t1, t2) = tangent_pair(n_a);
    let separation = frames.point_b - frames.point_a;
    let (ta, tb) = (&frames.twist_a, &frames.twist_b);
    let r_b = frames.point_b - frames.centre_b;
    let v_pb = tb.point_velocity(r_b);
    let relative = v_pb - ta.point_velocity(frames.point_b - frames.centre_a);
    let turning = centripetal(tb, r_b) - ta.angular.cross(v_pb - ta.linear);
    for t in [t1, t2] {
        let row = frames.velocity_at(bodies, frames.point_b, t);
        let curvature = ta.angular.cross(t).dot(relative) + t.dot(turning);
        equality(out, row, t.dot(separation), curvature, h);
    }
}

/// The rotation vector (axis times angle, |angle| <= pi) of a unit quaternion.
pub(super) fn rotation_vector(q: DQuat) -> DVec3 {
    // The same rotation with w >= 0, so the angle is at most pi.
    let q = if q.w < 0.0 { -q } else { q };
    let v = DVec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s == 0.0 {
        return DVec3::ZERO;
    }
    let angle = 2.0 * s.atan2(q.w);
    v * (angle / s)
}
