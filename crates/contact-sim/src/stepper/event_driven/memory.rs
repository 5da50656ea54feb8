//! What the event-driven stepper carries from one advance into the next,
//! for saving a running simulation and continuing it bit for bit.
//!
//! Every field of [`EventDrivenStepper`] that outlives an advance is here
//! or is recomputed identically from the world:
//!
//! - `next_step` (the Dormand-Prince step the error control asks for
//!   next), `stalls` (steps in a row without progress), `sliding_before`
//!   and `flagged` (the contacts that slid, and the one flagged as
//!   indeterminate, at the last classification: what decides the next
//!   stick and indeterminacy events) and the acceleration problem's kept
//!   reference (the forces its next solves keep to where they are not
//!   unique) are saved;
//! - the resting contacts, their friction modes, the contact forces and
//!   the touching points are classified afresh from the world's state at
//!   the start of every step, before they are read; the ODE method keeps
//!   no stage between steps (no first-same-as-last, see `ode.rs`); the
//!   contact finder and the LCP solvers hold nothing between calls that
//!   changes a result; the state vectors, watch values and impulses are
//!   scratch;
//! - the event log and the report are a history, not a state: nothing a
//!   step computes reads them; the log of a restored stepper starts empty.

use contact_dynamics::TrackedContact;

use super::EventDrivenStepper;
use crate::SimError;

/// What an [`EventDrivenStepper`] carries into its next advance (see the
/// module notes): from [`EventDrivenStepper::memory`], for
/// [`EventDrivenStepper::restore_memory`].
#[derive(Clone, Debug, PartialEq)]
pub struct EventDrivenMemory {
    /// The step Dormand-Prince tries next (s, finite, > 0).
    pub next_step: f64,
    /// Steps in a row that made no progress in time.
    pub stalls: usize,
    /// The resting contacts that slid at the last classification (a stick
    /// is logged when one of them is found static).
    pub sliding: Vec<TrackedContact>,
    /// The sliding contact flagged as indeterminate at the last
    /// classification, if any (logged once while it lasts).
    pub indeterminate: Option<TrackedContact>,
    /// The unknowns of the last contact forces, which the next solves keep
    /// to where the forces are not unique (finite; empty: none).
    pub reference_forces: Vec<f64>,
}

impl EventDrivenMemory {
    /// Checks every field (the contacts were checked when made).
    ///
    /// # Errors
    /// [`SimError::InvalidParameter`] for a step or a force out of range.
    pub fn validate(&self) -> Result<(), SimError> {
        if !(self.next_step.is_finite() && self.next_step > 0.0) {
            return Err(SimError::InvalidParameter {
                name: "next_step",
                value: self.next_step,
            });
        }
        if let Some(&value) = self.reference_forces.iter().find(|x| !x.is_finite()) {
            return Err(SimError::InvalidParameter {
                name: "reference_forces",
                value,
            });
        }
        Ok(())
    }
}

impl EventDrivenStepper {
    /// What the stepper carries into its next advance (see
    /// [`EventDrivenMemory`]): saved with the world, it lets a restored
    /// simulation continue bit for bit.
    #[must_use]
    pub fn memory(&self) -> EventDrivenMemory {
        EventDrivenMemory {
            next_step: self.next_step,
            stalls: self.stalls,
            sliding: self.sliding_before.clone(),
            indeterminate: self.flagged.first().copied(),
            reference_forces: self.acceleration.reference().to_vec(),
        }
    }

    /// Replaces what the stepper carries into its next advance by
    /// `memory`.
    ///
    /// # Errors
    /// As [`EventDrivenMemory::validate`]; the stepper is then unchanged.
    pub fn restore_memory(&mut self, memory: &EventDrivenMemory) -> Result<(), SimError> {
        memory.validate()?;
        self.acceleration
            .restore_reference(&memory.reference_forces)?;
        self.next_step = memory.next_step;
        self.stalls = memory.stalls;
        self.sliding_before.clone_from(&memory.sliding);
        self.flagged.clear();
        self.flagged.extend(memory.indeterminate);
        Ok(())
    }
}
