//! Broad phases (`contact_geometry::{SweepAndPrune, GridBroadPhase}`) on
//! random scenes of constant density (about 2 candidate pairs per box),
//! N = 1 000 and 10 000, beside a yardstick measured in the same run:
//! sorting the N lower bounds, the least any sweep and prune must do.
//!
//! The conservative-advancement group that used to live here is in
//! `geometry.rs`, with the other narrow-phase queries.

use contact_benches::Rng;
use contact_geometry::{Aabb, GridBroadPhase, SweepAndPrune};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn scene(n: usize) -> Vec<Aabb> {
    let mut rng = Rng::new(0x5EED ^ n as u64);
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

criterion_group!(benches, broad_phase);
criterion_main!(benches);
