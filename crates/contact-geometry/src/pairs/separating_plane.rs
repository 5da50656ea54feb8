//! The separating plane of two touching convex polytopes (Drumwright 2016,
//! sec. 3.0.1-3.0.2).
//!
//! The plane's normal is the winning axis of the separating-axis test of
//! `polytope_sat` (pointing from a to b); its offset lies midway between
//! the two supports along it, so every vertex of a satisfies
//! `n . x <= sigma + tol` and every vertex of b `n . y >= sigma - tol`
//! whenever the separation along the axis is within `tol` of zero.
//!
//! Whether the plane is unique is read off the Minkowski difference B - A,
//! whose boundary holds the origin when the polytopes touch: the plane is
//! unique exactly when the origin lies inside one facet of B - A. So the
//! candidate axes whose separation is within the tolerance of the best
//! are counted by direction: one direction, a facet (vertex-face,
//! edge-face, face-face, or two crossing edges: the kind is read from the
//! vertices of each polytope on the plane, one a vertex, collinear ones an
//! edge, others a face); two, an edge of B - A (a vertex against an edge,
//! or two parallel edges overlapping along a segment, told apart by the
//! vertices supporting both planes); three or more, a vertex of B - A
//! (vertex against vertex). Drumwright sec. 3.0.2 lists the unique cases
//! as vertex-face, edge-face and face-face and the others as not unique;
//! two edges crossing at a point, which that list does not name, also fix
//! the plane (its normal must be perpendicular to both edges) and are
//! reported as `EdgeEdge { crossing: true }`.

use glam::DVec3;

use super::Proximity;
use super::polytope_polytope::Scratch;
use super::polytope_sat::{axes_near, separating_axis};
use crate::ConvexPolytope;
use contact_math::Pose;

/// The feature pair by which two polytopes touch (unordered: `VertexFace`
/// is a vertex of either polytope on a face of the other).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactKind {
    /// A vertex of one polytope on a face of the other: plane unique.
    VertexFace,
    /// An edge of one on a face of the other: plane unique.
    EdgeFace,
    /// Two coplanar faces: plane unique.
    FaceFace,
    /// Two vertices: plane not unique.
    VertexVertex,
    /// A vertex of one on an edge of the other: plane not unique.
    VertexEdge,
    /// Two edges. `crossing`: not parallel, touching at a point, and the
    /// plane is unique (its normal is perpendicular to both edges); parallel
    /// edges overlapping along a segment leave it free to turn about them.
    EdgeEdge {
        /// Whether the two edges cross (are not parallel).
        crossing: bool,
    },
    /// A sphere touching the other shape (any feature of it, or another
    /// sphere) at one point: the plane is the sphere's tangent plane
    /// there, so it is unique. Not one of Drumwright's polytope cases.
    SphereTangent,
}

impl ContactKind {
    /// Whether the separating plane is determined by the contact
    /// (Drumwright 2016, sec. 3.0.2).
    #[must_use]
    pub fn is_unique(self) -> bool {
        match self {
            Self::VertexFace | Self::EdgeFace | Self::FaceFace | Self::SphereTangent => true,
            Self::EdgeEdge { crossing } => crossing,
            Self::VertexVertex | Self::VertexEdge => false,
        }
    }
}

/// A plane `{ x : normal . x = offset }` with the first polytope on its
/// negative side and the second on its positive side (world frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeparatingPlane {
    /// Unit normal, pointing from the first polytope to the second.
    pub normal: DVec3,
    /// Offset along the normal (m).
    pub offset: f64,
    /// Signed gap between the two polytopes' supports along the normal
    /// (m): the separation of the separating-axis test, negative when they
    /// overlap.
    pub separation: f64,
    /// How the polytopes touch the plane.
    pub kind: ContactKind,
}

impl SeparatingPlane {
    /// The same plane with the roles of the two shapes swapped.
    #[must_use]
    pub fn flipped(self) -> Self {
        Self {
            normal: -self.normal,
            offset: -self.offset,
            ..self
        }
    }
}

/// What a set of vertices on the plane amounts to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Touching {
    Vertex,
    Edge,
    Face,
}

/// The separating plane of `a` and `b`, or `None` when the separation of
/// the best axis is not within `tolerance` of zero.
pub(super) fn separating_plane(
    scratch: &mut Scratch,
    a: &ConvexPolytope,
    pose_a: &Pose,
    b: &ConvexPolytope,
    pose_b: &Pose,
    tolerance: f64,
) -> Option<SeparatingPlane> {
    let (normal, separation) = separating_axis(scratch, a, pose_a, b, pose_b, tolerance)?;
    if separation < -tolerance {
        return None;
    }
    let top_a = support(&scratch.a.vertices, normal, f64::max);
    let bottom_b = support(&scratch.b.vertices, normal, f64::min);
    let offset = 0.5 * (top_a + bottom_b);
    // Uniqueness (Drumwright sec. 3.0.2) through the Minkowski difference
    // B - A, which has the origin on its boundary: the plane is unique when
    // the origin is inside one facet, i.e. when the facet planes passing
    // within the tolerance of the origin all share one normal. Two distinct
    // normals put it on an edge of B - A (a vertex against an edge, or two
    // parallel edges), three or more on a vertex (vertex against vertex).
    axes_near(scratch, separation - tolerance);
    let mut distinct = [normal; 3];
    let mut count = 1;
    for &axis in &scratch.axes {
        if count < 3 && distinct[..count].iter().all(|d| d.dot(axis) < 1.0 - 1e-9) {
            distinct[count] = axis;
            count += 1;
        }
    }
    let kind = match count {
        1 => unique_kind(scratch, normal, top_a, bottom_b, tolerance),
        2 => {
            // The features on the edge of B - A: those of a supporting both
            // facet planes.
            let (n1, n2) = (distinct[0], distinct[1]);
            let top_a2 = support(&scratch.a.vertices, n2, f64::max);
            let bottom_b2 = support(&scratch.b.vertices, n2, f64::min);
            let on_both = |x: DVec3, l1: f64, l2: f64| {
                (n1.dot(x) - l1).abs() <= tolerance && (n2.dot(x) - l2).abs() <= tolerance
            };
            let count_a = scratch
                .a
                .vertices
                .iter()
                .filter(|&&x| on_both(x, top_a, top_a2))
                .count();
            let count_b = scratch
                .b
                .vertices
                .iter()
                .filter(|&&y| on_both(y, bottom_b, bottom_b2))
                .count();
            match (count_a > 1, count_b > 1) {
                (true, true) => ContactKind::EdgeEdge { crossing: false },
                (false, false) => ContactKind::VertexVertex,
                _ => ContactKind::VertexEdge,
            }
        }
        _ => ContactKind::VertexVertex,
    };
    Some(SeparatingPlane {
        normal,
        offset,
        separation,
        kind,
    })
}

/// The boundary plane of a half-space (outward `local_normal` at
/// `plane_pose`, first) against a polytope (second): offset midway between
/// the boundary and the polytope's lowest vertex, kind from the polytope's
/// vertices on it. `None` when that vertex is not within `tolerance` of
/// the boundary.
pub(super) fn boundary_plane(
    scratch: &mut Scratch,
    local_normal: DVec3,
    plane_pose: &Pose,
    polytope: &ConvexPolytope,
    pose: &Pose,
    tolerance: f64,
) -> Option<SeparatingPlane> {
    let normal = plane_pose.transform_vector(local_normal);
    let level = normal.dot(plane_pose.translation);
    scratch.b.load(polytope, pose);
    let bottom = support(&scratch.b.vertices, normal, f64::min);
    let separation = bottom - level;
    if separation.abs() > tolerance {
        return None;
    }
    let kind = match touching(&scratch.b.vertices, normal, bottom, tolerance) {
        Touching::Vertex => ContactKind::VertexFace,
        Touching::Edge => ContactKind::EdgeFace,
        Touching::Face => ContactKind::FaceFace,
    };
    Some(SeparatingPlane {
        normal,
        offset: 0.5 * (level + bottom),
        separation,
        kind,
    })
}

/// The plane tangent to a sphere at its contact, from the pair's
/// proximity (the sphere may be either shape): normal from the first shape
/// to the second, offset midway between the closest points. `None` when
/// the distance is not within `tolerance` of zero.
pub(super) fn tangent_plane(proximity: &Proximity, tolerance: f64) -> Option<SeparatingPlane> {
    if proximity.distance.abs() > tolerance {
        return None;
    }
    let n = proximity.normal;
    Some(SeparatingPlane {
        normal: n,
        offset: 0.5 * n.dot(proximity.point_a + proximity.point_b),
        separation: proximity.distance,
        kind: ContactKind::SphereTangent,
    })
}

/// The largest (`pick = f64::max`) or smallest projection of the vertices
/// on `direction`.
fn support(vertices: &[DVec3], direction: DVec3, pick: fn(f64, f64) -> f64) -> f64 {
    let start = if pick(0.0, 1.0) > 0.0 {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    vertices.iter().map(|&x| direction.dot(x)).fold(start, pick)
}

/// The kind of a contact whose plane is unique, from the features of each
/// polytope on the plane.
fn unique_kind(
    scratch: &Scratch,
    normal: DVec3,
    top_a: f64,
    bottom_b: f64,
    tolerance: f64,
) -> ContactKind {
    let on_a = touching(&scratch.a.vertices, normal, top_a, tolerance);
    let on_b = touching(&scratch.b.vertices, normal, bottom_b, tolerance);
    match (on_a, on_b) {
        (Touching::Edge, Touching::Face) | (Touching::Face, Touching::Edge) => {
            ContactKind::EdgeFace
        }
        (Touching::Face, Touching::Face) => ContactKind::FaceFace,
        (Touching::Edge, Touching::Edge) => ContactKind::EdgeEdge { crossing: true },
        // A facet of B - A is a face of one polytope against a vertex, an
        // edge or a face of the other, or two crossing edges; a vertex
        // against a vertex or an edge cannot make one, so what remains is
        // a vertex on a face.
        _ => ContactKind::VertexFace,
    }
}

/// Classifies the vertices within `tolerance` of the support `level`
/// along `normal`.
fn touching(vertices: &[DVec3], normal: DVec3, level: f64, tolerance: f64) -> Touching {
    let on = |x: &&DVec3| (normal.dot(**x) - level).abs() <= tolerance;
    let Some(&first) = vertices.iter().find(on) else {
        return Touching::Vertex;
    };
    let direction = extent(vertices, normal, level, tolerance);
    if direction == DVec3::ZERO {
        return Touching::Vertex;
    }
    let axis = direction.normalize();
    let off_line = vertices
        .iter()
        .filter(on)
        .map(|&x| (x - first).reject_from_normalized(axis).length())
        .fold(0.0, f64::max);
    if off_line <= tolerance {
        Touching::Edge
    } else {
        Touching::Face
    }
}

/// The vector from the first vertex on the plane to the farthest other
/// one (zero when only one vertex is on it, within `tolerance`).
fn extent(vertices: &[DVec3], normal: DVec3, level: f64, tolerance: f64) -> DVec3 {
    let on = |x: &&DVec3| (normal.dot(**x) - level).abs() <= tolerance;
    let Some(&first) = vertices.iter().find(on) else {
        return DVec3::ZERO;
    };
    let (length, far) = vertices
        .iter()
        .filter(on)
        .map(|&x| ((x - first).length(), x - first))
        .fold(
            (0.0, DVec3::ZERO),
            |best, x| if x.0 > best.0 { x } else { best },
        );
    if length > tolerance { far } else { DVec3::ZERO }
}
