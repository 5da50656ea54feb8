//! Guards Painleve's rod in the event-driven stepper: a pencil on its tip
//! at `tan t = 2`, the tip sliding away from the pencil, is reported as
//! inconsistent at acceleration level above the friction threshold and
//! resolved by an impulsive step that jams the tip; below it, it slides
//! with no impulse and the tip's initial normal force is the closed form.
//!
//! Closed forms (one contact at the tip, `r = -l (cos t, 0, sin t)` from
//! the centre, rotation about y only): with friction `-mu N` along x
//! opposing the slip, the tip's normal acceleration per unit normal force
//! is `A = 1/m + l^2 cos t (cos t - mu sin t) / I_yy` and without force it
//! is `-g`, so `N = g / A` when `A > 0` and no force exists when `A < 0`.
//! The jam is the impulse `P` that stops the tip: `P / m + (I^-1 (r x P))
//! x r = -u_tip`, two equations in the plane.

use contact_geometry::ConvexPolytope;
use contact_sim::glam::{DMat3, DQuat, DVec3};
use contact_sim::{
    EventDrivenParams, EventDrivenStepper, EventKind, MassProperties, PainleveKind, Pose,
    RigidBody, Shape, Twist, World,
};

const G: f64 = 9.81;
/// Half length of the pencil's body.
const L: f64 = 0.5;
/// Half thickness.
const W: f64 = 0.02;
/// Length of each pyramid tip.
const TIP: f64 = 0.05;

/// A square pencil with a pyramid tip at each end, of density 500.
fn pencil() -> (Shape, MassProperties) {
    let mut points = Vec::new();
    for x in [-L, L] {
        for y in [-W, W] {
            for z in [-W, W] {
                points.push(DVec3::new(x, y, z));
            }
        }
    }
    points.push(DVec3::new(L + TIP, 0.0, 0.0));
    points.push(DVec3::new(-L - TIP, 0.0, 0.0));
    let shape = Shape::polytope(ConvexPolytope::from_points(&points).unwrap());
    let mass = shape.mass_properties(500.0).unwrap();
    (shape, mass)
}

/// The pencil on its lower tip at `tan t = 2`, sliding at 1 m/s along -x
/// (away from itself), on a ground; both with friction `mu`.
fn world(mu: f64) -> World {
    let angle = 2.0_f64.atan();
    let l = L + TIP;
    let (shape, mass) = pencil();
    let pose = Pose::new(
        l * DVec3::new(angle.cos(), 0.0, angle.sin()),
        DQuat::from_rotation_y(-angle),
    );
    let mut body = RigidBody::dynamic(shape, mass, pose)
        .unwrap()
        .with_friction(mu)
        .unwrap();
    body.twist = Twist::new(DVec3::new(-1.0, 0.0, 0.0), DVec3::ZERO);
    let mut world = World::new(DVec3::new(0.0, 0.0, -G));
    world.add_body(
        RigidBody::fixed(Shape::half_space(DVec3::Z).unwrap(), Pose::IDENTITY)
            .with_friction(mu)
            .unwrap(),
    );
    world.add_body(body);
    world
}

/// `(A, mu at which A = 0)` of the closed form.
fn closed_form(mu: f64) -> (f64, f64) {
    let angle = 2.0_f64.atan();
    let (c, s, l) = (angle.cos(), angle.sin(), L + TIP);
    let (_, mass) = pencil();
    let (m, inertia) = (mass.mass(), mass.local_inertia().y_axis.y);
    let a = 1.0 / m + l * l * c * (c - mu * s) / inertia;
    let threshold = (1.0 / m + l * l * c * c / inertia) * inertia / (l * l * c * s);
    (a, threshold)
}

fn stepper() -> EventDrivenStepper {
    EventDrivenStepper::new(EventDrivenParams::default()).unwrap()
}

fn tip(world: &World) -> (DVec3, DVec3) {
    let body = world.body(contact_sim::BodyId(1));
    let at = body.pose.transform_point(DVec3::new(-L - TIP, 0.0, 0.0));
    (at, body.point_velocity(at))
}

#[test]
fn above_the_threshold_the_rod_is_inconsistent_and_jams() {
    let (_, threshold) = closed_form(0.0);
    let mu = 1.5 * threshold;
    assert!(closed_form(mu).0 < 0.0);
    let mut world = world(mu);
    // The jam: the impulse that stops the tip, from the pencil's state.
    let body = world.body(contact_sim::BodyId(1)).clone();
    let (at, velocity) = tip(&world);
    let r = at - body.pose.translation;
    let m = body.mass_properties().unwrap();
    let inverse = m.world_inv_inertia(body.pose.rotation);
    let response = |p: DVec3| p * m.inv_mass() + (inverse * r.cross(p)).cross(r);
    let (ex, ez) = (response(DVec3::X), response(DVec3::Z));
    let k = DMat3::from_cols(ex, DVec3::Y, ez);
    let p = k.inverse() * -velocity;
    let jam = DVec3::new(p.x, 0.0, p.z);
    assert!(jam.z > 0.0 && jam.x.abs() <= mu * jam.z, "{jam}");

    let mut stepper = stepper();
    stepper.advance(&mut world, 0.02).unwrap();
    let events = stepper.events();
    let Some(first) = events.first() else {
        panic!("no event");
    };
    let EventKind::Painleve {
        bodies,
        kind,
        normal_impulse,
    } = first.kind
    else {
        panic!("{first:?}");
    };
    assert_eq!(
        (first.time, bodies, kind),
        (0.0, (0, 1), PainleveKind::Inconsistent)
    );
    // The impulsive step adds gravity over its 1 us: a relative 1e-4 at most.
    assert!(
        (normal_impulse - jam.z).abs() < 1e-4 * jam.z,
        "{normal_impulse} vs {}",
        jam.z
    );
    assert!(
        events
            .iter()
            .skip(1)
            .all(|e| !matches!(e.kind, EventKind::Painleve { .. })),
        "{events:?}"
    );
    // Jammed: the tip stays put (it pivots) and out of the ground.
    let (at_end, velocity_end) = tip(&world);
    assert!(
        at_end.z > -1e-9 && (at_end.x - at.x).abs() < 1e-5,
        "{at_end}"
    );
    assert!(velocity_end.length() < 1e-6, "{velocity_end}");
}

#[test]
fn below_the_threshold_the_rod_slides_without_impulse() {
    let (_, threshold) = closed_form(0.0);
    let mu = 0.5 * threshold;
    let (a, _) = closed_form(mu);
    let mut world = world(mu);
    let mut stepper = stepper();
    stepper.advance(&mut world, 0.0).unwrap();
    let (_, _, force) = stepper.contact_forces().next().expect("the tip rests");
    let expected = G / a;
    assert!(
        (force.z - expected).abs() < 1e-9 * expected,
        "{force} vs {expected}"
    );
    assert!(
        (force.x - mu * expected).abs() < 1e-9 * expected,
        "friction {force}"
    );
    let (start, _) = tip(&world);
    let report = stepper.advance(&mut world, 0.05).unwrap();
    assert!(stepper.events().is_empty(), "{:?}", stepper.events());
    assert_eq!(report.projections, 0);
    let (end, velocity) = tip(&world);
    assert_eq!(stepper.contacts().len(), 1, "the tip stays on the ground");
    assert!(end.z.abs() < 1e-9, "{end}");
    assert!(
        end.x < start.x - 0.01 && velocity.x < -0.1,
        "it slides: {end}, {velocity}"
    );
}
