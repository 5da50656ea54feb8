//! Universal (Hooke) joint (Cline 2002, sec. 4.4.1): the anchor points
//! coincide and frame a's x axis stays perpendicular to frame b's y axis,
//! four rows. The last row's error is `g = x_a . y_b`, whose rate is
//! `(y_b x x_a) . (w_b - w_a)`.

use glam::DVec3;

use super::anchor::{AnchorFrames, coincident_points};
use crate::BodyState;
use crate::constraints::{ConstraintRow, PositionCondition, RowBounds, RowSet};

pub(super) fn emit(frames: &AnchorFrames, bodies: &[BodyState], out: &mut RowSet) {
    coincident_points(frames, bodies, out);
    let x_a = frames.axis_a(DVec3::X);
    let y_b = frames.axis_b(DVec3::Y);
    out.push(ConstraintRow::new(
        frames.angular(bodies, y_b.cross(x_a)),
        RowBounds::Free,
        PositionCondition::Equality {
            error: x_a.dot(y_b),
        },
    ));
}
