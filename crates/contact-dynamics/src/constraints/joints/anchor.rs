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
}

impl AnchorFrames {
    pub(super) fn of(joint: &Joint, bodies: &[BodyState]) -> Self {
        let frame_a = match joint.body_a {
            Some(i) => bodies[i].pose * joint.frame_a,
            None => joint.frame_a,
        };
        let frame_b = bodies[joint.body_b].pose * joint.frame_b;
        Self {
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

fn equality(out: &mut RowSet, jacobian: JacobianRow, error: f64) {
    out.push(ConstraintRow::new(
        jacobian,
        RowBounds::Free,
        PositionCondition::Equality { error },
    ));
}

/// Three rows holding the anchor points together, along the world axes.
pub(super) fn coincident_points(frames: &AnchorFrames, bodies: &[BodyState], out: &mut RowSet) {
    let separation = frames.point_b - frames.point_a;
    for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
        let row = JacobianRow::points(
            bodies,
            frames.a,
            Some(frames.b),
            frames.point_a,
            frames.point_b,
            axis,
        );
        equality(out, row, axis.dot(separation));
    }
}

/// Three rows holding the orientations equal, about the world axes.
pub(super) fn equal_orientations(frames: &AnchorFrames, bodies: &[BodyState], out: &mut RowSet) {
    let theta = rotation_vector(frames.rotation_b * frames.rotation_a.inverse());
    for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
        equality(out, frames.angular(bodies, axis), axis.dot(theta));
    }
}

/// Two rows holding frame b's z axis along frame a's.
pub(super) fn aligned_axes(frames: &AnchorFrames, bodies: &[BodyState], out: &mut RowSet) {
    let n_a = frames.axis_a(DVec3::Z);
    let n_b = frames.axis_b(DVec3::Z);
    let (t1, t2) = tangent_pair(n_a);
    let cross = n_a.cross(n_b);
    for t in [t1, t2] {
        equality(out, frames.angular(bodies, t), t.dot(cross));
    }
}

/// Two rows holding b's anchor on the line through a's anchor along frame
/// a's z axis: the relative velocity at b's anchor across the line.
pub(super) fn point_on_line(frames: &AnchorFrames, bodies: &[BodyState], out: &mut RowSet) {
    let n_a = frames.axis_a(DVec3::Z);
    let (t1, t2) = tangent_pair(n_a);
    let separation = frames.point_b - frames.point_a;
    for t in [t1, t2] {
        let row = frames.velocity_at(bodies, frames.point_b, t);
        equality(out, row, t.dot(separation));
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
