//! Isotropic Coulomb friction from polygonal cones. Both formulations bound
//! a contact's friction by a polygon (the box formulation's square, the
//! LCP's `k`-gon), which reaches the circle `|f_t| <= mu f_n` only along
//! its directions: a box sliding diagonally meets up to sqrt(2) times too
//! much friction or too little, and a block sticks beyond the friction
//! angle on an incline turned 45 degrees to the polygon.
//!
//! Two rules make the cone exact where it binds:
//! - a contact's first tangent is the direction of its relative sliding
//!   velocity in free flight (`J v*`, gravity and forces included), so a
//!   sliding contact's friction, which opposes that velocity, lies along a
//!   direction of the polygon;
//! - after a solve, a sticking contact (no relative tangential velocity at
//!   the end of the step) whose friction leaves the circle (it can only do
//!   so in a corner of the polygon) gets its first tangent along that
//!   friction, and the step is solved again, until every sticking
//!   contact's friction is within the circle to 1e-9 relative (or
//!   `max_friction_passes`). A sliding contact keeps its tangent along the
//!   slip: its friction along the slip is `mu` times its normal impulse,
//!   and what its redundant neighbours (the other corners of a face) share
//!   across the slip sums to what keeps the body from slipping sideways.
//!
//! The first rule costs nothing; the second a solve more in the steps
//! where some contact sticks at the edge of the cone.

use contact_math::Twist;
use glam::DVec3;

use crate::constraints::RowSet;
use crate::friction_cone::tangent_pair;
use crate::{BodyState, ConstraintRef, ContactConstraint};

/// Relative tolerance of `|f_t| <= mu f_n`.
const CONE_TOLERANCE: f64 = 1e-9;

/// Each contact's tangents: along its free-flight sliding velocity where it
/// slides (faster than 1e-12 of the velocities' scale), else the default
/// pair of its normal.
pub(crate) fn sliding_tangents(
    contacts: &[ContactConstraint],
    states: &[BodyState],
    free: &[Twist],
    out: &mut Vec<(DVec3, DVec3)>,
) {
    out.clear();
    out.extend(contacts.iter().map(|contact| {
        let at = |i: usize| {
            let body = &states[i];
            free[i].point_velocity(contact.point - body.centre())
        };
        let (va, vb) = (at(contact.body_a), at(contact.body_b));
        let relative = vb - va;
        let slip = relative - contact.normal * contact.normal.dot(relative);
        let scale = va.length().max(vb.length());
        if slip.length() > 1e-12 * scale && slip.length() > 0.0 {
            let t1 = slip.normalize();
            (t1, contact.normal.cross(t1))
        } else {
            tangent_pair(contact.normal)
        }
    }));
}

/// Turns the first tangent of every sticking contact (tangential relative
/// velocity at the end of the step, `end`, within 1e-9 of the velocities'
/// scale) whose friction impulse (rows of `set`, impulses `impulses`)
/// leaves the circle onto that impulse; whether any was turned.
pub(crate) fn realign(
    contacts: &[ContactConstraint],
    set: &RowSet,
    impulses: &[f64],
    end: &[Twist],
    tangents: &mut [(DVec3, DVec3)],
) -> bool {
    let mut turned = false;
    for owner in set.owners() {
        let ConstraintRef::Contact(c) = owner.constraint else {
            continue;
        };
        let i = owner.rows.start;
        let (normal, f1, f2) = (impulses[i], impulses[i + 1], impulses[i + 2]);
        let friction = f1.hypot(f2);
        let bound = contacts[c].friction * normal;
        let rows = set.rows();
        let slip = |row: usize| rows[row].jacobian.apply(|b| end[b]);
        let scale = rows[i]
            .jacobian
            .blocks()
            .map(|b| end[b.body].linear.length())
            .fold(0.0, f64::max);
        let sticking = slip(i + 1).hypot(slip(i + 2)) <= 1e-9 * scale.max(1e-9);
        if sticking && friction > bound * (1.0 + CONE_TOLERANCE) && friction > 0.0 {
            let (t1, t2) = tangents[c];
            let along = (f1 * t1 + f2 * t2) / friction;
            tangents[c] = (along, contacts[c].normal.cross(along));
            turned = true;
        }
    }
    turned
}
