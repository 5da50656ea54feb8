//! The separating-axis test between two convex polytopes, shared by the
//! contact manifold (`polytope_polytope`), the separating plane and the
//! proximity query.
//!
//! Candidate axes are the face normals of both polytopes and the cross
//! products of edge pairs. Only edge pairs whose arcs on the Gauss map
//! cross form a face of the Minkowski difference (Gregorius, "The
//! Separating Axis Test between Convex Polyhedra", GDC 2013); for those
//! the separation along the cross product is exact from the two edges
//! alone: the Minkowski face's plane supports A - B, so with the axis
//! pointing out of A the distance from the plane through A's edge point to
//! B's edge point is the gap between the polytopes' supports along it
//! (convexity), and no support search is needed. Parallel edge pairs are
//! skipped (a face axis covers them).
//!
//! Cost: each face axis is first bounded by one vertex of the other
//! polytope and only faces that can matter are scanned
//! (`O(F_a V_b + F_b V_a)` at worst, vectorised); edges of a that cannot
//! come near the best face are skipped by a bound of their own
//! (`EdgeFloor`); the others find their partners among b's edges through
//! bounding cones of the Gauss arcs (`polytope::GaussMap`, a cone tree per
//! polytope, built once), so the exact crossing test sees a few times the
//! number of Minkowski faces instead of `E_a E_b` pairs. The answer is
//! that of the plain loop over every face and every edge pair in id order
//! (kept in the tests as the reference): every skip is proven to leave
//! out only axes that cannot win, pass the margin or be near the best, the
//! cones reject only pairs that cannot cross, and ties go to the smallest
//! ids as in that loop.
//!
//! The caller says how an edge axis competes with the best face axis
//! (`AxisChoice`): for a manifold, near contact, it must out-separate the
//! face by 1e-3 of the size, so a resting face never flickers into one edge
//! point; for the separating plane and the proximity query, which measure,
//! the largest separation wins (faces on ties within 1e-9 of the size).
//! Separations are signed: the largest one is minus the penetration depth
//! when the polytopes overlap, and a lower bound of their distance when
//! they do not.

use std::ops::ControlFlow;

use contact_math::Pose;
use glam::{DMat3, DQuat, DVec3};

use super::polytope_polytope::Scratch;
use super::{AxisChoice, edge_preference};
use crate::polytope::FacePlane;
use crate::{ConvexPolytope, Edge};

/// Edge pairs whose cross product is shorter than this, relative to the
/// product of the edge lengths, are parallel.
const PARALLEL: f64 = 1e-9;

/// A polytope's vertices and face planes in the world frame.
#[derive(Debug, Default)]
pub(super) struct Posed {
    pub(super) vertices: Vec<DVec3>,
    /// The vertices' x, y and z coordinates, each in one column.
    columns: [Vec<f64>; 3],
    pub(super) planes: Vec<FacePlane>,
    pub(super) interior: DVec3,
    /// The pose's rotation (turns the polytope's Gauss map).
    pub(super) rotation: DQuat,
}

impl Posed {
    pub(super) fn load(&mut self, polytope: &ConvexPolytope, pose: &Pose) {
        self.vertices.clear();
        self.vertices
            .extend(polytope.vertices().iter().map(|&v| pose.transform_point(v)));
        for (axis, column) in self.columns.iter_mut().enumerate() {
            column.clear();
            column.extend(self.vertices.iter().map(|v| v[axis]));
        }
        self.planes.clear();
        self.planes.extend(polytope.faces().iter().map(|p| {
            let normal = pose.transform_vector(p.normal);
            FacePlane {
                normal,
                offset: p.offset + normal.dot(pose.translation),
            }
        }));
        self.interior = pose.transform_point(polytope.interior_point());
        self.rotation = pose.rotation;
    }
}

/// The best separating axis found; `normal` points from a to b.
#[derive(Clone, Copy, Debug, PartialEq)]
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

/// An edge pair that makes a face of the Minkowski difference: its ids,
/// axis (unit, from a to b) and separation.
#[derive(Clone, Copy, Debug)]
struct EdgePairAxis {
    edge_a: u32,
    edge_b: u32,
    normal: DVec3,
    separation: f64,
}

/// Work memory of the axis search, reused between queries, and what the
/// last complete search found (for `axes_near`).
#[derive(Debug, Default)]
pub(super) struct AxisSearch {
    /// For every face axis (a's faces, then b's): its separation, or an
    /// upper bound of it below what could matter (`face_exact` false).
    face_separations: Vec<f64>,
    face_exact: Vec<bool>,
    /// The Gauss-map arcs of a's and b's edges (world frame).
    arcs_a: Vec<GaussArc>,
    arcs_b: Vec<GaussArc>,
    /// Every edge pair met that makes a Minkowski face.
    edge_axes: Vec<EdgePairAxis>,
    /// `axes_near`'s edge pairs, to be put in id order.
    near: Vec<EdgePairAxis>,
}

/// The separation of the posed polytope `other` from the face `plane` of
/// the other one: the smallest height of its vertices above the plane.
///
/// The same products and sums as `plane.normal.dot(v)` per vertex, so the
/// same value to the bit as a plain loop; the minimum (exact, any order) is
/// taken in four running lanes over the coordinate columns, which the
/// compiler turns into vector instructions.
fn face_separation(plane: &FacePlane, other: &Posed) -> f64 {
    const LANES: usize = 4;
    let n = plane.normal;
    let [xs, ys, zs] = &other.columns;
    let height = |x: f64, y: f64, z: f64| n.x * x + n.y * y + n.z * z;
    let mut lowest = [f64::INFINITY; LANES];
    let (x4, y4, z4) = (
        xs.chunks_exact(LANES),
        ys.chunks_exact(LANES),
        zs.chunks_exact(LANES),
    );
    let tail = x4
        .remainder()
        .iter()
        .zip(y4.remainder())
        .zip(z4.remainder())
        .map(|((&x, &y), &z)| height(x, y, z));
    for ((x, y), z) in x4.zip(y4).zip(z4) {
        for lane in 0..LANES {
            let h = height(x[lane], y[lane], z[lane]);
            lowest[lane] = if h < lowest[lane] { h } else { lowest[lane] };
        }
    }
    lowest.into_iter().chain(tail).fold(f64::INFINITY, f64::min) - plane.offset
}

/// The vertex of the posed polytope with the smallest projection on
/// `direction` (any vertex for a zero direction).
fn deepest_vertex(posed: &Posed, direction: DVec3) -> DVec3 {
    posed
        .vertices
        .iter()
        .copied()
        .min_by(|x, y| direction.dot(*x).total_cmp(&direction.dot(*y)))
        .unwrap_or(DVec3::ZERO)
}

/// A bound that rules out every edge pair of an edge of a at once, before
/// any search of b's edges.
///
/// Any axis `n` an edge of a can make lies on its Gauss arc, `n = (s u +
/// t v) / |s u + t v|` with `s, t >= 0`, `s + t = 1`, `u` and `v` its
/// faces' normals; along it the edge's point `p` supports a, and any point
/// `y` of b bounds b's lowest height, so the separation is at most
/// `n . (y - p)`. That is at most `m = max(u . (y - p), v . (y - p))` when
/// `m` is negative (the numerator is at most `m`, the length at most 1).
/// With `y` the vertex of b deepest along the best face axis, near the
/// contact, the bound is tight near it and far below elsewhere.
///
/// Pairs whose separation is below the best face's minus the margin can
/// neither win (the best face is as good), nor pass the margin (the best
/// face is within it, or the search has ended), nor be near enough the
/// best for `axes_near`, whose threshold is at most the margin below the
/// best; so edges of a whose bound is below that floor are skipped. The
/// floor is never positive (the best face is within the margin), so only
/// negative bounds matter. The bound gets a slack of 1e-6 of the sizes
/// involved, for rounding and for the hull's own tolerance.
struct EdgeFloor {
    /// Skip below this; `-inf` (no skipping) for an infinite margin.
    floor: f64,
    deepest_b: DVec3,
    size: f64,
}

impl EdgeFloor {
    fn new(
        pa: &Posed,
        pb: &Posed,
        best: Option<Axis>,
        best_face: f64,
        margin: f64,
        scale: f64,
    ) -> Self {
        let normal = match best {
            Some(Axis::Face { normal, .. } | Axis::Edges { normal, .. }) => normal,
            None => DVec3::ZERO,
        };
        let deepest_b = deepest_vertex(pb, normal);
        let floor = best_face - margin;
        Self {
            floor: if floor.is_finite() {
                floor
            } else {
                f64::NEG_INFINITY
            },
            deepest_b,
            size: scale + pa.interior.length() + pb.interior.length(),
        }
    }

    /// Whether every pair of the edge of a through `point` with Gauss arc
    /// `arc` is certainly below the floor.
    fn rules_out(&self, point: DVec3, arc: &GaussArc) -> bool {
        let w = self.deepest_b - point;
        let bound = arc.u.dot(w).max(arc.v.dot(w));
        bound < 0.0 && bound + 1e-6 * (self.size + w.length()) < self.floor
    }
}

/// The axis of largest separation, edge axes competing with the best face
/// axis as `choice` says (`edge_preference`), or `None` when some axis
/// separates the polytopes by more than the margin (the search then stops
/// early and `search` holds an incomplete record).
///
/// The result is that of testing every face and every edge pair in id
/// order (faces of a, faces of b, then edge pairs by edge of a, then of b),
/// the first of equal separations winning: edge pairs rejected by the
/// Gauss-map cones (`GaussMap`) cannot make a Minkowski face, and among
/// the others equal separations go to the smallest pair of ids. Relative
/// tolerances scale with the larger bounding radius.
pub(super) fn best_axis(
    pa: &Posed,
    a: &ConvexPolytope,
    pb: &Posed,
    b: &ConvexPolytope,
    margin: f64,
    choice: AxisChoice,
    search: &mut AxisSearch,
) -> Option<(Axis, f64)> {
    let scale = a.bounding_radius().max(b.bounding_radius());
    let mut best = None;
    let mut best_separation = f64::NEG_INFINITY;
    let mut best_face = f64::NEG_INFINITY;
    // Upper bounds first: a face's separation is at most the height of any
    // one vertex of the other polytope, here the one deepest towards the
    // face's polytope, computed as the scan computes it (so the bound
    // holds to the bit). The face of the largest bound, scanned, reaches
    // some separation; faces bounded below that minus the margin can
    // neither win, nor pass the margin, nor reach `axes_near`'s threshold
    // (at most the margin below the best), and are not scanned.
    let towards_b = pb.interior - pa.interior;
    let deepest_b = deepest_vertex(pb, towards_b);
    let deepest_a = deepest_vertex(pa, -towards_b);
    search.face_separations.clear();
    search.face_exact.clear();
    for (own, deepest) in [(pa, deepest_b), (pb, deepest_a)] {
        for plane in &own.planes {
            let h = plane.normal;
            let height = h.x * deepest.x + h.y * deepest.y + h.z * deepest.z;
            search.face_separations.push(height - plane.offset);
            search.face_exact.push(false);
        }
    }
    let faces_a = pa.planes.len();
    let face_posed = |index: usize| {
        if index < faces_a {
            (false, index, &pa.planes[index], pb)
        } else {
            (true, index - faces_a, &pb.planes[index - faces_a], pa)
        }
    };
    let largest_bound = (1..search.face_separations.len()).fold(0, |kept, index| {
        if search.face_separations[index] > search.face_separations[kept] {
            index
        } else {
            kept
        }
    });
    let (_, _, plane, other) = face_posed(largest_bound);
    let reached = face_separation(plane, other);
    if reached > margin {
        return None;
    }
    let floor = reached - margin;
    for index in 0..search.face_separations.len() {
        if search.face_separations[index] < floor {
            continue;
        }
        let (of_b, face, plane, other) = face_posed(index);
        let s = face_separation(plane, other);
        search.face_separations[index] = s;
        search.face_exact[index] = true;
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

    // Gauss-map pruning: each of a's arcs, turned into b's frame, against
    // the cone tree of b's negated arcs; only overlapping pairs get the
    // exact test. The turn is normalised: under a rotation quaternion a
    // little off unit length the posed arcs keep their directions, and so
    // must the turned cones.
    let to_b = DMat3::from_quat((pb.rotation.conjugate() * pa.rotation).normalize());
    let map_b = b.gauss_map();
    search.arcs_a.clear();
    search
        .arcs_a
        .extend(a.edges().iter().map(|e| GaussArc::new(pa, e)));
    search.arcs_b.clear();
    search
        .arcs_b
        .extend(b.edges().iter().map(|e| GaussArc::new(pb, e)));
    let (arcs_a, arcs_b) = (&search.arcs_a, &search.arcs_b);
    search.edge_axes.clear();
    let mut best_edge = best_face + edge_preference(choice, best_face, scale);
    let mut best_pair: Option<(u32, u32)> = None;
    let floor = EdgeFloor::new(pa, pb, best, best_face, margin, scale);
    let cones_a = &a.gauss_map().cones;
    for (edge_a, ((ea, arc_a), cone)) in a.edges().iter().zip(arcs_a).zip(cones_a).enumerate() {
        if floor.rules_out(pa.vertices[ea.vertices[0] as usize], arc_a) {
            continue;
        }
        let flow = map_b.for_each_overlap(cone, to_b * cone.axis, |edge_b| {
            let b_side = (&b.edges()[edge_b as usize], &arcs_b[edge_b as usize]);
            let Some((normal, s)) = edge_axis(pa, (ea, arc_a), pb, b_side) else {
                return ControlFlow::Continue(());
            };
            let pair = (edge_a as u32, edge_b);
            search.edge_axes.push(EdgePairAxis {
                edge_a: pair.0,
                edge_b,
                normal,
                separation: s,
            });
            if s > margin {
                return ControlFlow::Break(());
            }
            // b's edges come in tree order, not id order: a tie goes to
            // the smaller pair, as in an id-ordered loop.
            if s > best_edge || (s == best_edge && best_pair.is_some_and(|p| pair < p)) {
                best_edge = s;
                best_pair = Some(pair);
                best_separation = s;
                best = Some(Axis::Edges {
                    edge_a,
                    edge_b: edge_b as usize,
                    normal,
                });
            }
            ControlFlow::Continue(())
        });
        if flow.is_break() {
            return None;
        }
    }
    best.map(|axis| (axis, best_separation))
}

/// The unit normal (from a to b) and separation of the separating axis of
/// largest separation (`AxisChoice::Largest`: a measurement), or `None`
/// when the separation exceeds `limit`. The
/// posed polytopes and the search record are left in `scratch` for the
/// caller (`axes_near`).
pub(super) fn separating_axis(
    scratch: &mut Scratch,
    a: &ConvexPolytope,
    pose_a: &Pose,
    b: &ConvexPolytope,
    pose_b: &Pose,
    limit: f64,
) -> Option<(DVec3, f64)> {
    scratch.a.load(a, pose_a);
    scratch.b.load(b, pose_b);
    let (axis, separation) = best_axis(
        &scratch.a,
        a,
        &scratch.b,
        b,
        limit,
        AxisChoice::Largest,
        &mut scratch.search,
    )?;
    let normal = match axis {
        Axis::Face { normal, .. } | Axis::Edges { normal, .. } => normal,
    };
    Some((normal, separation))
}

/// An edge's arc on the Gauss map, from `u` (normal of `faces[0]`) to `v`,
/// with `v x u`, the normal of its great circle.
#[derive(Clone, Copy, Debug)]
struct GaussArc {
    u: DVec3,
    v: DVec3,
    v_x_u: DVec3,
}

impl GaussArc {
    fn new(posed: &Posed, edge: &Edge) -> Self {
        let u = posed.planes[edge.faces[0] as usize].normal;
        let v = posed.planes[edge.faces[1] as usize].normal;
        Self {
            u,
            v,
            v_x_u: v.cross(u),
        }
    }
}

/// Whether the Gauss-map arc of an edge of A crosses the negated arc of an
/// edge of B (great-circle arcs between unit normals, each less than a
/// half circle): then the edge pair makes a face of the Minkowski
/// difference (Gregorius 2013). With `c = -u_b` and `d = -v_b` the test
/// is `(c . b x a)(d . b x a) < 0`, `(a . d x c)(b . d x c) < 0` and
/// `(c . b x a)(b . d x c) > 0`; negation is exact in floating point, so
/// it is written with B's arc unnegated (`d x c = v_b x u_b`) and the
/// signs folded in, giving the same answer to the bit.
fn is_minkowski_face(arc_a: &GaussArc, arc_b: &GaussArc) -> bool {
    let (a, b) = (arc_a.u, arc_a.v);
    // Minus `c . b x a` and `d . b x a`: their product has the same sign.
    let cba = arc_b.u.dot(arc_a.v_x_u);
    let dba = arc_b.v.dot(arc_a.v_x_u);
    if cba * dba >= 0.0 {
        return false;
    }
    let adc = a.dot(arc_b.v_x_u);
    let bdc = b.dot(arc_b.v_x_u);
    adc * bdc < 0.0 && cba * bdc < 0.0
}

/// The axis of edge `ea` of a against edge `eb` of b (with their Gauss
/// arcs), unit and pointing out of a, and the separation along it; `None`
/// unless the pair makes a face of the Minkowski difference and the edges
/// are not parallel.
fn edge_axis(
    pa: &Posed,
    (ea, arc_a): (&Edge, &GaussArc),
    pb: &Posed,
    (eb, arc_b): (&Edge, &GaussArc),
) -> Option<(DVec3, f64)> {
    if is_minkowski_face(arc_a, arc_b) {
        edge_pair_axis(pa, ea, pb, eb)
    } else {
        None
    }
}

/// The cross product of edges `ea` of a and `eb` of b, unit and pointing
/// out of a, and the separation along it, for a pair that makes a
/// Minkowski face; `None` when the edges are parallel.
fn edge_pair_axis(pa: &Posed, ea: &Edge, pb: &Posed, eb: &Edge) -> Option<(DVec3, f64)> {
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

/// Fills `scratch.axes` with every candidate axis (unit, from a to b)
/// whose separation is at least `threshold`: the facet normals of the
/// Minkowski difference whose planes pass that close to the origin, faces
/// first (a's, then b's), then edge pairs in id order. Reads what the last
/// `separating_axis` recorded, which must have found an axis; `threshold`
/// must be at least that axis's separation minus the search's limit (the
/// search skips axes below that).
pub(super) fn axes_near(scratch: &mut Scratch, threshold: f64) {
    let Scratch {
        a: pa,
        b: pb,
        search,
        axes: out,
        ..
    } = scratch;
    out.clear();
    let planes = pa
        .planes
        .iter()
        .map(|p| p.normal)
        .chain(pb.planes.iter().map(|p| -p.normal));
    let faces_a = pa.planes.len();
    let faces = search.face_separations.iter().zip(&search.face_exact);
    for (index, (normal, (&bound, &exact))) in planes.zip(faces).enumerate() {
        // A bound under the threshold settles it; one over it needs the
        // separation itself (the search skips only faces far below).
        let s = if exact || bound < threshold {
            bound
        } else if index < faces_a {
            face_separation(&pa.planes[index], pb)
        } else {
            face_separation(&pb.planes[index - faces_a], pa)
        };
        if s >= threshold {
            out.push(normal);
        }
    }
    search.near.clear();
    search.near.extend(
        search
            .edge_axes
            .iter()
            .filter(|e| e.separation >= threshold),
    );
    search.near.sort_unstable_by_key(|e| (e.edge_a, e.edge_b));
    out.extend(search.near.iter().map(|e| e.normal));
}

#[cfg(test)]
mod tests;
