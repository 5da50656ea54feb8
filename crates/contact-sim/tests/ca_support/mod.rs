//! Independent measures for the conservative-advancement tests: signed
//! distances in closed form (a cuboid or ball against the ground z = 0, two
//! balls, a ball and a cuboid) or by the separating-axis theorem over the 15
//! axes of two cuboids (exact for boxes: the largest separation over those
//! axes is the signed distance's sign and, when they overlap, minus the
//! penetration depth), written here without the geometry crate.
#![allow(dead_code)]

use contact_sim::glam::DVec3;
use contact_sim::{MassProperties, Pose, RigidBody, Shape, Twist, World};

/// Half edge of the cube of [`cube_over_ground`] (m).
pub const CUBE_HALF: f64 = 0.05;

/// A world under gravity 9.81 m/s^2 down -z with the ground (body 0) and a
/// 1 kg cube of half edge [`CUBE_HALF`] at `pose` moving with `twist`.
pub fn cube_over_ground(pose: Pose, twist: Twist) -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    world.add_body(RigidBody::fixed(
        Shape::half_space(DVec3::Z).unwrap(),
        Pose::IDENTITY,
    ));
    let half = DVec3::splat(CUBE_HALF);
    let mut cube = RigidBody::dynamic(
        Shape::cuboid(half).unwrap(),
        MassProperties::solid_box(1.0, half).unwrap(),
        pose,
    )
    .unwrap();
    cube.twist = twist;
    world.add_body(cube);
    world
}

/// The 8 corners of a cuboid of `half` extents at `pose`.
pub fn corners(half: DVec3, pose: &Pose) -> [DVec3; 8] {
    std::array::from_fn(|id| {
        let sign = |bit: usize| if id & (1 << bit) == 0 { 1.0 } else { -1.0 };
        pose.transform_point(DVec3::new(sign(0), sign(1), sign(2)) * half)
    })
}

/// Height of the lowest point of a cuboid or ball above z = 0.
pub fn height_above_ground(body: &RigidBody) -> f64 {
    match body.shape {
        Shape::Cuboid { half_extents } => corners(half_extents, &body.pose)
            .iter()
            .map(|c| c.z)
            .fold(f64::INFINITY, f64::min),
        Shape::Sphere { radius } => body.pose.translation.z - radius,
        _ => panic!("only cuboids and balls here"),
    }
}

/// Largest separation of two cuboids over the 15 axes of the theorem
/// (face normals of each, cross products of edge directions).
pub fn cuboid_separation(ha: DVec3, pa: &Pose, hb: DVec3, pb: &Pose) -> f64 {
    let axes_a = [
        pa.rotation * DVec3::X,
        pa.rotation * DVec3::Y,
        pa.rotation * DVec3::Z,
    ];
    let axes_b = [
        pb.rotation * DVec3::X,
        pb.rotation * DVec3::Y,
        pb.rotation * DVec3::Z,
    ];
    let (ca, cb) = (corners(ha, pa), corners(hb, pb));
    let mut candidates: Vec<DVec3> = axes_a.iter().chain(&axes_b).copied().collect();
    for u in axes_a {
        for v in axes_b {
            let n = u.cross(v);
            if n.length() > 1e-9 {
                candidates.push(n.normalize());
            }
        }
    }
    candidates
        .iter()
        .map(|&n| {
            let (lo_a, hi_a) = extent(&ca, n);
            let (lo_b, hi_b) = extent(&cb, n);
            (lo_b - hi_a).max(lo_a - hi_b)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

fn extent(points: &[DVec3], n: DVec3) -> (f64, f64) {
    points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(n.dot(*p)), hi.max(n.dot(*p)))
        })
}

/// Signed distance of a ball (centre, radius) and a cuboid: the distance of
/// the centre to the box minus the radius, or minus the radius and the
/// depth of the centre when it is inside.
pub fn ball_cuboid_distance(centre: DVec3, radius: f64, half: DVec3, pose: &Pose) -> f64 {
    let local = pose.inverse_transform_point(centre);
    let outside = (local.abs() - half).max(DVec3::ZERO);
    if outside.length() > 0.0 {
        outside.length() - radius
    } else {
        (local.abs() - half).max_element() - radius
    }
}

/// Signed distance of two bodies that are cuboids, balls or the ground
/// half-space z <= 0 (as body `a`).
pub fn signed_distance(a: &RigidBody, b: &RigidBody) -> f64 {
    match (&a.shape, &b.shape) {
        (Shape::HalfSpace { .. }, _) => height_above_ground(b),
        (_, Shape::HalfSpace { .. }) => height_above_ground(a),
        (Shape::Cuboid { half_extents: ha }, Shape::Cuboid { half_extents: hb }) => {
            cuboid_separation(*ha, &a.pose, *hb, &b.pose)
        }
        (Shape::Sphere { radius }, Shape::Cuboid { half_extents }) => {
            ball_cuboid_distance(a.pose.translation, *radius, *half_extents, &b.pose)
        }
        (Shape::Cuboid { half_extents }, Shape::Sphere { radius }) => {
            ball_cuboid_distance(b.pose.translation, *radius, *half_extents, &a.pose)
        }
        (Shape::Sphere { radius: ra }, Shape::Sphere { radius: rb }) => {
            (b.pose.translation - a.pose.translation).length() - ra - rb
        }
        _ => panic!("only cuboids, balls and the ground here"),
    }
}

/// The least signed distance over every pair with a dynamic body, and the
/// pair.
pub fn least_distance(world: &World) -> (f64, (usize, usize)) {
    let bodies = world.bodies();
    let mut least = (f64::INFINITY, (0, 0));
    for a in 0..bodies.len() {
        for b in a + 1..bodies.len() {
            if bodies[a].is_dynamic() || bodies[b].is_dynamic() {
                let d = signed_distance(&bodies[a], &bodies[b]);
                if d < least.0 {
                    least = (d, (a, b));
                }
            }
        }
    }
    least
}

/// Kinetic plus gravitational potential energy (J).
pub fn energy(world: &World) -> f64 {
    world.kinetic_energy() + world.potential_energy()
}
