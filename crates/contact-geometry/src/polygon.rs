//! Planar-polygon helpers shared by the clipping manifolds and the hull
//! builder: distance to a segment, removal of vertices that round-off put on
//! an edge, and the clipped polygon's vertices as contact points.

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
