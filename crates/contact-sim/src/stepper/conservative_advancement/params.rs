//! Settings of the conservative-advancement stepper and the errors only it
//! reports.

use contact_dynamics::TimeSteppingParams;

use crate::SimError;

/// Settings of [`CaStepper`](crate::CaStepper).
#[derive(Clone, Copy, Debug)]
pub struct CaParams {
    /// The longest step (s, finite, > 0; default 0.01, the nominal step of
    /// Drumwright's chain experiment): taken when no pair limits the step.
    pub max_step: f64,
    /// The shortest step (s, finite, > 0, <= `max_step`; default 1e-10).
    /// When a pair's safe bound is shorter, the step is this long, the
    /// pair's nearby points enter the step problem (their gap rows keep it
    /// from penetrating) and an [`CaEventKind::MinimumStep`](crate::CaEventKind::MinimumStep)
    /// event says which pair and why. A step this short that still cannot
    /// keep the guarantee is [`CaError::CannotAdvance`].
    pub min_step: f64,
    /// Distance (m, finite, > 0; default 1e-9) within which two bodies
    /// touch: their contact manifold is the points within this distance,
    /// the separating-plane bound (Drumwright eq. 7-8) replaces Mirtich's
    /// (eq. 4), and approach steps aim to land the pair half of it apart.
    pub touch_distance: f64,
    /// Within this distance (m, finite, >= `touch_distance`; default 1e-6)
    /// of a touching pair's deepest point, its points are its contact:
    /// they enter the step problem (their gap rows keep them from
    /// penetrating), the bounds leave them out, and the pair's features are
    /// named with it. Nearly parallel features (an edge tilted a few
    /// microradians from a face) then count as resting on each other
    /// instead of as a vertex about to land, which would take steps of
    /// nanoseconds.
    pub contact_band: f64,
    /// The guarantee (m, finite, > 0; default 1e-9): after every step the
    /// signed distance of every pair is at least `-penetration_tolerance`.
    /// A step that would break it is retried shorter.
    pub penetration_tolerance: f64,
    /// Settings of the velocity-level step taken with the chosen length.
    pub dynamics: TimeSteppingParams,
}

impl Default for CaParams {
    fn default() -> Self {
        Self {
            max_step: 0.01,
            min_step: 1e-10,
            touch_distance: 1e-9,
            contact_band: 1e-6,
            penetration_tolerance: 1e-9,
            dynamics: TimeSteppingParams::default(),
        }
    }
}

impl CaParams {
    /// Checks every field's range.
    ///
    /// # Errors
    /// [`SimError::InvalidParameter`] naming the first field that is not
    /// finite and positive, or `contact_band` below `touch_distance`; [`CaError::InvalidStepRange`] when `min_step >
    /// max_step`; [`SimError::Dynamics`] for a bad dynamics setting.
    pub fn validate(&self) -> Result<(), SimError> {
        for (name, value) in [
            ("max_step", self.max_step),
            ("min_step", self.min_step),
            ("touch_distance", self.touch_distance),
            ("contact_band", self.contact_band),
            ("penetration_tolerance", self.penetration_tolerance),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(SimError::InvalidParameter { name, value });
            }
        }
        if self.contact_band < self.touch_distance {
            return Err(SimError::InvalidParameter {
                name: "contact_band",
                value: self.contact_band,
            });
        }
        if self.min_step > self.max_step {
            return Err(CaError::InvalidStepRange {
                min_step: self.min_step,
                max_step: self.max_step,
            }
            .into());
        }
        self.dynamics.validate()?;
        Ok(())
    }
}

/// What stops conservative advancement.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CaError {
    /// `min_step` exceeds `max_step`.
    #[error("min_step = {min_step} s exceeds max_step = {max_step} s")]
    InvalidStepRange {
        /// The minimum step (s).
        min_step: f64,
        /// The maximum step (s).
        max_step: f64,
    },
    /// The world already breaks the guarantee before the step: two bodies
    /// overlap deeper than the penetration tolerance.
    #[error(
        "bodies {body_a} and {body_b} start at signed distance {distance:e} m, \
         deeper than the tolerance -{tolerance:e} m: conservative advancement \
         needs a state without interpenetration"
    )]
    InitialPenetration {
        /// First body of the pair.
        body_a: usize,
        /// Second body of the pair.
        body_b: usize,
        /// Their signed distance (m).
        distance: f64,
        /// The penetration tolerance (m).
        tolerance: f64,
    },
    /// Even a step of `min_step` takes a pair deeper than the tolerance: the
    /// stepper cannot advance without breaking its guarantee. The world is
    /// left as it was. The usual cause is the second-order sinking of the
    /// contact points of a fast-turning body (which grows with the square
    /// of the step), a minimum step too long for it.
    #[error(
        "cannot advance at t = {time} s: a minimum step of {min_step:e} s takes bodies \
         {body_a} and {body_b} to signed distance {distance:e} m, deeper than the \
         tolerance (their least safe bound was {bound:e} s); the contact points of a \
         turning body sink with the square of the step: a shorter min_step or a larger \
         penetration_tolerance lets it advance"
    )]
    CannotAdvance {
        /// Simulated time at the start of the step (s).
        time: f64,
        /// First body of the deepest pair.
        body_a: usize,
        /// Second body of the deepest pair.
        body_b: usize,
        /// The pair's signed distance after the step (m).
        distance: f64,
        /// The pair's safe bound at the start of the step (s).
        bound: f64,
        /// The minimum step (s).
        min_step: f64,
    },
}
