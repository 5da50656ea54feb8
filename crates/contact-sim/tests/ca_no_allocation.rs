//! Guards the rule that hot loops allocate nothing after warm-up, for
//! conservative advancement: once the stepper has seen a resting stack,
//! its steps (measurement, bounds, the velocity step, the check) touch no
//! allocator.

use contact_sim::scenes::{BoxStack, box_stack};
use contact_sim::{CaParams, CaStepper};

#[test]
fn a_warmed_up_step_of_a_resting_stack_allocates_nothing() {
    let mut world = box_stack(&BoxStack {
        count: 3,
        ..BoxStack::default()
    })
    .unwrap();
    let mut stepper = CaStepper::new(CaParams::default()).unwrap();
    for _ in 0..20 {
        stepper.step(&mut world).unwrap();
    }
    let info = allocation_counter::measure(|| {
        for _ in 0..50 {
            stepper.step(&mut world).unwrap();
        }
    });
    assert_eq!(info.count_total, 0, "{info:?}");
    let cold = allocation_counter::measure(|| {
        let mut fresh = CaStepper::new(CaParams::default()).unwrap();
        fresh.step(&mut world).unwrap();
    });
    assert!(cold.count_total > 0);
}
