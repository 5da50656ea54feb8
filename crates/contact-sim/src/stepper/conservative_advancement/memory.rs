//! What conservative advancement carries from one step into the next, for
//! saving a running simulation and continuing it bit for bit.
//!
//! Every field of [`CaStepper`] that outlives a step is here or is
//! recomputed identically from the world and this memory:
//!
//! - `held` (the pairs held touching), `drift` and the velocity step's
//!   memory (`TimeStepping`: pending bounces, warm starts) are saved;
//! - `start`, the pair geometry the next step starts from, is the last
//!   step's end measurement: a function of the world's poses, twists and
//!   shapes (the twists say which pairs the broad phase finds), its
//!   joints, `held` and the cull distance it was measured with, which
//!   is saved (it depends on the state before the step). A restored
//!   stepper measures `start` again with it at the saved state: the same
//!   pairs, bit for bit (the manifold generator holds nothing between calls
//!   that changes a result);
//! - `left` and `left_jointed` say whether `start` is still the world's:
//!   the saved state, for a restored stepper;
//! - every other field is scratch, rebuilt by each step before it is read
//!   (`trial`, `next_held`, `motions`, `jointed`, `contacts`, `touching`,
//!   `start_poses`, `poses`, `twists`, `constrained`, the manifold
//!   generator's and the broad phase's buffers), or the last step's output
//!   (`solution`, `contacts`), which the next step overwrites;
//! - the event log and the statistics are a history, not a state: nothing
//!   a step computes reads them; those of a restored stepper start empty.

use contact_dynamics::StepMemory;

use super::{CaStepper, jointed_pairs};
use crate::{SimError, World};

/// What a [`CaStepper`] carries into its next step (see the module notes):
/// from [`CaStepper::memory`], for [`CaStepper::restore_memory`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaMemory {
    /// The pairs `(a, b)` (`a < b`, strictly increasing) touching at the
    /// end of the last step whose contact points did not separate: they
    /// stay touching within the contact band.
    pub held: Vec<(usize, usize)>,
    /// The second-order sinking of touching contact points per squared
    /// second (m/s^2, finite, >= 0), measured over the last steps.
    pub drift: f64,
    /// The cull distance (m, > 0) the pairs at the world's state were
    /// measured with; `None` when the stepper has not measured this state
    /// (a new stepper, or a world changed since the last step).
    pub cull_distance: Option<f64>,
    /// The velocity step's memory (pending bounces, warm starts).
    pub dynamics: StepMemory,
}

impl CaMemory {
    /// Checks every field.
    ///
    /// # Errors
    /// [`SimError::InvalidMemory`] for a held pair out of order or with
    /// `a >= b`; [`SimError::InvalidParameter`] for a drift or cull distance
    /// out of range; [`SimError::Dynamics`] for a bad dynamics memory.
    pub fn validate(&self) -> Result<(), SimError> {
        if let Some(index) = self.held.iter().position(|&(a, b)| a >= b) {
            return Err(SimError::InvalidMemory {
                field: "held",
                index,
                reason: "a pair is (a, b) with a < b",
            });
        }
        if let Some(index) = self.held.windows(2).position(|w| w[0] >= w[1]) {
            return Err(SimError::InvalidMemory {
                field: "held",
                index: index + 1,
                reason: "pairs must increase strictly",
            });
        }
        if !(self.drift.is_finite() && self.drift >= 0.0) {
            return Err(SimError::InvalidParameter {
                name: "drift",
                value: self.drift,
            });
        }
        if let Some(cull) = self.cull_distance
            && !(cull.is_finite() && cull > 0.0)
        {
            return Err(SimError::InvalidParameter {
                name: "cull_distance",
                value: cull,
            });
        }
        Ok(self.dynamics.validate()?)
    }
}

impl CaStepper {
    /// What the stepper carries into its next step from `world`'s state
    /// (see [`CaMemory`]): saved with the world, it lets a restored
    /// simulation continue bit for bit.
    #[must_use]
    pub fn memory(&self, world: &World) -> CaMemory {
        CaMemory {
            held: self.held.clone(),
            drift: self.drift,
            cull_distance: self.start_cull.filter(|_| self.start_is_current(world)),
            dynamics: self.dynamics.memory(),
        }
    }

    /// Replaces what the stepper carries into its next step by `memory`,
    /// taken by [`memory`](Self::memory) at `world`'s state: with a cull
    /// distance, the pairs are measured at that state as the stepper that
    /// saved it had them, which its next step takes as its start while the
    /// world keeps that state (a world changed before then is measured
    /// afresh, as by the stepper that saved it).
    ///
    /// # Errors
    /// As [`CaMemory::validate`], the stepper then unchanged;
    /// [`SimError::Geometry`] when a pair cannot be measured, or
    /// [`CaError::InitialPenetration`](crate::CaError::InitialPenetration)
    /// when two bodies overlap deeper than the tolerance (no step leaves
    /// them so), the stepper then holding the memory but measuring afresh
    /// at its next step.
    pub fn restore_memory(&mut self, memory: &CaMemory, world: &World) -> Result<(), SimError> {
        memory.validate()?;
        self.dynamics.restore_memory(&memory.dynamics)?;
        self.held.clone_from(&memory.held);
        self.drift = memory.drift;
        self.start_cull = None;
        self.left.clear();
        self.left_jointed.clear();
        if let Some(cull) = memory.cull_distance {
            let bodies = world.bodies();
            jointed_pairs(world, &mut self.jointed);
            self.start_poses.clear();
            self.start_poses.extend(bodies.iter().map(|b| b.pose));
            self.measure_start(world, cull)?;
            self.start_cull = Some(cull);
            self.left
                .extend(bodies.iter().map(|b| (b.pose, b.shape.clone())));
            self.left_jointed.clone_from(&self.jointed);
        }
        Ok(())
    }
}
