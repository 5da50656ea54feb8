//! Guards stabilisation on Cline's experiment (2002, sec. 5.2.1): a chain
//! of six 100 mm links on ball joints, pinned at one end and released
//! horizontally, h = 1 ms, 600 steps. The largest joint separation must be
//! ordered none > Baumgarte 50 > Baumgarte 200 > post-stabilisation, and
//! post-stabilisation must keep it below 0.01 mm (Cline reports about 20,
//! 5, 3 and below 0.01 mm).

mod common;

use common::{G, block, stepper};
use contact_sim::{JointKind, Stabilisation, StabilisationParams, TimeSteppingParams, World};
use glam::{DQuat, DVec3};

const LINKS: usize = 6;
const LENGTH: f64 = 0.1;

fn chain() -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    let half = DVec3::new(LENGTH / 2.0, 0.005, 0.005);
    let mut previous = None;
    for k in 0..LINKS {
        let x = (k as f64 + 0.5) * LENGTH;
        let link = world.add_body(block(0.1, half, DVec3::new(x, 0.0, 0.0), DQuat::IDENTITY));
        let anchor = DVec3::new(k as f64 * LENGTH, 0.0, 0.0);
        world
            .add_joint_at(JointKind::Ball, previous, link, anchor, DVec3::Z)
            .unwrap();
        previous = Some(link);
    }
    world
}

/// The largest joint separation (m) over the run.
fn largest_separation(joints: Stabilisation) -> f64 {
    let mut world = chain();
    let params = TimeSteppingParams {
        stabilisation: StabilisationParams {
            joints,
            ..StabilisationParams::default()
        },
        ..TimeSteppingParams::default()
    };
    let mut stepper = stepper(1e-3, params);
    let mut largest: f64 = 0.0;
    for _ in 0..600 {
        stepper.step(&mut world).unwrap();
        largest = largest.max(world.largest_joint_error());
    }
    largest
}

#[test]
fn separation_is_ordered_none_baumgarte_post() {
    let none = largest_separation(Stabilisation::None);
    let b50 = largest_separation(Stabilisation::Baumgarte { alpha: 50.0 });
    let b200 = largest_separation(Stabilisation::Baumgarte { alpha: 200.0 });
    let post = largest_separation(Stabilisation::Post);
    println!(
        "largest separation (mm): none {:.4}, Baumgarte 50 {:.4}, Baumgarte 200 {:.4}, post {:.2e}",
        1e3 * none,
        1e3 * b50,
        1e3 * b200,
        1e3 * post
    );
    assert!(
        none > b50 && b50 > b200 && b200 > post,
        "{none} {b50} {b200} {post}"
    );
    assert!(post < 1e-5, "{post}");
}
