//! Step time of the five-box stack of issue 2 (h = 1/240 s, friction 0.5),
//! measured on a stack that has already settled for 0.5 s so the figure is
//! that of steady resting contact; and of a 20-box stack the same way (80
//! contacts, an LCP of 480 rows), where the O(n^2) work of a step (the
//! assembly of `J W J'`, the solver's copies and scalings) shows.

use contact_sim::scenes::{BoxStack, box_stack};
use contact_sim::{FixedStepParams, FixedStepper};
use criterion::{Criterion, criterion_group, criterion_main};

fn stack_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("scene_box_stack");
    for count in [5, 20] {
        let stack = BoxStack {
            count,
            ..BoxStack::default()
        };
        let mut world = box_stack(&stack).expect("stack is valid");
        let mut stepper =
            FixedStepper::new(FixedStepParams::default()).expect("default params are valid");
        for _ in 0..120 {
            stepper.step(&mut world).expect("stack steps");
        }
        group.bench_function(format!("step_{count}_boxes"), |b| {
            b.iter(|| stepper.step(&mut world).expect("stack steps"))
        });
    }
    group.finish();
}

criterion_group!(benches, stack_step);
criterion_main!(benches);
