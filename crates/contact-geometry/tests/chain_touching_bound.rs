//! Guards the touching bound for a chain link (Drumwright 2016, eq. 15
//! through `ChainMotion::tilt_rate` in eq. 7-8): a random hull on a
//! revolute joint whose base turns, both about axes through the hull's
//! contact vertex on a face of a static random hull, keeps every other
//! vertex strictly above the separating plane for (1 - 1e-9) times the
//! bound, and never interpenetrates. Here the link's angular velocity
//! `w_base + R(t) q' axis` changes direction, but its norm stays below
//! `|w_base| + |q'|`, which is what eq. 15 uses.

mod common;

use common::Rng;

use contact_geometry::{
    ChainJoint, ChainMotion, ContactKind, ConvexPolytope, JointKind, ManifoldGenerator, Shape,
    touching_bound,
};
use contact_math::Pose;
use glam::{DQuat, DVec3};

#[test]
fn link_tilting_about_its_contact_vertex_stays_above_the_plane() {
    let mut rng = Rng(0x0DDB_1A5E_5BAD_5EED);
    let mut generator = ManifoldGenerator::default();
    let mut tested = 0;
    for _ in 0..200 {
        let obstacle = rng.hull();
        let face = (rng.next() * obstacle.faces().len() as f64) as usize;
        let normal = obstacle.faces()[face].normal;
        let corners = obstacle.face_vertices(face);
        let pivot = corners
            .iter()
            .map(|&v| obstacle.vertices()[v as usize])
            .sum::<DVec3>()
            / corners.len() as f64;
        // The link: a hull whose lowest vertex (after the base rotation)
        // is its frame's origin, placed on the face centroid.
        let rotation = rng.rotation();
        let hull = rng.hull();
        let tip = *hull
            .vertices()
            .iter()
            .min_by(|&&x, &&y| {
                normal
                    .dot(rotation * x)
                    .total_cmp(&normal.dot(rotation * y))
            })
            .unwrap();
        let shifted: Vec<DVec3> = hull.vertices().iter().map(|&v| v - tip).collect();
        let link = ConvexPolytope::from_points(&shifted).unwrap();
        let link_vertices = link.vertices().to_vec();
        let link_shape = Shape::polytope(link);
        let obstacle_shape = Shape::polytope(obstacle.clone());

        let base_angular = if rng.next() < 0.5 {
            DVec3::ZERO
        } else {
            rng.vector(-2.0, 2.0)
        };
        let axis = rng.vector(-1.0, 1.0).normalize_or(DVec3::Z);
        let rate = rng.range(-3.0, 3.0);
        let pose = |t: f64| {
            let base = DQuat::from_scaled_axis(base_angular * t) * rotation;
            Pose::new(pivot, base * DQuat::from_axis_angle(axis, rate * t))
        };

        let Some(plane) = generator
            .separating_plane(
                &obstacle_shape,
                &Pose::IDENTITY,
                &link_shape,
                &pose(0.0),
                1e-9,
            )
            .unwrap()
        else {
            continue;
        };
        if plane.kind != ContactKind::VertexFace || plane.normal.dot(normal) < 1.0 - 1e-9 {
            continue;
        }
        let joints = [ChainJoint {
            kind: JointKind::Rotational,
            position: 0.0,
            rate: rate.abs(),
            link_length: 0.0,
        }];
        let chain = ChainMotion {
            base_linear: DVec3::ZERO,
            base_angular,
            joints: &joints,
            reach: link_vertices.iter().map(|v| v.length()).fold(0.0, f64::max),
        };
        let posed: Vec<DVec3> = link_vertices
            .iter()
            .map(|&v| pose(0.0).transform_point(v))
            .collect();
        let bound = touching_bound(
            &plane,
            obstacle.vertices(),
            &posed,
            0.0,
            chain.tilt_rate(),
            1e-9,
        );
        assert!(bound > 0.0);
        let end = (1.0 - 1e-9) * bound.min(5.0);
        tested += 1;
        for k in 0..=64 {
            let t = end * f64::from(k) / 64.0;
            let p = pose(t);
            for &v in &link_vertices {
                if v != DVec3::ZERO {
                    let height = plane.normal.dot(p.transform_point(v)) - plane.offset;
                    assert!(height > 0.0, "t {t} of {bound}: height {height}");
                }
            }
            let d = generator
                .proximity(&obstacle_shape, &Pose::IDENTITY, &link_shape, &p, 1e-9)
                .unwrap()
                .distance;
            assert!(d > -1e-9, "t {t} of {bound}: distance {d}");
        }
    }
    assert!(tested > 100, "{tested}");
}
