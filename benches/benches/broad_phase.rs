//! Broad phases (`contact_geometry::{SweepAndPrune, GridBroadPhase}`) on
//! random scenes of constant density (about 2 candidate pairs per box),
//! N = 1 000 and 10 000, beside a yardstick measured in the same run:
//! sorting the N lower bounds, the least any sweep and prune must do.
//!
//! Also times the conservative-advancement inputs on 64-vertex hulls:
//! the proximity query (GJK points and features) and Mirtich's bound; a
//! sphere's exact closest point against the same hull; and Drumwright's
//! eq. 7-8 on a 256-vertex hull resting on one vertex, over every vertex
//! (`touching_bound`) and over the contact vertex's neighbours
//! (`touching_bound_adjacent`, the same value).

use contact_geometry::{
    Aabb, BodyMotion, ContactKind, ConvexPolytope, GridBroadPhase, ManifoldGenerator,
    SeparatingPlane, Shape, SweepAndPrune, TouchingPolytope, mirtich_bound, touching_bound,
    touching_bound_adjacent,
};
use contact_math::Pose;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::{DQuat, DVec3};
use std::hint::black_box;

/// xorshift64*, so the scene is the same in every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn vector(&mut self, lo: f64, hi: f64) -> DVec3 {
        DVec3::new(self.next(), self.next(), self.next()) * (hi - lo) + DVec3::splat(lo)
    }
}

fn scene(n: usize) -> Vec<Aabb> {
    let mut rng = Rng(0x5EED ^ n as u64);
    let side = 2.0 * (n as f64).cbrt();
    (0..n)
        .map(|_| {
            let centre = rng.vector(0.0, side);
            let half = rng.vector(0.05, 0.5);
            Aabb {
                min: centre - half,
                max: centre + half,
            }
        })
        .collect()
}

fn broad_phase(c: &mut Criterion) {
    let mut group = c.benchmark_group("broad_phase");
    for n in [1_000, 10_000] {
        let boxes = scene(n);
        let mut sap = SweepAndPrune::default();
        let _ = sap.pairs(&boxes).expect("finite boxes");
        group.bench_with_input(
            BenchmarkId::new("sweep_and_prune", n),
            &boxes,
            |b, boxes| b.iter(|| sap.pairs(black_box(boxes)).expect("finite boxes").len()),
        );
        let mut grid = GridBroadPhase::default();
        let _ = grid.pairs(&boxes).expect("finite boxes");
        group.bench_with_input(BenchmarkId::new("uniform_grid", n), &boxes, |b, boxes| {
            b.iter(|| grid.pairs(black_box(boxes)).expect("finite boxes").len())
        });
        let mut keys: Vec<f64> = Vec::with_capacity(n);
        group.bench_with_input(BenchmarkId::new("sort_yardstick", n), &boxes, |b, boxes| {
            b.iter(|| {
                keys.clear();
                keys.extend(boxes.iter().map(|a| a.min.x));
                keys.sort_unstable_by(f64::total_cmp);
                keys.len()
            })
        });
    }
    group.finish();
}

fn hull(rng: &mut Rng, n: usize) -> Shape {
    let points: Vec<DVec3> = (0..n)
        .map(|_| rng.vector(-1.0, 1.0).normalize_or(DVec3::X))
        .collect();
    Shape::polytope(ConvexPolytope::from_points(&points).expect("a sphere of points spans a solid"))
}

fn advancement(c: &mut Criterion) {
    let mut rng = Rng(42);
    let (a, b) = (hull(&mut rng, 64), hull(&mut rng, 64));
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
    let ball = Shape::sphere(0.5).expect("a positive radius");
    group.bench_function("proximity_sphere_hull64", |bench| {
        bench.iter(|| {
            generator
                .proximity(black_box(&a), &pa, black_box(&ball), &pb, 1e-9)
                .expect("bounded shapes")
                .distance
        })
    });
    // A 256-vertex hull below the plane through its vertex farthest
    // along the diagonal (one contact vertex).
    let Shape::Polytope(big) = hull(&mut rng, 256) else {
        unreachable!("hull builds a polytope")
    };
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

criterion_group!(benches, broad_phase, advancement);
criterion_main!(benches);
