//! Simultaneous impacts with Newton's restitution and Coulomb friction, as
//! one LCP over the touching contacts (Baraff 1989's impact law; the
//! myPhysicsLab ImpulseSim page resolves collisions the same way, with the
//! elasticity as Newton's coefficient).
//!
//! With `v-` the twists before and `v+ = v- + W J' p` after, each contact
//! asks, on its normal row,
//!
//! ```text
//! w_n = J_n v+ + e min(J_n v-, 0) >= 0,   p_n >= 0,   w_n p_n = 0
//! ```
//!
//! (Newton: an approaching contact leaves at `e` times its approach speed
//! or faster; a contact that was not approaching only may not start to),
//! and on two tangent rows, for a contact with friction,
//! `w_t = J_t v+` box-complementary to `|p_t| <= mu p_n` (the slip stops
//! unless the impulse needed leaves the cone). The first tangent is along
//! the slip before the impact, so a single sliding contact meets its exact
//! Coulomb bound. `J W J'` is symmetric positive semidefinite: the policy's
//! Dantzig solves it, redundant contacts included, and the velocities after
//! are unique even where the impulses are not.
//!
//! The law is Newton's and simultaneous: every touching contact takes part
//! at once. For Newton's cradle of three equal touching balls and `e = 1`
//! it gives `(-1/3, 2/3, 2/3) v` (momentum and energy kept, the last two
//! balls together); with small gaps the collisions come one after the other
//! and give the textbook `(0, 0, v)`.

use contact_lcp::SolverParams;
use contact_math::Twist;
use glam::DVec3;

use super::row_problem::{RowProblem, UnknownBounds};
use crate::friction_cone::tangent_pair;
use crate::{BodyState, ContactConstraint, DynamicsError, JacobianRow};

/// The impulses of one impact.
#[derive(Clone, Debug, Default)]
pub struct ImpactSolution {
    /// Normal impulse of every contact (N s, >= 0), on body b along the normal.
    pub normal_impulses: Vec<f64>,
    /// Friction impulse of every contact on body b (N s, world).
    pub friction_impulses: Vec<DVec3>,
    /// Pivots the LCP solver took.
    pub pivots: usize,
}

/// Solves impact problems; owns its workspace.
#[derive(Debug)]
pub struct ImpactProblem {
    rows: RowProblem,
    /// Per contact: its first tangent unknown and the tangents, if it has
    /// friction.
    tangents: Vec<Option<(usize, DVec3, DVec3)>>,
}

impl ImpactProblem {
    /// A problem whose LCPs are solved with `solver`.
    #[must_use]
    pub fn new(solver: SolverParams) -> Self {
        Self {
            rows: RowProblem::new(solver),
            tangents: Vec::new(),
        }
    }

    /// The impact at `contacts` (each with its restitution; its friction
    /// coefficient, 0 for no tangential rows): `velocities` hold the
    /// twists before on entry and after on return. `bodies` give the
    /// inverse mass blocks and centres.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidContact`] for a bad contact;
    /// [`DynamicsError::Lcp`] when the solvers fail (velocities unchanged).
    pub fn solve(
        &mut self,
        bodies: &[BodyState],
        contacts: &[ContactConstraint],
        velocities: &mut [Twist],
        out: &mut ImpactSolution,
    ) -> Result<(), DynamicsError> {
        for (contact, constraint) in contacts.iter().enumerate() {
            constraint
                .check(bodies.len())
                .map_err(|reason| DynamicsError::InvalidContact { contact, reason })?;
        }
        let rows = &mut self.rows;
        rows.clear();
        self.tangents.clear();
        let row = |c: &ContactConstraint, direction| {
            JacobianRow::relative_velocity(bodies, c.body_a, c.body_b, c.point, direction)
        };
        for c in contacts {
            rows.push_unknown(row(c, c.normal), UnknownBounds::NonNegative);
        }
        for (i, c) in contacts.iter().enumerate() {
            if c.friction == 0.0 {
                self.tangents.push(None);
                continue;
            }
            let relative = velocities[c.body_b].point_velocity(c.point - bodies[c.body_b].centre())
                - velocities[c.body_a].point_velocity(c.point - bodies[c.body_a].centre());
            let slip = relative - c.normal * c.normal.dot(relative);
            let (t1, t2) = if slip.length() > 1e-12 * relative.length().max(1.0) {
                let t1 = slip.normalize();
                (t1, c.normal.cross(t1))
            } else {
                tangent_pair(c.normal)
            };
            let bounds = UnknownBounds::Friction {
                normal: i,
                mu: c.friction,
            };
            let first = rows.push_unknown(row(c, t1), bounds);
            rows.push_unknown(row(c, t2), bounds);
            self.tangents.push(Some((first, t1, t2)));
        }
        rows.assemble(bodies);
        for u in 0..rows.unknowns() {
            rows.offsets[u] = rows.rows[u].apply(|body| velocities[body]);
        }
        for (i, c) in contacts.iter().enumerate() {
            rows.offsets[i] += c.restitution * rows.offsets[i].min(0.0);
        }
        out.normal_impulses.clear();
        out.friction_impulses.clear();
        out.pivots = 0;
        if rows.unknowns() == 0 {
            return Ok(());
        }
        rows.solve(false)?;
        out.pivots = rows.solution.pivots;
        let z = &rows.solution.z;
        for (u, &impulse) in z.iter().enumerate() {
            rows.apply(u, impulse, velocities);
        }
        for (i, tangents) in self.tangents.iter().enumerate() {
            out.normal_impulses.push(z[i]);
            out.friction_impulses.push(match *tangents {
                Some((first, t1, t2)) => z[first] * t1 + z[first + 1] * t2,
                None => DVec3::ZERO,
            });
        }
        Ok(())
    }
}
