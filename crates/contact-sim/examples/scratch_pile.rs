use contact_sim::scenes::{BoxPile, box_pile};
use contact_sim::{FixedStepParams, FixedStepper, Formulation, TimeSteppingParams};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: usize = args.get(1).map_or(1000, |s| s.parse().unwrap());
    let columns: usize = args.get(2).map_or(10, |s| s.parse().unwrap());
    let steps: usize = args.get(3).map_or(100, |s| s.parse().unwrap());
    let lcp = std::env::var_os("LCPF").is_some();
    let mut world = box_pile(&BoxPile {
        count,
        columns,
        ..BoxPile::default()
    })
    .unwrap();
    let mut stepper = FixedStepper::new(FixedStepParams {
        h: 1.0 / 60.0,
        dynamics: TimeSteppingParams {
            formulation: if lcp {
                Formulation::Complementarity
            } else {
                Formulation::BoxFriction
            },
            ..TimeSteppingParams::default()
        },
        ..FixedStepParams::default()
    })
    .unwrap();
    let t = Instant::now();
    let mut worst: f64 = 0.0;
    for s in 0..steps {
        let t1 = Instant::now();
        let r = stepper.step(&mut world).unwrap();
        let ms = t1.elapsed().as_secs_f64() * 1e3;
        worst = worst.min(r.min_distance);
        println!(
            "step {s}: {ms:.1} ms mind {:.1e} contacts {}",
            r.min_distance,
            stepper.contacts().len()
        );
    }
    println!(
        "count {count} mean {:.1} ms/step worst penetration {:.1e}",
        t.elapsed().as_secs_f64() * 1e3 / steps as f64,
        -worst
    );
}
