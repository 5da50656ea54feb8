//! Guards applied forces against Coulomb friction and statics: a unit box
//! pushed horizontally at its centre stays put below `mu m g` and slides
//! with `a = F / m - mu g` above it (to 1e-6); a tall box pushed high tips
//! about its leading edge at `F = m g (w / 2) / h_push` when friction is
//! large and slides at `mu m g` when it is small, and under a force ramp
//! `F = t` each onset comes within one step of its threshold time.

mod common;

use common::{G, block, stepper};
use contact_dynamics::tangent_pair;
use contact_sim::{
    BodyId, ForceElement, ForceFrame, PointForce, Pose, Profile, RigidBody, Shape,
    TimeSteppingParams, World,
};
use glam::{DQuat, DVec3};

const H: f64 = 1e-3;

/// The ground, and a box of `half` extents and `mass` resting on it.
fn box_on_ground(half: DVec3, mass: f64, mu: f64) -> (World, BodyId) {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    world.add_body(
        RigidBody::fixed(Shape::half_space(DVec3::Z).unwrap(), Pose::IDENTITY)
            .with_friction(mu)
            .unwrap(),
    );
    let body = world.add_body(
        block(mass, half, DVec3::new(0.0, 0.0, half.z), DQuat::IDENTITY)
            .with_friction(mu)
            .unwrap(),
    );
    (world, body)
}

/// The push direction: the first friction tangent of the ground's normal,
/// along which both friction cones reach exactly `mu` times the normal force.
fn push_direction() -> DVec3 {
    tangent_pair(DVec3::Z).0
}

fn push(body: BodyId, height: f64, magnitude: Profile) -> ForceElement {
    ForceElement::PointForce(PointForce {
        body: body.0,
        point: DVec3::new(0.0, 0.0, height),
        direction: push_direction(),
        frame: ForceFrame::World,
        magnitude,
        enabled: true,
    })
}

#[test]
fn box_sticks_below_mu_m_g_and_slides_with_f_over_m_minus_mu_g_above() {
    let (mass, mu) = (2.0, 0.4);
    for formulation in [
        contact_sim::Formulation::Complementarity,
        contact_sim::Formulation::BoxFriction,
    ] {
        for ratio in [0.5, 0.99, 1.5, 3.0] {
            let force = ratio * mu * mass * G;
            let (mut world, body) = box_on_ground(DVec3::splat(0.5), mass, mu);
            world
                .add_force(push(body, 0.0, Profile::Constant(force)))
                .unwrap();
            let params = TimeSteppingParams {
                formulation,
                ..TimeSteppingParams::default()
            };
            let mut stepper = stepper(H, params);
            let steps = 200;
            for _ in 0..steps {
                stepper.step(&mut world).unwrap();
            }
            let speed = world.body(body).twist.linear.dot(push_direction());
            let expected = (force / mass - mu * G).max(0.0) * steps as f64 * H;
            println!(
                "{formulation:?} F = {ratio} mu m g: speed {speed:.9}, expected {expected:.9}"
            );
            assert!(
                (speed - expected).abs() < 1e-6,
                "{formulation:?} {ratio}: {speed} vs {expected}"
            );
        }
    }
}

/// The first step time at which `moved` holds, pushing a tall box with
/// `F = t` at `height` above its centre.
fn onset(mu: f64, height: f64, moved: impl Fn(&World, BodyId) -> bool) -> f64 {
    let half = DVec3::new(0.25, 0.25, 1.0);
    let (mut world, body) = box_on_ground(half, 1.0, mu);
    world
        .add_force(push(
            body,
            height,
            Profile::Ramp {
                initial: 0.0,
                rate: 1.0,
            },
        ))
        .unwrap();
    let mut stepper = stepper(H, TimeSteppingParams::default());
    loop {
        let t = world.time();
        stepper.step(&mut world).unwrap();
        if moved(&world, body) {
            return t;
        }
        assert!(t < 20.0, "nothing moved");
    }
}

#[test]
fn tall_box_tips_or_slides_at_its_threshold() {
    let (w, height_above_centre) = (0.5, 0.5);
    let h_push = 1.0 + height_above_centre;
    let tips = |world: &World, body: BodyId| world.body(body).twist.angular.length() > 1e-9;
    let slides =
        |world: &World, body: BodyId| world.body(body).twist.linear.dot(push_direction()) > 1e-9;
    // Large friction: it tips first, at m g (w / 2) / h_push.
    let tip_threshold = G * (w / 2.0) / h_push;
    let t = onset(1.0, height_above_centre, tips);
    println!("tips at t = {t:.4} s, threshold {tip_threshold:.4} s");
    assert!(
        (t - tip_threshold).abs() <= H + 1e-12,
        "{t} vs {tip_threshold}"
    );
    // Small friction: it slides first, at mu m g.
    let mu = 0.1;
    let t = onset(mu, height_above_centre, slides);
    println!("slides at t = {t:.4} s, threshold {:.4} s", mu * G);
    assert!((t - mu * G).abs() <= H + 1e-12, "{t} vs {}", mu * G);
}
