//! Guards two hinges in series against linear vibration theory: a double
//! pendulum of two rods released at rest in one of its normal modes, with a
//! small amplitude, oscillates at that mode's frequency from the
//! generalised eigenproblem `K x = w^2 M x` of its linearised Lagrangian,
//! to 1e-3 relative.

mod common;

use common::{G, block, stepper, upward_crossings};
use contact_sim::{JointKind, TimeSteppingParams, World};
use glam::{DQuat, DVec3};

const L: f64 = 1.0;
const T: f64 = 0.04;
const M: f64 = 1.0;
const H: f64 = 1e-3;

/// The linearised mass and stiffness matrices in the two rods' angles
/// from the vertical: `T = (1/2) th' M th'`, `V = (1/2) th' K th'`.
fn matrices() -> ([[f64; 2]; 2], [f64; 2]) {
    let i_centre = M * (L * L + T * T) / 12.0;
    let mass = [
        [i_centre + M * L * L / 4.0 + M * L * L, M * L * L / 2.0],
        [M * L * L / 2.0, i_centre + M * L * L / 4.0],
    ];
    let stiffness = [G * (M * L / 2.0 + M * L), G * M * L / 2.0];
    (mass, stiffness)
}

/// Both modes: `(w^2, shape)` from `det(K - w^2 M) = 0`.
fn modes() -> [(f64, [f64; 2]); 2] {
    let ([[m11, m12], [_, m22]], [k1, k2]) = matrices();
    let a = m11 * m22 - m12 * m12;
    let b = -(k1 * m22 + k2 * m11);
    let c = k1 * k2;
    let root = (b * b - 4.0 * a * c).sqrt();
    [(-b - root) / (2.0 * a), (-b + root) / (2.0 * a)].map(|lambda| {
        // First row of (K - lambda M) x = 0.
        let shape = [lambda * m12, k1 - lambda * m11];
        let scale = shape[0].abs().max(shape[1].abs());
        (lambda, [shape[0] / scale, shape[1] / scale])
    })
}

/// The frequency (rad/s) of the first rod's angle when released in `shape`.
fn measured_frequency(shape: [f64; 2], expected: f64) -> f64 {
    let amplitude = 0.01;
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    let half = DVec3::new(T / 2.0, T / 2.0, L / 2.0);
    let (r1, r2) = (
        DQuat::from_rotation_y(amplitude * shape[0]),
        DQuat::from_rotation_y(amplitude * shape[1]),
    );
    let elbow = r1 * DVec3::new(0.0, 0.0, -L);
    let upper = world.add_body(block(M, half, r1 * DVec3::new(0.0, 0.0, -L / 2.0), r1));
    let lower = world.add_body(block(
        M,
        half,
        elbow + r2 * DVec3::new(0.0, 0.0, -L / 2.0),
        r2,
    ));
    world
        .add_joint_at(JointKind::Hinge, None, upper, DVec3::ZERO, DVec3::Y)
        .unwrap();
    world
        .add_joint_at(JointKind::Hinge, Some(upper), lower, elbow, DVec3::Y)
        .unwrap();
    let mut stepper = stepper(H, TimeSteppingParams::default());
    let periods = 4.0;
    let steps = ((periods + 0.5) * std::f64::consts::TAU / expected / H) as usize;
    let mut angle = Vec::with_capacity(steps);
    for _ in 0..steps {
        stepper.step(&mut world).unwrap();
        let axis = world.body(upper).pose.rotation * DVec3::Z;
        // Angle of the upper rod from the vertical, about y.
        angle.push(axis.x.atan2(axis.z));
    }
    let crossings = upward_crossings(&angle, H);
    let n = crossings.len() - 1;
    std::f64::consts::TAU * n as f64 / (crossings[n] - crossings[0])
}

#[test]
fn normal_modes_oscillate_at_the_eigenfrequencies() {
    for (lambda, shape) in modes() {
        let expected = lambda.sqrt();
        let measured = measured_frequency(shape, expected);
        let error = (measured - expected).abs() / expected;
        println!(
            "mode {shape:?}: w = {measured:.6} rad/s, eigenvalue {expected:.6}, error {error:.1e}"
        );
        assert!(error < 1e-3, "{measured} vs {expected}");
    }
}
