//! Rigid transforms: a translation and a unit quaternion.
//!
//! A `Pose` maps body coordinates to world coordinates, `x_world = R x_body + t`
//! (Cline 2002, sec. 2.1: position plus a unit quaternion, sec. 2.1.3). For a
//! simulated body the origin of the body frame is its centre of mass, so
//! `translation` is the world position of the COM.

use glam::{DQuat, DVec3};

use crate::MathError;

/// How far from 1 the norm of a quaternion given to [`Pose::try_new`] may be.
///
/// Loose on purpose: scene files hold rotations typed with a few digits
/// (`0.7071`); anything within this is renormalised, anything further is an error.
pub const UNIT_QUATERNION_TOLERANCE: f64 = 1e-3;

/// A rigid transform from a body frame to a parent (usually world) frame.
///
/// `rotation` must be a unit quaternion; the methods assume it and do not check
/// (use [`Pose::try_new`] to validate untrusted input).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "RawPose"))]
pub struct Pose {
    /// Origin of the body frame in the parent frame, m.
    pub translation: DVec3,
    /// Orientation of the body frame in the parent frame (unit quaternion).
    pub rotation: DQuat,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    /// The identity transform.
    pub const IDENTITY: Pose = Pose {
        translation: DVec3::ZERO,
        rotation: DQuat::IDENTITY,
    };

    /// A pose from its parts, unchecked.
    ///
    /// # Preconditions
    ///
    /// `rotation` is a unit quaternion and both parts are finite.
    #[must_use]
    #[inline]
    pub const fn new(translation: DVec3, rotation: DQuat) -> Pose {
        Pose {
            translation,
            rotation,
        }
    }

    /// A pose from untrusted parts: checks finiteness and that `|rotation|` is
    /// within [`UNIT_QUATERNION_TOLERANCE`] of 1, then renormalises.
    ///
    /// A quaternion already unit to round-off (within 1e-12) is kept bit for
    /// bit, so a serialise/deserialise round trip does not change the state.
    ///
    /// # Errors
    ///
    /// [`MathError::NonFinite`] for NaN or infinite parts,
    /// [`MathError::NotUnitQuaternion`] for a rotation too far from unit length.
    pub fn try_new(translation: DVec3, rotation: DQuat) -> Result<Pose, MathError> {
        if !translation.is_finite() {
            return Err(MathError::NonFinite {
                what: "pose translation",
            });
        }
        if !rotation.is_finite() {
            return Err(MathError::NonFinite {
                what: "pose rotation",
            });
        }
        let norm = rotation.length();
        if (norm - 1.0).abs() > UNIT_QUATERNION_TOLERANCE {
            return Err(MathError::NotUnitQuaternion { norm });
        }
        let rotation = if (norm - 1.0).abs() <= 1e-12 {
            rotation
        } else {
            rotation / norm
        };
        Ok(Pose::new(translation, rotation))
    }

    /// A pure translation.
    #[must_use]
    #[inline]
    pub const fn from_translation(t: DVec3) -> Pose {
        Pose::new(t, DQuat::IDENTITY)
    }

    /// A pure rotation about the origin.
    #[must_use]
    #[inline]
    pub const fn from_rotation(r: DQuat) -> Pose {
        Pose::new(DVec3::ZERO, r)
    }

    /// `self * other`: apply `other` first, then `self`.
    ///
    /// If `other` maps C to B and `self` maps B to A, the result maps C to A.
    #[must_use]
    #[inline]
    pub fn compose(&self, other: &Pose) -> Pose {
        Pose::new(
            self.translation + self.rotation * other.translation,
            self.rotation * other.rotation,
        )
    }

    /// The inverse transform: `p.compose(&p.inverse())` is the identity.
    #[must_use]
    #[inline]
    pub fn inverse(&self) -> Pose {
        // The conjugate is the inverse of a unit quaternion (no division).
        let r = self.rotation.conjugate();
        Pose::new(-(r * self.translation), r)
    }

    /// Maps a point from body to parent coordinates: `R p + t`.
    #[must_use]
    #[inline]
    pub fn transform_point(&self, p: DVec3) -> DVec3 {
        self.rotation * p + self.translation
    }

    /// Maps a direction from body to parent coordinates: `R v`.
    #[must_use]
    #[inline]
    pub fn transform_vector(&self, v: DVec3) -> DVec3 {
        self.rotation * v
    }

    /// Maps a point from parent to body coordinates: `R' (p - t)`.
    #[must_use]
    #[inline]
    pub fn inverse_transform_point(&self, p: DVec3) -> DVec3 {
        self.rotation.conjugate() * (p - self.translation)
    }

    /// Maps a direction from parent to body coordinates: `R' v`.
    #[must_use]
    #[inline]
    pub fn inverse_transform_vector(&self, v: DVec3) -> DVec3 {
        self.rotation.conjugate() * v
    }

    /// Interpolates from `self` (`s = 0`) to `other` (`s = 1`): linear in
    /// translation, spherical-linear in rotation along the shortest arc
    /// (Shoemake 1985, cited by Cline as `[Sho85]`).
    #[must_use]
    pub fn interpolate(&self, other: &Pose, s: f64) -> Pose {
        // glam's slerp flips `other` when the dot product is negative, which
        // is what picks the shortest arc.
        Pose::new(
            self.translation.lerp(other.translation, s),
            self.rotation.slerp(other.rotation, s),
        )
    }

    /// True when every component is finite (no NaN, no infinity).
    #[must_use]
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite()
    }
}

impl core::ops::Mul for Pose {
    type Output = Pose;

    /// Same as [`Pose::compose`].
    #[inline]
    fn mul(self, rhs: Pose) -> Pose {
        self.compose(&rhs)
    }
}

/// The unvalidated wire form of a [`Pose`]; deserialisation goes through
/// [`Pose::try_new`] so that bad data is a typed error.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct RawPose {
    translation: DVec3,
    rotation: DQuat,
}

#[cfg(feature = "serde")]
impl TryFrom<RawPose> for Pose {
    type Error = MathError;

    fn try_from(raw: RawPose) -> Result<Self, Self::Error> {
        Pose::try_new(raw.translation, raw.rotation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::TestRng;
    use core::f64::consts::FRAC_PI_2;

    fn random_pose(rng: &mut TestRng) -> Pose {
        Pose::new(rng.vec3(10.0), rng.rotation())
    }

    /// Translation error plus rotation error (the quaternion sign is free).
    fn pose_distance(a: &Pose, b: &Pose) -> f64 {
        let dq = (a.rotation - b.rotation)
            .length()
            .min((a.rotation + b.rotation).length());
        (a.translation - b.translation).length() + dq
    }

    #[test]
    fn pose_times_inverse_is_identity() {
        let mut rng = TestRng::new(0x9053_0001);
        for _ in 0..1000 {
            let p = random_pose(&mut rng);
            // Translations up to 10 m: round-off of a few ulps of 10.
            assert!(pose_distance(&(p * p.inverse()), &Pose::IDENTITY) < 1e-13);
            assert!(pose_distance(&(p.inverse() * p), &Pose::IDENTITY) < 1e-13);
        }
    }

    #[test]
    fn composition_is_associative() {
        let mut rng = TestRng::new(0x9053_0002);
        for _ in 0..1000 {
            let (a, b, c) = (
                random_pose(&mut rng),
                random_pose(&mut rng),
                random_pose(&mut rng),
            );
            assert!(pose_distance(&((a * b) * c), &(a * (b * c))) < 1e-13);
        }
    }

    #[test]
    fn transform_of_composition_is_composition_of_transforms() {
        let mut rng = TestRng::new(0x9053_0003);
        for _ in 0..1000 {
            let (a, b) = (random_pose(&mut rng), random_pose(&mut rng));
            let x = rng.vec3(10.0);
            let lhs = (a * b).transform_point(x);
            let rhs = a.transform_point(b.transform_point(x));
            assert!((lhs - rhs).length() < 1e-13);
            let lhs = (a * b).transform_vector(x);
            let rhs = a.transform_vector(b.transform_vector(x));
            assert!((lhs - rhs).length() < 1e-13);
        }
    }

    #[test]
    fn inverse_transforms_undo_transforms() {
        let mut rng = TestRng::new(0x9053_0004);
        for _ in 0..1000 {
            let p = random_pose(&mut rng);
            let x = rng.vec3(10.0);
            assert!((p.inverse_transform_point(p.transform_point(x)) - x).length() < 1e-13);
            assert!((p.inverse_transform_vector(p.transform_vector(x)) - x).length() < 1e-13);
            // And they agree with transforming by the inverse pose.
            let via_inverse = p.inverse().transform_point(x);
            assert!((p.inverse_transform_point(x) - via_inverse).length() < 1e-13);
        }
    }

    #[test]
    fn transform_point_matches_matrix_form() {
        // Independent answer: the rotation matrix of the quaternion (glam's
        // DMat3::from_quat, Cline eq. 2.6) times p plus t.
        let mut rng = TestRng::new(0x9053_0005);
        for _ in 0..100 {
            let p = random_pose(&mut rng);
            let x = rng.vec3(3.0);
            let m = glam::DMat3::from_quat(p.rotation);
            assert!((p.transform_point(x) - (m * x + p.translation)).length() < 1e-13);
        }
    }

    #[test]
    fn interpolate_endpoints_and_midpoint() {
        let a = Pose::new(DVec3::new(1.0, 2.0, 3.0), DQuat::IDENTITY);
        let b = Pose::new(
            DVec3::new(3.0, 2.0, -1.0),
            DQuat::from_axis_angle(DVec3::Z, FRAC_PI_2),
        );
        assert!(pose_distance(&a.interpolate(&b, 0.0), &a) < 1e-15);
        assert!(pose_distance(&a.interpolate(&b, 1.0), &b) < 1e-15);
        // Closed form: halfway is half the angle about the same axis.
        let mid = a.interpolate(&b, 0.5);
        let expected = Pose::new(
            DVec3::new(2.0, 2.0, 1.0),
            DQuat::from_axis_angle(DVec3::Z, FRAC_PI_2 / 2.0),
        );
        assert!(pose_distance(&mid, &expected) < 1e-15);
    }

    #[test]
    fn interpolate_takes_the_shortest_arc() {
        // -q is the same rotation as q; interpolating towards -R_z(90 deg)
        // must still pass through R_z(45 deg), not R_z(-135 deg).
        let a = Pose::IDENTITY;
        let b = Pose::from_rotation(-DQuat::from_axis_angle(DVec3::Z, FRAC_PI_2));
        let mid = a.interpolate(&b, 0.5);
        let x = mid.transform_vector(DVec3::X);
        // R_z(45 deg) x = (cos 45, sin 45, 0).
        let s = core::f64::consts::FRAC_1_SQRT_2;
        assert!((x - DVec3::new(s, s, 0.0)).length() < 1e-15, "{x}");
    }

    #[test]
    fn try_new_validates() {
        assert_eq!(
            Pose::try_new(DVec3::new(f64::NAN, 0.0, 0.0), DQuat::IDENTITY),
            Err(MathError::NonFinite {
                what: "pose translation"
            })
        );
        assert_eq!(
            Pose::try_new(DVec3::ZERO, DQuat::from_xyzw(0.0, 0.0, 0.0, f64::INFINITY)),
            Err(MathError::NonFinite {
                what: "pose rotation"
            })
        );
        assert_eq!(
            Pose::try_new(DVec3::ZERO, DQuat::from_xyzw(0.0, 0.0, 0.0, 2.0)),
            Err(MathError::NotUnitQuaternion { norm: 2.0 })
        );
        // Typed with four digits (|q| = 1.00008): accepted and renormalised.
        let p = Pose::try_new(DVec3::ZERO, DQuat::from_xyzw(0.0, 0.6, 0.0, 0.8001)).unwrap();
        assert!((p.rotation.length() - 1.0).abs() < 1e-15);
        // Already unit: kept bit for bit.
        let q = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.3);
        assert_eq!(Pose::try_new(DVec3::ONE, q).unwrap().rotation, q);
    }

    #[test]
    fn is_finite_detects_nan_and_infinity() {
        assert!(Pose::IDENTITY.is_finite());
        assert!(!Pose::from_translation(DVec3::new(0.0, f64::NAN, 0.0)).is_finite());
        assert!(!Pose::from_rotation(DQuat::from_xyzw(f64::INFINITY, 0.0, 0.0, 1.0)).is_finite());
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_round_trip_and_validation() {
        let p = Pose::new(
            DVec3::new(1.5, -2.0, 0.25),
            DQuat::from_axis_angle(DVec3::Y, 0.5),
        );
        let json = serde_json::to_string(&p).unwrap();
        let back: Pose = serde_json::from_str(&json).unwrap();
        assert!(pose_distance(&p, &back) < 1e-15);
        let bad = r#"{"translation":[0,0,0],"rotation":[0,0,0,3]}"#;
        let err = serde_json::from_str::<Pose>(bad).unwrap_err();
        assert!(err.to_string().contains("not unit"), "{err}");
    }
}
