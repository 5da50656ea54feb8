//! Guards the time conservative advancement finds a first contact: a cube
//! falling flat and a cube spinning edge-down touch the ground when their
//! closed-form flight says, to 1e-9 s.

mod ca_support;

use ca_support::{CUBE_HALF as HALF, cube_over_ground};
use contact_sim::glam::{DQuat, DVec3};
use contact_sim::{CaEventKind, CaParams, CaStepper, Pose, Twist, World};

const G: f64 = 9.81;

/// The time of the first touch event.
fn first_touch(mut world: World) -> f64 {
    let mut stepper = CaStepper::new(CaParams::default()).unwrap();
    while stepper.events().is_empty() {
        stepper.step(&mut world).unwrap();
        assert!(world.time() < 2.0, "no contact within 2 s");
    }
    let event = stepper.events()[0];
    assert_eq!(event.kind, CaEventKind::Touch);
    assert_eq!((event.body_a, event.body_b), (0, 1));
    println!("{event}\n{}", stepper.statistics());
    event.time
}

/// The first root of `f` on `[0, end]`, scanned in steps of `scan` and
/// bisected to round-off.
fn first_root(f: impl Fn(f64) -> f64, end: f64, scan: f64) -> f64 {
    let mut t = 0.0;
    while t < end {
        let next = t + scan;
        if f(next) <= 0.0 {
            let (mut lo, mut hi) = (t, next);
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if f(mid) > 0.0 { lo = mid } else { hi = mid }
            }
            return hi;
        }
        t = next;
    }
    panic!("no root before {end}");
}

#[test]
fn a_falling_cube_touches_when_its_flight_says() {
    let (z0, v0) = (0.7, 0.4);
    let world = cube_over_ground(
        Pose::from_translation(DVec3::new(0.1, -0.2, z0)),
        Twist::new(DVec3::new(0.3, 0.0, v0), DVec3::ZERO),
    );
    // z0 - HALF + v0 t - g t^2 / 2 = 0.
    let gap = z0 - HALF;
    let exact = (v0 + (v0 * v0 + 2.0 * G * gap).sqrt()) / G;
    let found = first_touch(world);
    println!("found {found:.12} s, flight {exact:.12} s");
    assert!((found - exact).abs() <= 1e-9, "{:e} s off", found - exact);
}

#[test]
fn a_cube_spinning_edge_down_touches_when_its_flight_says() {
    // An edge along x lowest, the cube turning about x: its lowest point
    // is HALF (|cos theta| + |sin theta|) below the centre, theta the turn
    // from face-down.
    let (z0, spin) = (0.5, 11.0);
    let theta0 = std::f64::consts::FRAC_PI_4;
    let world = cube_over_ground(
        Pose::new(DVec3::new(0.0, 0.0, z0), DQuat::from_rotation_x(theta0)),
        Twist::new(DVec3::ZERO, DVec3::new(spin, 0.0, 0.0)),
    );
    let clearance = |t: f64| {
        let theta = theta0 + spin * t;
        z0 - 0.5 * G * t * t - HALF * (theta.cos().abs() + theta.sin().abs())
    };
    let exact = first_root(clearance, 1.0, 1e-4);
    let found = first_touch(world);
    println!("found {found:.12} s, flight {exact:.12} s");
    assert!((found - exact).abs() <= 1e-9, "{:e} s off", found - exact);
}
