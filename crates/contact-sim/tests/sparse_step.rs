//! Guards the sparse, warm-started path of the box formulation (block
//! principal pivoting on `J W J'` assembled sparse, the dense policy when it
//! does not settle): forced on for every problem size, a wall pyramid of 6
//! cubes and a stack of 5 stand still, the ground carrying their weight,
//! every answer certified.

use contact_sim::scenes::{BoxStack, WallPyramid, box_stack, wall_pyramid};
use contact_sim::{FixedStepParams, FixedStepper, Formulation, TimeSteppingParams, World};

fn sparse_stepper(h: f64) -> FixedStepper {
    FixedStepper::new(FixedStepParams {
        h,
        dynamics: TimeSteppingParams {
            formulation: Formulation::BoxFriction,
            sparse_from: 0,
            ..TimeSteppingParams::default()
        },
        ..FixedStepParams::default()
    })
    .unwrap()
}

/// Steps `world` and returns the largest drift of any body and the ground's
/// support force at the end over the total weight.
fn stand(mut world: World, h: f64, steps: usize) -> (f64, f64) {
    let start: Vec<_> = world.bodies().iter().map(|b| b.pose.translation).collect();
    let mut stepper = sparse_stepper(h);
    for _ in 0..steps {
        let report = stepper.step(&mut world).unwrap();
        assert!(report.complementarity < 1e-9, "{report:?}");
        assert!(report.min_distance > -1e-9, "{report:?}");
    }
    let drift = world
        .bodies()
        .iter()
        .zip(&start)
        .map(|(b, s)| (b.pose.translation - *s).length())
        .fold(0.0, f64::max);
    let support: f64 = stepper
        .contacts()
        .iter()
        .zip(&stepper.solution().normal_impulses)
        .filter(|(c, _)| c.body_a == 0)
        .map(|(_, impulse)| impulse / h)
        .sum();
    let weight: f64 = world
        .bodies()
        .iter()
        .filter_map(|b| b.mass_properties())
        .map(|m| m.mass() * 9.81)
        .sum();
    (drift, support / weight)
}

#[test]
fn pyramid_and_stack_stand_on_the_sparse_path() {
    let pyramid = wall_pyramid(&WallPyramid {
        base: 3,
        ..WallPyramid::default()
    })
    .unwrap();
    let (drift, support) = stand(pyramid, 1.0 / 60.0, 60);
    assert!(drift < 1e-9, "{drift}");
    assert!((support - 1.0).abs() < 1e-9, "{support}");
    let stack = box_stack(&BoxStack::default()).unwrap();
    let (drift, support) = stand(stack, 1.0 / 240.0, 120);
    assert!(drift < 1e-9, "{drift}");
    assert!((support - 1.0).abs() < 1e-9, "{support}");
}

/// Section 4 of the scale issue: on a settled pile the last step's active
/// set is the answer's, so a step is one linear solve. A wall pyramid of
/// base 15 (120 cubes, one island of 900 contacts) at rest: from the 40th
/// step on, every step's island takes exactly one solve. With the proximal
/// weight too small for the load that the projection's tolerance moves
/// between the corners of resting boxes (1e-6), every step took 2 to 7.
#[test]
fn a_resting_pyramid_takes_one_solve_a_step() {
    let mut world = wall_pyramid(&WallPyramid {
        base: 15,
        ..WallPyramid::default()
    })
    .unwrap();
    let mut stepper = FixedStepper::new(FixedStepParams {
        h: 1.0 / 60.0,
        ..FixedStepParams::default()
    })
    .unwrap();
    let mut solves = Vec::new();
    for _ in 0..80 {
        let report = stepper.step(&mut world).unwrap();
        assert!(report.complementarity < 1e-9, "{report:?}");
        solves.push(stepper.last_lcp_solution(0).iterations);
    }
    assert!(solves[40..].iter().all(|&s| s == 1), "{solves:?}");
}
