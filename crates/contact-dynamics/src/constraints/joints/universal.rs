//! Universal (Hooke) joint (Cline 2002, sec. 4.4.1): the anchor points
//! coincide and frame a's x axis stays perpendicular to frame b's y axis,
//! four rows. The last row's error is `g = x_a . y_b`, whose rate is
//! `(y_b x x_a) . (w_b - w_a)`; the row turns with both axes, curvature
//! `((w_b x y_b) x x_a + y_b x (w_a x x_a)) . (w_b - w_a)`.

use glam::DVec3;

use super::anchor::{AnchorFrames, coincident_points, equality, relative_spin};
use crate::BodyState;
use crate::constraints::RowSet;

pub(super) fn emit(frames: &AnchorFrames, bodies: &[BodyState], h: f64, out: &mut RowSet) {
    coincident_points(frames, bodies, h, out);
    let x_a = frames.axis_a(DVec3::X);
    let y_b = frames.axis_b(DVec3::Y);
    let (w_a, w_b) = (frames.twist_a.angular, frames.twist_b.angular);
    let turning = w_b.cross(y_b).cross(x_a) + y_b.cross(w_a.cross(x_a));
    let curvature = turning.dot(relative_spin(frames));
    let row = frames.angular(bodies, y_b.cross(x_a));
    equality(out, row, x_a.dot(y_b), curvature, h);
}
