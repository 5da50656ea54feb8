//! The planar lock (the myPhysicsLab world in 3D): a body held in a vertical
//! plane `y = const`, rotating about the world y axis only, by three
//! bilateral rows to the world: `v_y = 0` with error `y - y_0`, and the
//! body's axis that was along world y when the lock was set kept along y,
//! by the two rows of a hinge's aligned axes (`anchor.rs`): errors
//! `t . (Y x n_b)` for `t = x, z`, rates `w_x` and `w_z`. Every shape then
//! moves as in 2D and its contact forces can be read in the plane.

use contact_math::Pose;
use glam::DVec3;

use super::{ConstraintRow, EmitRows, PositionCondition, RowBounds, RowSet};
use crate::{BodyState, JacobianRow};

/// A body's lock to a vertical x-z plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarLock {
    /// The body it holds.
    pub body: usize,
    /// The plane's `y` (m).
    pub plane_y: f64,
    /// The body-frame vector kept along world y.
    pub axis_in_body: DVec3,
}

impl PlanarLock {
    /// The lock of body `body` in the plane and orientation of `pose`.
    #[must_use]
    pub fn at(body: usize, pose: &Pose) -> Self {
        Self {
            body,
            plane_y: pose.translation.y,
            axis_in_body: pose.rotation.inverse() * DVec3::Y,
        }
    }
}

impl EmitRows for PlanarLock {
    fn emit_rows(&self, bodies: &[BodyState], _h: f64, out: &mut RowSet) {
        let state = &bodies[self.body];
        let centre = state.centre();
        let b = Some(self.body);
        out.push(ConstraintRow::new(
            JacobianRow::points(bodies, None, b, centre, centre, DVec3::Y),
            RowBounds::Free,
            PositionCondition::Equality {
                error: centre.y - self.plane_y,
            },
        ));
        let cross = DVec3::Y.cross(state.pose.rotation * self.axis_in_body);
        for t in [DVec3::X, DVec3::Z] {
            out.push(ConstraintRow::new(
                JacobianRow::angular(bodies, None, b, t),
                RowBounds::Free,
                PositionCondition::Equality {
                    error: t.dot(cross),
                },
            ));
        }
    }
}
