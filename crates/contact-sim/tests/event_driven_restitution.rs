//! Guards Newton's restitution in the event-driven stepper: a bouncing
//! ball's apexes follow `e^(2k) h0` (e = 0.8, and e = 1 keeps every apex),
//! a cube dropped flat rebounds at `e v` without spin and reaches
//! `e^2 h0`, and with e = 0 it stays on the ground. Apexes are measured on
//! the integrated trajectory, sampled every 1 ms, by the parabola through
//! the three samples around each maximum (exact for free flight); the
//! impact speeds are `sqrt(2 g h)` at each landing.

use contact_sim::glam::DVec3;
use contact_sim::{
    EventDrivenParams, EventDrivenStepper, EventKind, MassProperties, Pose, RigidBody, Shape, World,
};

const G: f64 = 9.81;

fn world_with(body: RigidBody) -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    world.add_body(
        RigidBody::fixed(Shape::half_space(DVec3::Z).unwrap(), Pose::IDENTITY)
            .with_friction(0.5)
            .unwrap(),
    );
    world.add_body(body);
    world
}

fn stepper() -> EventDrivenStepper {
    EventDrivenStepper::new(EventDrivenParams::default()).unwrap()
}

/// The heights of the maxima of body 1's lowest point above `offset`,
/// sampled every `dt` over `duration`, refined by a parabola.
fn apexes(
    world: &mut World,
    stepper: &mut EventDrivenStepper,
    duration: f64,
    offset: f64,
) -> Vec<f64> {
    let dt = 1e-3;
    let mut samples = vec![world.body(contact_sim::BodyId(1)).pose.translation.z - offset];
    for _ in 0..(duration / dt).round() as usize {
        stepper.advance(world, dt).unwrap();
        samples.push(world.body(contact_sim::BodyId(1)).pose.translation.z - offset);
    }
    samples
        .windows(3)
        .filter(|w| w[1] > w[0] && w[1] >= w[2] && w[1] > 1e-3)
        .map(|w| {
            // Vertex of the parabola through (-1, w0), (0, w1), (1, w2).
            let (curvature, slope) = (w[0] - 2.0 * w[1] + w[2], 0.5 * (w[2] - w[0]));
            w[1] - slope * slope / (2.0 * curvature)
        })
        .collect()
}

fn ball(restitution: f64, radius: f64, h0: f64) -> RigidBody {
    RigidBody::dynamic(
        Shape::sphere(radius).unwrap(),
        MassProperties::solid_sphere(0.5, radius).unwrap(),
        Pose::from_translation(DVec3::new(0.0, 0.0, radius + h0)),
    )
    .unwrap()
    .with_restitution(restitution)
    .unwrap()
}

#[test]
fn a_bouncing_ball_reaches_e_to_the_2k_of_its_drop() {
    let (radius, h0) = (0.1, 1.0);
    for e in [0.8, 1.0] {
        let mut world = world_with(ball(e, radius, h0));
        let mut stepper = stepper();
        let found = apexes(&mut world, &mut stepper, 4.0, radius);
        assert!(found.len() >= 4, "e = {e}: {found:?}");
        for (k, apex) in found.iter().enumerate().take(5) {
            let expected = e.powi(2 * (k as i32 + 1)) * h0;
            assert!(
                (apex - expected).abs() < 1e-9,
                "e = {e}, apex {}: {apex} vs {expected}",
                k + 1
            );
        }
        let impacts: Vec<f64> = stepper
            .events()
            .iter()
            .filter_map(|event| match event.kind {
                EventKind::Impact { approach_speed, .. } => Some(approach_speed),
                _ => None,
            })
            .collect();
        for (k, speed) in impacts.iter().enumerate().take(5) {
            let expected = e.powi(k as i32) * (2.0 * G * h0).sqrt();
            assert!(
                (speed - expected).abs() < 1e-9,
                "e = {e}, impact {k}: {speed} vs {expected}"
            );
        }
    }
}

#[test]
fn a_cube_dropped_flat_rebounds_at_e_v_without_spin() {
    let (half, h0, mass) = (DVec3::new(0.3, 0.2, 0.1), 0.5, 2.0);
    let landing = (2.0 * h0 / G).sqrt();
    let speed = (2.0 * G * h0).sqrt();
    for e in [0.0, 0.6] {
        let cube = RigidBody::dynamic(
            Shape::cuboid(half).unwrap(),
            MassProperties::solid_box(mass, half).unwrap(),
            Pose::from_translation(DVec3::new(0.0, 0.0, half.z + h0)),
        )
        .unwrap()
        .with_restitution(e)
        .unwrap();
        let mut world = world_with(cube);
        let mut stepper = stepper();
        // Just after the landing: rising at e v less what gravity took since.
        let after = 0.01;
        stepper.advance(&mut world, landing + after).unwrap();
        let Some(impact) = stepper.events().first().copied() else {
            panic!("e = {e}: no impact");
        };
        assert!(
            (impact.time - landing).abs() < 1e-9,
            "e = {e}: {}",
            impact.time
        );
        let EventKind::Impact {
            contacts,
            approach_speed,
            ..
        } = impact.kind
        else {
            panic!("e = {e}: {impact:?}");
        };
        assert_eq!(contacts, 4, "the four bottom corners at once");
        assert!((approach_speed - speed).abs() < 1e-9);
        let body = world.body(contact_sim::BodyId(1));
        let expected = if e > 0.0 { e * speed - G * after } else { 0.0 };
        assert!(
            (body.twist.linear - DVec3::new(0.0, 0.0, expected)).length() < 1e-9,
            "e = {e}: {:?}",
            body.twist
        );
        assert!(
            body.twist.angular.length() < 1e-12,
            "e = {e}: spin {:?}",
            body.twist.angular
        );
        if e > 0.0 {
            let found = apexes(&mut world, &mut stepper, 0.6, half.z);
            let expected = e * e * h0;
            assert!(
                (found[0] - expected).abs() < 1e-9,
                "{found:?} vs {expected}"
            );
        } else {
            // It stays on the ground, at rest.
            stepper.advance(&mut world, 0.5).unwrap();
            let body = world.body(contact_sim::BodyId(1));
            assert!((body.pose.translation.z - half.z).abs() < 1e-9);
            assert!(body.twist.linear.length() < 1e-9);
            assert_eq!(stepper.contacts().len(), 4);
        }
    }
}
