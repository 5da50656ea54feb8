//! Time per simulated interval of conservative advancement (Drumwright
//! 2016; `CaStepper`), each beside the fixed stepper on the same scene and
//! interval as the yardstick, measured in the same run:
//! - the thrown die (seed 1) over its first simulated second, from the throw
//!   until it lies still (the fixed stepper at h = 1/240);
//! - a 20-box pile over 5 ms of its settling, from the state conservative
//!   advancement reaches at t = 0.2 s (the fixed stepper at h = 1 ms).
//!
//! Time per simulated second is the median over the interval's length:
//! the die's as measured, the pile's times 200.

use std::hint::black_box;

use contact_sim::scenes::{BoxPile, ThrownDie, box_pile, thrown_die};
use contact_sim::{CaParams, CaStepper, FixedStepParams, FixedStepper, World};
use criterion::measurement::WallTime;
use criterion::{
    BatchSize, BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main,
};

/// Times `seconds` of `world` under conservative advancement and under the
/// fixed stepper at `h`, each from a fresh copy of the world and stepper.
fn interval(
    group: &mut BenchmarkGroup<'_, WallTime>,
    label: &str,
    world: &World,
    seconds: f64,
    h: f64,
) {
    let fixed_steps = (seconds / h).round() as usize;
    group.bench_function(BenchmarkId::new("fixed_step_yardstick", label), |b| {
        b.iter_batched(
            || {
                let params = FixedStepParams {
                    h,
                    ..FixedStepParams::default()
                };
                (
                    world.clone(),
                    FixedStepper::new(params).expect("valid params"),
                )
            },
            |(mut world, mut stepper)| {
                for _ in 0..fixed_steps {
                    stepper.step(&mut world).expect("scene steps");
                }
                black_box(world)
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function(BenchmarkId::new("conservative_advancement", label), |b| {
        b.iter_batched(
            || {
                let stepper = CaStepper::new(CaParams::default()).expect("valid params");
                (world.clone(), stepper)
            },
            |(mut world, mut stepper)| {
                stepper
                    .advance(&mut world, seconds)
                    .expect("scene advances");
                black_box(world)
            },
            BatchSize::LargeInput,
        )
    });
}

fn conservative_advancement(c: &mut Criterion) {
    let die = thrown_die(&ThrownDie::random(1)).expect("valid die");
    let mut group = c.benchmark_group("ca_die");
    group.sample_size(10);
    interval(&mut group, "1s", &die, 1.0, 1.0 / 240.0);
    group.finish();

    let mut pile = box_pile(&BoxPile {
        count: 20,
        columns: 2,
        ..BoxPile::default()
    })
    .expect("valid pile");
    CaStepper::new(CaParams::default())
        .expect("valid params")
        .advance(&mut pile, 0.2)
        .expect("the pile falls");
    let mut group = c.benchmark_group("ca_pile");
    group.sample_size(10);
    interval(&mut group, "5ms", &pile, 5e-3, 1e-3);
    group.finish();
}

criterion_group!(benches, conservative_advancement);
criterion_main!(benches);
