//! A loose pile of 20 boxes settling under conservative advancement;
//! prints the step statistics and the wall-clock time per simulated second.
//!
//! `cargo run --release -p contact-sim --example pile [seconds]`

use contact_sim::scenes::{BoxPile, box_pile};
use contact_sim::{CaParams, CaStepper};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds: f64 = std::env::args().nth(1).map_or(Ok(1.0), |s| s.parse())?;
    let mut world = box_pile(&BoxPile {
        count: 20,
        columns: 2,
        ..BoxPile::default()
    })?;
    let mut stepper = CaStepper::new(CaParams::default())?;
    let clock = std::time::Instant::now();
    stepper.advance(&mut world, seconds)?;
    let wall = clock.elapsed().as_secs_f64();
    println!("{}", stepper.statistics());
    println!(
        "{} manifold events; {:.3} s of wall clock per simulated second",
        stepper.events().len(),
        wall / seconds
    );
    Ok(())
}
