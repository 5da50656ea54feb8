//! Guards that conservative advancement refuses bad settings and states
//! with typed errors naming the field or the pair, reports a step it cannot
//! take instead of stalling, and logs every step its minimum step had to
//! take, keeping the guarantee.

mod ca_support;

use contact_sim::glam::{DQuat, DVec3};
use contact_sim::{
    CaError, CaEventKind, CaParams, CaStepper, Pose, SimError, TimeSteppingParams, Twist,
};

use ca_support::{CUBE_HALF as HALF, cube_over_ground};

#[test]
fn bad_settings_name_their_field() {
    type Edit = fn(&mut CaParams, f64);
    let fields: [(&str, Edit); 5] = [
        ("max_step", |p, v| p.max_step = v),
        ("min_step", |p, v| p.min_step = v),
        ("touch_distance", |p, v| p.touch_distance = v),
        ("contact_band", |p, v| p.contact_band = v),
        ("penetration_tolerance", |p, v| p.penetration_tolerance = v),
    ];
    for (name, edit) in fields {
        for value in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut params = CaParams::default();
            edit(&mut params, value);
            match CaStepper::new(params) {
                Err(SimError::InvalidParameter { name: got, .. }) => assert_eq!(got, name),
                other => panic!("{name} = {value}: expected InvalidParameter, got {other:?}"),
            }
        }
    }
    let inverted = CaParams {
        min_step: 0.1,
        max_step: 0.01,
        ..CaParams::default()
    };
    let error = CaStepper::new(inverted).unwrap_err();
    assert_eq!(
        error,
        SimError::Advance(CaError::InvalidStepRange {
            min_step: 0.1,
            max_step: 0.01
        })
    );
    assert!(error.to_string().contains("min_step"), "{error}");
    let thin_band = CaParams {
        contact_band: 1e-12,
        ..CaParams::default()
    };
    assert!(matches!(
        CaStepper::new(thin_band),
        Err(SimError::InvalidParameter {
            name: "contact_band",
            ..
        })
    ));
    let odd_cone = CaParams {
        dynamics: TimeSteppingParams {
            friction_directions: 3,
            ..TimeSteppingParams::default()
        },
        ..CaParams::default()
    };
    assert!(matches!(
        CaStepper::new(odd_cone),
        Err(SimError::Dynamics(_))
    ));
}

#[test]
fn a_bad_duration_is_refused() {
    let mut world = cube_over_ground(Pose::from_translation(DVec3::Z), Twist::ZERO);
    let mut stepper = CaStepper::new(CaParams::default()).unwrap();
    for duration in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            stepper.advance(&mut world, duration),
            Err(SimError::InvalidParameter {
                name: "duration",
                ..
            })
        ));
    }
    assert_eq!(world.time(), 0.0);
}

#[test]
fn a_world_that_starts_overlapping_is_refused() {
    let start = cube_over_ground(
        Pose::from_translation(DVec3::new(0.0, 0.0, HALF - 0.01)),
        Twist::ZERO,
    );
    let mut world = start.clone();
    let mut stepper = CaStepper::new(CaParams::default()).unwrap();
    match stepper.step(&mut world) {
        Err(SimError::Advance(CaError::InitialPenetration {
            body_a: 0,
            body_b: 1,
            distance,
            ..
        })) => assert!((distance + 0.01).abs() < 1e-12, "{distance}"),
        other => panic!("expected InitialPenetration, got {other:?}"),
    }
    assert_eq!(world, start);
}

#[test]
fn a_step_that_cannot_keep_the_guarantee_is_an_error_not_a_stall() {
    // A cube on its edge, tipping over at 2 rad/s and twirling at 5 rad/s
    // about the vertical, with every step forced to 10 ms: its contact
    // points sink some 3e-6 m at second order in one such step, far beyond
    // the 1e-9 m tolerance.
    let start = cube_over_ground(
        Pose::new(
            DVec3::new(0.0, 0.0, HALF * 2f64.sqrt()),
            DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4),
        ),
        Twist::new(DVec3::ZERO, DVec3::new(2.0, 0.0, 5.0)),
    );
    let mut world = start.clone();
    let params = CaParams {
        min_step: 0.01,
        max_step: 0.01,
        ..CaParams::default()
    };
    let mut stepper = CaStepper::new(params).unwrap();
    let error = stepper.step(&mut world).unwrap_err();
    match &error {
        SimError::Advance(CaError::CannotAdvance {
            body_a: 0,
            body_b: 1,
            distance,
            min_step,
            ..
        }) => {
            assert!(*distance < -params.penetration_tolerance);
            assert_eq!(*min_step, 0.01);
        }
        other => panic!("expected CannotAdvance, got {other:?}"),
    }
    println!("{error}");
    assert!(error.to_string().contains("cannot advance"));
    assert_eq!(world, start);
}

#[test]
fn steps_at_the_minimum_are_logged_and_keep_the_guarantee() {
    // A cube falling flat at 3 m/s: within 3 mm of the ground its bound is
    // shorter than a minimum step of 1 ms.
    let mut world = cube_over_ground(
        Pose::from_translation(DVec3::new(0.0, 0.0, 0.3)),
        Twist::new(DVec3::new(0.5, 0.0, -3.0), DVec3::ZERO),
    );
    let params = CaParams {
        min_step: 1e-3,
        ..CaParams::default()
    };
    let mut stepper = CaStepper::new(params).unwrap();
    while world.time() < 0.5 {
        stepper.step(&mut world).unwrap();
        let height = ca_support::height_above_ground(&world.bodies()[1]);
        assert!(height >= -params.penetration_tolerance, "{height:e}");
    }
    let floored: Vec<_> = stepper
        .events()
        .iter()
        .filter(|e| matches!(e.kind, CaEventKind::MinimumStep { bound } if bound < 1e-3))
        .collect();
    println!("{}", stepper.statistics());
    for event in &floored {
        println!("{event}");
    }
    assert!(!floored.is_empty());
    assert_eq!(floored.len(), stepper.statistics().minimum_steps);
    assert!(
        stepper
            .events()
            .iter()
            .any(|e| e.kind == CaEventKind::Touch)
    );
    assert!(stepper.statistics().min_step >= 1e-3 * (1.0 - 1e-12));
}
