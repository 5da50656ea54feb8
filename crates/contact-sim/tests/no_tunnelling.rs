//! Guards speculative contacts and the removal of initial overlaps: a ball
//! shot at 20 and 100 m/s at a 1 cm plate stops on it instead of passing
//! through, and never penetrates it by more than 1e-6 m; boxes spawned
//! overlapping are moved apart without gaining kinetic energy.

mod common;

use common::{G, block, stepper};
use contact_sim::{MassProperties, Pose, RigidBody, Shape, TimeSteppingParams, World};
use glam::{DQuat, DVec3};

#[test]
fn a_fast_ball_stops_on_a_thin_plate() {
    let radius = 0.05;
    for speed in [20.0, 100.0] {
        let mut world = World::new(DVec3::new(0.0, 0.0, -G));
        // A 1 cm plate, its top at z = 0.
        world.add_body(RigidBody::fixed(
            Shape::cuboid(DVec3::new(1.0, 1.0, 0.005)).unwrap(),
            Pose::from_translation(DVec3::new(0.0, 0.0, -0.005)),
        ));
        let ball = world.add_body(
            RigidBody::dynamic(
                Shape::sphere(radius).unwrap(),
                MassProperties::solid_sphere(1.0, radius).unwrap(),
                Pose::from_translation(DVec3::new(0.0, 0.0, 2.0)),
            )
            .unwrap(),
        );
        world.body_mut(ball).twist.linear.z = -speed;
        let mut stepper = stepper(1.0 / 240.0, TimeSteppingParams::default());
        let mut lowest = f64::INFINITY;
        for _ in 0..240 {
            stepper.step(&mut world).unwrap();
            lowest = lowest.min(world.body(ball).pose.translation.z - radius);
        }
        println!("{speed} m/s: lowest point {lowest:.3e} m above the plate");
        assert!(lowest >= -1e-6, "{speed} m/s: penetrated to {lowest}");
        assert!(world.body(ball).pose.translation.z > 0.0, "passed through");
        assert!(
            world.body(ball).twist.linear.length() < 1e-9,
            "at rest on the plate"
        );
    }
}

#[test]
fn overlapping_boxes_are_moved_apart_without_gaining_energy() {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    world.add_body(RigidBody::fixed(
        Shape::half_space(DVec3::Z).unwrap(),
        Pose::IDENTITY,
    ));
    // Two cubes 5 cm into each other side by side, the second 2 cm into
    // the ground, a third 3 cm into the first from above.
    let half = DVec3::splat(0.5);
    let a = world.add_body(block(1.0, half, DVec3::new(0.0, 0.0, 0.5), DQuat::IDENTITY));
    let b = world.add_body(block(
        1.0,
        half,
        DVec3::new(0.95, 0.0, 0.48),
        DQuat::IDENTITY,
    ));
    let c = world.add_body(block(
        1.0,
        half,
        DVec3::new(0.1, 0.0, 1.47),
        DQuat::IDENTITY,
    ));
    let mut stepper = stepper(1.0 / 240.0, TimeSteppingParams::default());
    let mut most_energy: f64 = 0.0;
    for _ in 0..120 {
        stepper.step(&mut world).unwrap();
        most_energy = most_energy.max(world.kinetic_energy());
    }
    let report = stepper.step(&mut world).unwrap();
    println!(
        "most kinetic energy {most_energy:.3e} J; deepest at the end {:.1e}",
        -report.min_distance
    );
    // Settling under gravity alone: at most the energy of a fall of a
    // millimetre, nothing like the overlap's push.
    assert!(most_energy < 1e-3 * 3.0 * G, "{most_energy}");
    assert!(report.min_distance > -1e-9, "{report:?}");
    for id in [a, b, c] {
        assert!(world.body(id).twist.linear.length() < 1e-6);
    }
}
