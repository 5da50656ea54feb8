//! Guards the contact manifolds of cuboids against a plane and against each
//! other, checked against closed-form geometry: which corners touch, the
//! vertices of the clipped overlap polygon, normals and signed distances.

mod common;

use common::assert_same_points;

use contact_geometry::{ContactManifold, Feature, ManifoldGenerator, Shape};
use contact_math::Pose;
use glam::{DQuat, DVec3};

const TOL: f64 = 1e-12;

fn manifold(a: &Shape, pose_a: &Pose, b: &Shape, pose_b: &Pose, margin: f64) -> ContactManifold {
    let mut out = ContactManifold::default();
    ManifoldGenerator::default()
        .compute(a, pose_a, b, pose_b, margin, &mut out)
        .unwrap();
    out
}

fn unit_cube() -> Shape {
    Shape::cuboid(DVec3::splat(0.5)).unwrap()
}

fn ground() -> Shape {
    Shape::half_space(DVec3::Z).unwrap()
}

#[test]
fn cube_resting_on_ground_touches_at_its_four_bottom_corners() {
    let pose = Pose::from_translation(DVec3::new(1.0, -2.0, 0.5));
    let m = manifold(&ground(), &Pose::IDENTITY, &unit_cube(), &pose, 1e-3);
    assert_eq!(m.normal, DVec3::Z);
    let expected: Vec<DVec3> = [(-0.5, -0.5), (-0.5, 0.5), (0.5, -0.5), (0.5, 0.5)]
        .into_iter()
        .map(|(x, y)| DVec3::new(1.0 + x, -2.0 + y, 0.0))
        .collect();
    assert_same_points(
        &m.points.iter().map(|p| p.point_b).collect::<Vec<_>>(),
        &expected,
    );
    for p in &m.points {
        assert!(p.distance.abs() < TOL);
        assert_eq!(p.feature_a, Feature::Face(0));
        assert!(matches!(p.feature_b, Feature::Vertex(_)));
    }
}

#[test]
fn cube_tilted_about_an_edge_touches_at_two_corners() {
    // Rotated 30 degrees about x, lowered so the lowest edge is at z = 0:
    // that edge's two corners are the contact, the others are far above.
    let rotation = DQuat::from_rotation_x(30f64.to_radians());
    let lowest = (0..8)
        .map(|i| {
            let c = DVec3::new(
                if i & 1 == 0 { 0.5 } else { -0.5 },
                if i & 2 == 0 { 0.5 } else { -0.5 },
                if i & 4 == 0 { 0.5 } else { -0.5 },
            );
            (rotation * c).z
        })
        .fold(f64::INFINITY, f64::min);
    let pose = Pose::new(DVec3::new(0.0, 0.0, -lowest), rotation);
    let m = manifold(&ground(), &Pose::IDENTITY, &unit_cube(), &pose, 1e-3);
    assert_eq!(m.points.len(), 2);
    for p in &m.points {
        assert!(p.distance.abs() < 1e-12);
        assert!(p.point_b.z.abs() < 1e-12);
    }
    // The two corners are the ends of an edge along x: 1 m apart, same y.
    let d = m.points[0].point_b - m.points[1].point_b;
    assert!((d.x.abs() - 1.0).abs() < 1e-12 && d.y.abs() < 1e-12);
}

#[test]
fn cube_balanced_on_a_corner_touches_at_one_point() {
    // Rotating (1,1,1) onto -z puts one corner straight below the centre.
    let rotation = DQuat::from_rotation_arc(DVec3::ONE.normalize(), -DVec3::Z);
    let half_diagonal = 0.5 * 3f64.sqrt();
    let pose = Pose::new(DVec3::new(0.0, 0.0, half_diagonal), rotation);
    let m = manifold(&ground(), &Pose::IDENTITY, &unit_cube(), &pose, 1e-3);
    assert_eq!(m.points.len(), 1);
    assert!(m.points[0].point_b.length() < 1e-12);
    assert_eq!(m.points[0].feature_b, Feature::Vertex(0));
}

#[test]
fn separated_and_penetrating_distances_are_signed() {
    let above = Pose::from_translation(DVec3::new(0.0, 0.0, 0.5 + 2e-3));
    assert!(
        manifold(&ground(), &Pose::IDENTITY, &unit_cube(), &above, 1e-3)
            .points
            .is_empty()
    );
    let within = manifold(&ground(), &Pose::IDENTITY, &unit_cube(), &above, 5e-3);
    assert_eq!(within.points.len(), 4);
    assert!(
        within
            .points
            .iter()
            .all(|p| (p.distance - 2e-3).abs() < TOL)
    );
    let sunk = Pose::from_translation(DVec3::new(0.0, 0.0, 0.5 - 3e-3));
    let m = manifold(&ground(), &Pose::IDENTITY, &unit_cube(), &sunk, 0.0);
    assert_eq!(m.points.len(), 4);
    assert!(m.points.iter().all(|p| (p.distance + 3e-3).abs() < TOL));
}

#[test]
fn swapping_the_pair_flips_normal_and_roles() {
    let pose = Pose::from_translation(DVec3::new(0.0, 0.0, 0.5));
    let forward = manifold(&ground(), &Pose::IDENTITY, &unit_cube(), &pose, 1e-3);
    let backward = manifold(&unit_cube(), &pose, &ground(), &Pose::IDENTITY, 1e-3);
    assert_eq!(backward.normal, -forward.normal);
    for (f, b) in forward.points.iter().zip(&backward.points) {
        assert_eq!(f.point_a, b.point_b);
        assert_eq!(f.feature_a, b.feature_b);
        assert_eq!(f.distance, b.distance);
    }
}

#[test]
fn offset_cubes_face_to_face_touch_on_the_overlap_rectangle() {
    // B sits on A, shifted by (0.3, 0.2): the overlap of the two unit
    // squares is [-0.2, 0.5] x [-0.3, 0.5] at z = 0.5.
    let a = Pose::IDENTITY;
    let b = Pose::from_translation(DVec3::new(0.3, 0.2, 1.0));
    let m = manifold(&unit_cube(), &a, &unit_cube(), &b, 1e-3);
    assert!((m.normal - DVec3::Z).length() < TOL);
    let expected: Vec<DVec3> = [(-0.2, -0.3), (-0.2, 0.5), (0.5, -0.3), (0.5, 0.5)]
        .into_iter()
        .map(|(x, y)| DVec3::new(x, y, 0.5))
        .collect();
    assert_same_points(
        &m.points.iter().map(|p| p.midpoint()).collect::<Vec<_>>(),
        &expected,
    );
    assert!(m.points.iter().all(|p| p.distance.abs() < TOL));
}

#[test]
fn cube_turned_45_degrees_on_a_cube_touches_on_an_octagon() {
    // Two concentric unit squares, one turned 45 degrees, overlap in a
    // regular octagon with vertices (+-0.5, +-t) and (+-t, +-0.5),
    // t = sqrt(2)/2 - 1/2. All eight must be contact points.
    let a = Pose::IDENTITY;
    let b = Pose::new(
        DVec3::new(0.0, 0.0, 1.0),
        DQuat::from_rotation_z(45f64.to_radians()),
    );
    let m = manifold(&unit_cube(), &a, &unit_cube(), &b, 1e-3);
    let t = 0.5 * 2f64.sqrt() - 0.5;
    let expected: Vec<DVec3> = [
        (0.5, t),
        (0.5, -t),
        (-0.5, t),
        (-0.5, -t),
        (t, 0.5),
        (-t, 0.5),
        (t, -0.5),
        (-t, -0.5),
    ]
    .into_iter()
    .map(|(x, y)| DVec3::new(x, y, 0.5))
    .collect();
    assert_same_points(
        &m.points.iter().map(|p| p.midpoint()).collect::<Vec<_>>(),
        &expected,
    );
}

#[test]
fn equal_faces_turned_by_round_off_give_four_points_not_eight() {
    // Stacked unit cubes, the upper one turned by 1e-12 rad: clipping makes
    // an octagon whose extra edges are 1e-12 m long. Those vertex pairs are
    // one vertex each; duplicates would make the contact LCP degenerate.
    let a = Pose::IDENTITY;
    let b = Pose::new(DVec3::new(0.0, 0.0, 1.0), DQuat::from_rotation_z(1e-12));
    let m = manifold(&unit_cube(), &a, &unit_cube(), &b, 1e-3);
    assert_eq!(m.points.len(), 4, "{m:?}");
    // A visible turn (1e-6 rad gives 5e-7 m edges) keeps all eight.
    let b = Pose::new(DVec3::new(0.0, 0.0, 1.0), DQuat::from_rotation_z(1e-6));
    assert_eq!(
        manifold(&unit_cube(), &a, &unit_cube(), &b, 1e-3)
            .points
            .len(),
        8
    );
}

#[test]
fn crossed_edges_touch_at_one_point() {
    // A: unit cube turned 45 degrees about x (top edge along x at height
    // sqrt(2)/2). B: the same turned about y, resting edge-down on A's edge:
    // they cross at one point on the z axis.
    let r = 0.5 * 2f64.sqrt();
    let a = Pose::from_rotation(DQuat::from_rotation_x(45f64.to_radians()));
    let b = Pose::new(
        DVec3::new(0.0, 0.0, 2.0 * r),
        DQuat::from_rotation_y(45f64.to_radians()),
    );
    let m = manifold(&unit_cube(), &a, &unit_cube(), &b, 1e-3);
    assert_eq!(m.points.len(), 1, "{m:?}");
    let p = m.points[0];
    assert!(
        (p.midpoint() - DVec3::new(0.0, 0.0, r)).length() < 1e-9,
        "{p:?}"
    );
    assert!(p.distance.abs() < 1e-9);
    assert!((m.normal - DVec3::Z).length() < 1e-9);
}

#[test]
fn bad_input_is_a_typed_error() {
    let mut out = ContactManifold::default();
    let mut generator = ManifoldGenerator::default();
    let nan = Pose::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    let cube = unit_cube();
    assert!(
        generator
            .compute(&cube, &nan, &cube, &Pose::IDENTITY, 0.0, &mut out)
            .is_err()
    );
    assert!(
        generator
            .compute(
                &cube,
                &Pose::IDENTITY,
                &cube,
                &Pose::IDENTITY,
                -1.0,
                &mut out
            )
            .is_err()
    );
    assert!(
        generator
            .compute(
                &ground(),
                &Pose::IDENTITY,
                &ground(),
                &Pose::IDENTITY,
                0.0,
                &mut out
            )
            .is_err()
    );
}
