//! Half-space against a cuboid or a convex polytope.
//!
//! Every vertex within the margin of the boundary plane is a vertex-face
//! contact point, not only the vertices of the shape's support feature (as
//! parry does): a face or edge resting within the margin then gives the
//! complementarity solver every constraint it needs (Drumwright 2016,
//! sec. 4.1.1). Vertex ids are the shape's own: for a cuboid the numbering
//! of `oriented_box`, for a polytope its vertex index.

use contact_math::Pose;
use glam::DVec3;

use crate::oriented_box::OrientedBox;
use crate::{ContactManifold, ContactPoint, ConvexPolytope, Feature};

/// The contact of the half-space (outward `local_normal` at `plane_pose`)
/// and a cuboid; the normal points into the cuboid's side.
pub(super) fn cuboid(
    local_normal: DVec3,
    plane_pose: &Pose,
    half_extents: DVec3,
    cuboid_pose: &Pose,
    margin: f64,
    out: &mut ContactManifold,
) {
    let cuboid = OrientedBox::new(half_extents, cuboid_pose);
    vertices(
        local_normal,
        plane_pose,
        (0..8).map(|id| cuboid.vertex(id)),
        margin,
        out,
    );
}

/// The contact of the half-space and a polytope; as [`cuboid`].
pub(super) fn polytope(
    local_normal: DVec3,
    plane_pose: &Pose,
    polytope: &ConvexPolytope,
    polytope_pose: &Pose,
    margin: f64,
    out: &mut ContactManifold,
) {
    let world = polytope
        .vertices()
        .iter()
        .map(|&v| polytope_pose.transform_point(v));
    vertices(local_normal, plane_pose, world, margin, out);
}

/// Pushes every world vertex (numbered by position) within `margin` of the
/// plane as a contact point.
fn vertices(
    local_normal: DVec3,
    plane_pose: &Pose,
    world_vertices: impl Iterator<Item = DVec3>,
    margin: f64,
    out: &mut ContactManifold,
) {
    let normal = plane_pose.transform_vector(local_normal);
    let plane_offset = normal.dot(plane_pose.translation);
    for (id, point_b) in world_vertices.enumerate() {
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
