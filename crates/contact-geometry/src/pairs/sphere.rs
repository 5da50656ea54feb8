//! A sphere against any shape.
//!
//! A ball of radius `r` centred at `c` is the set of points within `r` of
//! `c`, so every query reduces to the other shape's boundary point `q`
//! closest to the centre: the signed distance is `s(c) - r`, with `s` the
//! signed distance from the other shape's boundary to `c` (negative
//! inside), and the normal is the unit direction from `q` to `c` (Ericson,
//! *Real-Time Collision Detection*, 2005, sec. 4.3 for spheres, 5.1 for
//! closest points). The contact is one point: a ball touches a convex
//! shape at a single point, since its boundary is strictly convex.
//!
//! The closest point is exact, not iterated: against a half-space or a
//! sphere it is closed form; against a polytope (or a cuboid in its
//! polytope form) with `c` outside, it is the projection of `c` on a face
//! that contains it (the polytope lies below that face's plane), or else
//! the nearest of the closest points of the edges (the closest boundary
//! point lies in a face's relative interior or on an edge; Ericson
//! sec. 5.1.2 and 5.1.8). With `c` inside (or on the boundary), it is the
//! projection on the nearest face plane: for a point inside a convex
//! polytope the distance to the boundary is the least distance to a face
//! plane.

use contact_math::Pose;
use glam::DVec3;

use super::ManifoldGenerator;
use super::polytope_sat::Posed;
use super::proximity::{Proximity, polytope_of, support_feature};
use crate::{ContactManifold, ContactPoint, ConvexPolytope, Feature, GeometryError, Shape};

/// The direction two concentric spheres are pushed apart along: any unit
/// vector is a least-penetration axis, and a fixed one keeps the answer
/// reproducible.
const CONCENTRIC_NORMAL: DVec3 = DVec3::Z;

impl ManifoldGenerator {
    /// Proximity of `other` at `pose` (first) and a sphere of `radius`
    /// centred at `centre` (second, world frame). `tolerance` (m) decides
    /// the other shape's closest feature, as in
    /// [`ManifoldGenerator::proximity`].
    pub(super) fn sphere(
        &mut self,
        other: &Shape,
        pose: &Pose,
        centre: DVec3,
        radius: f64,
        tolerance: f64,
    ) -> Result<Proximity, GeometryError> {
        let sphere_point = |normal: DVec3| centre - radius * normal;
        match other {
            Shape::HalfSpace { normal } => {
                let n = pose.transform_vector(*normal);
                let height = n.dot(centre - pose.translation);
                Ok(Proximity {
                    distance: height - radius,
                    normal: n,
                    point_a: centre - height * n,
                    point_b: sphere_point(n),
                    feature_a: Feature::Face(0),
                    feature_b: Feature::Face(0),
                })
            }
            Shape::Sphere {
                radius: other_radius,
            } => {
                let other_centre = pose.translation;
                let gap = centre - other_centre;
                let length = gap.length();
                let n = if length > 0.0 {
                    gap / length
                } else {
                    CONCENTRIC_NORMAL
                };
                Ok(Proximity {
                    distance: length - other_radius - radius,
                    normal: n,
                    point_a: other_centre + *other_radius * n,
                    point_b: sphere_point(n),
                    feature_a: Feature::Face(0),
                    feature_b: Feature::Face(0),
                })
            }
            Shape::Cuboid { .. } | Shape::Polytope(_) => {
                let polytope = polytope_of(&mut self.boxes, other)?;
                self.scratch.a.load(&polytope, pose);
                let posed = &self.scratch.a;
                let (point, n, signed) = closest_boundary_point(&polytope, posed, centre);
                Ok(Proximity {
                    distance: signed - radius,
                    normal: n,
                    point_a: point,
                    point_b: sphere_point(n),
                    feature_a: support_feature(other, pose, &polytope, posed, n, tolerance),
                    feature_b: Feature::Face(0),
                })
            }
        }
    }
}

/// The one-point manifold of a sphere pair, from its proximity: empty when
/// the distance exceeds `margin`.
pub(super) fn manifold(proximity: &Proximity, margin: f64, out: &mut ContactManifold) {
    if proximity.distance <= margin {
        out.normal = proximity.normal;
        out.points.push(ContactPoint {
            point_a: proximity.point_a,
            point_b: proximity.point_b,
            distance: proximity.distance,
            feature_a: proximity.feature_a,
            feature_b: proximity.feature_b,
        });
    }
}

/// The boundary point of the posed polytope closest to `c`, the unit
/// direction from it to `c` (the outward normal of the nearest face when
/// `c` is inside), and the signed distance from the boundary to `c`
/// (negative inside).
fn closest_boundary_point(
    polytope: &ConvexPolytope,
    posed: &Posed,
    c: DVec3,
) -> (DVec3, DVec3, f64) {
    let (nearest_face, height) = posed
        .planes
        .iter()
        .map(|plane| plane.normal.dot(c) - plane.offset)
        .enumerate()
        .fold((0, f64::NEG_INFINITY), |best, (f, h)| {
            if h > best.1 { (f, h) } else { best }
        });
    let face_normal = posed.planes[nearest_face].normal;
    if height <= 0.0 {
        return (c - height * face_normal, face_normal, height);
    }
    let vertices = &posed.vertices;
    for (f, plane) in posed.planes.iter().enumerate() {
        let h = plane.normal.dot(c) - plane.offset;
        if h <= 0.0 {
            continue;
        }
        let q = c - h * plane.normal;
        let corners = polytope.face_vertices(f);
        // Counter-clockwise seen from outside: inside is left of each edge.
        let inside = (0..corners.len()).all(|k| {
            let from = vertices[corners[k] as usize];
            let to = vertices[corners[(k + 1) % corners.len()] as usize];
            (to - from).cross(q - from).dot(plane.normal) >= 0.0
        });
        if inside {
            // The polytope lies below this face's plane, which q reaches
            // first: no point of it is nearer.
            return (q, plane.normal, h);
        }
    }
    let mut best = (c, f64::INFINITY);
    for edge in polytope.edges() {
        let from = vertices[edge.vertices[0] as usize];
        let to = vertices[edge.vertices[1] as usize];
        let along = to - from;
        let t = (along.dot(c - from) / along.length_squared()).clamp(0.0, 1.0);
        let q = from + t * along;
        let d = (c - q).length();
        if d < best.1 {
            best = (q, d);
        }
    }
    let (point, distance) = best;
    // A centre a hair outside can round to its own closest point; the
    // nearest face's normal is then the direction.
    let n = if distance > 0.0 {
        (c - point) / distance
    } else {
        face_normal
    };
    (point, n, distance)
}
