//! Contact manifold generators, one module per pair of shape kinds, and the
//! dispatcher that picks one.

mod cuboid_cuboid;
mod half_space_cuboid;

use contact_math::Pose;

use crate::{ContactManifold, GeometryError, Shape};

/// Computes contact manifolds between pairs of posed shapes.
///
/// Holds no state between calls that could change a result: the same
/// inputs always give the same manifold, and nothing is allocated beyond
/// the growth of the caller's `out` buffer. (It is a struct so that the
/// general polytope queries, which need scratch memory, slot in without an
/// API change.)
#[derive(Debug, Default)]
pub struct ManifoldGenerator {}

impl ManifoldGenerator {
    /// Fills `out` with the contact manifold of `a` at `pose_a` and `b` at
    /// `pose_b`: every contact point whose signed distance is at most
    /// `margin` (m). The normal points from `a` to `b`. `out` is left empty
    /// when the shapes are farther apart than the margin.
    ///
    /// # Errors
    /// [`GeometryError::NonFinitePose`], [`GeometryError::InvalidMargin`],
    /// or [`GeometryError::UnsupportedPair`] for two half-spaces.
    pub fn compute(
        &mut self,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        margin: f64,
        out: &mut ContactManifold,
    ) -> Result<(), GeometryError> {
        out.clear();
        if !(margin.is_finite() && margin >= 0.0) {
            return Err(GeometryError::InvalidMargin { margin });
        }
        if !pose_a.is_finite() {
            return Err(GeometryError::NonFinitePose { which: 0 });
        }
        if !pose_b.is_finite() {
            return Err(GeometryError::NonFinitePose { which: 1 });
        }
        match (a, b) {
            (Shape::Cuboid { half_extents: ha }, Shape::Cuboid { half_extents: hb }) => {
                cuboid_cuboid::manifold(*ha, pose_a, *hb, pose_b, margin, out);
            }
            (Shape::HalfSpace { normal }, Shape::Cuboid { half_extents }) => {
                half_space_cuboid::manifold(*normal, pose_a, *half_extents, pose_b, margin, out);
            }
            (Shape::Cuboid { half_extents }, Shape::HalfSpace { normal }) => {
                half_space_cuboid::manifold(*normal, pose_b, *half_extents, pose_a, margin, out);
                flip(out);
            }
            (Shape::HalfSpace { .. }, Shape::HalfSpace { .. }) => {
                return Err(GeometryError::UnsupportedPair {
                    first: a.kind(),
                    second: b.kind(),
                });
            }
        }
        Ok(())
    }
}

/// Swaps the roles of the two shapes in a manifold.
fn flip(manifold: &mut ContactManifold) {
    manifold.normal = -manifold.normal;
    for point in &mut manifold.points {
        std::mem::swap(&mut point.point_a, &mut point.point_b);
        std::mem::swap(&mut point.feature_a, &mut point.feature_b);
    }
}
