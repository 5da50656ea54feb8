//! Contact geometry for rigid bodies: shapes, and the contact manifolds
//! between pairs of posed shapes, on top of `parry3d-f64`.
//!
//! A [`ContactManifold`] holds the contact normal (a unit vector pointing
//! from the first shape to the second) and every contact point with its
//! signed distance along that normal (negative when the shapes overlap) and
//! the pair of features that produced it. Complementarity solvers need the
//! *complete* set of points of a contact polygon (Drumwright 2016, sec. 4.1.1:
//! constraints at the polygon's vertices hold the whole face), so the
//! generators here never truncate or deduplicate beyond what geometry implies.
//!
//! Shapes are cuboids, spheres, static half-spaces and [`ConvexPolytope`]s
//! (hulls of point clouds, with their faces, edges and adjacency, and their
//! mass properties). A sphere against anything reduces to the closest
//! point to its centre, and touches at one point. [`ManifoldGenerator::separating_plane`] gives the plane
//! separating two touching polytopes and whether the contact fixes it
//! (Drumwright 2016, sec. 3.0.2). Parry (`parry3d-f64`) computes the
//! triangulated convex hulls; the topology, the separating-axis tests, the
//! clipping and the separating plane are ours.
//!
//! [`ManifoldGenerator::proximity`] gives the signed distance, closest
//! points and closest features (in each shape's own numbering) of two
//! posed shapes. The conservative-advancement bounds say how long bodies
//! can move before their contact can change: [`mirtich_bound`] for
//! separated bodies (Drumwright eq. 4), [`touching_bound`] and
//! [`touching_bound_adjacent`] for touching polytopes (eq. 7-8), [`chain_mirtich_bound`] and
//! [`ChainMotion::tilt_rate`] for links of serial chains (eq. 11-15), and
//! [`second_order_bound`], a tighter bound for constant-twist motion.
//! [`SweepAndPrune`] and [`GridBroadPhase`] find the candidate pairs among
//! many bodies from their [`Aabb`]s.
//!
//! ```
//! use contact_geometry::{ContactManifold, ManifoldGenerator, Shape};
//! use contact_math::Pose;
//! use glam::DVec3;
//!
//! let ground = Shape::half_space(DVec3::Z).unwrap();
//! let cube = Shape::cuboid(DVec3::splat(0.5)).unwrap();
//! let resting = Pose::from_translation(DVec3::new(0.0, 0.0, 0.5));
//! let mut generator = ManifoldGenerator::default();
//! let mut manifold = ContactManifold::default();
//! generator
//!     .compute(&ground, &Pose::IDENTITY, &cube, &resting, 1e-3, &mut manifold)
//!     .unwrap();
//! assert_eq!(manifold.points.len(), 4); // the four bottom corners
//!
//! // A hexagonal prism on the ground touches at all six bottom corners.
//! let corners: Vec<DVec3> = (0..12)
//!     .map(|k| {
//!         let angle = f64::from(k % 6) * std::f64::consts::FRAC_PI_3;
//!         DVec3::new(angle.cos(), angle.sin(), if k < 6 { -0.5 } else { 0.5 })
//!     })
//!     .collect();
//! let prism = Shape::polytope(contact_geometry::ConvexPolytope::from_points(&corners).unwrap());
//! generator
//!     .compute(&ground, &Pose::IDENTITY, &prism, &resting, 1e-3, &mut manifold)
//!     .unwrap();
//! assert_eq!(manifold.points.len(), 6);
//!
//! // A ball touches at one point, straight below its centre.
//! let ball = Shape::sphere(0.25).unwrap();
//! let on_ground = Pose::from_translation(DVec3::new(1.0, 2.0, 0.25));
//! generator
//!     .compute(&ground, &Pose::IDENTITY, &ball, &on_ground, 1e-3, &mut manifold)
//!     .unwrap();
//! assert_eq!(manifold.points.len(), 1);
//! assert!((manifold.points[0].point_b - DVec3::new(1.0, 2.0, 0.0)).length() < 1e-15);
//! ```

/// The crate README's example, compiled and run by `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod broad_phase;
mod error;
mod grid_broad_phase;
mod manifold;
mod motion_bound;
mod oriented_box;
mod pairs;
mod polygon;
mod polytope;
mod shape;

pub use broad_phase::{Aabb, SweepAndPrune};
pub use error::GeometryError;
pub use grid_broad_phase::GridBroadPhase;
pub use manifold::{ContactManifold, ContactPoint, Feature};
pub use motion_bound::{
    BodyMotion, ChainJoint, ChainMotion, JointKind, MovingSupport, TouchingPolytope, TwistMotion,
    chain_mirtich_bound, mirtich_bound, second_order_bound, tilt_rate, touching_bound,
    touching_bound_adjacent,
};
pub use pairs::{ContactKind, ManifoldGenerator, Proximity, SeparatingPlane};
pub use polytope::{ConvexPolytope, Edge, FacePlane};
pub use shape::Shape;
