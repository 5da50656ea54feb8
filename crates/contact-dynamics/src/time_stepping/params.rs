//! Settings of the velocity-level stepper.

use contact_lcp::{LemkeParams, PgsParams, SolverParams};

use crate::DynamicsError;

/// Which complementarity problem a step solves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Formulation {
    /// Anitescu-Potra with a `k`-direction polyhedral friction cone, as a
    /// pure LCP solved by Lemke's method (Cline 2002, eq. 2.49). Always has
    /// a solution; the default.
    #[default]
    Complementarity,
    /// Normal impulses in `[0, inf)` and two tangent impulses bounded by
    /// `mu` times the normal one (a square friction cone), as a bounded LCP
    /// solved by the `contact_lcp::Solver` policy: Dantzig pivoting and
    /// Lemke's method on the problem's standard form, with projected
    /// Gauss-Seidel as the fail-safe (Baraff 1994; Stewart & Trinkle 1996;
    /// Preda & Florian 2005).
    /// `friction_directions` is ignored.
    BoxFriction,
}

/// Settings of [`TimeStepping`](crate::TimeStepping).
#[derive(Clone, Copy, Debug)]
pub struct TimeSteppingParams {
    /// Number of tangent directions of the polyhedral friction cone per
    /// contact (even, >= 4; default 4). More directions approximate the
    /// circular Coulomb cone better at the cost of a larger LCP: each
    /// contact adds `k + 2` unknowns.
    pub friction_directions: usize,
    /// Fraction of an existing penetration removed per step (0..=1,
    /// default 0.2). Gaps (positive distances) are always used in full, so
    /// bodies may close a gap in one step but never overshoot it (the
    /// Stewart-Trinkle distance term); only penetration that already exists
    /// is pushed out gradually, which avoids the energy of a one-step
    /// correction. 0 disables the correction.
    pub error_reduction: f64,
    /// The problem solved each step.
    pub formulation: Formulation,
    /// Settings of the Lemke solver (complementarity formulation).
    pub lcp: LemkeParams,
    /// Settings of the box formulation's solvers: Dantzig, and the
    /// projected Gauss-Seidel fail-safe, which may take 20 000 sweeps by
    /// default (a cold start on a stack needs thousands: the slow
    /// convergence Preda & Florian report).
    pub box_solver: SolverParams,
}

impl Default for TimeSteppingParams {
    fn default() -> Self {
        Self {
            friction_directions: 4,
            error_reduction: 0.2,
            formulation: Formulation::default(),
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
        if !(0.0..=1.0).contains(&self.error_reduction) {
            return Err(DynamicsError::InvalidParameter {
                name: "error_reduction",
                value: self.error_reduction,
            });
        }
        Ok(())
    }
}
