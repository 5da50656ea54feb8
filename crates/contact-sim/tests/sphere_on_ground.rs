//! Guards spheres through the whole step (contact generation, Jacobians,
//! the LCP, integration) against closed-form answers: a ball resting on
//! the ground stays put, and a ball launched sliding without spin ends up
//! rolling at 5/7 of its launch speed. Impulses at the contact point
//! exert no moment about it, and gravity acts through it, so the angular
//! momentum about the contact point, `m v r + I w = m v0 r`, is conserved
//! step by step; rolling (`w = v / r`, `I = 2 m r^2 / 5`) then gives
//! `v = 5 v0 / 7` (Lemke's answers are exact to round-off: 1e-9).

use contact_dynamics::RigidBody;
use contact_geometry::Shape;
use contact_math::{MassProperties, Pose, Twist};
use contact_sim::{FixedStepParams, FixedStepper, World};
use glam::DVec3;

const RADIUS: f64 = 0.3;
const MASS: f64 = 2.0;

/// The ground and one ball on it (body 1) with the given launch twist.
fn ball_on_ground(twist: Twist) -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    world.add_body(
        RigidBody::fixed(Shape::half_space(DVec3::Z).unwrap(), Pose::IDENTITY)
            .with_friction(0.4)
            .unwrap(),
    );
    let mut ball = RigidBody::dynamic(
        Shape::sphere(RADIUS).unwrap(),
        MassProperties::solid_sphere(MASS, RADIUS).unwrap(),
        Pose::from_translation(DVec3::new(0.0, 0.0, RADIUS)),
    )
    .and_then(|b| b.with_friction(0.4))
    .unwrap();
    ball.twist = twist;
    world.add_body(ball);
    world
}

fn run(world: &mut World, seconds: f64) {
    let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
    let steps = (seconds * 240.0).round() as usize;
    for _ in 0..steps {
        stepper.step(world).unwrap();
    }
}

#[test]
fn resting_ball_stays_put() {
    let mut world = ball_on_ground(Twist::ZERO);
    run(&mut world, 1.0);
    let ball = &world.bodies()[1];
    assert!((ball.pose.translation - DVec3::new(0.0, 0.0, RADIUS)).length() < 1e-9);
    assert!(ball.twist.linear.length() < 1e-9 && ball.twist.angular.length() < 1e-9);
}

#[test]
fn sliding_ball_ends_up_rolling_at_five_sevenths() {
    let v0 = 2.0;
    let mut world = ball_on_ground(Twist::new(DVec3::new(v0, 0.0, 0.0), DVec3::ZERO));
    // Sliding lasts 2 v0 / (7 mu g) = 0.146 s; run well past it.
    run(&mut world, 0.5);
    let ball = &world.bodies()[1];
    let v = ball.twist.linear;
    let w = ball.twist.angular;
    assert!((v.x - 5.0 / 7.0 * v0).abs() < 1e-9 * v0, "{v}");
    assert!(v.y.abs() < 1e-9 && v.z.abs() < 1e-9, "{v}");
    // Rolling: the contact point is at rest, w = (0, v / r, 0).
    assert!(
        (w - DVec3::new(0.0, v.x / RADIUS, 0.0)).length() < 1e-9,
        "{w}"
    );
    assert!((ball.pose.translation.z - RADIUS).abs() < 1e-9);
}
