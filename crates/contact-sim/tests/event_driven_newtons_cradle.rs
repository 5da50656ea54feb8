//! Guards what the event-driven stepper's impact law (Newton's restitution,
//! simultaneous over every touching contact; docs/architecture.md) gives
//! for Newton's cradle of three equal balls, `e = 1`, no gravity, the
//! first ball moving at `v` into the others: touching balls take one
//! simultaneous impact, `(-1/3, 2/3, 2/3) v` (the LCP's answer worked out
//! in contact-dynamics' `impact.rs`; momentum and energy kept); balls 1 mm
//! apart collide one pair after the other, `(0, 0, v)`.

use contact_sim::glam::DVec3;
use contact_sim::{
    BodyId, EventDrivenParams, EventDrivenStepper, EventKind, MassProperties, Pose, RigidBody,
    Shape, Twist, World,
};

const RADIUS: f64 = 0.1;
const SPEED: f64 = 1.5;

fn cradle(gap: f64) -> World {
    let mut world = World::new(DVec3::ZERO);
    for k in 0..3 {
        let mut ball = RigidBody::dynamic(
            Shape::sphere(RADIUS).unwrap(),
            MassProperties::solid_sphere(0.2, RADIUS).unwrap(),
            Pose::from_translation(DVec3::new(k as f64 * (2.0 * RADIUS + gap), 0.0, 0.0)),
        )
        .and_then(|b| b.with_restitution(1.0))
        .and_then(|b| b.with_friction(0.0))
        .unwrap();
        if k == 0 {
            ball.twist = Twist::new(DVec3::new(SPEED, 0.0, 0.0), DVec3::ZERO);
        }
        world.add_body(ball);
    }
    world
}

fn run(gap: f64) -> (Vec<f64>, usize) {
    let mut world = cradle(gap);
    let energy = world.kinetic_energy();
    let mut stepper = EventDrivenStepper::new(EventDrivenParams::default()).unwrap();
    stepper.advance(&mut world, 0.05).unwrap();
    assert!((world.kinetic_energy() - energy).abs() < 1e-12 * energy);
    let impacts = stepper
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Impact { .. }))
        .count();
    let speeds = (0..3)
        .map(|k| world.body(BodyId(k)).twist.linear.x / SPEED)
        .collect();
    (speeds, impacts)
}

#[test]
fn touching_balls_share_the_impact() {
    let (speeds, impacts) = run(0.0);
    assert_eq!(impacts, 1);
    for (got, expected) in speeds.iter().zip([-1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0]) {
        assert!((got - expected).abs() < 1e-12, "{speeds:?}");
    }
}

#[test]
fn balls_with_gaps_pass_the_momentum_on() {
    let (speeds, impacts) = run(1e-3);
    assert_eq!(impacts, 2);
    for (got, expected) in speeds.iter().zip([0.0, 0.0, 1.0]) {
        assert!((got - expected).abs() < 1e-12, "{speeds:?}");
    }
}
