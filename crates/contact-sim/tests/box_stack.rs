//! Guards the first end-to-end path (issue 2): five unit boxes stacked on
//! the ground must stand still under exact contact forces for 5 s.

use contact_sim::scenes::{BoxStack, StackObservations, run_box_stack};
use contact_sim::{FixedStepParams, FixedStepper, Formulation, TimeSteppingParams};

fn run() -> StackObservations {
    let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
    run_box_stack(&BoxStack::default(), &mut stepper, 5.0).unwrap()
}

/// Issue 2's acceptance bounds, and a certified LCP answer every step.
fn assert_stack_stands(run: &StackObservations) {
    assert!(run.all_finite, "a pose or twist became NaN or infinite");
    // Acceptance: the top box drifts less than 1 mm.
    assert!(run.top_drift < 1e-3, "top box drifted {} m", run.top_drift);
    // Acceptance: interpenetration never exceeds 1 mm.
    assert!(
        run.max_penetration < 1e-3,
        "penetration {} m",
        run.max_penetration
    );
    // Acceptance: once settled (after the first 0.5 s), every step's support
    // force equals the weight 5 m g within 1 %. The weight is the independent
    // answer: in equilibrium the ground must carry the whole stack.
    for (step, &force) in run.support_force.iter().enumerate().skip(120) {
        let error = (force - run.weight).abs() / run.weight;
        assert!(
            error < 0.01,
            "step {step}: support {force} N vs weight {} N",
            run.weight
        );
    }
    // The LCP answers are certified solutions, not just plausible numbers.
    assert!(
        run.max_complementarity < 1e-9,
        "complementarity {}",
        run.max_complementarity
    );
}

#[test]
fn stack_stands_still_without_interpenetration_and_the_ground_carries_its_weight() {
    let run = run();
    assert_eq!(run.steps, 1200);
    assert_stack_stands(&run);
}

#[test]
fn the_box_friction_formulation_holds_the_stack_too() {
    // The square friction cone solved by Dantzig pivoting (PGS as the
    // fail-safe); 2 s to keep the unoptimised test run short.
    let params = FixedStepParams {
        dynamics: TimeSteppingParams {
            formulation: Formulation::BoxFriction,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut stepper = FixedStepper::new(params).unwrap();
    let run = run_box_stack(&BoxStack::default(), &mut stepper, 2.0).unwrap();
    assert_eq!(run.steps, 480);
    assert_stack_stands(&run);
}

#[test]
fn two_runs_are_bit_identical() {
    let first = run();
    let second = run();
    for (a, b) in first
        .final_world
        .bodies()
        .iter()
        .zip(second.final_world.bodies())
    {
        for (x, y) in a
            .pose
            .translation
            .to_array()
            .iter()
            .zip(b.pose.translation.to_array())
        {
            assert_eq!(x.to_bits(), y.to_bits());
        }
        for (x, y) in a
            .pose
            .rotation
            .to_array()
            .iter()
            .zip(b.pose.rotation.to_array())
        {
            assert_eq!(x.to_bits(), y.to_bits());
        }
        for (x, y) in a.twist.to_array().iter().zip(b.twist.to_array()) {
            assert_eq!(x.to_bits(), y.to_bits());
        }
    }
    assert_eq!(
        first
            .support_force
            .iter()
            .map(|f| f.to_bits())
            .collect::<Vec<_>>(),
        second
            .support_force
            .iter()
            .map(|f| f.to_bits())
            .collect::<Vec<_>>()
    );
}
