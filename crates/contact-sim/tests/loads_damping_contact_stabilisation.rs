//! Guards the smaller promises of applied forces and stabilisation: one-off
//! loads act for one step and are cleared; a thruster fixed in the body
//! turns with it; body damping is implicit Euler's `v / (1 + h c / m)` per
//! step exactly; contact penetration is removed in one step without any
//! velocity by post-stabilisation and gradually by Baumgarte's term; the
//! planar blocks scene comes to rest in its plane (within the projection's
//! 1e-10) without interpenetration.

mod common;

use common::{G, block, stepper};
use contact_sim::scenes::{PlanarBlocks, planar_blocks};
use contact_sim::{
    BodyId, FixedStepParams, FixedStepper, ForceElement, ForceFrame, PointForce, Pose, Profile,
    RigidBody, Shape, Stabilisation, StabilisationParams, TimeSteppingParams, World,
};
use glam::{DQuat, DVec3};

const H: f64 = 1e-3;

fn free_block(world: &mut World, rotation: DQuat) -> BodyId {
    world.add_body(block(
        2.0,
        DVec3::splat(0.5),
        DVec3::new(0.0, 0.0, 3.0),
        rotation,
    ))
}

#[test]
fn one_off_loads_act_for_one_step() {
    let mut world = World::new(DVec3::ZERO);
    let body = free_block(&mut world, DQuat::IDENTITY);
    world.body_mut(body).apply_force(DVec3::new(4.0, 0.0, 0.0));
    world
        .body_mut(body)
        .apply_impulse_at_point(DVec3::new(0.0, 2.0, 0.0), DVec3::new(0.0, 0.0, 3.0));
    let mut stepper = stepper(H, TimeSteppingParams::default());
    stepper.step(&mut world).unwrap();
    let expected = DVec3::new(4.0 * H / 2.0, 2.0 / 2.0, 0.0);
    assert!((world.body(body).twist.linear - expected).length() < 1e-15);
    assert_eq!(*world.body(body).applied_loads(), Default::default());
    stepper.step(&mut world).unwrap();
    assert!((world.body(body).twist.linear - expected).length() < 1e-15);
}

#[test]
fn a_body_frame_thruster_turns_with_the_body() {
    let mut world = World::new(DVec3::ZERO);
    // Turned a quarter about z: body x points along world y.
    let body = free_block(
        &mut world,
        DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2),
    );
    let thruster = world
        .add_force(ForceElement::PointForce(PointForce {
            body: body.0,
            point: DVec3::ZERO,
            direction: DVec3::X,
            frame: ForceFrame::Body,
            magnitude: Profile::Constant(6.0),
            enabled: true,
        }))
        .unwrap();
    let mut stepper = stepper(H, TimeSteppingParams::default());
    stepper.step(&mut world).unwrap();
    let v = world.body(body).twist.linear;
    assert!(
        (v - DVec3::new(0.0, 6.0 * H / 2.0, 0.0)).length() < 1e-15,
        "{v}"
    );
    // Switched off between steps.
    if let ForceElement::PointForce(force) = world.force_mut(thruster) {
        force.enabled = false;
    }
    stepper.step(&mut world).unwrap();
    assert!((world.body(body).twist.linear - v).length() < 1e-15);
}

#[test]
fn damping_is_implicit_euler_exactly() {
    let (c, mass, v0) = (50.0, 2.0, 3.0);
    let mut world = World::new(DVec3::ZERO);
    let body = world.add_body(
        block(mass, DVec3::splat(0.5), DVec3::ZERO, DQuat::IDENTITY)
            .with_damping(c, 0.0)
            .unwrap(),
    );
    world.body_mut(body).twist.linear.x = v0;
    // h c / m = 2.5: explicit Euler would reverse and grow the velocity.
    let h = 0.1;
    let mut stepper = stepper(h, TimeSteppingParams::default());
    for n in 1..=20 {
        stepper.step(&mut world).unwrap();
        let expected = v0 / (1.0 + h * c / mass).powi(n);
        let v = world.body(body).twist.linear.x;
        assert!(
            (v - expected).abs() <= 1e-14 * v0,
            "step {n}: {v} vs {expected}"
        );
    }
}

/// A box started `depth` inside the ground; the gap after each step.
fn pushed_out(contacts: Stabilisation, steps: usize) -> (Vec<f64>, f64) {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    world.add_body(RigidBody::fixed(
        Shape::half_space(DVec3::Z).unwrap(),
        Pose::IDENTITY,
    ));
    let depth = 0.01;
    let body = world.add_body(block(
        1.0,
        DVec3::splat(0.5),
        DVec3::new(0.0, 0.0, 0.5 - depth),
        DQuat::IDENTITY,
    ));
    let params = TimeSteppingParams {
        stabilisation: StabilisationParams {
            contacts,
            ..StabilisationParams::default()
        },
        ..TimeSteppingParams::default()
    };
    let mut stepper = stepper(H, params);
    let mut gaps = Vec::new();
    let mut fastest: f64 = 0.0;
    for _ in 0..steps {
        stepper.step(&mut world).unwrap();
        gaps.push(world.body(body).pose.translation.z - 0.5);
        fastest = fastest.max(world.body(body).twist.linear.length());
    }
    (gaps, fastest)
}

#[test]
fn contact_penetration_is_projected_out_or_removed_gradually() {
    // Post-stabilisation: out after one step, and no velocity gained.
    let (gaps, fastest) = pushed_out(Stabilisation::Post, 20);
    assert!(gaps.iter().all(|&g| g >= -1e-9), "{gaps:?}");
    assert!(fastest < 1e-9, "{fastest}");
    // Baumgarte at alpha = 100 / s: the depth shrinks by alpha h per step.
    let (gaps, _) = pushed_out(Stabilisation::Baumgarte { alpha: 100.0 }, 20);
    assert!(gaps[0] < -0.008 && gaps[0] > -0.0095, "{}", gaps[0]);
    assert!(gaps.windows(2).all(|w| w[1] > w[0]), "{gaps:?}");
    assert!(gaps[19] > -0.01 * 0.9_f64.powi(19) - 1e-6, "{}", gaps[19]);
}

#[test]
fn planar_blocks_come_to_rest_in_their_plane() {
    let mut world = planar_blocks(&PlanarBlocks::default()).unwrap();
    let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
    let mut deepest: f64 = 0.0;
    let mut off_plane: f64 = 0.0;
    for _ in 0..720 {
        let report = stepper.step(&mut world).unwrap();
        deepest = deepest.max(-report.min_distance);
        for body in world.bodies().iter().filter(|b| b.is_dynamic()) {
            off_plane = off_plane
                .max(body.pose.translation.y.abs())
                .max((body.pose.rotation * DVec3::Y - DVec3::Y).length());
        }
    }
    for body in world.bodies().iter().filter(|b| b.is_dynamic()) {
        assert!(body.twist.linear.length() < 1e-6, "{:?}", body.twist);
    }
    assert!(deepest < 1e-9, "{deepest}");
    // The step's answers hold the free rows to their certificate's tolerance;
    // the projection keeps the planar errors below its own (1e-10).
    assert!(off_plane <= 2e-10, "{off_plane}");
    // Every corner force points out of the surface it acts through.
    for (contact, force) in stepper.contact_forces() {
        assert!(force.dot(contact.normal) >= -1e-12);
    }
}
