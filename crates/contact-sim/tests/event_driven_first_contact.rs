//! Guards the event-driven stepper's collision location: the first contact
//! of a free-falling ball and of a cube spinning edge-down on the ground
//! is logged at the closed-form time of flight to 1e-9 s, under both ODE
//! methods. The closed forms: free flight is `z(t) = z0 + v0 t - g t^2 / 2`
//! and a cube's spin about a principal axis stays constant (its inertia is
//! isotropic), so its lowest point is `z(t) - a (|cos th| + |sin th|)` with
//! `th = th0 + w t`; the first root is found here by scanning and
//! bisecting that formula.

use contact_sim::glam::{DQuat, DVec3};
use contact_sim::{
    EventDrivenParams, EventDrivenStepper, EventKind, MassProperties, OdeMethod, Pose, RigidBody,
    Shape, Twist, World,
};

const G: f64 = 9.81;

fn world_with(body: RigidBody) -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    world.add_body(RigidBody::fixed(
        Shape::half_space(DVec3::Z).unwrap(),
        Pose::IDENTITY,
    ));
    world.add_body(body);
    world
}

/// The time of the first impact the stepper logs.
fn first_impact(mut world: World, method: OdeMethod, until: f64) -> f64 {
    let mut stepper = EventDrivenStepper::new(EventDrivenParams {
        method,
        max_step: 1e-3,
        tolerance: 1e-12,
        ..EventDrivenParams::default()
    })
    .unwrap();
    stepper.advance(&mut world, until).unwrap();
    stepper
        .events()
        .iter()
        .find_map(|event| matches!(event.kind, EventKind::Impact { .. }).then_some(event.time))
        .expect("an impact")
}

/// The first root of `f` on `[0, until]`: scan by `1e-4`, then bisect.
fn first_root(f: impl Fn(f64) -> f64, until: f64) -> f64 {
    let mut t = 0.0;
    while f(t + 1e-4) > 0.0 {
        t += 1e-4;
        assert!(t < until, "no root");
    }
    let (mut lo, mut hi) = (t, t + 1e-4);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[test]
fn a_falling_ball_lands_at_the_time_of_flight() {
    let (radius, z0, vz, vx) = (0.1, 1.3, 0.8, 0.4);
    let gap = |t: f64| z0 - radius + vz * t - 0.5 * G * t * t;
    let expected = (vz + (vz * vz + 2.0 * G * (z0 - radius)).sqrt()) / G;
    assert!((first_root(gap, 2.0) - expected).abs() < 1e-12);
    for method in [OdeMethod::Rk4, OdeMethod::DormandPrince] {
        let mut ball = RigidBody::dynamic(
            Shape::sphere(radius).unwrap(),
            MassProperties::solid_sphere(0.7, radius).unwrap(),
            Pose::from_translation(DVec3::new(0.0, 0.0, z0)),
        )
        .unwrap();
        ball.twist = Twist::new(DVec3::new(vx, 0.0, vz), DVec3::new(3.0, -2.0, 1.0));
        let time = first_impact(world_with(ball), method, expected + 0.05);
        assert!(
            (time - expected).abs() < 1e-9,
            "{method:?}: {time} vs {expected}"
        );
    }
}

#[test]
fn a_cube_spinning_edge_down_lands_at_the_time_of_flight() {
    let (a, z0, vz, spin) = (0.25, 1.2, 0.5, 7.0);
    let theta0 = std::f64::consts::FRAC_PI_4;
    let lowest = |t: f64| {
        let theta = theta0 + spin * t;
        z0 + vz * t - 0.5 * G * t * t - a * (theta.cos().abs() + theta.sin().abs())
    };
    let expected = first_root(lowest, 2.0);
    for method in [OdeMethod::Rk4, OdeMethod::DormandPrince] {
        let mut cube = RigidBody::dynamic(
            Shape::cuboid(DVec3::splat(a)).unwrap(),
            MassProperties::solid_box(1.3, DVec3::splat(a)).unwrap(),
            Pose::new(DVec3::new(0.0, 0.0, z0), DQuat::from_rotation_x(theta0)),
        )
        .unwrap();
        cube.twist = Twist::new(DVec3::new(0.0, 0.0, vz), DVec3::new(spin, 0.0, 0.0));
        let time = first_impact(world_with(cube), method, expected + 0.05);
        assert!(
            (time - expected).abs() < 1e-9,
            "{method:?}: {time} vs {expected}"
        );
    }
}
