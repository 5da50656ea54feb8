//! Prismatic (slider) joint: the orientations are equal and b's anchor
//! stays on the line through a's anchor along frame a's z axis, five rows.
//! Its coordinate is the travel `s = n_a . (p_b - p_a)`; since `n_a` turns
//! with body a, the rate of `s` is the velocity of b's anchor relative to
//! a's material point at the same place, along `n_a`.

use glam::DVec3;

use super::anchor::{AnchorFrames, equal_orientations, point_on_line};
use crate::constraints::RowSet;
use crate::{BodyState, JacobianRow};

pub(super) fn emit(frames: &AnchorFrames, bodies: &[BodyState], h: f64, out: &mut RowSet) {
    equal_orientations(frames, bodies, out);
    point_on_line(frames, bodies, h, out);
}

/// The travel along the axis (m).
pub(super) fn travel(frames: &AnchorFrames) -> f64 {
    frames.axis_a(DVec3::Z).dot(frames.point_b - frames.point_a)
}

/// The row of the travel's rate.
pub(super) fn rate_row(frames: &AnchorFrames, bodies: &[BodyState]) -> JacobianRow {
    frames.velocity_at(bodies, frames.point_b, frames.axis_a(DVec3::Z))
}
