//! Guards the promise that a bad joint, force element or body state is a
//! typed error naming what and where, never a panic, and that the world is
//! unchanged after it: joints naming a missing body, zero axes, inverted
//! limits, bad spring constants and springs with no direction; a body
//! whose velocity would make the state non-finite; a pose whose quaternion
//! is not unit.

mod common;

use common::{G, block};
use contact_dynamics::DynamicsError;
use contact_sim::{
    Attachment, BodyId, FixedStepParams, FixedStepper, ForceElement, Joint, JointKind, Pose,
    SimError, Spring, World,
};
use glam::{DQuat, DVec3};

fn world_with_two_blocks() -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    for x in [0.0, 2.0] {
        world.add_body(block(
            1.0,
            DVec3::splat(0.5),
            DVec3::new(x, 0.0, 5.0),
            DQuat::IDENTITY,
        ));
    }
    world
}

fn joint_error(error: SimError) -> (Option<usize>, &'static str) {
    match error {
        SimError::Dynamics(DynamicsError::InvalidJoint { joint, field, .. }) => (joint, field),
        other => panic!("expected InvalidJoint, got {other:?}"),
    }
}

#[test]
fn bad_joints_are_named_and_leave_the_world_unchanged() {
    let mut world = world_with_two_blocks();
    let before = world.clone();
    let hinge = |world: &mut World, a, b, axis| {
        world.add_joint_at(JointKind::Hinge, a, b, DVec3::new(1.0, 0.0, 5.0), axis)
    };
    let missing = hinge(&mut world, Some(BodyId(0)), BodyId(7), DVec3::Y).unwrap_err();
    assert_eq!(joint_error(missing), (Some(0), "body_b"));
    let missing_a = hinge(&mut world, Some(BodyId(9)), BodyId(1), DVec3::Y).unwrap_err();
    assert_eq!(joint_error(missing_a), (Some(0), "body_a"));
    let zero_axis = hinge(&mut world, Some(BodyId(0)), BodyId(1), DVec3::ZERO).unwrap_err();
    assert_eq!(joint_error(zero_axis), (Some(0), "axis"));
    let nan_axis = hinge(&mut world, None, BodyId(1), DVec3::new(f64::NAN, 0.0, 1.0)).unwrap_err();
    assert_eq!(joint_error(nan_axis), (Some(0), "axis"));
    let joint = Joint::at_world_frame(
        JointKind::Hinge,
        world.bodies(),
        Some(0),
        1,
        DVec3::new(1.0, 0.0, 5.0),
        DVec3::Y,
    )
    .unwrap();
    let inverted = world.add_joint(joint.with_limit(0.5, -0.5)).unwrap_err();
    assert_eq!(joint_error(inverted), (Some(0), "limit"));
    let bad_motor = world.add_joint(joint.with_motor(1.0, -2.0)).unwrap_err();
    assert_eq!(joint_error(bad_motor), (Some(0), "motor.max_effort"));
    let ball_limit = Joint {
        kind: JointKind::Ball,
        ..joint.with_limit(-1.0, 1.0)
    };
    assert_eq!(
        joint_error(world.add_joint(ball_limit).unwrap_err()),
        (Some(0), "limit")
    );
    assert_eq!(world, before);

    // A joint edited into a bad state is caught by the next step, which
    // leaves the world as it was.
    let id = world.add_joint(joint).unwrap();
    world.joint_mut(id).limit = Some(contact_sim::JointLimit {
        lower: 1.0,
        upper: 0.0,
    });
    let before = world.clone();
    let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
    let error = stepper.step(&mut world).unwrap_err();
    assert_eq!(joint_error(error), (Some(0), "limit"));
    assert_eq!(world, before);
}

fn force_error(error: SimError) -> (usize, &'static str) {
    match error {
        SimError::Dynamics(DynamicsError::InvalidForce { element, field, .. }) => (element, field),
        other => panic!("expected InvalidForce, got {other:?}"),
    }
}

#[test]
fn bad_springs_are_named_and_leave_the_world_unchanged() {
    let mut world = world_with_two_blocks();
    let spring = Spring {
        a: Attachment::Body {
            body: 0,
            point: DVec3::ZERO,
        },
        b: Attachment::Body {
            body: 1,
            point: DVec3::ZERO,
        },
        stiffness: 10.0,
        damping: 0.0,
        rest_length: 1.0,
        implicit: false,
    };
    world.add_force(ForceElement::Spring(spring)).unwrap();
    let before = world.clone();
    let cases = [
        (
            Spring {
                stiffness: f64::NAN,
                ..spring
            },
            "stiffness",
        ),
        (
            Spring {
                stiffness: -1.0,
                ..spring
            },
            "stiffness",
        ),
        (
            Spring {
                damping: f64::INFINITY,
                ..spring
            },
            "damping",
        ),
        (
            Spring {
                b: Attachment::Body {
                    body: 5,
                    point: DVec3::ZERO,
                },
                ..spring
            },
            "b",
        ),
        (
            Spring {
                a: Attachment::World(DVec3::new(2.0, 0.0, 5.0)),
                rest_length: 0.0,
                ..spring
            },
            "rest_length",
        ),
    ];
    for (bad, field) in cases {
        let error = world.add_force(ForceElement::Spring(bad)).unwrap_err();
        assert_eq!(force_error(error), (1, field));
    }
    assert_eq!(world, before);
}

#[test]
fn a_step_to_a_non_finite_state_is_an_error_and_changes_nothing() {
    let mut world = world_with_two_blocks();
    world.body_mut(BodyId(1)).twist.linear.x = 1e300;
    world.body_mut(BodyId(1)).twist.angular.z = 1e300;
    let before = world.clone();
    let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
    match stepper.step(&mut world) {
        Err(SimError::Dynamics(DynamicsError::NonFiniteResult { body })) => assert_eq!(body, 1),
        other => panic!("expected NonFiniteResult, got {other:?}"),
    }
    assert_eq!(world, before);
}

#[test]
fn a_non_unit_quaternion_is_refused() {
    let twice = DQuat::from_xyzw(0.0, 0.0, 0.0, 2.0);
    let body = contact_sim::RigidBody::dynamic(
        contact_sim::Shape::cuboid(DVec3::splat(0.5)).unwrap(),
        contact_sim::MassProperties::solid_box(1.0, DVec3::splat(0.5)).unwrap(),
        Pose::new(DVec3::new(0.0, 0.0, 1.0), twice),
    );
    assert!(matches!(
        body,
        Err(DynamicsError::NonUnitRotation { body: 0, .. })
    ));
    // Set on a body after it was built: the step refuses it, world unchanged.
    let mut world = world_with_two_blocks();
    world.body_mut(BodyId(0)).pose.rotation = twice;
    let before = world.clone();
    let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
    assert!(matches!(
        stepper.step(&mut world),
        Err(SimError::Dynamics(DynamicsError::NonUnitRotation {
            body: 0,
            ..
        }))
    ));
    assert_eq!(world, before);
    // Within Pose::try_new's tolerance it is renormalised by the step.
    world.body_mut(BodyId(0)).pose.rotation = DQuat::from_xyzw(0.0, 0.0, 0.0, 1.0005);
    stepper.step(&mut world).unwrap();
    assert!((world.body(BodyId(0)).pose.rotation.length() - 1.0).abs() < 1e-15);
}

#[test]
fn restitution_outside_zero_one_is_refused() {
    for e in [-0.1, 1.5, f64::NAN] {
        let body = block(1.0, DVec3::splat(0.5), DVec3::ZERO, DQuat::IDENTITY).with_restitution(e);
        assert!(
            matches!(
                body,
                Err(DynamicsError::InvalidParameter {
                    name: "restitution",
                    ..
                })
            ),
            "{e}: {body:?}"
        );
    }
}
