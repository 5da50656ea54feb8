//! The myPhysicsLab blocks in the x-z plane: a stack, a block leaning on it
//! and one leaning on the wall. Prints where they come to rest and the
//! contact forces at their corners.
//!
//! ```sh
//! cargo run --release -p contact-sim --example planar_blocks
//! ```

use contact_sim::scenes::{PlanarBlocks, planar_blocks};
use contact_sim::{FixedStepParams, FixedStepper};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = planar_blocks(&PlanarBlocks::default())?;
    let mut stepper = FixedStepper::new(FixedStepParams::default())?;
    for _ in 0..(3.0 / stepper.params().h) as usize {
        stepper.step(&mut world)?;
    }
    println!("after {:.1} s:", world.time());
    for (i, body) in world
        .bodies()
        .iter()
        .enumerate()
        .filter(|(_, b)| b.is_dynamic())
    {
        let p = body.pose.translation;
        println!(
            "  block {i}: centre ({:+.4}, {:+.4}) m, speed {:.1e} m/s",
            p.x,
            p.z,
            body.twist.linear.length()
        );
    }
    println!("contact forces (on the second body of each pair):");
    for (contact, force) in stepper.contact_forces() {
        let p = contact.point;
        println!(
            "  {} on {} at ({:+.3}, {:+.3}): ({:+8.3}, {:+8.3}) N",
            contact.body_a, contact.body_b, p.x, p.z, force.x, force.z
        );
    }
    Ok(())
}
