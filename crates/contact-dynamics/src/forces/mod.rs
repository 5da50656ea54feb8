//! Applied forces: persistent force elements (a force at a body point, a
//! spring-damper), evaluated each step; body damping lives on the body
//! (`RigidBody::with_damping`) and one-off loads in its accumulators
//! (`RigidBody::apply_force_at_point`).
//!
//! A force element acts explicitly (its force at the start of the step
//! enters the free-flight velocity) or, for a spring taken implicitly,
//! through constraint rows with compliance (`spring.rs`): the linearly
//! implicit step of Cline 2002, sec. 2.7.4.

mod point_force;
mod profile;
mod spring;

pub use point_force::{ForceFrame, PointForce};
pub use profile::Profile;
pub use spring::{Attachment, Spring};

use contact_math::Wrench;

use crate::{BodyState, DynamicsError, RigidBody};

/// A persistent force element.
#[derive(Clone, Debug, PartialEq)]
pub enum ForceElement {
    /// A force at a body point.
    PointForce(PointForce),
    /// A linear spring-damper between two points.
    Spring(Spring),
}

impl ForceElement {
    /// Checks the element against a world of `bodies`; `index` names it.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidForce`] naming the field.
    pub fn validate(&self, index: usize, bodies: &[RigidBody]) -> Result<(), DynamicsError> {
        let checked = match self {
            Self::PointForce(force) => force.check(bodies),
            Self::Spring(spring) => spring.check(bodies),
        };
        checked.map_err(|(field, reason)| DynamicsError::InvalidForce {
            element: index,
            field,
            reason,
        })
    }

    /// [`ForceElement::validate`], and for a new spring that its ends do not
    /// coincide when its rest length is zero (its direction would be
    /// undefined).
    ///
    /// # Errors
    /// As [`ForceElement::validate`].
    pub fn validate_new(&self, index: usize, bodies: &[RigidBody]) -> Result<(), DynamicsError> {
        self.validate(index, bodies)?;
        if let Self::Spring(spring) = self {
            spring
                .check_ends(bodies)
                .map_err(|(field, reason)| DynamicsError::InvalidForce {
                    element: index,
                    field,
                    reason,
                })?;
        }
        Ok(())
    }

    /// Adds the element's explicit wrenches (about each centre of mass) at
    /// time `time` to `wrenches`, indexed like `bodies`.
    pub(crate) fn add_explicit(&self, bodies: &[BodyState], time: f64, wrenches: &mut [Wrench]) {
        match self {
            Self::PointForce(force) => force.add_to(bodies, time, wrenches),
            Self::Spring(spring) if !spring.implicit => spring.add_to(bodies, wrenches),
            Self::Spring(_) => {}
        }
    }

    /// Adds the element's wrenches as forces, every spring included
    /// (acceleration-level dynamics has no implicit step).
    pub(crate) fn add_as_force(&self, bodies: &[BodyState], time: f64, wrenches: &mut [Wrench]) {
        match self {
            Self::PointForce(force) => force.add_to(bodies, time, wrenches),
            Self::Spring(spring) => spring.add_to(bodies, wrenches),
        }
    }

    /// The spring taken implicitly, if this element is one.
    pub(crate) fn implicit_spring(&self) -> Option<&Spring> {
        match self {
            Self::Spring(spring) if spring.implicit => Some(spring),
            _ => None,
        }
    }
}
