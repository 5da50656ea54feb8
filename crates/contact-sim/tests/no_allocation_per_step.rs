//! Guards the rule that hot loops allocate nothing after warm-up: once the
//! stepper has seen a scene's contact count, a step of the box stack
//! (collision pass, assembly, the solve, integration) touches no allocator.

use contact_sim::scenes::{BoxStack, box_stack};
use contact_sim::{FixedStepParams, FixedStepper};

#[test]
fn a_warmed_up_stack_step_allocates_nothing() {
    let mut world = box_stack(&BoxStack::default()).unwrap();
    let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
    for _ in 0..10 {
        stepper.step(&mut world).unwrap();
    }
    let info = allocation_counter::measure(|| {
        for _ in 0..100 {
            stepper.step(&mut world).unwrap();
        }
    });
    assert_eq!(info.count_total, 0, "{info:?}");
    // The measurement itself can fail: a fresh stepper must allocate.
    let cold = allocation_counter::measure(|| {
        let mut fresh = FixedStepper::new(FixedStepParams::default()).unwrap();
        fresh.step(&mut world).unwrap();
    });
    assert!(cold.count_total > 0);
}
