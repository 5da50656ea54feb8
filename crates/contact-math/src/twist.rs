//! Spatial velocity of a rigid body: `[v; w]`, linear first.
//!
//! Convention (ARCHITECTURE.md): `v` is the velocity of the centre of mass and
//! `w` the angular velocity, both in world axes. Cline 2002 sec. 2.4.1 shows
//! that this pair is a twist in the frame at the COM aligned with the world;
//! Cline writes it `[w; v]`, we write it `[v; w]`.

use glam::DVec3;

/// A spatial velocity `[v; w]`: linear velocity of the reference point (the
/// centre of mass, unless said otherwise) and angular velocity, world axes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Twist {
    /// Velocity of the reference point, m/s.
    pub linear: DVec3,
    /// Angular velocity, rad/s, world axes.
    pub angular: DVec3,
}

impl Twist {
    /// No motion.
    pub const ZERO: Twist = Twist {
        linear: DVec3::ZERO,
        angular: DVec3::ZERO,
    };

    /// A twist from its linear and angular parts.
    #[must_use]
    #[inline]
    pub const fn new(linear: DVec3, angular: DVec3) -> Twist {
        Twist { linear, angular }
    }

    /// Velocity of the body point at `offset_from_com` (world axes) from the
    /// reference point: `v + w x r` (Cline eq. 2.8).
    #[must_use]
    #[inline]
    pub fn point_velocity(&self, offset_from_com: DVec3) -> DVec3 {
        self.linear + self.angular.cross(offset_from_com)
    }

    /// The same motion described at another reference point, axes unchanged.
    ///
    /// `offset` is the new reference point minus the old one (world axes). The
    /// angular part is unchanged; the linear part becomes the velocity of the
    /// new point, `v + w x offset` (Cline eq. 2.8). The dual of
    /// [`crate::Wrench::shift`]: shifting both by the same offset keeps
    /// [`crate::Wrench::power`] unchanged.
    #[must_use]
    #[inline]
    pub fn shift(&self, offset: DVec3) -> Twist {
        Twist::new(self.point_velocity(offset), self.angular)
    }

    /// `[vx, vy, vz, wx, wy, wz]`.
    #[must_use]
    #[inline]
    pub fn to_array(&self) -> [f64; 6] {
        let (v, w) = (self.linear, self.angular);
        [v.x, v.y, v.z, w.x, w.y, w.z]
    }

    /// From `[vx, vy, vz, wx, wy, wz]`.
    #[must_use]
    #[inline]
    pub fn from_array(a: [f64; 6]) -> Twist {
        Twist::new(DVec3::new(a[0], a[1], a[2]), DVec3::new(a[3], a[4], a[5]))
    }

    /// True when every component is finite (no NaN, no infinity).
    #[must_use]
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.linear.is_finite() && self.angular.is_finite()
    }
}

impl_spatial_ops!(Twist, linear, angular);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::TestRng;

    #[test]
    fn point_velocity_of_pure_rotation() {
        // Spinning at 2 rad/s about z: the point (1, 0, 0) moves at (0, 2, 0).
        let t = Twist::new(DVec3::new(0.5, 0.0, 0.0), DVec3::new(0.0, 0.0, 2.0));
        assert_eq!(t.point_velocity(DVec3::X), DVec3::new(0.5, 2.0, 0.0));
        assert_eq!(t.point_velocity(DVec3::ZERO), t.linear);
    }

    #[test]
    fn point_velocity_matches_finite_difference_of_rotated_point() {
        // Independent answer: move the point with the exact rotation for a
        // small time and difference (central, error O(dt^2)).
        let mut rng = TestRng::new(0x7715_0001);
        for _ in 0..100 {
            let t = Twist::new(rng.vec3(2.0), rng.vec3(2.0));
            let r = rng.vec3(1.0);
            let dt = 1e-5;
            let at = |s: f64| {
                let q = glam::DQuat::from_scaled_axis(t.angular * s);
                t.linear * s + q * r
            };
            let fd = (at(dt) - at(-dt)) / (2.0 * dt);
            assert!((fd - t.point_velocity(r)).length() < 1e-8);
        }
    }

    #[test]
    fn shift_composes_and_inverts() {
        let mut rng = TestRng::new(0x7715_0002);
        for _ in 0..100 {
            let t = Twist::new(rng.vec3(2.0), rng.vec3(2.0));
            let (a, b) = (rng.vec3(1.0), rng.vec3(1.0));
            assert!((t.shift(a).shift(b) - t.shift(a + b)).linear.length() < 1e-14);
            assert!((t.shift(a).shift(-a) - t).linear.length() < 1e-14);
        }
    }

    #[test]
    fn array_round_trip_and_ordering() {
        let t = Twist::new(DVec3::new(1.0, 2.0, 3.0), DVec3::new(4.0, 5.0, 6.0));
        assert_eq!(t.to_array(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(Twist::from_array(t.to_array()), t);
        let a: [f64; 6] = t.into();
        assert_eq!(Twist::from(a), t);
    }

    #[test]
    fn arithmetic_is_componentwise() {
        let a = Twist::new(DVec3::new(1.0, 2.0, 3.0), DVec3::new(4.0, 5.0, 6.0));
        let b = Twist::new(DVec3::splat(1.0), DVec3::splat(-1.0));
        assert_eq!((a + b).to_array(), [2.0, 3.0, 4.0, 3.0, 4.0, 5.0]);
        assert_eq!((a - b).to_array(), [0.0, 1.0, 2.0, 5.0, 6.0, 7.0]);
        assert_eq!((-a).to_array(), [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]);
        assert_eq!((a * 2.0).to_array(), [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
        assert_eq!(2.0 * a, a * 2.0);
        assert_eq!(a / 2.0, a * 0.5);
        let mut c = a;
        c += b;
        assert_eq!(c, a + b);
        c -= b;
        assert_eq!(c, a);
        c *= 3.0;
        assert_eq!(c, a * 3.0);
        assert_eq!([a, b, a].into_iter().sum::<Twist>(), a + b + a);
    }

    #[test]
    fn is_finite_detects_nan_and_infinity() {
        assert!(Twist::ZERO.is_finite());
        assert!(!Twist::new(DVec3::new(f64::NAN, 0.0, 0.0), DVec3::ZERO).is_finite());
        assert!(!Twist::new(DVec3::ZERO, DVec3::new(0.0, 0.0, f64::NEG_INFINITY)).is_finite());
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_round_trip() {
        let t = Twist::new(DVec3::new(1.5, -2.0, 0.25), DVec3::new(0.0, 3.0, -0.5));
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<Twist>(&json).unwrap(), t);
    }
}
