//! Guards the hinge joint against the closed form of a physical pendulum:
//! a rod hinged at one end swings with the period
//! `T = 4 sqrt(I / (m g d)) K(sin(theta0 / 2))` (I about the pivot, d the
//! pivot-to-centre distance, K the complete elliptic integral of the first
//! kind), to 1e-3 relative at h = 1e-3, from 10 and 90 degrees.

mod common;

use common::{G, block, elliptic_k, stepper, upward_crossings};
use contact_sim::{JointKind, TimeSteppingParams, World};
use glam::{DQuat, DVec3};

const LENGTH: f64 = 1.0;
const THICK: f64 = 0.05;
const MASS: f64 = 2.0;
const H: f64 = 1e-3;

/// Period (s) and relative energy drift over two periods of a rod released
/// at rest `theta0` from the vertical.
fn swing(theta0: f64) -> (f64, f64) {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    // Hanging down from the pivot at the origin, turned by theta0 about y.
    let rotation = DQuat::from_rotation_y(theta0);
    let centre = rotation * DVec3::new(0.0, 0.0, -LENGTH / 2.0);
    let half = DVec3::new(THICK / 2.0, THICK / 2.0, LENGTH / 2.0);
    let rod = world.add_body(block(MASS, half, centre, rotation));
    world
        .add_joint_at(JointKind::Hinge, None, rod, DVec3::ZERO, DVec3::Y)
        .unwrap();
    let mut stepper = stepper(H, TimeSteppingParams::default());
    let energy = |world: &World| world.kinetic_energy() + world.potential_energy();
    let start = energy(&world);
    let mut swing_x = Vec::new();
    let mut drift: f64 = 0.0;
    let i_pivot = MASS * (LENGTH * LENGTH + THICK * THICK) / 12.0 + MASS * LENGTH * LENGTH / 4.0;
    let predicted = predicted_period(theta0, i_pivot);
    let steps = (2.2 * predicted / H) as usize;
    for _ in 0..steps {
        stepper.step(&mut world).unwrap();
        // The rod's centre swings through x = 0 at the bottom.
        swing_x.push(world.body(rod).pose.translation.x);
        drift = drift.max((energy(&world) - start).abs());
    }
    let crossings = upward_crossings(&swing_x, H);
    assert!(crossings.len() >= 2, "{crossings:?}");
    let period = crossings[1] - crossings[0];
    (period, drift / (MASS * G * LENGTH / 2.0))
}

fn predicted_period(theta0: f64, i_pivot: f64) -> f64 {
    4.0 * (i_pivot / (MASS * G * LENGTH / 2.0)).sqrt() * elliptic_k((theta0 / 2.0).sin())
}

#[test]
fn rod_on_a_hinge_swings_with_the_elliptic_period() {
    let i_pivot = MASS * (LENGTH * LENGTH + THICK * THICK) / 12.0 + MASS * LENGTH * LENGTH / 4.0;
    for degrees in [10.0_f64, 90.0] {
        let theta0 = degrees.to_radians();
        let (period, drift) = swing(theta0);
        let expected = predicted_period(theta0, i_pivot);
        let error = (period - expected).abs() / expected;
        println!(
            "theta0 {degrees} deg: period {period:.6} s, closed form {expected:.6} s, \
             relative error {error:.2e}, energy drift {drift:.2e} of m g d"
        );
        assert!(error < 1e-3, "theta0 {degrees}: {period} vs {expected}");
    }
}
