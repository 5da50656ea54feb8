//! Five unit boxes (1 m, 1 kg, friction 0.5) stacked on the ground,
//! released at rest, simulated for 5 s at h = 1/240 s.
//!
//! Prints the speed (steps per wall-clock second), the largest
//! interpenetration, the top box's drift and the ground's supporting force
//! (normal impulse per step / h) against the stack's weight.
//!
//! Run: `cargo run --release -p contact-sim --example stack`

use std::time::Instant;

use contact_sim::scenes::{BoxStack, run_box_stack};
use contact_sim::{FixedStepParams, FixedStepper};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let stack = BoxStack::default();
    let params = FixedStepParams::default();
    let seconds = 5.0;
    let mut stepper = FixedStepper::new(params)?;

    let start = Instant::now();
    let run = run_box_stack(&stack, &mut stepper, seconds)?;
    let wall = start.elapsed().as_secs_f64();

    // "Settled": the last second of the run.
    let settled = &run.support_force[run.steps - (1.0 / params.h).round() as usize..];
    let mean = settled.iter().sum::<f64>() / settled.len() as f64;
    let (min, max) = settled
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &f| {
            (lo.min(f), hi.max(f))
        });

    println!(
        "box stack: {} boxes of {} m, {} kg, friction {}, h = 1/{:.0} s, {} s ({} steps)",
        stack.count,
        stack.size,
        stack.mass,
        stack.friction,
        1.0 / params.h,
        seconds,
        run.steps
    );
    println!(
        "steps per wall-clock second: {:.0}",
        run.steps as f64 / wall
    );
    println!("largest interpenetration:    {:.3e} m", run.max_penetration);
    println!("top box drift:               {:.3e} m", run.top_drift);
    println!(
        "ground support force:        {mean:.6} N (last second: min {min:.6}, max {max:.6}; weight 5 m g = {:.6} N, error {:.2e})",
        run.weight,
        (mean - run.weight).abs() / run.weight
    );
    println!(
        "LCP: at most {} pivots per step, complementarity error at most {:.1e}",
        run.max_pivots, run.max_complementarity
    );
    println!("all states finite:           {}", run.all_finite);
    Ok(())
}
