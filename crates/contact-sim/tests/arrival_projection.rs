//! The fixed stepper's arrival projection runs until no overlap is left:
//! a tower of cubes landing at h = 1/60 meets overlaps of centimetres where
//! a step arrives (falling cubes on landed ones, turned at odd angles), and
//! one of its steps needs six projections to take them below the
//! projection tolerance. Every step must start with no overlap deeper than
//! that tolerance.

use contact_sim::scenes::{BoxPile, box_pile};
use contact_sim::{FixedStepParams, FixedStepper};

#[test]
fn a_landing_tower_starts_every_step_without_overlap() {
    // 30 cubes in one column: seed 8 has the step that needs six rounds
    // (five left 7.8e-7 m at the start of step 116, counting from 0).
    let pile = BoxPile {
        count: 30,
        columns: 1,
        seed: 8,
        ..BoxPile::default()
    };
    let mut world = box_pile(&pile).unwrap();
    let params = FixedStepParams {
        h: 1.0 / 60.0,
        ..FixedStepParams::default()
    };
    let tolerance = params.dynamics.stabilisation.projection_tolerance;
    let mut stepper = FixedStepper::new(params).unwrap();
    let mut deepest = (0.0_f64, 0);
    let mut landed = 0;
    for step in 0..120 {
        let report = stepper.step(&mut world).unwrap();
        if -report.min_distance > deepest.0 {
            deepest = (-report.min_distance, step);
        }
        landed = landed.max(report.contacts);
    }
    // Every cube rests on something by the end: at least one contact each.
    assert!(landed >= pile.count, "{landed} contacts at most");
    assert!(
        deepest.0 <= tolerance,
        "overlap {:e} m at the start of step {} (tolerance {tolerance:e})",
        deepest.0,
        deepest.1
    );
}
