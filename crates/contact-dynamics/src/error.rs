//! The one error type of the dynamics layer.

use contact_lcp::LcpError;

/// What went wrong while building or solving a dynamics problem.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DynamicsError {
    /// A dynamic body needs a shape with finite volume.
    #[error("a dynamic body cannot have an unbounded shape ({kind})")]
    UnboundedDynamicShape {
        /// Kind of the shape that was given.
        kind: &'static str,
    },
    /// The body frame must sit at the centre of mass (its origin is where
    /// twists are measured); the mass properties put it elsewhere.
    #[error(
        "body frame must be at the centre of mass, but the local centre of mass is {local_com:?}"
    )]
    FrameNotAtCentreOfMass {
        /// The centre of mass in the body frame.
        local_com: [f64; 3],
    },
    /// A coefficient of friction is negative or not finite.
    #[error("friction coefficient must be finite and >= 0, got {value}")]
    InvalidFriction {
        /// The offending value.
        value: f64,
    },
    /// A body's pose or twist holds NaN or infinity.
    #[error("state of body {body} is not finite")]
    NonFiniteState {
        /// Index of the body.
        body: usize,
    },
    /// A body's rotation is further from a unit quaternion than
    /// [`contact_math::UNIT_QUATERNION_TOLERANCE`] (see [`crate::RigidBody`]'s
    /// rotation rule).
    #[error("rotation of body {body} is not a unit quaternion (norm {norm})")]
    NonUnitRotation {
        /// Index of the body.
        body: usize,
        /// The quaternion's norm.
        norm: f64,
    },
    /// A body's accumulated force, torque or impulse holds NaN or infinity.
    #[error("applied loads of body {body} are not finite")]
    NonFiniteLoad {
        /// Index of the body.
        body: usize,
    },
    /// The step would leave a body with a non-finite pose or twist (a
    /// velocity near the largest float, say); the state is left unchanged.
    #[error("the step would leave body {body} in a non-finite state")]
    NonFiniteResult {
        /// Index of the body.
        body: usize,
    },
    /// A joint is invalid.
    #[error("joint{}: {field}: {reason}", joint.map(|j| format!(" {j}")).unwrap_or_default())]
    InvalidJoint {
        /// Index of the joint (`None` before it is added to a world).
        joint: Option<usize>,
        /// The offending field.
        field: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A force element is invalid.
    #[error("force element {element}: {field}: {reason}")]
    InvalidForce {
        /// Index of the force element.
        element: usize,
        /// The offending field.
        field: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The position projection of post-stabilisation could not be solved.
    #[error("post-stabilisation projection could not be solved: {0}")]
    Projection(#[source] LcpError),
    /// A contact refers to a body that does not exist, to the same body
    /// twice, or has a non-finite or non-unit normal, point or distance.
    #[error("contact {contact} is invalid: {reason}")]
    InvalidContact {
        /// Index of the contact.
        contact: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A step or parameter value is outside its allowed range.
    #[error("parameter {name} = {value} is outside its allowed range")]
    InvalidParameter {
        /// Name of the parameter.
        name: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A step memory given to `TimeStepping::restore_memory` is malformed.
    #[error("step memory: {field}[{index}] {reason}")]
    InvalidMemory {
        /// The list: `pending_bounces` or `active_sets`.
        field: &'static str,
        /// The offending entry.
        index: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The step problem of one island could not be solved; the source
    /// carries the solver's best iterate where it has one
    /// ([`LcpError::best`]).
    #[error(
        "island {island} ({bodies} bodies, {rows} rows, {formulation:?} formulation) could not be solved{}: {source}",
        solver.map(|s| format!(" by {s:?} (the last solver tried)")).unwrap_or_default()
    )]
    IslandSolve {
        /// Index of the island in the step (islands are numbered in the
        /// order of their first constraint).
        island: usize,
        /// Its number of moving bodies.
        bodies: usize,
        /// Its number of constraint rows.
        rows: usize,
        /// The formulation (with the friction directions of the step
        /// settings, it names the solvers that were tried).
        formulation: crate::Formulation,
        /// The last solver tried, whose error `source` is (the solvers
        /// before it gave up too); `None` when the problem was rejected
        /// before any solver ran (e.g. a non-finite entry).
        solver: Option<contact_lcp::Method>,
        /// The last solver's error.
        #[source]
        source: LcpError,
    },
    /// No contact forces keep the resting contacts from penetrating while
    /// one of them slides: Painleve's inconsistency of the
    /// acceleration-level problem (Baraff 1994, sec. 6), resolved by an
    /// impulsive step (see `contact_sim::EventDrivenStepper`).
    #[error("no consistent contact forces (Painleve): sliding contact {contact}")]
    Painleve {
        /// The sliding contact whose normal force does least to open its
        /// own gap (the smallest `A_ii`).
        contact: usize,
    },
    /// The complementarity solver failed.
    #[error("contact LCP could not be solved: {0}")]
    Lcp(#[from] LcpError),
}
