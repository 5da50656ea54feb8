//! Tests of the acceleration problem and the impact problem against closed
//! forms: resting and sliding boxes, a rolling ball, a block on an incline,
//! Painleve's rod on both sides of its friction threshold, and impacts
//! (a ball, a flat cube, Newton's cradle, an oblique hit with friction).

use contact_geometry::Shape;
use contact_lcp::SolverParams;
use contact_math::{MassProperties, Pose, Twist};
use glam::{DQuat, DVec3};

use super::{
    AccelerationInput, AccelerationProblem, AccelerationSolution, ContactFeature, FrictionMode,
    ImpactProblem, ImpactSolution, TrackedContact,
};
use crate::{BodyState, ContactConstraint, DynamicsError, RigidBody};

const G: f64 = 9.81;
const GRAVITY: DVec3 = DVec3::new(0.0, 0.0, -G);

fn ground(normal: DVec3) -> RigidBody {
    RigidBody::fixed(Shape::half_space(normal).unwrap(), Pose::IDENTITY)
}

fn cube(mass: f64, half: DVec3, pose: Pose, twist: Twist) -> RigidBody {
    let mut body = RigidBody::dynamic(
        Shape::cuboid(half).unwrap(),
        MassProperties::solid_box(mass, half).unwrap(),
        pose,
    )
    .unwrap();
    body.twist = twist;
    body
}

fn states(bodies: &[RigidBody]) -> Vec<BodyState> {
    bodies
        .iter()
        .enumerate()
        .map(|(i, b)| BodyState::of(b, i, 0.0).unwrap())
        .collect()
}

/// The contacts of body 1's bottom corners (local `z = -half.z`) on the
/// plane through the origin with normal `normal` (body 0), friction `mu`.
fn corner_contacts(
    half: DVec3,
    normal: DVec3,
    mu: f64,
    bodies: &[BodyState],
) -> Vec<TrackedContact> {
    let face = ContactFeature::Face {
        local: DVec3::ZERO,
        normal,
    };
    [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)]
        .into_iter()
        .map(|(x, y)| {
            let corner = ContactFeature::Point {
                local: DVec3::new(x * half.x, y * half.y, -half.z),
                radius: 0.0,
            };
            TrackedContact::new((0, face), (1, corner), normal, bodies)
                .unwrap()
                .with_material(mu, 0.0)
        })
        .collect()
}

fn solve(
    bodies: &[RigidBody],
    contacts: &[TrackedContact],
    modes: &[FrictionMode],
) -> Result<AccelerationSolution, DynamicsError> {
    let states = states(bodies);
    let input = AccelerationInput {
        bodies,
        states: &states,
        contacts,
        modes,
        forces: &[],
        gravity: GRAVITY,
        time: 0.0,
        slip_decay: 0.0,
    };
    let mut out = AccelerationSolution::default();
    AccelerationProblem::new(SolverParams::default()).solve(&input, &mut out)?;
    Ok(out)
}

#[test]
fn a_resting_box_is_held_and_a_sliding_box_decelerates_at_mu_g() {
    let half = DVec3::new(0.4, 0.3, 0.2);
    let mass = 2.0;
    let pose = Pose::from_translation(DVec3::new(0.0, 0.0, half.z));
    for (speed, mu) in [(0.0, 0.5), (3.0, 0.5), (3.0, 0.0)] {
        let bodies = [
            ground(DVec3::Z),
            cube(
                mass,
                half,
                pose,
                Twist::new(DVec3::new(speed, 0.0, 0.0), DVec3::ZERO),
            ),
        ];
        let contacts = corner_contacts(half, DVec3::Z, mu, &states(&bodies));
        let mode = if speed > 0.0 {
            FrictionMode::Sliding {
                reference: DVec3::X,
            }
        } else {
            FrictionMode::Static
        };
        let out = solve(&bodies, &contacts, &[mode; 4]).unwrap();
        let weight: f64 = out.normal_forces.iter().sum();
        assert!((weight - mass * G).abs() < 1e-9, "{weight}");
        let deceleration = if speed > 0.0 { mu * G } else { 0.0 };
        let expected = Twist::new(DVec3::new(-deceleration, 0.0, 0.0), DVec3::ZERO);
        let got = out.accelerations[1];
        assert!((got.linear - expected.linear).length() < 1e-9, "{got:?}");
        assert!(got.angular.length() < 1e-9, "{got:?}");
        let friction: DVec3 = out.friction_forces.iter().sum();
        assert!(
            (friction + DVec3::X * mass * deceleration).length() < 1e-9,
            "{friction}"
        );
    }
}

/// A ball on a slope of angle `a` rolls down at `5/7 g sin a` when friction
/// holds it (`mu >= 2/7 tan a`), held by a friction force `2/7 m g sin a`;
/// with less friction it slides with `g (sin a - mu cos a)`.
#[test]
fn a_ball_rolls_down_a_slope_or_slides() {
    let angle: f64 = 0.4;
    let normal = DVec3::new(-angle.sin(), 0.0, angle.cos());
    let (mass, radius) = (1.5, 0.2);
    for mu in [0.5, 0.05] {
        let ball = RigidBody::dynamic(
            Shape::sphere(radius).unwrap(),
            MassProperties::solid_sphere(mass, radius).unwrap(),
            Pose::from_translation(radius * normal),
        )
        .unwrap();
        let bodies = [ground(normal), ball];
        let face = ContactFeature::Face {
            local: DVec3::ZERO,
            normal,
        };
        let centre = ContactFeature::Point {
            local: DVec3::ZERO,
            radius,
        };
        let contact = TrackedContact::new((0, face), (1, centre), normal, &states(&bodies))
            .unwrap()
            .with_material(mu, 0.0);
        let out = solve(&bodies, &[contact], &[FrictionMode::Static]).unwrap();
        let downhill = -DVec3::new(angle.cos(), 0.0, angle.sin());
        let along = out.accelerations[1].linear.dot(downhill);
        let rolls = mu >= 2.0 / 7.0 * angle.tan();
        let expected = if rolls {
            5.0 / 7.0 * G * angle.sin()
        } else {
            G * (angle.sin() - mu * angle.cos())
        };
        assert!(
            (along - expected).abs() < 1e-9,
            "mu {mu}: {along} vs {expected}"
        );
        assert!((out.normal_forces[0] - mass * G * angle.cos()).abs() < 1e-9);
        if rolls {
            let friction = out.friction_forces[0].length();
            assert!((friction - 2.0 / 7.0 * mass * G * angle.sin()).abs() < 1e-9);
            // Rolling: the angular acceleration matches a / r.
            let alpha = out.accelerations[1].angular.length();
            assert!((alpha - expected / radius).abs() < 1e-9);
        }
    }
}

/// Painleve's rod: a thin rod of half length `l` at angle `t` to the
/// ground, its lower tip sliding away from the rod (the direction in which
/// friction lifts the far end), at rest otherwise. One contact at the tip,
/// `r = -l (cos t, 0, sin t)` from the centre; the normal acceleration per
/// unit normal force is `A = 1/m + l^2 cos t (cos t - mu sin t) / I`
/// (I about y), `b = -g`. Below the threshold `A > 0` and `f = m g / (m A)`;
/// above it no force keeps the tip out of the ground.
#[test]
fn painleve_rod_on_both_sides_of_the_threshold() {
    let angle: f64 = 2.0_f64.atan();
    let (c, s) = (angle.cos(), angle.sin());
    let (mass, l, thickness) = (1.0, 0.5, 0.01);
    let half = DVec3::new(l, thickness, thickness);
    let inertia = mass * (l * l + thickness * thickness) / 3.0;
    let rotation = DQuat::from_rotation_y(-angle);
    let pose = Pose::new(l * DVec3::new(c, 0.0, s), rotation);
    // The tip slides along -x, away from the rod's foot.
    let twist = Twist::new(DVec3::new(-1.0, 0.0, 0.0), DVec3::ZERO);
    let threshold = (1.0 + 3.0 * c * c) / (3.0 * s * c);
    assert!((threshold - 4.0 / 3.0).abs() < 1e-12);
    for mu in [0.3, 1.2, 1.5, 3.0] {
        let bodies = [ground(DVec3::Z), cube(mass, half, pose, twist)];
        let face = ContactFeature::Face {
            local: DVec3::ZERO,
            normal: DVec3::Z,
        };
        let tip = ContactFeature::Point {
            local: DVec3::new(-l, 0.0, 0.0),
            radius: 0.0,
        };
        let contact = TrackedContact::new((0, face), (1, tip), DVec3::Z, &states(&bodies))
            .unwrap()
            .with_material(mu, 0.0);
        let modes = [FrictionMode::Sliding {
            reference: -DVec3::X,
        }];
        let a = 1.0 / mass + l * l * c * (c - mu * s) / inertia;
        match solve(&bodies, &[contact], &modes) {
            Ok(out) => {
                assert!(a > 0.0, "mu {mu}: A = {a} but solved");
                let expected = G / a;
                assert!(
                    (out.normal_forces[0] - expected).abs() < 1e-9 * expected,
                    "mu {mu}"
                );
                assert!(out.indeterminate.is_none());
            }
            Err(DynamicsError::Painleve { contact }) => {
                assert!(a < 0.0, "mu {mu}: A = {a} but inconsistent");
                assert_eq!(contact, 0);
            }
            Err(other) => panic!("mu {mu}: {other}"),
        }
    }
}

/// Same rod lifted by a velocity product: with `b > 0` and `A < 0` the LCP
/// has two answers (no force, or `f = -b / A`): Painleve's indeterminacy,
/// flagged, and Dantzig's start `f = 0` is kept.
#[test]
fn painleve_indeterminacy_is_flagged() {
    let angle: f64 = 2.0_f64.atan();
    let (c, s) = (angle.cos(), angle.sin());
    let (mass, l) = (1.0, 0.5);
    let half = DVec3::new(l, 0.01, 0.01);
    // Spinning fast about y pulls the tip up: w^2 l sin t > g.
    let twist = Twist::new(DVec3::new(-1.0, 0.0, 0.0), DVec3::new(0.0, 10.0, 0.0));
    let pose = Pose::new(l * DVec3::new(c, 0.0, s), DQuat::from_rotation_y(-angle));
    let bodies = [ground(DVec3::Z), cube(mass, half, pose, twist)];
    let face = ContactFeature::Face {
        local: DVec3::ZERO,
        normal: DVec3::Z,
    };
    let tip = ContactFeature::Point {
        local: DVec3::new(-l, 0.0, 0.0),
        radius: 0.0,
    };
    let contact = TrackedContact::new((0, face), (1, tip), DVec3::Z, &states(&bodies))
        .unwrap()
        .with_material(3.0, 0.0);
    let modes = [FrictionMode::Sliding {
        reference: -DVec3::X,
    }];
    let out = solve(&bodies, &[contact], &modes).unwrap();
    assert_eq!(out.indeterminate, Some(0));
    assert_eq!(out.normal_forces[0], 0.0);
}

/// The indeterminate rod above has two answers, no force (the tip lifts)
/// and the force that holds the tip's normal acceleration at zero. A cold
/// solve gives the first; after a reference whose normal force is positive
/// (the same rod below the threshold under ten times the gravity, where
/// the force is unique and holds the tip) the warm
/// solve keeps that basis and gives the second, certified: the tip's
/// normal acceleration, recomputed from the bodies' accelerations, is zero.
/// Forgetting the reference gives the cold answer back.
#[test]
fn a_kept_reference_selects_the_answer_of_its_basis() {
    let angle: f64 = 2.0_f64.atan();
    let (c, s) = (angle.cos(), angle.sin());
    let (mass, l) = (1.0, 0.5);
    let half = DVec3::new(l, 0.01, 0.01);
    let twist = Twist::new(DVec3::new(-1.0, 0.0, 0.0), DVec3::new(0.0, 10.0, 0.0));
    let pose = Pose::new(l * DVec3::new(c, 0.0, s), DQuat::from_rotation_y(-angle));
    let bodies = [ground(DVec3::Z), cube(mass, half, pose, twist)];
    let states = states(&bodies);
    let face = ContactFeature::Face {
        local: DVec3::ZERO,
        normal: DVec3::Z,
    };
    let tip = ContactFeature::Point {
        local: DVec3::new(-l, 0.0, 0.0),
        radius: 0.0,
    };
    let contact = |mu| {
        TrackedContact::new((0, face), (1, tip), DVec3::Z, &states)
            .unwrap()
            .with_material(mu, 0.0)
    };
    let modes = [FrictionMode::Sliding {
        reference: -DVec3::X,
    }];
    let mut problem = AccelerationProblem::new(SolverParams::default());
    let mut out = AccelerationSolution::default();
    let mut solve = |problem: &mut AccelerationProblem, mu: f64, gravity: DVec3| {
        let contacts = [contact(mu)];
        let input = AccelerationInput {
            bodies: &bodies,
            states: &states,
            contacts: &contacts,
            modes: &modes,
            forces: &[],
            gravity,
            time: 0.0,
            slip_decay: 0.0,
        };
        problem.solve(&input, &mut out).unwrap();
        let a = out.accelerations[1];
        let r = pose.transform_point(DVec3::new(-l, 0.0, 0.0)) - pose.translation;
        let w = twist.angular;
        let tip_acceleration = a.linear + a.angular.cross(r) + w.cross(w.cross(r));
        (out.normal_forces[0], tip_acceleration.z)
    };
    let (cold, lift) = solve(&mut problem, 3.0, GRAVITY);
    assert_eq!(cold, 0.0);
    assert!(lift > 1.0, "{lift}");
    let (unique, held) = solve(&mut problem, 0.1, 10.0 * GRAVITY);
    assert!(unique > 0.0 && held.abs() < 1e-9, "{unique}, {held}");
    problem.keep_reference(true);
    let (warm, held) = solve(&mut problem, 3.0, GRAVITY);
    assert!(warm > 1.0 && held.abs() < 1e-9, "{warm}, {held}");
    problem.keep_reference(false);
    assert_eq!(solve(&mut problem, 3.0, GRAVITY).0, 0.0);
}

fn ball(mass: f64, radius: f64, at: DVec3, velocity: DVec3) -> RigidBody {
    let mut body = RigidBody::dynamic(
        Shape::sphere(radius).unwrap(),
        MassProperties::solid_sphere(mass, radius).unwrap(),
        Pose::from_translation(at),
    )
    .unwrap();
    body.twist = Twist::new(velocity, DVec3::ZERO);
    body
}

fn impact(bodies: &[RigidBody], contacts: &[ContactConstraint]) -> (Vec<Twist>, ImpactSolution) {
    let states = states(bodies);
    let mut velocities: Vec<Twist> = bodies.iter().map(|b| b.twist).collect();
    let mut out = ImpactSolution::default();
    ImpactProblem::new(SolverParams::default())
        .solve(&states, contacts, &mut velocities, &mut out)
        .unwrap();
    (velocities, out)
}

#[test]
fn newton_impacts_of_a_ball_and_a_flat_cube() {
    for e in [0.0, 0.5, 1.0] {
        let bodies = [
            ground(DVec3::Z),
            ball(
                2.0,
                0.3,
                DVec3::new(0.0, 0.0, 0.3),
                DVec3::new(0.0, 0.0, -4.0),
            ),
        ];
        let contact = ContactConstraint {
            body_a: 0,
            body_b: 1,
            point: DVec3::ZERO,
            normal: DVec3::Z,
            distance: 0.0,
            friction: 0.5,
            restitution: e,
            features: [contact_geometry::Feature::Unknown; 2],
        };
        let (after, out) = impact(&bodies, &[contact]);
        assert!((after[1].linear - DVec3::new(0.0, 0.0, 4.0 * e)).length() < 1e-12);
        assert!((out.normal_impulses[0] - 2.0 * 4.0 * (1.0 + e)).abs() < 1e-12);

        // A cube falling flat: four corners, one impact, no spin after.
        let half = DVec3::new(0.4, 0.3, 0.2);
        let bodies = [
            ground(DVec3::Z),
            cube(
                3.0,
                half,
                Pose::from_translation(DVec3::new(0.0, 0.0, half.z)),
                Twist::new(DVec3::new(0.0, 0.0, -2.0), DVec3::ZERO),
            ),
        ];
        let corners: Vec<ContactConstraint> = [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)]
            .into_iter()
            .map(|(x, y)| ContactConstraint {
                point: DVec3::new(x * half.x, y * half.y, 0.0),
                ..contact
            })
            .collect();
        let (after, _) = impact(&bodies, &corners);
        assert!((after[1].linear - DVec3::new(0.0, 0.0, 2.0 * e)).length() < 1e-12);
        assert!(after[1].angular.length() < 1e-12, "{:?}", after[1]);
    }
}

/// Three equal touching balls, the first moving at `v` into the others,
/// `e = 1`: the simultaneous law gives `(-1/3, 2/3, 2/3) v` (momentum and
/// energy kept; worked out in `impact.rs`).
#[test]
fn newtons_cradle_under_the_simultaneous_law() {
    let (mass, r, v) = (0.5, 0.1, 3.0);
    let bodies = [
        ball(mass, r, DVec3::ZERO, DVec3::new(v, 0.0, 0.0)),
        ball(mass, r, DVec3::new(2.0 * r, 0.0, 0.0), DVec3::ZERO),
        ball(mass, r, DVec3::new(4.0 * r, 0.0, 0.0), DVec3::ZERO),
    ];
    let contact = |a: usize| ContactConstraint {
        body_a: a,
        body_b: a + 1,
        point: DVec3::new((2 * a + 1) as f64 * r, 0.0, 0.0),
        normal: DVec3::X,
        distance: 0.0,
        friction: 0.0,
        restitution: 1.0,
        features: [contact_geometry::Feature::Unknown; 2],
    };
    let (after, _) = impact(&bodies, &[contact(0), contact(1)]);
    let speeds: Vec<f64> = after.iter().map(|t| t.linear.x / v).collect();
    for (got, expected) in speeds.iter().zip([-1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0]) {
        assert!((got - expected).abs() < 1e-12, "{speeds:?}");
    }
}

/// A ball hitting the ground obliquely, without spin, e = 0.5: if it keeps
/// slipping, the friction impulse is `mu` times the normal one
/// (`mu (1 + e) m v_n`) against the slip; if the cone suffices, the contact
/// point stops: `v_t + = 5/7 v_t -` (the impulse `2/7 m v_t` acts at the
/// contact, `I = 2/5 m r^2`).
#[test]
fn oblique_impact_with_friction() {
    let (mass, r, e, vn) = (1.0, 0.2, 0.5, 3.0);
    for (vt, mu) in [(4.0, 0.1), (0.5, 0.9)] {
        let bodies = [
            ground(DVec3::Z),
            ball(mass, r, DVec3::new(0.0, 0.0, r), DVec3::new(vt, 0.0, -vn)),
        ];
        let contact = ContactConstraint {
            body_a: 0,
            body_b: 1,
            point: DVec3::ZERO,
            normal: DVec3::Z,
            distance: 0.0,
            friction: mu,
            restitution: e,
            features: [contact_geometry::Feature::Unknown; 2],
        };
        let (after, out) = impact(&bodies, &[contact]);
        let pn = mass * (1.0 + e) * vn;
        assert!((out.normal_impulses[0] - pn).abs() < 1e-12);
        let sticks = 2.0 / 7.0 * mass * vt <= mu * pn;
        let expected = if sticks {
            5.0 / 7.0 * vt
        } else {
            vt - mu * pn / mass
        };
        assert!(
            (after[1].linear.x - expected).abs() < 1e-12,
            "{vt}, {mu}: {:?}",
            after[1]
        );
        assert!((after[1].linear.z - e * vn).abs() < 1e-12);
    }
}

/// A contact without a friction mode, or naming a body that is not in the
/// input, is a typed error naming the contact, not a panic.
#[test]
fn bad_contacts_are_typed_errors() {
    let half = DVec3::splat(0.5);
    let mut bodies = vec![
        ground(DVec3::Z),
        cube(1.0, half, Pose::from_translation(half), Twist::ZERO),
    ];
    let contacts = corner_contacts(half, DVec3::Z, 0.5, &states(&bodies));
    let reason = |result: Result<AccelerationSolution, DynamicsError>| match result {
        Err(DynamicsError::InvalidContact { contact, reason }) => (contact, reason),
        other => panic!("{other:?}"),
    };
    let (contact, why) = reason(solve(&bodies, &contacts, &[FrictionMode::Static; 3]));
    assert_eq!(contact, 3, "{why}");
    assert!(why.contains("friction mode"));
    bodies.pop();
    let (contact, why) = reason(solve(&bodies, &contacts, &[FrictionMode::Static; 4]));
    assert_eq!(contact, 0, "{why}");
    assert!(why.contains("does not exist"));
}

/// The kept reference is handed out and taken back (what a snapshot
/// saves); a reference with a value that is not finite is refused and the
/// kept one stays.
#[test]
fn the_reference_is_restored_and_checked() {
    let mut problem = AccelerationProblem::new(SolverParams::default());
    assert!(problem.reference().is_empty());
    problem.restore_reference(&[1.5, 0.0, -2.0]).unwrap();
    assert_eq!(problem.reference(), [1.5, 0.0, -2.0]);
    for bad in [f64::NAN, f64::INFINITY] {
        assert!(matches!(
            problem.restore_reference(&[1.0, bad]),
            Err(DynamicsError::InvalidParameter {
                name: "reference",
                ..
            })
        ));
        assert_eq!(problem.reference(), [1.5, 0.0, -2.0]);
    }
    problem.restore_reference(&[]).unwrap();
    assert!(problem.reference().is_empty());
}
