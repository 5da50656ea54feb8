//! Guards spheres against every shape: analytic placements (a sphere on a
//! tilted plane, over a box's face, edge and corner, inside a box, two
//! spheres, concentric spheres) whose distances, points, normals and
//! features follow from the geometry; random poses against parry's
//! distance and contact queries (its `Ball` against its cuboids, convex
//! polyhedra and balls); the tangent separating plane; the bounding box;
//! and mass properties against the exact integral of a fine polytope.

mod common;

use common::{Rng, distance_to_feature, parry};

use contact_geometry::{
    Aabb, ContactKind, ContactManifold, ConvexPolytope, Feature, GeometryError, ManifoldGenerator,
    Proximity, Shape,
};
use contact_math::Pose;
use glam::{DQuat, DVec3};
use parry3d_f64::query;
use parry3d_f64::shape::{Ball, ConvexPolyhedron, Cuboid, Shape as ParryShape};

fn close(x: DVec3, y: DVec3) -> bool {
    (x - y).length() < 1e-12
}

fn proximity(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> Proximity {
    ManifoldGenerator::default()
        .proximity(a, pa, b, pb, 1e-9)
        .unwrap()
}

fn manifold(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, margin: f64) -> ContactManifold {
    let mut m = ContactManifold::default();
    ManifoldGenerator::default()
        .compute(a, pa, b, pb, margin, &mut m)
        .unwrap();
    m
}

#[test]
fn invalid_radii_are_typed_errors() {
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            Shape::sphere(bad),
            Err(GeometryError::InvalidSize { what: "radius", .. })
        ));
    }
    let ball = Shape::sphere(0.5).unwrap();
    assert_eq!(ball.kind(), "sphere");
    assert!(ball.is_bounded());
    assert_eq!(ball.bounding_radius(), 0.5);
}

#[test]
fn sphere_on_a_tilted_plane() {
    // Plane through (0, 0, 1) with normal (0, 0.6, 0.8); the centre 0.3
    // above it along the normal plus a sideways offset along the plane.
    let n = DVec3::new(0.0, 0.6, 0.8);
    let ground = Shape::half_space(n).unwrap();
    let plane_pose = Pose::from_translation(DVec3::new(0.0, 0.0, 1.0));
    let sideways = DVec3::new(0.7, 0.8, -0.6);
    let ball = Shape::sphere(0.25).unwrap();
    for height in [0.3, 0.25, 0.2] {
        let centre = DVec3::new(0.0, 0.0, 1.0) + sideways + height * n;
        let pose = Pose::new(centre, DQuat::from_rotation_x(1.0));
        let p = proximity(&ground, &plane_pose, &ball, &pose);
        assert!((p.distance - (height - 0.25)).abs() < 1e-12);
        assert!(close(p.normal, n));
        assert!(close(p.point_a, centre - height * n));
        assert!(close(p.point_b, centre - 0.25 * n));
        assert_eq!(
            (p.feature_a, p.feature_b),
            (Feature::Face(0), Feature::Face(0))
        );
        let m = manifold(&ball, &pose, &ground, &plane_pose, 0.1);
        assert_eq!(m.points.len(), 1);
        assert!(close(m.normal, -n));
        assert!((m.points[0].distance - (height - 0.25)).abs() < 1e-12);
        assert!(close(m.points[0].point_a, centre - 0.25 * n));
    }
    // Beyond the margin: no point.
    let far = Pose::from_translation(DVec3::new(0.0, 0.0, 1.0) + 0.5 * n);
    assert!(
        manifold(&ground, &plane_pose, &ball, &far, 0.1)
            .points
            .is_empty()
    );
}

#[test]
fn sphere_over_a_box_face_edge_and_corner() {
    // Unit cube at the origin turned by 0.4 rad about z; the sphere's
    // centre is placed in the cube's frame, then posed.
    let cube = Shape::cuboid(DVec3::splat(0.5)).unwrap();
    let turn = DQuat::from_rotation_z(0.4);
    let cube_pose = Pose::new(DVec3::new(1.0, -2.0, 0.5), turn);
    let ball = Shape::sphere(0.2).unwrap();
    // (local centre, closest local point, feature of the cube)
    let cases = [
        // Over the top face (+z: face 4), 0.05 above the sphere's reach.
        (
            DVec3::new(0.1, -0.3, 0.75),
            DVec3::new(0.1, -0.3, 0.5),
            Feature::Face(4),
        ),
        // Beside the edge along y at x = z = +0.5 (edge 4).
        (
            DVec3::new(0.5, 0.1, 0.5) + 0.15 * DVec3::new(1.0, 0.0, 1.0).normalize(),
            DVec3::new(0.5, 0.1, 0.5),
            Feature::Edge(4),
        ),
        // Beyond the corner (+, +, +) (vertex 0), penetrating.
        (
            DVec3::splat(0.5) + 0.1 * DVec3::ONE.normalize(),
            DVec3::splat(0.5),
            Feature::Vertex(0),
        ),
    ];
    for (local_centre, local_closest, feature) in cases {
        let centre = cube_pose.transform_point(local_centre);
        let closest = cube_pose.transform_point(local_closest);
        let gap = (local_centre - local_closest).length();
        let ball_pose = Pose::from_translation(centre);
        let p = proximity(&cube, &cube_pose, &ball, &ball_pose);
        assert!((p.distance - (gap - 0.2)).abs() < 1e-12, "{p:?}");
        assert!(close(p.point_a, closest), "{p:?}");
        assert!(close(p.normal, (centre - closest) / gap));
        assert_eq!(p.feature_a, feature);
        // The polytope form finds the same point and distance.
        let hull = Shape::polytope(ConvexPolytope::from_box(DVec3::splat(0.5)).unwrap());
        let q = proximity(&ball, &ball_pose, &hull, &cube_pose);
        assert!((q.distance - p.distance).abs() < 1e-12);
        assert!(close(q.point_b, closest) && close(q.normal, -p.normal));
        let m = manifold(&ball, &ball_pose, &cube, &cube_pose, 0.1);
        assert_eq!(m.points.len(), 1);
        assert_eq!(m.points[0].feature_b, feature);
        assert_eq!(m.points[0].feature_a, Feature::Face(0));
    }
}

#[test]
fn sphere_centre_inside_a_box_is_pushed_out_of_the_nearest_face() {
    let cube = Shape::cuboid(DVec3::new(1.0, 0.5, 0.8)).unwrap();
    let ball = Shape::sphere(0.3).unwrap();
    // 0.1 from the -y face, farther from every other face.
    let centre = DVec3::new(0.2, -0.4, 0.1);
    let p = proximity(
        &cube,
        &Pose::IDENTITY,
        &ball,
        &Pose::from_translation(centre),
    );
    assert!((p.distance - (-0.1 - 0.3)).abs() < 1e-12);
    assert!(close(p.normal, -DVec3::Y));
    assert!(close(p.point_a, DVec3::new(0.2, -0.5, 0.1)));
    assert_eq!(p.feature_a, Feature::Face(3));
}

#[test]
fn two_spheres_and_concentric_spheres() {
    let (a, b) = (Shape::sphere(0.5).unwrap(), Shape::sphere(0.25).unwrap());
    let ca = DVec3::new(1.0, 2.0, 3.0);
    let direction = DVec3::new(2.0, -1.0, 2.0) / 3.0;
    for gap in [0.1, 0.0, -0.2] {
        let cb = ca + (0.75 + gap) * direction;
        let (pa, pb) = (
            Pose::new(ca, DQuat::from_rotation_y(2.0)),
            Pose::from_translation(cb),
        );
        let p = proximity(&a, &pa, &b, &pb);
        assert!((p.distance - gap).abs() < 1e-12);
        assert!(close(p.normal, direction));
        assert!(close(p.point_a, ca + 0.5 * direction));
        assert!(close(p.point_b, cb - 0.25 * direction));
        let m = manifold(&b, &pb, &a, &pa, 0.05);
        assert_eq!(m.points.len(), usize::from(gap <= 0.05));
    }
    // Concentric: any axis is a least-penetration axis; the depth is the
    // sum of the radii.
    let p = proximity(&a, &Pose::IDENTITY, &b, &Pose::IDENTITY);
    assert!((p.distance + 0.75).abs() < 1e-15);
    assert!((p.normal.length() - 1.0).abs() < 1e-15);
}

#[test]
fn random_poses_agree_with_parry() {
    let mut rng = Rng(0x2F69_3B1C_88D4_0E57);
    let mut generator = ManifoldGenerator::default();
    let mut m = ContactManifold::default();
    let margin = 0.05;
    let (mut separated, mut overlapping, mut featured) = (0, 0, 0);
    for case in 0..900 {
        let radius = rng.range(0.1, 0.8);
        let ball = Shape::sphere(radius).unwrap();
        let ball_pose = Pose::new(rng.vector(-1.5, 1.5), rng.rotation());
        let other_pose = Pose::new(rng.vector(-0.3, 0.3), rng.rotation());
        // The same shape for us and for parry, the oracle.
        let (other, parry_other): (Shape, Box<dyn ParryShape>) = match case % 3 {
            0 => {
                let h = rng.vector(0.2, 1.0);
                (Shape::cuboid(h).unwrap(), Box::new(Cuboid::new(h)))
            }
            1 => {
                let hull = rng.hull();
                let c = ConvexPolyhedron::from_convex_hull(hull.vertices()).unwrap();
                (Shape::polytope(hull), Box::new(c))
            }
            _ => {
                let r = rng.range(0.1, 0.8);
                (Shape::sphere(r).unwrap(), Box::new(Ball::new(r)))
            }
        };
        let args = (
            &parry(&other_pose),
            &*parry_other,
            &parry(&ball_pose),
            &Ball::new(radius),
        );
        let parry_distance = query::distance(args.0, args.1, args.2, args.3).unwrap();
        let parry_contact = query::contact(args.0, args.1, args.2, args.3, 0.0).unwrap();
        let p = generator
            .proximity(&other, &other_pose, &ball, &ball_pose, 1e-9)
            .unwrap();
        if parry_distance.distance > 0.0 {
            separated += 1;
            assert!(
                (p.distance - parry_distance.distance).abs() < 1e-9,
                "{p:?} vs parry {}",
                parry_distance.distance
            );
        } else {
            let contact = parry_contact.expect("overlapping shapes are in contact");
            overlapping += 1;
            assert!(
                (p.distance - contact.dist).abs() < 1e-9 * (1.0 + contact.dist.abs()),
                "{p:?} vs parry {contact:?}"
            );
            assert!(
                contact.normal1.dot(p.normal) > 1.0 - 1e-9,
                "{p:?} vs {contact:?}"
            );
        }
        // The other shape's closest point lies on the feature reported.
        if let Shape::Polytope(hull) = &other {
            let gap = distance_to_feature(hull, &other_pose, p.feature_a, p.point_a);
            assert!(gap < 1e-9, "{:?} is {gap} from {p:?}", p.feature_a);
            featured += 1;
        }
        // The closest points: on the sphere's surface, and apart by the
        // distance along the normal.
        assert!((((p.point_b - ball_pose.translation).length()) - radius).abs() < 1e-9);
        assert!(((p.point_b - p.point_a).dot(p.normal) - p.distance).abs() < 1e-9);
        // The manifold is that one point, in either argument order.
        generator
            .compute(&ball, &ball_pose, &other, &other_pose, margin, &mut m)
            .unwrap();
        assert_eq!(m.points.len(), usize::from(p.distance <= margin));
        if let Some(point) = m.points.first() {
            assert!(close(m.normal, -p.normal));
            assert!((point.distance - p.distance).abs() < 1e-15);
            assert!(close(point.point_a, p.point_b) && close(point.point_b, p.point_a));
        }
    }
    assert!(
        separated > 300 && overlapping > 150,
        "{separated} {overlapping}"
    );
    assert!(featured > 250, "{featured}");
}

#[test]
fn touching_sphere_has_a_unique_tangent_plane() {
    let mut generator = ManifoldGenerator::default();
    let ball = Shape::sphere(0.4).unwrap();
    let cube = Shape::cuboid(DVec3::splat(0.5)).unwrap();
    let cube_pose = Pose::new(DVec3::new(0.3, 0.0, 0.0), DQuat::from_rotation_x(0.3));
    // Touching the cube's corner (+, +, +) from outside along (1, 2, 2) / 3.
    let direction = DVec3::new(1.0, 2.0, 2.0) / 3.0;
    let corner = cube_pose.transform_point(DVec3::splat(0.5));
    let world_direction = cube_pose.transform_vector(direction);
    let centre = corner + 0.4 * world_direction;
    let ball_pose = Pose::from_translation(centre);
    let plane = generator
        .separating_plane(&cube, &cube_pose, &ball, &ball_pose, 1e-9)
        .unwrap()
        .expect("touching");
    assert_eq!(plane.kind, ContactKind::SphereTangent);
    assert!(plane.kind.is_unique());
    assert!(close(plane.normal, world_direction));
    assert!((plane.offset - world_direction.dot(corner)).abs() < 1e-12);
    // Every cube vertex on the negative side, the ball on the positive.
    let cube_vertices = ConvexPolytope::from_box(DVec3::splat(0.5)).unwrap();
    for &v in cube_vertices.vertices() {
        assert!(plane.normal.dot(cube_pose.transform_point(v)) <= plane.offset + 1e-12);
    }
    assert!(plane.normal.dot(centre) - 0.4 >= plane.offset - 1e-12);
    // A sphere on the ground: the ground's plane, whichever comes first.
    let ground = Shape::half_space(DVec3::Z).unwrap();
    let resting = Pose::from_translation(DVec3::new(3.0, 1.0, 0.4));
    let plane = generator
        .separating_plane(&ball, &resting, &ground, &Pose::IDENTITY, 1e-9)
        .unwrap()
        .expect("resting");
    assert!(close(plane.normal, -DVec3::Z) && plane.offset.abs() < 1e-15);
    // Apart by more than the tolerance: no plane.
    let lifted = Pose::from_translation(DVec3::new(3.0, 1.0, 0.41));
    assert!(
        generator
            .separating_plane(&ground, &Pose::IDENTITY, &ball, &lifted, 1e-3)
            .unwrap()
            .is_none()
    );
}

#[test]
fn bounding_box_and_motion_radius() {
    let ball = Shape::sphere(0.5).unwrap();
    let pose = Pose::new(DVec3::new(1.0, -2.0, 3.0), DQuat::from_rotation_z(0.9));
    let aabb = Aabb::of_shape(&ball, &pose, 0.1);
    assert!(close(aabb.min, DVec3::new(0.4, -2.6, 2.4)));
    assert!(close(aabb.max, DVec3::new(1.6, -1.4, 3.6)));
    // Turning about its centre moves no point of its support; about an
    // off-centre point only the centre's distance counts.
    assert_eq!(ball.motion_radius(DVec3::ZERO), 0.0);
    assert_eq!(ball.motion_radius(DVec3::new(0.0, 3.0, 4.0)), 5.0);
    // A cuboid's: its farthest corner.
    let cube = Shape::cuboid(DVec3::new(1.0, 2.0, 2.0)).unwrap();
    assert!((cube.motion_radius(DVec3::ZERO) - 3.0).abs() < 1e-15);
    assert!((cube.motion_radius(DVec3::new(-1.0, 0.0, 0.0)) - 12f64.sqrt()).abs() < 1e-15);
}

#[test]
fn mass_properties_match_fine_polytopes() {
    let density = 7.0;
    // A ball against the hull of 2000 points on its surface (Fibonacci
    // lattice): the inscribed hull's volume and inertia fall short by
    // O(1 / N) (measured: 2.9e-3 and 4.8e-3).
    let radius = 0.3;
    let n = 2000;
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let points: Vec<DVec3> = (0..n)
        .map(|k| {
            let z = 1.0 - 2.0 * (f64::from(k) + 0.5) / f64::from(n);
            let rho = (1.0 - z * z).sqrt();
            let angle = golden * f64::from(k);
            radius * DVec3::new(rho * angle.cos(), rho * angle.sin(), z)
        })
        .collect();
    let hull = ConvexPolytope::from_points(&points).unwrap();
    let exact = Shape::sphere(radius)
        .unwrap()
        .mass_properties(density)
        .unwrap();
    let approx = hull.mass_properties(density).unwrap();
    let relative = |x: f64, y: f64| (x - y).abs() / y;
    assert!(approx.mass() < exact.mass());
    assert!(
        relative(approx.mass(), exact.mass()) < 4e-3,
        "{approx:?} {exact:?}"
    );
    let (ie, ia) = (exact.local_inertia(), approx.local_inertia());
    for i in 0..3 {
        assert!(ia.col(i)[i] < ie.col(i)[i]);
        assert!(relative(ia.col(i)[i], ie.col(i)[i]) < 6e-3);
    }
    // A cuboid against its polytope form, exactly.
    let h = DVec3::new(0.3, 0.5, 0.9);
    let exact = Shape::cuboid(h).unwrap().mass_properties(density).unwrap();
    let integrated = ConvexPolytope::from_box(h)
        .unwrap()
        .mass_properties(density)
        .unwrap();
    assert!(relative(exact.mass(), integrated.mass()) < 1e-12);
    assert!(
        (exact.local_inertia() - integrated.local_inertia()).abs_diff_eq(glam::DMat3::ZERO, 1e-12)
    );
    // Half-spaces have none; densities are checked.
    let ground = Shape::half_space(DVec3::Z).unwrap();
    assert!(matches!(
        ground.mass_properties(1.0),
        Err(GeometryError::Unbounded { kind: "half-space" })
    ));
    assert!(matches!(
        Shape::sphere(1.0).unwrap().mass_properties(f64::NAN),
        Err(GeometryError::InvalidDensity { .. })
    ));
}
