//! A rod on a hinge released at 90 degrees: prints its period against the
//! closed form `4 sqrt(I / (m g d)) K(sin(theta0 / 2))` and its energy drift.
//!
//! ```sh
//! cargo run --release -p contact-sim --example pendulum
//! ```

use contact_sim::{
    FixedStepParams, FixedStepper, JointKind, MassProperties, Pose, RigidBody, Shape, World,
};
use glam::{DQuat, DVec3};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mass, length, g, h) = (1.0, 1.0, 9.81, 1e-3);
    let theta0 = std::f64::consts::FRAC_PI_2;
    let mut world = World::new(DVec3::new(0.0, 0.0, -g));
    let rotation = DQuat::from_rotation_y(theta0);
    let half = DVec3::new(0.02, 0.02, length / 2.0);
    let rod = world.add_body(RigidBody::dynamic(
        Shape::cuboid(half)?,
        MassProperties::solid_box(mass, half)?,
        Pose::new(rotation * DVec3::new(0.0, 0.0, -length / 2.0), rotation),
    )?);
    // A hinge at the origin turning about y: the rod swings in the x-z plane.
    world.add_joint_at(JointKind::Hinge, None, rod, DVec3::ZERO, DVec3::Y)?;
    let mut stepper = FixedStepper::new(FixedStepParams {
        h,
        ..FixedStepParams::default()
    })?;

    let energy = |w: &World| w.kinetic_energy() + w.potential_energy();
    let start = energy(&world);
    let (mut crossings, mut last_x, mut drift) = (Vec::new(), f64::NAN, 0.0_f64);
    while crossings.len() < 3 {
        stepper.step(&mut world)?;
        let x = world.body(rod).pose.translation.x;
        if last_x < 0.0 && x >= 0.0 {
            crossings.push(world.time() - h * x / (x - last_x));
        }
        last_x = x;
        drift = drift.max((energy(&world) - start).abs());
    }
    let period = (crossings[2] - crossings[0]) / 2.0;
    let inertia = mass * (length * length + 0.04 * 0.04) / 12.0 + mass * length * length / 4.0;
    let k = {
        let (mut a, mut b) = (1.0_f64, (1.0 - (theta0 / 2.0).sin().powi(2)).sqrt());
        for _ in 0..8 {
            (a, b) = (0.5 * (a + b), (a * b).sqrt());
        }
        std::f64::consts::PI / (2.0 * a)
    };
    let expected = 4.0 * (inertia / (mass * g * length / 2.0)).sqrt() * k;
    println!(
        "period {period:.6} s, closed form {expected:.6} s (relative error {:.1e})",
        (period - expected).abs() / expected
    );
    println!(
        "largest energy drift {drift:.2e} J of m g d = {:.3} J",
        mass * g * length / 2.0
    );
    Ok(())
}
