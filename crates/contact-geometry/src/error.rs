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
    /// No manifold generator exists for this pair of shape kinds.
    #[error("no contact manifold between a {first} and a {second}")]
    UnsupportedPair {
        /// Kind of the first shape.
        first: &'static str,
        /// Kind of the second shape.
        second: &'static str,
    },
}
