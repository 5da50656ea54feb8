use contact_sim::scenes::{WallPyramid, wall_pyramid};
use contact_sim::{FixedStepParams, FixedStepper, Formulation, TimeSteppingParams};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let base: usize = args.get(1).map_or(10, |s| s.parse().unwrap());
    let sparse: usize = args.get(2).map_or(0, |s| s.parse().unwrap());
    let steps: usize = args.get(3).map_or(20, |s| s.parse().unwrap());
    let friction: f64 = args.get(4).map_or(0.5, |s| s.parse().unwrap());
    let mut world = wall_pyramid(&WallPyramid {
        base,
        friction,
        ..WallPyramid::default()
    })
    .unwrap();
    let top0 = world.bodies().last().unwrap().pose.translation.z;
    let mut stepper = FixedStepper::new(FixedStepParams {
        h: 1.0 / 60.0,
        dynamics: TimeSteppingParams {
            formulation: if std::env::var_os("LCPF").is_some() {
                Formulation::Complementarity
            } else {
                Formulation::BoxFriction
            },
            sparse_from: sparse,
            ..TimeSteppingParams::default()
        },
        ..FixedStepParams::default()
    })
    .unwrap();
    let t = Instant::now();
    for s in 0..steps {
        let t1 = Instant::now();
        let r = stepper.step(&mut world).unwrap();
        if true {
            eprintln!(
                "step {s}: {:.3} ms compl {:.1e} mind {:.1e}",
                t1.elapsed().as_secs_f64() * 1e3,
                r.complementarity,
                r.min_distance
            );
        }
    }
    let top = world.bodies().last().unwrap().pose.translation.z;
    println!(
        "base {base} bodies {} mean {:.3} ms/step sink {:.2e}",
        world.bodies().len(),
        t.elapsed().as_secs_f64() * 1e3 / steps as f64,
        top0 - top
    );
}
