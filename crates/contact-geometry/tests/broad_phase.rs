//! Guards the broad phases (sweep and prune, uniform grid): on random
//! scenes of 1 to 500 boxes each returns exactly the overlapping pairs a brute-force O(N^2)
//! test finds, sorted, and once warmed up it allocates nothing.

mod common;

use common::Rng;

use contact_geometry::{Aabb, GeometryError, GridBroadPhase, Shape, SweepAndPrune};
use contact_math::Pose;
use glam::DVec3;

/// A scene of `n` boxes with centres in a cube whose side grows with
/// `n^(1/3)` (constant density), sizes up to `size`.
fn scene(rng: &mut Rng, n: usize, size: f64) -> Vec<Aabb> {
    let side = 2.0 * (n as f64).cbrt();
    (0..n)
        .map(|_| {
            let centre = rng.vector(0.0, side);
            let half = rng.vector(0.01, size);
            Aabb {
                min: centre - half,
                max: centre + half,
            }
        })
        .collect()
}

fn brute_force(boxes: &[Aabb]) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            if boxes[i].overlaps(&boxes[j]) {
                pairs.push((i as u32, j as u32));
            }
        }
    }
    pairs
}

#[test]
fn matches_brute_force_on_random_scenes() {
    let mut rng = Rng(0xB5AD_4ECE_DA1C_E2A9);
    let mut sap = SweepAndPrune::default();
    let mut grid = GridBroadPhase::default();
    let mut total = 0;
    for n in (1..=500).step_by(7).chain([2, 3, 499, 500]) {
        for size in [0.3, 1.0] {
            let boxes = scene(&mut rng, n, size);
            let expected = brute_force(&boxes);
            assert_eq!(sap.pairs(&boxes).unwrap(), expected.as_slice(), "n = {n}");
            assert_eq!(grid.pairs(&boxes).unwrap(), expected.as_slice(), "n = {n}");
            total += expected.len();
        }
    }
    assert!(total > 5_000, "{total}");
}

#[test]
fn degenerate_scenes() {
    let mut sap = SweepAndPrune::default();
    // All boxes at one place: every pair.
    let same = vec![
        Aabb {
            min: DVec3::ZERO,
            max: DVec3::ONE,
        };
        20
    ];
    assert_eq!(sap.pairs(&same).unwrap(), brute_force(&same).as_slice());
    assert_eq!(sap.pairs(&same).unwrap().len(), 190);
    let mut grid = GridBroadPhase::default();
    assert_eq!(grid.pairs(&same).unwrap(), brute_force(&same).as_slice());
    // Boxes on a line along y (the sweep axis follows the spread), plus a
    // ground half-space that meets every box.
    let mut line: Vec<Aabb> = (0..50)
        .map(|k| {
            let c = DVec3::new(0.0, 0.9 * f64::from(k), 0.5);
            Aabb {
                min: c - DVec3::splat(0.5),
                max: c + DVec3::splat(0.5),
            }
        })
        .collect();
    let ground = Shape::half_space(DVec3::Z).unwrap();
    line.push(Aabb::of_shape(&ground, &Pose::IDENTITY, 0.0));
    let pairs = sap.pairs(&line).unwrap().to_vec();
    assert_eq!(pairs, brute_force(&line));
    assert_eq!(pairs.len(), 49 + 50);
    assert_eq!(grid.pairs(&line).unwrap(), pairs.as_slice());
    // Mixed sizes: a few boxes far wider than the grid's cells.
    let mut rng = Rng(3);
    let mut mixed = scene(&mut rng, 300, 0.3);
    mixed.extend(scene(&mut rng, 5, 4.0));
    assert_eq!(grid.pairs(&mixed).unwrap(), brute_force(&mixed).as_slice());
    assert!(grid.pairs(&[]).unwrap().is_empty());
}

#[test]
fn warmed_up_calls_allocate_nothing() {
    let mut rng = Rng(5);
    let boxes = scene(&mut rng, 500, 0.5);
    let moved: Vec<Aabb> = boxes
        .iter()
        .map(|b| Aabb {
            min: b.min + DVec3::splat(0.01),
            max: b.max + DVec3::splat(0.01),
        })
        .collect();
    let mut sap = SweepAndPrune::default();
    let mut grid = GridBroadPhase::default();
    for b in [&boxes, &moved] {
        let _ = sap.pairs(b).unwrap();
        let _ = grid.pairs(b).unwrap();
    }
    let info = allocation_counter::measure(|| {
        for _ in 0..10 {
            assert!(!sap.pairs(&boxes).unwrap().is_empty());
            assert!(!sap.pairs(&moved).unwrap().is_empty());
            assert!(!grid.pairs(&boxes).unwrap().is_empty());
            assert!(!grid.pairs(&moved).unwrap().is_empty());
        }
    });
    assert_eq!(info.count_total, 0, "{info:?}");
    let cold = allocation_counter::measure(|| {
        let mut fresh = SweepAndPrune::default();
        let _ = fresh.pairs(&boxes).unwrap();
    });
    assert!(cold.count_total > 0);
}

#[test]
fn a_nan_box_is_a_typed_error_naming_it() {
    let mut boxes = vec![
        Aabb {
            min: DVec3::ZERO,
            max: DVec3::ONE
        };
        3
    ];
    boxes[2].max.y = f64::NAN;
    let expected = GeometryError::NanBoundingBox { index: 2 };
    assert_eq!(
        SweepAndPrune::default().pairs(&boxes).unwrap_err(),
        expected
    );
    assert_eq!(
        GridBroadPhase::default().pairs(&boxes).unwrap_err(),
        expected
    );
}
