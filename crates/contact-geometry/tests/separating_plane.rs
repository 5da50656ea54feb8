//! Guards the separating plane of touching polytopes (Drumwright 2016,
//! sec. 3.0.1-3.0.2): the contact kind of each textbook configuration,
//! including the pyramid on a box of Drumwright's fig. 4, and that every
//! vertex of A lies on one side and every vertex of B on the other.

mod common;

use common::{edge_over_rim, square_pyramid};
use contact_geometry::{ContactKind, ConvexPolytope, ManifoldGenerator, SeparatingPlane, Shape};
use contact_math::Pose;
use glam::{DQuat, DVec3};

const TOL: f64 = 1e-7;

fn plane(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> Option<SeparatingPlane> {
    ManifoldGenerator::default()
        .separating_plane(a, pa, b, pb, TOL)
        .unwrap()
}

fn polytope_vertices(shape: &Shape, pose: &Pose) -> Vec<DVec3> {
    let p = match shape {
        Shape::Polytope(p) => (**p).clone(),
        Shape::Cuboid { half_extents } => ConvexPolytope::from_box(*half_extents).unwrap(),
        Shape::HalfSpace { .. } | Shape::Sphere { .. } => unreachable!("polytopes only"),
    };
    p.vertices()
        .iter()
        .map(|&v| pose.transform_point(v))
        .collect()
}

/// Every vertex of `a` on the negative side, of `b` on the positive side.
fn assert_separates(s: &SeparatingPlane, a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) {
    assert!((s.normal.length() - 1.0).abs() < 1e-12);
    for x in polytope_vertices(a, pa) {
        assert!(s.normal.dot(x) <= s.offset + TOL, "{s:?}");
    }
    for y in polytope_vertices(b, pb) {
        assert!(s.normal.dot(y) >= s.offset - TOL, "{s:?}");
    }
}

fn cube() -> Shape {
    Shape::cuboid(DVec3::splat(0.5)).unwrap()
}

fn check(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, kind: ContactKind) -> SeparatingPlane {
    let s = plane(a, pa, b, pb).expect("touching shapes have a separating plane");
    assert_eq!(s.kind, kind, "{s:?}");
    assert!(s.separation.abs() < 1e-12);
    assert_separates(&s, a, pa, b, pb);
    s
}

#[test]
fn face_on_face_is_unique() {
    let pb = Pose::from_translation(DVec3::new(0.3, 0.2, 1.0));
    let s = check(
        &cube(),
        &Pose::IDENTITY,
        &cube(),
        &pb,
        ContactKind::FaceFace,
    );
    assert!((s.normal - DVec3::Z).length() < 1e-12 && (s.offset - 0.5).abs() < 1e-12);
    assert!(s.kind.is_unique());
}

#[test]
fn pyramid_apex_down_on_a_box_is_vertex_face() {
    // Drumwright fig. 4: the pyramid (turned apex down) touches the box top.
    let pb = Pose::new(
        DVec3::new(0.1, 0.2, 1.5),
        DQuat::from_rotation_x(std::f64::consts::PI),
    );
    let s = check(
        &cube(),
        &Pose::IDENTITY,
        &square_pyramid(),
        &pb,
        ContactKind::VertexFace,
    );
    assert!((s.normal - DVec3::Z).length() < 1e-12);
    assert!(s.kind.is_unique());
    // Base down: face on face.
    let pb = Pose::from_translation(DVec3::new(0.1, 0.2, 0.5));
    check(
        &cube(),
        &Pose::IDENTITY,
        &square_pyramid(),
        &pb,
        ContactKind::FaceFace,
    );
}

#[test]
fn edge_down_on_a_face_is_edge_face() {
    let r = 0.5 * 2f64.sqrt();
    let pb = Pose::new(
        DVec3::new(0.1, 0.0, 0.5 + r),
        DQuat::from_rotation_x(45f64.to_radians()),
    );
    let s = check(
        &cube(),
        &Pose::IDENTITY,
        &cube(),
        &pb,
        ContactKind::EdgeFace,
    );
    assert!(s.kind.is_unique());
}

#[test]
fn crossed_edges_are_unique_parallel_edges_are_not() {
    let r = 0.5 * 2f64.sqrt();
    let pa = Pose::from_rotation(DQuat::from_rotation_x(45f64.to_radians()));
    let crossed = Pose::new(
        DVec3::new(0.0, 0.0, 2.0 * r),
        DQuat::from_rotation_y(45f64.to_radians()),
    );
    let s = check(
        &cube(),
        &pa,
        &cube(),
        &crossed,
        ContactKind::EdgeEdge { crossing: true },
    );
    assert!(s.kind.is_unique());
    let parallel = Pose::new(
        DVec3::new(0.2, 0.0, 2.0 * r),
        DQuat::from_rotation_x(45f64.to_radians()),
    );
    let s = check(
        &cube(),
        &pa,
        &cube(),
        &parallel,
        ContactKind::EdgeEdge { crossing: false },
    );
    assert!(!s.kind.is_unique());
}

#[test]
fn corner_contacts_are_not_unique() {
    // Corner up against corner down along z.
    let up = DQuat::from_rotation_arc(-DVec3::ONE.normalize(), DVec3::Z);
    let down = DQuat::from_rotation_arc(DVec3::ONE.normalize(), -DVec3::Z);
    let h = 0.5 * 3f64.sqrt();
    let pa = Pose::from_rotation(up);
    let pb = Pose::new(DVec3::new(0.0, 0.0, 2.0 * h), down);
    let s = check(&cube(), &pa, &cube(), &pb, ContactKind::VertexVertex);
    assert!(!s.kind.is_unique());
    // Corner down on an edge (the lower cube turned 45 degrees about x).
    let r = 0.5 * 2f64.sqrt();
    let pa = Pose::from_rotation(DQuat::from_rotation_x(45f64.to_radians()));
    let pb = Pose::new(DVec3::new(0.1, 0.0, r + h), down);
    check(&cube(), &pa, &cube(), &pb, ContactKind::VertexEdge);
    // Axis-aligned cubes diagonal to each other: coplanar faces that meet
    // only at a corner (B - A has the origin at a vertex), and side by side
    // along a shared edge (the origin on an edge of B - A).
    let corner = Pose::from_translation(DVec3::ONE);
    check(
        &cube(),
        &Pose::IDENTITY,
        &cube(),
        &corner,
        ContactKind::VertexVertex,
    );
    let edge = Pose::from_translation(DVec3::new(1.0, 1.0, 0.3));
    check(
        &cube(),
        &Pose::IDENTITY,
        &cube(),
        &edge,
        ContactKind::EdgeEdge { crossing: false },
    );
}

#[test]
fn far_apart_or_deeply_overlapping_shapes_have_no_plane() {
    let far = Pose::from_translation(DVec3::new(0.0, 0.0, 1.1));
    assert!(plane(&cube(), &Pose::IDENTITY, &cube(), &far).is_none());
    let deep = Pose::from_translation(DVec3::new(0.0, 0.0, 0.9));
    assert!(plane(&cube(), &Pose::IDENTITY, &cube(), &deep).is_none());
    let ground = Shape::half_space(DVec3::Z).unwrap();
    let mut generator = ManifoldGenerator::default();
    let lifted = Pose::from_translation(DVec3::new(0.0, 0.0, 0.6));
    assert!(
        generator
            .separating_plane(&ground, &Pose::IDENTITY, &cube(), &lifted, TOL)
            .unwrap()
            .is_none()
    );
    assert!(
        generator
            .separating_plane(&ground, &Pose::IDENTITY, &ground, &far, TOL)
            .is_err()
    );
}

#[test]
fn half_space_boundary_is_the_plane_of_a_resting_box() {
    // The cube on the ground z = 0 on a face, on an edge (turned about y)
    // and on a corner (turned so the diagonal (1, 1, 1) points down).
    let ground = Shape::half_space(DVec3::Z).unwrap();
    let corner_down = DQuat::from_rotation_arc(DVec3::ONE.normalize(), -DVec3::Z);
    let cases = [
        (DQuat::IDENTITY, ContactKind::FaceFace),
        (DQuat::from_rotation_y(0.3), ContactKind::EdgeFace),
        (corner_down, ContactKind::VertexFace),
    ];
    let mut generator = ManifoldGenerator::default();
    let vertices = ConvexPolytope::from_box(DVec3::splat(0.5)).unwrap();
    for (rotation, kind) in cases {
        let lowest = vertices
            .vertices()
            .iter()
            .map(|&v| (rotation * v).z)
            .fold(f64::INFINITY, f64::min);
        let pose = Pose::new(DVec3::new(0.3, -0.2, -lowest), rotation);
        let s = generator
            .separating_plane(&ground, &Pose::IDENTITY, &cube(), &pose, TOL)
            .unwrap()
            .expect("resting");
        assert_eq!(s.kind, kind);
        assert!(s.kind.is_unique());
        assert!((s.normal - DVec3::Z).length() < 1e-15 && s.offset.abs() < 1e-12);
        // Swapped roles: the same plane seen from the cube.
        let t = generator
            .separating_plane(&cube(), &pose, &ground, &Pose::IDENTITY, TOL)
            .unwrap()
            .expect("resting");
        assert_eq!(t, s.flipped());
    }
}

#[test]
fn random_touching_hulls_are_separated() {
    // Random hull pairs are moved along their best separating axis until
    // the gap along it is zero; whenever a plane is then reported, it must
    // separate all vertices.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut generator = ManifoldGenerator::default();
    let mut reported = 0;
    for _ in 0..300 {
        let mut cloud = |n: usize| {
            let points: Vec<DVec3> = (0..n)
                .map(|_| DVec3::new(next(), next(), next()) * 2.0 - DVec3::ONE)
                .collect();
            Shape::polytope(ConvexPolytope::from_points(&points).unwrap())
        };
        let (a, b) = (cloud(12), cloud(20));
        let axis = DVec3::new(next(), next(), next()) - DVec3::splat(0.5);
        let pa = Pose::from_rotation(DQuat::from_axis_angle(axis.normalize(), 3.0 * next()));
        let mut pb = Pose::new(axis * 2.0, DQuat::from_axis_angle(DVec3::Y, 3.0 * next()));
        let first = generator
            .separating_plane(&a, &pa, &b, &pb, 100.0)
            .unwrap()
            .expect("a huge tolerance always gives a plane");
        pb.translation -= first.separation * first.normal;
        if let Some(s) = generator.separating_plane(&a, &pa, &b, &pb, TOL).unwrap() {
            reported += 1;
            assert_separates(&s, &a, &pa, &b, &pb);
        }
    }
    assert!(reported > 100, "too few touching cases: {reported}");
}

#[test]
fn an_edge_over_a_rim_beside_a_nearly_parallel_face_has_the_edges_plane() {
    // The face axis separates by about -5e-5 m, within the preference a
    // manifold gives faces near contact; the plane is a measurement and
    // takes the largest separation, the edges' (closed form, see
    // `edge_over_rim`), touching or a hair apart or overlapping.
    let tilt: f64 = 1e-3;
    let normal = DVec3::new(tilt.sin(), 0.0, tilt.cos());
    for gap in [0.0, 1e-9, -1e-9, 5e-8] {
        let (a, pa, b, pb) = edge_over_rim(tilt, gap);
        let s = plane(&a, &pa, &b, &pb).expect("touching shapes have a separating plane");
        assert!(
            (s.separation - gap * tilt.cos()).abs() < 1e-12,
            "gap {gap:e}: {s:?}"
        );
        assert!((s.normal - normal).length() < 1e-9, "gap {gap:e}: {s:?}");
        assert_eq!(s.kind, ContactKind::EdgeEdge { crossing: true });
        assert_separates(&s, &a, &pa, &b, &pb);
    }
}
