//! The separating-axis test between two convex polytopes, shared by the
//! contact manifold (`polytope_polytope`) and the separating plane.
//!
//! Candidate axes are the face normals of both polytopes and the cross
//! products of edge pairs. Only edge pairs whose arcs on the Gauss map
//! intersect form a face of the Minkowski difference (Gregorius, "The
//! separating axis test between convex polyhedra", GDC 2013); for those the
//! separation along the cross product is exact from the two edges alone,
//! so the test is `O(F_a V_b + F_b V_a + E_a E_b)` without support
//! searches. Parallel edge pairs are skipped (a face axis covers them).
//! Face axes win unless an edge axis separates more by a relative
//! tolerance, so a resting face never flickers into one edge point.
//! Separations are signed: the largest one is minus the penetration depth
//! when the polytopes overlap, and a lower bound of their distance when
//! they do not.

use contact_math::Pose;
use glam::DVec3;

use crate::polytope::FacePlane;
use crate::{ConvexPolytope, Edge};

/// Edge pairs whose cross product is shorter than this, relative to the
/// product of the edge lengths, are parallel.
const PARALLEL: f64 = 1e-9;

/// How much an edge axis must out-separate the best face axis, relative to
/// the polytopes' size, before it is chosen.
const EDGE_PREFERENCE: f64 = 1e-9;

/// A polytope's vertices and face planes in the world frame.
#[derive(Debug, Default)]
pub(super) struct Posed {
    pub(super) vertices: Vec<DVec3>,
    pub(super) planes: Vec<FacePlane>,
    pub(super) interior: DVec3,
}

impl Posed {
    pub(super) fn load(&mut self, polytope: &ConvexPolytope, pose: &Pose) {
        self.vertices.clear();
        self.vertices
            .extend(polytope.vertices().iter().map(|&v| pose.transform_point(v)));
        self.planes.clear();
        self.planes.extend(polytope.faces().iter().map(|p| {
            let normal = pose.transform_vector(p.normal);
            FacePlane {
                normal,
                offset: p.offset + normal.dot(pose.translation),
            }
        }));
        self.interior = pose.transform_point(polytope.interior_point());
    }
}

/// The best separating axis found; `normal` points from a to b.
#[derive(Clone, Copy)]
pub(super) enum Axis {
    Face {
        of_b: bool,
        face: usize,
        normal: DVec3,
    },
    Edges {
        edge_a: usize,
        edge_b: usize,
        normal: DVec3,
    },
}

/// The axis of largest separation, or `None` when some axis separates the
/// polytopes by more than the margin.
pub(super) fn best_axis(
    pa: &Posed,
    a: &ConvexPolytope,
    pb: &Posed,
    b: &ConvexPolytope,
    margin: f64,
    scale: f64,
) -> Option<(Axis, f64)> {
    let mut best = None;
    let mut best_separation = f64::NEG_INFINITY;
    let mut best_face = f64::NEG_INFINITY;
    for (of_b, own, other) in [(false, pa, pb), (true, pb, pa)] {
        for (face, plane) in own.planes.iter().enumerate() {
            let s = other
                .vertices
                .iter()
                .map(|&v| plane.normal.dot(v))
                .fold(f64::INFINITY, f64::min)
                - plane.offset;
            if s > margin {
                return None;
            }
            // Strict: on a tie the first polytope's (and lower) face wins.
            if s > best_face {
                best_face = s;
                best_separation = s;
                let normal = if of_b { -plane.normal } else { plane.normal };
                best = Some(Axis::Face { of_b, face, normal });
            }
        }
    }
    let mut best_edge = best_face + EDGE_PREFERENCE * scale;
    for (edge_a, ea) in a.edges().iter().enumerate() {
        for (edge_b, eb) in b.edges().iter().enumerate() {
            let Some((normal, s)) = edge_axis(pa, ea, pb, eb) else {
                continue;
            };
            if s > margin {
                return None;
            }
            if s > best_edge {
                best_edge = s;
                best_separation = s;
                best = Some(Axis::Edges {
                    edge_a,
                    edge_b,
                    normal,
                });
            }
        }
    }
    best.map(|axis| (axis, best_separation))
}

/// The unit normal (from a to b) and separation of the separating axis of
/// largest separation, or `None` when the separation exceeds `limit`. The
/// posed polytopes are left in `pa` and `pb` for the caller.
pub(super) fn separating_axis(
    pa: &mut Posed,
    a: &ConvexPolytope,
    pose_a: &Pose,
    pb: &mut Posed,
    b: &ConvexPolytope,
    pose_b: &Pose,
    limit: f64,
) -> Option<(DVec3, f64)> {
    pa.load(a, pose_a);
    pb.load(b, pose_b);
    let scale = a.bounding_radius().max(b.bounding_radius());
    let (axis, separation) = best_axis(pa, a, pb, b, limit, scale)?;
    let normal = match axis {
        Axis::Face { normal, .. } | Axis::Edges { normal, .. } => normal,
    };
    Some((normal, separation))
}

/// Whether the Gauss-map arcs `a`-`b` and `c`-`d` (great-circle arcs
/// between unit normals, each less than a half circle) cross; for the arcs
/// of an edge of A and the negated arc of an edge of B this says that the
/// edge pair makes a face of the Minkowski difference (Gregorius 2013).
fn is_minkowski_face(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> bool {
    let b_x_a = b.cross(a);
    let d_x_c = d.cross(c);
    let cba = c.dot(b_x_a);
    let dba = d.dot(b_x_a);
    let adc = a.dot(d_x_c);
    let bdc = b.dot(d_x_c);
    cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0
}

/// The axis of edge `ea` of a against edge `eb` of b, unit and pointing
/// out of a, and the separation along it; `None` unless the pair makes a
/// face of the Minkowski difference and the edges are not parallel.
fn edge_axis(pa: &Posed, ea: &Edge, pb: &Posed, eb: &Edge) -> Option<(DVec3, f64)> {
    let (u_a, v_a) = (
        pa.planes[ea.faces[0] as usize].normal,
        pa.planes[ea.faces[1] as usize].normal,
    );
    let (u_b, v_b) = (
        pb.planes[eb.faces[0] as usize].normal,
        pb.planes[eb.faces[1] as usize].normal,
    );
    if !is_minkowski_face(u_a, v_a, -u_b, -v_b) {
        return None;
    }
    let p_a = pa.vertices[ea.vertices[0] as usize];
    let d_a = pa.vertices[ea.vertices[1] as usize] - p_a;
    let p_b = pb.vertices[eb.vertices[0] as usize];
    let d_b = pb.vertices[eb.vertices[1] as usize] - p_b;
    let cross = d_a.cross(d_b);
    let length = cross.length();
    if length <= PARALLEL * d_a.length() * d_b.length() {
        return None;
    }
    let mut normal = cross / length;
    if normal.dot(p_a - pa.interior) < 0.0 {
        normal = -normal;
    }
    Some((normal, normal.dot(p_b - p_a)))
}

/// Pushes to `out` every candidate axis (unit, from a to b) whose
/// separation is at least `threshold`: the facet normals of the Minkowski
/// difference whose planes pass that close to the origin. Needs the posed
/// polytopes already loaded by `separating_axis`.
pub(super) fn axes_near(
    pa: &Posed,
    a: &ConvexPolytope,
    pb: &Posed,
    b: &ConvexPolytope,
    threshold: f64,
    out: &mut Vec<DVec3>,
) {
    out.clear();
    for (of_b, own, other) in [(false, pa, pb), (true, pb, pa)] {
        for plane in &own.planes {
            let s = other
                .vertices
                .iter()
                .map(|&v| plane.normal.dot(v))
                .fold(f64::INFINITY, f64::min)
                - plane.offset;
            if s >= threshold {
                out.push(if of_b { -plane.normal } else { plane.normal });
            }
        }
    }
    for ea in a.edges() {
        for eb in b.edges() {
            if let Some((normal, s)) = edge_axis(pa, ea, pb, eb) {
                if s >= threshold {
                    out.push(normal);
                }
            }
        }
    }
}
