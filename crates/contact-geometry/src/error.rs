//! The one error type of the geometry layer.

/// What went wrong in a geometric construction or query.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GeometryError {
    /// A size (half extent, radius) is not strictly positive and finite.
    #[error("{what} must be positive and finite, got {value}")]
    InvalidSize {
        /// Which size was wrong, e.g. "half_extents.y".
        what: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A direction that must be a nonzero finite vector is not.
    #[error("{what} must be a finite nonzero vector, got {value:?}")]
    InvalidDirection {
        /// Which direction was wrong.
        what: &'static str,
        /// The offending vector.
        value: [f64; 3],
    },
    /// A pose passed to a query contains NaN or infinity.
    #[error("pose of shape {which} is not finite")]
    NonFinitePose {
        /// 0 for the first shape of the pair, 1 for the second.
        which: usize,
    },
    /// The contact margin is negative or not finite.
    #[error("contact margin must be finite and >= 0, got {margin}")]
    InvalidMargin {
        /// The offending margin.
        margin: f64,
    },
    /// A bounding box handed to a broad phase has a NaN bound.
    #[error("bounding box {index} has a NaN bound")]
    NanBoundingBox {
        /// Index of the box.
        index: usize,
    },
    /// A broad phase was handed more boxes than its `u32` pair ids can name.
    #[error("{count} bounding boxes: a broad phase takes at most u32::MAX")]
    TooManyBoxes {
        /// How many were given.
        count: usize,
    },
    /// No manifold generator exists for this pair of shape kinds.
    #[error("no contact manifold between a {first} and a {second}")]
    UnsupportedPair {
        /// Kind of the first shape.
        first: &'static str,
        /// Kind of the second shape.
        second: &'static str,
    },
    /// A point of a point cloud contains NaN or infinity.
    #[error("point {index} of the point cloud is not finite")]
    NonFinitePoint {
        /// Index of the offending point in the input.
        index: usize,
    },
    /// A point cloud has too few points, or too few distinct ones, to span
    /// a solid.
    #[error(
        "a convex polytope needs 4 points that are not coplanar: {problem} ({count} points given)"
    )]
    DegeneratePointCloud {
        /// What is wrong: "fewer than 4 points", "all points coincide",
        /// "coordinates too large to subtract",
        /// "all points are collinear", "all points are coplanar".
        problem: &'static str,
        /// How many points were given.
        count: usize,
    },
    /// The convex hull could not be turned into a valid polytope
    /// (the hull algorithm failed, or round-off broke its topology).
    #[error("invalid convex hull: {problem}")]
    InvalidHull {
        /// What went wrong.
        problem: &'static str,
    },
    /// A density is not strictly positive and finite.
    #[error("density must be positive and finite, got {value}")]
    InvalidDensity {
        /// The offending density (kg/m^3).
        value: f64,
    },
    /// A shape of infinite volume was asked for a property only bounded
    /// shapes have (mass properties).
    #[error("a {kind} is unbounded: it has no mass properties")]
    Unbounded {
        /// Kind of the shape ("half-space").
        kind: &'static str,
    },
    /// Mass properties computed from a shape failed validation.
    #[error("mass properties rejected: {0}")]
    MassProperties(#[source] contact_math::MathError),
}
