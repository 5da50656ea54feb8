//! The bound for touching polytopes (Drumwright 2016, sec. 3.1, eq. 7-8):
//! the earliest time a vertex not yet on the separating plane can reach
//! it, assuming the points on the plane stay on it.
//!
//! For a vertex `r` of either polytope off the plane `n . x = sigma`
//! (eq. 7): `t_r = |n . r - sigma| / ((|w_A x n| + |w_B x n|) |r - xi|)`,
//! with `xi` the point of that polytope's contact region farthest from
//! `r`; eq. 8 takes the least `t_r`. The contact region is the convex hull
//! of the polytope's vertices on the plane, so the farthest point is one
//! of them. Why it holds, for the premise of the paper (the contact region
//! stays on the plane: each body moves by a rotation about a point `p` of
//! its contact region, which itself slides in the plane): a vertex moves
//! towards the plane by `n . (R(w t) - I)(r - p) <= |w x n| |r - p| t`
//! and `|r - p| <= |r - xi|`. The tests move a body exactly so. The other
//! body's tilt is added as in the paper, which is first order: when both
//! bodies turn, the plane turns with one of them and `|w x n|` is read at
//! the start of the step.
//!
//! Which vertices: the paper notes that only the neighbours of the contact
//! vertices need testing. That is true for a single contact vertex (the
//! polytope lies in the cone of its edges at that vertex, and the ratio
//! height / distance is least along one of the edges), but with an edge or
//! face of contact `xi` depends on `r` and we have no proof; so every
//! vertex off the plane is tested (linear in the vertex count, as the
//! paper's worst case).

use glam::DVec3;

use crate::SeparatingPlane;

/// How fast a body turning with angular velocity `angular` (rad/s) tilts
/// the unit `normal`: `|angular x normal|` (rad/s), the factor of eq. 7.
#[must_use]
pub fn tilt_rate(angular: DVec3, normal: DVec3) -> f64 {
    angular.cross(normal).length()
}

/// Drumwright eq. 7-8: the time (s) before a vertex of `a` or `b` that is
/// off the separating `plane` can reach it, when the two bodies tilt
/// relative to the plane at `tilt_a` and `tilt_b` (rad/s; see
/// [`tilt_rate`], or [`ChainMotion::tilt_rate`](crate::ChainMotion::tilt_rate)
/// for a link, eq. 15). `f64::INFINITY` when neither tilts.
///
/// `vertices_a` and `vertices_b` are the polytopes' vertices in the world
/// frame; a vertex within `tolerance` (m) of its polytope's extreme
/// projection on the plane normal is on the contact region and is skipped
/// (its motion is the business of Drumwright's sec. 3.2 bound).
///
/// # Preconditions
/// `plane` separates the vertex sets (as
/// [`ManifoldGenerator::separating_plane`](crate::ManifoldGenerator::separating_plane)
/// returns it), both are non-empty, and the motion keeps the contact
/// region on the plane (see the module notes).
#[must_use]
pub fn touching_bound(
    plane: &SeparatingPlane,
    vertices_a: &[DVec3],
    vertices_b: &[DVec3],
    tilt_a: f64,
    tilt_b: f64,
    tolerance: f64,
) -> f64 {
    let tilt = tilt_a + tilt_b;
    if tilt <= 0.0 {
        return f64::INFINITY;
    }
    let n = plane.normal;
    let top_a = vertices_a
        .iter()
        .map(|&x| n.dot(x))
        .fold(f64::NEG_INFINITY, f64::max);
    let bottom_b = vertices_b
        .iter()
        .map(|&y| n.dot(y))
        .fold(f64::INFINITY, f64::min);
    let on_a = |x: DVec3| n.dot(x) >= top_a - tolerance;
    let on_b = |y: DVec3| n.dot(y) <= bottom_b + tolerance;
    let earliest = |vertices: &[DVec3], on: &dyn Fn(DVec3) -> bool| {
        let mut best = f64::INFINITY;
        for &r in vertices.iter().filter(|&&r| !on(r)) {
            let reach = vertices
                .iter()
                .filter(|&&x| on(x))
                .map(|&x| (r - x).length())
                .fold(0.0, f64::max);
            let height = (n.dot(r) - plane.offset).abs();
            best = best.min(height / (tilt * reach));
        }
        best
    };
    earliest(vertices_a, &on_a).min(earliest(vertices_b, &on_b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ContactKind;

    #[test]
    fn tetrahedron_on_its_tip() {
        // Tip at the origin on the plane z = 0; the other vertices at
        // height 1 and horizontal distance 2: t = 1 / (w sqrt(5)).
        let a = [
            DVec3::ZERO,
            DVec3::new(2.0, 0.0, 1.0),
            DVec3::new(-1.0, 3.0, 2.0),
            DVec3::new(-1.0, -3.0, 2.0),
        ];
        // Flip so the tetrahedron is below the plane (A below, B above).
        let a = a.map(|x| -x);
        let b = [
            DVec3::new(-5.0, -5.0, 0.0),
            DVec3::new(5.0, -5.0, 0.0),
            DVec3::new(0.0, 5.0, 0.0),
            DVec3::new(0.0, 0.0, 30.0),
        ];
        let plane = SeparatingPlane {
            normal: DVec3::Z,
            offset: 0.0,
            separation: 0.0,
            kind: ContactKind::VertexFace,
        };
        let t = touching_bound(&plane, &a, &b, 2.0, 0.0, 1e-12);
        assert!((t - 1.0 / (2.0 * 5f64.sqrt())).abs() < 1e-15);
        // B's apex (height 30, farthest contact vertex at sqrt(950)) gives
        // 30 / (2 sqrt(950)) = 0.49, later than A's vertex; no tilt, no bound.
        assert!(touching_bound(&plane, &a, &b, 0.0, 0.0, 1e-12).is_infinite());
    }
}
