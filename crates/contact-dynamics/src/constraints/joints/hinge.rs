//! Hinge (revolute) joint (Cline 2002, sec. 4.4.1): the anchor points
//! coincide and the frames' z axes align, five rows; rotation about z is
//! free. Its coordinate is the angle from frame a's x axis to frame b's,
//! about a's z axis, in `(-pi, pi]`; its rate row is `n_a . (w_b - w_a)`.

use glam::DVec3;

use super::anchor::{AnchorFrames, aligned_axes, coincident_points};
use crate::constraints::RowSet;
use crate::{BodyState, JacobianRow};

pub(super) fn emit(frames: &AnchorFrames, bodies: &[BodyState], h: f64, out: &mut RowSet) {
    coincident_points(frames, bodies, h, out);
    aligned_axes(frames, bodies, h, out);
}

/// The hinge angle (rad).
pub(super) fn angle(frames: &AnchorFrames) -> f64 {
    let n = frames.axis_a(DVec3::Z);
    let x_a = frames.axis_a(DVec3::X);
    let x_b = frames.axis_b(DVec3::X);
    n.dot(x_a.cross(x_b)).atan2(x_a.dot(x_b))
}

/// The row of the angle's rate.
pub(super) fn rate_row(frames: &AnchorFrames, bodies: &[BodyState]) -> JacobianRow {
    frames.angular(bodies, frames.axis_a(DVec3::Z))
}
