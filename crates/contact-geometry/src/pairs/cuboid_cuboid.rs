//! Cuboid against cuboid: the separating-axis test over the 15 candidate
//! axes (3 face normals of each box, 9 edge-direction cross products), then
//! - a face axis wins: reference-face clipping. The incident face (the face
//!   of the other box most opposed to the reference normal) is clipped by
//!   the four side planes of the reference face (Sutherland-Hodgman), and
//!   every vertex of the clipped polygon within the margin is a contact
//!   point: all of them, up to eight, since constraints at every vertex of
//!   the contact polygon are what hold the face (Drumwright 2016,
//!   sec. 4.1.1);
//! - an edge axis wins: the closest points of the two supporting edges, one
//!   point.
//!
//! Written here rather than taken from parry: parry 0.31's cuboid manifold
//! returns points far outside the margin with made-up features for an
//! edge-edge crossing, and loses vertices of the octagon of two cubes
//! turned 45 degrees (both are tests in `tests/cuboid_manifolds.rs`).
//!
//! Face axes are preferred over edge axes unless an edge axis separates more
//! by a relative tolerance, so a resting face contact never flickers into a
//! single edge point.

use contact_math::Pose;
use glam::DVec3;

use crate::oriented_box::{OrientedBox, edge_between, edge_id, face_id};
use crate::polygon::{
    ClipVertex, EdgeTag, SidePlane, clip_by_side, push_clipped_points, remove_redundant_vertices,
};
use crate::{ContactManifold, ContactPoint, Feature};

/// Edge pairs whose cross product is shorter than this are parallel: their
/// axis is already covered by a face axis.
const PARALLEL: f64 = 1e-9;

/// Clipped vertices closer than this, relative to the boxes' size, are the
/// same vertex.
const MERGE: f64 = 1e-9;

/// The best separating axis found, oriented from box a to box b.
#[derive(Clone, Copy)]
enum Axis {
    /// Face `axis` of box a (`of_b = false`) or of box b.
    Face {
        of_b: bool,
        axis: usize,
        normal: DVec3,
    },
    /// Edge `i` of a crossed with edge `j` of b.
    Edges { i: usize, j: usize, normal: DVec3 },
}

/// Fills `out` with the contact of two cuboids; the normal points from `a`
/// to `b`.
pub(super) fn manifold(
    half_a: DVec3,
    pose_a: &Pose,
    half_b: DVec3,
    pose_b: &Pose,
    margin: f64,
    out: &mut ContactManifold,
) {
    let a = OrientedBox::new(half_a, pose_a);
    let b = OrientedBox::new(half_b, pose_b);
    let Some(axis) = best_axis(&a, &b, margin) else {
        return;
    };
    match axis {
        Axis::Face {
            of_b: false,
            axis,
            normal,
            ..
        } => {
            clip_faces(&a, axis, &b, normal, margin, out);
            out.normal = normal;
        }
        Axis::Face {
            of_b: true,
            axis,
            normal,
            ..
        } => {
            // Reference face on b: its outward normal is -normal; clip as if
            // b were first, then swap the roles back.
            clip_faces(&b, axis, &a, -normal, margin, out);
            for p in &mut out.points {
                std::mem::swap(&mut p.point_a, &mut p.point_b);
                std::mem::swap(&mut p.feature_a, &mut p.feature_b);
            }
            out.normal = normal;
        }
        Axis::Edges { i, j, normal, .. } => {
            if let Some(point) = edge_contact(&a, i, &b, j, normal, margin) {
                out.points.push(point);
                out.normal = normal;
            }
        }
    }
    if out.points.is_empty() {
        out.normal = DVec3::ZERO;
    }
}

/// The separating axis of largest separation (the signed gap of the boxes'
/// projections), or `None` when some axis separates them by more than the
/// margin.
fn best_axis(a: &OrientedBox, b: &OrientedBox, margin: f64) -> Option<Axis> {
    let offset = b.centre - a.centre;
    // Separation along unit `l`, and `l` turned to point from a to b.
    let separation = |l: DVec3| {
        let l = if l.dot(offset) < 0.0 { -l } else { l };
        (
            l.dot(offset) - a.projected_radius(l) - b.projected_radius(l),
            l,
        )
    };
    let mut best: Option<Axis> = None;
    let mut best_face = f64::NEG_INFINITY;
    for (of_b, owner) in [(false, a), (true, b)] {
        for axis in 0..3 {
            let (s, normal) = separation(owner.axes[axis]);
            if s > margin {
                return None;
            }
            // Strict: on a tie, box a's face (and the lower axis) wins,
            // which keeps the choice deterministic.
            if s > best_face {
                best_face = s;
                best = Some(Axis::Face { of_b, axis, normal });
            }
        }
    }
    let scale = a.half.iter().chain(&b.half).fold(0.0_f64, |m, &h| m.max(h));
    let mut best_edge = best_face + super::edge_preference(best_face, scale);
    for i in 0..3 {
        for j in 0..3 {
            let cross = a.axes[i].cross(b.axes[j]);
            let length = cross.length();
            if length < PARALLEL {
                continue;
            }
            let (s, normal) = separation(cross / length);
            if s > margin {
                return None;
            }
            if s > best_edge {
                best_edge = s;
                best = Some(Axis::Edges { i, j, normal });
            }
        }
    }
    best
}

/// Clips the incident face of `inc` against reference face `axis` of `refb`,
/// whose outward normal is `normal`; pushes points with `refb` as the first shape.
fn clip_faces(
    refb: &OrientedBox,
    axis: usize,
    inc: &OrientedBox,
    normal: DVec3,
    margin: f64,
    out: &mut ContactManifold,
) {
    let ref_negative = refb.axes[axis].dot(normal) < 0.0;
    let ref_face = face_id(axis, ref_negative);
    let face_centre = refb.centre + refb.half[axis] * normal;

    // Incident face: the face of `inc` whose outward normal is most opposed.
    let (inc_axis, inc_negative) = (0..3)
        .map(|k| (k, inc.axes[k].dot(normal)))
        .max_by(|x, y| x.1.abs().total_cmp(&y.1.abs()))
        .map(|(k, d)| (k, d > 0.0))
        .expect("three axes");
    let inc_face = face_id(inc_axis, inc_negative);
    let (u, v) = other_axes(inc_axis);
    let face_bit = if inc_negative { 1 << inc_axis } else { 0 };
    // Counter-clockwise order is not needed, only a cycle around the face.
    let cycle = [0u32, 1 << u, (1 << u) | (1 << v), 1 << v].map(|bits| bits | face_bit);

    let mut polygon = [(
        ClipVertex {
            point: DVec3::ZERO,
            reference: Feature::Unknown,
            incident: Feature::Unknown,
        },
        EdgeTag::Incident(0),
    ); 8];
    let mut len = 0;
    for (k, &id) in cycle.iter().enumerate() {
        let next = cycle[(k + 1) % 4];
        polygon[len] = (
            ClipVertex {
                point: inc.vertex(id),
                reference: Feature::Face(ref_face),
                incident: Feature::Vertex(id),
            },
            EdgeTag::Incident(edge_between(id, next)),
        );
        len += 1;
    }

    // The four side planes of the reference face: |axes[s] . (p - c)| <= half[s].
    let (s1, s2) = other_axes(axis);
    let ref_bits = if ref_negative { 1 << axis } else { 0 };
    let mut scratch = polygon;
    for side in [s1, s2] {
        for negative in [false, true] {
            let plane_normal = if negative {
                -refb.axes[side]
            } else {
                refb.axes[side]
            };
            // The reference box's edge along this side of the reference
            // face; the side is keyed by the vertex bits its ends share, so
            // two sides meet at the corner with both sets of bits.
            let edge_axis = if side == s1 { s2 } else { s1 };
            let side_bits = ref_bits | if negative { 1 << side } else { 0 };
            let plane = SidePlane {
                normal: plane_normal,
                limit: plane_normal.dot(refb.centre) + refb.half[side],
                edge: edge_id(edge_axis, side_bits),
                key: side_bits,
            };
            let mut clipped = 0;
            clip_by_side(
                &polygon[..len],
                &plane,
                |bits| Feature::Vertex(side_bits | bits),
                |vertex| {
                    // At most one vertex more per pass: 4 + 4 fit in 8.
                    scratch[clipped] = vertex;
                    clipped += 1;
                },
            );
            len = clipped;
            polygon[..len].copy_from_slice(&scratch[..len]);
            if len == 0 {
                return;
            }
        }
    }

    // A vertex within MERGE (relative to the boxes' size) of the segment
    // joining its neighbours adds nothing to the polygon: round-off made it.
    // Two equal faces turned by 1e-12 rad clip to an "octagon" whose extra
    // vertices sit on the square's edges; keeping them would hand the
    // solver duplicated, collinear contacts and a degenerate LCP.
    let merge = MERGE
        * refb
            .half
            .iter()
            .chain(&inc.half)
            .fold(0.0_f64, |m, &h| m.max(h));
    let kept = remove_redundant_vertices(&mut polygon, len, merge, |(v, _)| v.point);

    let offset = normal.dot(face_centre);
    let clipped = polygon[..kept].iter().map(|(vertex, _)| vertex);
    push_clipped_points(clipped, normal, offset, inc_face, margin, out);
}

/// The two axes other than `axis`, in increasing order.
fn other_axes(axis: usize) -> (usize, usize) {
    match axis {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    }
}

/// The closest points of edge `i` of `a` and edge `j` of `b` that support
/// the two boxes along `normal` (from a to b).
fn edge_contact(
    a: &OrientedBox,
    i: usize,
    b: &OrientedBox,
    j: usize,
    normal: DVec3,
    margin: f64,
) -> Option<ContactPoint> {
    let bits_a = a.support_bits(normal) & !(1 << i);
    let bits_b = b.support_bits(-normal) & !(1 << j);
    // Segment midpoints and half-length directions.
    let mid_a = a.vertex(bits_a) - a.half[i] * a.axes[i];
    let mid_b = b.vertex(bits_b) - b.half[j] * b.axes[j];
    let (da, db) = (a.axes[i], b.axes[j]);
    // Closest points of the two lines, then clamped to the segments: for
    // crossing edges the unclamped parameters already lie inside.
    let r = mid_b - mid_a;
    let c = da.dot(db);
    let denominator = 1.0 - c * c;
    let s = ((da.dot(r) - c * db.dot(r)) / denominator).clamp(-a.half[i], a.half[i]);
    let t = (s * c - db.dot(r)).clamp(-b.half[j], b.half[j]);
    let s = (t * c + da.dot(r)).clamp(-a.half[i], a.half[i]);
    let point_a = mid_a + s * da;
    let point_b = mid_b + t * db;
    let distance = normal.dot(point_b - point_a);
    (distance <= margin).then_some(ContactPoint {
        point_a,
        point_b,
        distance,
        feature_a: Feature::Edge(edge_id(i, bits_a)),
        feature_b: Feature::Edge(edge_id(j, bits_b)),
    })
}
