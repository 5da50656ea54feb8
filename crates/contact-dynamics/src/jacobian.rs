//! Constraint Jacobian rows for contacts (Cline 2002, sec. 4.4.2,
//! eq. 4.14 for the normal, 4.17-4.18 for friction directions).
//!
//! A row maps the twists of the two bodies to the relative velocity of the
//! contact point along a world direction `u`, "b relative to a":
//! `u . (v_b + w_b x r_b) - u . (v_a + w_a x r_a)`, with `r` the point's
//! offset from each centre of mass. So body b's block is `[u; r_b x u]`
//! and body a's is `-[u; r_a x u]`, linear first. Its transpose maps a
//! scalar impulse along `u` to the two bodies' impulse wrenches.

use contact_math::Twist;
use glam::{DMat3, DVec3};

use crate::RigidBody;

/// One body's 1x6 block of a Jacobian row, linear part first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyJacobian {
    /// Index of the body.
    pub body: usize,
    /// Coefficients of the linear velocity.
    pub linear: DVec3,
    /// Coefficients of the angular velocity.
    pub angular: DVec3,
}

impl BodyJacobian {
    /// This block applied to a twist.
    #[must_use]
    pub fn dot(&self, twist: &Twist) -> f64 {
        self.linear.dot(twist.linear) + self.angular.dot(twist.angular)
    }

    /// `W J'` for this block: the twist change of the body per unit impulse
    /// along the row, with `W = diag(1/m, I^-1)`.
    #[must_use]
    pub fn response(&self, inv_mass: f64, inv_inertia: DMat3) -> Twist {
        Twist::new(inv_mass * self.linear, inv_inertia * self.angular)
    }
}

/// A row of the constraint Jacobian: at most two nonzero body blocks.
/// A fixed body contributes no block (its velocity is not an unknown).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JacobianRow {
    /// Block of the first body, `None` when it is fixed.
    pub a: Option<BodyJacobian>,
    /// Block of the second body, `None` when it is fixed.
    pub b: Option<BodyJacobian>,
}

impl JacobianRow {
    /// The row of the relative velocity of `point` (world) along
    /// `direction` (world unit vector), body `b` relative to body `a`.
    #[must_use]
    pub fn relative_velocity(
        bodies: &[RigidBody],
        a: usize,
        b: usize,
        point: DVec3,
        direction: DVec3,
    ) -> Self {
        let block = |index: usize, sign: f64| {
            let body = &bodies[index];
            body.is_dynamic().then(|| BodyJacobian {
                body: index,
                linear: sign * direction,
                angular: sign * (point - body.pose.translation).cross(direction),
            })
        };
        Self {
            a: block(a, -1.0),
            b: block(b, 1.0),
        }
    }

    /// The row applied to the bodies' twists, looked up by index.
    #[must_use]
    pub fn apply(&self, twist_of: impl Fn(usize) -> Twist) -> f64 {
        self.blocks()
            .map(|block| block.dot(&twist_of(block.body)))
            .sum()
    }

    /// The nonzero blocks of the row.
    pub fn blocks(&self) -> impl Iterator<Item = &BodyJacobian> {
        self.a.iter().chain(self.b.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contact_geometry::Shape;
    use contact_math::{MassProperties, Pose};
    use glam::DQuat;

    fn cube(at: DVec3, twist: Twist) -> RigidBody {
        let mass = MassProperties::solid_box(2.0, DVec3::splat(0.5)).unwrap();
        let mut body = RigidBody::dynamic(
            Shape::cuboid(DVec3::splat(0.5)).unwrap(),
            mass,
            Pose::new(at, DQuat::from_rotation_z(0.3)),
        )
        .unwrap();
        body.twist = twist;
        body
    }

    /// The row times the twists equals the relative point velocity computed
    /// directly from Cline eq. 2.8 for each body.
    #[test]
    fn row_gives_relative_point_velocity() {
        let a = cube(
            DVec3::new(0.1, 0.2, 0.3),
            Twist::new(DVec3::new(1.0, -2.0, 0.5), DVec3::new(0.3, 0.7, -1.1)),
        );
        let b = cube(
            DVec3::new(-0.4, 1.0, 1.3),
            Twist::new(DVec3::new(-0.2, 0.4, 1.5), DVec3::new(-0.9, 0.2, 0.6)),
        );
        let point = DVec3::new(0.0, 0.6, 0.8);
        let direction = DVec3::new(1.0, 2.0, -0.5).normalize();
        let bodies = [a, b];
        let row = JacobianRow::relative_velocity(&bodies, 0, 1, point, direction);
        let expected =
            direction.dot(bodies[1].point_velocity(point) - bodies[0].point_velocity(point));
        let got = row.apply(|i| bodies[i].twist);
        assert!((got - expected).abs() < 1e-14, "{got} vs {expected}");
    }

    #[test]
    fn fixed_bodies_have_no_block() {
        let ground = RigidBody::fixed(Shape::half_space(DVec3::Z).unwrap(), Pose::IDENTITY);
        let bodies = [ground, cube(DVec3::Z, Twist::ZERO)];
        let row = JacobianRow::relative_velocity(&bodies, 0, 1, DVec3::ZERO, DVec3::Z);
        assert!(row.a.is_none());
        assert_eq!(row.b.unwrap().body, 1);
        assert_eq!(row.blocks().count(), 1);
    }
}
