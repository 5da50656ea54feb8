//! The collision pass at poses other than the bodies' own (the poses a step
//! arrives at): the broad phase must look where the bodies will be.

use contact_sim::{CollisionPass, MassProperties, Pose, RigidBody, Shape};
use glam::{DQuat, DVec3};

#[test]
fn detect_at_finds_the_overlaps_of_the_given_poses_not_of_the_bodies_own() {
    let half = DVec3::splat(0.5);
    let cube = |x: f64| {
        RigidBody::dynamic(
            Shape::cuboid(half).unwrap(),
            MassProperties::solid_box(1.0, half).unwrap(),
            Pose::try_new(DVec3::new(x, 0.0, 0.0), DQuat::IDENTITY).unwrap(),
        )
        .unwrap()
    };
    // Ten metres apart where they are; overlapping by 1 cm where they arrive.
    let bodies = [cube(0.0), cube(10.0)];
    let arrived = [
        bodies[0].pose,
        Pose::try_new(DVec3::new(0.99, 0.0, 0.0), DQuat::IDENTITY).unwrap(),
    ];
    let mut pass = CollisionPass::default();
    let mut contacts = Vec::new();
    pass.detect_at(
        &bodies,
        &arrived,
        &[],
        0.01,
        0.0,
        DVec3::ZERO,
        &mut contacts,
    )
    .unwrap();
    assert!(!contacts.is_empty(), "the arrived overlap was not found");
    for c in &contacts {
        // Face-face: every point 1 cm deep along x.
        assert!((c.distance + 0.01).abs() < 1e-12, "{}", c.distance);
        assert!((c.normal.x.abs() - 1.0).abs() < 1e-12, "{}", c.normal);
    }
    // And at their own poses, nothing.
    pass.detect(&bodies, &[], 0.01, 0.0, DVec3::ZERO, &mut contacts)
        .unwrap();
    assert!(contacts.is_empty());
}
