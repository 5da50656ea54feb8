//! Guards both step formulations on one box against closed-form answers: a
//! resting box's contacts carry exactly its weight, a sliding box loses
//! exactly mu g h of speed per step, and a box on a slope gentler than the
//! friction cone sticks. The pivoting answers are exact to round-off
//! (tolerance 1e-9 relative); projected Gauss-Seidel stops at a scaled residual of
//! 1e-8, so its answers are checked to 1e-6 relative.

use contact_dynamics::{
    ContactConstraint, DynamicsError, Formulation, RigidBody, StepInput, StepSolution,
    TimeStepping, TimeSteppingParams, friction_directions,
};
use contact_geometry::{Feature, Shape};
use contact_math::{MassProperties, Pose, Twist};
use glam::{DQuat, DVec3};

const G: f64 = 9.81;
const H: f64 = 0.01;
const MASS: f64 = 2.0;

/// Ground (body 0) with normal `up`, and a unit cube (body 1) resting on it
/// with its four bottom corners as contacts.
fn box_on_plane(
    up: DVec3,
    friction: f64,
    twist: Twist,
) -> (Vec<RigidBody>, Vec<ContactConstraint>) {
    let tilt = DQuat::from_rotation_arc(DVec3::Z, up);
    let ground = RigidBody::fixed(Shape::half_space(up).unwrap(), Pose::IDENTITY);
    let half = DVec3::splat(0.5);
    let mut cube = RigidBody::dynamic(
        Shape::cuboid(half).unwrap(),
        MassProperties::solid_box(MASS, half).unwrap(),
        Pose::new(0.5 * up, tilt),
    )
    .unwrap();
    cube.twist = twist;
    let contacts = [(-0.5, -0.5), (-0.5, 0.5), (0.5, -0.5), (0.5, 0.5)]
        .map(|(x, y)| ContactConstraint {
            body_a: 0,
            body_b: 1,
            point: tilt * DVec3::new(x, y, 0.0),
            normal: up,
            distance: 0.0,
            friction,
            restitution: 0.0,
            features: [Feature::Unknown; 2],
        })
        .to_vec();
    (vec![ground, cube], contacts)
}

/// Both formulations with the relative tolerance their solver reaches.
/// One step of `stepper` on bodies and contacts alone.
fn solve(
    stepper: &mut TimeStepping,
    bodies: &[RigidBody],
    contacts: &[ContactConstraint],
    gravity: DVec3,
    h: f64,
    out: &mut StepSolution,
) -> Result<(), DynamicsError> {
    stepper.step(&StepInput::contacts_only(bodies, contacts, gravity), h, out)
}

const FORMULATIONS: [(Formulation, f64); 2] = [
    (Formulation::Complementarity, 1e-9),
    (Formulation::BoxFriction, 1e-6),
];

fn step(
    bodies: &[RigidBody],
    contacts: &[ContactConstraint],
    formulation: Formulation,
) -> StepSolution {
    let mut solution = StepSolution::default();
    let params = TimeSteppingParams {
        formulation,
        ..TimeSteppingParams::default()
    };
    solve(
        &mut TimeStepping::new(params),
        bodies,
        contacts,
        DVec3::new(0.0, 0.0, -G),
        H,
        &mut solution,
    )
    .unwrap();
    assert!(
        solution.lcp_report.is_solution(1e-8),
        "{formulation:?}: {:?}",
        solution.lcp_report
    );
    solution
}

#[test]
fn resting_box_contacts_carry_exactly_its_weight() {
    for (formulation, tol) in FORMULATIONS {
        let (bodies, contacts) = box_on_plane(DVec3::Z, 0.5, Twist::ZERO);
        let s = step(&bodies, &contacts, formulation);
        let total: f64 = s.normal_impulses.iter().sum();
        // Newton: the impulse that cancels gravity over one step is m g h.
        let weight = MASS * G * H;
        assert!(
            (total - weight).abs() < tol * weight,
            "{formulation:?}: {total}"
        );
        assert!(
            s.velocities[1].linear.length() < tol * G * H,
            "{formulation:?}"
        );
        assert!(
            s.velocities[1].angular.length() < tol * G * H,
            "{formulation:?}"
        );
        // No tangential load, so no net friction. Four coplanar contacts
        // leave the split indeterminate: a solver may return equal and
        // opposite friction pairs (Dantzig does), which must sum to zero and
        // stay inside each contact's bounds.
        let net: DVec3 = s.friction_impulses.iter().sum();
        assert!(
            net.length() < tol * weight,
            "{formulation:?}: net friction {net}"
        );
        let net_torque: DVec3 = s
            .friction_impulses
            .iter()
            .zip(&contacts)
            .map(|(f, c)| (c.point - bodies[1].pose.translation).cross(*f))
            .sum();
        assert!(
            net_torque.length() < tol * weight,
            "{formulation:?}: net friction torque {net_torque}"
        );
        for (f, n) in s.friction_impulses.iter().zip(&s.normal_impulses) {
            assert!(
                f.length() <= 0.5 * n * 2f64.sqrt() + tol * weight,
                "{formulation:?}: {f} vs {n}"
            );
        }
    }
}

#[test]
fn sliding_box_decelerates_by_mu_g() {
    // Slide along the first friction direction, where both the pyramid's
    // edge and the square's side give the true Coulomb force: mu m g h,
    // against the motion.
    let mu = 0.4;
    let mut directions = Vec::new();
    friction_directions(DVec3::Z, 4, &mut directions);
    let along = directions[0];
    let v0 = 3.0;
    for (formulation, tol) in FORMULATIONS {
        let (bodies, contacts) = box_on_plane(DVec3::Z, mu, Twist::new(v0 * along, DVec3::ZERO));
        let s = step(&bodies, &contacts, formulation);
        let v = s.velocities[1].linear;
        let loss = mu * G * H;
        // Coulomb: dv = -mu g h along the motion (v0 >> mu g h: it keeps sliding).
        assert!(
            (v.dot(along) - (v0 - loss)).abs() < tol * loss,
            "{formulation:?}: {v}"
        );
        assert!(v.z.abs() < tol * loss, "{formulation:?}: {v}");
        let friction: DVec3 = s.friction_impulses.iter().sum();
        assert!(
            (friction + MASS * loss * along).length() < tol * MASS * loss,
            "{formulation:?}: {friction}"
        );
        // Each contact slides: the friction along the motion is -mu cn.
        // Across it the pyramid gives exactly zero; the square cone leaves
        // the cross components indeterminate (equal and opposite pairs,
        // summing to zero above), bounded by mu cn: why its per-contact
        // force can exceed the Coulomb cone by up to sqrt(2).
        let across = DVec3::Z.cross(along);
        for (f, n) in s.friction_impulses.iter().zip(&s.normal_impulses) {
            assert!(
                (f.dot(along) + mu * n).abs() < tol * MASS * loss,
                "{formulation:?}: {f} vs {n}"
            );
            let cross_bound = match formulation {
                Formulation::Complementarity => tol * MASS * loss,
                _ => mu * n + tol * MASS * loss,
            };
            assert!(
                f.dot(across).abs() <= cross_bound,
                "{formulation:?}: {f} vs {n}"
            );
        }
    }
}

#[test]
fn box_on_a_gentle_slope_sticks_and_on_a_steep_one_slides() {
    // Slope with tan(angle) = 0.3 < mu / sqrt(2) = 0.354: inside the
    // pyramid's and the square's inscribed cone whatever their orientation,
    // so static friction must hold the box still.
    let mu = 0.5;
    for (formulation, tol) in FORMULATIONS {
        let gentle = DVec3::new(0.0, -0.3, 1.0).normalize();
        let (bodies, contacts) = box_on_plane(gentle, mu, Twist::ZERO);
        let s = step(&bodies, &contacts, formulation);
        assert!(
            s.velocities[1].linear.length() < tol * G * H,
            "{formulation:?}: {:?}",
            s.velocities[1]
        );
        // tan(angle) = 0.8 > mu sqrt(2): outside even the square's corners,
        // so no friction can hold it; it moves down the slope, at most as
        // fast as frictionless sliding.
        let steep = DVec3::new(0.0, -0.8, 1.0).normalize();
        let (bodies, contacts) = box_on_plane(steep, mu, Twist::ZERO);
        let s = step(&bodies, &contacts, formulation);
        let v = s.velocities[1].linear;
        let downhill = (DVec3::NEG_Z - DVec3::NEG_Z.dot(steep) * steep).normalize();
        let frictionless = G * H * downhill.dot(DVec3::NEG_Z);
        assert!(
            v.dot(downhill) > 1e-3 * frictionless && v.dot(downhill) < frictionless,
            "{formulation:?}: {v}"
        );
        assert!(
            v.dot(steep).abs() < tol * G * H,
            "{formulation:?}: leaves or sinks into the slope: {v}"
        );
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let (mut bodies, contacts) = box_on_plane(DVec3::Z, 0.5, Twist::ZERO);
    let mut out = StepSolution::default();
    let mut stepper = TimeStepping::new(TimeSteppingParams::default());
    let gravity = DVec3::new(0.0, 0.0, -G);
    assert!(solve(&mut stepper, &bodies, &contacts, gravity, 0.0, &mut out).is_err());
    assert!(solve(&mut stepper, &bodies, &contacts, DVec3::NAN, H, &mut out).is_err());
    let mut bad = contacts.clone();
    bad[2].body_b = 7;
    assert!(solve(&mut stepper, &bodies, &bad, gravity, H, &mut out).is_err());
    bad = contacts.clone();
    bad[1].normal = DVec3::new(0.0, 0.0, 2.0);
    assert!(solve(&mut stepper, &bodies, &bad, gravity, H, &mut out).is_err());
    bodies[1].twist.linear.x = f64::INFINITY;
    assert!(solve(&mut stepper, &bodies, &contacts, gravity, H, &mut out).is_err());
}

/// `last_box_bounds`, which callers use to rebuild the box LCP of
/// `last_problem`, matches the rows: the normals of all contacts first, in
/// `[0, inf)`, then two tangent rows per contact, each coupled to its
/// contact's normal row with that contact's own friction coefficient.
#[test]
fn last_box_bounds_follow_the_contacts() {
    let (bodies, mut contacts) = box_on_plane(DVec3::Z, 0.0, Twist::ZERO);
    for (k, c) in contacts.iter_mut().enumerate() {
        c.friction = 0.1 * (k + 1) as f64;
    }
    let mut stepper = TimeStepping::new(TimeSteppingParams {
        formulation: Formulation::BoxFriction,
        ..TimeSteppingParams::default()
    });
    assert_eq!(stepper.last_island_count(), 0);
    solve(
        &mut stepper,
        &bodies,
        &contacts,
        DVec3::new(0.0, 0.0, -G),
        H,
        &mut StepSolution::default(),
    )
    .unwrap();
    let nc = contacts.len();
    assert_eq!(stepper.last_problem(0).1.len(), 3 * nc);
    let bounds = stepper.last_box_bounds(0);
    assert_eq!(bounds.len(), 3 * nc);
    assert!(bounds.lo()[..nc].iter().all(|&lo| lo == 0.0));
    assert!(bounds.hi()[..nc].iter().all(|&hi| hi == f64::INFINITY));
    let mut got: Vec<(usize, usize, f64)> = bounds
        .couplings()
        .iter()
        .map(|c| (c.row, c.normal_row, c.mu))
        .collect();
    got.sort_by_key(|&(row, _, _)| row);
    let expected: Vec<(usize, usize, f64)> = (0..nc)
        .flat_map(|c| (0..2).map(move |d| (nc + 2 * c + d, c)))
        .map(|(row, c)| (row, c, contacts[c].friction))
        .collect();
    assert_eq!(got, expected);
}
