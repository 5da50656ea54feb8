//! The adjoint transformation of twists and wrenches between frames.
//!
//! Cline 2002 sec. 2.4.3, eq. 2.22-2.26. Frame B has rotation `R` and origin
//! `p` in frame A. A twist `[v_B; w_B]` (velocity of the body point at B's
//! origin, in B's axes) becomes, at A's origin in A's axes,
//!
//! ```text
//! w_A = R w_B
//! v_A = R v_B + p x (R w_B)        i.e.  Ad = | R  [p]R |
//!                                             | 0   R   |
//! ```
//!
//! This is Cline's eq. 2.23 with the blocks reordered for our linear-first
//! `[v; w]` (Cline writes `[w; v]`). A wrench `[f_B; tau_B]` maps with the
//! transpose-inverse, `Ad^{-T} = [[R, 0], [[p]R, R]]`, i.e.
//! `f_A = R f_B`, `tau_A = R tau_B + p x f_A` (Cline eq. 2.26 read from B to A),
//! which is exactly what keeps the power `f . v + tau . w` frame-invariant.

use glam::{DMat3, DVec3};

use crate::{Pose, Twist, Wrench, skew};

/// The 6x6 adjoint of the frame change from B to A (Cline sec. 2.4.3), kept as
/// its rotation `R` and translation `p` (B's axes and origin in A).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adjoint {
    rotation: DMat3,
    translation: DVec3,
}

impl Adjoint {
    /// The adjoint of the identity frame change.
    pub const IDENTITY: Adjoint = Adjoint {
        rotation: DMat3::IDENTITY,
        translation: DVec3::ZERO,
    };

    /// The adjoint of `pose`, read as "frame B (the pose's body frame) in
    /// frame A (its parent)".
    #[must_use]
    #[inline]
    pub fn from_pose(pose: &Pose) -> Adjoint {
        Adjoint {
            rotation: DMat3::from_quat(pose.rotation),
            translation: pose.translation,
        }
    }

    /// The rotation `R` of B's axes in A.
    #[must_use]
    #[inline]
    pub fn rotation(&self) -> DMat3 {
        self.rotation
    }

    /// The origin `p` of B in A.
    #[must_use]
    #[inline]
    pub fn translation(&self) -> DVec3 {
        self.translation
    }

    /// Maps a twist given at B's origin in B's axes to the same motion at
    /// A's origin in A's axes (Cline eq. 2.24).
    #[must_use]
    #[inline]
    pub fn transform_twist(&self, t: &Twist) -> Twist {
        let w = self.rotation * t.angular;
        let v = self.rotation * t.linear + self.translation.cross(w);
        Twist::new(v, w)
    }

    /// Maps a wrench given about B's origin in B's axes to the same wrench
    /// about A's origin in A's axes (Cline eq. 2.26), so that
    /// `transform_wrench(w).power(&transform_twist(t)) == w.power(&t)`.
    #[must_use]
    #[inline]
    pub fn transform_wrench(&self, w: &Wrench) -> Wrench {
        let f = self.rotation * w.force;
        let tau = self.rotation * w.torque + self.translation.cross(f);
        Wrench::new(f, tau)
    }

    /// The adjoint of the inverse frame change, from A to B (Cline eq. 2.25):
    /// rotation `R'`, translation `-R' p`.
    #[must_use]
    #[inline]
    pub fn inverse(&self) -> Adjoint {
        let rt = self.rotation.transpose();
        Adjoint {
            rotation: rt,
            translation: -(rt * self.translation),
        }
    }

    /// `self * other`: if `other` maps C to B and `self` maps B to A, the result
    /// maps C to A. Equals the adjoint of the composed poses.
    #[must_use]
    #[inline]
    pub fn compose(&self, other: &Adjoint) -> Adjoint {
        Adjoint {
            rotation: self.rotation * other.rotation,
            translation: self.translation + self.rotation * other.translation,
        }
    }

    /// The explicit 6x6 matrix for twists, row-major `m[row][col]`,
    /// linear-first ordering: `[[R, [p]R], [0, R]]`.
    #[must_use]
    pub fn to_matrix(&self) -> [[f64; 6]; 6] {
        let r = self.rotation;
        let pr = skew(self.translation) * r;
        blocks(r, pr, DMat3::ZERO, r)
    }

    /// The explicit 6x6 matrix for wrenches (the transpose of the inverse of
    /// [`Adjoint::to_matrix`]), row-major, linear-first: `[[R, 0], [[p]R, R]]`.
    #[must_use]
    pub fn to_wrench_matrix(&self) -> [[f64; 6]; 6] {
        let r = self.rotation;
        let pr = skew(self.translation) * r;
        blocks(r, DMat3::ZERO, pr, r)
    }
}

impl core::ops::Mul for Adjoint {
    type Output = Adjoint;

    /// Same as [`Adjoint::compose`].
    #[inline]
    fn mul(self, rhs: Adjoint) -> Adjoint {
        self.compose(&rhs)
    }
}

/// Assembles `[[a, b], [c, d]]` as a row-major 6x6 array.
fn blocks(a: DMat3, b: DMat3, c: DMat3, d: DMat3) -> [[f64; 6]; 6] {
    let mut m = [[0.0; 6]; 6];
    for (block, r0, c0) in [(a, 0, 0), (b, 0, 3), (c, 3, 0), (d, 3, 3)] {
        for i in 0..3 {
            let row = block.row(i);
            m[r0 + i][c0..c0 + 3].copy_from_slice(&row.to_array());
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::TestRng;

    fn random_pose(rng: &mut TestRng) -> Pose {
        Pose::new(rng.vec3(5.0), rng.rotation())
    }

    fn matvec(m: &[[f64; 6]; 6], x: [f64; 6]) -> [f64; 6] {
        core::array::from_fn(|i| (0..6).map(|j| m[i][j] * x[j]).sum())
    }

    fn matmul(a: &[[f64; 6]; 6], b: &[[f64; 6]; 6]) -> [[f64; 6]; 6] {
        core::array::from_fn(|i| core::array::from_fn(|j| (0..6).map(|k| a[i][k] * b[k][j]).sum()))
    }

    fn max_diff(a: &[[f64; 6]; 6], b: &[[f64; 6]; 6]) -> f64 {
        (0..36)
            .map(|k| (a[k / 6][k % 6] - b[k / 6][k % 6]).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn power_is_invariant_across_frames() {
        let mut rng = TestRng::new(0xad_0001);
        for _ in 0..1000 {
            let ad = Adjoint::from_pose(&random_pose(&mut rng));
            let t = Twist::new(rng.vec3(3.0), rng.vec3(3.0));
            let w = Wrench::new(rng.vec3(3.0), rng.vec3(3.0));
            let p_b = w.power(&t);
            let p_a = ad.transform_wrench(&w).power(&ad.transform_twist(&t));
            // Terms up to ~5*3*3: round-off well below 1e-11.
            assert!((p_a - p_b).abs() < 1e-11, "{p_a} vs {p_b}");
        }
    }

    #[test]
    fn transformed_twist_gives_the_same_point_velocities() {
        // Independent answer: any body point x has velocity v_B + w_B x x_B in
        // B's axes; in A it is R times that, and the A-twist must reproduce it
        // at x_A = R x_B + p (Cline eq. 2.18).
        let mut rng = TestRng::new(0xad_0002);
        for _ in 0..1000 {
            let pose = random_pose(&mut rng);
            let ad = Adjoint::from_pose(&pose);
            let t_b = Twist::new(rng.vec3(3.0), rng.vec3(3.0));
            let x_b = rng.vec3(2.0);
            let t_a = ad.transform_twist(&t_b);
            let expected = pose.transform_vector(t_b.point_velocity(x_b));
            let got = t_a.point_velocity(pose.transform_point(x_b));
            assert!((got - expected).length() < 1e-12);
        }
    }

    #[test]
    fn adjoint_of_composition_is_product_of_adjoints() {
        let mut rng = TestRng::new(0xad_0003);
        for _ in 0..200 {
            let (a, b) = (random_pose(&mut rng), random_pose(&mut rng));
            let lhs = Adjoint::from_pose(&(a * b)).to_matrix();
            let rhs = matmul(
                &Adjoint::from_pose(&a).to_matrix(),
                &Adjoint::from_pose(&b).to_matrix(),
            );
            assert!(max_diff(&lhs, &rhs) < 1e-12);
            let via_compose = (Adjoint::from_pose(&a) * Adjoint::from_pose(&b)).to_matrix();
            assert!(max_diff(&lhs, &via_compose) < 1e-12);
        }
    }

    #[test]
    fn matrices_agree_with_transforms() {
        let mut rng = TestRng::new(0xad_0004);
        for _ in 0..200 {
            let ad = Adjoint::from_pose(&random_pose(&mut rng));
            let t = Twist::new(rng.vec3(3.0), rng.vec3(3.0));
            let w = Wrench::new(rng.vec3(3.0), rng.vec3(3.0));
            let mt = matvec(&ad.to_matrix(), t.to_array());
            let tt = ad.transform_twist(&t).to_array();
            let mw = matvec(&ad.to_wrench_matrix(), w.to_array());
            let tw = ad.transform_wrench(&w).to_array();
            for i in 0..6 {
                assert!((mt[i] - tt[i]).abs() < 1e-12);
                assert!((mw[i] - tw[i]).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn wrench_matrix_is_inverse_transpose() {
        let mut rng = TestRng::new(0xad_0005);
        for _ in 0..100 {
            let ad = Adjoint::from_pose(&random_pose(&mut rng));
            let inv = ad.inverse().to_matrix();
            let inv_t: [[f64; 6]; 6] =
                core::array::from_fn(|i| core::array::from_fn(|j| inv[j][i]));
            assert!(max_diff(&inv_t, &ad.to_wrench_matrix()) < 1e-12);
            // And the inverse really is one: Ad * Ad^-1 = I.
            let prod = matmul(&ad.to_matrix(), &inv);
            let eye: [[f64; 6]; 6] =
                core::array::from_fn(|i| core::array::from_fn(|j| f64::from(u8::from(i == j))));
            assert!(max_diff(&prod, &eye) < 1e-12);
        }
    }

    #[test]
    fn inverse_undoes_transform() {
        let mut rng = TestRng::new(0xad_0006);
        for _ in 0..200 {
            let ad = Adjoint::from_pose(&random_pose(&mut rng));
            let t = Twist::new(rng.vec3(3.0), rng.vec3(3.0));
            let w = Wrench::new(rng.vec3(3.0), rng.vec3(3.0));
            let t2 = ad.inverse().transform_twist(&ad.transform_twist(&t));
            let w2 = ad.inverse().transform_wrench(&ad.transform_wrench(&w));
            assert!((t2 - t).linear.length() + (t2 - t).angular.length() < 1e-12);
            assert!((w2 - w).force.length() + (w2 - w).torque.length() < 1e-12);
        }
    }

    #[test]
    fn pure_translation_is_a_reference_point_shift() {
        // B's origin at p in A, same axes: moving the reference from B's
        // origin to A's is a shift by -p.
        let mut rng = TestRng::new(0xad_0007);
        for _ in 0..100 {
            let p = rng.vec3(3.0);
            let ad = Adjoint::from_pose(&Pose::from_translation(p));
            let t = Twist::new(rng.vec3(3.0), rng.vec3(3.0));
            let w = Wrench::new(rng.vec3(3.0), rng.vec3(3.0));
            assert!((ad.transform_twist(&t) - t.shift(-p)).linear.length() < 1e-13);
            assert!((ad.transform_wrench(&w) - w.shift(-p)).torque.length() < 1e-13);
        }
    }

    #[test]
    fn known_matrix_for_a_translation() {
        // p = (1, 2, 3), R = I: the upper-right block is [p] (Cline eq. 2.7).
        let ad = Adjoint::from_pose(&Pose::from_translation(DVec3::new(1.0, 2.0, 3.0)));
        let m = ad.to_matrix();
        assert_eq!(m[0][3..6], [0.0, -3.0, 2.0]);
        assert_eq!(m[1][3..6], [3.0, 0.0, -1.0]);
        assert_eq!(m[2][3..6], [-2.0, 1.0, 0.0]);
        assert_eq!(m[3][0..3], [0.0, 0.0, 0.0]);
        assert_eq!(
            Adjoint::IDENTITY.to_matrix(),
            Adjoint::from_pose(&Pose::IDENTITY).to_matrix()
        );
    }
}
