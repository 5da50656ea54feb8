//! Time per simulated interval of the three steppers on the same scenes and
//! intervals, all measured in the same run: the fixed stepper, conservative
//! advancement (Drumwright 2016; `CaStepper`) and the event-driven stepper
//! (Baraff 1994 contact forces between located events;
//! `EventDrivenStepper`, Dormand-Prince 5(4) at its default tolerance):
//! - Drumwright's thrown die (`scenes::thrown_die`, seed 1) over its first
//!   simulated second, from the throw until it lies still (the fixed
//!   stepper at h = 1/240 s);
//! - the 20-box pile (`scenes::box_pile`, 2 columns, 5 layers of 1 m
//!   cubes) over its first `PILE_SECONDS` from the drop: the fall and the
//!   landing of the lower layers on the ground and on one another (the
//!   fixed stepper at h = 1 ms).
//!
//! Each iteration starts from a fresh copy of the scene and a new stepper.
//! Time per simulated second is the median divided by the interval.

use std::hint::black_box;

use contact_sim::scenes::{BoxPile, ThrownDie, box_pile, thrown_die};
use contact_sim::{
    CaParams, CaStepper, EventDrivenParams, EventDrivenStepper, FixedStepParams, FixedStepper,
    World,
};
use criterion::measurement::WallTime;
use criterion::{
    BatchSize, BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main,
};

/// Simulated seconds of the pile per iteration.
const PILE_SECONDS: f64 = 0.4;

/// Times `seconds` of `world` under each stepper (the fixed one at `h`).
fn steppers(
    group: &mut BenchmarkGroup<'_, WallTime>,
    label: &str,
    world: &World,
    seconds: f64,
    h: f64,
) {
    let fixed_steps = (seconds / h).round() as usize;
    group.bench_function(BenchmarkId::new("fixed_step", label), |b| {
        b.iter_batched(
            || {
                let params = FixedStepParams {
                    h,
                    ..FixedStepParams::default()
                };
                let stepper = FixedStepper::new(params).expect("valid params");
                (world.clone(), stepper)
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
    group.bench_function(BenchmarkId::new("event_driven", label), |b| {
        b.iter_batched(
            || {
                let stepper =
                    EventDrivenStepper::new(EventDrivenParams::default()).expect("valid params");
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

fn event_driven(c: &mut Criterion) {
    let die = thrown_die(&ThrownDie::random(1)).expect("valid die");
    let mut group = c.benchmark_group("steppers_die");
    group.sample_size(10);
    steppers(&mut group, "1s", &die, 1.0, 1.0 / 240.0);
    group.finish();

    let pile = box_pile(&BoxPile {
        count: 20,
        columns: 2,
        ..BoxPile::default()
    })
    .expect("valid pile");
    let mut group = c.benchmark_group("steppers_pile");
    group.sample_size(10);
    steppers(&mut group, "0.4s", &pile, PILE_SECONDS, 1e-3);
    group.finish();
}

criterion_group!(benches, event_driven);
criterion_main!(benches);
