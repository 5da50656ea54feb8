//! Planar-polygon helpers shared by the clipping manifolds and the hull
//! builder: one Sutherland-Hodgman clipping pass that keeps track of the
//! features each vertex lies on, distance to a segment, removal of vertices
//! that round-off put on an edge, and the clipped polygon's vertices as
//! contact points.

use glam::DVec3;

use crate::{ContactManifold, ContactPoint, Feature};

/// A vertex of an incident-face polygon being clipped against a reference
/// face, with the features of both shapes it lies on (`Unknown` on the
/// incident side means the interior of the incident face).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClipVertex {
    pub point: DVec3,
    pub reference: Feature,
    pub incident: Feature,
}

/// What the polygon edge leaving a vertex lies on: edge `id` of the
/// incident face, or the side plane of the reference face with key `key`
/// (the caller's name for the side, passed back to it to name corners).
#[derive(Clone, Copy, Debug)]
pub(crate) enum EdgeTag {
    Incident(u32),
    ReferenceSide(u32),
}

/// A side plane of the reference face: the kept side is
/// `normal . p <= limit`; it runs along reference edge `edge`, and `key`
/// names it in the `EdgeTag`s of the edges it makes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SidePlane {
    pub normal: DVec3,
    pub limit: f64,
    pub edge: u32,
    pub key: u32,
}

/// One Sutherland-Hodgman pass (Sutherland and Hodgman, "Reentrant polygon
/// clipping", CACM 1974): the part of the closed polygon `input` on the
/// kept side of `side`, vertex by vertex through `push`. A new vertex
/// where an incident edge crosses the plane lies on that edge and on the
/// reference edge of the side (edge against edge); one where an earlier
/// side's edge crosses it is the corner `corner(key of that side)` of the
/// reference face, inside the incident face.
#[inline]
pub(crate) fn clip_by_side(
    input: &[(ClipVertex, EdgeTag)],
    side: &SidePlane,
    corner: impl Fn(u32) -> Feature,
    mut push: impl FnMut((ClipVertex, EdgeTag)),
) {
    let n = input.len();
    for k in 0..n {
        let (current, tag) = input[k];
        let (next, _) = input[(k + 1) % n];
        let dc = side.normal.dot(current.point) - side.limit;
        let dn = side.normal.dot(next.point) - side.limit;
        if dc <= 0.0 {
            push((current, tag));
        }
        if (dc <= 0.0) != (dn <= 0.0) {
            let t = dc / (dc - dn);
            let point = current.point + t * (next.point - current.point);
            let (reference, incident) = match tag {
                EdgeTag::Incident(edge) => (Feature::Edge(side.edge), Feature::Edge(edge)),
                EdgeTag::ReferenceSide(key) => (corner(key), Feature::Unknown),
            };
            // Leaving the kept side, the new edge runs along this plane.
            let new_tag = if dc <= 0.0 {
                EdgeTag::ReferenceSide(side.key)
            } else {
                tag
            };
            push((
                ClipVertex {
                    point,
                    reference,
                    incident,
                },
                new_tag,
            ));
        }
    }
}

/// Pushes every clipped vertex within `margin` of the reference plane
/// `normal . x = offset` as a contact point: on the reference face
/// (`point_a`, projected) and on the incident shape (`point_b`).
pub(crate) fn push_clipped_points<'a>(
    vertices: impl Iterator<Item = &'a ClipVertex>,
    normal: DVec3,
    offset: f64,
    incident_face: u32,
    margin: f64,
    out: &mut ContactManifold,
) {
    for vertex in vertices {
        let distance = normal.dot(vertex.point) - offset;
        if distance <= margin {
            let incident = match vertex.incident {
                Feature::Unknown => Feature::Face(incident_face),
                known => known,
            };
            out.points.push(ContactPoint {
                point_a: vertex.point - distance * normal,
                point_b: vertex.point,
                distance,
                feature_a: vertex.reference,
                feature_b: incident,
            });
        }
    }
}

/// Distance from `p` to the segment `a`-`b`.
#[must_use]
pub(crate) fn distance_to_segment(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let ab = b - a;
    let length_squared = ab.length_squared();
    let t = if length_squared > 0.0 {
        ((p - a).dot(ab) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + t * ab - p).length()
}

/// Removes, one at a time, vertices of the closed polygon `polygon[..len]`
/// that lie within `merge` of the segment joining their neighbours (they add
/// nothing to its shape: round-off made them); returns the new length.
/// `point` reads a vertex's position.
pub(crate) fn remove_redundant_vertices<T: Copy>(
    polygon: &mut [T],
    mut len: usize,
    merge: f64,
    point: impl Fn(&T) -> DVec3,
) -> usize {
    let mut k = 0;
    while len > 1 && k < len {
        let prev = point(&polygon[(k + len - 1) % len]);
        let next = point(&polygon[(k + 1) % len]);
        if distance_to_segment(point(&polygon[k]), prev, next) <= merge {
            polygon.copy_within(k + 1..len, k);
            len -= 1;
            // The previous vertex may have become redundant too.
            k = k.saturating_sub(1);
        } else {
            k += 1;
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collinear_and_duplicate_vertices_go_corners_stay() {
        let square = [
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(0.5, 1e-13, 0.0), // on the bottom edge
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(1.0, 1.0 + 1e-14, 0.0), // duplicate corner
            DVec3::new(0.0, 1.0, 0.0),
        ];
        let mut polygon = square;
        let len = remove_redundant_vertices(&mut polygon, square.len(), 1e-9, |p| *p);
        assert_eq!(len, 4);
        for corner in [square[0], square[2], square[5]] {
            assert!(polygon[..len].contains(&corner));
        }
        assert!(
            (distance_to_segment(DVec3::new(0.5, 2.0, 0.0), square[0], square[2]) - 2.0).abs()
                < 1e-15
        );
        assert!(
            (distance_to_segment(DVec3::new(3.0, 0.0, 0.0), square[0], square[2]) - 2.0).abs()
                < 1e-15
        );
    }
}
