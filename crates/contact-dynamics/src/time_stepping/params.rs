//! Settings of the velocity-level stepper.

use contact_lcp::{LemkeParams, PgsParams, SolverParams};

use crate::{DynamicsError, Formulation, StabilisationParams};

/// Settings of [`TimeStepping`](crate::TimeStepping).
#[derive(Clone, Copy, Debug)]
pub struct TimeSteppingParams {
    /// Number of tangent directions of the polyhedral friction cone per
    /// contact (even, >= 4; default 4). More directions approximate the
    /// circular Coulomb cone better at the cost of a larger LCP: each
    /// contact adds `k + 2` unknowns (3 with four directions, which are
    /// solved as the turned box problem).
    pub friction_directions: usize,
    /// The problem solved each step.
    pub formulation: Formulation,
    /// How joint drift and contact penetration are removed.
    pub stabilisation: StabilisationParams,
    /// Settings of the Lemke solver (complementarity formulation with other
    /// than four friction directions).
    pub lcp: LemkeParams,
    /// Whether friction is made isotropic (`time_stepping/isotropic_friction.rs`):
    /// each contact's first tangent along its sliding velocity, and a
    /// contact whose friction leaves the Coulomb circle turned onto it and
    /// the step solved again, at most `max_friction_passes` times in all.
    /// Default `true`.
    pub isotropic_friction: bool,
    /// Most solves of one step when friction is isotropic (>= 1; default 4).
    pub max_friction_passes: usize,
    /// Contacts approaching slower than this (m/s, >= 0; default 0.5) are
    /// inelastic whatever their restitution, so that resting contacts,
    /// which approach by `h g` each step, do not bounce
    /// (`time_stepping/restitution.rs`).
    pub restitution_threshold: f64,
    /// Whether each island (connected component of the moving bodies) is
    /// solved on its own, islands in parallel (default `true`); `false`
    /// solves the whole scene as one problem (for benchmarks of the solvers
    /// on whole-scene problems). The answer is certified either way.
    pub islands: bool,
    /// Islands with at least this many rows are solved in factored form
    /// by block pivoting in body space, warm-started from the previous
    /// step (`Formulation::BoxFriction`, and `Complementarity` with four
    /// friction directions as the turned box), the dense route answering
    /// when it gives up (see `formulation/mod.rs`). Default `64`: below
    /// about that the dense solvers are faster; `usize::MAX` turns the
    /// factored route off.
    pub sparse_from: usize,
    /// Settings of the box problems' solvers (`BoxFriction`, and
    /// `Complementarity` with four directions) and of the projection's:
    /// Dantzig, and the projected Gauss-Seidel fail-safe, which may take
    /// 20 000 sweeps by default (a cold start on a stack needs thousands:
    /// the slow convergence Preda & Florian report).
    pub box_solver: SolverParams,
}

impl Default for TimeSteppingParams {
    fn default() -> Self {
        Self {
            friction_directions: 4,
            formulation: Formulation::default(),
            stabilisation: StabilisationParams::default(),
            isotropic_friction: true,
            max_friction_passes: 4,
            restitution_threshold: 0.5,
            islands: true,
            sparse_from: SPARSE_FROM,
            lcp: LemkeParams::default(),
            box_solver: SolverParams {
                pgs: PgsParams {
                    max_sweeps: 20_000,
                    ..PgsParams::default()
                },
                ..SolverParams::default()
            },
        }
    }
}

impl TimeSteppingParams {
    /// Checks every field's range.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidParameter`] naming the first bad field.
    pub fn validate(&self) -> Result<(), DynamicsError> {
        let k = self.friction_directions;
        if k < 4 || k % 2 != 0 {
            return Err(DynamicsError::InvalidParameter {
                name: "friction_directions",
                value: k as f64,
            });
        }
        if self.max_friction_passes == 0 {
            return Err(DynamicsError::InvalidParameter {
                name: "max_friction_passes",
                value: 0.0,
            });
        }
        if !(self.restitution_threshold.is_finite() && self.restitution_threshold >= 0.0) {
            return Err(DynamicsError::InvalidParameter {
                name: "restitution_threshold",
                value: self.restitution_threshold,
            });
        }
        self.stabilisation.validate()
    }
}

/// The default of [`TimeSteppingParams::sparse_from`].
pub const SPARSE_FROM: usize = 64;
