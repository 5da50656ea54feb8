use contact_sim::*;
use glam::{DQuat, DVec3};
fn main() {
    let theta: f64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(90.0);
    let stab = std::env::args().nth(2).unwrap_or("post".into());
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    let rotation = DQuat::from_rotation_y(theta.to_radians());
    let centre = rotation * DVec3::new(0.0, 0.0, -0.5);
    let half = DVec3::new(0.025, 0.025, 0.5);
    let rod = world.add_body(
        RigidBody::dynamic(
            Shape::cuboid(half).unwrap(),
            MassProperties::solid_box(2.0, half).unwrap(),
            Pose::new(centre, rotation),
        )
        .unwrap(),
    );
    world
        .add_joint_at(JointKind::Hinge, None, rod, DVec3::ZERO, DVec3::Y)
        .unwrap();
    let mut params = FixedStepParams {
        h: 1e-3,
        ..Default::default()
    };
    params.dynamics.stabilisation.joints = match stab.as_str() {
        "none" => Stabilisation::None,
        "post" => Stabilisation::Post,
        a => Stabilisation::Baumgarte {
            alpha: a.parse().unwrap(),
        },
    };
    let mut st = FixedStepper::new(params).unwrap();
    let e0 = world.kinetic_energy() + world.potential_energy();
    for i in 0..4000 {
        st.step(&mut world).unwrap();
        if i % 250 == 0 {
            let e = world.kinetic_energy() + world.potential_energy();
            let p = world.body(rod).pose.translation;
            println!("{i}: dE {:.3e} r {:.9} ", e - e0, p.length());
        }
    }
}
