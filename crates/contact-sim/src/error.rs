//! The one error type of the simulation layer.

use contact_dynamics::DynamicsError;
use contact_geometry::GeometryError;

/// What went wrong while building or stepping a world.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// A setting is outside its allowed range.
    #[error("parameter {name} = {value} is outside its allowed range")]
    InvalidParameter {
        /// Name of the setting.
        name: &'static str,
        /// The offending value.
        value: f64,
    },
    /// The collision pass failed for a pair of bodies.
    #[error("contact between bodies {body_a} and {body_b}: {source}")]
    Geometry {
        /// First body of the pair.
        body_a: usize,
        /// Second body of the pair.
        body_b: usize,
        /// What the geometry layer reported.
        source: GeometryError,
    },
    /// A shape, material or mass was invalid while building a scene.
    #[error("invalid scene: {0}")]
    Scene(String),
    /// The dynamics layer failed (bad state, solver gave up).
    #[error(transparent)]
    Dynamics(#[from] DynamicsError),
}
