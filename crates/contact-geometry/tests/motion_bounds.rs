//! Guards the conservative-advancement bounds (Drumwright 2016, eq. 4,
//! 7-8, 11-15): random bodies moved exactly (constant linear velocity,
//! constant angular velocity about the centre of rotation) for
//! (1 - 1e-9) times the bound never interpenetrate at any of many sampled
//! times, and in tight cases (straight approach, a tip tilting onto a
//! face, a slider) 1.5 times the bound does interpenetrate.

mod common;

use common::Rng;

use contact_geometry::{
    BodyMotion, ChainJoint, ChainMotion, ContactKind, ConvexPolytope, JointKind, ManifoldGenerator,
    Shape, chain_mirtich_bound, mirtich_bound, tilt_rate, touching_bound,
};
use contact_math::Pose;
use glam::{DQuat, DVec3};

/// Interpenetration deeper than this fails the tests (m).
const DEPTH: f64 = 1e-9;
/// Sampled times per motion.
const SAMPLES: usize = 64;

/// A body moving with constant linear velocity of `centre` (world) and
/// constant angular velocity about it.
struct Mover {
    shape: Shape,
    start: Pose,
    /// The centre of rotation in the body frame.
    local_centre: DVec3,
    linear: DVec3,
    angular: DVec3,
}

impl Mover {
    fn pose(&self, t: f64) -> Pose {
        let rotation = DQuat::from_scaled_axis(self.angular * t) * self.start.rotation;
        let centre = self.start.transform_point(self.local_centre) + self.linear * t;
        Pose::new(centre - rotation * self.local_centre, rotation)
    }

    /// Radius about the centre of rotation.
    fn radius(&self) -> f64 {
        vertices(&self.shape)
            .iter()
            .map(|&v| (v - self.local_centre).length())
            .fold(0.0, f64::max)
    }

    fn motion(&self) -> BodyMotion {
        BodyMotion {
            linear: self.linear,
            angular: self.angular,
            radius: self.radius(),
        }
    }
}

fn vertices(shape: &Shape) -> Vec<DVec3> {
    match shape {
        Shape::Polytope(p) => p.vertices().to_vec(),
        Shape::Cuboid { half_extents } => ConvexPolytope::from_box(*half_extents)
            .unwrap()
            .vertices()
            .to_vec(),
        Shape::HalfSpace { .. } | Shape::Sphere { .. } => unreachable!("polytopes only"),
    }
}

fn random_solid(rng: &mut Rng) -> (Shape, DVec3) {
    if rng.next() < 0.2 {
        (Shape::cuboid(rng.vector(0.1, 0.8)).unwrap(), DVec3::ZERO)
    } else {
        let hull = rng.hull();
        let com = hull.mass_properties(1.0).unwrap().local_com();
        (Shape::polytope(hull), com)
    }
}

/// The least signed distance between the two movers over `[0, end]`.
fn least_distance(generator: &mut ManifoldGenerator, a: &Mover, b: &Mover, end: f64) -> f64 {
    (0..=SAMPLES)
        .map(|k| {
            let t = end * k as f64 / SAMPLES as f64;
            generator
                .proximity(&a.shape, &a.pose(t), &b.shape, &b.pose(t), 1e-9)
                .unwrap()
                .distance
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn mirtich_bound_is_conservative_for_random_bodies() {
    let mut rng = Rng(0xA076_1D64_78BD_642F);
    let mut generator = ManifoldGenerator::default();
    let mut finite = 0;
    // The largest fraction of the gap closed within the bound.
    let mut closed = 0.0_f64;
    for _ in 0..400 {
        let (sa, ca) = random_solid(&mut rng);
        let (sb, cb) = random_solid(&mut rng);
        let a = Mover {
            shape: sa,
            start: Pose::new(rng.vector(-0.3, 0.3), rng.rotation()),
            local_centre: ca,
            linear: rng.vector(-2.0, 2.0),
            angular: rng.vector(-3.0, 3.0),
        };
        let b = Mover {
            shape: sb,
            start: Pose::new(rng.vector(-2.5, 2.5), rng.rotation()),
            local_centre: cb,
            linear: rng.vector(-2.0, 2.0),
            angular: rng.vector(-3.0, 3.0),
        };
        let p = generator
            .proximity(&a.shape, &a.pose(0.0), &b.shape, &b.pose(0.0), 1e-9)
            .unwrap();
        if p.distance < 1e-3 {
            continue;
        }
        let bound = mirtich_bound(p.distance, p.normal, &a.motion(), &b.motion());
        assert!(bound > 0.0);
        let end = if bound.is_finite() {
            finite += 1;
            (1.0 - 1e-9) * bound
        } else {
            5.0
        };
        let least = least_distance(&mut generator, &a, &b, end);
        assert!(least > -DEPTH, "bound {bound}: distance {least}");
        if bound.is_finite() {
            closed = closed.max(1.0 - least / p.distance);
        }
    }
    // Enough cases where the bound mattered.
    assert!(finite > 200, "{finite}");
    // Measured (seed above): median 3 %, 90th percentile 36 %, largest
    // 73 %: the bound is loose for tumbling bodies, as eq. 4 must be.
    assert!(closed > 0.5, "no case came close: {closed}");
}

#[test]
fn mirtich_bound_is_tight_for_straight_approach() {
    let mut generator = ManifoldGenerator::default();
    // Two unit cubes 1 m apart, one moving at 2 m/s straight at the other.
    let cube = Shape::cuboid(DVec3::splat(0.5)).unwrap();
    let a = Mover {
        shape: cube.clone(),
        start: Pose::IDENTITY,
        local_centre: DVec3::ZERO,
        linear: DVec3::new(2.0, 0.0, 0.0),
        angular: DVec3::ZERO,
    };
    let b = Mover {
        shape: cube,
        start: Pose::from_translation(DVec3::new(2.0, 0.3, 0.0)),
        local_centre: DVec3::ZERO,
        linear: DVec3::ZERO,
        angular: DVec3::ZERO,
    };
    let p = generator
        .proximity(&a.shape, &a.pose(0.0), &b.shape, &b.pose(0.0), 1e-9)
        .unwrap();
    let bound = mirtich_bound(p.distance, p.normal, &a.motion(), &b.motion());
    assert!((bound - 0.5).abs() < 1e-12);
    assert!(least_distance(&mut generator, &a, &b, (1.0 - 1e-9) * bound) > -DEPTH);
    assert!(least_distance(&mut generator, &a, &b, 1.5 * bound) < -0.4);

    // Random hulls translated along the closest-point direction: 1.5 times
    // the bound moves the closest points 0.5 d past each other, which
    // overlaps unless the Minkowski difference is a sharp wedge there
    // (measured: 167 of 187; the others have a vertex or an edge, or the
    // rim of a face, closest).
    let mut rng = Rng(77);
    let (mut cases, mut overlapped) = (0, 0);
    for _ in 0..200 {
        let (sa, ca) = random_solid(&mut rng);
        let (sb, cb) = random_solid(&mut rng);
        let start_a = Pose::new(DVec3::ZERO, rng.rotation());
        let start_b = Pose::new(rng.vector(-2.5, 2.5), rng.rotation());
        let p = generator
            .proximity(&sa, &start_a, &sb, &start_b, 1e-9)
            .unwrap();
        if p.distance < 1e-2 {
            continue;
        }
        let speed = rng.range(0.5, 3.0);
        let a = Mover {
            shape: sa,
            start: start_a,
            local_centre: ca,
            linear: speed * p.normal,
            angular: DVec3::ZERO,
        };
        let b = Mover {
            shape: sb,
            start: start_b,
            local_centre: cb,
            linear: DVec3::ZERO,
            angular: DVec3::ZERO,
        };
        let bound = mirtich_bound(p.distance, p.normal, &a.motion(), &b.motion());
        assert!((bound - p.distance / speed).abs() < 1e-12 * (1.0 + bound));
        assert!(least_distance(&mut generator, &a, &b, (1.0 - 1e-9) * bound) > -DEPTH);
        cases += 1;
        let end = generator
            .proximity(
                &a.shape,
                &a.pose(1.5 * bound),
                &b.shape,
                &b.pose(1.5 * bound),
                1e-9,
            )
            .unwrap();
        if end.distance < 0.0 {
            overlapped += 1;
        }
    }
    assert!(
        cases > 100 && overlapped * 10 > cases * 8,
        "{overlapped} of {cases}"
    );
}

/// A random hull A resting with one vertex on the centroid of a random
/// face of a random hull B (static at the identity). Returns A's shape,
/// its starting pose, the contact vertex (A's frame) and the face normal.
fn vertex_on_face(rng: &mut Rng, b: &ConvexPolytope) -> (Shape, Pose, DVec3, DVec3) {
    let a = rng.hull();
    let rotation = rng.rotation();
    let face = (rng.next() * b.faces().len() as f64) as usize;
    let normal = b.faces()[face].normal;
    let corners = b.face_vertices(face);
    let centroid = corners
        .iter()
        .map(|&v| b.vertices()[v as usize])
        .sum::<DVec3>()
        / corners.len() as f64;
    let tip = *a
        .vertices()
        .iter()
        .min_by(|&&x, &&y| {
            normal
                .dot(rotation * x)
                .total_cmp(&normal.dot(rotation * y))
        })
        .unwrap();
    let pose = Pose::new(centroid - rotation * tip, rotation);
    (Shape::polytope(a), pose, tip, normal)
}

#[test]
fn touching_bound_is_conservative_for_random_tilts() {
    let mut rng = Rng(0xE703_7ED1_A0B4_28DB);
    let mut generator = ManifoldGenerator::default();
    let mut tested = 0;
    for _ in 0..300 {
        let b_hull = rng.hull();
        let (a_shape, a_start, tip, face_normal) = vertex_on_face(&mut rng, &b_hull);
        let b_shape = Shape::polytope(b_hull.clone());
        let Some(plane) = generator
            .separating_plane(&b_shape, &Pose::IDENTITY, &a_shape, &a_start, 1e-9)
            .unwrap()
        else {
            continue;
        };
        if plane.kind != ContactKind::VertexFace || plane.normal.dot(face_normal) < 1.0 - 1e-9 {
            continue;
        }
        // A turns about its contact vertex, which slides in the plane
        // (Drumwright's premise: the contact stays on the plane).
        let slide = rng.vector(-1.0, 1.0);
        let a = Mover {
            shape: a_shape,
            start: a_start,
            local_centre: tip,
            linear: slide - slide.dot(plane.normal) * plane.normal,
            angular: rng.vector(-3.0, 3.0),
        };
        let b = Mover {
            shape: b_shape,
            start: Pose::IDENTITY,
            local_centre: DVec3::ZERO,
            linear: DVec3::ZERO,
            angular: DVec3::ZERO,
        };
        let posed_a: Vec<DVec3> = vertices(&a.shape)
            .iter()
            .map(|&v| a_start.transform_point(v))
            .collect();
        let bound = touching_bound(
            &plane,
            b_hull.vertices(),
            &posed_a,
            0.0,
            tilt_rate(a.angular, plane.normal),
            1e-9,
        );
        assert!(bound > 0.0);
        let end = (1.0 - 1e-9) * bound.min(5.0);
        tested += 1;
        for k in 0..=SAMPLES {
            let t = end * k as f64 / SAMPLES as f64;
            let pose = a.pose(t);
            // No vertex of A other than the tip reaches the plane, so no
            // interpenetration either.
            for &v in &vertices(&a.shape) {
                let height = plane.normal.dot(pose.transform_point(v)) - plane.offset;
                if v != tip {
                    assert!(height > 0.0, "t {t} of bound {bound}: height {height}");
                }
            }
        }
        assert!(least_distance(&mut generator, &b, &a, end) > -DEPTH);
    }
    assert!(tested > 150, "{tested}");
}

#[test]
fn touching_bound_is_tight_for_a_tip_tilting_onto_a_face() {
    // A tetrahedron on its tip on a slab's top face z = 0; its low vertex
    // (2, 0, 0.1) drops as it turns about y: eq. 7 gives
    // t = 0.1 / (w |(2, 0, 0.1)|), and 1.5 t drops it 0.15 - O(t^3) > 0.1.
    let tetra = ConvexPolytope::from_points(&[
        DVec3::ZERO,
        DVec3::new(2.0, 0.0, 0.1),
        DVec3::new(-1.0, 2.0, 1.0),
        DVec3::new(-1.0, -2.0, 1.0),
    ])
    .unwrap();
    let slab = Shape::cuboid(DVec3::new(5.0, 5.0, 1.0)).unwrap();
    let slab_pose = Pose::from_translation(DVec3::new(0.0, 0.0, -1.0));
    let a = Mover {
        shape: Shape::polytope(tetra),
        start: Pose::IDENTITY,
        local_centre: DVec3::ZERO,
        linear: DVec3::ZERO,
        angular: DVec3::new(0.0, 1.5, 0.0),
    };
    let b = Mover {
        shape: slab,
        start: slab_pose,
        local_centre: DVec3::ZERO,
        linear: DVec3::ZERO,
        angular: DVec3::ZERO,
    };
    let mut generator = ManifoldGenerator::default();
    let plane = generator
        .separating_plane(&b.shape, &slab_pose, &a.shape, &Pose::IDENTITY, 1e-9)
        .unwrap()
        .unwrap();
    assert_eq!(plane.kind, ContactKind::VertexFace);
    assert!((plane.normal - DVec3::Z).length() < 1e-12);
    let slab_vertices: Vec<DVec3> = vertices(&b.shape)
        .iter()
        .map(|&v| slab_pose.transform_point(v))
        .collect();
    let bound = touching_bound(
        &plane,
        &slab_vertices,
        &vertices(&a.shape),
        0.0,
        tilt_rate(a.angular, plane.normal),
        1e-9,
    );
    let expected = 0.1 / (1.5 * DVec3::new(2.0, 0.0, 0.1).length());
    assert!((bound - expected).abs() < 1e-12, "{bound} vs {expected}");
    assert!(least_distance(&mut generator, &b, &a, (1.0 - 1e-9) * bound) > -DEPTH);
    assert!(least_distance(&mut generator, &b, &a, 1.5 * bound) < -0.01);
}

/// A serial chain with constant joint rates, and its last link's shape.
struct Chain {
    base_position: DVec3,
    base_rotation: DQuat,
    base_linear: DVec3,
    base_angular: DVec3,
    /// Per joint: kind, axis (parent frame), offset from the previous
    /// joint (parent frame), position, rate.
    joints: Vec<(JointKind, DVec3, DVec3, f64, f64)>,
    link: Shape,
}

impl Chain {
    /// The pose of the last link at time `t` (forward kinematics).
    fn pose(&self, t: f64) -> Pose {
        let mut pose = Pose::new(
            self.base_position + self.base_linear * t,
            DQuat::from_scaled_axis(self.base_angular * t) * self.base_rotation,
        );
        for &(kind, axis, offset, q, rate) in &self.joints {
            let q = q + rate * t;
            let motion = match kind {
                JointKind::Prismatic => Pose::from_translation(axis * q),
                JointKind::Rotational => Pose::from_rotation(DQuat::from_axis_angle(axis, q)),
            };
            pose = pose
                .compose(&Pose::from_translation(offset))
                .compose(&motion);
        }
        pose
    }

    fn joint_data(&self) -> Vec<ChainJoint> {
        (0..self.joints.len())
            .map(|j| {
                let (kind, _, _, position, rate) = self.joints[j];
                ChainJoint {
                    kind,
                    position,
                    rate: rate.abs(),
                    // The spacing to the next joint is that joint's offset.
                    link_length: self.joints.get(j + 1).map_or(0.0, |n| n.2.length()),
                }
            })
            .collect()
    }

    /// Reach of the link from the last joint's location over the horizon.
    fn reach(&self, horizon: f64) -> f64 {
        let &(kind, _, _, q, rate) = self.joints.last().unwrap();
        let slide = match kind {
            JointKind::Prismatic => q.abs() + rate.abs() * horizon,
            JointKind::Rotational => 0.0,
        };
        slide
            + vertices(&self.link)
                .iter()
                .map(|v| v.length())
                .fold(0.0, f64::max)
    }
}

#[test]
fn chain_bound_is_conservative_for_random_chains() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut generator = ManifoldGenerator::default();
    let horizon = 1.0;
    let (mut tested, mut capped) = (0, 0);
    for _ in 0..200 {
        let count = 1 + (rng.next() * 4.0) as usize;
        let joints = (0..count)
            .map(|j| {
                let kind = if rng.next() < 0.3 {
                    JointKind::Prismatic
                } else {
                    JointKind::Rotational
                };
                let axis = rng.vector(-1.0, 1.0).normalize_or(DVec3::Z);
                let offset = if j == 0 {
                    DVec3::ZERO
                } else {
                    rng.vector(-0.5, 0.5)
                };
                (
                    kind,
                    axis,
                    offset,
                    rng.range(-0.5, 0.5),
                    rng.range(-2.0, 2.0),
                )
            })
            .collect();
        let chain = Chain {
            base_position: rng.vector(-0.2, 0.2),
            base_rotation: rng.rotation(),
            base_linear: rng.vector(-0.5, 0.5),
            base_angular: if rng.next() < 0.5 {
                DVec3::ZERO
            } else {
                rng.vector(-1.0, 1.0)
            },
            joints,
            link: Shape::polytope(rng.hull()),
        };
        let obstacle = Mover {
            shape: Shape::polytope(rng.hull()),
            start: Pose::new(rng.vector(-3.0, 3.0), rng.rotation()),
            local_centre: DVec3::ZERO,
            linear: rng.vector(-0.5, 0.5),
            angular: DVec3::ZERO,
        };
        let p = generator
            .proximity(
                &chain.link,
                &chain.pose(0.0),
                &obstacle.shape,
                &obstacle.start,
                1e-9,
            )
            .unwrap();
        if p.distance < 1e-3 {
            continue;
        }
        let data = chain.joint_data();
        let motion = ChainMotion {
            base_linear: chain.base_linear,
            base_angular: chain.base_angular,
            joints: &data,
            reach: chain.reach(horizon),
        };
        let bound = chain_mirtich_bound(p.distance, p.normal, &motion, &obstacle.motion(), horizon);
        assert!(bound > 0.0 && bound <= horizon);
        if bound == horizon {
            capped += 1;
        }
        tested += 1;
        let end = (1.0 - 1e-9) * bound;
        for k in 0..=SAMPLES {
            let t = end * k as f64 / SAMPLES as f64;
            let d = generator
                .proximity(
                    &chain.link,
                    &chain.pose(t),
                    &obstacle.shape,
                    &obstacle.pose(t),
                    1e-9,
                )
                .unwrap()
                .distance;
            assert!(d > -DEPTH, "t {t} of bound {bound}: distance {d}");
        }
    }
    assert!(tested > 100 && capped < tested / 2, "{tested} {capped}");
}

#[test]
fn chain_bound_is_tight_for_a_slider() {
    // A fixed base, one prismatic joint driving a unit cube down at 2 m/s
    // onto the ground from 0.4 m: t = 0.2 s, and 0.3 s sinks it 0.2 m.
    let chain = Chain {
        base_position: DVec3::new(0.0, 0.0, 2.0),
        base_rotation: DQuat::IDENTITY,
        base_linear: DVec3::ZERO,
        base_angular: DVec3::ZERO,
        joints: vec![(JointKind::Prismatic, -DVec3::Z, DVec3::ZERO, 1.1, 2.0)],
        link: Shape::cuboid(DVec3::splat(0.5)).unwrap(),
    };
    let ground = Shape::half_space(DVec3::Z).unwrap();
    let mut generator = ManifoldGenerator::default();
    let p = generator
        .proximity(
            &chain.link,
            &chain.pose(0.0),
            &ground,
            &Pose::IDENTITY,
            1e-9,
        )
        .unwrap();
    assert!((p.distance - 0.4).abs() < 1e-12);
    let data = chain.joint_data();
    let motion = ChainMotion {
        base_linear: DVec3::ZERO,
        base_angular: DVec3::ZERO,
        joints: &data,
        reach: chain.reach(1.0),
    };
    let ground_motion = BodyMotion {
        radius: f64::INFINITY,
        ..BodyMotion::STATIC
    };
    let bound = chain_mirtich_bound(p.distance, p.normal, &motion, &ground_motion, 1.0);
    assert!((bound - 0.2).abs() < 1e-12);
    let at = |t: f64| {
        ManifoldGenerator::default()
            .proximity(&chain.link, &chain.pose(t), &ground, &Pose::IDENTITY, 1e-9)
            .unwrap()
            .distance
    };
    assert!(at((1.0 - 1e-9) * bound) > -DEPTH);
    assert!((at(1.5 * bound) + 0.2).abs() < 1e-12);
}
