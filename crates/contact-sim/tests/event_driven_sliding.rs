//! Guards dynamic friction and the stick event in the event-driven
//! stepper: a box launched along the ground at `v0` slides to rest after
//! `v0 / (mu g)` seconds and `v0^2 / (2 mu g)` metres (the closed form of
//! constant deceleration `mu g`), whatever the launch direction, comes to
//! rest through a logged stick event and then stays put.

use contact_sim::glam::{DQuat, DVec3};
use contact_sim::{
    EventDrivenParams, EventDrivenStepper, EventKind, MassProperties, OdeMethod, Pose, RigidBody,
    Shape, Twist, World,
};

const G: f64 = 9.81;

#[test]
fn a_box_slides_to_rest_at_v0_squared_over_2_mu_g() {
    let (half, mass, mu, v0) = (DVec3::new(0.3, 0.2, 0.1), 3.0, 0.4, 2.0);
    let distance = v0 * v0 / (2.0 * mu * G);
    let stop = v0 / (mu * G);
    for method in [OdeMethod::Rk4, OdeMethod::DormandPrince] {
        for degrees in [0.0_f64, 30.0, 45.0] {
            let direction = DVec3::new(degrees.to_radians().cos(), degrees.to_radians().sin(), 0.0);
            let mut world = World::new(DVec3::new(0.0, 0.0, -G));
            world.add_body(
                RigidBody::fixed(Shape::half_space(DVec3::Z).unwrap(), Pose::IDENTITY)
                    .with_friction(mu)
                    .unwrap(),
            );
            // The box turned about z too, so its corners are not along the
            // launch direction.
            let mut body = RigidBody::dynamic(
                Shape::cuboid(half).unwrap(),
                MassProperties::solid_box(mass, half).unwrap(),
                Pose::new(DVec3::new(0.0, 0.0, half.z), DQuat::from_rotation_z(0.3)),
            )
            .unwrap()
            .with_friction(mu)
            .unwrap();
            body.twist = Twist::new(v0 * direction, DVec3::ZERO);
            let id = world.add_body(body);
            let mut stepper = EventDrivenStepper::new(EventDrivenParams {
                method,
                ..EventDrivenParams::default()
            })
            .unwrap();
            stepper.advance(&mut world, stop + 0.3).unwrap();
            let what = format!("{method:?} at {degrees} degrees");
            let sticks: Vec<f64> = stepper
                .events()
                .iter()
                .filter(|e| matches!(e.kind, EventKind::Stick { .. }))
                .map(|e| e.time)
                .collect();
            assert!(!sticks.is_empty(), "{what}: {:?}", stepper.events());
            assert!(
                sticks.iter().all(|t| (t - stop).abs() < 1e-9),
                "{what}: {sticks:?} vs {stop}"
            );
            assert!(
                stepper
                    .events()
                    .iter()
                    .all(|e| matches!(e.kind, EventKind::Stick { .. })),
                "{what}: {:?}",
                stepper.events()
            );
            let body = world.body(id);
            let travelled = body.pose.translation - DVec3::new(0.0, 0.0, half.z);
            assert!(
                (travelled - distance * direction).length() < 1e-9 * distance,
                "{what}: {travelled}"
            );
            // At rest to the velocity the located stop leaves (mu g times
            // the event tolerance), decaying through static friction.
            assert!(
                body.twist.linear.length() < 1e-9 && body.twist.angular.length() < 1e-9,
                "{what}: {:?}",
                body.twist
            );
            assert_eq!(stepper.contacts().len(), 4, "{what}");
        }
    }
}
