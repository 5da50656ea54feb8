//! Finding contacts for the event-driven stepper: the points of every
//! pair's contact manifold within a margin, each turned into a contact
//! followed by its features (`contact_dynamics::TrackedContact`), and the
//! watch value of each pair, the smallest gap of its points that no resting
//! contact covers (the collision event function).
//!
//! A pair has points within a margin only if its bounding spheres are
//! within it, so only the pairs the broad phase (`SpherePairs`, each
//! sphere grown by half the margin) returns are queried, in the order the
//! all-pairs loop took them: the same points in the same order. A pair
//! left out has no points: its watch value is the cap, so only the pairs
//! below it are listed (see [`least_watch`]).
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
use crate::stepper::sphere_pairs::SpherePairs;

/// Two contacts of a pair closer than this (m) are the same contact (for
/// the event log and the collision watch).
pub(crate) const SAME_CONTACT: f64 = 1e-4;

/// A resting contact's pair and point.
pub(crate) type CoveredPoint = ((usize, usize), DVec3);

/// A pair and its watch value, listed when below the cap.
pub(crate) type WatchValue = ((usize, usize), f64);

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

/// Manifold queries over the pairs the broad phase finds; owns the
/// generator's and the broad phase's scratch.
#[derive(Debug, Default)]
pub(crate) struct ContactFinder {
    narrow: NarrowPhase,
    broad: SpherePairs,
}

/// The manifold generator and its output.
#[derive(Debug, Default)]
struct NarrowPhase {
    generator: ManifoldGenerator,
    manifold: ContactManifold,
}

impl NarrowPhase {
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
}

impl ContactFinder {
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
        let Self { narrow, broad } = self;
        let pairs = broad.find(bodies, states.iter().map(|s| s.pose.translation), |_| {
            0.5 * margin
        });
        for &(a, b) in pairs {
            if !narrow.manifold(bodies, states, (a, b), margin)? {
                continue;
            }
            let friction = (bodies[a].friction() * bodies[b].friction()).sqrt();
            let restitution = bodies[a].restitution().max(bodies[b].restitution());
            let normal = narrow.manifold.normal;
            for point in &narrow.manifold.points {
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

    /// The collision watch value of every pair at `states`: the smallest
    /// gap among its manifold points within `cap` that no resting contact
    /// covers (none of `covered` lies within [`SAME_CONTACT`] of it), or
    /// `cap`. Only the pairs below `cap` are listed, in pair order.
    pub(crate) fn watch(
        &mut self,
        bodies: &[RigidBody],
        states: &[BodyState],
        cap: f64,
        covered: &[CoveredPoint],
        out: &mut Vec<WatchValue>,
    ) -> Result<(), SimError> {
        out.clear();
        let Self { narrow, broad } = self;
        let pairs = broad.find(bodies, states.iter().map(|s| s.pose.translation), |_| {
            0.5 * cap
        });
        for &pair in pairs {
            let mut smallest = cap;
            if narrow.manifold(bodies, states, pair, cap)? {
                for point in &narrow.manifold.points {
                    let at = point.midpoint();
                    let is_covered = covered
                        .iter()
                        .any(|&(p, c)| p == pair && c.distance(at) <= SAME_CONTACT);
                    if !is_covered {
                        smallest = smallest.min(point.distance);
                    }
                }
            }
            if smallest < cap {
                out.push((pair, smallest));
            }
        }
        Ok(())
    }
}

/// The least over every pair with a dynamic body of
/// `(now - min(start, 0)) / tolerance`, its watch values now and at the
/// step's start (`now` and `start` list those below `cap`, in pair order;
/// any other is `cap`), `+inf` without pairs: the pairs' part of the event
/// function (`integrate.rs`). The pairs listed in neither give the same
/// value, counted once.
pub(crate) fn least_watch(
    bodies: &[RigidBody],
    start: &[WatchValue],
    now: &[WatchValue],
    cap: f64,
    tolerance: f64,
) -> f64 {
    let term = |now: f64, start: f64| (now - start.min(0.0)) / tolerance;
    let (mut i, mut j) = (0, 0);
    let (mut least, mut listed) = (f64::INFINITY, 0);
    while i < start.len() || j < now.len() {
        let (s, n) = (start.get(i), now.get(j));
        let value = match (s, n) {
            (Some(&(ps, vs)), Some(&(pn, vn))) if ps == pn => {
                i += 1;
                j += 1;
                term(vn, vs)
            }
            (Some(&(ps, vs)), Some(&(pn, _))) if ps < pn => {
                i += 1;
                term(cap, vs)
            }
            (Some(&(_, vs)), None) => {
                i += 1;
                term(cap, vs)
            }
            (_, Some(&(_, vn))) => {
                j += 1;
                term(vn, cap)
            }
            (None, None) => break,
        };
        least = least.min(value);
        listed += 1;
    }
    if listed < dynamic_pairs(bodies) {
        least = least.min(term(cap, cap));
    }
    least
}

/// How many pairs of `bodies` have a dynamic body.
fn dynamic_pairs(bodies: &[RigidBody]) -> usize {
    let pairs = |n: usize| n * n.saturating_sub(1) / 2;
    let fixed = bodies.iter().filter(|b| !b.is_dynamic()).count();
    pairs(bodies.len()) - pairs(fixed)
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

#[cfg(test)]
mod tests {
    use contact_math::{MassProperties, Twist};
    use glam::DQuat;

    use super::*;
    use crate::stepper::event_driven::{EventDrivenParams, EventDrivenStepper};
    use crate::{Pose, World};

    fn ball(at: DVec3, speed: DVec3) -> RigidBody {
        let mut body = RigidBody::dynamic(
            Shape::sphere(0.1).unwrap(),
            MassProperties::solid_sphere(1.0, 0.1).unwrap(),
            Pose::from_translation(at),
        )
        .and_then(|b| b.with_restitution(0.5))
        .unwrap();
        body.twist = Twist::new(speed, DVec3::ZERO);
        body
    }

    fn cube(at: DVec3, turn: f64) -> RigidBody {
        let half = DVec3::splat(0.1);
        RigidBody::dynamic(
            Shape::cuboid(half).unwrap(),
            MassProperties::solid_box(1.0, half).unwrap(),
            Pose::new(at, DQuat::from_rotation_z(turn)),
        )
        .unwrap()
    }

    /// The ground, a lattice of cubes far apart, and pairs of balls and
    /// cubes at gaps about the margin `gap` (m).
    fn bodies(gap: f64) -> Vec<RigidBody> {
        let mut bodies = vec![RigidBody::fixed(
            Shape::half_space(DVec3::Z).unwrap(),
            Pose::IDENTITY,
        )];
        for k in 0..40 {
            let at = DVec3::new(
                (k % 8) as f64,
                (k / 8) as f64,
                0.1 + 0.5 * gap * (k % 3) as f64,
            );
            bodies.push(cube(at, 0.05 * k as f64));
        }
        for (k, factor) in [0.0, 0.3, 0.99, 1.01, 3.0].into_iter().enumerate() {
            let at = DVec3::new(-2.0, k as f64, 0.5);
            bodies.push(ball(at, DVec3::ZERO));
            bodies.push(ball(at + DVec3::X * (0.2 + factor * gap), DVec3::ZERO));
            let at = DVec3::new(-4.0, k as f64, 0.5);
            bodies.push(cube(at, 0.0));
            bodies.push(cube(at + DVec3::X * (0.2 + factor * gap), 0.0));
        }
        bodies
    }

    fn states(bodies: &[RigidBody]) -> Vec<BodyState> {
        bodies
            .iter()
            .map(|b| BodyState::at_pose(b, b.pose, 0.0))
            .collect()
    }

    #[test]
    fn the_broad_phase_finds_what_every_pair_finds() {
        let gap = 1e-6;
        let bodies = bodies(gap);
        let states = states(&bodies);
        let mut finder = ContactFinder::default();
        let mut every = ContactFinder::default();
        every.broad.everything = true;
        let (mut found, mut expected) = (Vec::new(), Vec::new());
        finder.touching(&bodies, &states, gap, &mut found).unwrap();
        every
            .touching(&bodies, &states, gap, &mut expected)
            .unwrap();
        assert_eq!(format!("{found:?}"), format!("{expected:?}"));
        // The ground's pairs, the ball pairs and cube pairs at 0, 0.3 and
        // 0.99 of the margin: several points each for the cubes.
        assert!(found.len() > 40 + 3, "{}", found.len());
        // Watch values: the same list, with a covered point.
        let balls = found
            .iter()
            .find(|t| (t.constraint.body_a, t.constraint.body_b) == (41, 42))
            .unwrap();
        let covered = [((41, 42), balls.constraint.point)];
        let (mut now, mut all) = (Vec::new(), Vec::new());
        finder
            .watch(&bodies, &states, gap, &covered, &mut now)
            .unwrap();
        every
            .watch(&bodies, &states, gap, &covered, &mut all)
            .unwrap();
        assert_eq!(now, all);
        // The lattice's cubes at 0 and half the margin, and the ball and
        // cube pairs within it, less the covered ball pair.
        assert!(now.len() > 30, "{now:?}");
        assert!(now.iter().all(|&(pair, _)| pair != (41, 42)), "{now:?}");
    }

    #[test]
    fn least_watch_is_the_least_over_every_pair() {
        let cap = 1e-6;
        let bodies = bodies(cap);
        let n = bodies.len();
        // Values listed at the start or now, as a step might leave them:
        // some pairs only at one end, one leaving (negative at the start).
        let start = vec![((0, 1), 2e-7), ((0, 5), -3e-7), ((3, 4), 5e-7)];
        let now = vec![((0, 5), 4e-7), ((2, 9), 1e-7), ((3, 4), 9e-7)];
        let value = |list: &[WatchValue], pair| {
            list.iter()
                .find(|&&(p, _)| p == pair)
                .map_or(cap, |&(_, v)| v)
        };
        let mut expected = f64::INFINITY;
        for a in 0..n {
            for b in a + 1..n {
                if !bodies[a].is_dynamic() && !bodies[b].is_dynamic() {
                    continue;
                }
                let (s, v) = (value(&start, (a, b)), value(&now, (a, b)));
                expected = expected.min((v - s.min(0.0)) / cap);
            }
        }
        let least = least_watch(&bodies, &start, &now, cap, cap);
        assert_eq!(least.to_bits(), expected.to_bits());
        // With every pair listed above the unlisted value, the unlisted
        // pairs still count.
        let up = [((0, 5), -0.5 * cap)];
        let at = [((0, 5), 0.9 * cap)];
        assert_eq!(least_watch(&bodies, &up, &at, cap, cap), 1.0);
        assert_eq!(least_watch(&bodies[..2], &up[..0], &at[..0], cap, cap), 1.0);
        assert_eq!(least_watch(&bodies[..1], &[], &[], cap, cap), f64::INFINITY);
    }

    /// Balls falling onto the ground and onto each other, far from most
    /// others, integrated with and without the broad phase: the same
    /// trajectory, bit for bit, and the same events.
    #[test]
    fn the_event_driven_stepper_steps_as_every_pair_does() {
        let scene = || {
            let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
            world.add_body(RigidBody::fixed(
                Shape::half_space(DVec3::Z).unwrap(),
                Pose::IDENTITY,
            ));
            for k in 0..30 {
                let at = DVec3::new((k % 6) as f64, (k / 6) as f64, 0.3 + 0.02 * k as f64);
                world.add_body(ball(at, DVec3::new(0.0, 0.0, -1.0)));
            }
            world.add_body(ball(DVec3::new(-1.0, 0.0, 0.5), DVec3::X * 3.0));
            world.add_body(ball(DVec3::new(-0.5, 0.0, 0.5), DVec3::ZERO));
            world
        };
        let (mut world, mut reference_world) = (scene(), scene());
        let params = EventDrivenParams::default();
        let mut stepper = EventDrivenStepper::new(params).unwrap();
        let mut reference = EventDrivenStepper::new(params).unwrap();
        reference.finder.broad.everything = true;
        let bits = |world: &World| -> Vec<u64> {
            world
                .bodies()
                .iter()
                .flat_map(|b| {
                    let p = b.pose.translation;
                    let q = b.pose.rotation;
                    [p.x, p.y, p.z, q.x, q.y, q.z, q.w]
                        .into_iter()
                        .chain(b.twist.linear.to_array())
                        .chain(b.twist.angular.to_array())
                })
                .map(f64::to_bits)
                .collect()
        };
        for frame in 0..25 {
            stepper.advance(&mut world, 0.01).unwrap();
            reference.advance(&mut reference_world, 0.01).unwrap();
            assert_eq!(bits(&world), bits(&reference_world), "frame {frame}");
        }
        assert_eq!(stepper.events(), reference.events());
        assert!(stepper.events().len() > 10, "{:?}", stepper.events());
    }
}
