//! Step time of two mechanism scenes, each reported as a ratio to faer's
//! Cholesky factor and solve of a matrix of its step problem's size (the
//! symmetric part of the last step's matrix, shifted to be positive
//! definite), measured in the same run:
//! - a 100-link chain on ball joints pinned at one end, swinging at
//!   h = 1 ms (300 free rows, post-stabilised);
//! - a 20-box stack leaned on by a paddle hinged to the world and driven by
//!   a torque-limited motor (contacts with friction, hinge rows, a motor row).

use std::hint::black_box;

use contact_lcp::faer::linalg::solvers::Solve;
use contact_lcp::faer::{Mat, Side};
use contact_sim::scenes::{BoxStack, box_stack};
use contact_sim::{
    BodyId, FixedStepParams, FixedStepper, JointKind, MassProperties, Pose, RigidBody, Shape, World,
};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::{DQuat, DVec3};

fn block(mass: f64, half: DVec3, at: DVec3) -> RigidBody {
    RigidBody::dynamic(
        Shape::cuboid(half).expect("valid size"),
        MassProperties::solid_box(mass, half).expect("valid mass"),
        Pose::new(at, DQuat::IDENTITY),
    )
    .expect("valid body")
}

/// A chain of `links` 100 mm links on ball joints, pinned at the origin,
/// laid out horizontally.
fn chain(links: usize) -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    let half = DVec3::new(0.05, 0.005, 0.005);
    let mut previous: Option<BodyId> = None;
    for k in 0..links {
        let link = world.add_body(block(
            0.1,
            half,
            DVec3::new(0.1 * k as f64 + 0.05, 0.0, 0.0),
        ));
        world
            .add_joint_at(
                JointKind::Ball,
                previous,
                link,
                DVec3::new(0.1 * k as f64, 0.0, 0.0),
                DVec3::Z,
            )
            .expect("valid joint");
        previous = Some(link);
    }
    world
}

/// A stack of `count` unit boxes and a paddle hinged above the ground beside
/// it, its motor pressing it on the bottom box with at most 2 N m.
fn pushed_stack(count: usize) -> World {
    let mut world = box_stack(&BoxStack {
        count,
        ..BoxStack::default()
    })
    .expect("valid stack");
    let paddle = world.add_body(block(
        1.0,
        DVec3::new(0.05, 0.4, 0.5),
        DVec3::new(-0.55, 0.0, 0.55),
    ));
    let hinge = world
        .add_joint_at(
            JointKind::Hinge,
            None,
            paddle,
            DVec3::new(-0.55, 0.0, 1.05),
            DVec3::Y,
        )
        .expect("valid hinge");
    *world.joint_mut(hinge) = world.joint(hinge).with_motor(1.0, 2.0);
    world
}

/// Times a step of `world` after `warm_up` steps, beside faer's Cholesky of
/// a matrix of its step problem's size.
fn step_beside_cholesky(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    mut world: World,
    h: f64,
    warm_up: usize,
) {
    let mut stepper = FixedStepper::new(FixedStepParams {
        h,
        ..FixedStepParams::default()
    })
    .expect("valid params");
    for _ in 0..warm_up {
        stepper.step(&mut world).expect("scene steps");
    }
    let (m, _) = stepper.last_problem(0);
    let n = m.nrows();
    let max_diag = (0..n).map(|i| m[(i, i)].abs()).fold(0.0, f64::max);
    let shifted = Mat::from_fn(n, n, |i, j| {
        0.5 * (m[(i, j)] + m[(j, i)]) + if i == j { 1e-6 * max_diag } else { 0.0 }
    });
    let rhs = Mat::from_fn(n, 1, |i, _| 1.0 + i as f64);
    group.bench_with_input(BenchmarkId::new("faer_cholesky", n), &shifted, |b, m| {
        b.iter(|| black_box(m).llt(Side::Lower).map(|f| f.solve(&rhs)).is_ok())
    });
    group.bench_function(BenchmarkId::new(name, n), |b| {
        b.iter(|| stepper.step(&mut world).expect("scene steps"))
    });
}

fn mechanisms(c: &mut Criterion) {
    let mut group = c.benchmark_group("scene_chain");
    group.sample_size(20);
    step_beside_cholesky(&mut group, "step_100_link_chain", chain(100), 1e-3, 50);
    group.finish();
    let mut group = c.benchmark_group("scene_pushed_stack");
    group.sample_size(20);
    step_beside_cholesky(
        &mut group,
        "step_20_boxes_and_pusher",
        pushed_stack(20),
        1.0 / 240.0,
        120,
    );
    group.finish();
}

criterion_group!(benches, mechanisms);
criterion_main!(benches);
