//! Time per simulated second of the event-driven stepper (Baraff 1994
//! contact forces between located events), Dormand-Prince 5(4) at its
//! default tolerance, on two scenes:
//! - Drumwright's die: a 10 cm cube thrown spinning onto the ground
//!   (restitution 0.3, friction 0.5); one iteration simulates its first
//!   second (flight, a few dozen impacts, rolling and coming to rest);
//! - a pile of 20 boxes dropped in five loose layers onto the ground
//!   (friction 0.5); one iteration simulates `PILE_SECONDS` from the drop,
//!   the landing of the first layers (many impacts, resting contacts with
//!   sliding friction, non-symmetric contact LCPs); its time per simulated
//!   second is the iteration's time divided by `PILE_SECONDS`.
//!
//! Each iteration starts from a fresh copy of the scene.

use contact_sim::glam::{DQuat, DVec3};
use contact_sim::{
    EventDrivenParams, EventDrivenStepper, MassProperties, Pose, RigidBody, Shape, Twist, World,
};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

/// Simulated seconds of the pile per iteration.
const PILE_SECONDS: f64 = 0.1;

fn ground(world: &mut World) {
    world.add_body(
        RigidBody::fixed(
            Shape::half_space(DVec3::Z).expect("unit normal"),
            Pose::IDENTITY,
        )
        .with_friction(0.5)
        .expect("valid friction"),
    );
}

/// A 10 cm, 100 g die thrown from 30 cm with a tumbling spin.
fn die() -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    ground(&mut world);
    let half = DVec3::splat(0.05);
    let mut die = RigidBody::dynamic(
        Shape::cuboid(half).expect("valid size"),
        MassProperties::solid_box(0.1, half).expect("valid mass"),
        Pose::new(
            DVec3::new(0.0, 0.0, 0.3),
            DQuat::from_scaled_axis(DVec3::new(0.7, -1.1, 0.4)),
        ),
    )
    .and_then(|b| b.with_friction(0.5))
    .and_then(|b| b.with_restitution(0.3))
    .expect("valid die");
    die.twist = Twist::new(DVec3::new(1.0, 0.3, -1.0), DVec3::new(8.0, -5.0, 3.0));
    world.add_body(die);
    world
}

/// 20 boxes of 20 x 16 x 12 cm in five layers of four, each turned about
/// z and tilted a little, 3 cm apart vertically.
fn pile() -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    ground(&mut world);
    let half = DVec3::new(0.1, 0.08, 0.06);
    let mut k = 0;
    for layer in 0..5 {
        for i in 0..2 {
            for j in 0..2 {
                k += 1;
                let angle = 0.37 * f64::from(k);
                let at = DVec3::new(
                    0.3 * f64::from(i) + 0.02 * angle.sin(),
                    0.3 * f64::from(j) + 0.02 * angle.cos(),
                    0.08 + 0.15 * f64::from(layer),
                );
                let tilt = DVec3::new(0.05 * angle.cos(), 0.05 * angle.sin(), angle);
                let body = RigidBody::dynamic(
                    Shape::cuboid(half).expect("valid size"),
                    MassProperties::solid_box(0.5, half).expect("valid mass"),
                    Pose::new(at, DQuat::from_scaled_axis(tilt)),
                )
                .and_then(|b| b.with_friction(0.5))
                .expect("valid box");
                world.add_body(body);
            }
        }
    }
    world
}

fn event_driven(c: &mut Criterion) {
    let mut group = c.benchmark_group("event_driven");
    group.sample_size(10);
    for (name, scene, seconds) in [("die", die(), 1.0), ("pile_20_boxes", pile(), PILE_SECONDS)] {
        let mut stepper =
            EventDrivenStepper::new(EventDrivenParams::default()).expect("valid params");
        group.bench_function(BenchmarkId::new(name, seconds), |b| {
            b.iter(|| {
                let mut world = scene.clone();
                stepper
                    .advance(&mut world, seconds)
                    .expect("scene advances");
                world
            })
        });
    }
    group.finish();
}

criterion_group!(benches, event_driven);
criterion_main!(benches);
