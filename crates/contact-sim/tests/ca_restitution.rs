//! Newton restitution under conservative advancement: a ball dropped from
//! `h0` rebounds to `e^2 h0` (closed form of a bounce at speed
//! `v = sqrt(2 g h0)`), and with `e = 0` it stays down. The step that
//! carries the bounce is a velocity step, which moves the ball by its end
//! velocity `e v` over the step: the apex is high by at most `e v h` for
//! a step of `h` (first order, as in the fixed stepper).

use contact_sim::glam::DVec3;
use contact_sim::{CaParams, CaStepper, MassProperties, Pose, RigidBody, Shape, World};

const G: f64 = 9.81;
const RADIUS: f64 = 0.1;
const H0: f64 = 1.0;

/// The highest the ball's lowest point reaches after its first bounce.
fn apex_after_bounce(e: f64, max_step: f64) -> f64 {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    world.add_body(RigidBody::fixed(
        Shape::half_space(DVec3::Z).unwrap(),
        Pose::IDENTITY,
    ));
    let ball = RigidBody::dynamic(
        Shape::sphere(RADIUS).unwrap(),
        MassProperties::solid_sphere(1.0, RADIUS).unwrap(),
        Pose::from_translation(DVec3::new(0.0, 0.0, RADIUS + H0)),
    )
    .unwrap()
    .with_restitution(e)
    .unwrap();
    let ball = world.add_body(ball);
    let params = CaParams {
        max_step,
        ..CaParams::default()
    };
    let mut stepper = CaStepper::new(params).unwrap();
    // Fall (0.45 s), bounce, and rise to the apex (e sqrt(2 h0 / g) later).
    let landing = (2.0 * H0 / G).sqrt();
    let mut apex = f64::NEG_INFINITY;
    let mut bounced = false;
    while world.time() < landing * (1.0 + 2.0 * e) + 0.05 {
        stepper.step(&mut world).unwrap();
        let body = world.body(ball);
        let height = body.pose.translation.z - RADIUS;
        if body.twist.linear.z > 0.0 {
            bounced = true;
        }
        if bounced {
            apex = apex.max(height);
        }
    }
    apex.max(0.0)
}

#[test]
fn a_ball_rebounds_to_e_squared_h0() {
    let v = (2.0 * G * H0).sqrt();
    for max_step in [1e-2, 1e-4] {
        for e in [0.5, 0.8, 1.0] {
            let apex = apex_after_bounce(e, max_step);
            let expected = e * e * H0;
            let bound = e * v * max_step + 1e-6;
            assert!(
                (apex - expected).abs() <= bound,
                "e = {e}, max step {max_step}: apex {apex} m, closed form {expected} m, bound {bound:e}"
            );
        }
    }
}

#[test]
fn with_e_zero_the_ball_stays_down() {
    let apex = apex_after_bounce(0.0, 1e-2);
    assert!(apex < 1e-6, "rose to {apex} m");
}
