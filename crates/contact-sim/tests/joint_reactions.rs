//! Guards the joint reactions read after a step against statics: a slider
//! on a frictionless incline at 30 degrees comes to rest on its prismatic
//! joint's lower limit, which then carries `m g sin(theta)` along the
//! incline (the joint as a whole carries `m g`); a hinge with a vertical
//! axis holding a horizontal rod at rest carries the force `m g` and the
//! torque `m g d` about its anchor. Tolerance 1e-9 relative.

mod common;

use common::{G, block, stepper};
use contact_sim::{JointKind, TimeSteppingParams, World};
use glam::{DQuat, DVec3};

#[test]
fn slider_stops_on_its_limit_which_carries_the_weight_along_the_incline() {
    let theta = 30f64.to_radians();
    let mass = 3.0;
    let axis = DVec3::new(theta.cos(), 0.0, theta.sin());
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    let start = 0.5 * axis;
    let slider = world.add_body(block(
        mass,
        DVec3::splat(0.1),
        start,
        DQuat::from_rotation_arc(DVec3::Z, axis),
    ));
    // Travel along the incline from the slider's start; limit 0.4 m below.
    let joint = world
        .add_joint_at(JointKind::Prismatic, None, slider, start, axis)
        .unwrap();
    *world.joint_mut(joint) = world.joint(joint).with_limit(-0.4, 1.0);
    let mut stepper = stepper(1e-3, TimeSteppingParams::default());
    for _ in 0..1500 {
        stepper.step(&mut world).unwrap();
    }
    let position = world.body(slider).pose.translation;
    assert!(
        (position - (start - 0.4 * axis)).length() < 1e-9,
        "rests on the limit: {position}"
    );
    assert!(world.body(slider).twist.linear.length() < 1e-9);
    let reaction = stepper.solution().joint_reactions[joint.0];
    let weight = mass * G;
    let along = reaction.force.dot(axis);
    println!(
        "force along the incline {along:.12} N, expected {:.12}",
        weight * theta.sin()
    );
    assert!((along - weight * theta.sin()).abs() < 1e-9 * weight);
    assert!((reaction.force - DVec3::new(0.0, 0.0, weight)).length() < 1e-9 * weight);
}

#[test]
fn vertical_hinge_holds_a_horizontal_rod_with_m_g_and_m_g_d() {
    let (mass, length) = (2.0, 1.2);
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    let half = DVec3::new(length / 2.0, 0.03, 0.03);
    let rod = world.add_body(block(
        mass,
        half,
        DVec3::new(length / 2.0, 0.0, 1.0),
        DQuat::IDENTITY,
    ));
    let hinge = world
        .add_joint_at(
            JointKind::Hinge,
            None,
            rod,
            DVec3::new(0.0, 0.0, 1.0),
            DVec3::Z,
        )
        .unwrap();
    let mut stepper = stepper(1e-3, TimeSteppingParams::default());
    for _ in 0..100 {
        stepper.step(&mut world).unwrap();
    }
    assert!(world.body(rod).twist.linear.length() < 1e-9, "at rest");
    let reaction = stepper.solution().joint_reactions[hinge.0];
    let weight = mass * G;
    let d = length / 2.0;
    println!(
        "force {:?} N, torque {:?} N m",
        reaction.force, reaction.torque
    );
    assert!((reaction.force - DVec3::new(0.0, 0.0, weight)).length() < 1e-9 * weight);
    // Gravity's torque about the anchor is (0, m g d, 0); the hinge's balances it.
    assert!((reaction.torque - DVec3::new(0.0, -weight * d, 0.0)).length() < 1e-9 * weight * d);
}
