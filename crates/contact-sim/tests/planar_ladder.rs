//! Guards the planar lock and frictionless contact against the
//! one-degree-of-freedom Lagrangian of a sliding ladder: a block leaning on
//! a frictionless wall, standing on a frictionless floor, in a planar world
//! (the myPhysicsLab setting), slides down and leaves the wall when the
//! wall's force, `m` times the horizontal acceleration of its centre, falls
//! to zero. The time it leaves matches the Lagrangian's (integrated
//! independently by RK4) within two steps, and the off-plane motion stays
//! below 1e-12.

mod common;

use common::{G, block, stepper};
use contact_sim::{BodyId, Pose, RigidBody, Shape, TimeSteppingParams, World};
use glam::{DQuat, DVec3};

const WIDTH: f64 = 0.2;
const HEIGHT: f64 = 1.0;
const PHI0: f64 = 0.5;
const H: f64 = 1e-3;

/// The time the wall's force vanishes, from the Lagrangian in the lean
/// angle `phi` (per unit mass). The block's left edge runs from the floor
/// at `(L sin phi, 0)` to the wall at `(0, L cos phi)`; its centre is at
/// `c = (a sin phi + b cos phi, a cos phi + b sin phi)` with `a = L / 2`,
/// `b = w / 2`, so `|c'|^2 = (a^2 + b^2 - 2 a b sin 2 phi) phi'^2` and
/// `T = J(phi) phi'^2 / 2` with `J = I_c + a^2 + b^2 - 2 a b sin 2 phi`,
/// `V = g c_z(phi)`: `J phi'' + J' phi'^2 / 2 + g c_z' = 0`.
fn lagrangian_leave_time() -> f64 {
    let (a, b) = (HEIGHT / 2.0, WIDTH / 2.0);
    let inertia_centre = (HEIGHT * HEIGHT + WIDTH * WIDTH) / 12.0;
    let j = |phi: f64| inertia_centre + a * a + b * b - 2.0 * a * b * (2.0 * phi).sin();
    let dj = |phi: f64| -4.0 * a * b * (2.0 * phi).cos();
    let dcz = |phi: f64| -a * phi.sin() + b * phi.cos();
    let accel = |phi: f64, rate: f64| -(0.5 * dj(phi) * rate * rate + G * dcz(phi)) / j(phi);
    // Horizontal acceleration of the centre: d/dt (k(phi) phi'), k = c_x'.
    let centre_x_accel = |phi: f64, rate: f64| {
        let k = a * phi.cos() - b * phi.sin();
        let dk = -a * phi.sin() - b * phi.cos();
        dk * rate * rate + k * accel(phi, rate)
    };
    let (mut phi, mut rate, mut t) = (PHI0, 0.0_f64, 0.0);
    let dt = 1e-6;
    loop {
        let k1 = (rate, accel(phi, rate));
        let k2 = (
            rate + 0.5 * dt * k1.1,
            accel(phi + 0.5 * dt * k1.0, rate + 0.5 * dt * k1.1),
        );
        let k3 = (
            rate + 0.5 * dt * k2.1,
            accel(phi + 0.5 * dt * k2.0, rate + 0.5 * dt * k2.1),
        );
        let k4 = (rate + dt * k3.1, accel(phi + dt * k3.0, rate + dt * k3.1));
        phi += dt / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
        rate += dt / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
        t += dt;
        if centre_x_accel(phi, rate) <= 0.0 {
            return t;
        }
    }
}

fn ladder() -> (World, BodyId, BodyId) {
    let mut world = World::planar(DVec3::new(0.0, 0.0, -G));
    let frictionless = |shape, pose| RigidBody::fixed(shape, pose).with_friction(0.0).unwrap();
    world.add_body(frictionless(
        Shape::half_space(DVec3::Z).unwrap(),
        Pose::IDENTITY,
    ));
    let wall = world.add_body(frictionless(
        Shape::half_space(DVec3::X).unwrap(),
        Pose::IDENTITY,
    ));
    let rotation = DQuat::from_rotation_y(-PHI0);
    let corner = DVec3::new(HEIGHT * PHI0.sin(), 0.0, 0.0);
    let centre = corner + rotation * DVec3::new(WIDTH / 2.0, 0.0, HEIGHT / 2.0);
    let half = DVec3::new(WIDTH / 2.0, 0.1, HEIGHT / 2.0);
    let ladder = world.add_body(
        block(1.0, half, centre, rotation)
            .with_friction(0.0)
            .unwrap(),
    );
    (world, wall, ladder)
}

#[test]
fn block_leaves_the_wall_when_the_lagrangian_says() {
    let predicted = lagrangian_leave_time();
    let (mut world, wall, ladder) = ladder();
    let mut stepper = stepper(H, TimeSteppingParams::default());
    let mut pushed = false;
    let mut off_plane: f64 = 0.0;
    let left = loop {
        let t = world.time();
        stepper.step(&mut world).unwrap();
        let wall_impulse: f64 = stepper
            .contacts()
            .iter()
            .zip(&stepper.solution().normal_impulses)
            .filter(|(c, _)| c.body_a == wall.0 || c.body_b == wall.0)
            .map(|(_, impulse)| impulse)
            .sum();
        let body = world.body(ladder);
        let y_axis = body.pose.rotation * DVec3::Y;
        off_plane = off_plane
            .max(body.pose.translation.y.abs())
            .max((y_axis - DVec3::Y).length())
            .max(body.twist.linear.y.abs());
        pushed |= wall_impulse > 1e-6;
        if pushed && wall_impulse == 0.0 {
            break t;
        }
        assert!(t < 2.0, "never left the wall");
    };
    println!(
        "left the wall at {left:.4} s, Lagrangian {predicted:.4} s, off-plane {off_plane:.1e}"
    );
    assert!((left - predicted).abs() <= 2.0 * H, "{left} vs {predicted}");
    assert!(off_plane < 1e-12, "{off_plane}");
}
