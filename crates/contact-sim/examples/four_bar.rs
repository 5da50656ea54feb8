//! A planar four-bar linkage (crank 1 m, coupler 2 m, rocker 1.5 m, ground
//! 2 m) swinging under gravity on four hinges: a closed loop with redundant
//! rows. Prints the crank angle and the largest loop error as it moves.
//!
//! ```sh
//! cargo run --release -p contact-sim --example four_bar
//! ```

use contact_sim::{
    BodyId, FixedStepParams, FixedStepper, JointKind, MassProperties, Pose, RigidBody, Shape, World,
};
use glam::{DQuat, DVec3};

fn link(world: &mut World, from: DVec3, to: DVec3) -> Result<BodyId, Box<dyn std::error::Error>> {
    let d = to - from;
    let half = DVec3::new(d.length() / 2.0, 0.02, 0.02);
    Ok(world.add_body(RigidBody::dynamic(
        Shape::cuboid(half)?,
        MassProperties::solid_box(1.0, half)?,
        Pose::new(
            (from + to) / 2.0,
            DQuat::from_rotation_arc(DVec3::X, d / d.length()),
        ),
    )?))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (a, b, d) = (
        DVec3::ZERO,
        DVec3::new(0.0, 0.0, 1.0),
        DVec3::new(2.0, 0.0, 0.0),
    );
    // C is 2 m from B and 1.5 m from D.
    let x = (13.5 + (13.5_f64 * 13.5 - 20.0 * 7.390625).sqrt()) / 10.0;
    let c = DVec3::new(x, 0.0, 2.0 * x - 2.375);
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    let crank = link(&mut world, a, b)?;
    let coupler = link(&mut world, b, c)?;
    let rocker = link(&mut world, d, c)?;
    for (first, second, at) in [
        (None, crank, a),
        (Some(crank), coupler, b),
        (Some(coupler), rocker, c),
        (None, rocker, d),
    ] {
        world.add_joint_at(JointKind::Hinge, first, second, at, DVec3::Y)?;
    }
    let mut stepper = FixedStepper::new(FixedStepParams {
        h: 1e-3,
        ..FixedStepParams::default()
    })?;
    for step in 1..=3000 {
        stepper.step(&mut world)?;
        if step % 500 == 0 {
            let error = world.largest_joint_error();
            let axis = world.body(crank).pose.rotation * DVec3::X;
            println!(
                "t = {:.1} s: crank at {:+.4} rad from vertical, largest loop error {error:.1e} m",
                world.time(),
                axis.x.atan2(axis.z)
            );
        }
    }
    Ok(())
}
