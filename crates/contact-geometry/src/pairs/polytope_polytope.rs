//! Convex polytope against convex polytope: the separating-axis test of
//! `polytope_sat` (face normals and Minkowski-face edge pairs, faces
//! preferred), generalising `cuboid_cuboid` to arbitrary polytopes, then
//! the contact features of the winning axis:
//!
//! - A face axis wins: the incident face (of the faces around the other
//!   polytope's deepest vertex, the one most opposed to the reference
//!   normal) is clipped by the side planes of
//!   the reference face, one per reference edge (Sutherland-Hodgman), and
//!   every vertex of the clipped polygon within the margin is a contact
//!   point: all of them, since constraints at every vertex of the contact
//!   polygon hold the face (Drumwright 2016, sec. 4.1.1). Vertices within a
//!   relative tolerance of the segment joining their neighbours are
//!   round-off and are removed.
//! - An edge axis wins: the closest points of the two edges, one point
//!   (Ericson 2005, sec. 5.1.9).
//!
//! Features are named in each polytope's own numbering. Work happens in
//! the world frame, in buffers the generator owns, so nothing is allocated
//! once they have grown to the largest polytope seen.

use contact_math::Pose;
use glam::DVec3;

use super::AxisChoice;
use super::polytope_sat::{Axis, AxisSearch, Posed, best_axis};
use crate::polygon::{
    ClipVertex, EdgeTag, SidePlane, clip_by_side, push_clipped_points, remove_redundant_vertices,
};
use crate::{ContactManifold, ContactPoint, ConvexPolytope, Feature};

/// Clipped vertices within this, relative to the polytopes' size, of the
/// segment joining their neighbours are removed.
const MERGE: f64 = 1e-9;

/// The scratch memory of the polytope-polytope generator.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    pub(super) a: Posed,
    pub(super) b: Posed,
    /// The separating-axis search's memory and record.
    pub(super) search: AxisSearch,
    /// Axes collected by `axes_near`.
    pub(super) axes: Vec<DVec3>,
    polygon: Vec<(ClipVertex, EdgeTag)>,
    clipped: Vec<(ClipVertex, EdgeTag)>,
}

/// Fills `out` with the contact of two polytopes; the normal points from
/// `a` to `b`.
pub(super) fn manifold(
    scratch: &mut Scratch,
    a: &ConvexPolytope,
    pose_a: &Pose,
    b: &ConvexPolytope,
    pose_b: &Pose,
    margin: f64,
    out: &mut ContactManifold,
) {
    scratch.a.load(a, pose_a);
    scratch.b.load(b, pose_b);
    let scale = a.bounding_radius().max(b.bounding_radius());
    let Some((axis, _)) = best_axis(
        &scratch.a,
        a,
        &scratch.b,
        b,
        margin,
        AxisChoice::FacesNearContact,
        &mut scratch.search,
    ) else {
        return;
    };
    let Scratch {
        a: posed_a,
        b: posed_b,
        polygon,
        clipped,
        ..
    } = scratch;
    match axis {
        Axis::Face {
            of_b: false,
            face,
            normal,
        } => {
            let faces = Faces {
                reference: (posed_a, a, face),
                incident: (posed_b, b),
            };
            clip_faces(&faces, polygon, clipped, margin, scale, out);
            out.normal = normal;
        }
        Axis::Face {
            of_b: true,
            face,
            normal,
        } => {
            let faces = Faces {
                reference: (posed_b, b, face),
                incident: (posed_a, a),
            };
            clip_faces(&faces, polygon, clipped, margin, scale, out);
            for p in &mut out.points {
                std::mem::swap(&mut p.point_a, &mut p.point_b);
                std::mem::swap(&mut p.feature_a, &mut p.feature_b);
            }
            out.normal = normal;
        }
        Axis::Edges {
            edge_a,
            edge_b,
            normal,
        } => {
            let [a0, a1] = a.edges()[edge_a].vertices;
            let [b0, b1] = b.edges()[edge_b].vertices;
            let (point_a, point_b) = closest_points_of_segments(
                posed_a.vertices[a0 as usize],
                posed_a.vertices[a1 as usize],
                posed_b.vertices[b0 as usize],
                posed_b.vertices[b1 as usize],
            );
            let distance = normal.dot(point_b - point_a);
            if distance <= margin {
                out.points.push(ContactPoint {
                    point_a,
                    point_b,
                    distance,
                    feature_a: Feature::Edge(edge_a as u32),
                    feature_b: Feature::Edge(edge_b as u32),
                });
                out.normal = normal;
            }
        }
    }
    if out.points.is_empty() {
        out.normal = DVec3::ZERO;
    }
}

/// The reference face (posed, polytope, face id) and the polytope the
/// incident face is taken from.
struct Faces<'a> {
    reference: (&'a Posed, &'a ConvexPolytope, usize),
    incident: (&'a Posed, &'a ConvexPolytope),
}

/// Clips the incident face against the reference face's side planes and
/// pushes the points within the margin, with the reference polytope as the
/// first shape.
fn clip_faces(
    faces: &Faces<'_>,
    polygon: &mut Vec<(ClipVertex, EdgeTag)>,
    clipped: &mut Vec<(ClipVertex, EdgeTag)>,
    margin: f64,
    scale: f64,
    out: &mut ContactManifold,
) {
    let (ref_posed, ref_poly, ref_face) = faces.reference;
    let (inc_posed, inc_poly) = faces.incident;
    let plane = ref_posed.planes[ref_face];
    let normal = plane.normal;
    // Incident face: among the faces around the incident polytope's
    // deepest vertex, the one most opposed to the reference normal (the
    // most opposed face overall need not contain the deepest vertex).
    let deepest = inc_posed
        .vertices
        .iter()
        .enumerate()
        .min_by(|x, y| x.1.dot(normal).total_cmp(&y.1.dot(normal)))
        .map_or(0, |(v, _)| v);
    let inc_face = inc_poly
        .vertex_faces(deepest)
        .iter()
        .map(|&g| g as usize)
        .min_by(|&x, &y| {
            let dot = |g: usize| inc_posed.planes[g].normal.dot(normal);
            dot(x).total_cmp(&dot(y))
        })
        .unwrap_or(0);

    polygon.clear();
    for (&v, &e) in inc_poly
        .face_vertices(inc_face)
        .iter()
        .zip(inc_poly.face_edges(inc_face))
    {
        polygon.push((
            ClipVertex {
                point: inc_posed.vertices[v as usize],
                reference: Feature::Face(ref_face as u32),
                incident: Feature::Vertex(v),
            },
            EdgeTag::Incident(e),
        ));
    }

    let ref_loop = ref_poly.face_vertices(ref_face);
    let ref_edges = ref_poly.face_edges(ref_face);
    let m = ref_loop.len();
    for k in 0..m {
        let p = ref_posed.vertices[ref_loop[k] as usize];
        let q = ref_posed.vertices[ref_loop[(k + 1) % m] as usize];
        // Outward in the face plane: the loop is counter-clockwise about
        // the normal, so the inside is to the left of q - p.
        let side_normal = (q - p).cross(normal);
        let side = SidePlane {
            normal: side_normal,
            limit: side_normal.dot(p),
            edge: ref_edges[k],
            key: k as u32,
        };
        // Sides keyed by loop position: side j meets side k at the loop
        // vertex they share, if they are neighbours.
        let corner = |j: u32| {
            let j = j as usize;
            if (j + 1) % m == k {
                Feature::Vertex(ref_loop[k])
            } else if (k + 1) % m == j {
                Feature::Vertex(ref_loop[j])
            } else {
                Feature::Face(ref_face as u32)
            }
        };
        clipped.clear();
        clip_by_side(polygon, &side, corner, |vertex| clipped.push(vertex));
        std::mem::swap(polygon, clipped);
        if polygon.is_empty() {
            break;
        }
    }

    let len = polygon.len();
    let kept = remove_redundant_vertices(polygon, len, MERGE * scale, |(v, _)| v.point);
    polygon.truncate(kept);

    let clipped = polygon.iter().map(|(vertex, _)| vertex);
    push_clipped_points(clipped, normal, plane.offset, inc_face as u32, margin, out);
    // Safety net: the axis says the polytopes are within the margin, so
    // report at least the deepest vertex against the reference face, even
    // if clipping lost it (it lies outside the reference face's prism).
    if out.points.is_empty() {
        let point_b = inc_posed.vertices[deepest];
        let distance = normal.dot(point_b) - plane.offset;
        if distance <= margin {
            out.points.push(ContactPoint {
                point_a: point_b - distance * normal,
                point_b,
                distance,
                feature_a: Feature::Face(ref_face as u32),
                feature_b: Feature::Vertex(deepest as u32),
            });
        }
    }
}

/// The closest points of segments `p1`-`q1` and `p2`-`q2` (Ericson 2005,
/// "Real-Time Collision Detection", sec. 5.1.9).
fn closest_points_of_segments(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> (DVec3, DVec3) {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    if a <= f64::EPSILON && e <= f64::EPSILON {
        return (p1, p2);
    }
    let (s, t);
    if a <= f64::EPSILON {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e <= f64::EPSILON {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denominator = a * e - b * b;
            let s0 = if denominator > 0.0 {
                ((b * f - c * e) / denominator).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    (p1 + s * d1, p2 + t * d2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_that_loses_every_point_falls_back_to_the_deepest_vertex() {
        // The incident tetrahedron dips 0.01 below the plane of the box's
        // top face but lies wholly outside that face's side planes, so
        // clipping leaves nothing: the deepest vertex is reported instead.
        let a = ConvexPolytope::from_box(DVec3::splat(0.5)).unwrap();
        let b = ConvexPolytope::from_points(&[
            DVec3::new(2.0, 0.0, 0.49),
            DVec3::new(2.5, 0.0, 1.0),
            DVec3::new(2.0, 0.5, 1.0),
            DVec3::new(2.0, -0.5, 1.0),
        ])
        .unwrap();
        let (mut pa, mut pb) = (Posed::default(), Posed::default());
        pa.load(&a, &Pose::IDENTITY);
        pb.load(&b, &Pose::IDENTITY);
        let top = (0..a.faces().len())
            .find(|&f| a.faces()[f].normal.z > 0.5)
            .unwrap();
        let faces = Faces {
            reference: (&pa, &a, top),
            incident: (&pb, &b),
        };
        let (mut polygon, mut clipped) = (Vec::new(), Vec::new());
        let mut out = ContactManifold::default();
        clip_faces(&faces, &mut polygon, &mut clipped, 1e-3, 1.0, &mut out);
        assert_eq!(out.points.len(), 1);
        let p = out.points[0];
        assert!((p.distance + 0.01).abs() < 1e-12);
        assert_eq!(p.feature_a, Feature::Face(top as u32));
        assert_eq!(p.feature_b, Feature::Vertex(0));
        assert!((p.point_a - DVec3::new(2.0, 0.0, 0.5)).length() < 1e-12);
    }

    #[test]
    fn closest_points_of_crossing_and_parallel_segments() {
        // Crossing at right angles, 1 apart along z.
        let (p, q) = closest_points_of_segments(
            DVec3::new(-1.0, 0.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(0.3, -1.0, 1.0),
            DVec3::new(0.3, 1.0, 1.0),
        );
        assert!((p - DVec3::new(0.3, 0.0, 0.0)).length() < 1e-15);
        assert!((q - DVec3::new(0.3, 0.0, 1.0)).length() < 1e-15);
        // Parallel: any closest pair is 1 apart.
        let (p, q) = closest_points_of_segments(
            DVec3::ZERO,
            DVec3::X,
            DVec3::new(0.5, 1.0, 0.0),
            DVec3::new(2.0, 1.0, 0.0),
        );
        assert!(((q - p).length() - 1.0).abs() < 1e-15);
    }
}
