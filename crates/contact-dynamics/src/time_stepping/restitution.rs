//! Newton's restitution in the fixed-step scheme (Cline 2002, eq. 4.16:
//! a contact's row asks `J u+ >= -e J u-`, the separating speed after an
//! impact `e` times the approach speed before it).
//!
//! With speculative contacts the step in which two bodies meet does not
//! end with them bouncing: its gap term lets them close the gap exactly,
//! and they arrive with the speed that closes it, not with their impact
//! speed. So the impact is recorded where it happens and resolved in the
//! next step:
//!
//! - a contact whose gap the step closed (`g > 0` at its start, `g + h J
//!   u+ = 0` at its end) while its free-flight approach was faster than the
//!   threshold has its impact speed `v` from the kinematics of the step
//!   (constant relative acceleration `a` between the start's approach
//!   `J v` and the free flight's `J v*`: `v^2 = (J v)^2 - 2 a g`), and the
//!   next step's row for the same contact (matched by its key) asks
//!   `J u+ >= e |v|`;
//! - a contact already touching at the start of a step (`g <= 0`) and
//!   approaching faster than the threshold asks `J u+ >= -e J u-` at once.
//!
//! All contacts of an impact are resolved together by the step problem
//! (Newton's law, simultaneous): a cube landing flat rebounds at `e v`
//! without spin. Below the threshold contacts are inelastic, so a body
//! resting on a bouncy floor, which approaches by `h g` each step, stays
//! at rest.

use contact_math::Twist;

use crate::constraints::RowSet;
use crate::{BodyState, ContactConstraint};

/// The bodies' twists over a step: at its start (in their states), in free
/// flight, and at its end.
pub(crate) struct StepTwists<'a> {
    pub(crate) start: &'a [BodyState],
    pub(crate) free: &'a [Twist],
    pub(crate) end: &'a [Twist],
}

/// Impacts waiting for the next step, by contact key, sorted.
#[derive(Clone, Debug, Default)]
pub(crate) struct PendingBounces {
    pending: Vec<(u64, f64)>,
    next: Vec<(u64, f64)>,
}

impl PendingBounces {
    /// The separating speed contact `contact` must reach in this step:
    /// its pending bounce, or its own if it is touching and approaching
    /// faster than `threshold` (0 when neither).
    pub(crate) fn target(&self, contact: &ContactConstraint, approach: f64, threshold: f64) -> f64 {
        if contact.restitution == 0.0 {
            return 0.0;
        }
        let key = contact.key();
        let pending = self
            .pending
            .binary_search_by_key(&key, |&(k, _)| k)
            .map_or(0.0, |i| self.pending[i].1);
        let immediate = if contact.distance <= 0.0 && approach < -threshold {
            -contact.restitution * approach
        } else {
            0.0
        };
        pending.max(immediate)
    }

    /// Records the impacts of a solved step: every contact whose gap the
    /// step closed while approaching faster than `threshold`.
    pub(crate) fn record(
        &mut self,
        contacts: &[ContactConstraint],
        set: &RowSet,
        twists: &StepTwists<'_>,
        h: f64,
        threshold: f64,
    ) {
        self.next.clear();
        let rows = set.rows();
        for owner in set.owners() {
            let crate::ConstraintRef::Contact(c) = owner.constraint else {
                continue;
            };
            let contact = &contacts[c];
            let g = contact.distance;
            if contact.restitution == 0.0 || g <= 0.0 {
                continue;
            }
            let jacobian = &rows[owner.rows.start].jacobian;
            let start = jacobian.apply(|b| twists.start[b].twist);
            let free_flight = jacobian.apply(|b| twists.free[b]);
            let end = jacobian.apply(|b| twists.end[b]);
            let closed = g + h * end <= 1e-9 * g.max(h * free_flight.abs());
            if free_flight < -threshold && closed {
                let acceleration = (free_flight - start) / h;
                let speed = (start * start - 2.0 * acceleration * g).max(0.0).sqrt();
                self.next.push((contact.key(), contact.restitution * speed));
            }
        }
        self.next.sort_unstable_by_key(|&(k, _)| k);
        std::mem::swap(&mut self.pending, &mut self.next);
    }
}
