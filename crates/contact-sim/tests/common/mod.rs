//! Shared builders and closed forms of the mechanism tests.
#![allow(dead_code)]

use contact_sim::{
    FixedStepParams, FixedStepper, MassProperties, Pose, RigidBody, Shape, TimeSteppingParams,
};
use glam::{DQuat, DVec3};

pub const G: f64 = 9.81;

/// A box body of `mass` with half extents `half`, centred at `at`, rotated by `rotation`.
pub fn block(mass: f64, half: DVec3, at: DVec3, rotation: DQuat) -> RigidBody {
    RigidBody::dynamic(
        Shape::cuboid(half).unwrap(),
        MassProperties::solid_box(mass, half).unwrap(),
        Pose::new(at, rotation),
    )
    .unwrap()
}

/// The complete elliptic integral of the first kind `K(k)` by the
/// arithmetic-geometric mean: `K = pi / (2 AGM(1, sqrt(1 - k^2)))`.
pub fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0_f64, (1.0 - k * k).sqrt());
    // Quadratic convergence: 8 rounds reach round-off for k <= 0.99.
    for _ in 0..8 {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    std::f64::consts::PI / (2.0 * a)
}

/// A stepper with step `h` and the given dynamics settings.
pub fn stepper(h: f64, dynamics: TimeSteppingParams) -> FixedStepper {
    FixedStepper::new(FixedStepParams {
        h,
        dynamics,
        ..FixedStepParams::default()
    })
    .unwrap()
}

/// Times at which `signal` crosses zero upwards, linearly interpolated
/// between samples taken every `h`.
pub fn upward_crossings(signal: &[f64], h: f64) -> Vec<f64> {
    signal
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] < 0.0 && w[1] >= 0.0)
        .map(|(i, w)| h * (i as f64 + w[0] / (w[0] - w[1])))
        .collect()
}
