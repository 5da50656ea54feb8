//! Signed distance, closest points and closest features of two posed
//! shapes.
//!
//! Separated bodies: the closest points come from parry's GJK
//! (`closest_points_support_map_support_map`, run on the world-frame vertex
//! sets, so no parry shape is built); the unit direction `n` joins them,
//! from the first shape to the second. Overlapping bodies: our
//! separating-axis test (`polytope_sat`) gives the axis of least
//! penetration, and the distance is minus that depth (exact for
//! polytopes: every facet normal of the Minkowski difference is a
//! candidate axis). A half-space against a solid is exact and closed form;
//! so is anything against a sphere (`sphere`: the closest point to its
//! centre).
//!
//! The closest feature of each side is its *support feature* along `n`
//! (along `-n` for the second shape): the vertices within `tolerance` of
//! the extreme projection are one vertex, two (an edge) or more (a face).
//! For separated convex bodies the closest points lie on these features,
//! and the classification is the same as the separating plane's
//! (Drumwright 2016, sec. 3.0.2: vertex, edge or face against the plane).
//! Ids are each shape's own: a cuboid's follow `oriented_box` (parry's
//! vertex numbering), a polytope's its vertex, edge and face indices, a
//! half-space and a sphere have the single face 0.

use contact_math::Pose;
use glam::DVec3;
use parry3d_f64::math::Pose as ParryPose;
use parry3d_f64::query::ClosestPoints;
use parry3d_f64::query::closest_points::closest_points_support_map_support_map;
use parry3d_f64::shape::SupportMap;

use std::collections::HashMap;
use std::sync::Arc;

use super::polytope_sat::{Axis, Posed, best_axis};
use super::{AxisChoice, ManifoldGenerator, box_polytope};
use crate::oriented_box::{OrientedBox, edge_id, face_id};
use crate::{ConvexPolytope, Feature, GeometryError, Shape};

/// How two posed shapes are placed relative to each other: signed
/// distance, closest points and closest features (world frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Proximity {
    /// Signed distance (m): the Euclidean distance when separated, minus
    /// the penetration depth (along `normal`) when overlapping. Pairs that
    /// parry's GJK reports as intersecting while a hair apart get the
    /// separating-axis answer, a non-negative lower bound of the distance.
    pub distance: f64,
    /// Unit direction from the first shape to the second: from `point_a`
    /// to `point_b` when separated, the axis of least penetration when
    /// overlapping.
    pub normal: DVec3,
    /// Closest point of the first shape (when overlapping: `point_b`
    /// moved back by the depth along `normal`).
    pub point_a: DVec3,
    /// Closest point of the second shape (when overlapping: a deepest
    /// vertex of the second shape along `normal`).
    pub point_b: DVec3,
    /// Support feature of the first shape along `normal`.
    pub feature_a: Feature,
    /// Support feature of the second shape along `-normal`.
    pub feature_b: Feature,
}

impl Proximity {
    /// The same placement with the roles of the shapes swapped.
    #[must_use]
    pub fn flipped(self) -> Self {
        Self {
            distance: self.distance,
            normal: -self.normal,
            point_a: self.point_b,
            point_b: self.point_a,
            feature_a: self.feature_b,
            feature_b: self.feature_a,
        }
    }
}

/// A world-frame vertex set as a parry support map.
struct Hull<'a>(&'a [DVec3]);

impl SupportMap for Hull<'_> {
    fn local_support_point(&self, dir: DVec3) -> DVec3 {
        let mut best = self.0[0];
        let mut level = dir.dot(best);
        for &v in &self.0[1..] {
            let l = dir.dot(v);
            if l > level {
                level = l;
                best = v;
            }
        }
        best
    }
}

impl ManifoldGenerator {
    /// Signed distance, closest points and closest features of `a` at
    /// `pose_a` and `b` at `pose_b` (see [`Proximity`]). Vertices within
    /// `tolerance` (m) of a shape's extreme projection along the normal
    /// belong to its closest feature: 1e-9 of the shapes' size is enough
    /// for exact placements (measured: GJK's direction is then exact
    /// enough for face-face boxes under random rotations); larger values
    /// report nearly parallel features as edges or faces.
    ///
    /// # Errors
    /// [`GeometryError::NonFinitePose`]; [`GeometryError::InvalidMargin`]
    /// when `tolerance` is negative or not finite;
    /// [`GeometryError::UnsupportedPair`] for two half-spaces.
    pub fn proximity(
        &mut self,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        tolerance: f64,
    ) -> Result<Proximity, GeometryError> {
        super::check_query(pose_a, pose_b, tolerance)?;
        match (a, b) {
            (Shape::HalfSpace { .. }, Shape::HalfSpace { .. }) => {
                Err(GeometryError::UnsupportedPair {
                    first: a.kind(),
                    second: b.kind(),
                })
            }
            (_, Shape::Sphere { radius }) => {
                self.sphere(a, pose_a, pose_b.translation, *radius, tolerance)
            }
            (Shape::Sphere { radius }, _) => Ok(self
                .sphere(b, pose_b, pose_a.translation, *radius, tolerance)?
                .flipped()),
            (Shape::HalfSpace { normal }, _) => {
                self.half_space(*normal, pose_a, b, pose_b, tolerance)
            }
            (_, Shape::HalfSpace { normal }) => Ok(self
                .half_space(*normal, pose_b, a, pose_a, tolerance)?
                .flipped()),
            _ => self.solids(a, pose_a, b, pose_b, tolerance),
        }
    }

    /// A half-space (first) against a bounded shape (second).
    fn half_space(
        &mut self,
        normal: DVec3,
        pose_h: &Pose,
        b: &Shape,
        pose_b: &Pose,
        tolerance: f64,
    ) -> Result<Proximity, GeometryError> {
        let n = pose_h.transform_vector(normal);
        let level = n.dot(pose_h.translation);
        let pb = polytope_of(&mut self.boxes, b)?;
        self.scratch.b.load(&pb, pose_b);
        let posed = &self.scratch.b;
        let (deepest, depth) = lowest(&posed.vertices, n);
        let distance = depth - level;
        Ok(Proximity {
            distance,
            normal: n,
            point_a: deepest - distance * n,
            point_b: deepest,
            feature_a: Feature::Face(0),
            feature_b: support_feature(b, pose_b, &pb, posed, -n, tolerance),
        })
    }

    /// Two bounded shapes.
    fn solids(
        &mut self,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        tolerance: f64,
    ) -> Result<Proximity, GeometryError> {
        let pa = polytope_of(&mut self.boxes, a)?;
        let pb = polytope_of(&mut self.boxes, b)?;
        self.scratch.a.load(&pa, pose_a);
        self.scratch.b.load(&pb, pose_b);
        let (sa, sb, search) = (&self.scratch.a, &self.scratch.b, &mut self.scratch.search);
        let gjk = closest_points_support_map_support_map(
            &ParryPose::IDENTITY,
            &Hull(&sa.vertices),
            &Hull(&sb.vertices),
            f64::MAX,
        );
        let (distance, normal, point_a, point_b) = match gjk {
            ClosestPoints::WithinMargin(p, q) if (q - p).length() > 0.0 => {
                let d = (q - p).length();
                (d, (q - p) / d, p, q)
            }
            _ => {
                let (axis, separation) =
                    match best_axis(sa, &pa, sb, &pb, f64::INFINITY, AxisChoice::Largest, search) {
                        Some((Axis::Face { normal, .. } | Axis::Edges { normal, .. }, s)) => {
                            (normal, s)
                        }
                        // Valid polytopes have faces, so some axis exists.
                        None => unreachable!("a polytope without faces"),
                    };
                let (deepest, _) = lowest(&sb.vertices, axis);
                (separation, axis, deepest - separation * axis, deepest)
            }
        };
        Ok(Proximity {
            distance,
            normal,
            point_a,
            point_b,
            feature_a: support_feature(a, pose_a, &pa, sa, normal, tolerance),
            feature_b: support_feature(b, pose_b, &pb, sb, -normal, tolerance),
        })
    }
}

/// The vertex of smallest projection on `direction`, and that projection.
fn lowest(vertices: &[DVec3], direction: DVec3) -> (DVec3, f64) {
    vertices
        .iter()
        .map(|&v| (v, direction.dot(v)))
        .fold((DVec3::ZERO, f64::INFINITY), |best, x| {
            if x.1 < best.1 { x } else { best }
        })
}

/// The polytope form of a cuboid or polytope.
pub(super) fn polytope_of(
    cache: &mut HashMap<[u64; 3], Arc<ConvexPolytope>>,
    shape: &Shape,
) -> Result<Arc<ConvexPolytope>, GeometryError> {
    match shape {
        Shape::Cuboid { half_extents } => box_polytope(cache, *half_extents),
        Shape::Polytope(p) => Ok(Arc::clone(p)),
        Shape::HalfSpace { .. } | Shape::Sphere { .. } => Err(GeometryError::UnsupportedPair {
            first: shape.kind(),
            second: "polytope query",
        }),
    }
}

/// The support feature of a bounded shape along the unit `direction`:
/// the vertices within `tolerance` of its largest projection, named in
/// the shape's own numbering (`posed` holds its world vertices and planes).
pub(super) fn support_feature(
    shape: &Shape,
    pose: &Pose,
    polytope: &ConvexPolytope,
    posed: &Posed,
    direction: DVec3,
    tolerance: f64,
) -> Feature {
    let Shape::Cuboid { half_extents } = shape else {
        return polytope_feature(polytope, posed, direction, tolerance);
    };
    // Moving a box vertex across axis i changes its projection by
    // 2 h_i |a_i . direction|: axes where that is within the tolerance are
    // free (the feature extends along them).
    let b = OrientedBox::new(*half_extents, pose);
    let mut free = [false; 3];
    for (i, f) in free.iter_mut().enumerate() {
        *f = 2.0 * b.half[i] * b.axes[i].dot(direction).abs() <= tolerance;
    }
    let bits = b.support_bits(direction);
    match free.iter().filter(|&&f| f).count() {
        0 => Feature::Vertex(bits),
        1 => {
            let axis = free.iter().position(|&f| f).unwrap_or(0);
            // The edge's id reads only the bits of the other two axes.
            Feature::Edge(edge_id(axis, bits))
        }
        _ => {
            let axis = (0..3)
                .max_by(|&i, &j| {
                    b.axes[i]
                        .dot(direction)
                        .abs()
                        .total_cmp(&b.axes[j].dot(direction).abs())
                })
                .unwrap_or(0);
            Feature::Face(face_id(axis, b.axes[axis].dot(direction) < 0.0))
        }
    }
}

/// The support feature of a polytope: one vertex, the edge joining two,
/// or the face (at the first support vertex) whose normal is nearest
/// `direction`.
fn polytope_feature(
    p: &ConvexPolytope,
    posed: &Posed,
    direction: DVec3,
    tolerance: f64,
) -> Feature {
    let vertices = &posed.vertices;
    let top = vertices
        .iter()
        .map(|&v| direction.dot(v))
        .fold(f64::NEG_INFINITY, f64::max);
    let mut support =
        (0..vertices.len()).filter(|&i| direction.dot(vertices[i]) >= top - tolerance);
    let Some(first) = support.next() else {
        return Feature::Unknown;
    };
    let best_face = || {
        p.vertex_faces(first)
            .iter()
            .copied()
            .max_by(|&f, &g| {
                let (nf, ng) = (
                    posed.planes[f as usize].normal,
                    posed.planes[g as usize].normal,
                );
                nf.dot(direction).total_cmp(&ng.dot(direction))
            })
            .map_or(Feature::Unknown, Feature::Face)
    };
    match (support.next(), support.next()) {
        (None, _) => Feature::Vertex(first as u32),
        (Some(second), None) => p
            .vertex_edges(first)
            .iter()
            .copied()
            .find(|&e| p.edges()[e as usize].vertices.contains(&(second as u32)))
            .map_or_else(best_face, Feature::Edge),
        _ => best_face(),
    }
}
