//! The one error type of the crate.

/// Why a math value was rejected.
///
/// Every variant carries the number that failed the check, so the message says
/// how far off the input was. NaN and infinities are always reported as
/// [`MathError::NonFinite`]; they are never silently propagated by a function
/// that returns a `Result`.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MathError {
    /// An input contained NaN or an infinity.
    #[error("{what} is not finite (NaN or infinite)")]
    NonFinite {
        /// Which input was not finite.
        what: &'static str,
    },
    /// A total mass was zero or negative.
    #[error("mass must be positive, got {mass}")]
    NonPositiveMass {
        /// The rejected mass in kg.
        mass: f64,
    },
    /// One mass of a point cloud was zero or negative.
    #[error("point mass {index} must be positive, got {mass}")]
    NonPositivePointMass {
        /// Index of the offending point in the input slice.
        index: usize,
        /// The rejected mass in kg.
        mass: f64,
    },
    /// A shape dimension (radius, half extent, half height) was zero or negative.
    #[error("{what} must be positive, got {value}")]
    NonPositiveDimension {
        /// Which dimension.
        what: &'static str,
        /// The rejected value in m.
        value: f64,
    },
    /// An inertia matrix was not symmetric within the relative tolerance.
    #[error("inertia matrix is not symmetric: max |I_ij - I_ji| = {max_asymmetry}")]
    InertiaNotSymmetric {
        /// The largest absolute difference `|I_ij - I_ji|` in kg m^2.
        max_asymmetry: f64,
    },
    /// An inertia matrix had a zero or negative eigenvalue (relative to its largest).
    #[error("inertia matrix is not positive definite: smallest eigenvalue {eigenvalue}")]
    InertiaNotPositiveDefinite {
        /// The smallest eigenvalue in kg m^2.
        eigenvalue: f64,
    },
    /// The principal moments violate `I_a + I_b >= I_c`, which every real mass
    /// distribution satisfies.
    #[error("principal moments {principal:?} violate the triangle inequality")]
    TriangleInequality {
        /// The principal moments in ascending order, kg m^2.
        principal: [f64; 3],
    },
    /// A point cloud had no points.
    #[error("point cloud is empty")]
    EmptyPointCloud,
    /// A quaternion meant as a rotation was too far from unit length.
    #[error("rotation quaternion is not unit: |q| = {norm}")]
    NotUnitQuaternion {
        /// The norm of the rejected quaternion.
        norm: f64,
    },
}
