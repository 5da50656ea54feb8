//! Guards that every solver of contact-lcp the stepper can use takes the
//! free (bilateral) rows of joints, including redundant ones: the box
//! problem of a four-bar linkage resting its coupler on a box (hinge rows,
//! a redundant closed loop, contacts with friction) is solved by Dantzig,
//! by Lemke on the standard form, by projected Gauss-Seidel and by the
//! policy, each answer certified by `verify_box`; and that a warmed-up step
//! of such a scene allocates nothing.

mod common;

use common::{G, block, stepper};
use contact_lcp::{
    BoxLcp, Dantzig, Lcp, Lemke, PgsParams, ProjectedGaussSeidel, Solver, verify_box_z,
};
use contact_sim::{
    BodyId, FixedStepper, Formulation, JointKind, Pose, RigidBody, Shape, TimeSteppingParams, World,
};
use glam::{DQuat, DVec3};

/// A pendulum chain of three boxes on hinges, its last link lying on the
/// ground, and a loop closed back to the world: redundant hinge rows and
/// contacts in one problem.
fn scene() -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    world.add_body(RigidBody::fixed(
        Shape::half_space(DVec3::Z).unwrap(),
        Pose::IDENTITY,
    ));
    let half = DVec3::new(0.5, 0.1, 0.1);
    let links: Vec<BodyId> = (0..3)
        .map(|k| {
            world.add_body(block(
                1.0,
                half,
                DVec3::new(0.5 + k as f64, 0.0, 0.1),
                DQuat::IDENTITY,
            ))
        })
        .collect();
    let hinge = |world: &mut World, a, b, x: f64| {
        world
            .add_joint_at(JointKind::Hinge, a, b, DVec3::new(x, 0.0, 0.1), DVec3::Y)
            .unwrap();
    };
    hinge(&mut world, None, links[0], 0.0);
    hinge(&mut world, Some(links[0]), links[1], 1.0);
    hinge(&mut world, Some(links[1]), links[2], 2.0);
    hinge(&mut world, None, links[2], 3.0);
    world
}

#[test]
fn every_solver_takes_free_and_redundant_rows() {
    let mut world = scene();
    let params = TimeSteppingParams {
        formulation: Formulation::BoxFriction,
        ..TimeSteppingParams::default()
    };
    let mut stepper = stepper(1e-3, params);
    stepper.step(&mut world).unwrap();
    assert!(
        !stepper.contacts().is_empty(),
        "the links rest on the ground"
    );
    let (m, q) = stepper.last_problem(0);
    let problem = BoxLcp::with_bounds(
        Lcp::new(m.to_owned(), q.to_vec()).unwrap(),
        stepper.last_box_bounds(0).clone(),
    )
    .unwrap();
    let free = problem.lo().iter().filter(|lo| lo.is_infinite()).count();
    assert!(free >= 20, "hinge rows are free: {free}");
    let answers = [
        ("Dantzig", Dantzig::default().solve(&problem).unwrap().z),
        ("Lemke", Lemke::default().solve_box(&problem).unwrap().z),
        (
            "PGS",
            ProjectedGaussSeidel::new(PgsParams {
                max_sweeps: 200_000,
                tolerance: 1e-10,
                ..PgsParams::default()
            })
            .solve(&problem, None)
            .unwrap()
            .z,
        ),
        ("policy", Solver::default().solve(&problem).unwrap().z),
    ];
    for (name, z) in answers {
        let report = verify_box_z(&problem, &z);
        println!("{name}: scaled residual {:.1e}", report.scaled_max());
        assert!(report.scaled_max() < 1e-8, "{name}: {report:?}");
    }
}

#[test]
fn a_warmed_up_mechanism_step_allocates_nothing() {
    for formulation in [Formulation::Complementarity, Formulation::BoxFriction] {
        let mut world = scene();
        let mut stepper: FixedStepper = stepper(
            1e-3,
            TimeSteppingParams {
                formulation,
                ..TimeSteppingParams::default()
            },
        );
        for _ in 0..20 {
            stepper.step(&mut world).unwrap();
        }
        let info = allocation_counter::measure(|| {
            for _ in 0..50 {
                stepper.step(&mut world).unwrap();
            }
        });
        assert_eq!(info.count_total, 0, "{formulation:?}: {info:?}");
    }
}
