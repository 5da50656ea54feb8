//! What one solve of the step problem returns.

use contact_lcp::VerifyReport;
use contact_math::Twist;
use glam::DVec3;

/// The velocities and impulses of one time step.
///
/// Reused from step to step: the stepper clears and refills every vector,
/// so after warm-up nothing is allocated.
#[derive(Clone, Debug, Default)]
pub struct StepSolution {
    /// Twist of every body at the end of the step (zero for fixed bodies),
    /// indexed like the bodies.
    pub velocities: Vec<Twist>,
    /// Normal impulse of every contact (N s, >= 0), indexed like the contacts.
    pub normal_impulses: Vec<f64>,
    /// Friction impulse of every contact (N s), a world vector in the
    /// contact's tangent plane, acting on body `b` (body `a` gets the opposite).
    pub friction_impulses: Vec<DVec3>,
    /// Pivots the LCP solver took.
    pub pivots: usize,
    /// The LCP solver's certificate of its answer.
    pub lcp_report: VerifyReport,
}
