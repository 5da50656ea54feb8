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
//! Which vertices ([`touching_bound_adjacent`]): the paper (end of
//! sec. 3.1) says only the vertices adjacent to the vertices on the plane
//! need testing, "by convexity, these adjacent vertices must be at least
//! as close as all other vertices". That argument is about the height
//! `|n . r - sigma|` alone, and for the height it holds (the lowest vertex
//! off the plane has an edge to the contact set: the simplex method's
//! argument, every vertex that does not minimise a linear function has a
//! neighbour that is lower). Eq. 7 divides the height by `|r - xi|`,
//! though, and the lowest vertex need not have the least ratio. What we
//! can prove:
//!
//! - One contact vertex `v` (so `xi = v` for every `r`): the ratio is the
//!   sine of the angle between `r - v` and the plane. The polytope lies
//!   in the cone of its edges at `v`, and `{ d : n . d >= s |d| }` is a
//!   convex cone for `s >= 0`, so if every edge direction at `v` makes at
//!   least the angle `asin s` then so does every `r - v`: the least ratio
//!   is on an edge at `v`, i.e. at a neighbour of `v`. The restricted
//!   minimum is then *equal* to the full one, whatever the motion: the
//!   restriction changes how eq. 8 is evaluated, not what it bounds.
//! - An edge or a face of contact `C`: the cone at a contact vertex holds
//!   edges lying in the plane (angle zero), so the argument above gives
//!   nothing, and `xi` changes with `r`. The parametric form of the
//!   simplex argument does prove something: with `s` the least ratio over
//!   the neighbours `u` of the contact vertices (height over
//!   `max_c |u - c|`), every vertex `r` has height at least
//!   `s dist(r, C)`. (Sketch: were `h(r) < s (e . r - max_C e . x)` for a
//!   unit `e`, tilt the plane about `C`'s extreme line along `e`,
//!   `g_t = h - t s (e . x - max_C e . x)`, `t` from 0 to 1; where its
//!   minimum over the polytope first drops below zero, the minimising face
//!   holds a contact vertex and a vertex off the plane, hence an edge from
//!   `C` to a neighbour `u` with `g = 0`, giving `u` a ratio below `s`.)
//!   Eq. 7 divides by `max_c |r - c| >= dist(r, C)`, with equality only
//!   for one contact vertex, so this falls short of the restriction. We
//!   found no counterexample (20 000 random hulls resting on a vertex, an
//!   edge or a face, and a random local search over 300 hulls built on a
//!   contact edge or face) but have no proof, so such a polytope falls
//!   back to every vertex off the plane.
//!
//! [`touching_bound`] always tests every vertex off the plane against
//! every contact vertex (linear in the vertex count for a bounded number
//! of contact vertices); it is the safe fallback and takes bare vertex
//! sets. A sphere has no vertex: pass an empty set for
//! it, so its term of eq. 8 is infinite. That is the meaning of the bound
//! for a sphere: its contact with the plane is one point and stays one
//! point, so no new feature can reach the plane; the premise (the contact
//! stays on the plane) reads, for a ball turning about its centre, that
//! its centre moves parallel to the plane. (Turned about its contact point
//! instead, as eq. 7 models a polytope, a ball dips below the plane at
//! second order at once: points at angle `theta` from the contact give
//! the ratio `sin(theta / 2)`, whose infimum is zero.)

use glam::DVec3;

use crate::{ConvexPolytope, SeparatingPlane};

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
/// returns it), and the motion keeps the contact region on the plane
/// (see the module notes). A sphere's vertex set is empty: it adds no
/// term.
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
    let side_a = Side::Below(vertices_a, None);
    let side_b = Side::Above(vertices_b, None);
    earliest_on_side(plane, side_a, tilt, tolerance)
        .min(earliest_on_side(plane, side_b, tilt, tolerance))
}

/// One shape of a touching pair, for [`touching_bound_adjacent`].
#[derive(Clone, Copy, Debug)]
pub struct TouchingPolytope<'a> {
    /// The polytope, for its edges; `None` tests every vertex off the
    /// plane (and, with no vertices, stands for a sphere).
    pub polytope: Option<&'a ConvexPolytope>,
    /// Its vertices in the world frame, indexed as the polytope's; empty
    /// for a sphere.
    pub world_vertices: &'a [DVec3],
    /// How fast it tilts relative to the plane (rad/s; see [`tilt_rate`]).
    pub tilt: f64,
}

/// [`touching_bound`] testing, for a polytope touching the plane at one
/// vertex, only that vertex's neighbours: the same value (see the module
/// notes for the proof, and why an edge or face of contact falls back to
/// every vertex off the plane), found in time linear in the vertex's
/// degree instead of the vertex count (after the support scan).
///
/// # Preconditions
/// Those of [`touching_bound`]; each `world_vertices` holds its
/// polytope's vertices in its order.
#[must_use]
pub fn touching_bound_adjacent(
    plane: &SeparatingPlane,
    a: &TouchingPolytope<'_>,
    b: &TouchingPolytope<'_>,
    tolerance: f64,
) -> f64 {
    let tilt = a.tilt + b.tilt;
    if tilt <= 0.0 {
        return f64::INFINITY;
    }
    let side_a = Side::Below(a.world_vertices, a.polytope);
    let side_b = Side::Above(b.world_vertices, b.polytope);
    earliest_on_side(plane, side_a, tilt, tolerance)
        .min(earliest_on_side(plane, side_b, tilt, tolerance))
}

/// How many contact vertices the full scan keeps on the stack.
const CONTACT_BUFFER: usize = 32;

/// One polytope's world vertices, the side of the plane it is on (the
/// first polytope below, the second above), and its topology when the
/// neighbour restriction may be used.
#[derive(Clone, Copy)]
enum Side<'a> {
    Below(&'a [DVec3], Option<&'a ConvexPolytope>),
    Above(&'a [DVec3], Option<&'a ConvexPolytope>),
}

/// The least eq. 7 time over one polytope's vertices off the plane; with
/// its polytope given and a single vertex on the plane, over that
/// vertex's neighbours only.
fn earliest_on_side(plane: &SeparatingPlane, side: Side<'_>, tilt: f64, tolerance: f64) -> f64 {
    let n = plane.normal;
    // Heights towards the plane: the contact region is the maximum.
    let (vertices, polytope, sign) = match side {
        Side::Below(v, p) => (v, p, 1.0),
        Side::Above(v, p) => (v, p, -1.0),
    };
    let level = |x: DVec3| sign * n.dot(x);
    let top = vertices
        .iter()
        .map(|&x| level(x))
        .fold(f64::NEG_INFINITY, f64::max);
    let on = |x: DVec3| level(x) >= top - tolerance;
    let time = |r: DVec3, reach: f64| (n.dot(r) - plane.offset).abs() / (tilt * reach);
    if let Some(p) = polytope {
        let mut contact = (0..vertices.len()).filter(|&i| on(vertices[i]));
        if let (Some(v), None) = (contact.next(), contact.next()) {
            // One contact vertex: xi = v, and the least ratio is on an edge
            // at v (module notes).
            return p
                .vertex_edges(v)
                .iter()
                .map(|&e| {
                    let [i, j] = p.edges()[e as usize].vertices;
                    let other = if i as usize == v { j } else { i };
                    let r = vertices[other as usize];
                    time(r, (r - vertices[v]).length())
                })
                .fold(f64::INFINITY, f64::min);
        }
    }
    // The contact vertices, gathered once on the stack when few (as they
    // are: a polygon's corners); more fall back to a scan per vertex.
    let mut contact = [DVec3::ZERO; CONTACT_BUFFER];
    let mut count = 0;
    for &x in vertices.iter().filter(|&&x| on(x)) {
        if count < CONTACT_BUFFER {
            contact[count] = x;
        }
        count += 1;
    }
    let reach = |r: DVec3| {
        let farthest = |best: f64, x: &DVec3| best.max((r - *x).length());
        if count <= CONTACT_BUFFER {
            contact[..count].iter().fold(0.0, farthest)
        } else {
            vertices.iter().filter(|&&x| on(x)).fold(0.0, farthest)
        }
    };
    vertices
        .iter()
        .filter(|&&r| !on(r))
        .map(|&r| time(r, reach(r)))
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ContactKind;

    #[test]
    fn prism_on_its_face_with_few_and_many_contact_vertices() {
        // A regular k-gon prism of radius 2 below z = 0, its top face on
        // the plane: each bottom vertex is 1 below, 4 across and 1 down
        // from the opposite top vertex (k even), so t = 1 / (w sqrt(17)),
        // whether the k contact vertices fit the stack buffer or not.
        for k in [8, 2 * CONTACT_BUFFER + 2] {
            let ring = |z: f64| {
                (0..k).map(move |i| {
                    let angle = std::f64::consts::TAU * i as f64 / k as f64;
                    DVec3::new(2.0 * angle.cos(), 2.0 * angle.sin(), z)
                })
            };
            let prism: Vec<DVec3> = ring(0.0).chain(ring(-1.0)).collect();
            let plane = SeparatingPlane {
                normal: DVec3::Z,
                offset: 0.0,
                separation: 0.0,
                kind: ContactKind::FaceFace,
            };
            let t = touching_bound(&plane, &prism, &[], 3.0, 0.0, 1e-12);
            assert!((t - 1.0 / (3.0 * 17f64.sqrt())).abs() < 1e-15, "k {k}: {t}");
        }
    }

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
