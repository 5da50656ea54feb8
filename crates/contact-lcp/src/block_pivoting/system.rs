// What block principal pivoting asks of a matrix: the product M z + q, and
// the factor and solve of the system a guessed active set defines
// (active_set.rs). Implemented on a dense M (dense_system.rs) and on a
// sparse one (sparse_system.rs); the pivoting itself (pivoting.rs) is the
// same for both.

use super::active_set::ActiveSet;
use crate::box_problem::BoxBounds;

/// The guessed block could not be factored (a zero or non-finite pivot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Singular;

/// A box LCP and the linear algebra of its guessed systems.
pub(super) trait StepSystem {
    /// The dimension `n`.
    fn dim(&self) -> usize;
    /// The bounds and couplings.
    fn bounds(&self) -> &BoxBounds;
    /// `||M||_max`.
    fn m_max_abs(&self) -> f64;
    /// `||q||_inf`.
    fn q_max_abs(&self) -> f64;
    /// `out = M z + q` (both of length `n`).
    fn affine(&self, z: &[f64], out: &mut [f64]);
    /// Readies the workspace for this problem before the first factor;
    /// returns the number of symbolic factorisations it made (0 or 1).
    fn prepare(&mut self) -> usize;
    /// Forms and factors `E_FF + shift I` of the guess (F its free rows,
    /// E = M with the folded friction columns).
    fn factor(&mut self, set: &ActiveSet, shift: f64) -> Result<(), Singular>;
    /// Solves with the last factor: `rhs` (length `n`) holds the right-hand
    /// side at the free rows and receives the solution there; its other
    /// entries are scratch.
    fn solve(&mut self, set: &ActiveSet, rhs: &mut [f64]);
}
