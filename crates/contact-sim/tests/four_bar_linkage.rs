//! Guards redundant joint rows: a planar four-bar linkage (ground, crank,
//! coupler, rocker on four hinges) is a closed loop whose 20 hinge rows
//! hold 18 degrees of freedom with two to spare. Both formulations must
//! solve it (not refuse it), and with post-stabilisation the loop stays
//! closed to 1e-9 while the linkage swings under gravity.

mod common;

use common::{G, block, stepper};
use contact_sim::{BodyId, Formulation, JointKind, TimeSteppingParams, World};
use glam::{DQuat, DVec3};

/// A link between two points of the x-z plane, as a thin box.
fn link(world: &mut World, from: DVec3, to: DVec3) -> BodyId {
    let d = to - from;
    let rotation = DQuat::from_rotation_arc(DVec3::X, d.normalize());
    let half = DVec3::new(d.length() / 2.0, 0.02, 0.02);
    world.add_body(block(1.0, half, (from + to) / 2.0, rotation))
}

fn four_bar() -> World {
    let (a, d) = (DVec3::ZERO, DVec3::new(2.0, 0.0, 0.0));
    let b = DVec3::new(0.0, 0.0, 1.0);
    // C at 2 from B and 1.5 from D, in the x-z plane.
    let x = (13.5 + (13.5_f64 * 13.5 - 20.0 * 7.390625).sqrt()) / 10.0;
    let c = DVec3::new(x, 0.0, 2.0 * x - 2.375);
    assert!(((c - b).length() - 2.0).abs() < 1e-12 && ((c - d).length() - 1.5).abs() < 1e-12);
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    let crank = link(&mut world, a, b);
    let coupler = link(&mut world, b, c);
    let rocker = link(&mut world, d, c);
    for (first, second, at) in [
        (None, crank, a),
        (Some(crank), coupler, b),
        (Some(coupler), rocker, c),
        (None, rocker, d),
    ] {
        world
            .add_joint_at(JointKind::Hinge, first, second, at, DVec3::Y)
            .unwrap();
    }
    world
}

#[test]
fn closed_loop_stays_closed_in_both_formulations() {
    for formulation in [Formulation::Complementarity, Formulation::BoxFriction] {
        let mut world = four_bar();
        let params = TimeSteppingParams {
            formulation,
            ..TimeSteppingParams::default()
        };
        let mut stepper = stepper(1e-3, params);
        let start = world.body(BodyId(0)).pose;
        let mut largest: f64 = 0.0;
        for _ in 0..1500 {
            stepper.step(&mut world).unwrap();
            largest = largest.max(world.largest_joint_error());
        }
        let turned = world
            .body(BodyId(0))
            .pose
            .rotation
            .angle_between(start.rotation);
        println!("{formulation:?}: crank turned {turned:.3} rad, largest loop error {largest:.1e}");
        assert!(turned > 0.05, "the linkage moves: {turned}");
        assert!(largest < 1e-9, "{formulation:?}: {largest}");
    }
}
