//! A contact followed through time by the features that make it (Baraff
//! 1994, sec. 3; the myPhysicsLab page, eq. 5-11), evaluated at any state:
//! its point, normal, gap, the gap's rate and the velocity-product part of
//! its second derivative.
//!
//! Each side of a contact is a feature fixed in its body: a point (a
//! polytope vertex, a point of an edge or face, or a sphere's centre with
//! its radius), a straight edge, or a flat face. The gap of each supported
//! pair is a closed formula of the features' world positions:
//!
//! - face `(q, m)` of one body, point `p` (radius `R`) of the other:
//!   `d = m . (p - q) - R` (the page's eq. 5 with `p1 - p2` measured to a
//!   material point of the face's plane; the normal turns with the face);
//! - two edges `(q_a, e_a)`, `(q_b, e_b)`: `n = s (e_a x e_b) / |e_a x e_b|`
//!   with the sign `s` fixed when the contact is made, `d = n . (q_b - q_a)`;
//! - two points (sphere against sphere or vertex): `d = |p_b - p_a| - R_a - R_b`;
//! - an edge and a point (sphere against edge): the distance to the line
//!   minus the radius.
//!
//! Evaluated on second-order jets (`jet.rs`) seeded with the rigid motion's
//! velocities and zero accelerations, the gap's second derivative is exactly
//! the velocity-product term `(dJ/dt) u` of Baraff's `b` (the page's eq. 10
//! and 11 without the applied accelerations: `w x (w x r)`, the normal's
//! rate `2 n' . (p_b' - p_a')`, a sphere's centre moving without its spin).
//! The force-dependent part is the ordinary contact row: `d' = J u` with
//! `J` the relative velocity along `n` of the material points at the
//! contact point, for every pair above (tested).
//!
//! Tangential rows (static friction) ask the slip of the material points at
//! the contact point `c` to stay zero. With `c` moving at `c'`, the slip's
//! rate along a tangent `t` is `J_t a` plus
//! `t . (w_b x (c' - v_b) - w_a x (c' - v_a)) - (t . n') d'`, the last term
//! from keeping the slip in the turning tangent plane.

use glam::DVec3;

use crate::BodyState;
use crate::jet::{Jet, Jet3};

/// What a contact follows on one body, in the body's frame (origin at the
/// centre of mass).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ContactFeature {
    /// A point fixed in the body: a polytope's vertex or a point of its
    /// edge or face (`radius` 0), or a sphere's centre (`radius` its radius).
    Point {
        /// The point, body frame (m).
        local: DVec3,
        /// Radius of the sphere around it (m, >= 0).
        radius: f64,
    },
    /// A straight edge of a polytope: the line through `local` along the
    /// unit `direction` (body frame).
    Edge {
        /// A point of the line, body frame (m).
        local: DVec3,
        /// Unit direction, body frame.
        direction: DVec3,
    },
    /// A flat face (or a half-space's boundary): the plane through `local`
    /// with unit outward normal `normal` (body frame).
    Face {
        /// A point of the plane, body frame (m).
        local: DVec3,
        /// Unit outward normal, body frame.
        normal: DVec3,
    },
}

/// A contact between two bodies, followed by its features.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackedContact {
    /// Index of the first body.
    pub body_a: usize,
    /// Index of the second body.
    pub body_b: usize,
    /// The feature of body a.
    pub feature_a: ContactFeature,
    /// The feature of body b.
    pub feature_b: ContactFeature,
    /// Coulomb friction coefficient of the pair (>= 0).
    pub friction: f64,
    /// Newton's coefficient of restitution of the pair (0..=1).
    pub restitution: f64,
    /// `+1` or `-1`: the orientation of an edge pair's normal `e_a x e_b`
    /// that points from a to b (unused by other pairs).
    edge_sign: f64,
}

/// A tracked contact at one state of its bodies.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactKinematics {
    /// Where the contact forces act (world, m): midway between the two
    /// features' surfaces.
    pub point: DVec3,
    /// Unit normal from a to b (world).
    pub normal: DVec3,
    /// The normal's rate `n'` (1/s).
    pub normal_rate: DVec3,
    /// The signed gap `d` (m).
    pub distance: f64,
    /// The gap's rate `d'` (m/s), equal to the normal row applied to the
    /// twists.
    pub normal_speed: f64,
    /// The velocity-product part of `d''` (m/s^2): `d''` at zero body
    /// accelerations.
    pub normal_curvature: f64,
    /// The contact point's own velocity `c'` (m/s), as the features move.
    pub point_velocity: DVec3,
    /// The tangential relative velocity of b's material point at `point`
    /// with respect to a's (m/s): the slip.
    pub slip: DVec3,
}

impl TrackedContact {
    /// A contact between `feature_a` of body `body_a` and `feature_b` of
    /// body `body_b`, whose normal at the bodies' states `bodies` is
    /// `normal` (a to b; used to orient an edge pair's normal).
    ///
    /// # Errors
    /// The reason, when the pair of features has no gap formula here (two
    /// faces, a face and an edge: a face contact is made of the points of
    /// its polygon), a direction is not unit, a radius is negative, a
    /// feature's point is not finite, or two edges are parallel.
    pub fn new(
        (body_a, feature_a): (usize, ContactFeature),
        (body_b, feature_b): (usize, ContactFeature),
        normal: DVec3,
        bodies: &[BodyState],
    ) -> Result<Self, &'static str> {
        let edge_sign = match check_features(feature_a, feature_b)? {
            Some((da, db)) => {
                let cross =
                    (bodies[body_a].pose.rotation * da).cross(bodies[body_b].pose.rotation * db);
                if cross.length() < 1e-9 {
                    return Err("the two edges are parallel");
                }
                if cross.dot(normal) >= 0.0 { 1.0 } else { -1.0 }
            }
            None => 1.0,
        };
        Ok(Self {
            body_a,
            body_b,
            feature_a,
            feature_b,
            friction: 0.0,
            restitution: 0.0,
            edge_sign,
        })
    }

    /// The contact [`new`](Self::new) made, from its parts (with no
    /// material: see [`with_material`](Self::with_material)): for restoring
    /// a saved contact. `edge_sign` is [`edge_sign`](Self::edge_sign) of
    /// the contact saved.
    ///
    /// # Errors
    /// As [`new`](Self::new) (but for parallel edges, which `edge_sign`
    /// already orients), a point or direction that is not finite, or an
    /// `edge_sign` other than `+1` or `-1`.
    pub fn from_parts(
        (body_a, feature_a): (usize, ContactFeature),
        (body_b, feature_b): (usize, ContactFeature),
        edge_sign: f64,
    ) -> Result<Self, &'static str> {
        check_features(feature_a, feature_b)?;
        if edge_sign != 1.0 && edge_sign != -1.0 {
            return Err("the edge sign is neither +1 nor -1");
        }
        Ok(Self {
            body_a,
            body_b,
            feature_a,
            feature_b,
            friction: 0.0,
            restitution: 0.0,
            edge_sign,
        })
    }

    /// `+1` or `-1`: which way an edge pair's normal `e_a x e_b` is turned
    /// to point from a to b, fixed when the contact was made (`+1` for the
    /// other pairs).
    #[must_use]
    pub fn edge_sign(&self) -> f64 {
        self.edge_sign
    }

    /// The same contact with the pair's friction and restitution.
    #[must_use]
    pub fn with_material(mut self, friction: f64, restitution: f64) -> Self {
        self.friction = friction;
        self.restitution = restitution;
        self
    }

    /// The contact at the bodies' states (poses and twists).
    #[must_use]
    pub fn kinematics(&self, bodies: &[BodyState]) -> ContactKinematics {
        let (a, b) = (&bodies[self.body_a], &bodies[self.body_b]);
        let (normal, distance, point) = self.gap(a, b);
        let relative = b.twist.point_velocity(point.v - b.centre())
            - a.twist.point_velocity(point.v - a.centre());
        ContactKinematics {
            point: point.v,
            normal: normal.v,
            normal_rate: normal.d1,
            distance: distance.v,
            normal_speed: distance.d1,
            normal_curvature: distance.d2,
            point_velocity: point.d1,
            slip: relative - normal.v * normal.v.dot(relative),
        }
    }

    /// The velocity-product part of the slip's rate (m/s^2): along a
    /// tangent `t`, `t . K` with `K = w_b x (c' - v_b) - w_a x (c' - v_a) -
    /// n' d'` (see the module comment; exact while the contact does not
    /// slip).
    #[must_use]
    pub fn slip_curvature(&self, kinematics: &ContactKinematics, bodies: &[BodyState]) -> DVec3 {
        let (a, b) = (&bodies[self.body_a], &bodies[self.body_b]);
        let c = kinematics.point_velocity;
        b.twist.angular.cross(c - b.twist.linear)
            - a.twist.angular.cross(c - a.twist.linear)
            - kinematics.normal_rate * kinematics.normal_speed
    }

    /// The normal, gap and contact point as jets along the constant-twist
    /// motion of the two bodies.
    fn gap(&self, a: &BodyState, b: &BodyState) -> (Jet3, Jet, Jet3) {
        let half = Jet::constant(0.5);
        match (self.feature_a, self.feature_b) {
            (
                ContactFeature::Face { local: qa, normal },
                ContactFeature::Point { local, radius },
            ) => {
                let m = direction_jet(a, normal);
                let p = point_jet(b, local);
                let d = m.dot(p - point_jet(a, qa)) - Jet::constant(radius);
                (m, d, p - m.scale(Jet::constant(radius)))
            }
            (
                ContactFeature::Point { local, radius },
                ContactFeature::Face { local: qb, normal },
            ) => {
                let m = direction_jet(b, normal);
                let p = point_jet(a, local);
                let d = m.dot(p - point_jet(b, qb)) - Jet::constant(radius);
                (-m, d, p - m.scale(Jet::constant(radius)))
            }
            (
                ContactFeature::Edge {
                    local: la,
                    direction: da,
                },
                ContactFeature::Edge {
                    local: lb,
                    direction: db,
                },
            ) => {
                let (qa, ea) = (point_jet(a, la), direction_jet(a, da));
                let (qb, eb) = (point_jet(b, lb), direction_jet(b, db));
                let n = ea
                    .cross(eb)
                    .normalize()
                    .scale(Jet::constant(self.edge_sign));
                let r = qb - qa;
                let d = n.dot(r);
                // Closest points of the two lines (unit directions).
                let c = ea.dot(eb);
                let denominator = Jet::constant(1.0) - c * c;
                let (ar, br) = (ea.dot(r), eb.dot(r));
                let s = (ar - c * br).div(denominator);
                let t = (c * ar - br).div(denominator);
                let point = (qa + ea.scale(s) + qb + eb.scale(t)).scale(half);
                (n, d, point)
            }
            (
                ContactFeature::Point {
                    local: la,
                    radius: ra,
                },
                ContactFeature::Point {
                    local: lb,
                    radius: rb,
                },
            ) => {
                let (pa, pb) = (point_jet(a, la), point_jet(b, lb));
                let u = pb - pa;
                let n = u.normalize();
                let d = u.length() - Jet::constant(ra + rb);
                let point =
                    (pa + n.scale(Jet::constant(ra)) + pb - n.scale(Jet::constant(rb))).scale(half);
                (n, d, point)
            }
            (
                ContactFeature::Edge { local, direction },
                ContactFeature::Point { local: lp, radius },
            ) => {
                let (q, e) = (point_jet(a, local), direction_jet(a, direction));
                let p = point_jet(b, lp);
                let (n, d, foot) = line_to_point(q, e, p, radius);
                let point = (foot + p - n.scale(Jet::constant(radius))).scale(half);
                (n, d, point)
            }
            (
                ContactFeature::Point { local: lp, radius },
                ContactFeature::Edge { local, direction },
            ) => {
                let (q, e) = (point_jet(b, local), direction_jet(b, direction));
                let p = point_jet(a, lp);
                let (away, d, foot) = line_to_point(q, e, p, radius);
                let point = (foot + p - away.scale(Jet::constant(radius))).scale(half);
                (-away, d, point)
            }
            // `new` admits no other pair.
            _ => unreachable!("TrackedContact::new checks the feature pair"),
        }
    }
}

/// The unit direction from the line `(q, e)` to the point `p`, the
/// distance minus `radius`, and the foot of the perpendicular.
fn line_to_point(q: Jet3, e: Jet3, p: Jet3, radius: f64) -> (Jet3, Jet, Jet3) {
    let u = p - q;
    let along = e.scale(u.dot(e));
    let perpendicular = u - along;
    (
        perpendicular.normalize(),
        perpendicular.length() - Jet::constant(radius),
        q + along,
    )
}

/// A body's material point `local` moving with constant twist: position,
/// `v + w x r` and `w x (w x r)`.
fn point_jet(state: &BodyState, local: DVec3) -> Jet3 {
    let r = state.pose.rotation * local;
    let w = state.twist.angular;
    Jet3 {
        v: state.pose.translation + r,
        d1: state.twist.linear + w.cross(r),
        d2: w.cross(w.cross(r)),
    }
}

/// A body-fixed direction turning with constant angular velocity.
fn direction_jet(state: &BodyState, local: DVec3) -> Jet3 {
    let e = state.pose.rotation * local;
    let w = state.twist.angular;
    Jet3 {
        v: e,
        d1: w.cross(e),
        d2: w.cross(w.cross(e)),
    }
}

/// Checks a pair of features (finite, unit directions, a gap formula for
/// the pair); for two edges, their directions (body frames).
fn check_features(
    feature_a: ContactFeature,
    feature_b: ContactFeature,
) -> Result<Option<(DVec3, DVec3)>, &'static str> {
    for feature in [feature_a, feature_b] {
        let (local, unit) = match feature {
            ContactFeature::Point { local, radius } => {
                if !(radius.is_finite() && radius >= 0.0) {
                    return Err("a point's radius is negative or not finite");
                }
                (local, true)
            }
            ContactFeature::Edge { local, direction } => (local, is_unit(direction)),
            ContactFeature::Face { local, normal } => (local, is_unit(normal)),
        };
        if !unit {
            return Err("an edge direction or face normal is not a unit vector");
        }
        if !local.is_finite() {
            return Err("a feature's point is not finite");
        }
    }
    match (feature_a, feature_b) {
        (ContactFeature::Face { .. }, ContactFeature::Point { .. })
        | (ContactFeature::Point { .. }, ContactFeature::Face { .. })
        | (ContactFeature::Point { .. }, ContactFeature::Point { .. })
        | (ContactFeature::Edge { .. }, ContactFeature::Point { .. })
        | (ContactFeature::Point { .. }, ContactFeature::Edge { .. }) => Ok(None),
        (
            ContactFeature::Edge { direction: da, .. },
            ContactFeature::Edge { direction: db, .. },
        ) => Ok(Some((da, db))),
        _ => Err("this pair of features has no gap formula"),
    }
}

fn is_unit(v: DVec3) -> bool {
    v.is_finite() && (v.length_squared() - 1.0).abs() <= 1e-9
}
