//! Guards the guarantee of conservative advancement over random scenes
//! (seeded): boxes and balls of random sizes thrown onto the ground and onto
//! each other with random poses, velocities and spins; after every step the
//! signed distance of every pair, measured independently in closed form or
//! over the separating axes, is at least -1e-9 m.

mod ca_support;

use contact_sim::glam::{DQuat, DVec3};
use contact_sim::{CaParams, CaStepper, MassProperties, Pose, RigidBody, Shape, Twist, World};

/// SplitMix64, the same on every machine.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    fn vec3(&mut self, scale: f64) -> DVec3 {
        DVec3::new(
            self.range(-scale, scale),
            self.range(-scale, scale),
            self.range(-scale, scale),
        )
    }
}

/// Four bodies (boxes or balls, sizes 4-12 cm) in a column of cells 25 cm
/// apart above the ground, nudged sideways so they fall onto each other.
fn random_scene(seed: u64) -> World {
    let mut rng = Rng(seed);
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    world.add_body(RigidBody::fixed(
        Shape::half_space(DVec3::Z).unwrap(),
        Pose::IDENTITY,
    ));
    for k in 0..4 {
        let centre = DVec3::new(
            rng.range(-0.03, 0.03),
            rng.range(-0.03, 0.03),
            0.15 + 0.25 * k as f64,
        );
        let rotation = DQuat::from_scaled_axis(rng.vec3(3.0));
        let (shape, mass) = if rng.unit() < 0.7 {
            let half = DVec3::new(
                rng.range(0.02, 0.06),
                rng.range(0.02, 0.06),
                rng.range(0.02, 0.06),
            );
            (
                Shape::cuboid(half).unwrap(),
                MassProperties::solid_box(0.2, half).unwrap(),
            )
        } else {
            let radius = rng.range(0.02, 0.06);
            (
                Shape::sphere(radius).unwrap(),
                MassProperties::solid_sphere(0.2, radius).unwrap(),
            )
        };
        let mut body = RigidBody::dynamic(shape, mass, Pose::new(centre, rotation))
            .unwrap()
            .with_friction(rng.range(0.1, 0.9))
            .unwrap();
        body.twist = Twist::new(rng.vec3(0.5), rng.vec3(8.0));
        world.add_body(body);
    }
    world
}

#[test]
fn no_pair_ever_goes_deeper_than_the_tolerance() {
    let params = CaParams::default();
    for seed in 0..6 {
        let mut world = random_scene(seed);
        let mut stepper = CaStepper::new(params).unwrap();
        let mut least = f64::INFINITY;
        while world.time() < 0.35 {
            stepper.step(&mut world).unwrap();
            let (distance, pair) = ca_support::least_distance(&world);
            assert!(
                distance >= -params.penetration_tolerance,
                "seed {seed}: bodies {pair:?} at {distance:e} m at t = {}",
                world.time()
            );
            least = least.min(distance);
        }
        let statistics = stepper.statistics();
        println!("seed {seed}: least distance {least:.3e} m\n{statistics}");
        assert!(
            statistics.manifold_events > 0,
            "seed {seed}: nothing touched"
        );
    }
}
