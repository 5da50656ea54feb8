//! Constraint stabilisation (Cline 2002, ch. 3): what removes the position
//! error `g` that integration leaves in joints and contacts.
//!
//! - [`Stabilisation::None`]: nothing; errors grow with time (Cline fig. 5.6).
//! - [`Stabilisation::Baumgarte`]: at velocity level, the row asks for
//!   `J u+ = -alpha g` instead of `J u+ = 0` (Cline sec. 3.2): an error
//!   decays by about `alpha h` per step.
//! - [`Stabilisation::Post`]: after the velocity step and the position
//!   update, a projection moves the positions back onto the constraints
//!   without touching the velocities: the LCP or mixed LCP of Cline eq. 3.7
//!   on the same rows (`post.rs`).
//!
//! A contact's positive gap is never stabilised: it enters as `g / h`, the
//! bodies may close it within the step but not overshoot (Stewart and
//! Trinkle's distance term). Only a violation (`g < 0`) is.

pub(crate) mod post;

use crate::DynamicsError;
use crate::constraints::{PositionCondition, StabilisationGroup};

/// How a group of constraints has its position errors removed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stabilisation {
    /// No stabilisation.
    None,
    /// Baumgarte's term at velocity level: `J u+ = -alpha g`.
    Baumgarte {
        /// Gain `alpha` (1/s, finite, >= 0); `alpha h` is the fraction of an
        /// error removed per step, so keep `alpha h <= 1`. Cline sec. 5.2.1
        /// found 50-200 best for a chain at h = 1 ms.
        alpha: f64,
    },
    /// Post-stabilisation by a position projection (Cline sec. 3.3-3.4).
    Post,
}

impl Stabilisation {
    fn validate(&self, name: &'static str) -> Result<(), DynamicsError> {
        match *self {
            Self::Baumgarte { alpha } if !(alpha.is_finite() && alpha >= 0.0) => {
                Err(DynamicsError::InvalidParameter { name, value: alpha })
            }
            _ => Ok(()),
        }
    }
}

/// Stabilisation settings of a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StabilisationParams {
    /// For joints, their limits and planar locks (default [`Stabilisation::Post`]).
    pub joints: Stabilisation,
    /// For contact penetration (default [`Stabilisation::Post`]).
    pub contacts: Stabilisation,
    /// The projection stops once every error it handles is at most this
    /// (m or rad, > 0; default 1e-10).
    pub projection_tolerance: f64,
    /// At most this many projections per step (>= 1; default 4): each is
    /// one Newton step on the nonlinear constraints (Cline eq. 3.2).
    pub max_projections: usize,
}

impl Default for StabilisationParams {
    fn default() -> Self {
        Self {
            joints: Stabilisation::Post,
            contacts: Stabilisation::Post,
            projection_tolerance: 1e-10,
            max_projections: 4,
        }
    }
}

impl StabilisationParams {
    /// Checks every field's range.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidParameter`] naming the first bad field.
    pub fn validate(&self) -> Result<(), DynamicsError> {
        self.joints.validate("stabilisation.joints.alpha")?;
        self.contacts.validate("stabilisation.contacts.alpha")?;
        if !(self.projection_tolerance.is_finite() && self.projection_tolerance > 0.0) {
            return Err(DynamicsError::InvalidParameter {
                name: "stabilisation.projection_tolerance",
                value: self.projection_tolerance,
            });
        }
        if self.max_projections == 0 {
            return Err(DynamicsError::InvalidParameter {
                name: "stabilisation.max_projections",
                value: 0.0,
            });
        }
        Ok(())
    }

    /// The setting of a group.
    #[must_use]
    pub fn of(&self, group: StabilisationGroup) -> Stabilisation {
        match group {
            StabilisationGroup::Contact => self.contacts,
            StabilisationGroup::Joint => self.joints,
        }
    }

    /// The position term a row adds to `w = J u+ + ...` in a velocity step
    /// of length `h` (see the module comment).
    #[must_use]
    pub fn velocity_term(&self, condition: PositionCondition, h: f64) -> f64 {
        let (error, group) = match condition {
            PositionCondition::None => return 0.0,
            PositionCondition::Equality { error } => (error, StabilisationGroup::Joint),
            PositionCondition::Gap { gap, .. } if gap >= 0.0 => return gap / h,
            PositionCondition::Gap { gap, group } => (gap, group),
        };
        match self.of(group) {
            Stabilisation::None | Stabilisation::Post => 0.0,
            Stabilisation::Baumgarte { alpha } => alpha * error,
        }
    }

    /// Whether a row's error is removed by the projection.
    #[must_use]
    pub fn projects(&self, condition: PositionCondition) -> bool {
        let group = match condition {
            PositionCondition::None => return false,
            PositionCondition::Equality { .. } => StabilisationGroup::Joint,
            PositionCondition::Gap { group, .. } => group,
        };
        self.of(group) == Stabilisation::Post
    }
}
