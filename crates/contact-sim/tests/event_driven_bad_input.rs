//! Guards the event-driven stepper's input checks: every bad setting (an
//! ODE tolerance <= 0, a non-finite or non-positive step limit, a minimum
//! step above the maximum, ...) and a bad duration are typed errors naming
//! the field; a world with joints or a non-finite body is refused before
//! anything moves.

use contact_dynamics::DynamicsError;
use contact_sim::glam::DVec3;
use contact_sim::{
    EventDrivenParams, EventDrivenStepper, JointKind, MassProperties, Pose, RigidBody, Shape,
    SimError, World,
};

fn named(result: Result<EventDrivenStepper, SimError>) -> (&'static str, f64) {
    match result {
        Err(SimError::InvalidParameter { name, value }) => (name, value),
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

#[test]
fn bad_settings_name_their_field() {
    let defaults = EventDrivenParams::default();
    let cases: Vec<(&str, EventDrivenParams)> = vec![
        (
            "tolerance",
            EventDrivenParams {
                tolerance: 0.0,
                ..defaults
            },
        ),
        (
            "tolerance",
            EventDrivenParams {
                tolerance: -1e-9,
                ..defaults
            },
        ),
        (
            "tolerance",
            EventDrivenParams {
                tolerance: f64::NAN,
                ..defaults
            },
        ),
        (
            "max_step",
            EventDrivenParams {
                max_step: 0.0,
                ..defaults
            },
        ),
        (
            "max_step",
            EventDrivenParams {
                max_step: -1.0,
                ..defaults
            },
        ),
        (
            "max_step",
            EventDrivenParams {
                max_step: f64::INFINITY,
                ..defaults
            },
        ),
        (
            "max_step",
            EventDrivenParams {
                max_step: f64::NAN,
                ..defaults
            },
        ),
        (
            "min_step",
            EventDrivenParams {
                min_step: 0.0,
                ..defaults
            },
        ),
        (
            "min_step",
            EventDrivenParams {
                min_step: f64::NEG_INFINITY,
                ..defaults
            },
        ),
        (
            "min_step",
            EventDrivenParams {
                min_step: f64::NAN,
                ..defaults
            },
        ),
        (
            "min_step",
            EventDrivenParams {
                min_step: 1.0,
                max_step: 0.1,
                ..defaults
            },
        ),
        (
            "contact_tolerance",
            EventDrivenParams {
                contact_tolerance: 0.0,
                ..defaults
            },
        ),
        (
            "resting_speed",
            EventDrivenParams {
                resting_speed: f64::NAN,
                ..defaults
            },
        ),
        (
            "sticking_speed",
            EventDrivenParams {
                sticking_speed: -1.0,
                ..defaults
            },
        ),
        (
            "event_tolerance",
            EventDrivenParams {
                event_tolerance: 0.0,
                ..defaults
            },
        ),
        (
            "painleve_step",
            EventDrivenParams {
                painleve_step: f64::INFINITY,
                ..defaults
            },
        ),
    ];
    for (field, params) in cases {
        let (name, _) = named(EventDrivenStepper::new(params));
        assert_eq!(name, field);
    }
}

fn ball_world() -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    world.add_body(RigidBody::fixed(
        Shape::half_space(DVec3::Z).unwrap(),
        Pose::IDENTITY,
    ));
    world.add_body(
        RigidBody::dynamic(
            Shape::sphere(0.1).unwrap(),
            MassProperties::solid_sphere(1.0, 0.1).unwrap(),
            Pose::from_translation(DVec3::new(0.0, 0.0, 1.0)),
        )
        .unwrap(),
    );
    world
}

#[test]
fn bad_durations_worlds_and_bodies_are_refused() {
    let mut stepper = EventDrivenStepper::new(EventDrivenParams::default()).unwrap();
    let mut world = ball_world();
    for duration in [f64::NAN, -1.0, f64::INFINITY] {
        match stepper.advance(&mut world, duration) {
            Err(SimError::InvalidParameter {
                name: "duration", ..
            }) => {}
            other => panic!("{duration}: {other:?}"),
        }
    }
    assert_eq!(world, ball_world(), "nothing moved");

    let mut jointed = ball_world();
    let ball = contact_sim::BodyId(1);
    jointed
        .add_joint_at(
            JointKind::Ball,
            None,
            ball,
            DVec3::new(0.0, 0.0, 1.5),
            DVec3::Z,
        )
        .unwrap();
    assert!(matches!(
        stepper.advance(&mut jointed, 0.1),
        Err(SimError::Unsupported { .. })
    ));

    let mut broken = ball_world();
    broken.body_mut(ball).twist.linear.x = f64::NAN;
    let before = broken.clone();
    assert!(matches!(
        stepper.advance(&mut broken, 0.1),
        Err(SimError::Dynamics(DynamicsError::NonFiniteState {
            body: 1
        }))
    ));
    assert_eq!(
        format!("{before:?}"),
        format!("{broken:?}"),
        "nothing moved"
    );
}
