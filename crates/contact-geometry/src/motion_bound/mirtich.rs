//! Mirtich's conservative-advancement bound for separated bodies
//! (Drumwright 2016, eq. 4; Mirtich's 1996 thesis).
//!
//! Let `d > 0` be the distance and `n` the unit direction from A's closest
//! point to B's. The separation along the fixed axis `n`,
//! `s(t) = min_{y in B(t)} n . y - max_{x in A(t)} n . x`, is a lower bound
//! of the distance and `s(0) = d`. A point of a body moving with constant
//! linear velocity `v` of its centre `c` and constant angular velocity `w`
//! about `c` is `x(t) = c + v t + R(w t) (x0 - c)`, and
//! `|n . (R(w t) - I) u| <= |w x n| |u| t` (the derivative of
//! `n . R u` is `(R u) . (n x w)`). With `r` a bound of `|x0 - c|` over the
//! body (its bounding radius about the centre of rotation):
//!
//! `s(t) >= d - t (n . (v_A - v_B) + |w_A x n| r_A + |w_B x n| r_B)`,
//!
//! so no interpenetration can happen before `t = d / rate` when the rate is
//! positive, and never when it is not. The paper writes
//! `|n . (v_A - v_B)|`; we keep the sign (the derivation above), which is
//! as safe and gives `f64::INFINITY` for bodies moving apart.

use glam::DVec3;

/// The motion of one body over the step: constant linear velocity of its
/// centre of rotation (the centre of mass for a free body) and constant
/// angular velocity about it, world frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BodyMotion {
    /// Linear velocity of the centre of rotation (m/s).
    pub linear: DVec3,
    /// Angular velocity (rad/s).
    pub angular: DVec3,
    /// Radius of a sphere about the centre of rotation that holds every
    /// point whose motion moves the shape's surface (m): the farthest
    /// vertex for a polytope, only the centre's distance for a ball, since
    /// its spin about its own centre moves none of its support (see
    /// [`Shape::motion_radius`](crate::Shape::motion_radius)); may be
    /// infinite for a body that does not rotate (a static half-space).
    pub radius: f64,
}

impl BodyMotion {
    /// A body that does not move (radius irrelevant, set to zero).
    pub const STATIC: Self = Self {
        linear: DVec3::ZERO,
        angular: DVec3::ZERO,
        radius: 0.0,
    };

    /// How fast any point of the body can move along the unit `direction`
    /// (m/s): `direction . linear + |angular x direction| radius`.
    #[must_use]
    pub fn speed_along(&self, direction: DVec3) -> f64 {
        let turn = self.angular.cross(direction).length();
        let sweep = if turn == 0.0 { 0.0 } else { turn * self.radius };
        direction.dot(self.linear) + sweep
    }
}

/// Mirtich's bound (Drumwright eq. 4): the time (s) before bodies `a` and
/// `b`, separated by `distance` (m) along the unit `direction` from `a`'s
/// closest point to `b`'s, can touch; `f64::INFINITY` when their motion
/// cannot close the gap. Zero when `distance <= 0`.
///
/// # Preconditions
/// `direction` is unit and is the closest-point direction (any unit axis
/// along which the separation equals `distance` will do).
#[must_use]
pub fn mirtich_bound(distance: f64, direction: DVec3, a: &BodyMotion, b: &BodyMotion) -> f64 {
    if distance <= 0.0 {
        return 0.0;
    }
    let rate = a.speed_along(direction) + b.speed_along(-direction);
    if rate > 0.0 {
        distance / rate
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_on_translation_is_distance_over_speed() {
        let a = BodyMotion {
            linear: DVec3::new(2.0, 0.0, 0.0),
            ..BodyMotion::STATIC
        };
        let b = BodyMotion {
            linear: DVec3::new(-1.0, 5.0, 0.0),
            ..BodyMotion::STATIC
        };
        assert!((mirtich_bound(3.0, DVec3::X, &a, &b) - 1.0).abs() < 1e-15);
        // Moving apart, or spinning about the axis, never closes the gap.
        assert_eq!(mirtich_bound(3.0, -DVec3::X, &a, &b), f64::INFINITY);
        let spin = BodyMotion {
            angular: DVec3::new(7.0, 0.0, 0.0),
            radius: 1.0,
            ..BodyMotion::STATIC
        };
        assert_eq!(mirtich_bound(1.0, DVec3::X, &spin, &spin), f64::INFINITY);
        assert_eq!(mirtich_bound(0.0, DVec3::X, &a, &b), 0.0);
    }

    #[test]
    fn static_half_space_with_infinite_radius() {
        let ground = BodyMotion {
            radius: f64::INFINITY,
            ..BodyMotion::STATIC
        };
        let falling = BodyMotion {
            linear: DVec3::new(0.0, 0.0, -2.0),
            angular: DVec3::new(1.0, 0.0, 0.0),
            radius: 0.5,
        };
        // Rate 2 + |w x n| r = 2.5.
        let t = mirtich_bound(1.0, -DVec3::Z, &falling, &ground);
        assert!((t - 0.4).abs() < 1e-15);
    }
}
