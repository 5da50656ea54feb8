//! Helpers shared by the integration tests: a seeded generator, so every
//! randomised test reproduces, and the bridge to parry, the oracle.
// Each test file uses a different subset.
#![allow(dead_code)]

use contact_geometry::{ContactManifold, ConvexPolytope, Feature, Shape};
use contact_math::Pose;
use glam::{DQuat, DVec3};
use parry3d_f64::math::Pose as ParryPose;
use parry3d_f64::query::Contact;

/// xorshift64*: a seeded generator so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in [0, 1).
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }

    /// Each coordinate uniform in [lo, hi).
    pub fn vector(&mut self, lo: f64, hi: f64) -> DVec3 {
        DVec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }

    /// A rotation about a random axis by an angle in [-3.2, 3.2).
    pub fn rotation(&mut self) -> DQuat {
        let axis = self.vector(-1.0, 1.0).normalize_or(DVec3::X);
        DQuat::from_axis_angle(axis, self.range(-3.2, 3.2))
    }

    /// A hull of 4 to 40 points in an ellipsoid-ish cloud.
    pub fn hull(&mut self) -> ConvexPolytope {
        let n = 4 + (self.next() * 37.0) as usize;
        let size = self.vector(0.2, 1.0);
        let points: Vec<DVec3> = (0..n).map(|_| self.vector(-1.0, 1.0) * size).collect();
        ConvexPolytope::from_points(&points).unwrap()
    }
}

/// Our pose as parry's.
pub fn parry(pose: &Pose) -> ParryPose {
    ParryPose::from_parts(pose.translation, pose.rotation)
}

/// Order-free comparison: every expected point matches a distinct returned
/// point within 1e-9 (the generators' point order is not part of the
/// contract).
pub fn assert_same_points(got: &[DVec3], expected: &[DVec3]) {
    assert_eq!(
        got.len(),
        expected.len(),
        "got {got:?}, expected {expected:?}"
    );
    let mut used = vec![false; got.len()];
    for e in expected {
        let found = (0..got.len()).find(|&k| !used[k] && (got[k] - *e).length() < 1e-9);
        let k = found.unwrap_or_else(|| panic!("{e} missing: got {got:?}"));
        used[k] = true;
    }
}

/// Checks an overlapping pair's manifold against parry's EPA penetration:
/// along the same axis the deepest distance must match (1e-6 relative);
/// along another axis (ties) ours must not be shallower. Returns whether
/// the axes agreed.
pub fn check_depth_against_parry(m: &ContactManifold, contact: &Contact) -> bool {
    let same_axis = contact.normal1.dot(m.normal) > 0.999;
    if same_axis {
        assert!(
            (m.min_distance() - contact.dist).abs() < 1e-6 * (1.0 + contact.dist.abs()),
            "depth {} vs parry {}",
            m.min_distance(),
            contact.dist
        );
    } else {
        assert!(
            m.min_distance() <= contact.dist + 1e-6,
            "ours {} parry {}",
            m.min_distance(),
            contact.dist
        );
    }
    same_axis
}

/// Every point within the margin, its distance measured along the unit
/// normal between its two surface points.
pub fn assert_well_formed(m: &ContactManifold, margin: f64) {
    for p in &m.points {
        assert!(p.distance <= margin + 1e-12, "{p:?}");
        assert!(
            ((p.point_b - p.point_a).dot(m.normal) - p.distance).abs() < 1e-9,
            "{p:?}"
        );
        assert!((m.normal.length() - 1.0).abs() < 1e-12, "{m:?}");
    }
}

/// Distance from `x` to a feature of a polytope posed at `pose`: the
/// independent check that a reported feature holds the closest point.
/// `Feature::Unknown` is infinitely far, so it never passes.
pub fn distance_to_feature(p: &ConvexPolytope, pose: &Pose, feature: Feature, x: DVec3) -> f64 {
    let v = |i: u32| pose.transform_point(p.vertices()[i as usize]);
    match feature {
        Feature::Vertex(i) => (x - v(i)).length(),
        Feature::Edge(e) => {
            let [i, j] = p.edges()[e as usize].vertices;
            let (a, b) = (v(i), v(j));
            let t = ((x - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            (x - (a + t * (b - a))).length()
        }
        Feature::Face(f) => {
            let plane = p.faces()[f as usize];
            let local = pose.inverse_transform_point(x);
            (plane.normal.dot(local) - plane.offset).abs()
        }
        Feature::Unknown => f64::INFINITY,
    }
}

/// A square pyramid, base 1 x 1 at z = 0, apex at z = 1 (local frame):
/// Drumwright's fig. 4 shape, apex down on a box.
pub fn square_pyramid() -> Shape {
    Shape::polytope(
        ConvexPolytope::from_points(&[
            DVec3::new(0.5, 0.5, 0.0),
            DVec3::new(-0.5, 0.5, 0.0),
            DVec3::new(-0.5, -0.5, 0.0),
            DVec3::new(0.5, -0.5, 0.0),
            DVec3::new(0.0, 0.0, 1.0),
        ])
        .unwrap(),
    )
}

/// A 10 cm cube at the origin and a bar (half extents 6, 3, 3 cm) turned
/// 45 degrees about x, so one of its long edges points down, then tilted by
/// `tilt` (rad) about y: that edge crosses the cube's top rim edge (x = z =
/// 5 cm) at right angles, `gap` (m) above it, nearly parallel to the top
/// face, and runs on 5 cm past the rim, dipping below the top face's plane
/// by 5 cm times `sin(tilt)` outside the cube. Their signed distance is
/// `gap * cos(tilt)` along `(sin(tilt), 0, cos(tilt))` (the two edge lines'
/// distance; the crossing points lie inside both edges), while the top
/// face's axis separates them by `gap - 0.05 sin(tilt)`: less by a little
/// more than 1e-3 of the size for a tilt of 1e-3.
pub fn edge_over_rim(tilt: f64, gap: f64) -> (Shape, Pose, Shape, Pose) {
    let cube = Shape::cuboid(DVec3::splat(0.05)).expect("cube");
    let bar = Shape::cuboid(DVec3::new(0.06, 0.03, 0.03)).expect("bar");
    let tilted = DQuat::from_rotation_y(tilt);
    let rotation = tilted * DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4);
    // Turned about x, the edge runs along x 3 sqrt(2) cm below the bar's
    // centre; its point 1 cm along it from the middle sits over the rim.
    let over_rim = DVec3::new(0.05, 0.0, 0.05 + gap);
    let centre = over_rim - tilted * DVec3::new(0.01, 0.0, -0.03 * std::f64::consts::SQRT_2);
    (cube, Pose::IDENTITY, bar, Pose::new(centre, rotation))
}
