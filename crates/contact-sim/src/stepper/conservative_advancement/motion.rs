//! How fast each body can move over a step, for the safe bounds: a free
//! body by its own twist (Drumwright 2016, eq. 4's terms, Mirtich's), a
//! link of a jointed chain by its base and the joints between (eq. 11-15).
//!
//! The joints form a graph; a breadth-first search from the world (and from
//! fixed bodies, which are the world for this purpose) gives every body it
//! reaches a path of joints from a fixed base. A jointed group that reaches
//! no fixed body hangs from its lowest-index body, a floating base that
//! moves as a free body. A closed loop keeps only the joints of the search
//! tree: the velocity of a link composes along any one path, so one path
//! bounds it.
//!
//! Joint `k` of a path joins `parent` to `child`; its location `l_k` is the
//! anchor on the parent's side (world frame, start of the step). The
//! spacing to the next joint is measured on the child, from its own anchor
//! of joint `k` to its anchor of joint `k + 1`, plus the joint's drift
//! (the distance between its two anchors, which the velocity rows do not
//! see): so every `gamma_j` of eq. 13 bounds `|p - l_j|` for every point `p`
//! of the link over the step. The rate of a rotational joint is the norm of
//! the relative angular velocity of its bodies; of a prismatic joint, the
//! relative speed of its anchors.
//!
//! Eq. 11-14 bound the speed of a link's points along any path its joints
//! allow, so they bound the velocity step's motion too, where each link
//! moves by its own constant twist: that twist is the composition of the
//! joints' relative motions (the joint rows hold at velocity level), and the
//! lever of each term is at most the `gamma` above.

use contact_dynamics::{Joint, JointKind as DynamicsJointKind, RigidBody};
use contact_geometry::{BodyMotion, ChainJoint, ChainMotion, JointKind, TwistMotion, tilt_rate};
use contact_math::{Pose, Twist};
use glam::DVec3;

/// Where a body sits in the joint graph.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    /// A fixed body: never moves.
    Fixed,
    /// A dynamic body joined to nothing, or the floating base of a group.
    Free,
    /// A link: joined to its parent (`None`: the world or a fixed body) by
    /// `joint`.
    Link { joint: usize, parent: Option<usize> },
}

/// The motion bound of one body over the current step.
#[derive(Clone, Copy, Debug)]
enum BodyBound {
    Fixed,
    Free(BodyMotion),
    Link {
        /// Range of the link's path in `Motions::chain_joints`.
        start: usize,
        end: usize,
        base_linear: DVec3,
        base_angular: DVec3,
        reach: f64,
    },
}

/// Per-body motion bounds, rebuilt each step without allocating after
/// warm-up.
#[derive(Debug, Default)]
pub(super) struct Motions {
    places: Vec<Place>,
    /// Radius of each body about its centre for eq. 4 (`Shape::motion_radius`).
    radii: Vec<f64>,
    bounds: Vec<BodyBound>,
    /// Each body's constant-twist motion over the step.
    twists: Vec<TwistMotion>,
    chain_joints: Vec<ChainJoint>,
    /// Joint indices of a path, base first (scratch).
    path: Vec<usize>,
    queue: Vec<usize>,
    visited: Vec<bool>,
    horizon: f64,
}

impl Motions {
    /// Finds every body's place in the joint graph and its radius, at the
    /// poses of `bodies`.
    pub(super) fn build(&mut self, bodies: &[RigidBody], joints: &[Joint]) {
        let moving = |i: usize| bodies[i].is_dynamic();
        self.places.clear();
        self.places.extend(bodies.iter().map(|b| {
            if b.is_dynamic() {
                Place::Free
            } else {
                Place::Fixed
            }
        }));
        self.radii.clear();
        self.radii
            .extend(bodies.iter().map(|b| b.shape.motion_radius(DVec3::ZERO)));
        self.visited.clear();
        self.visited.extend(bodies.iter().map(|b| !b.is_dynamic()));
        // Breadth first from the world and the fixed bodies, then from each
        // floating base in index order.
        self.queue.clear();
        for (j, joint) in joints.iter().enumerate() {
            if joint.body_a.is_none_or(|a| !moving(a)) && !self.visited[joint.body_b] {
                self.visited[joint.body_b] = true;
                self.places[joint.body_b] = Place::Link {
                    joint: j,
                    parent: None,
                };
                self.queue.push(joint.body_b);
            }
        }
        let mut head = 0;
        let mut next_base = 0;
        loop {
            while head < self.queue.len() {
                let body = self.queue[head];
                head += 1;
                for (j, joint) in joints.iter().enumerate() {
                    let child = if joint.body_a == Some(body) {
                        Some(joint.body_b)
                    } else if joint.body_b == body {
                        joint.body_a
                    } else {
                        None
                    };
                    if let Some(child) = child
                        && !self.visited[child]
                    {
                        self.visited[child] = true;
                        self.places[child] = Place::Link {
                            joint: j,
                            parent: Some(body),
                        };
                        self.queue.push(child);
                    }
                }
            }
            // A jointed group not reached yet hangs from its lowest body.
            let Some(base) = (next_base..bodies.len()).find(|&i| {
                !self.visited[i] && joints.iter().any(|j| j.body_b == i || j.body_a == Some(i))
            }) else {
                break;
            };
            next_base = base + 1;
            self.visited[base] = true;
            self.queue.push(base);
        }
    }

    /// Fills every body's bound for the motion `twists` (per body, the
    /// twist it moves with over the step) at the start poses of `bodies`,
    /// valid over `horizon` seconds.
    pub(super) fn update(
        &mut self,
        bodies: &[RigidBody],
        joints: &[Joint],
        twists: &[Twist],
        horizon: f64,
    ) {
        self.horizon = horizon;
        self.twists.clear();
        self.twists
            .extend(bodies.iter().zip(twists).map(|(body, twist)| TwistMotion {
                centre: body.pose.translation,
                linear: twist.linear,
                angular: twist.angular,
            }));
        self.bounds.clear();
        self.chain_joints.clear();
        for body in 0..bodies.len() {
            let bound = match self.places[body] {
                Place::Fixed => BodyBound::Fixed,
                Place::Free => BodyBound::Free(BodyMotion {
                    linear: twists[body].linear,
                    angular: twists[body].angular,
                    radius: self.radii[body],
                }),
                Place::Link { .. } => self.link_bound(body, bodies, joints, twists, horizon),
            };
            self.bounds.push(bound);
        }
    }

    /// Eq. 11-14's data for link `link`: its path from the base, each
    /// joint's rate and spacing, the base's motion and the link's reach.
    fn link_bound(
        &mut self,
        link: usize,
        bodies: &[RigidBody],
        joints: &[Joint],
        twists: &[Twist],
        horizon: f64,
    ) -> BodyBound {
        self.path.clear();
        let mut body = link;
        let mut root = None;
        while let Place::Link { joint, parent, .. } = self.places[body] {
            self.path.push(joint);
            match parent {
                Some(p) => body = p,
                None => break,
            }
        }
        if let Place::Free = self.places[body] {
            root = Some(body);
        }
        self.path.reverse();
        let start = self.chain_joints.len();
        let twist_of = |i: Option<usize>| i.map_or(Twist::ZERO, |i| twists[i]);
        let pose_of = |i: Option<usize>| i.map(|i| &bodies[i].pose);
        // Bodies along the path: the parent of path[0] is the root (or the
        // world), each next joint's parent the previous joint's child.
        let mut parent = root;
        let mut previous_child_anchor = DVec3::ZERO;
        let mut base_location = DVec3::ZERO;
        let mut drift_last = 0.0;
        let mut last_prismatic_travel = 0.0;
        for (k, &j) in self.path.iter().enumerate() {
            let joint = &joints[j];
            let child = other_end(joint, parent, bodies);
            let location = anchor(joint, parent, bodies);
            let child_anchor = anchor(joint, Some(child), bodies);
            if k == 0 {
                base_location = location;
            } else {
                // The previous joint's spacing: on its child (our parent),
                // from its anchor there to this joint's location.
                let previous = self.chain_joints.last_mut().expect("pushed below");
                previous.link_length += (location - previous_child_anchor).length();
            }
            let (tp, tc) = (twist_of(parent), twists[child]);
            let drift = (child_anchor - location).length();
            let (kind, rate, position, link_length) = if joint.kind == DynamicsJointKind::Prismatic
            {
                let vp = point_velocity(&tp, pose_of(parent), child_anchor);
                let vc = point_velocity(&tc, Some(&bodies[child].pose), child_anchor);
                (JointKind::Prismatic, (vc - vp).length(), drift, 0.0)
            } else {
                let rate = (tc.angular - tp.angular).length();
                (JointKind::Rotational, rate, 0.0, drift)
            };
            last_prismatic_travel = if kind == JointKind::Prismatic {
                drift + rate * horizon
            } else {
                0.0
            };
            drift_last = drift;
            self.chain_joints.push(ChainJoint {
                kind,
                position,
                rate,
                link_length,
            });
            previous_child_anchor = child_anchor;
            parent = Some(child);
        }
        // The link's points are within `reach` of the last joint's
        // location: its centre's distance plus its radius, plus the last
        // joint's drift or a prismatic joint's travel.
        let centre = bodies[link].pose.translation;
        let reach = (centre - previous_child_anchor).length()
            + self.radii[link]
            + drift_last.max(last_prismatic_travel);
        let (base_linear, base_angular) = match root {
            Some(r) => {
                let t = twists[r];
                (
                    point_velocity(&t, Some(&bodies[r].pose), base_location),
                    t.angular,
                )
            }
            None => (DVec3::ZERO, DVec3::ZERO),
        };
        BodyBound::Link {
            start,
            end: self.chain_joints.len(),
            base_linear,
            base_angular,
            reach,
        }
    }

    /// How fast (m/s) any point of `body` can move along the unit
    /// `direction` over the step: eq. 4's terms for a free body, eq. 11-12
    /// for a link.
    pub(super) fn speed_along(&self, body: usize, direction: DVec3) -> f64 {
        match self.bounds[body] {
            BodyBound::Fixed => 0.0,
            BodyBound::Free(motion) => motion.speed_along(direction),
            BodyBound::Link { .. } => self
                .chain(body)
                .map_or(0.0, |c| c.speed_along(direction, self.horizon)),
        }
    }

    /// How fast (m/s) any point of `body` can move in any direction over
    /// the step: at least [`speed_along`](Self::speed_along) for every
    /// direction.
    pub(super) fn max_speed(&self, body: usize) -> f64 {
        match self.bounds[body] {
            BodyBound::Fixed => 0.0,
            BodyBound::Free(motion) => {
                let turn = motion.angular.length();
                // A body that does not turn sweeps nothing, whatever its
                // radius (a half-space's is infinite).
                let sweep = if turn == 0.0 {
                    0.0
                } else {
                    turn * motion.radius
                };
                motion.linear.length() + sweep
            }
            BodyBound::Link { .. } => self.chain(body).map_or(0.0, |c| c.max_speed(self.horizon)),
        }
    }

    /// How fast (rad/s) `body` can tilt the unit `normal`: `|w x n|` for a
    /// free body (eq. 7), eq. 15's `|w| + sum |q'_j|` for a link.
    pub(super) fn tilt(&self, body: usize, normal: DVec3) -> f64 {
        match self.bounds[body] {
            BodyBound::Fixed => 0.0,
            BodyBound::Free(motion) => tilt_rate(motion.angular, normal),
            BodyBound::Link { .. } => self.chain(body).map_or(0.0, |c| c.tilt_rate()),
        }
    }

    /// The horizon (s) the bounds were last evaluated for.
    pub(super) fn horizon(&self) -> f64 {
        self.horizon
    }

    /// The constant-twist motion of `body` over the step.
    pub(super) fn twist_motion(&self, body: usize) -> TwistMotion {
        self.twists[body]
    }

    /// Whether `body` is a link of a jointed chain.
    pub(super) fn is_link(&self, body: usize) -> bool {
        matches!(self.places[body], Place::Link { .. })
    }

    fn chain(&self, body: usize) -> Option<ChainMotion<'_>> {
        match self.bounds[body] {
            BodyBound::Link {
                start,
                end,
                base_linear,
                base_angular,
                reach,
            } => Some(ChainMotion {
                base_linear,
                base_angular,
                joints: &self.chain_joints[start..end],
                reach,
            }),
            _ => None,
        }
    }
}

/// The body at the other end of `joint` from `parent` (`None`: the world
/// or a fixed body).
fn other_end(joint: &Joint, parent: Option<usize>, bodies: &[RigidBody]) -> usize {
    let a_is_parent = match parent {
        Some(p) => joint.body_a == Some(p),
        None => joint.body_a.is_none_or(|a| !bodies[a].is_dynamic()),
    };
    if a_is_parent {
        joint.body_b
    } else {
        joint.body_a.expect("a joint's other end is its body a")
    }
}

/// The world position of `joint`'s anchor on `side` (`None`: the world or
/// a fixed body, i.e. whichever end is not dynamic).
fn anchor(joint: &Joint, side: Option<usize>, bodies: &[RigidBody]) -> DVec3 {
    let on_a = match side {
        Some(s) => joint.body_a == Some(s),
        None => joint.body_a.is_none_or(|a| !bodies[a].is_dynamic()),
    };
    if on_a {
        match joint.body_a {
            Some(a) => bodies[a].pose.transform_point(joint.frame_a.translation),
            None => joint.frame_a.translation,
        }
    } else {
        bodies[joint.body_b]
            .pose
            .transform_point(joint.frame_b.translation)
    }
}

/// Velocity (m/s) of the world point `at` moving with a body of twist
/// `twist` at `pose` (the world: zero).
fn point_velocity(twist: &Twist, pose: Option<&Pose>, at: DVec3) -> DVec3 {
    pose.map_or(DVec3::ZERO, |p| {
        twist.linear + twist.angular.cross(at - p.translation)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use contact_dynamics::JointKind as Kind;
    use contact_geometry::Shape;
    use contact_math::MassProperties;
    use glam::DQuat;

    const HALF: DVec3 = DVec3::new(0.05, 0.01, 0.01);

    /// Three links of length 0.1 along +x, hinged about y to the world at
    /// the origin and to each other, with joint rates `rates`; their twists
    /// composed from the rates (the velocity of link i's points is the sum
    /// of each joint j <= i turning them about its location).
    fn chain(rates: [f64; 3]) -> (Vec<RigidBody>, Vec<Joint>, Vec<Twist>) {
        let mut bodies = Vec::new();
        let mut joints = Vec::new();
        for k in 0..3_usize {
            let centre = DVec3::new(0.1 * k as f64 + 0.05, 0.0, 0.0);
            bodies.push(
                RigidBody::dynamic(
                    Shape::cuboid(HALF).unwrap(),
                    MassProperties::solid_box(1.0, HALF).unwrap(),
                    Pose::new(centre, DQuat::IDENTITY),
                )
                .unwrap(),
            );
            let anchor = DVec3::new(0.1 * k as f64, 0.0, 0.0);
            let parent = k.checked_sub(1);
            joints.push(
                Joint::at_world_frame(Kind::Hinge, &bodies, parent, k, anchor, DVec3::Y).unwrap(),
            );
        }
        let twists = (0..3)
            .map(|i| {
                let centre = bodies[i].pose.translation;
                (0..=i).fold(Twist::ZERO, |t, j| {
                    let w = rates[j] * DVec3::Y;
                    let lever = centre - DVec3::new(0.1 * j as f64, 0.0, 0.0);
                    Twist::new(t.linear + w.cross(lever), t.angular + w)
                })
            })
            .collect();
        (bodies, joints, twists)
    }

    #[test]
    fn a_link_bound_is_eq_11_and_holds_every_corner() {
        let rates = [1.5, -2.0, 4.0];
        let (bodies, joints, twists) = chain(rates);
        let mut motions = Motions::default();
        motions.build(&bodies, &joints);
        assert_eq!(
            motions.places,
            vec![
                Place::Link {
                    joint: 0,
                    parent: None
                },
                Place::Link {
                    joint: 1,
                    parent: Some(0)
                },
                Place::Link {
                    joint: 2,
                    parent: Some(1)
                },
            ]
        );
        motions.update(&bodies, &joints, &twists, 0.01);
        // Eq. 11-13 by hand for the last link: spacings 0.1 and 0.1, reach
        // |c - l_3| + radius = 0.05 + |HALF|; no base motion.
        let reach = 0.05 + HALF.length();
        let gammas = [0.2 + reach, 0.1 + reach, reach];
        let expected: f64 = rates.iter().zip(gammas).map(|(r, g)| r.abs() * g).sum();
        for direction in [DVec3::Z, DVec3::X, DVec3::new(0.3, 0.4, -0.5).normalize()] {
            let bound = motions.speed_along(2, direction);
            assert!((bound - expected).abs() < 1e-12, "{bound} vs {expected}");
            let body = &bodies[2];
            let corner_speed = [-1.0, 1.0]
                .iter()
                .flat_map(|&sx| [-1.0, 1.0].map(move |sy| (sx, sy)))
                .flat_map(|(sx, sy)| [-1.0, 1.0].map(move |sz| DVec3::new(sx, sy, sz) * HALF))
                .map(|local| {
                    let x = body.pose.transform_point(local);
                    let v = twists[2].linear + twists[2].angular.cross(x - body.pose.translation);
                    v.dot(direction)
                })
                .fold(f64::NEG_INFINITY, f64::max);
            assert!(corner_speed <= bound, "{corner_speed} > {bound}");
        }
        // Eq. 15: the tilt is the sum of the rates.
        assert!((motions.tilt(2, DVec3::Z) - 7.5).abs() < 1e-12);
    }

    #[test]
    fn a_floating_group_hangs_from_its_lowest_body() {
        let (mut bodies, mut joints, mut twists) = chain([0.0; 3]);
        // Free the first link from the world: it becomes the base.
        joints.remove(0);
        twists[0] = Twist::new(DVec3::new(0.0, 0.0, -2.0), DVec3::new(0.0, 3.0, 0.0));
        bodies[1].twist = Twist::ZERO;
        let mut motions = Motions::default();
        motions.build(&bodies, &joints);
        assert_eq!(motions.places[0], Place::Free);
        assert_eq!(
            motions.places[1],
            Place::Link {
                joint: 0,
                parent: Some(0)
            }
        );
        motions.update(&bodies, &joints, &twists, 0.01);
        // Joint 1 of link 1 is at x = 0.1; the base moves it at
        // (0, 0, -2) + 3 y x (0.05, 0, 0) = (0, 0, -2.15), and turns at 3
        // rad/s; link 1 turns relative to it at -3 rad/s (twist zero).
        let reach = 0.05 + HALF.length();
        let expected = 2.15 + 3.0 * reach + 3.0 * reach;
        assert!((motions.speed_along(1, DVec3::Z) - expected).abs() < 1e-12);
    }
}
