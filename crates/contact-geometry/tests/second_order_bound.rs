//! Guards the second-order conservative-advancement bound
//! (`second_order_bound`): random polytopes moved exactly with constant
//! twists never interpenetrate before the bound (sampled at many times), a
//! straight approach gets the exact time of contact, and for touching
//! bodies no point outside the contact reaches the other body before it.

mod common;

use common::Rng;

use contact_geometry::{
    BodyMotion, ConvexPolytope, ManifoldGenerator, MovingSupport, Shape, TwistMotion,
    mirtich_bound, second_order_bound,
};
use contact_math::Pose;
use glam::{DQuat, DVec3};

/// Interpenetration deeper than this fails the tests (m).
const DEPTH: f64 = 1e-9;
/// Sampled times per motion.
const SAMPLES: usize = 100;

/// A polytope moving with constant linear velocity of its centre of mass
/// and constant angular velocity about it.
struct Mover {
    polytope: ConvexPolytope,
    start: Pose,
    com: DVec3,
    linear: DVec3,
    angular: DVec3,
}

impl Mover {
    fn random(rng: &mut Rng, reach: f64) -> Self {
        let polytope = rng.hull();
        let com = polytope.mass_properties(1.0).unwrap().local_com();
        Self {
            polytope,
            start: Pose::new(rng.vector(-reach, reach), rng.rotation()),
            com,
            linear: rng.vector(-2.0, 2.0),
            angular: rng.vector(-3.0, 3.0),
        }
    }

    fn pose(&self, t: f64) -> Pose {
        let rotation = DQuat::from_scaled_axis(self.angular * t) * self.start.rotation;
        let centre = self.start.transform_point(self.com) + self.linear * t;
        Pose::new(centre - rotation * self.com, rotation)
    }

    fn world_vertices(&self, t: f64) -> Vec<DVec3> {
        let pose = self.pose(t);
        self.polytope
            .vertices()
            .iter()
            .map(|&v| pose.transform_point(v))
            .collect()
    }

    fn motion(&self) -> TwistMotion {
        TwistMotion {
            centre: self.start.transform_point(self.com),
            linear: self.linear,
            angular: self.angular,
        }
    }

    fn shape(&self) -> Shape {
        Shape::polytope(self.polytope.clone())
    }
}

/// The signed separation of two movers at `t`: the separating-axis test's
/// largest separation, exact when they overlap.
fn separation(generator: &mut ManifoldGenerator, a: &Mover, b: &Mover, t: f64) -> f64 {
    generator
        .separating_plane(&a.shape(), &a.pose(t), &b.shape(), &b.pose(t), 1e3)
        .unwrap()
        .map_or(f64::INFINITY, |p| p.separation)
}

#[test]
fn random_bodies_do_not_meet_before_the_bound() {
    let mut rng = Rng(0x5EC0_4D0E_12B0_0A11);
    let mut generator = ManifoldGenerator::default();
    let (mut trials, mut finite, mut tighter) = (0, 0, 0);
    while trials < 150 {
        let a = Mover::random(&mut rng, 1.5);
        let b = Mover::random(&mut rng, 1.5);
        let p = generator
            .proximity(&a.shape(), &a.pose(0.0), &b.shape(), &b.pose(0.0), 1e-9)
            .unwrap();
        if p.distance < 1e-3 {
            continue;
        }
        trials += 1;
        let (va, vb) = (a.world_vertices(0.0), b.world_vertices(0.0));
        let side_a = MovingSupport {
            points: &va,
            radius: 0.0,
            motion: a.motion(),
        };
        let side_b = MovingSupport {
            points: &vb,
            radius: 0.0,
            motion: b.motion(),
        };
        let horizon = 5.0;
        let bound = second_order_bound(p.normal, &side_a, &side_b, None, horizon);
        let end = (1.0 - 1e-9) * bound.min(horizon);
        let least = (0..=SAMPLES)
            .map(|k| separation(&mut generator, &a, &b, end * k as f64 / SAMPLES as f64))
            .fold(f64::INFINITY, f64::min);
        assert!(least >= -DEPTH, "trial {trials}: {least:e} before {bound}");
        if bound < horizon {
            finite += 1;
            let radius = |m: &Mover| {
                m.polytope
                    .vertices()
                    .iter()
                    .map(|v| (*v - m.com).length())
                    .fold(0.0, f64::max)
            };
            let eq4 = mirtich_bound(
                p.distance,
                p.normal,
                &BodyMotion {
                    linear: a.linear,
                    angular: a.angular,
                    radius: radius(&a),
                },
                &BodyMotion {
                    linear: b.linear,
                    angular: b.angular,
                    radius: radius(&b),
                },
            );
            tighter += usize::from(bound > eq4);
        }
    }
    println!("{finite} of {trials} bounds within the horizon, {tighter} later than eq. 4's");
    assert!(finite > 50 && tighter > finite / 2);
}

#[test]
fn a_straight_approach_gets_the_time_of_contact() {
    let corners: Vec<DVec3> = (0..8)
        .map(|id| {
            let s = |bit: u32| if id & (1 << bit) == 0 { 0.5 } else { -0.5 };
            DVec3::new(s(0), s(1), s(2) + 2.0)
        })
        .collect();
    let ground = [DVec3::ZERO];
    let falling = MovingSupport {
        points: &corners,
        radius: 0.0,
        motion: TwistMotion {
            centre: DVec3::new(0.0, 0.0, 2.0),
            linear: DVec3::new(0.3, 0.0, -3.0),
            angular: DVec3::ZERO,
        },
    };
    let still = MovingSupport {
        points: &ground,
        radius: 0.0,
        motion: TwistMotion::STATIC,
    };
    // From the ground (a) up to the cube (b): gap 1.5, closing 3 m/s.
    let t = second_order_bound(DVec3::Z, &still, &falling, None, 10.0);
    assert!((t - 0.5).abs() < 1e-15, "{t}");
}

#[test]
fn no_point_outside_the_contact_reaches_the_ground_first() {
    // Cubes resting on a vertex, an edge or a face of the ground z = 0,
    // turning about random axes; the ground is body a.
    let mut rng = Rng(0xC0FF_EE00_1234_5678);
    for trial in 0..200 {
        let half = rng.vector(0.1, 0.6);
        let rotation = match trial % 3 {
            0 => rng.rotation(),
            1 => DQuat::from_rotation_x(rng.range(-1.5, 1.5)),
            _ => DQuat::IDENTITY,
        };
        let local: Vec<DVec3> = (0..8)
            .map(|id| {
                let s = |bit: u32| if id & (1 << bit) == 0 { 1.0 } else { -1.0 };
                DVec3::new(s(0), s(1), s(2)) * half
            })
            .collect();
        let lowest = local
            .iter()
            .map(|v| (rotation * *v).z)
            .fold(f64::INFINITY, f64::min);
        let centre = DVec3::new(0.0, 0.0, -lowest);
        let world: Vec<DVec3> = local.iter().map(|v| centre + rotation * *v).collect();
        let motion = TwistMotion {
            centre,
            linear: DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0),
            angular: rng.vector(-4.0, 4.0),
        };
        let tolerance = 1e-9;
        let ground = [DVec3::ZERO];
        let a = MovingSupport {
            points: &ground,
            radius: 0.0,
            motion: TwistMotion::STATIC,
        };
        let b = MovingSupport {
            points: &world,
            radius: 0.0,
            motion,
        };
        let bound = second_order_bound(DVec3::Z, &a, &b, Some(tolerance), 10.0);
        let end = (1.0 - 1e-9) * bound.min(10.0);
        for (v, x0) in local.iter().zip(&world) {
            if x0.z <= tolerance {
                continue;
            }
            for k in 0..=SAMPLES {
                let t = end * k as f64 / SAMPLES as f64;
                let r = DQuat::from_scaled_axis(motion.angular * t) * rotation;
                let height = (centre + motion.linear * t + r * *v).z;
                assert!(
                    height >= -DEPTH,
                    "trial {trial}: {height:e} at {t} before {bound}"
                );
            }
        }
    }
}
