//! Constraint Jacobian rows (Cline 2002, sec. 4.4: eq. 4.14 for a contact
//! normal, 4.17-4.18 for friction directions, sec. 4.4.1 for joints).
//!
//! A row maps the twists of two bodies to one relative velocity, "b relative
//! to a". For a direction `u` and a point, it is
//! `u . (v_b + w_b x r_b) - u . (v_a + w_a x r_a)`, with `r` the point's
//! offset from each centre of mass: body b's block is `[u; r_b x u]` and body
//! a's is `-[u; r_a x u]`, linear first. An angular row along `u` is
//! `u . (w_b - w_a)`: blocks `[0; u]` and `-[0; u]`. Its transpose maps a
//! scalar impulse along the row to the two bodies' impulse wrenches.

use contact_math::Twist;
use glam::DVec3;

use crate::BodyState;

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
    /// along the row.
    #[must_use]
    pub fn response(&self, state: &BodyState) -> Twist {
        state.response(self.linear, self.angular)
    }
}

/// A row of the constraint Jacobian: at most two nonzero body blocks.
/// A fixed body (or the world) contributes no block: its velocity is not an
/// unknown.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JacobianRow {
    /// Block of the first body, `None` when it is fixed or the world.
    pub a: Option<BodyJacobian>,
    /// Block of the second body, `None` when it is fixed or the world.
    pub b: Option<BodyJacobian>,
}

/// The block of body `index` (if it moves) for a linear part `linear` and an
/// angular part `angular`, each multiplied by `sign`.
fn block(
    bodies: &[BodyState],
    index: Option<usize>,
    sign: f64,
    linear: DVec3,
    angular: impl FnOnce(&BodyState) -> DVec3,
) -> Option<BodyJacobian> {
    let index = index?;
    let body = &bodies[index];
    body.dynamic.then(|| BodyJacobian {
        body: index,
        linear: sign * linear,
        angular: sign * angular(body),
    })
}

impl JacobianRow {
    /// The row of the relative velocity along `direction` (world) of the
    /// material point of `b` at `point_b` with respect to the material point
    /// of `a` at `point_a` (both world). `None` stands for the world.
    #[must_use]
    pub fn points(
        bodies: &[BodyState],
        a: Option<usize>,
        b: Option<usize>,
        point_a: DVec3,
        point_b: DVec3,
        direction: DVec3,
    ) -> Self {
        Self {
            a: block(bodies, a, -1.0, direction, |body| {
                (point_a - body.centre()).cross(direction)
            }),
            b: block(bodies, b, 1.0, direction, |body| {
                (point_b - body.centre()).cross(direction)
            }),
        }
    }

    /// The row of the relative velocity of `point` (world) along
    /// `direction`, body `b` relative to body `a`: [`JacobianRow::points`]
    /// with one point.
    #[must_use]
    pub fn relative_velocity(
        bodies: &[BodyState],
        a: usize,
        b: usize,
        point: DVec3,
        direction: DVec3,
    ) -> Self {
        Self::points(bodies, Some(a), Some(b), point, point, direction)
    }

    /// The row of the relative angular velocity `axis . (w_b - w_a)`.
    #[must_use]
    pub fn angular(bodies: &[BodyState], a: Option<usize>, b: Option<usize>, axis: DVec3) -> Self {
        Self {
            a: block(bodies, a, -1.0, DVec3::ZERO, |_| axis),
            b: block(bodies, b, 1.0, DVec3::ZERO, |_| axis),
        }
    }

    /// `s * self + t * other` for two rows on the same bodies (a friction
    /// generator from two tangent rows). Coefficients of exactly 0 or 1 give
    /// the other row's blocks bit for bit.
    #[must_use]
    pub fn combine(&self, s: f64, other: &Self, t: f64) -> Self {
        let mix = |x: Option<BodyJacobian>, y: Option<BodyJacobian>| {
            x.zip(y).map(|(x, y)| BodyJacobian {
                body: x.body,
                linear: s * x.linear + t * y.linear,
                angular: s * x.angular + t * y.angular,
            })
        };
        Self {
            a: mix(self.a, other.a),
            b: mix(self.b, other.b),
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

    /// `W J'` of each block (a, b); zero where a block is absent.
    #[must_use]
    pub fn responses(&self, bodies: &[BodyState]) -> [Twist; 2] {
        let response = |block: &Option<BodyJacobian>| match block {
            Some(block) => block.response(&bodies[block.body]),
            None => Twist::ZERO,
        };
        [response(&self.a), response(&self.b)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RigidBody;
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

    fn states(bodies: &[RigidBody]) -> Vec<BodyState> {
        bodies
            .iter()
            .enumerate()
            .map(|(i, b)| BodyState::of(b, i, 0.0).unwrap())
            .collect()
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
        let other = DVec3::new(0.3, -0.1, 0.2);
        let direction = DVec3::new(1.0, 2.0, -0.5).normalize();
        let bodies = [a, b];
        let states = states(&bodies);
        let row = JacobianRow::relative_velocity(&states, 0, 1, point, direction);
        let expected =
            direction.dot(bodies[1].point_velocity(point) - bodies[0].point_velocity(point));
        let got = row.apply(|i| bodies[i].twist);
        assert!((got - expected).abs() < 1e-14, "{got} vs {expected}");
        // Two points: b's material point at `point`, a's at `other`.
        let row = JacobianRow::points(&states, Some(0), Some(1), other, point, direction);
        let expected =
            direction.dot(bodies[1].point_velocity(point) - bodies[0].point_velocity(other));
        assert!((row.apply(|i| bodies[i].twist) - expected).abs() < 1e-14);
        // Angular: axis . (w_b - w_a).
        let row = JacobianRow::angular(&states, Some(0), Some(1), direction);
        let expected = direction.dot(bodies[1].twist.angular - bodies[0].twist.angular);
        assert!((row.apply(|i| bodies[i].twist) - expected).abs() < 1e-14);
    }

    #[test]
    fn fixed_bodies_and_the_world_have_no_block() {
        let ground = RigidBody::fixed(Shape::half_space(DVec3::Z).unwrap(), Pose::IDENTITY);
        let bodies = [ground, cube(DVec3::Z, Twist::ZERO)];
        let states = states(&bodies);
        let row = JacobianRow::relative_velocity(&states, 0, 1, DVec3::ZERO, DVec3::Z);
        assert!(row.a.is_none());
        assert_eq!(row.b.unwrap().body, 1);
        assert_eq!(row.blocks().count(), 1);
        let row = JacobianRow::angular(&states, None, Some(1), DVec3::X);
        assert!(row.a.is_none() && row.b.is_some());
    }
}
