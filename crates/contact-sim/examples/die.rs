//! Drumwright's die (2016, sec. 6.1) under conservative advancement: a
//! cube thrown onto the ground with a random pose, velocity and spin,
//! stepped until it lies still on a face; prints the log of contact-manifold
//! changes and the step statistics, as the paper reports them.
//!
//! `cargo run --release -p contact-sim --example die [seed]`

use contact_sim::scenes::{ThrownDie, thrown_die};
use contact_sim::{CaParams, CaStepper, World};

fn energy(world: &World) -> f64 {
    world.kinetic_energy() + world.potential_energy()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seed = std::env::args().nth(1).map_or(Ok(1), |s| s.parse())?;
    let die = ThrownDie::random(seed);
    let mut world = thrown_die(&die)?;
    let mut stepper = CaStepper::new(CaParams::default())?;
    let start = energy(&world);
    // Still: every point of the die slower than 1 um/s for 0.05 s.
    let mut still_since = None;
    while world.time() < 10.0 {
        stepper.step(&mut world)?;
        let body = &world.bodies()[1];
        let fastest = body.twist.linear.length() + body.twist.angular.length() * die.size;
        match still_since {
            _ if fastest > 1e-6 => still_since = None,
            None => still_since = Some(world.time()),
            Some(since) if world.time() - since > 0.05 => break,
            Some(_) => {}
        }
    }
    println!(
        "die thrown with seed {seed}: {} events",
        stepper.events().len()
    );
    for event in stepper.events() {
        println!("  {event}");
    }
    println!("{}", stepper.statistics());
    println!(
        "still from t = {:.4} s; energy {start:.6} J -> {:.6} J",
        still_since.unwrap_or(f64::NAN),
        energy(&world)
    );
    Ok(())
}
