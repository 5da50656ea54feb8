//! Guards isotropic Coulomb friction: a box launched along 0, 30 and 45
//! degrees slides the same distance to 1e-6 relative, which is
//! `v0^2 / (2 mu g)` up to the integration's `v0 h / 2`; a block on an
//! incline sticks up to the friction angle and slides beyond it whatever
//! the incline's azimuth, in both formulations.

mod common;

use common::{G, block, stepper};
use contact_sim::{Formulation, Pose, RigidBody, Shape, TimeSteppingParams, World};
use glam::{DQuat, DVec3};

const H: f64 = 1.0 / 240.0;
const MU: f64 = 0.4;

fn params(formulation: Formulation) -> TimeSteppingParams {
    TimeSteppingParams {
        formulation,
        ..TimeSteppingParams::default()
    }
}

fn slide_distance(formulation: Formulation, degrees: f64, v0: f64) -> f64 {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    world.add_body(
        RigidBody::fixed(Shape::half_space(DVec3::Z).unwrap(), Pose::IDENTITY)
            .with_friction(MU)
            .unwrap(),
    );
    let cube = world.add_body(
        block(
            1.0,
            DVec3::splat(0.5),
            DVec3::new(0.0, 0.0, 0.5),
            DQuat::IDENTITY,
        )
        .with_friction(MU)
        .unwrap(),
    );
    let direction = DVec3::new(degrees.to_radians().cos(), degrees.to_radians().sin(), 0.0);
    world.body_mut(cube).twist.linear = v0 * direction;
    let mut stepper = stepper(H, params(formulation));
    for _ in 0..((v0 / (MU * G) / H) as usize + 20) {
        stepper.step(&mut world).unwrap();
    }
    assert!(world.body(cube).twist.linear.length() < 1e-12);
    world.body(cube).pose.translation.truncate().length()
}

#[test]
fn a_box_slides_the_same_distance_in_every_direction() {
    let v0 = 3.0;
    let expected = v0 * v0 / (2.0 * MU * G);
    for formulation in [Formulation::Complementarity, Formulation::BoxFriction] {
        let distances: Vec<f64> = [0.0, 30.0, 45.0]
            .iter()
            .map(|&d| slide_distance(formulation, d, v0))
            .collect();
        println!("{formulation:?}: {distances:?}, closed form {expected}");
        for d in &distances {
            assert!(
                (d - distances[0]).abs() < 1e-6 * distances[0],
                "{distances:?}"
            );
            assert!((d - expected).abs() < v0 * H, "{d} vs {expected}");
        }
    }
}

/// Whether a cube on an incline of `slope` (rad) falling towards azimuth
/// `azimuth` (rad) slides within a second.
fn slides(formulation: Formulation, slope: f64, azimuth: f64) -> bool {
    let downhill = DVec3::new(azimuth.cos(), azimuth.sin(), 0.0);
    let axis = DVec3::Z.cross(downhill);
    let tilt = DQuat::from_axis_angle(axis, slope);
    let up = tilt * DVec3::Z;
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    world.add_body(
        RigidBody::fixed(Shape::half_space(up).unwrap(), Pose::IDENTITY)
            .with_friction(MU)
            .unwrap(),
    );
    let cube = world.add_body(
        block(1.0, DVec3::splat(0.5), 0.5 * up, tilt)
            .with_friction(MU)
            .unwrap(),
    );
    let mut stepper = stepper(H, params(formulation));
    for _ in 0..240 {
        stepper.step(&mut world).unwrap();
    }
    (world.body(cube).pose.translation - 0.5 * up).length() > 1e-6
}

#[test]
fn a_block_sticks_up_to_the_friction_angle_at_every_azimuth() {
    let angle = MU.atan();
    for formulation in [Formulation::Complementarity, Formulation::BoxFriction] {
        for azimuth in [0.0_f64, 20.0, 45.0] {
            let azimuth = azimuth.to_radians();
            assert!(
                !slides(formulation, angle - 0.01, azimuth),
                "{formulation:?} {azimuth}: slid below"
            );
            assert!(
                slides(formulation, angle + 0.01, azimuth),
                "{formulation:?} {azimuth}: stuck above"
            );
        }
    }
}
