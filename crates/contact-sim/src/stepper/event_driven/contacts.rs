//! Finding contacts for the event-driven stepper: the points of every
//! pair's contact manifold within a margin, each turned into a contact
//! followed by its features (`contact_dynamics::TrackedContact`), and the
//! watch value of each pair, the smallest gap of its points that no resting
//! contact covers (the collision event function).
//!
//! Features from a manifold point: a sphere is its centre with its radius;
//! a half-space or a polytope's face is a face through the point with the
//! contact normal; a polytope's vertex (or an unnamed feature) is the
//! material point. An edge is the edge through the point, found in the
//! shape (a cuboid's two coordinates at their extremes, a polytope's edge
//! containing the point) among those perpendicular to the normal. Two
//! edges make an edge pair (a crossing, or an edge of one face clipped by
//! the side of another in a face contact); a face and a point of the other
//! body make a face pair. A pair of features without a gap formula (two
//! vertices, an edge and a vertex: degenerate touching) is followed as
//! body a's plane through the point with the manifold normal against
//! body b's material point.

use contact_dynamics::{BodyState, ContactConstraint, ContactFeature, RigidBody, TrackedContact};
use contact_geometry::{ContactManifold, Feature, ManifoldGenerator, Shape};
use contact_math::Pose;
use glam::DVec3;

use crate::SimError;

/// Two contacts of a pair closer than this (m) are the same contact (for
/// the event log and the collision watch).
pub(crate) const SAME_CONTACT: f64 = 1e-4;

/// A resting contact's pair and point.
pub(crate) type CoveredPoint = ((usize, usize), DVec3);

/// A point of a pair's manifold at the current state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Touching {
    /// The point as a contact constraint (point, normal, distance, the
    /// pair's friction and restitution).
    pub(crate) constraint: ContactConstraint,
    /// The point followed by its features.
    pub(crate) tracked: TrackedContact,
    /// The gap's rate (m/s): negative when approaching.
    pub(crate) normal_speed: f64,
    /// The slip at the point (m/s).
    pub(crate) slip: DVec3,
}

/// Manifold queries over every pair; owns the generator's scratch.
#[derive(Debug, Default)]
pub(crate) struct ContactFinder {
    generator: ManifoldGenerator,
    manifold: ContactManifold,
    /// The pairs with a dynamic body, `(a, b)`, `a < b`.
    pairs: Vec<(usize, usize)>,
}

impl ContactFinder {
    /// The pairs of the world's bodies that can touch, in index order.
    pub(crate) fn pairs(&mut self, bodies: &[RigidBody]) -> &[(usize, usize)] {
        self.pairs.clear();
        for (a, body_a) in bodies.iter().enumerate() {
            for (b, body_b) in bodies.iter().enumerate().skip(a + 1) {
                if body_a.is_dynamic() || body_b.is_dynamic() {
                    self.pairs.push((a, b));
                }
            }
        }
        &self.pairs
    }

    /// Fills the manifold of pair `(a, b)` at `states` with the points
    /// within `margin`; false when the bounding spheres are farther apart.
    fn manifold(
        &mut self,
        bodies: &[RigidBody],
        states: &[BodyState],
        (a, b): (usize, usize),
        margin: f64,
    ) -> Result<bool, SimError> {
        let (pose_a, pose_b) = (&states[a].pose, &states[b].pose);
        let (shape_a, shape_b) = (&bodies[a].shape, &bodies[b].shape);
        let reach = shape_a.bounding_radius() + shape_b.bounding_radius() + margin;
        if pose_a.translation.distance(pose_b.translation) > reach {
            self.manifold.clear();
            return Ok(false);
        }
        self.generator
            .compute(shape_a, pose_a, shape_b, pose_b, margin, &mut self.manifold)
            .map_err(|source| SimError::Geometry {
                body_a: a,
                body_b: b,
                source,
            })?;
        Ok(!self.manifold.points.is_empty())
    }

    /// Every manifold point within `margin` of every pair, with its features,
    /// speed and slip at `states`.
    pub(crate) fn touching(
        &mut self,
        bodies: &[RigidBody],
        states: &[BodyState],
        margin: f64,
        out: &mut Vec<Touching>,
    ) -> Result<(), SimError> {
        out.clear();
        for k in 0..self.pairs.len() {
            let (a, b) = self.pairs[k];
            if !self.manifold(bodies, states, (a, b), margin)? {
                continue;
            }
            let friction = (bodies[a].friction() * bodies[b].friction()).sqrt();
            let restitution = bodies[a].restitution().max(bodies[b].restitution());
            let normal = self.manifold.normal;
            for point in &self.manifold.points {
                let tracked = track(bodies, states, (a, b), normal, point)
                    .with_material(friction, restitution);
                let kinematics = tracked.kinematics(states);
                out.push(Touching {
                    constraint: ContactConstraint {
                        body_a: a,
                        body_b: b,
                        point: kinematics.point,
                        normal: kinematics.normal,
                        distance: kinematics.distance,
                        friction,
                        restitution,
                        features: [point.feature_a, point.feature_b],
                    },
                    tracked,
                    normal_speed: kinematics.normal_speed,
                    slip: kinematics.slip,
                });
            }
        }
        Ok(())
    }

    /// The collision watch value of every pair (indexed like
    /// [`pairs`](Self::pairs)) at `states`: the smallest gap among its
    /// manifold points within `cap` that no resting contact covers (none
    /// of `covered` lies within [`SAME_CONTACT`] of it), or `cap`.
    pub(crate) fn watch(
        &mut self,
        bodies: &[RigidBody],
        states: &[BodyState],
        cap: f64,
        covered: &[CoveredPoint],
        out: &mut Vec<f64>,
    ) -> Result<(), SimError> {
        out.clear();
        for k in 0..self.pairs.len() {
            let pair = self.pairs[k];
            let mut smallest = cap;
            if self.manifold(bodies, states, pair, cap)? {
                for point in &self.manifold.points {
                    let at = point.midpoint();
                    let is_covered = covered
                        .iter()
                        .any(|&(p, c)| p == pair && c.distance(at) <= SAME_CONTACT);
                    if !is_covered {
                        smallest = smallest.min(point.distance);
                    }
                }
            }
            out.push(smallest);
        }
        Ok(())
    }
}

/// The tracked contact of a manifold point of pair `(a, b)`.
fn track(
    bodies: &[RigidBody],
    states: &[BodyState],
    (a, b): (usize, usize),
    normal: DVec3,
    point: &contact_geometry::ContactPoint,
) -> TrackedContact {
    let side_a = feature(
        &bodies[a].shape,
        &states[a].pose,
        point.point_a,
        normal,
        point.feature_a,
    );
    let side_b = feature(
        &bodies[b].shape,
        &states[b].pose,
        point.point_b,
        -normal,
        point.feature_b,
    );
    let admissible = match (side_a, side_b) {
        (ContactFeature::Point { radius: ra, .. }, ContactFeature::Point { radius: rb, .. }) => {
            ra + rb > 0.0
        }
        (ContactFeature::Edge { .. }, ContactFeature::Point { radius, .. })
        | (ContactFeature::Point { radius, .. }, ContactFeature::Edge { .. }) => radius > 0.0,
        _ => true,
    };
    if admissible && let Ok(tracked) = TrackedContact::new((a, side_a), (b, side_b), normal, states)
    {
        return tracked;
    }
    // Body a's plane through the point against b's material point (or
    // sphere centre).
    let pose_a = &states[a].pose;
    let face = ContactFeature::Face {
        local: pose_a.inverse_transform_point(point.point_a),
        normal: pose_a.inverse_transform_vector(normal).normalize(),
    };
    let side_b = match side_b {
        sphere @ ContactFeature::Point { radius, .. } if radius > 0.0 => sphere,
        _ => ContactFeature::Point {
            local: states[b].pose.inverse_transform_point(point.point_b),
            radius: 0.0,
        },
    };
    TrackedContact::new((a, face), (b, side_b), normal, states)
        .expect("a face against a point is always admissible")
}

/// The feature of `shape` at `pose` touching at `point` (world), whose
/// outward normal there is `outward` (world, towards the other body).
fn feature(
    shape: &Shape,
    pose: &Pose,
    point: DVec3,
    outward: DVec3,
    named: Feature,
) -> ContactFeature {
    let local = pose.inverse_transform_point(point);
    let outward_local = pose.inverse_transform_vector(outward).normalize();
    let face = ContactFeature::Face {
        local,
        normal: outward_local,
    };
    let vertex = ContactFeature::Point { local, radius: 0.0 };
    match (shape, named) {
        (Shape::Sphere { radius }, _) => ContactFeature::Point {
            local: DVec3::ZERO,
            radius: *radius,
        },
        (Shape::HalfSpace { normal }, _) => ContactFeature::Face {
            local,
            normal: *normal,
        },
        (_, Feature::Face(_)) => face,
        (_, Feature::Edge(_)) => match edge_direction(shape, local, outward_local) {
            Some(direction) => ContactFeature::Edge { local, direction },
            None => vertex,
        },
        (_, Feature::Vertex(_) | Feature::Unknown) => vertex,
    }
}

/// The unit direction of the edge of `shape` through `local`, among those
/// perpendicular to `normal` (local frame), if there is one.
fn edge_direction(shape: &Shape, local: DVec3, normal: DVec3) -> Option<DVec3> {
    let tolerance = 1e-7 * shape.bounding_radius();
    let mut best: Option<(f64, DVec3)> = None;
    let mut consider = |direction: DVec3| {
        let skew = direction.dot(normal).abs();
        if skew < 1e-3 && best.is_none_or(|(s, _)| skew < s) {
            best = Some((skew, direction));
        }
    };
    match shape {
        Shape::Cuboid { half_extents } => {
            let at_extreme = |i: usize| (local[i].abs() - half_extents[i]).abs() <= tolerance;
            for axis in 0..3 {
                let (j, k) = ((axis + 1) % 3, (axis + 2) % 3);
                if at_extreme(j) && at_extreme(k) {
                    consider(DVec3::AXES[axis]);
                }
            }
        }
        Shape::Polytope(polytope) => {
            let vertices = polytope.vertices();
            for edge in polytope.edges() {
                let (p, q) = (
                    vertices[edge.vertices[0] as usize],
                    vertices[edge.vertices[1] as usize],
                );
                let along = q - p;
                let t = ((local - p).dot(along) / along.length_squared()).clamp(0.0, 1.0);
                if (p + t * along).distance(local) <= tolerance {
                    consider(along.normalize());
                }
            }
        }
        Shape::HalfSpace { .. } | Shape::Sphere { .. } => {}
    }
    best.map(|(_, direction)| direction)
}
