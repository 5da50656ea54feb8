//! Guards springs against the harmonic oscillator: a mass on a spring
//! oscillates with the period `2 pi sqrt(m / k)` to 1e-4, explicit and
//! implicit; with k = 1e7, m = 1, h = 1e-2 (k h^2 / m = 1e3) the linearly
//! implicit spring (Cline 2002, sec. 2.7.4) stays bounded and never gains
//! energy, where the explicit one blows up.

mod common;

use common::{block, stepper, upward_crossings};
use contact_sim::{Attachment, BodyId, ForceElement, Spring, TimeSteppingParams, World};
use glam::{DQuat, DVec3};

const REST: f64 = 1.0;

fn oscillator(stiffness: f64, implicit: bool, stretch: f64) -> (World, BodyId, usize) {
    let mut world = World::new(DVec3::ZERO);
    let body = world.add_body(block(
        1.0,
        DVec3::splat(0.05),
        DVec3::new(REST + stretch, 0.0, 0.0),
        DQuat::IDENTITY,
    ));
    let spring = world
        .add_force(ForceElement::Spring(Spring {
            a: Attachment::World(DVec3::ZERO),
            b: Attachment::Body {
                body: body.0,
                point: DVec3::ZERO,
            },
            stiffness,
            damping: 0.0,
            rest_length: REST,
            implicit,
        }))
        .unwrap();
    (world, body, spring.0)
}

fn energy(world: &World, body: BodyId, stiffness: f64) -> f64 {
    let stretch = world.body(body).pose.translation.length() - REST;
    world.kinetic_energy() + 0.5 * stiffness * stretch * stretch
}

#[test]
fn period_is_two_pi_sqrt_m_over_k() {
    let k: f64 = 100.0;
    let expected = std::f64::consts::TAU / k.sqrt();
    for implicit in [false, true] {
        let (mut world, body, _) = oscillator(k, implicit, 0.1);
        let h = 1e-4;
        let mut stepper = stepper(h, TimeSteppingParams::default());
        let mut x = Vec::new();
        for _ in 0..((3.5 * expected / h) as usize) {
            stepper.step(&mut world).unwrap();
            x.push(world.body(body).pose.translation.x - REST);
        }
        let crossings = upward_crossings(&x, h);
        let n = crossings.len() - 1;
        let period = (crossings[n] - crossings[0]) / n as f64;
        let error = (period - expected).abs() / expected;
        println!(
            "implicit {implicit}: period {period:.8} s, 2 pi sqrt(m/k) {expected:.8}, error {error:.1e}"
        );
        assert!(error < 1e-4, "implicit {implicit}: {period} vs {expected}");
    }
}

#[test]
fn stiff_spring_is_stable_implicitly_and_blows_up_explicitly() {
    let k = 1e7;
    let h = 1e-2;
    let (mut world, body, _) = oscillator(k, true, 0.01);
    let mut implicit = stepper(h, TimeSteppingParams::default());
    let mut last = energy(&world, body, k);
    for _ in 0..1000 {
        implicit.step(&mut world).unwrap();
        let now = energy(&world, body, k);
        assert!(now <= last * (1.0 + 1e-12), "energy rose: {last} -> {now}");
        last = now;
        assert!((world.body(body).pose.translation.x - REST).abs() <= 0.01 + 1e-12);
    }
    let (mut world, body, _) = oscillator(k, false, 0.01);
    let mut explicit = stepper(h, TimeSteppingParams::default());
    let start = energy(&world, body, k);
    let mut blew_up = false;
    for _ in 0..50 {
        match explicit.step(&mut world) {
            Ok(_) if energy(&world, body, k) < 1e6 * start => {}
            _ => {
                blew_up = true;
                break;
            }
        }
    }
    assert!(
        blew_up,
        "the explicit step should be unstable at k h^2 / m = 1e3"
    );
}
