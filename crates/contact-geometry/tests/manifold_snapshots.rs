//! Snapshots of the contact manifolds and separating planes of the named
//! cases of issue 4: a cube resting on a plane (4 points), tilted about an
//! edge (2) and about a corner (1); two boxes face to face with an offset
//! and a turn; two edges crossing; a pyramid apex down on a box (our
//! reading of Drumwright 2016, fig. 4); a sphere on a box's edge. Each is
//! a small text table, numbers rounded to 1e-9 and points sorted, so the
//! snapshot does not depend on round-off or on the generators' point
//! order. Besides the snapshot, each case checks what follows from the
//! geometry: the point count, and that every point lies on the plane's
//! side of its shape.

mod common;

use common::square_pyramid;
use std::fmt::Write;

use contact_geometry::{ContactManifold, ConvexPolytope, ManifoldGenerator, Shape};
use contact_math::Pose;
use glam::{DQuat, DVec3};
use std::f64::consts::FRAC_PI_4;

const MARGIN: f64 = 1e-3;
const TOLERANCE: f64 = 1e-9;

/// `x` rounded to 1e-9, without a sign on zero.
fn num(x: f64) -> String {
    let r = (x * 1e9).round() / 1e9;
    format!("{:.9}", if r == 0.0 { 0.0 } else { r })
}

fn vec3(v: DVec3) -> String {
    format!("({}, {}, {})", num(v.x), num(v.y), num(v.z))
}

/// The manifold and separating plane of `a` at `pa` and `b` at `pb` as a
/// text table, after checking the point count.
fn table(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, points: usize) -> String {
    table_within(a, pa, b, pb, points, TOLERANCE)
}

/// [`table`] for shapes overlapping by up to `tolerance` (m).
fn table_within(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    points: usize,
    tolerance: f64,
) -> String {
    let mut generator = ManifoldGenerator::default();
    let mut m = ContactManifold::default();
    generator.compute(a, pa, b, pb, MARGIN, &mut m).unwrap();
    assert_eq!(m.points.len(), points, "{m:?}");
    let plane = generator
        .separating_plane(a, pa, b, pb, tolerance)
        .unwrap()
        .expect("touching shapes have a separating plane");
    // Every contact point of a on the negative side of the plane, of b on
    // the positive side.
    for p in &m.points {
        assert!(
            plane.normal.dot(p.point_a) <= plane.offset + tolerance,
            "{p:?}"
        );
        assert!(
            plane.normal.dot(p.point_b) >= plane.offset - tolerance,
            "{p:?}"
        );
    }
    let mut rows: Vec<String> = m
        .points
        .iter()
        .map(|p| {
            format!(
                "{} | {} | {} | {:?} | {:?}",
                vec3(p.point_a),
                vec3(p.point_b),
                num(p.distance),
                p.feature_a,
                p.feature_b
            )
        })
        .collect();
    rows.sort();
    let mut out = String::new();
    writeln!(out, "normal: {}", vec3(m.normal)).unwrap();
    writeln!(out, "point_a | point_b | distance | feature_a | feature_b").unwrap();
    for row in rows {
        writeln!(out, "{row}").unwrap();
    }
    writeln!(
        out,
        "plane: normal {}, offset {}, separation {}, {:?} (unique: {})",
        vec3(plane.normal),
        num(plane.offset),
        num(plane.separation),
        plane.kind,
        plane.kind.is_unique()
    )
    .unwrap();
    out
}

fn ground() -> Shape {
    Shape::half_space(DVec3::Z).unwrap()
}

fn cube() -> Shape {
    Shape::cuboid(DVec3::splat(0.5)).unwrap()
}

/// The cube turned by `rotation`, lifted so its lowest corner is on z = 0.
fn resting(rotation: DQuat) -> Pose {
    let lowest = ConvexPolytope::from_box(DVec3::splat(0.5))
        .unwrap()
        .vertices()
        .iter()
        .map(|&v| (rotation * v).z)
        .fold(f64::INFINITY, f64::min);
    Pose::new(DVec3::new(0.25, -0.5, -lowest), rotation)
}

#[test]
fn cube_resting_on_a_plane() {
    let pose = resting(DQuat::from_rotation_z(0.3));
    insta::assert_snapshot!(table(&ground(), &Pose::IDENTITY, &cube(), &pose, 4));
}

#[test]
fn cube_tilted_about_an_edge() {
    let pose = resting(DQuat::from_rotation_y(0.4));
    insta::assert_snapshot!(table(&ground(), &Pose::IDENTITY, &cube(), &pose, 2));
}

#[test]
fn cube_tilted_about_a_corner() {
    let pose = resting(DQuat::from_rotation_x(0.3) * DQuat::from_rotation_y(0.4));
    insta::assert_snapshot!(table(&ground(), &Pose::IDENTITY, &cube(), &pose, 1));
}

#[test]
fn boxes_face_to_face_offset_and_turned() {
    // A slab 0.4 x 0.3 x 0.2 (half extents) on the unit cube's top face,
    // shifted to overhang the +x edge and turned by 0.5 rad about z: the
    // contact polygon is the slab's bottom clipped by the cube's top.
    // By hand: two slab corners, (-0.145, 0.172) and (0.143, -0.355), lie
    // on the cube's top and two beyond it; the cube's corner (0.5, 0.5)
    // lies under the slab; the slab's sides cross x = 0.5 once and
    // y = 0.5 once in range: 5 vertices.
    let slab = Shape::cuboid(DVec3::new(0.4, 0.3, 0.2)).unwrap();
    let pose = Pose::new(DVec3::new(0.35, 0.1, 0.7), DQuat::from_rotation_z(0.5));
    let text = table(&cube(), &Pose::IDENTITY, &slab, &pose, 5);
    insta::assert_snapshot!(text);
}

#[test]
fn edges_crossing() {
    // The cube turned 45 degrees about x has a top edge along x at
    // z = sqrt(2) / 2; the one above, turned about y, a bottom edge along
    // y: they cross at one point on the z axis.
    let lower = Pose::from_rotation(DQuat::from_rotation_x(FRAC_PI_4));
    let upper = Pose::new(
        DVec3::new(0.0, 0.0, std::f64::consts::SQRT_2),
        DQuat::from_rotation_y(FRAC_PI_4),
    );
    insta::assert_snapshot!(table(&cube(), &lower, &cube(), &upper, 1));
}

#[test]
fn pyramid_apex_down_on_a_box() {
    let pyramid = square_pyramid();
    let slab = Shape::cuboid(DVec3::new(1.0, 1.0, 0.25)).unwrap();
    // Apex down at (0.2, -0.1, 0.25) on the slab's top face.
    let pose = Pose::new(
        DVec3::new(0.2, -0.1, 1.25),
        DQuat::from_rotation_x(std::f64::consts::PI),
    );
    insta::assert_snapshot!(table(&slab, &Pose::IDENTITY, &pyramid, &pose, 1));
}

#[test]
fn sphere_on_a_box_edge() {
    // Radius 0.3, centre on the bisector of the cube's edge at x = z = 0.5,
    // 0.29 from it: 0.01 deep.
    let ball = Shape::sphere(0.3).unwrap();
    let centre = DVec3::new(0.5, 0.2, 0.5) + 0.29 * DVec3::new(1.0, 0.0, 1.0).normalize();
    let pose = Pose::from_translation(centre);
    let text = table_within(&cube(), &Pose::IDENTITY, &ball, &pose, 1, 0.02);
    assert!(text.contains("| -0.010000000 |"), "{text}");
    insta::assert_snapshot!(text);
}
