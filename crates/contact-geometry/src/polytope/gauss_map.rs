//! Bounding cones of a polytope's Gauss-map arcs, for pruning edge pairs in
//! the separating-axis test before any exact test.
//!
//! On the Gauss map (the unit sphere of outward normals) a face is a point
//! and an edge the great arc between its two faces' normals, shorter than a
//! half circle (Gregorius, "The Separating Axis Test between Convex
//! Polyhedra", GDC 2013). An edge of A and an edge of B can only make a face
//! of the Minkowski difference A - B when A's arc crosses the arc of B's
//! edge negated. Every point of the arc from `u` to `v` lies within half
//! their angle of the arc's midpoint `(u + v) / |u + v|`, so each arc has a
//! bounding cone (axis, half-angle), and two arcs can only cross when their
//! cones overlap: the angle between the axes is at most the sum of the
//! half-angles. A tree of bounding cones over the negated arcs (a bounding
//! volume hierarchy on the sphere) finds the overlapping ones without
//! looking at every pair.
//!
//! The cones are built once per polytope, in its local frame, and widened
//! by `SLACK` so that rounding in the exact test (triple products of unit
//! vectors, errors near 1e-15) can never pass a pair that the cones
//! rejected.

use std::ops::ControlFlow;

use glam::DVec3;

use super::{Edge, FacePlane};

/// Widening of every leaf half-angle (rad): far above any rounding of the
/// exact crossing test or of the cones themselves, far below the arcs'
/// size, so it costs next to nothing and keeps the pruning conservative.
const SLACK: f64 = 1e-3;

/// The bounding cone of one Gauss-map arc, or of several.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ArcCone {
    /// Unit axis (local frame).
    pub(crate) axis: DVec3,
    /// Half-angle (rad), at most pi.
    pub(crate) angle: f64,
    /// Its cosine and sine.
    cos: f64,
    sin: f64,
}

impl ArcCone {
    /// The cone about `axis` (unit) of half-angle `angle` (rad, capped at
    /// pi).
    fn new(axis: DVec3, angle: f64) -> Self {
        let angle = angle.min(std::f64::consts::PI);
        Self {
            axis,
            angle,
            cos: angle.cos(),
            sin: angle.sin(),
        }
    }

    /// Whether this cone, turned to `axis` (unit), overlaps `other`, both
    /// in one frame: the axes' angle is at most the sum of the
    /// half-angles, `cos(angle_1 + angle_2) <= axis . other.axis`.
    pub(crate) fn overlaps(&self, axis: DVec3, other: &ArcCone) -> bool {
        self.angle + other.angle >= std::f64::consts::PI
            || axis.dot(other.axis) >= self.cos * other.cos - self.sin * other.sin
    }
}

/// A node of the cone tree: a cone bounding the negated arcs below it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ConeNode {
    cone: ArcCone,
    /// The next node when this one's subtree is skipped (depth-first
    /// order puts the first child right after its parent).
    skip: u32,
    /// The edge of a leaf; `u32::MAX` for an inner node.
    edge: u32,
}

/// The arc cones of every edge, and a bounding-cone tree over the negated
/// arcs (as the second polytope's arcs enter the test).
#[derive(Clone, Default, PartialEq)]
pub(crate) struct GaussMap {
    /// The cone of each edge's arc, indexed by edge id.
    pub(crate) cones: Vec<ArcCone>,
    /// The tree of the negated arcs' cones, depth first, one edge a leaf.
    tree: Vec<ConeNode>,
}

impl GaussMap {
    /// The cones of the arcs of `edges` between the normals of `planes`.
    pub(crate) fn new(planes: &[FacePlane], edges: &[Edge]) -> Self {
        let cones: Vec<ArcCone> = edges
            .iter()
            .map(|e| {
                let (u, v) = (
                    planes[e.faces[0] as usize].normal,
                    planes[e.faces[1] as usize].normal,
                );
                // The two faces of an edge are never opposite (the solid
                // would be flat), so u + v is not zero.
                let axis = (u + v).normalize_or(u);
                ArcCone::new(axis, 0.5 * u.angle_between(v) + SLACK)
            })
            .collect();
        let mut leaves: Vec<(u32, ArcCone)> = cones
            .iter()
            .enumerate()
            .map(|(edge, cone)| {
                let negated = ArcCone {
                    axis: -cone.axis,
                    ..*cone
                };
                (edge as u32, negated)
            })
            .collect();
        let mut tree = Vec::with_capacity(2 * leaves.len());
        if !leaves.is_empty() {
            build(&mut leaves, &mut tree);
        }
        Self { cones, tree }
    }

    /// Calls `visit` with every edge whose negated arc's cone overlaps
    /// `cone` turned to `axis` (unit, this polytope's frame), a superset
    /// of the edges whose negated arcs cross the arc inside `cone`, until
    /// `visit` breaks.
    pub(crate) fn for_each_overlap(
        &self,
        cone: &ArcCone,
        axis: DVec3,
        mut visit: impl FnMut(u32) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut i = 0;
        while let Some(node) = self.tree.get(i) {
            if cone.overlaps(axis, &node.cone) {
                if node.edge != u32::MAX {
                    visit(node.edge)?;
                }
                i += 1;
            } else {
                i = node.skip as usize;
            }
        }
        ControlFlow::Continue(())
    }
}

/// Sizes only: the cones are derived data, and a polytope's debug output
/// should show its geometry, not hundreds of cones.
impl std::fmt::Debug for GaussMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GaussMap")
            .field("arcs", &self.cones.len())
            .field("tree_nodes", &self.tree.len())
            .finish()
    }
}

/// Appends the subtree over `leaves` (not empty) to `tree` in depth-first
/// order: halves split at the median of the axes' coordinate of largest
/// spread, each inner node's cone the smallest about its leaves' mean axis
/// that holds their cones.
fn build(leaves: &mut [(u32, ArcCone)], tree: &mut Vec<ConeNode>) {
    let here = tree.len();
    if let [(edge, cone)] = leaves {
        tree.push(ConeNode {
            cone: *cone,
            skip: here as u32 + 1,
            edge: *edge,
        });
        return;
    }
    let sum = leaves.iter().map(|(_, c)| c.axis).sum::<DVec3>();
    let cone = match sum.try_normalize() {
        // angle_between is off by up to about 1e-8 near zero, far inside
        // the leaves' slack.
        Some(axis) => ArcCone::new(
            axis,
            leaves
                .iter()
                .map(|(_, c)| axis.angle_between(c.axis) + c.angle)
                .fold(0.0, f64::max),
        ),
        None => ArcCone::new(DVec3::Z, std::f64::consts::PI),
    };
    tree.push(ConeNode {
        cone,
        skip: 0,
        edge: u32::MAX,
    });
    let (low, high) = leaves.iter().fold(
        (DVec3::INFINITY, DVec3::NEG_INFINITY),
        |(low, high), (_, c)| (low.min(c.axis), high.max(c.axis)),
    );
    let split = (high - low).max_position();
    let middle = leaves.len() / 2;
    leaves.select_nth_unstable_by(middle, |x, y| x.1.axis[split].total_cmp(&y.1.axis[split]));
    let (first, second) = leaves.split_at_mut(middle);
    build(first, tree);
    build(second, tree);
    tree[here].skip = tree.len() as u32;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points along the arc from `u` to `v` (unit, not opposite).
    fn arc_points(u: DVec3, v: DVec3, n: usize) -> impl Iterator<Item = DVec3> {
        (0..=n).map(move |k| u.slerp(v, k as f64 / n as f64))
    }

    #[test]
    fn every_cone_holds_its_arcs_and_the_tree_finds_every_crossing() {
        // A cuboctahedron-like set of arcs of several lengths, including
        // one over the pole: sampled points of each arc must lie in its
        // cone, and every leaf cone within the inner cones above it, so a
        // query cone about any arc point finds the arc.
        let normals = [
            DVec3::X,
            DVec3::Y,
            DVec3::new(1.0, 0.0, 1.0).normalize(),
            DVec3::new(-1.0, 0.0, 1.0).normalize(),
            DVec3::new(0.3, 0.2, -0.9).normalize(),
            DVec3::new(-0.1, 0.4, -0.9).normalize(),
            DVec3::new(0.0, 1.0, 0.01).normalize(),
            DVec3::new(0.0, -1.0, 0.3).normalize(),
        ];
        let planes: Vec<FacePlane> = normals
            .iter()
            .map(|&normal| FacePlane {
                normal,
                offset: 1.0,
            })
            .collect();
        let edges: Vec<Edge> = (0..4u32)
            .map(|k| Edge {
                vertices: [2 * k, 2 * k + 1],
                faces: [2 * k, 2 * k + 1],
            })
            .collect();
        let map = GaussMap::new(&planes, &edges);
        let probe = ArcCone::new(DVec3::Z, 0.0);
        for (k, edge) in edges.iter().enumerate() {
            let (u, v) = (
                normals[edge.faces[0] as usize],
                normals[edge.faces[1] as usize],
            );
            let cone = map.cones[k];
            for p in arc_points(u, v, 64) {
                assert!(p.angle_between(cone.axis) <= cone.angle - 0.5 * SLACK);
                // A zero-width probe at the negated point meets the arc.
                let mut found = Vec::new();
                let _ = map.for_each_overlap(&probe, -p, |e| {
                    found.push(e);
                    ControlFlow::Continue(())
                });
                assert!(found.contains(&(k as u32)), "arc {k} lost at {p}");
            }
        }
        // A probe far from every arc finds nothing.
        let mut found = Vec::new();
        let far = ArcCone::new(DVec3::Z, 0.01);
        let _ = map.for_each_overlap(&far, DVec3::new(0.7, -0.7, 0.1).normalize(), |e| {
            found.push(e);
            ControlFlow::Continue(())
        });
        assert!(found.is_empty(), "{found:?}");
    }
}
