//! The contact manifold: what the dynamics layer needs to know about a
//! touching pair.

use glam::DVec3;

/// A feature of a shape's boundary that takes part in a contact.
///
/// Ids are those of the shape's own numbering (for a cuboid, parry's); a
/// half-space's boundary and a sphere's surface are the one face `Face(0)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// A vertex.
    Vertex(u32),
    /// An edge.
    Edge(u32),
    /// A face.
    Face(u32),
    /// A feature the underlying library could not name.
    Unknown,
}

/// One point of a contact manifold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// The point on the first shape's surface, world frame (m).
    pub point_a: DVec3,
    /// The point on the second shape's surface, world frame (m).
    pub point_b: DVec3,
    /// Signed distance along the manifold normal from `point_a` to
    /// `point_b` (m): positive when separated, negative when overlapping.
    pub distance: f64,
    /// The feature of the first shape that produced the point.
    pub feature_a: Feature,
    /// The feature of the second shape that produced the point.
    pub feature_b: Feature,
}

impl ContactPoint {
    /// The point midway between the two surfaces, where contact forces
    /// are applied (world frame).
    #[must_use]
    pub fn midpoint(&self) -> DVec3 {
        0.5 * (self.point_a + self.point_b)
    }
}

/// The contact between two shapes: a shared normal and the points of the
/// contact region, all in the world frame.
///
/// The buffer is meant to be reused from step to step: generators clear and
/// refill `points`, so after warm-up nothing is allocated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactManifold {
    /// Unit contact normal, world frame, pointing from the first shape
    /// towards the second. Meaningless when `points` is empty.
    pub normal: DVec3,
    /// The contact points; empty when the shapes are farther apart than the
    /// margin.
    pub points: Vec<ContactPoint>,
}

impl ContactManifold {
    /// Empties the manifold, keeping its storage.
    pub fn clear(&mut self) {
        self.normal = DVec3::ZERO;
        self.points.clear();
    }

    /// The smallest signed distance among the points (`+inf` when empty).
    #[must_use]
    pub fn min_distance(&self) -> f64 {
        self.points
            .iter()
            .map(|p| p.distance)
            .fold(f64::INFINITY, f64::min)
    }
}
