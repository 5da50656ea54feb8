//! Guards conservative advancement of a jointed chain (Drumwright 2016,
//! sec. 5-6.2, with the multibody bounds of eq. 11-15): a 20-link pendulum
//! released horizontally over a ground 1 mm beyond its reach swings past
//! its lowest point without contact; its steps are the maximum while it is
//! far from the ground and shrink as its tip sweeps down close to it.

mod ca_support;

use contact_sim::glam::DVec3;
use contact_sim::{
    BodyId, CaParams, CaStepper, JointKind, MassProperties, Pose, RigidBody, Shape, World,
};

const LINKS: usize = 20;
const LENGTH: f64 = 0.1;
const HALF: DVec3 = DVec3::new(0.05, 0.01, 0.01);
/// The pivot's height above the ground (m).
const PIVOT: f64 = 3.0;

/// The chain hinged about y at (0, 0, PIVOT), laid out along +x, over the
/// ground at `clearance` below its farthest reach: the far corners of the
/// last link are `LENGTH (LINKS - 1) + |(2 HALF.x, HALF.y, HALF.z)|` from
/// the pivot however the hinges turn.
fn chain(clearance: f64) -> World {
    let reach = LENGTH * (LINKS - 1) as f64 + DVec3::new(2.0 * HALF.x, HALF.y, HALF.z).length();
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    let ground = RigidBody::fixed(
        Shape::half_space(DVec3::Z).unwrap(),
        Pose::from_translation(DVec3::new(0.0, 0.0, PIVOT - reach - clearance)),
    );
    world.add_body(ground);
    let mut previous: Option<BodyId> = None;
    for k in 0..LINKS {
        let x = LENGTH * k as f64;
        let link = world.add_body(
            RigidBody::dynamic(
                Shape::cuboid(HALF).unwrap(),
                MassProperties::solid_box(0.1, HALF).unwrap(),
                Pose::from_translation(DVec3::new(x + 0.5 * LENGTH, 0.0, PIVOT)),
            )
            .unwrap(),
        );
        world
            .add_joint_at(
                JointKind::Hinge,
                previous,
                link,
                DVec3::new(x, 0.0, PIVOT),
                DVec3::Y,
            )
            .unwrap();
        previous = Some(link);
    }
    world
}

#[test]
fn a_chain_swings_past_the_ground_without_contact_with_shrinking_steps() {
    let mut world = chain(1e-3);
    let params = CaParams::default();
    let mut stepper = CaStepper::new(params).unwrap();
    let ground_level = world.bodies()[0].pose.translation.z;
    let gap = |world: &World| {
        (1..=LINKS)
            .map(|i| ca_support::height_above_ground(&world.bodies()[i]) - ground_level)
            .fold(f64::INFINITY, f64::min)
    };
    // (gap to the ground at the start, step, what set it) of every step,
    // through the first swing past the lowest point.
    let mut steps = Vec::new();
    while world.time() < 1.2 {
        let before = gap(&world);
        let report = stepper.step(&mut world).unwrap();
        steps.push((before, report.h, report.limit));
        assert!(
            gap(&world) > 0.0,
            "the chain reached the ground at t = {}",
            world.time()
        );
    }
    println!("{}", stepper.statistics());
    for (gap, h, limit) in steps.iter().filter(|s| s.0 < 0.1) {
        println!("  gap {gap:.3e} m  step {h:.3e} s  {limit:?}");
    }
    assert!(stepper.events().is_empty(), "{:?}", stepper.events());
    assert!(world.largest_joint_error() < 1e-9);
    // Far from the ground nothing limits the step.
    let far: Vec<f64> = steps.iter().filter(|s| s.0 > 0.5).map(|s| s.1).collect();
    assert!(far.len() > 50);
    assert!(far.iter().all(|&h| h == params.max_step), "{far:?}");
    // The shortest step is taken close to the ground, where the tip
    // sweeps down at speed.
    let &(gap_at_shortest, shortest, _) = steps.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    println!("shortest step {shortest:.3e} s at {gap_at_shortest:.3e} m");
    assert!(gap_at_shortest < 0.05 && shortest < 0.6 * params.max_step);
}
