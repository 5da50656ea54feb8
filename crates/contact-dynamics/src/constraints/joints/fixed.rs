//! Fixed joint (weld): the anchor frames coincide, six rows (Cline 2002,
//! sec. 4.4.1's ball rows plus three rows on the relative rotation).

use super::anchor::{AnchorFrames, coincident_points, equal_orientations};
use crate::BodyState;
use crate::constraints::RowSet;

pub(super) fn emit(frames: &AnchorFrames, bodies: &[BodyState], h: f64, out: &mut RowSet) {
    coincident_points(frames, bodies, h, out);
    equal_orientations(frames, bodies, out);
}
