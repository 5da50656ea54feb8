//! What one step returns.

use contact_lcp::VerifyReport;
use contact_math::{Pose, Twist};
use glam::DVec3;

use crate::constraints::{RowOwner, RowSet};
use crate::{JointReaction, ProjectionReport};

/// The velocities, poses, impulses and reactions of one time step.
///
/// Reused from step to step: the stepper clears and refills every vector,
/// so after warm-up nothing is allocated.
#[derive(Clone, Debug, Default)]
pub struct StepSolution {
    /// Twist of every body at the end of the step (zero for fixed bodies),
    /// indexed like the bodies.
    pub velocities: Vec<Twist>,
    /// Pose of every body at the end of the step (after stabilisation).
    pub poses: Vec<Pose>,
    /// Normal impulse of every contact (N s, >= 0), indexed like the contacts.
    pub normal_impulses: Vec<f64>,
    /// Friction impulse of every contact (N s), a world vector in the
    /// contact's tangent plane, acting on body `b` (body `a` gets the opposite).
    pub friction_impulses: Vec<DVec3>,
    /// Reaction of every joint (force and torque on its body b), indexed
    /// like the joints.
    pub joint_reactions: Vec<JointReaction>,
    /// The step's constraint rows and who owns them.
    pub rows: RowSet,
    /// The impulse of every row (N s or N m s), indexed like `rows`.
    pub row_impulses: Vec<f64>,
    /// Pivots the LCP solver took.
    pub pivots: usize,
    /// The LCP solver's certificate of its answer.
    pub lcp_report: VerifyReport,
    /// What post-stabilisation did.
    pub projection: ProjectionReport,
}

impl StepSolution {
    /// The rows and impulses of one constraint.
    #[must_use]
    pub fn impulses_of(&self, owner: &RowOwner) -> &[f64] {
        &self.row_impulses[owner.rows.clone()]
    }
}
