//! A contact point between two bodies (Cline 2002, sec. 4.4.2): one normal
//! row (eq. 4.14), unilateral, with the signed gap as its position
//! condition, and two friction rows along the orthonormal tangents of
//! [`tangent_pair`] (eq. 4.17-4.18), bounded by `mu` times the normal impulse.

use contact_geometry::Feature;
use glam::DVec3;

use super::{ConstraintRow, EmitRows, PositionCondition, RowBounds, RowSet, StabilisationGroup};
use crate::friction_cone::tangent_pair;
use crate::{BodyState, JacobianRow};

/// A unilateral contact between bodies `body_a` and `body_b` at one point.
///
/// The normal is a world-frame unit vector pointing from `a` to `b`: a
/// positive normal impulse pushes `b` along it and `a` against it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactConstraint {
    /// Index of the first body.
    pub body_a: usize,
    /// Index of the second body.
    pub body_b: usize,
    /// Contact point, world frame (m): where the impulses act.
    pub point: DVec3,
    /// Unit normal from `a` to `b`, world frame.
    pub normal: DVec3,
    /// Signed gap along the normal (m); negative when overlapping.
    pub distance: f64,
    /// Coulomb friction coefficient of the pair (>= 0).
    pub friction: f64,
    /// Newton's coefficient of restitution of the pair (0..=1).
    pub restitution: f64,
    /// The features of a and of b (vertex, edge, face) the point lies on:
    /// with the two bodies they identify the contact from one step to the
    /// next, for warm starts (`Feature::Unknown` where none is known).
    pub features: [Feature; 2],
}

impl ContactConstraint {
    /// A key for matching this contact with the same contact of another
    /// step: a deterministic mix of the two bodies and the two features.
    /// Equal contacts have equal keys; a collision of keys only costs a
    /// worse warm start, never a wrong answer.
    #[must_use]
    pub fn key(&self) -> u64 {
        let feature = |f: Feature| -> u64 {
            match f {
                Feature::Vertex(i) => 1 | (u64::from(i) << 2),
                Feature::Edge(i) => 2 | (u64::from(i) << 2),
                Feature::Face(i) => 3 | (u64::from(i) << 2),
                Feature::Unknown => 0,
            }
        };
        [
            self.body_a as u64,
            self.body_b as u64,
            feature(self.features[0]),
            feature(self.features[1]),
        ]
        .iter()
        .fold(0x9E37_79B9_7F4A_7C15_u64, |h, &x| mix(h ^ x))
    }

    /// Checks indices, finiteness and the unit normal; `Err` holds the reason.
    pub(crate) fn check(&self, body_count: usize) -> Result<(), &'static str> {
        if self.body_a >= body_count || self.body_b >= body_count {
            return Err("body index out of range");
        }
        if self.body_a == self.body_b {
            return Err("a body cannot touch itself");
        }
        if !(self.point.is_finite() && self.normal.is_finite() && self.distance.is_finite()) {
            return Err("point, normal or distance is not finite");
        }
        if (self.normal.length_squared() - 1.0).abs() > 1e-9 {
            return Err("normal is not a unit vector");
        }
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return Err("friction is negative or not finite");
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err("restitution is outside [0, 1]");
        }
        Ok(())
    }
}

impl ContactConstraint {
    /// The relative velocity of the contact point, b relative to a, at
    /// the bodies' states.
    #[must_use]
    pub fn relative_velocity(&self, bodies: &[BodyState]) -> DVec3 {
        let at = |i: usize| {
            let body = &bodies[i];
            body.twist.point_velocity(self.point - body.centre())
        };
        at(self.body_b) - at(self.body_a)
    }

    /// Emits the contact's rows with the orthonormal tangents `(t1, t2)`
    /// (`t2 = normal x t1`) as its friction directions.
    pub(crate) fn emit_rows_along(
        &self,
        (t1, t2): (DVec3, DVec3),
        bodies: &[BodyState],
        out: &mut RowSet,
    ) {
        let row = |direction| {
            JacobianRow::relative_velocity(bodies, self.body_a, self.body_b, self.point, direction)
        };
        let normal = out.push(ConstraintRow::new(
            row(self.normal),
            RowBounds::NonNegative,
            PositionCondition::Gap {
                gap: self.distance,
                group: StabilisationGroup::Contact,
            },
        ));
        for tangent in [t1, t2] {
            out.push(ConstraintRow::new(
                row(tangent),
                RowBounds::Friction {
                    normal,
                    mu: self.friction,
                },
                PositionCondition::None,
            ));
        }
    }
}

impl EmitRows for ContactConstraint {
    fn emit_rows(&self, bodies: &[BodyState], _h: f64, out: &mut RowSet) {
        self.emit_rows_along(tangent_pair(self.normal), bodies, out);
    }
}

/// One round of the splitmix64 finaliser: a cheap, deterministic mix.
pub(crate) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
