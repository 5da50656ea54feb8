//! Cline's 6-link chain (2002, sec. 5.2.1): 100 mm links on ball joints,
//! pinned at one end, released horizontally, h = 1 ms, 600 steps. Prints the
//! largest joint separation under each stabilisation.
//!
//! ```sh
//! cargo run --release -p contact-sim --example chain
//! ```

use contact_sim::{
    BodyId, FixedStepParams, FixedStepper, JointKind, MassProperties, Pose, RigidBody, Shape,
    Stabilisation, StabilisationParams, TimeSteppingParams, World,
};
use glam::DVec3;

fn chain() -> Result<World, Box<dyn std::error::Error>> {
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    let half = DVec3::new(0.05, 0.005, 0.005);
    let mut previous: Option<BodyId> = None;
    for k in 0..6 {
        let centre = DVec3::new(0.1 * k as f64 + 0.05, 0.0, 0.0);
        let link = world.add_body(RigidBody::dynamic(
            Shape::cuboid(half)?,
            MassProperties::solid_box(0.1, half)?,
            Pose::from_translation(centre),
        )?);
        let anchor = DVec3::new(0.1 * k as f64, 0.0, 0.0);
        world.add_joint_at(JointKind::Ball, previous, link, anchor, DVec3::Z)?;
        previous = Some(link);
    }
    Ok(world)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for (name, joints) in [
        ("none", Stabilisation::None),
        ("Baumgarte 50", Stabilisation::Baumgarte { alpha: 50.0 }),
        ("Baumgarte 200", Stabilisation::Baumgarte { alpha: 200.0 }),
        ("post-stabilisation", Stabilisation::Post),
    ] {
        let mut world = chain()?;
        let mut stepper = FixedStepper::new(FixedStepParams {
            h: 1e-3,
            dynamics: TimeSteppingParams {
                stabilisation: StabilisationParams {
                    joints,
                    ..StabilisationParams::default()
                },
                ..TimeSteppingParams::default()
            },
            ..FixedStepParams::default()
        })?;
        let mut largest = 0.0_f64;
        for _ in 0..600 {
            stepper.step(&mut world)?;
            largest = largest.max(world.largest_joint_error());
        }
        println!(
            "{name:>20}: largest joint separation {:.6} mm",
            1e3 * largest
        );
    }
    Ok(())
}
