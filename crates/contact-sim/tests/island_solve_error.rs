//! Guards the promise of a failed step (issue 26, "Bad input"): when every
//! solver of an island's step problem gives up, the step returns
//! `DynamicsError::IslandSolve` naming the island, its rows, the
//! formulation and the solver that failed, with the solver's best iterate
//! attached, and the world is left exactly as it was.

mod common;

use common::block;
use contact_dynamics::DynamicsError;
use contact_sim::contact_lcp::{
    DantzigParams, LcpError, LemkeParams, Method, PgsParams, SolverParams,
};
use contact_sim::{
    FixedStepParams, FixedStepper, Formulation, Pose, RigidBody, Shape, SimError,
    TimeSteppingParams, World,
};
use glam::{DQuat, DVec3};

/// The bits of every body's pose and twist, and of the clock.
fn state_bits(world: &World) -> Vec<u64> {
    let mut bits = vec![world.time().to_bits()];
    for body in world.bodies() {
        let (p, t) = (body.pose, body.twist);
        bits.extend(
            [
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
            ]
            .map(f64::to_bits),
        );
    }
    bits
}

/// Island 0: a box 5 mm above the ground rising at 1 m/s, whose contact
/// (within the margin) needs no impulse, so any solver answers it at once.
/// Island 1: a stack of three boxes 5 m away, whose resting contacts need
/// pivots or sweeps.
fn scene() -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    world.add_body(RigidBody::fixed(
        Shape::half_space(DVec3::Z).unwrap(),
        Pose::IDENTITY,
    ));
    let half = DVec3::splat(0.5);
    let rising = world.add_body(block(
        1.0,
        half,
        DVec3::new(0.0, 0.0, 0.505),
        DQuat::IDENTITY,
    ));
    world.body_mut(rising).twist.linear = DVec3::Z;
    for level in 0..3 {
        let at = DVec3::new(5.0, 0.0, 0.5 + level as f64);
        world.add_body(block(1.0, half, at, DQuat::IDENTITY));
    }
    world
}

/// Solver settings that cannot succeed on a resting stack: one pivot for
/// Dantzig (without its block guesses) and for Lemke, one sweep of the Gauss-Seidel fail-safe to a
/// tolerance it cannot reach.
fn hopeless() -> SolverParams {
    SolverParams {
        dantzig: DantzigParams {
            max_pivots: 1,
            max_total_pivots: 1,
            block_guess_from: usize::MAX,
            ..DantzigParams::default()
        },
        lemke: LemkeParams {
            max_pivots: 1,
            ..LemkeParams::default()
        },
        pgs: PgsParams {
            max_sweeps: 1,
            tolerance: 1e-15,
            ..PgsParams::default()
        },
        ..SolverParams::default()
    }
}

#[test]
fn a_failed_island_solve_names_island_solver_and_best_iterate_and_changes_nothing() {
    for formulation in [Formulation::Complementarity, Formulation::BoxFriction] {
        let mut world = scene();
        let mut stepper = FixedStepper::new(FixedStepParams {
            dynamics: TimeSteppingParams {
                formulation,
                box_solver: hopeless(),
                ..TimeSteppingParams::default()
            },
            ..FixedStepParams::default()
        })
        .unwrap();
        let before = state_bits(&world);
        let error = stepper.step(&mut world).unwrap_err();
        assert_eq!(state_bits(&world), before, "{formulation:?}: world changed");
        let message = error.to_string();
        let SimError::Dynamics(DynamicsError::IslandSolve {
            island,
            bodies,
            rows,
            formulation: named,
            solver,
            source,
            ..
        }) = error
        else {
            panic!("{formulation:?}: not an island solve error: {error:?}");
        };
        // The stack's island: three bodies, four contacts on each of three
        // faces, three rows per contact (normal and two tangents).
        assert_eq!((island, bodies, rows), (1, 3, 36), "{message}");
        assert_eq!(named, formulation);
        // Dantzig and Lemke ran out of pivots, the policy's fail-safe of
        // sweeps: its error is the one returned.
        assert_eq!(solver, Some(Method::ProjectedGaussSeidel), "{message}");
        assert!(
            matches!(source, LcpError::IterationLimit { sweeps: 1, .. }),
            "{source:?}"
        );
        let best = source.best().expect("the fail-safe's best iterate");
        assert_eq!(best.method, Method::ProjectedGaussSeidel);
        assert_eq!(best.z.len(), rows);
        assert!(best.report.scaled_max() > 1e-15, "{:?}", best.report);
        assert!(message.contains("island 1"), "{message}");
        assert!(message.contains("ProjectedGaussSeidel"), "{message}");
    }
}
