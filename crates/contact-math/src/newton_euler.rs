//! The Newton-Euler equations of one free rigid body.
//!
//! Cline 2002 eq. 2.11 (Newton, `f = m a`) and eq. 2.16 (Euler,
//! `tau = I w' + w x (I w)`), both at the centre of mass in world axes, with
//! `I = R I_body R'` (eq. 2.15). Solved for the accelerations:
//!
//! ```text
//! a  = f / m
//! w' = I^-1 (tau - w x (I w))
//! ```
//!
//! The term `w x (I w)` is the gyroscopic (velocity-product) torque; Cline's
//! eq. 2.27 calls it the coriolis term and folds it into the wrench.

use glam::{DMat3, DQuat, DVec3};

use crate::{MassProperties, Twist, Wrench};

/// The gyroscopic torque `w x (I w)` of Euler's equation (Cline eq. 2.16),
/// with `world_inertia` and `angular_velocity` in the same (world) axes, N m.
#[must_use]
#[inline]
pub fn gyroscopic_torque(world_inertia: DMat3, angular_velocity: DVec3) -> DVec3 {
    angular_velocity.cross(world_inertia * angular_velocity)
}

/// Spatial acceleration `[a; w']` of a free body at its centre of mass in
/// world axes under `wrench` (about the COM, world axes): `a = f / m`,
/// `w' = I^-1 (tau - w x I w)` (Cline eq. 2.11 and 2.16).
///
/// `rotation` is the body's orientation and `angular_velocity` is world-frame.
#[must_use]
pub fn newton_euler_acceleration(
    mass_properties: &MassProperties,
    rotation: DQuat,
    angular_velocity: DVec3,
    wrench: &Wrench,
) -> Twist {
    // Solve in body axes, where the inertia is constant: it saves forming
    // R I R' and R I^-1 R' (two 3x3 products each) and is the same equation.
    let r = DMat3::from_quat(rotation);
    let w_body = r.transpose() * angular_velocity;
    let tau_body = r.transpose() * wrench.torque;
    let gyro = gyroscopic_torque(mass_properties.local_inertia(), w_body);
    let alpha_body = mass_properties.inv_local_inertia() * (tau_body - gyro);
    Twist::new(wrench.force * mass_properties.inv_mass(), r * alpha_body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integrate_rotation;
    use crate::test_rng::TestRng;

    #[test]
    fn gyroscopic_torque_known_value() {
        // I = diag(1, 2, 3), w = (1, 1, 0): I w = (1, 2, 0), w x I w = (0, 0, 1).
        let i = DMat3::from_diagonal(DVec3::new(1.0, 2.0, 3.0));
        assert_eq!(gyroscopic_torque(i, DVec3::new(1.0, 1.0, 0.0)), DVec3::Z);
    }

    #[test]
    fn gyroscopic_torque_vanishes_about_principal_axes() {
        let mp = MassProperties::solid_box(2.0, DVec3::new(0.3, 0.5, 0.9)).unwrap();
        let mut rng = TestRng::new(0x4e_0001);
        for _ in 0..100 {
            let q = rng.rotation();
            let world = mp.world_inertia(q);
            for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
                let w = q * axis * rng.range(-10.0, 10.0);
                assert!(gyroscopic_torque(world, w).length() < 1e-13);
            }
        }
    }

    #[test]
    fn world_and_body_forms_agree() {
        // The world-axes formula written out directly (Cline eq. 2.16).
        let mp = MassProperties::solid_box(3.0, DVec3::new(0.2, 0.4, 0.7)).unwrap();
        let mut rng = TestRng::new(0x4e_0002);
        for _ in 0..200 {
            let q = rng.rotation();
            let w = rng.vec3(5.0);
            let wrench = Wrench::new(rng.vec3(10.0), rng.vec3(10.0));
            let acc = newton_euler_acceleration(&mp, q, w, &wrench);
            let i = mp.world_inertia(q);
            let alpha = mp.world_inv_inertia(q) * (wrench.torque - gyroscopic_torque(i, w));
            assert!((acc.angular - alpha).length() < 1e-12);
            assert!((acc.linear - wrench.force / 3.0).length() < 1e-15);
        }
    }

    #[test]
    fn rate_of_angular_momentum_equals_torque() {
        // Independent of the formula: L = R I R' w; move q and w along the
        // computed acceleration and difference L centrally. dL/dt must be tau.
        let mp = MassProperties::solid_cylinder(1.5, 0.3, 0.8).unwrap();
        let mut rng = TestRng::new(0x4e_0003);
        for _ in 0..100 {
            let q = rng.rotation();
            let w = rng.vec3(4.0);
            let tau = rng.vec3(2.0);
            let acc = newton_euler_acceleration(&mp, q, w, &Wrench::new(DVec3::ZERO, tau));
            let d = 1e-5;
            let l_at =
                |s: f64| mp.angular_momentum(integrate_rotation(q, w, s), w + acc.angular * s);
            let dl = (l_at(d) - l_at(-d)) / (2.0 * d);
            assert!((dl - tau).length() < 1e-7, "{dl} vs {tau}");
        }
    }

    /// One RK4 step of the torque-free equations in (q, w).
    fn rk4_step(mp: &MassProperties, q: DQuat, w: DVec3, h: f64) -> (DQuat, DVec3) {
        let f = |q: DQuat, w: DVec3| {
            let qdot = DQuat::from_xyzw(w.x, w.y, w.z, 0.0) * q * 0.5; // Cline eq. 2.9
            let wdot = newton_euler_acceleration(mp, q.normalize(), w, &Wrench::ZERO).angular;
            (qdot, wdot)
        };
        let (k1q, k1w) = f(q, w);
        let (k2q, k2w) = f(q + k1q * (h / 2.0), w + k1w * (h / 2.0));
        let (k3q, k3w) = f(q + k2q * (h / 2.0), w + k2w * (h / 2.0));
        let (k4q, k4w) = f(q + k3q * h, w + k3w * h);
        let q = q + (k1q + k2q * 2.0 + k3q * 2.0 + k4q) * (h / 6.0);
        let w = w + (k1w + k2w * 2.0 + k3w * 2.0 + k4w) * (h / 6.0);
        (q.normalize(), w)
    }

    #[test]
    fn torque_free_symmetric_top_conserves_momentum_and_energy() {
        // Axis Y is the symmetry axis (I_xx = I_zz). Torque-free: the world
        // angular momentum vector and the kinetic energy are constant, and so
        // is the body-frame spin about the symmetry axis (Euler's equations).
        let mp = MassProperties::solid_cylinder(2.0, 0.4, 0.1).unwrap();
        let mut q = DQuat::from_axis_angle(DVec3::new(1.0, 0.0, 1.0).normalize(), 0.4);
        let mut w = DVec3::new(0.7, 5.0, -0.3);
        let l0 = mp.angular_momentum(q, w);
        let e0 = mp.kinetic_energy(q, &Twist::new(DVec3::ZERO, w));
        let spin0 = (q.conjugate() * w).y;
        let h = 1e-3;
        for _ in 0..2000 {
            (q, w) = rk4_step(&mp, q, w, h);
        }
        let l = mp.angular_momentum(q, w);
        let e = mp.kinetic_energy(q, &Twist::new(DVec3::ZERO, w));
        // RK4 with |w| h = 5e-3 over 2000 steps: error ~1e-12, allow 1e-9.
        assert!(((l.length() - l0.length()) / l0.length()).abs() < 1e-9);
        assert!((l - l0).length() / l0.length() < 1e-9);
        assert!(((e - e0) / e0).abs() < 1e-9);
        assert!(((q.conjugate() * w).y - spin0).abs() < 1e-9);
        // And the motion was not trivial: w itself has precessed.
        assert!((w - DVec3::new(0.7, 5.0, -0.3)).length() > 0.1);
    }
}
