//! Half-space against convex polytope.
//!
//! As for the cuboid (`half_space_cuboid`): every polytope vertex within the
//! margin of the boundary plane is a vertex-face contact point, not only
//! those of the polytope's support feature, so that a complementarity
//! solver gets every constraint of a face or edge resting within the margin
//! (Drumwright 2016, sec. 4.1.1). Vertex ids are the polytope's own.

use contact_math::Pose;
use glam::DVec3;

use crate::{ContactManifold, ContactPoint, ConvexPolytope, Feature};

/// Fills `out` with the contact of the half-space (outward `local_normal`
/// at `plane_pose`) and the polytope; the normal points into the
/// polytope's side.
pub(super) fn manifold(
    local_normal: DVec3,
    plane_pose: &Pose,
    polytope: &ConvexPolytope,
    polytope_pose: &Pose,
    margin: f64,
    out: &mut ContactManifold,
) {
    let normal = plane_pose.transform_vector(local_normal);
    let plane_offset = normal.dot(plane_pose.translation);
    for (id, &local) in polytope.vertices().iter().enumerate() {
        let point_b = polytope_pose.transform_point(local);
        let distance = normal.dot(point_b) - plane_offset;
        if distance <= margin {
            out.points.push(ContactPoint {
                point_a: point_b - distance * normal,
                point_b,
                distance,
                feature_a: Feature::Face(0),
                feature_b: Feature::Vertex(id as u32),
            });
        }
    }
    if !out.points.is_empty() {
        out.normal = normal;
    }
}
