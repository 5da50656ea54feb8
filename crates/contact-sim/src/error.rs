//! The one error type of the simulation layer.

use contact_dynamics::DynamicsError;
use contact_geometry::GeometryError;
use contact_math::MathError;

use crate::CaError;

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
    /// The broad phase refused the bodies' bounding boxes (a NaN bound, or
    /// more than `u32::MAX` bodies).
    #[error("broad phase: {source}")]
    BroadPhase {
        /// What the geometry layer reported.
        source: GeometryError,
    },
    /// A scene description cannot be built as given.
    #[error("invalid scene: {reason}")]
    Scene {
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A shape of a scene is invalid (a size not positive, say).
    #[error("invalid shape: {0}")]
    Shape(#[source] GeometryError),
    /// Mass properties of a scene are invalid.
    #[error("invalid mass properties: {0}")]
    Mass(#[from] MathError),
    /// A stepper cannot take a world with this feature.
    #[error("not supported: {what}")]
    Unsupported {
        /// What is not supported.
        what: &'static str,
    },
    /// An adaptive stepper could not advance: its step fell below its
    /// smallest, or one instant needed more impacts than it allows.
    #[error("cannot advance at t = {time} s (step {step} s): {reason}")]
    StepTooSmall {
        /// Simulated time (s).
        time: f64,
        /// The step that was refused (s).
        step: f64,
        /// Why.
        reason: &'static str,
    },
    /// What a stepper carries between steps, given to its
    /// `restore_memory`, is malformed.
    #[error("stepper memory: {field}[{index}] {reason}")]
    InvalidMemory {
        /// The list (`held`).
        field: &'static str,
        /// The offending entry.
        index: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The dynamics layer failed (bad state, solver gave up).
    #[error(transparent)]
    Dynamics(#[from] DynamicsError),
    /// Conservative advancement cannot take its step (see [`CaError`]).
    #[error(transparent)]
    Advance(#[from] CaError),
}
