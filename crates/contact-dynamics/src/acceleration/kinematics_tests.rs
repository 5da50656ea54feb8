//! Tests of `tracked_contact.rs`: for every feature pair, at random poses
//! and twists, the jets' rate equals the contact's normal row applied to
//! the twists, and their velocity-product terms equal the derivatives of
//! the gap (and of the slip) along the constant-twist motion, taken by a
//! five-point finite-difference stencil (error O(eps^4)) of the gap formula
//! at moved poses. Two closed forms pin the conventions.

use contact_math::{Pose, Twist, integrate_pose};
use glam::{DMat3, DQuat, DVec3};

use super::{ContactFeature, TrackedContact};
use crate::{BodyState, JacobianRow};

/// xorshift64: test inputs the same on every machine.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1_u64 << 53) as f64
    }
    fn vec3(&mut self, scale: f64) -> DVec3 {
        DVec3::new(self.unit() - 0.5, self.unit() - 0.5, self.unit() - 0.5) * (2.0 * scale)
    }
    fn rotation(&mut self) -> DQuat {
        DQuat::from_scaled_axis(self.vec3(3.0))
    }
}

fn state(pose: Pose, twist: Twist) -> BodyState {
    BodyState {
        pose,
        twist,
        inv_mass: 1.0,
        inv_inertia: DMat3::IDENTITY,
        dynamic: true,
    }
}

/// The two states moved for `t` seconds at constant twist.
fn moved(states: &[BodyState; 2], t: f64) -> [BodyState; 2] {
    states.map(|s| state(integrate_pose(&s.pose, &s.twist, t), s.twist))
}

/// `f''(0)` and `f'(0)` by five-point stencils.
fn derivatives(f: impl Fn(f64) -> f64, eps: f64) -> (f64, f64) {
    let [m2, m1, z, p1, p2] = [-2.0, -1.0, 0.0, 1.0, 2.0].map(|k| f(k * eps));
    let first = (m2 - 8.0 * m1 + 8.0 * p1 - p2) / (12.0 * eps);
    let second = (-m2 + 16.0 * m1 - 30.0 * z + 16.0 * p1 - p2) / (12.0 * eps * eps);
    (first, second)
}

/// Every feature pair the gap formulas cover, on bodies near each other.
fn feature_pairs(rng: &mut Rng) -> Vec<(ContactFeature, ContactFeature)> {
    let point = |rng: &mut Rng, radius| ContactFeature::Point {
        local: rng.vec3(0.5),
        radius,
    };
    let edge = |rng: &mut Rng| ContactFeature::Edge {
        local: rng.vec3(0.5),
        direction: rng.vec3(1.0).normalize(),
    };
    let face = |rng: &mut Rng| ContactFeature::Face {
        local: rng.vec3(0.5),
        normal: rng.vec3(1.0).normalize(),
    };
    vec![
        (face(rng), point(rng, 0.0)),
        (face(rng), point(rng, 0.3)),
        (point(rng, 0.0), face(rng)),
        (point(rng, 0.2), face(rng)),
        (edge(rng), edge(rng)),
        (point(rng, 0.2), point(rng, 0.3)),
        (point(rng, 0.0), point(rng, 0.25)),
        (edge(rng), point(rng, 0.2)),
        (point(rng, 0.15), edge(rng)),
    ]
}

#[test]
fn rates_and_curvatures_match_the_motion() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..20 {
        for (k, (fa, fb)) in feature_pairs(&mut rng).into_iter().enumerate() {
            let states = [
                state(
                    Pose::new(rng.vec3(0.3), rng.rotation()),
                    Twist::new(rng.vec3(2.0), rng.vec3(3.0)),
                ),
                state(
                    Pose::new(DVec3::new(0.0, 0.0, 1.5) + rng.vec3(0.3), rng.rotation()),
                    Twist::new(rng.vec3(2.0), rng.vec3(3.0)),
                ),
            ];
            let hint = DVec3::Z;
            let Ok(contact) = TrackedContact::new((0, fa), (1, fb), hint, &states) else {
                panic!("pair {k} refused");
            };
            let kin = contact.kinematics(&states);
            // d' is the normal row applied to the twists.
            let row = JacobianRow::relative_velocity(&states, 0, 1, kin.point, kin.normal);
            let applied = row.apply(|i| states[i].twist);
            let what = format!("round {round}, pair {k}");
            assert!(
                (applied - kin.normal_speed).abs() < 1e-12,
                "{what}: {applied} vs {}",
                kin.normal_speed
            );
            // d' and d'' along the motion.
            let gap = |t: f64| contact.kinematics(&moved(&states, t)).distance;
            let (rate, curvature) = derivatives(gap, 2.5e-4);
            assert!(
                (rate - kin.normal_speed).abs() < 1e-8,
                "{what}: rate {rate} vs {}",
                kin.normal_speed
            );
            let scale = kin.normal_curvature.abs().max(1.0);
            assert!(
                (curvature - kin.normal_curvature).abs() < 1e-6 * scale,
                "{what}: curvature {curvature} vs {}",
                kin.normal_curvature
            );
            // n' along the motion.
            let eps = 1e-6;
            let rate_of_normal = (contact.kinematics(&moved(&states, eps)).normal
                - contact.kinematics(&moved(&states, -eps)).normal)
                / (2.0 * eps);
            assert!(
                (rate_of_normal - kin.normal_rate).length() < 1e-6,
                "{what}: n'"
            );

            // The slip's rate: with b's velocity shifted so nothing slips at
            // the contact point, d/dt (t . slip) = t . K.
            let mut sticking = states;
            sticking[1].twist.linear -= kin.slip;
            let kin = contact.kinematics(&sticking);
            assert!(kin.slip.length() < 1e-12);
            let curvature = contact.slip_curvature(&kin, &sticking);
            let (t1, t2) = kin.normal.any_orthonormal_pair();
            for t in [t1, t2] {
                let slip = |s: f64| t.dot(contact.kinematics(&moved(&sticking, s)).slip);
                let (rate, _) = derivatives(slip, 2.5e-4);
                assert!(
                    (rate - t.dot(curvature)).abs() < 1e-7 * curvature.length().max(1.0),
                    "{what}: slip rate {rate} vs {}",
                    t.dot(curvature)
                );
            }
        }
    }
}

/// A cube's corner on a still ground, the cube spinning about z through its
/// centre: the corner's gap accelerates by `z . (w x (w x r)) = 0` (the
/// corner circles horizontally) and, tilting the spin axis, by
/// `-(|w|^2 r - (w . r) w) . z`. A ball spinning on the ground: no gap
/// acceleration whatever its spin (its centre does not move).
#[test]
fn closed_forms_of_the_velocity_products() {
    let ground = state(Pose::IDENTITY, Twist::ZERO);
    let face = ContactFeature::Face {
        local: DVec3::ZERO,
        normal: DVec3::Z,
    };
    let corner = DVec3::new(0.5, -0.5, -0.5);
    let cube = |w: DVec3| {
        state(
            Pose::from_translation(DVec3::new(0.0, 0.0, 0.5)),
            Twist::new(DVec3::ZERO, w),
        )
    };
    let vertex = ContactFeature::Point {
        local: corner,
        radius: 0.0,
    };
    for w in [DVec3::new(0.0, 0.0, 4.0), DVec3::new(1.0, 2.0, 3.0)] {
        let states = [ground, cube(w)];
        let contact = TrackedContact::new((0, face), (1, vertex), DVec3::Z, &states).unwrap();
        let kin = contact.kinematics(&states);
        let expected = w.cross(w.cross(corner)).z;
        assert!(kin.distance.abs() < 1e-15);
        assert!(
            (kin.normal_curvature - expected).abs() < 1e-13,
            "{} vs {expected}",
            kin.normal_curvature
        );
    }
    let ball = state(
        Pose::from_translation(DVec3::new(0.0, 0.0, 0.3)),
        Twist::new(DVec3::new(1.0, 0.0, 0.0), DVec3::new(2.0, -5.0, 7.0)),
    );
    let states = [ground, ball];
    let centre = ContactFeature::Point {
        local: DVec3::ZERO,
        radius: 0.3,
    };
    let contact = TrackedContact::new((0, face), (1, centre), DVec3::Z, &states).unwrap();
    let kin = contact.kinematics(&states);
    assert!(kin.distance.abs() < 1e-15 && kin.normal_curvature == 0.0);
    assert!((kin.point - DVec3::new(0.0, 0.0, 0.0)).length() < 1e-15);
    // Rolling without slip keeps rolling: the slip's velocity product is 0.
    let mut rolling = states;
    rolling[1].twist.angular = DVec3::new(0.0, 1.0 / 0.3, 7.0);
    let kin = contact.kinematics(&rolling);
    assert!(kin.slip.length() < 1e-15);
    assert!(contact.slip_curvature(&kin, &rolling).length() < 1e-14);
}

#[test]
fn unsupported_pairs_are_refused() {
    let states = [
        state(Pose::IDENTITY, Twist::ZERO),
        state(Pose::from_translation(DVec3::Z), Twist::ZERO),
    ];
    let face = ContactFeature::Face {
        local: DVec3::ZERO,
        normal: DVec3::Z,
    };
    let edge = |direction| ContactFeature::Edge {
        local: DVec3::ZERO,
        direction,
    };
    assert!(TrackedContact::new((0, face), (1, face), DVec3::Z, &states).is_err());
    assert!(TrackedContact::new((0, face), (1, edge(DVec3::X)), DVec3::Z, &states).is_err());
    assert!(
        TrackedContact::new((0, edge(DVec3::X)), (1, edge(DVec3::X)), DVec3::Z, &states).is_err()
    );
    let bad = ContactFeature::Face {
        local: DVec3::ZERO,
        normal: DVec3::new(0.0, 0.0, 2.0),
    };
    let point = ContactFeature::Point {
        local: DVec3::ZERO,
        radius: 0.0,
    };
    assert!(TrackedContact::new((0, bad), (1, point), DVec3::Z, &states).is_err());
    let negative = ContactFeature::Point {
        local: DVec3::ZERO,
        radius: -1.0,
    };
    assert!(TrackedContact::new((0, face), (1, negative), DVec3::Z, &states).is_err());
}

/// A contact rebuilt from its parts (what a snapshot saves) is the contact
/// made, both orientations of an edge pair's normal; bad parts are refused.
#[test]
fn a_contact_from_its_parts_is_the_contact_made() {
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    let states = [
        state(Pose::new(rng.vec3(1.0), rng.rotation()), Twist::ZERO),
        state(Pose::new(rng.vec3(1.0), rng.rotation()), Twist::ZERO),
    ];
    let mut signs = [false; 2];
    for (fa, fb) in feature_pairs(&mut rng) {
        for hint in [DVec3::Z, -DVec3::Z] {
            let Ok(contact) = TrackedContact::new((0, fa), (1, fb), hint, &states) else {
                continue;
            };
            let contact = contact.with_material(0.4, 0.2);
            signs[usize::from(contact.edge_sign() > 0.0)] = true;
            let rebuilt = TrackedContact::from_parts((0, fa), (1, fb), contact.edge_sign())
                .unwrap()
                .with_material(0.4, 0.2);
            assert_eq!(rebuilt, contact);
            assert_eq!(rebuilt.kinematics(&states), contact.kinematics(&states));
        }
    }
    assert_eq!(signs, [true, true], "both edge signs met");
    let face = ContactFeature::Face {
        local: DVec3::ZERO,
        normal: DVec3::Z,
    };
    let point = ContactFeature::Point {
        local: DVec3::ZERO,
        radius: 0.0,
    };
    assert!(TrackedContact::from_parts((0, face), (1, point), 0.5).is_err());
    assert!(TrackedContact::from_parts((0, face), (1, face), 1.0).is_err());
    let far = ContactFeature::Point {
        local: DVec3::new(f64::NAN, 0.0, 0.0),
        radius: 0.0,
    };
    assert!(TrackedContact::from_parts((0, face), (1, far), 1.0).is_err());
}
