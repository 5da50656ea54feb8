//! Guards Newton's restitution in the fixed stepper: a cube dropped flat
//! from `h0` rebounds at `e sqrt(2 g h0)` without spin and rises to
//! `e^2 h0`; `e = 0` sticks, `e = 1` rises back to `h0`; a bouncing ball's
//! apexes follow `e^(2k) h0`. Closed forms of free flight; tolerances 1e-3
//! relative at h = 1e-4 s (the free flight's integration error is about
//! `v h / 2` at an apex).

mod common;

use common::{G, block, stepper};
use contact_sim::{BodyId, MassProperties, Pose, RigidBody, Shape, TimeSteppingParams, World};
use glam::{DQuat, DVec3};

const H: f64 = 1e-4;
const DROP: f64 = 1.0;

fn ground(world: &mut World, restitution: f64) {
    world.add_body(
        RigidBody::fixed(Shape::half_space(DVec3::Z).unwrap(), Pose::IDENTITY)
            .with_restitution(restitution)
            .unwrap(),
    );
}

/// Drops `body` (its lowest point `DROP` above the ground, `bottom` below
/// its centre) and returns the apexes of its centre's height above the
/// rest height, the rebound speeds and the largest spin seen.
fn bounces(mut world: World, body: BodyId, bottom: f64, count: usize) -> (Vec<f64>, Vec<f64>, f64) {
    let mut stepper = stepper(H, TimeSteppingParams::default());
    let (mut apexes, mut rebounds) = (Vec::new(), Vec::new());
    let mut spin: f64 = 0.0;
    let mut last_v = 0.0;
    let mut steps = 0;
    while apexes.len() < count && steps < 200_000 {
        stepper.step(&mut world).unwrap();
        steps += 1;
        let b = world.body(body);
        let v = b.twist.linear.z;
        spin = spin.max(b.twist.angular.length());
        if last_v <= 0.0 && v > 0.0 {
            rebounds.push(v);
        }
        if last_v > 0.0 && v <= 0.0 {
            apexes.push(b.pose.translation.z - bottom);
        }
        last_v = v;
    }
    (apexes, rebounds, spin)
}

fn dropped_cube(e: f64) -> (World, BodyId) {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    ground(&mut world, 0.0);
    let cube = world.add_body(
        block(
            1.0,
            DVec3::splat(0.5),
            DVec3::new(0.0, 0.0, 0.5 + DROP),
            DQuat::IDENTITY,
        )
        .with_restitution(e)
        .unwrap(),
    );
    (world, cube)
}

#[test]
fn a_cube_dropped_flat_rebounds_at_e_v_without_spin() {
    let impact = (2.0 * G * DROP).sqrt();
    for e in [0.5, 1.0] {
        let (world, cube) = dropped_cube(e);
        let (apexes, rebounds, spin) = bounces(world, cube, 0.5, 1);
        println!(
            "e = {e}: rebound {:.6} (e v = {:.6}), apex {:.6} (e^2 h0 = {:.6}), spin {spin:.1e}",
            rebounds[0],
            e * impact,
            apexes[0],
            e * e * DROP
        );
        assert!(
            (rebounds[0] - e * impact).abs() < 1e-3 * impact,
            "{e}: {}",
            rebounds[0]
        );
        assert!(
            (apexes[0] - e * e * DROP).abs() < 1e-3 * DROP,
            "{e}: {}",
            apexes[0]
        );
        assert!(spin < 1e-9, "{spin}");
    }
}

#[test]
fn a_cube_with_no_restitution_sticks() {
    let (mut world, cube) = dropped_cube(0.0);
    let mut stepper = stepper(H, TimeSteppingParams::default());
    let mut highest_after_landing: f64 = 0.0;
    let mut landed = false;
    for _ in 0..8000 {
        stepper.step(&mut world).unwrap();
        let b = world.body(cube);
        landed |= b.pose.translation.z < 0.5 + 1e-9;
        if landed {
            highest_after_landing = highest_after_landing.max(b.twist.linear.z);
        }
    }
    assert!(landed);
    assert!(highest_after_landing < 1e-9, "{highest_after_landing}");
}

#[test]
fn a_bouncing_ball_s_apexes_follow_e_to_the_2k() {
    let (e, radius) = (0.8, 0.1);
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    ground(&mut world, 0.0);
    let ball = world.add_body(
        RigidBody::dynamic(
            Shape::sphere(radius).unwrap(),
            MassProperties::solid_sphere(0.5, radius).unwrap(),
            Pose::from_translation(DVec3::new(0.0, 0.0, radius + DROP)),
        )
        .unwrap()
        .with_restitution(e)
        .unwrap(),
    );
    let (apexes, _, _) = bounces(world, ball, radius, 3);
    for (k, apex) in apexes.iter().enumerate() {
        let expected = e.powi(2 * (k as i32 + 1)) * DROP;
        println!(
            "bounce {}: apex {apex:.6}, e^(2k) h0 = {expected:.6}",
            k + 1
        );
        assert!(
            (apex - expected).abs() < 1e-3 * DROP,
            "{k}: {apex} vs {expected}"
        );
    }
}

/// Five balls in a row, the first launched at 1 m/s into the others, e = 1,
/// no friction, no gravity; the balls' velocities after the impacts.
fn cradle(gap: f64) -> Vec<f64> {
    let radius = 0.1;
    let mut world = World::new(DVec3::ZERO);
    let balls: Vec<BodyId> = (0..5)
        .map(|k| {
            let x = k as f64 * (2.0 * radius + gap) - if k == 0 { 0.05 } else { 0.0 };
            world.add_body(
                RigidBody::dynamic(
                    Shape::sphere(radius).unwrap(),
                    MassProperties::solid_sphere(1.0, radius).unwrap(),
                    Pose::from_translation(DVec3::new(x, 0.0, 0.0)),
                )
                .unwrap()
                .with_restitution(1.0)
                .unwrap()
                .with_friction(0.0)
                .unwrap(),
            )
        })
        .collect();
    world.body_mut(balls[0]).twist.linear.x = 1.0;
    let mut stepper = stepper(1e-3, TimeSteppingParams::default());
    for _ in 0..300 {
        stepper.step(&mut world).unwrap();
    }
    balls
        .iter()
        .map(|&b| world.body(b).twist.linear.x)
        .collect()
}

/// The impact law is Newton's, simultaneous over the contacts of a step
/// (docs/architecture.md): with small gaps the impacts come one after
/// another and the cradle passes the speed to the last ball; touching
/// balls, hit at once, share it as the simultaneous law says: the first
/// ball returns at -0.6 m/s and the four others go on together at 0.4
/// m/s. Momentum and energy are kept in both.
#[test]
fn newtons_cradle_with_gaps_and_touching() {
    for (gap, expected) in [
        (0.01, [0.0, 0.0, 0.0, 0.0, 1.0]),
        (0.0, [-0.6, 0.4, 0.4, 0.4, 0.4]),
    ] {
        let v = cradle(gap);
        println!("gap {gap}: {v:?}");
        for (got, want) in v.iter().zip(expected) {
            assert!((got - want).abs() < 1e-9, "gap {gap}: {v:?}");
        }
        let momentum: f64 = v.iter().sum();
        let energy: f64 = v.iter().map(|x| x * x).sum();
        assert!((momentum - 1.0).abs() < 1e-9 && (energy - 1.0).abs() < 1e-9);
    }
}
