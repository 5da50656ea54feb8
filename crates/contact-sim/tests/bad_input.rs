//! Guards that bad settings and scene descriptions give typed errors that
//! say what was wrong, instead of panics or NaN states.

use contact_dynamics::DynamicsError;
use contact_geometry::GeometryError;
use contact_math::MathError;
use contact_sim::scenes::{BoxStack, box_stack};
use contact_sim::{FixedStepParams, FixedStepper, SimError, TimeSteppingParams};

#[test]
fn bad_stepper_settings_are_named() {
    for (params, name) in [
        (
            FixedStepParams {
                h: 0.0,
                ..Default::default()
            },
            "h",
        ),
        (
            FixedStepParams {
                h: f64::NAN,
                ..Default::default()
            },
            "h",
        ),
        (
            FixedStepParams {
                contact_margin: -1.0,
                ..Default::default()
            },
            "contact_margin",
        ),
    ] {
        match FixedStepper::new(params) {
            Err(SimError::InvalidParameter { name: got, .. }) => assert_eq!(got, name),
            other => panic!("expected InvalidParameter({name}), got {other:?}"),
        }
    }
    let odd_cone = FixedStepParams {
        dynamics: TimeSteppingParams {
            friction_directions: 5,
            ..Default::default()
        },
        ..Default::default()
    };
    assert!(matches!(
        FixedStepper::new(odd_cone),
        Err(SimError::Dynamics(DynamicsError::InvalidParameter {
            name: "friction_directions",
            ..
        }))
    ));
}

#[test]
fn bad_scenes_are_typed_errors() {
    let stack = |edit: fn(&mut BoxStack)| {
        let mut s = BoxStack::default();
        edit(&mut s);
        box_stack(&s)
    };
    assert!(matches!(
        stack(|s| s.count = 0),
        Err(SimError::Scene { .. })
    ));
    assert!(matches!(
        stack(|s| s.size = -1.0),
        Err(SimError::Shape(GeometryError::InvalidSize {
            what: "half_extents.x",
            ..
        }))
    ));
    assert!(matches!(
        stack(|s| s.mass = f64::NAN),
        Err(SimError::Mass(MathError::NonFinite { .. }))
    ));
    assert!(matches!(stack(|s| s.mass = 0.0), Err(SimError::Mass(_))));
    assert!(matches!(
        stack(|s| s.friction = -0.1),
        Err(SimError::Dynamics(DynamicsError::InvalidFriction { .. }))
    ));
    assert!(matches!(
        stack(|s| s.gravity = f64::INFINITY),
        Err(SimError::InvalidParameter {
            name: "gravity",
            ..
        })
    ));
}

#[test]
fn a_non_finite_state_stops_the_step_and_leaves_the_world_unchanged() {
    let mut world = box_stack(&BoxStack::default()).unwrap();
    let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
    world.body_mut(contact_sim::BodyId(3)).twist.angular.y = f64::NAN;
    let before = world.clone();
    let error = stepper.step(&mut world).unwrap_err();
    assert!(
        matches!(
            error,
            SimError::Dynamics(DynamicsError::NonFiniteState { body: 3 })
        ),
        "{error:?}"
    );
    // Compare through bits: NaN != NaN, but nothing may have moved.
    assert_eq!(format!("{before:?}"), format!("{world:?}"));
}
