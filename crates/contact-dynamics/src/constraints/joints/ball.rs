//! Ball-and-socket joint (Cline 2002, sec. 4.4.1): the anchor points
//! coincide, three rows; every rotation is free.

use super::anchor::{AnchorFrames, coincident_points};
use crate::BodyState;
use crate::constraints::RowSet;

pub(super) fn emit(frames: &AnchorFrames, bodies: &[BodyState], h: f64, out: &mut RowSet) {
    coincident_points(frames, bodies, h, out);
}
