//! What a [`TimeStepping`](crate::TimeStepping) carries from one step to
//! the next, so that a simulation saved between two steps and restored
//! continues bit for bit: the impacts waiting to be resolved
//! (`restitution.rs`) and the active sets and impulses that warm-start the
//! factored box solves (`formulation/mod.rs`). Everything else a stepper holds is
//! workspace, refilled by each step.

use contact_lcp::RowState;

use crate::DynamicsError;

/// The state a stepper carries between steps (see the module comment).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepMemory {
    /// Impacts to resolve in the next step: `(contact key, separating speed
    /// in m/s)`, sorted by strictly increasing key (`ContactConstraint::key`).
    pub pending_bounces: Vec<(u64, f64)>,
    /// The last step's active sets and impulses: `(constraint key, row
    /// offset, state, impulse)`, sorted by strictly increasing `(key,
    /// offset)`.
    pub active_sets: Vec<(u64, usize, RowState, f64)>,
}

impl StepMemory {
    /// Checks the order of both lists, the speeds (finite, >= 0) and the
    /// impulses (finite).
    ///
    /// # Errors
    /// [`DynamicsError::InvalidMemory`] naming the list and the entry.
    pub fn validate(&self) -> Result<(), DynamicsError> {
        let invalid = |field, index, reason| DynamicsError::InvalidMemory {
            field,
            index,
            reason,
        };
        for (index, &(_, speed)) in self.pending_bounces.iter().enumerate() {
            if !(speed.is_finite() && speed >= 0.0) {
                return Err(invalid(
                    "pending_bounces",
                    index,
                    "speed must be finite and >= 0",
                ));
            }
        }
        if let Some(index) = self
            .pending_bounces
            .windows(2)
            .position(|w| w[0].0 >= w[1].0)
        {
            return Err(invalid(
                "pending_bounces",
                index + 1,
                "keys must increase strictly",
            ));
        }
        if let Some(index) = self.active_sets.iter().position(|e| !e.3.is_finite()) {
            return Err(invalid("active_sets", index, "impulse must be finite"));
        }
        if let Some(index) = self
            .active_sets
            .windows(2)
            .position(|w| (w[0].0, w[0].1) >= (w[1].0, w[1].1))
        {
            return Err(invalid(
                "active_sets",
                index + 1,
                "(key, offset) pairs must increase strictly",
            ));
        }
        Ok(())
    }
}
