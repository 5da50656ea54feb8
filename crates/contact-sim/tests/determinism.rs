//! Guards that results never depend on the number of threads: a scene of
//! many islands (separate stacks, tumbling boxes, a hinged chain) stepped
//! in thread pools of 1, 2 and 4 threads ends in the same state to the bit,
//! and that state's hash is committed here, so an unintended change of the
//! physics shows. (An intended one updates `EXPECTED` with the new hash
//! printed by the failure.)

mod common;

use common::{G, block};
use contact_sim::{
    BodyId, FixedStepParams, FixedStepper, JointKind, Pose, RigidBody, Shape, World,
};
use glam::{DQuat, DVec3};

/// FNV-1a over the bits of every pose and twist.
fn state_hash(world: &World) -> u64 {
    let mut hash = 0xCBF2_9CE4_8422_2325_u64;
    for body in world.bodies() {
        let p = body.pose;
        let t = body.twist;
        for x in [
            p.translation.x,
            p.translation.y,
            p.translation.z,
            p.rotation.x,
            p.rotation.y,
            p.rotation.z,
            p.rotation.w,
            t.linear.x,
            t.linear.y,
            t.linear.z,
            t.angular.x,
            t.angular.y,
            t.angular.z,
        ] {
            for byte in x.to_bits().to_le_bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3);
            }
        }
    }
    hash
}

fn scene() -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    world.add_body(RigidBody::fixed(
        Shape::half_space(DVec3::Z).unwrap(),
        Pose::IDENTITY,
    ));
    let half = DVec3::splat(0.5);
    // Four stacks of three, 3 m apart.
    for s in 0..4 {
        for level in 0..3 {
            let at = DVec3::new(3.0 * s as f64, 0.0, 0.5 + level as f64);
            world.add_body(block(1.0, half, at, DQuat::IDENTITY));
        }
    }
    // Two tumbling boxes dropped with spin.
    for (k, x) in [13.0, 16.0].into_iter().enumerate() {
        let tilt = DQuat::from_euler(glam::EulerRot::XYZ, 0.3 + 0.2 * k as f64, 0.5, 0.1);
        let id = world.add_body(block(
            2.0,
            DVec3::new(0.5, 0.3, 0.2),
            DVec3::new(x, 0.0, 1.5),
            tilt,
        ));
        world.body_mut(id).twist.angular = DVec3::new(1.0, -2.0, 0.5);
    }
    // A hinged chain of three links hanging from y = 5.
    let mut previous: Option<BodyId> = None;
    for k in 0..3 {
        let link = world.add_body(block(
            0.5,
            DVec3::new(0.25, 0.05, 0.05),
            DVec3::new(0.25 + 0.5 * k as f64, 5.0, 4.0),
            DQuat::IDENTITY,
        ));
        let anchor = DVec3::new(0.5 * k as f64, 5.0, 4.0);
        world
            .add_joint_at(JointKind::Hinge, previous, link, anchor, DVec3::Y)
            .unwrap();
        previous = Some(link);
    }
    world
}

fn run(threads: usize) -> (u64, usize) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut world = scene();
        let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
        let mut islands = 0;
        for _ in 0..120 {
            stepper.step(&mut world).unwrap();
            islands = islands.max(stepper.last_island_count());
        }
        (state_hash(&world), islands)
    })
}

/// The hash of the scene after 120 steps.
const EXPECTED: u64 = 0x65d4_8638_048a_9732;

#[test]
fn the_same_state_with_one_two_and_four_threads() {
    let (one, islands) = run(1);
    assert!(islands >= 7, "the scene has many islands: {islands}");
    assert_eq!(run(2).0, one);
    assert_eq!(run(4).0, one);
    assert_eq!(one, EXPECTED, "state hash {one:#018x}");
}
