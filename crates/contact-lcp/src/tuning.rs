// The tuning constants of the crate's solvers, in one place. Each is a
// dimensionless threshold or a count that the users' settings do not
// cover; what each one trades off is said here, how it was measured is in
// docs/benchmarks.md and the commit that set it. Tolerances a user sets
// (`DantzigParams::pivot_tolerance` and the like) are never replaced by
// these: a constant here only scales or bounds work around them.

// Dantzig (dantzig/).

/// Before the second coupling pass, a friction row starts at the bound
/// that opposes its `w` at the first pass's answer when `|w|` exceeds this
/// times `||q||_inf` (a sticking contact, `w` about 0, keeps its state).
pub(crate) const FRICTION_START_W: f64 = 1e-9;
