//! Spatial force on a rigid body: `[f; tau]`, linear first.
//!
//! The dual of [`crate::Twist`] (Cline 2002 sec. 2.4.2): a force and the
//! torque about the reference point (the centre of mass unless said
//! otherwise), world axes. `f . v + tau . w` is the power it delivers.

use glam::DVec3;

use crate::Twist;

/// A spatial force `[f; tau]`: force and torque about the reference point (the
/// centre of mass, unless said otherwise), world axes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Wrench {
    /// Force, N.
    pub force: DVec3,
    /// Torque about the reference point, N m.
    pub torque: DVec3,
}

impl Wrench {
    /// No force, no torque.
    pub const ZERO: Wrench = Wrench {
        force: DVec3::ZERO,
        torque: DVec3::ZERO,
    };

    /// A wrench from its force and torque.
    #[must_use]
    #[inline]
    pub const fn new(force: DVec3, torque: DVec3) -> Wrench {
        Wrench { force, torque }
    }

    /// The wrench of `force` applied at the point `point_offset_from_com`
    /// (world axes, from the reference point): torque `r x f`.
    #[must_use]
    #[inline]
    pub fn at_point(force: DVec3, point_offset_from_com: DVec3) -> Wrench {
        Wrench::new(force, point_offset_from_com.cross(force))
    }

    /// Power delivered to a body moving with `twist` (same reference point and
    /// axes): `f . v + tau . w`, W.
    #[must_use]
    #[inline]
    pub fn power(&self, twist: &Twist) -> f64 {
        self.force.dot(twist.linear) + self.torque.dot(twist.angular)
    }

    /// The same wrench described about another reference point, axes unchanged.
    ///
    /// `offset` is the new reference point minus the old one (world axes). The
    /// force is unchanged; the torque becomes `tau - offset x f`. The dual of
    /// [`Twist::shift`]: shifting both by the same offset keeps [`Wrench::power`]
    /// unchanged.
    #[must_use]
    #[inline]
    pub fn shift(&self, offset: DVec3) -> Wrench {
        Wrench::new(self.force, self.torque - offset.cross(self.force))
    }

    /// `[fx, fy, fz, tx, ty, tz]`.
    #[must_use]
    #[inline]
    pub fn to_array(&self) -> [f64; 6] {
        let (f, t) = (self.force, self.torque);
        [f.x, f.y, f.z, t.x, t.y, t.z]
    }

    /// From `[fx, fy, fz, tx, ty, tz]`.
    #[must_use]
    #[inline]
    pub fn from_array(a: [f64; 6]) -> Wrench {
        Wrench::new(DVec3::new(a[0], a[1], a[2]), DVec3::new(a[3], a[4], a[5]))
    }

    /// True when every component is finite (no NaN, no infinity).
    #[must_use]
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.force.is_finite() && self.torque.is_finite()
    }
}

impl_spatial_ops!(Wrench, force, torque);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::TestRng;

    #[test]
    fn at_point_torque_is_r_cross_f() {
        // Pushing +y at (1, 0, 0) turns the body about +z with arm 1.
        let w = Wrench::at_point(DVec3::new(0.0, 3.0, 0.0), DVec3::X);
        assert_eq!(w.torque, DVec3::new(0.0, 0.0, 3.0));
        assert_eq!(w.force, DVec3::new(0.0, 3.0, 0.0));
    }

    #[test]
    fn power_of_point_force_equals_force_dot_point_velocity() {
        // Independent answer: a force at a point delivers f . (velocity of the point).
        let mut rng = TestRng::new(0x3e2c_0001);
        for _ in 0..1000 {
            let t = Twist::new(rng.vec3(3.0), rng.vec3(3.0));
            let f = rng.vec3(3.0);
            let r = rng.vec3(1.0);
            let p1 = Wrench::at_point(f, r).power(&t);
            let p2 = f.dot(t.point_velocity(r));
            assert!((p1 - p2).abs() < 1e-12, "{p1} vs {p2}");
        }
    }

    #[test]
    fn shift_keeps_power_invariant() {
        let mut rng = TestRng::new(0x3e2c_0002);
        for _ in 0..1000 {
            let t = Twist::new(rng.vec3(3.0), rng.vec3(3.0));
            let w = Wrench::new(rng.vec3(3.0), rng.vec3(3.0));
            let d = rng.vec3(2.0);
            let p1 = w.power(&t);
            let p2 = w.shift(d).power(&t.shift(d));
            assert!((p1 - p2).abs() < 1e-12, "{p1} vs {p2}");
        }
    }

    #[test]
    fn shift_of_point_force_is_point_force_from_new_reference() {
        let mut rng = TestRng::new(0x3e2c_0003);
        for _ in 0..100 {
            let (f, r, d) = (rng.vec3(3.0), rng.vec3(1.0), rng.vec3(1.0));
            let shifted = Wrench::at_point(f, r).shift(d);
            let direct = Wrench::at_point(f, r - d);
            assert!((shifted - direct).torque.length() < 1e-14);
        }
    }

    #[test]
    fn array_round_trip_and_arithmetic() {
        let w = Wrench::new(DVec3::new(1.0, 2.0, 3.0), DVec3::new(4.0, 5.0, 6.0));
        assert_eq!(w.to_array(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(Wrench::from_array(w.to_array()), w);
        assert_eq!((w + w).to_array(), (w * 2.0).to_array());
        assert_eq!(w - w, Wrench::ZERO);
        assert_eq!(-w + w, Wrench::ZERO);
        let mut a = w;
        a += w;
        assert_eq!(a, 2.0 * w);
    }

    #[test]
    fn is_finite_detects_nan_and_infinity() {
        assert!(Wrench::ZERO.is_finite());
        assert!(!Wrench::new(DVec3::new(f64::NAN, 0.0, 0.0), DVec3::ZERO).is_finite());
        assert!(!Wrench::new(DVec3::ZERO, DVec3::new(0.0, f64::INFINITY, 0.0)).is_finite());
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_round_trip() {
        let w = Wrench::new(DVec3::new(1.5, -2.0, 0.25), DVec3::new(0.0, 3.0, -0.5));
        let json = serde_json::to_string(&w).unwrap();
        assert_eq!(serde_json::from_str::<Wrench>(&json).unwrap(), w);
    }
}
