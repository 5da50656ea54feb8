//! Guards the polytope contact manifolds against known answers: a
//! hexagonal prism on the ground gives all 6 bottom corners (parry 0.31
//! truncates the face to 4), a tetrahedron standing on a vertex gives one
//! point, and boxes built as polytopes give the same manifolds as the
//! cuboid path on the cases of `cuboid_manifolds.rs`; a warmed-up
//! generator allocates nothing on polytope pairs.

mod common;

use common::assert_same_points;

use contact_geometry::{ContactManifold, ConvexPolytope, Feature, ManifoldGenerator, Shape};
use contact_math::Pose;
use glam::{DQuat, DVec3};

fn manifold(a: &Shape, pose_a: &Pose, b: &Shape, pose_b: &Pose, margin: f64) -> ContactManifold {
    let mut out = ContactManifold::default();
    ManifoldGenerator::default()
        .compute(a, pose_a, b, pose_b, margin, &mut out)
        .unwrap();
    out
}

fn ground() -> Shape {
    Shape::half_space(DVec3::Z).unwrap()
}

fn hexagonal_prism() -> Shape {
    let points: Vec<DVec3> = (0..12)
        .map(|k| {
            let angle = (k % 6) as f64 * std::f64::consts::PI / 3.0;
            DVec3::new(angle.cos(), angle.sin(), if k < 6 { -0.5 } else { 0.5 })
        })
        .collect();
    Shape::polytope(ConvexPolytope::from_points(&points).unwrap())
}

fn midpoints(m: &ContactManifold) -> Vec<DVec3> {
    m.points.iter().map(|p| p.midpoint()).collect()
}

#[test]
fn hexagonal_prism_on_the_ground_touches_at_all_six_corners() {
    let pose = Pose::from_translation(DVec3::new(0.5, 0.0, 0.5));
    let m = manifold(&ground(), &Pose::IDENTITY, &hexagonal_prism(), &pose, 1e-3);
    assert_eq!(m.normal, DVec3::Z);
    let expected: Vec<DVec3> = (0..6)
        .map(|k| {
            let angle = k as f64 * std::f64::consts::PI / 3.0;
            DVec3::new(0.5 + angle.cos(), angle.sin(), 0.0)
        })
        .collect();
    assert_same_points(
        &m.points.iter().map(|p| p.point_b).collect::<Vec<_>>(),
        &expected,
    );
    assert!(m.points.iter().all(|p| p.distance.abs() < 1e-12));
}

#[test]
fn hexagonal_prism_on_a_box_touches_on_its_whole_hexagon() {
    // The hexagon (circumradius 1) lies inside the box's 4 x 4 top face.
    let table = Shape::cuboid(DVec3::new(2.0, 2.0, 0.5)).unwrap();
    let pose = Pose::new(DVec3::new(0.0, 0.0, 1.0), DQuat::from_rotation_z(0.3));
    let m = manifold(&table, &Pose::IDENTITY, &hexagonal_prism(), &pose, 1e-3);
    assert!((m.normal - DVec3::Z).length() < 1e-12);
    let expected: Vec<DVec3> = (0..6)
        .map(|k| {
            let angle = k as f64 * std::f64::consts::PI / 3.0 + 0.3;
            DVec3::new(angle.cos(), angle.sin(), 0.5)
        })
        .collect();
    assert_same_points(&midpoints(&m), &expected);
    for p in &m.points {
        assert!(matches!(p.feature_a, Feature::Face(_)));
        assert!(matches!(p.feature_b, Feature::Vertex(_)));
    }
}

#[test]
fn tetrahedron_standing_on_a_vertex_touches_at_one_point() {
    let tetrahedron = Shape::polytope(
        ConvexPolytope::from_points(&[
            DVec3::new(0.0, 0.0, -1.0),
            DVec3::new(1.0, 0.0, 0.5),
            DVec3::new(-0.5, 0.8, 0.5),
            DVec3::new(-0.5, -0.8, 0.5),
        ])
        .unwrap(),
    );
    let pose = Pose::from_translation(DVec3::new(0.2, 0.3, 1.0));
    let m = manifold(&ground(), &Pose::IDENTITY, &tetrahedron, &pose, 1e-3);
    assert_eq!(m.points.len(), 1);
    assert!((m.points[0].point_b - DVec3::new(0.2, 0.3, 0.0)).length() < 1e-12);
    assert_eq!(m.points[0].feature_b, Feature::Vertex(0));
    // Against a box top face: the same single point, vertex on face.
    let table = Shape::cuboid(DVec3::new(2.0, 2.0, 0.5)).unwrap();
    let pose = Pose::from_translation(DVec3::new(0.2, 0.3, 1.5));
    let m = manifold(&table, &Pose::IDENTITY, &tetrahedron, &pose, 1e-3);
    assert_eq!(m.points.len(), 1, "{m:?}");
    assert!((m.points[0].midpoint() - DVec3::new(0.2, 0.3, 0.5)).length() < 1e-12);
    assert_eq!(m.points[0].feature_b, Feature::Vertex(0));
    assert!((m.normal - DVec3::Z).length() < 1e-12);
}

/// The cuboid-cuboid cases of `cuboid_manifolds.rs` (and a few more), as
/// pose pairs of two unit cubes.
fn box_cases() -> Vec<(Pose, Pose)> {
    let r = 0.5 * 2f64.sqrt();
    vec![
        // Offset face to face.
        (
            Pose::IDENTITY,
            Pose::from_translation(DVec3::new(0.3, 0.2, 1.0)),
        ),
        // Turned 45 degrees: the octagon.
        (
            Pose::IDENTITY,
            Pose::new(
                DVec3::new(0.0, 0.0, 1.0),
                DQuat::from_rotation_z(45f64.to_radians()),
            ),
        ),
        // Turned by round-off: 4 points, not 8; and visibly: 8.
        (
            Pose::IDENTITY,
            Pose::new(DVec3::new(0.0, 0.0, 1.0), DQuat::from_rotation_z(1e-12)),
        ),
        (
            Pose::IDENTITY,
            Pose::new(DVec3::new(0.0, 0.0, 1.0), DQuat::from_rotation_z(1e-6)),
        ),
        // Crossed edges.
        (
            Pose::from_rotation(DQuat::from_rotation_x(45f64.to_radians())),
            Pose::new(
                DVec3::new(0.0, 0.0, 2.0 * r),
                DQuat::from_rotation_y(45f64.to_radians()),
            ),
        ),
        // Side by side, slightly penetrating, tilted.
        (
            Pose::IDENTITY,
            Pose::new(DVec3::new(0.99, 0.1, 0.2), DQuat::from_rotation_x(0.2)),
        ),
        // Edge down on a face.
        (
            Pose::IDENTITY,
            Pose::new(
                DVec3::new(0.1, 0.0, 0.5 + r - 1e-4),
                DQuat::from_rotation_x(45f64.to_radians()),
            ),
        ),
    ]
}

#[test]
fn boxes_as_polytopes_agree_with_the_cuboid_path() {
    let cuboid = Shape::cuboid(DVec3::splat(0.5)).unwrap();
    let polytope = Shape::polytope(ConvexPolytope::from_box(DVec3::splat(0.5)).unwrap());
    for (k, (pa, pb)) in box_cases().iter().enumerate() {
        let reference = manifold(&cuboid, pa, &cuboid, pb, 1e-3);
        assert!(!reference.points.is_empty(), "case {k}");
        for (a, b) in [
            (&polytope, &polytope),
            (&cuboid, &polytope),
            (&polytope, &cuboid),
        ] {
            let m = manifold(a, pa, b, pb, 1e-3);
            assert!(
                (m.normal - reference.normal).length() < 1e-12,
                "case {k}: {m:?}"
            );
            assert_same_points(&midpoints(&m), &midpoints(&reference));
            for p in &m.points {
                let q = reference
                    .points
                    .iter()
                    .find(|q| (q.midpoint() - p.midpoint()).length() < 1e-9)
                    .unwrap();
                assert!((p.distance - q.distance).abs() < 1e-12, "case {k}");
            }
        }
    }
    // Known answers of two of them, as in cuboid_manifolds.rs.
    let cases = box_cases();
    let offset = manifold(&polytope, &cases[0].0, &polytope, &cases[0].1, 1e-3);
    assert_eq!(offset.points.len(), 4);
    let octagon = manifold(&polytope, &cases[1].0, &polytope, &cases[1].1, 1e-3);
    assert_eq!(octagon.points.len(), 8);
    let round_off = manifold(&polytope, &cases[2].0, &polytope, &cases[2].1, 1e-3);
    assert_eq!(round_off.points.len(), 4);
    let crossed = manifold(&polytope, &cases[4].0, &polytope, &cases[4].1, 1e-3);
    assert_eq!(crossed.points.len(), 1);
    assert!(matches!(
        (crossed.points[0].feature_a, crossed.points[0].feature_b),
        (Feature::Edge(_), Feature::Edge(_))
    ));
}

#[test]
fn swapping_a_polytope_pair_flips_normal_and_roles() {
    let prism = hexagonal_prism();
    let table = Shape::polytope(ConvexPolytope::from_box(DVec3::new(2.0, 2.0, 0.5)).unwrap());
    let pose = Pose::new(DVec3::new(0.3, 0.0, 1.0), DQuat::from_rotation_z(0.3));
    let forward = manifold(&table, &Pose::IDENTITY, &prism, &pose, 1e-3);
    let backward = manifold(&prism, &pose, &table, &Pose::IDENTITY, 1e-3);
    assert!((backward.normal + forward.normal).length() < 1e-12);
    assert_same_points(&midpoints(&backward), &midpoints(&forward));
    let far = Pose::from_translation(DVec3::new(0.0, 0.0, 1.1));
    assert!(
        manifold(&table, &Pose::IDENTITY, &prism, &far, 1e-3)
            .points
            .is_empty()
    );
}

#[test]
fn a_warmed_up_generator_allocates_nothing_on_polytope_pairs() {
    // Manifolds and separating planes of random hull pairs, touching,
    // overlapping and apart: once the generator's buffers have grown on a
    // first pass, a second pass over the same pairs allocates nothing.
    let mut rng = common::Rng(0x00C0_FFEE_D00D);
    let cases: Vec<(Shape, Pose, Shape, Pose)> = (0..40)
        .map(|_| {
            let (a, b) = (rng.hull(), rng.hull());
            let pose_a = Pose::new(rng.vector(-0.3, 0.3), rng.rotation());
            let pose_b = Pose::new(rng.vector(-0.8, 0.8), rng.rotation());
            (Shape::polytope(a), pose_a, Shape::polytope(b), pose_b)
        })
        .collect();
    let mut generator = ManifoldGenerator::default();
    let mut out = ContactManifold::default();
    let mut run = |generator: &mut ManifoldGenerator| {
        let (mut touching, mut planes) = (0, 0);
        for (a, pose_a, b, pose_b) in &cases {
            generator
                .compute(a, pose_a, b, pose_b, 0.05, &mut out)
                .unwrap();
            touching += usize::from(!out.points.is_empty());
            let plane = generator
                .separating_plane(a, pose_a, b, pose_b, 0.05)
                .unwrap();
            planes += usize::from(plane.is_some());
        }
        (touching, planes)
    };
    let cold = allocation_counter::measure(|| {
        let (touching, planes) = run(&mut generator);
        assert!(
            touching > 5 && planes > 2,
            "too few cases: {touching} {planes}"
        );
    });
    assert!(cold.count_total > 0);
    let warm = allocation_counter::measure(|| {
        run(&mut generator);
    });
    assert_eq!(warm.count_total, 0, "{warm:?}");
}
