//! Guards the topology of convex polytopes built from point clouds: counts
//! (a box has 8 vertices, 12 edges, 6 faces; coplanar hull triangles are one
//! face), Euler's formula on random hulls, outward planes, counter-clockwise
//! loops, consistent adjacency, and typed errors for degenerate clouds.

mod common;

use common::Rng;

use contact_geometry::{ConvexPolytope, GeometryError};
use glam::DVec3;

fn hexagonal_prism() -> ConvexPolytope {
    let points: Vec<DVec3> = (0..12)
        .map(|k| {
            let angle = (k % 6) as f64 * std::f64::consts::PI / 3.0;
            let z = if k < 6 { -0.5 } else { 0.5 };
            DVec3::new(angle.cos(), angle.sin(), z)
        })
        .collect();
    ConvexPolytope::from_points(&points).unwrap()
}

fn l_first(p: &ConvexPolytope, l: &[u32]) -> DVec3 {
    p.vertices()[l[0] as usize]
}

/// Checks every invariant a polytope promises.
fn assert_well_formed(p: &ConvexPolytope) {
    let (v, e, f) = (p.vertices().len(), p.edges().len(), p.faces().len());
    assert_eq!(v + f, e + 2, "Euler: V {v} E {e} F {f}");
    let tol = 1e-9 * p.bounding_radius();
    for (face, plane) in p.faces().iter().enumerate() {
        assert!((plane.normal.length() - 1.0).abs() < 1e-12);
        // Every vertex on the inner side; the face's own on the plane.
        for &x in p.vertices() {
            assert!(plane.normal.dot(x) <= plane.offset + tol);
        }
        let l = p.face_vertices(face);
        assert!(l.len() >= 3);
        // Merged faces are coplanar within 1e-9 of the cloud's extent (at
        // most twice the bounding radius) about their first triangle's
        // plane, so within 4e-9 of the radius about the face's plane.
        for &x in l {
            let off = (plane.normal.dot(p.vertices()[x as usize]) - plane.offset).abs();
            assert!(off < 4.0 * tol, "face {face}: vertex {x} off by {off:e}");
        }
        // Counter-clockwise about the outward normal and convex: no corner
        // lies more than the tolerance inside the chord of its neighbours
        // (and the loop turns one full circle to the left in total).
        let mut area = 0.0;
        for k in 0..l.len() {
            let [a, b, c] = [0, 1, 2].map(|i| p.vertices()[l[(k + i) % l.len()] as usize]);
            let inside = (c - a).cross(b - a).dot(plane.normal) / (c - a).length();
            assert!(
                inside <= 2.0 * tol,
                "face {face}: corner inside by {inside:e}"
            );
            area += (b - l_first(p, l))
                .cross(c - l_first(p, l))
                .dot(plane.normal);
        }
        assert!(area > 0.0, "face {face} is clockwise");
        // Loop edges join consecutive loop vertices, and name this face.
        for (k, &edge) in p.face_edges(face).iter().enumerate() {
            let edge = p.edges()[edge as usize];
            let (x, y) = (l[k], l[(k + 1) % l.len()]);
            assert_eq!(edge.vertices, [x.min(y), x.max(y)]);
            assert_eq!(edge.faces[usize::from(x > y)] as usize, face);
        }
        for &x in l {
            assert!(p.vertex_faces(x as usize).contains(&(face as u32)));
        }
    }
    for vertex in 0..v {
        assert!(p.vertex_faces(vertex).len() >= 3);
        assert!(p.vertex_edges(vertex).len() >= 3);
        for &edge in p.vertex_edges(vertex) {
            assert!(p.edges()[edge as usize].vertices.contains(&(vertex as u32)));
        }
    }
}

#[test]
fn a_box_has_8_vertices_12_edges_6_faces() {
    let p = ConvexPolytope::from_box(DVec3::new(1.0, 2.0, 3.0)).unwrap();
    assert_eq!(p.vertices().len(), 8);
    assert_eq!(p.edges().len(), 12);
    assert_eq!(p.faces().len(), 6);
    assert_well_formed(&p);
    // Vertices keep the cuboid numbering (bit i set: coordinate i negative).
    assert_eq!(p.vertices()[0], DVec3::new(1.0, 2.0, 3.0));
    assert_eq!(p.vertices()[0b101], DVec3::new(-1.0, 2.0, -3.0));
    for plane in p.faces() {
        let axis = plane.normal.abs().max_position();
        assert!((plane.normal.abs()[axis] - 1.0).abs() < 1e-15);
        assert!((plane.offset - [1.0, 2.0, 3.0][axis]).abs() < 1e-15);
    }
    for vertex in 0..8 {
        assert_eq!(p.vertex_faces(vertex).len(), 3);
        assert_eq!(p.vertex_edges(vertex).len(), 3);
    }
    assert!((p.bounding_radius() - 14f64.sqrt()).abs() < 1e-15);
}

#[test]
fn coplanar_triangles_merge_into_polygons() {
    let p = hexagonal_prism();
    assert_eq!(p.faces().len(), 8);
    assert_eq!(p.vertices().len(), 12);
    assert_eq!(p.edges().len(), 18);
    let hexagons = (0..8).filter(|&f| p.face_vertices(f).len() == 6).count();
    assert_eq!(hexagons, 2);
    assert_well_formed(&p);
}

#[test]
fn points_inside_faces_and_on_edges_are_dropped() {
    // A unit cube's corners plus face centres, edge midpoints, the centre.
    let mut points = Vec::new();
    for x in [-1.0, 0.0, 1.0] {
        for y in [-1.0, 0.0, 1.0] {
            for z in [-1.0, 0.0, 1.0] {
                points.push(DVec3::new(x, y, z));
            }
        }
    }
    let p = ConvexPolytope::from_points(&points).unwrap();
    assert_eq!(
        (p.vertices().len(), p.edges().len(), p.faces().len()),
        (8, 12, 6)
    );
    assert_well_formed(&p);
}

#[test]
fn random_hulls_satisfy_euler_and_face_planes() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for case in 0..200 {
        let n = 4 + case % 60;
        let points: Vec<DVec3> = (0..n).map(|_| rng.vector(-1.0, 1.0)).collect();
        let p = ConvexPolytope::from_points(&points).unwrap();
        assert_well_formed(&p);
        // Every input point is inside the hull.
        for &x in &points {
            for plane in p.faces() {
                assert!(plane.normal.dot(x) <= plane.offset + 1e-9);
            }
        }
    }
}

#[test]
fn degenerate_clouds_are_typed_errors() {
    let problem = |points: &[DVec3]| match ConvexPolytope::from_points(points) {
        Err(GeometryError::DegeneratePointCloud { problem, .. }) => problem,
        other => panic!("expected a degenerate cloud, got {other:?}"),
    };
    let (x, y, z) = (DVec3::X, DVec3::Y, DVec3::Z);
    assert_eq!(problem(&[DVec3::ZERO, x, y]), "fewer than 4 points");
    assert_eq!(problem(&[x; 5]), "all points coincide");
    assert_eq!(
        problem(&[DVec3::ZERO, x, 2.0 * x, 3.0 * x]),
        "all points are collinear"
    );
    assert_eq!(
        problem(&[DVec3::ZERO, x, y, x + y, 0.5 * x]),
        "all points are coplanar"
    );
    assert_eq!(
        ConvexPolytope::from_points(&[DVec3::ZERO, x, y, DVec3::new(0.0, f64::NAN, 1.0)]),
        Err(GeometryError::NonFinitePoint { index: 3 })
    );
    assert!(ConvexPolytope::from_points(&[DVec3::ZERO, x, y, z * f64::INFINITY]).is_err());
    assert!(matches!(
        ConvexPolytope::from_box(DVec3::new(1.0, 0.0, 1.0)),
        Err(GeometryError::InvalidSize { .. })
    ));
}

#[test]
fn awkward_clouds_give_a_polytope_or_an_error_never_a_panic() {
    let tetra = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    let mut rng = Rng(7);
    let clouds: Vec<Vec<DVec3>> = vec![
        tetra.iter().map(|&p| p * 1e150).collect(),
        tetra.iter().map(|&p| p * 1e300).collect(),
        tetra.iter().map(|&p| p * 1e-150).collect(),
        tetra.iter().map(|&p| p * 1e-300).collect(),
        // Many duplicates of a tetrahedron's corners.
        (0..100).map(|k| tetra[k % 4]).collect(),
        // A slab 1e-12 thick, and one 1e-8 thick.
        (0..50)
            .map(|_| rng.vector(-1.0, 1.0) * DVec3::new(1.0, 1.0, 1e-12))
            .collect(),
        (0..50)
            .map(|_| rng.vector(-1.0, 1.0) * DVec3::new(1.0, 1.0, 1e-8))
            .collect(),
        // Points on a sphere: many nearly coplanar neighbours.
        (0..500)
            .map(|_| rng.vector(-1.0, 1.0).normalize())
            .collect(),
        // Far from the origin.
        tetra.iter().map(|&p| p + DVec3::splat(1e9)).collect(),
    ];
    for cloud in &clouds {
        if let Ok(p) = ConvexPolytope::from_points(cloud) {
            assert_well_formed(&p);
            let _ = p.mass_properties(1.0);
        }
    }
}

#[test]
fn thin_slabs_are_valid_polytopes() {
    // parry's quickhull alone returns non-convex hulls for clouds this flat
    // (a point 2e-3 outside a face for a 1 x 1 x 1e-4 slab); the hull is
    // computed on the whitened cloud, which makes them round.
    let mut rng = Rng(11);
    for thickness in [1e-2, 1e-4, 1e-6, 1e-8] {
        for _ in 0..20 {
            let points: Vec<DVec3> = (0..50)
                .map(|_| rng.vector(-1.0, 1.0) * DVec3::new(1.0, 1.0, thickness))
                .collect();
            let p = ConvexPolytope::from_points(&points).unwrap();
            assert_well_formed(&p);
        }
    }
}
