//! Contact manifold generators, one module per pair of shape kinds, and the
//! dispatcher that picks one.

mod cuboid_cuboid;
mod half_space;
mod polytope_polytope;
mod polytope_sat;
mod proximity;
mod separating_plane;
mod sphere;

pub use proximity::Proximity;
use proximity::polytope_of;
pub use separating_plane::{ContactKind, SeparatingPlane};

use std::collections::HashMap;
use std::sync::Arc;

use contact_math::Pose;
use glam::DVec3;

use crate::{ContactManifold, ConvexPolytope, GeometryError, Shape};

/// Computes contact manifolds between pairs of posed shapes.
///
/// Holds no state between calls that could change a result: the same
/// inputs always give the same manifold. It owns the scratch memory of the
/// polytope queries (world-frame vertices and planes, clipping buffers) and
/// the polytope form of each cuboid size met against a polytope, so once
/// these have grown nothing is allocated beyond the growth of the caller's
/// `out` buffer.
#[derive(Debug, Default)]
pub struct ManifoldGenerator {
    scratch: polytope_polytope::Scratch,
    /// Polytope forms of cuboids, keyed by the bits of their half extents.
    boxes: HashMap<[u64; 3], Arc<ConvexPolytope>>,
}

impl ManifoldGenerator {
    /// Fills `out` with the contact manifold of `a` at `pose_a` and `b` at
    /// `pose_b`: every contact point whose signed distance is at most
    /// `margin` (m). The normal points from `a` to `b`. `out` is left empty
    /// when the shapes are farther apart than the margin.
    ///
    /// A sphere gives one point (the closest points of the pair), with
    /// the normal along the line from the other shape's closest point to
    /// the sphere's centre.
    ///
    /// # Errors
    /// [`GeometryError::NonFinitePose`], [`GeometryError::InvalidMargin`],
    /// or [`GeometryError::UnsupportedPair`] for two half-spaces.
    pub fn compute(
        &mut self,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        margin: f64,
        out: &mut ContactManifold,
    ) -> Result<(), GeometryError> {
        out.clear();
        check_query(pose_a, pose_b, margin)?;
        match (a, b) {
            (_, Shape::Sphere { radius }) => {
                let tolerance = feature_tolerance(a, *radius);
                let p = self.sphere(a, pose_a, pose_b.translation, *radius, tolerance)?;
                sphere::manifold(&p, margin, out);
            }
            (Shape::Sphere { radius }, _) => {
                let tolerance = feature_tolerance(b, *radius);
                let p = self.sphere(b, pose_b, pose_a.translation, *radius, tolerance)?;
                sphere::manifold(&p.flipped(), margin, out);
            }
            (Shape::Cuboid { half_extents: ha }, Shape::Cuboid { half_extents: hb }) => {
                cuboid_cuboid::manifold(*ha, pose_a, *hb, pose_b, margin, out);
            }
            (Shape::HalfSpace { normal }, Shape::Cuboid { half_extents }) => {
                half_space::cuboid(*normal, pose_a, *half_extents, pose_b, margin, out);
            }
            (Shape::Cuboid { half_extents }, Shape::HalfSpace { normal }) => {
                half_space::cuboid(*normal, pose_b, *half_extents, pose_a, margin, out);
                flip(out);
            }
            (Shape::HalfSpace { normal }, Shape::Polytope(p)) => {
                half_space::polytope(*normal, pose_a, p, pose_b, margin, out);
            }
            (Shape::Polytope(p), Shape::HalfSpace { normal }) => {
                half_space::polytope(*normal, pose_b, p, pose_a, margin, out);
                flip(out);
            }
            (Shape::Polytope(pa), Shape::Polytope(pb)) => {
                polytope_polytope::manifold(&mut self.scratch, pa, pose_a, pb, pose_b, margin, out);
            }
            (Shape::Cuboid { half_extents }, Shape::Polytope(pb)) => {
                let pa = box_polytope(&mut self.boxes, *half_extents)?;
                polytope_polytope::manifold(
                    &mut self.scratch,
                    &pa,
                    pose_a,
                    pb,
                    pose_b,
                    margin,
                    out,
                );
            }
            (Shape::Polytope(pa), Shape::Cuboid { half_extents }) => {
                let pb = box_polytope(&mut self.boxes, *half_extents)?;
                polytope_polytope::manifold(
                    &mut self.scratch,
                    pa,
                    pose_a,
                    &pb,
                    pose_b,
                    margin,
                    out,
                );
            }
            (Shape::HalfSpace { .. }, Shape::HalfSpace { .. }) => {
                return Err(GeometryError::UnsupportedPair {
                    first: a.kind(),
                    second: b.kind(),
                });
            }
        }
        Ok(())
    }
}

impl ManifoldGenerator {
    /// The separating plane of two touching or nearly touching convex
    /// shapes at their poses: every point of `a` is on its negative side
    /// and every point of `b` on its positive side,
    /// within `tolerance` (m), and the contact kind says whether the plane
    /// is unique (Drumwright 2016, sec. 3.0.1-3.0.2). `None` when the
    /// shapes are farther apart, or overlap deeper, than `tolerance`.
    ///
    /// When either shape is a sphere (against anything, a half-space
    /// included) the plane is the sphere's tangent plane at the contact
    /// point, through the midpoint of the two closest points, and its
    /// kind is [`ContactKind::SphereTangent`]: a plane separating a ball
    /// from a shape it touches must be tangent to the ball there, so it is
    /// unique whatever feature of the other shape touches. A half-space
    /// against a cuboid or polytope gives its boundary plane, the kind
    /// read from the other shape's vertices on it (a vertex, an edge or a
    /// face against the boundary face).
    ///
    /// # Errors
    /// [`GeometryError::NonFinitePose`]; [`GeometryError::InvalidMargin`]
    /// when `tolerance` is negative or not finite;
    /// [`GeometryError::UnsupportedPair`] for two half-spaces.
    pub fn separating_plane(
        &mut self,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        tolerance: f64,
    ) -> Result<Option<SeparatingPlane>, GeometryError> {
        check_query(pose_a, pose_b, tolerance)?;
        match (a, b) {
            (Shape::Sphere { .. }, _) | (_, Shape::Sphere { .. }) => {
                let p = self.proximity(a, pose_a, b, pose_b, tolerance)?;
                Ok(separating_plane::tangent_plane(&p, tolerance))
            }
            (Shape::HalfSpace { .. }, Shape::HalfSpace { .. }) => {
                Err(GeometryError::UnsupportedPair {
                    first: a.kind(),
                    second: b.kind(),
                })
            }
            (Shape::HalfSpace { normal }, _) => {
                let pb = polytope_of(&mut self.boxes, b)?;
                Ok(separating_plane::boundary_plane(
                    &mut self.scratch,
                    *normal,
                    pose_a,
                    &pb,
                    pose_b,
                    tolerance,
                ))
            }
            (_, Shape::HalfSpace { normal }) => {
                let pa = polytope_of(&mut self.boxes, a)?;
                Ok(separating_plane::boundary_plane(
                    &mut self.scratch,
                    *normal,
                    pose_b,
                    &pa,
                    pose_a,
                    tolerance,
                )
                .map(SeparatingPlane::flipped))
            }
            _ => {
                let pa = polytope_of(&mut self.boxes, a)?;
                let pb = polytope_of(&mut self.boxes, b)?;
                Ok(separating_plane::separating_plane(
                    &mut self.scratch,
                    &pa,
                    pose_a,
                    &pb,
                    pose_b,
                    tolerance,
                ))
            }
        }
    }
}

/// The tolerance deciding the closest feature of `other` against a
/// sphere of `radius`: 1e-9 of the pair's size (see
/// [`ManifoldGenerator::proximity`]).
fn feature_tolerance(other: &Shape, radius: f64) -> f64 {
    let size = other.bounding_radius();
    1e-9 * if size.is_finite() {
        size.max(radius)
    } else {
        radius
    }
}

/// The polytope form of a cuboid, built once per size.
fn box_polytope(
    cache: &mut HashMap<[u64; 3], Arc<ConvexPolytope>>,
    half_extents: DVec3,
) -> Result<Arc<ConvexPolytope>, GeometryError> {
    let key = half_extents.to_array().map(f64::to_bits);
    if let Some(p) = cache.get(&key) {
        return Ok(Arc::clone(p));
    }
    let p = Arc::new(ConvexPolytope::from_box(half_extents)?);
    cache.insert(key, Arc::clone(&p));
    Ok(p)
}

/// The input checks every pair query shares: a finite, non-negative
/// margin or tolerance and two finite poses.
pub(crate) fn check_query(pose_a: &Pose, pose_b: &Pose, margin: f64) -> Result<(), GeometryError> {
    if !(margin.is_finite() && margin >= 0.0) {
        return Err(GeometryError::InvalidMargin { margin });
    }
    if !pose_a.is_finite() {
        return Err(GeometryError::NonFinitePose { which: 0 });
    }
    if !pose_b.is_finite() {
        return Err(GeometryError::NonFinitePose { which: 1 });
    }
    Ok(())
}

/// Swaps the roles of the two shapes in a manifold.
fn flip(manifold: &mut ContactManifold) {
    manifold.normal = -manifold.normal;
    for point in &mut manifold.points {
        std::mem::swap(&mut point.point_a, &mut point.point_b);
        std::mem::swap(&mut point.feature_a, &mut point.feature_b);
    }
}

/// How much an edge axis must out-separate the best face axis before the
/// separating-axis tests choose it (m), for shapes of size `scale` whose
/// best face axis separates by `best_face`. Near contact (the face axis
/// within 1e-2 of the size of touching) it is 1e-3 of the size: two boxes
/// resting face on face with a slight tilt otherwise pick the axis of two
/// nearly parallel edges and report one point, and the upper box rocks on
/// it, sinking at its free corners (seen in a dropped heap). Deeper, it is
/// 1e-9 of the size, so a deep penetration reports its exact
/// least-penetration axis (checked against parry's EPA in the tests).
pub(crate) fn edge_preference(best_face: f64, scale: f64) -> f64 {
    if best_face > -1e-2 * scale {
        1e-3 * scale
    } else {
        1e-9 * scale
    }
}
