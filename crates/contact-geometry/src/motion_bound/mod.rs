//! Conservative-advancement bounds: how long two bodies can move with
//! their current velocities before their contact state can change
//! (Drumwright 2016, sec. 2.4, 3.1 and 5; Mirtich 1996).
//!
//! - [`mirtich_bound`]: separated bodies, eq. 4.
//! - [`touching_bound`]: touching polytopes, eq. 7-8, the earliest time a
//!   vertex off the separating plane can reach it;
//!   [`touching_bound_adjacent`] the same value from a contact vertex's
//!   neighbours alone where that is proven enough (one contact vertex).
//! - [`ChainMotion`] and [`chain_mirtich_bound`]: a link of a serial
//!   chain in place of a free body, eq. 11-15.
//! - [`second_order_bound`]: for bodies moving with constant twists, each
//!   point's exact approach speed and a bound of its change; never later
//!   than the true time, and much tighter than eq. 4 or eq. 7 for points
//!   barely approaching (a conservative advancement stepper takes the
//!   larger of the valid bounds).
//!
//! Every bound is a time in seconds, `f64::INFINITY` when the motion
//! cannot close the gap, and is conservative: the bodies cannot
//! interpenetrate (or, for eq. 7-8, a new vertex cannot reach the plane)
//! strictly before it.

mod chain;
mod mirtich;
mod second_order;
mod touching;

pub use chain::{ChainJoint, ChainMotion, JointKind, chain_mirtich_bound};
pub use mirtich::{BodyMotion, mirtich_bound};
pub use second_order::{MovingSupport, TwistMotion, second_order_bound};
pub use touching::{TouchingPolytope, tilt_rate, touching_bound, touching_bound_adjacent};
