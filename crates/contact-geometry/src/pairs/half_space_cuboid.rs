//! Half-space against cuboid.
//!
//! Every cuboid vertex within the margin of the boundary plane is a
//! vertex-face contact point. Taking all of them, rather than only those of
//! the cuboid's support feature as parry does, keeps every constraint a
//! complementarity solver may need when the cuboid is tilted within the
//! margin (Drumwright 2016, sec. 4.1.1). Features are numbered as in
//! `oriented_box`.

use contact_math::Pose;
use glam::DVec3;

use crate::oriented_box::OrientedBox;
use crate::{ContactManifold, ContactPoint, Feature};

/// Fills `out` with the contact of the half-space (outward `local_normal`
/// at `plane_pose`) and the cuboid; the normal points into the cuboid's side.
pub(super) fn manifold(
    local_normal: DVec3,
    plane_pose: &Pose,
    half_extents: DVec3,
    cuboid_pose: &Pose,
    margin: f64,
    out: &mut ContactManifold,
) {
    let normal = plane_pose.transform_vector(local_normal);
    let plane_offset = normal.dot(plane_pose.translation);
    let cuboid = OrientedBox::new(half_extents, cuboid_pose);
    for id in 0..8u32 {
        let point_b = cuboid.vertex(id);
        let distance = normal.dot(point_b) - plane_offset;
        if distance <= margin {
            out.points.push(ContactPoint {
                point_a: point_b - distance * normal,
                point_b,
                distance,
                feature_a: Feature::Face(0),
                feature_b: Feature::Vertex(id),
            });
        }
    }
    if !out.points.is_empty() {
        out.normal = normal;
    }
}
