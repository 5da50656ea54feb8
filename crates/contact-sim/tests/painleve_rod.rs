//! Guards the velocity-level step on Painleve's rod: a thin rod of length
//! 2l on its tip at theta = atan 2 from the ground, its tip sliding with
//! friction mu, in a planar world. At acceleration level the normal force
//! is `N = m g / B` with `B = 1 + 3 cos^2 - 3 mu sin cos` (the tip sliding
//! away from the centre's side, the rod starting without spin); for mu
//! below Painleve's 4/3, B > 0 and both formulations must return that
//! regular sliding solution (first step's normal impulse `N h` to 1 %),
//! not an impulsive jam; above it (mu = 1.5, B < 0) no contact force is
//! consistent and the step jams the tip impulsively (an impulse many times
//! `m g h` that takes a finite part of the sliding speed in one step).

mod common;

use common::G;
use contact_sim::{
    FixedStepParams, FixedStepper, Formulation, MassProperties, Pose, RigidBody, Shape,
    TimeSteppingParams, World,
};
use glam::{DQuat, DVec3};

const H: f64 = 1e-3;
const L: f64 = 0.5;
const M: f64 = 1.0;

/// The first step of a rod whose tip slides at 2 m/s towards -x: its
/// normal impulse and the tip's sliding speed after the step.
fn first_step(mu: f64, formulation: Formulation) -> (f64, f64) {
    let theta = 2f64.atan();
    let mut world = World::planar(DVec3::new(0.0, 0.0, -G));
    world.add_body(
        RigidBody::fixed(Shape::half_space(DVec3::Z).unwrap(), Pose::IDENTITY)
            .with_friction(mu)
            .unwrap(),
    );
    let half = DVec3::new(L, 0.02, 0.001);
    let turn = DQuat::from_rotation_y(-theta);
    // The tip's bottom edge on the ground at the origin.
    let centre = turn * DVec3::new(L, 0.0, 0.001);
    let rod = world.add_body(
        RigidBody::dynamic(
            Shape::cuboid(half).unwrap(),
            MassProperties::solid_box(M, half).unwrap(),
            Pose::new(centre, turn),
        )
        .unwrap()
        .with_friction(mu)
        .unwrap(),
    );
    world.body_mut(rod).twist.linear = DVec3::new(-2.0, 0.0, 0.0);
    let mut stepper = FixedStepper::new(FixedStepParams {
        h: H,
        dynamics: TimeSteppingParams {
            formulation,
            ..TimeSteppingParams::default()
        },
        ..FixedStepParams::default()
    })
    .unwrap();
    stepper.step(&mut world).unwrap();
    let impulse: f64 = stepper.solution().normal_impulses.iter().sum();
    let body = world.body(rod);
    let tip = body.pose.transform_point(DVec3::new(-L, 0.0, -0.001));
    let tip_speed = body.point_velocity(tip).x;
    (impulse, tip_speed)
}

#[test]
fn the_rod_slides_below_painleve_and_jams_above() {
    let (s, c) = (2.0 / 5f64.sqrt(), 1.0 / 5f64.sqrt());
    for formulation in [Formulation::Complementarity, Formulation::BoxFriction] {
        for mu in [0.5, 1.0, 1.2] {
            let b = 1.0 + 3.0 * c * c - 3.0 * mu * s * c;
            let expected = M * G / b * H;
            let (impulse, tip) = first_step(mu, formulation);
            println!(
                "{formulation:?} mu {mu}: impulse {impulse:.6}, regular N h {expected:.6}, tip {tip:.4}"
            );
            assert!(
                (impulse - expected).abs() < 1e-2 * expected,
                "{formulation:?} {mu}"
            );
            assert!(tip < -1.7, "still sliding: {tip}");
        }
        let (impulse, tip) = first_step(1.5, formulation);
        println!(
            "{formulation:?} mu 1.5: impulse {impulse:.4} = {:.0} m g h, tip {tip:.4}",
            impulse / (M * G * H)
        );
        assert!(impulse > 20.0 * M * G * H, "{formulation:?}: {impulse}");
        assert!(
            tip > -1.5,
            "{formulation:?}: the jam takes a finite part: {tip}"
        );
    }
}
