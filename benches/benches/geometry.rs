//! Narrow-phase geometry times (absolute: no yardstick), on touching pairs:
//!
//! - `manifold`: `ManifoldGenerator::compute` (margin 0.01 m) for two unit
//!   cubes face on face (the upper one turned 0.3 rad about the normal, so
//!   the clipped polygon has 8 vertices), edge on edge (crossed at right
//!   angles), and tilted (resting on a vertex, turned about a horizontal
//!   axis), and for two 64-vertex hulls (random points on the unit sphere)
//!   resting face on face and turned at random, touching vertex on vertex.
//! - `separating_plane`: `ManifoldGenerator::separating_plane` (tolerance
//!   1e-6 m) on the same pairs.
//! - `advancement`: the conservative-advancement inputs on 64-vertex hulls:
//!   the proximity query (GJK points and features), Mirtich's bound (1996,
//!   eq. 4) alone and after the proximity query, and Drumwright's bound for
//!   touching polytopes (2016, eq. 7-8) alone and after the separating
//!   plane; a sphere's exact closest point against the same hull; and eq.
//!   7-8 on a 256-vertex hull resting on one vertex, over every vertex
//!   (`touching_bound`) and over the contact vertex's neighbours
//!   (`touching_bound_adjacent`, the same value).

use contact_benches::Rng;
use contact_geometry::{
    BodyMotion, ContactKind, ContactManifold, ConvexPolytope, ManifoldGenerator, SeparatingPlane,
    Shape, TouchingPolytope, mirtich_bound, tilt_rate, touching_bound, touching_bound_adjacent,
};
use contact_math::Pose;
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{DQuat, DVec3};
use std::hint::black_box;

/// The hull of `n` random points on the unit sphere.
fn hull(rng: &mut Rng, n: usize) -> ConvexPolytope {
    let points: Vec<DVec3> = (0..n)
        .map(|_| rng.vector(-1.0, 1.0).normalize_or(DVec3::X))
        .collect();
    ConvexPolytope::from_points(&points).expect("a sphere of points spans a solid")
}

/// A touching pair: two shapes and their poses.
struct Pair {
    name: &'static str,
    a: Shape,
    pose_a: Pose,
    b: Shape,
    pose_b: Pose,
}

fn world_vertices(p: &ConvexPolytope, pose: &Pose) -> Vec<DVec3> {
    p.vertices()
        .iter()
        .map(|&v| pose.transform_point(v))
        .collect()
}

/// The face of `p` with the largest area: (outward normal, centroid).
fn largest_face(p: &ConvexPolytope) -> (DVec3, DVec3) {
    let mut best = (0.0, DVec3::Z, DVec3::ZERO);
    for (f, plane) in p.faces().iter().enumerate() {
        let v: Vec<DVec3> = p
            .face_vertices(f)
            .iter()
            .map(|&i| p.vertices()[i as usize])
            .collect();
        let area: f64 = (1..v.len().saturating_sub(1))
            .map(|k| 0.5 * (v[k] - v[0]).cross(v[k + 1] - v[0]).length())
            .sum();
        if area > best.0 {
            let centroid = v.iter().copied().sum::<DVec3>() / v.len() as f64;
            best = (area, plane.normal, centroid);
        }
    }
    (best.1, best.2)
}

/// `b` turned by `turn` and moved so its lowest vertex rests on the highest
/// vertex of `a` (at the identity): a vertex-vertex touch.
fn vertex_on_vertex(a: &ConvexPolytope, b: &ConvexPolytope, turn: DQuat) -> Pose {
    let top = a
        .vertices()
        .iter()
        .copied()
        .max_by(|x, y| x.z.total_cmp(&y.z))
        .expect("vertices");
    let bottom = b
        .vertices()
        .iter()
        .map(|&v| turn * v)
        .min_by(|x, y| x.z.total_cmp(&y.z))
        .expect("vertices");
    Pose::new(top - bottom, turn)
}

/// The turn of the upper hull in the `hull64_rotated` pair.
fn hull_turn() -> DQuat {
    DQuat::from_axis_angle(DVec3::new(0.3, -0.5, 0.8).normalize(), 2.0)
}

fn pairs() -> Vec<Pair> {
    let cube = Shape::cuboid(DVec3::splat(0.5)).expect("valid cube");
    // The lowest corner of the turned cube, relative to its centre.
    let lowest_corner = |turn: DQuat| {
        (0..8)
            .map(|k| {
                let s = |bit: u32| if k & (1 << bit) == 0 { -0.5 } else { 0.5 };
                turn * DVec3::new(s(0), s(1), s(2))
            })
            .min_by(|x, y| x.z.total_cmp(&y.z))
            .expect("8 corners")
    };
    let tilt = DQuat::from_axis_angle(DVec3::new(1.0, 1.0, 0.0).normalize(), 0.6);
    let edge_a = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4);
    let edge_b = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4);
    let half_diagonal = std::f64::consts::FRAC_1_SQRT_2;

    let mut rng = Rng::new(42);
    let (ha, hb) = (hull(&mut rng, 64), hull(&mut rng, 64));
    // Face on face: a's largest face turned to +z, b's to -z, centroids
    // on each other.
    let (na, ca) = largest_face(&ha);
    let (nb, cb) = largest_face(&hb);
    let (qa, qb) = (
        DQuat::from_rotation_arc(na, DVec3::Z),
        DQuat::from_rotation_arc(nb, -DVec3::Z),
    );
    let resting_a = Pose::new(DVec3::ZERO, qa);
    let resting_b = Pose::new(qa * ca - qb * cb, qb);
    let rotated_b = vertex_on_vertex(&ha, &hb, hull_turn());
    let (ha, hb) = (Shape::polytope(ha), Shape::polytope(hb));

    vec![
        Pair {
            name: "box_box_face_face",
            a: cube.clone(),
            pose_a: Pose::IDENTITY,
            b: cube.clone(),
            pose_b: Pose::new(DVec3::Z, DQuat::from_rotation_z(0.3)),
        },
        Pair {
            name: "box_box_edge_edge",
            a: cube.clone(),
            pose_a: Pose::new(DVec3::ZERO, edge_a),
            b: cube.clone(),
            pose_b: Pose::new(DVec3::new(0.0, 0.0, 2.0 * half_diagonal), edge_b),
        },
        Pair {
            name: "box_box_tilted",
            a: cube.clone(),
            pose_a: Pose::IDENTITY,
            b: cube,
            // Its lowest corner on a's top face, off centre.
            pose_b: Pose::new(DVec3::new(0.1, -0.2, 0.5) - lowest_corner(tilt), tilt),
        },
        Pair {
            name: "hull64_resting",
            a: ha.clone(),
            pose_a: resting_a,
            b: hb.clone(),
            pose_b: resting_b,
        },
        Pair {
            name: "hull64_rotated",
            a: ha,
            pose_a: Pose::IDENTITY,
            b: hb,
            pose_b: rotated_b,
        },
    ]
}

fn manifold(c: &mut Criterion) {
    let mut generator = ManifoldGenerator::default();
    let mut out = ContactManifold::default();
    let mut group = c.benchmark_group("manifold");
    for p in pairs() {
        generator
            .compute(&p.a, &p.pose_a, &p.b, &p.pose_b, 0.01, &mut out)
            .expect("valid pair");
        eprintln!("manifold/{}: {} points", p.name, out.points.len());
        assert!(!out.points.is_empty(), "{}: the pair must touch", p.name);
        group.bench_function(p.name, |bench| {
            bench.iter(|| {
                generator
                    .compute(black_box(&p.a), &p.pose_a, &p.b, &p.pose_b, 0.01, &mut out)
                    .expect("valid pair");
                out.points.len()
            })
        });
    }
    group.finish();
}

fn separating_plane(c: &mut Criterion) {
    let mut generator = ManifoldGenerator::default();
    let mut group = c.benchmark_group("separating_plane");
    for p in pairs() {
        let plane = generator
            .separating_plane(&p.a, &p.pose_a, &p.b, &p.pose_b, 1e-6)
            .expect("valid pair");
        assert!(plane.is_some(), "{}: the pair must touch", p.name);
        group.bench_function(p.name, |bench| {
            bench.iter(|| {
                generator
                    .separating_plane(black_box(&p.a), &p.pose_a, &p.b, &p.pose_b, 1e-6)
                    .expect("valid pair")
            })
        });
    }
    group.finish();
}

fn advancement(c: &mut Criterion) {
    let mut rng = Rng::new(42);
    let (ha, hb) = (hull(&mut rng, 64), hull(&mut rng, 64));
    let (a, b) = (Shape::polytope(ha.clone()), Shape::polytope(hb.clone()));
    let pa = Pose::IDENTITY;
    let pb = Pose::new(DVec3::new(2.5, 0.3, -0.2), DQuat::from_rotation_y(0.7));
    let mut generator = ManifoldGenerator::default();
    let motion = BodyMotion {
        linear: DVec3::new(1.0, 0.0, 0.0),
        angular: DVec3::new(0.0, 2.0, 1.0),
        radius: 1.0,
    };
    let mut group = c.benchmark_group("advancement");
    group.bench_function("proximity_hull64", |bench| {
        bench.iter(|| {
            generator
                .proximity(black_box(&a), &pa, black_box(&b), &pb, 1e-9)
                .expect("bounded shapes")
                .distance
        })
    });
    group.bench_function("proximity_and_mirtich_hull64", |bench| {
        bench.iter(|| {
            let p = generator
                .proximity(black_box(&a), &pa, black_box(&b), &pb, 1e-9)
                .expect("bounded shapes");
            mirtich_bound(p.distance, p.normal, &motion, &BodyMotion::STATIC)
        })
    });
    let p = generator
        .proximity(&a, &pa, &b, &pb, 1e-9)
        .expect("bounded shapes");
    group.bench_function("mirtich", |bench| {
        bench.iter(|| {
            mirtich_bound(
                black_box(p.distance),
                p.normal,
                &motion,
                &BodyMotion::STATIC,
            )
        })
    });

    // Touching: the turned hulls resting vertex on vertex, as in `manifold`.
    let touching_b = vertex_on_vertex(&ha, &hb, hull_turn());
    let (va, vb) = (world_vertices(&ha, &pa), world_vertices(&hb, &touching_b));
    let plane = generator
        .separating_plane(&a, &pa, &b, &touching_b, 1e-6)
        .expect("valid pair")
        .expect("touching pair");
    let (wa, wb) = (DVec3::new(0.0, 2.0, 1.0), DVec3::new(-1.0, 0.5, 0.0));
    group.bench_function("touching_hull64", |bench| {
        bench.iter(|| {
            touching_bound(
                black_box(&plane),
                &va,
                &vb,
                tilt_rate(wa, plane.normal),
                tilt_rate(wb, plane.normal),
                1e-9,
            )
        })
    });
    group.bench_function("separating_plane_and_touching_hull64", |bench| {
        bench.iter(|| {
            let plane = generator
                .separating_plane(black_box(&a), &pa, &b, &touching_b, 1e-6)
                .expect("valid pair")
                .expect("touching pair");
            touching_bound(
                &plane,
                &va,
                &vb,
                tilt_rate(wa, plane.normal),
                tilt_rate(wb, plane.normal),
                1e-9,
            )
        })
    });
    let ball = Shape::sphere(0.5).expect("a positive radius");
    group.bench_function("proximity_sphere_hull64", |bench| {
        bench.iter(|| {
            generator
                .proximity(black_box(&a), &pa, black_box(&ball), &pb, 1e-9)
                .expect("bounded shapes")
                .distance
        })
    });
    // A 256-vertex hull below the plane through its vertex farthest along
    // the diagonal (one contact vertex).
    let big = hull(&mut rng, 256);
    let normal = DVec3::ONE.normalize();
    let offset = big
        .vertices()
        .iter()
        .map(|&v| normal.dot(v))
        .fold(f64::NEG_INFINITY, f64::max);
    let plane = SeparatingPlane {
        normal,
        offset,
        separation: 0.0,
        kind: ContactKind::VertexFace,
    };
    group.bench_function("touching_bound_all_vertices_hull256", |bench| {
        bench.iter(|| touching_bound(&plane, black_box(big.vertices()), &[], 2.0, 0.0, 1e-9))
    });
    let side = TouchingPolytope {
        polytope: Some(&big),
        world_vertices: big.vertices(),
        tilt: 2.0,
    };
    let none = TouchingPolytope {
        polytope: None,
        world_vertices: &[],
        tilt: 0.0,
    };
    group.bench_function("touching_bound_adjacent_hull256", |bench| {
        bench.iter(|| touching_bound_adjacent(&plane, black_box(&side), &none, 1e-9))
    });
    group.finish();
}

criterion_group!(benches, manifold, separating_plane, advancement);
criterion_main!(benches);
