//! Settings of the velocity-level stepper.

use contact_lcp::LemkeParams;

use crate::DynamicsError;

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
    /// Settings of the Lemke solver used for the step's LCP.
    pub lcp: LemkeParams,
}

impl Default for TimeSteppingParams {
    fn default() -> Self {
        Self {
            friction_directions: 4,
            error_reduction: 0.2,
            lcp: LemkeParams::default(),
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
