//! Time integration of orientation and pose over one step.
//!
//! Cline 2002 eq. 2.9 gives the quaternion rate for a world-frame angular
//! velocity, `q' = quat(w) q / 2`. For `w` constant over the step its exact
//! solution is the exponential map
//!
//! ```text
//! q(t + h) = exp(h w / 2) q(t),   exp(h w / 2) = [sin(|w| h / 2) w / |w|, cos(|w| h / 2)]
//! ```
//!
//! which is what we apply: unlike the first-order update `q + h q'` it keeps
//! `|q| = 1` up to round-off and has no angle error for a constant `w`. The
//! final normalisation only removes round-off. Near `|w| h = 0` the factor
//! `sin(x) / x` is evaluated by its Taylor series to avoid `0 / 0`.

use glam::{DQuat, DVec3};

use crate::{MathError, Pose, Twist};

/// Below this half angle (rad) `sin(x)/x` and `cos(x)` use their Taylor
/// series; the first omitted terms are below 1e-21 there.
const TAYLOR_HALF_ANGLE: f64 = 1e-2;

/// Rotates `rotation` by a constant world-frame `angular_velocity_world`
/// (rad/s) for `h` seconds: `exp(h w / 2) q` (Cline eq. 2.9, solved exactly).
///
/// `h` may be negative (integrates backwards).
///
/// # Preconditions
///
/// `rotation` is a unit quaternion. Non-finite input gives a non-finite result
/// (check with `is_finite`, or use [`try_integrate_pose`]).
#[must_use]
pub fn integrate_rotation(rotation: DQuat, angular_velocity_world: DVec3, h: f64) -> DQuat {
    let half = angular_velocity_world * (0.5 * h);
    if half == DVec3::ZERO {
        // A body at rest keeps its orientation bit for bit (no renormalising).
        return rotation;
    }
    let x = half.length();
    let (sinc, cos) = if x < TAYLOR_HALF_ANGLE {
        let x2 = x * x;
        (
            1.0 - x2 / 6.0 * (1.0 - x2 / 20.0 * (1.0 - x2 / 42.0)),
            1.0 - x2 / 2.0 * (1.0 - x2 / 12.0 * (1.0 - x2 / 30.0)),
        )
    } else {
        let (s, c) = x.sin_cos();
        (s / x, c)
    };
    let v = half * sinc;
    let step = DQuat::from_xyzw(v.x, v.y, v.z, cos);
    // World-frame w: the increment multiplies on the left.
    (step * rotation).normalize()
}

/// Advances a pose whose origin is the centre of mass by `twist` (velocity of
/// the COM and world-frame angular velocity) held constant for `h` seconds:
/// `t += h v`, rotation by [`integrate_rotation`].
///
/// # Preconditions
///
/// As [`integrate_rotation`].
#[must_use]
pub fn integrate_pose(pose: &Pose, twist: &Twist, h: f64) -> Pose {
    Pose::new(
        pose.translation + twist.linear * h,
        integrate_rotation(pose.rotation, twist.angular, h),
    )
}

/// [`integrate_pose`] with its inputs checked.
///
/// # Errors
///
/// [`MathError::NonFinite`] when the pose, the twist or `h` contains NaN or an
/// infinity.
pub fn try_integrate_pose(pose: &Pose, twist: &Twist, h: f64) -> Result<Pose, MathError> {
    if !pose.is_finite() {
        return Err(MathError::NonFinite { what: "pose" });
    }
    if !twist.is_finite() {
        return Err(MathError::NonFinite { what: "twist" });
    }
    if !h.is_finite() {
        return Err(MathError::NonFinite { what: "time step" });
    }
    Ok(integrate_pose(pose, twist, h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::TestRng;

    /// Angle of the rotation taking `a` to `b`, computed with atan2 so that it
    /// is accurate for tiny angles too.
    fn angle_between(a: DQuat, b: DQuat) -> f64 {
        let d = b * a.conjugate();
        2.0 * d.xyz().length().atan2(d.w.abs())
    }

    #[test]
    fn constant_spin_for_1000_steps_matches_closed_form() {
        let mut rng = TestRng::new(0x1e7_0001);
        for _ in 0..20 {
            let w = rng.vec3(10.0);
            let q0 = rng.rotation();
            let h = 1e-3 * rng.range(0.5, 2.0);
            let mut q = q0;
            for _ in 0..1000 {
                q = integrate_rotation(q, w, h);
            }
            // Closed form: one rotation by the total angle |w| * 1000 h.
            let exact = DQuat::from_scaled_axis(w * (1000.0 * h)) * q0;
            assert!((q.length() - 1.0).abs() < 1e-12, "norm {}", q.length());
            assert!(
                angle_between(q, exact) < 1e-9,
                "{}",
                angle_between(q, exact)
            );
        }
    }

    #[test]
    fn one_step_equals_axis_angle_rotation() {
        // Closed form: rotation by |w| h about w / |w|, applied on the left.
        let mut rng = TestRng::new(0x1e7_0002);
        for _ in 0..1000 {
            let w = rng.vec3(20.0);
            let q0 = rng.rotation();
            let h = rng.range(-0.1, 0.1);
            let q = integrate_rotation(q0, w, h);
            let exact = DQuat::from_axis_angle(w.normalize(), w.length() * h) * q0;
            assert!(angle_between(q, exact) < 1e-14);
            assert!((q.length() - 1.0).abs() < 1e-15);
        }
    }

    #[test]
    fn tiny_angle_path_is_accurate_and_continuous() {
        let axis = DVec3::new(1.0, -2.0, 0.5).normalize();
        let q0 = DQuat::from_axis_angle(DVec3::Y, 0.3);
        // Half angles 1e-12 .. 2e-2 straddle the Taylor threshold.
        for half_angle in [1e-12, 1e-8, 1e-4, 9.99e-3, 1e-2, 1.001e-2, 2e-2] {
            let w = axis * 4.0;
            let h = 2.0 * half_angle / 4.0;
            let q = integrate_rotation(q0, w, h);
            // Independent: the exact increment from sin/cos directly, which
            // is accurate here since the angle is nonzero. A few ulps of
            // round-off are allowed; a wrong series would be off by ~x^2.
            let (s, c) = half_angle.sin_cos();
            let inc = DQuat::from_xyzw(axis.x * s, axis.y * s, axis.z * s, c);
            let exact = inc * q0;
            assert!(
                (q - exact).length() < 1e-15,
                "at {half_angle}: {}",
                (q - exact).length()
            );
        }
        assert_eq!(integrate_rotation(q0, DVec3::ZERO, 0.1), q0);
    }

    #[test]
    fn derivative_matches_cline_eq_2_9() {
        // q' = quat(w) q / 2 (world-frame w), by central difference.
        let mut rng = TestRng::new(0x1e7_0003);
        for _ in 0..100 {
            let w = rng.vec3(5.0);
            let q = rng.rotation();
            let d = 1e-6;
            let fd = (integrate_rotation(q, w, d) - integrate_rotation(q, w, -d)) * (0.5 / d);
            let exact = DQuat::from_xyzw(w.x, w.y, w.z, 0.0) * q * 0.5;
            assert!((fd - exact).length() < 1e-8);
        }
    }

    #[test]
    fn integrate_pose_moves_com_linearly() {
        let pose = Pose::new(DVec3::new(1.0, 2.0, 3.0), DQuat::from_rotation_z(0.2));
        let twist = Twist::new(DVec3::new(0.5, -1.0, 2.0), DVec3::new(0.0, 0.0, 1.0));
        let next = integrate_pose(&pose, &twist, 0.1);
        assert!((next.translation - DVec3::new(1.05, 1.9, 3.2)).length() < 1e-15);
        // Spin about z: the angle about z goes from 0.2 to 0.3.
        assert!(angle_between(next.rotation, DQuat::from_rotation_z(0.3)) < 1e-15);
    }

    #[test]
    fn try_integrate_pose_rejects_non_finite() {
        let ok = try_integrate_pose(&Pose::IDENTITY, &Twist::ZERO, 0.1);
        assert_eq!(ok, Ok(Pose::IDENTITY));
        let nan_twist = Twist::new(DVec3::new(f64::NAN, 0.0, 0.0), DVec3::ZERO);
        assert_eq!(
            try_integrate_pose(&Pose::IDENTITY, &nan_twist, 0.1),
            Err(MathError::NonFinite { what: "twist" })
        );
        assert_eq!(
            try_integrate_pose(&Pose::IDENTITY, &Twist::ZERO, f64::INFINITY),
            Err(MathError::NonFinite { what: "time step" })
        );
        let bad_pose = Pose::from_translation(DVec3::splat(f64::NEG_INFINITY));
        assert_eq!(
            try_integrate_pose(&bad_pose, &Twist::ZERO, 0.1),
            Err(MathError::NonFinite { what: "pose" })
        );
    }
}
