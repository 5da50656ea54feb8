//! Where a row of a box LCP sits in an answer: the guess block pivoting
//! starts from, and the active set a caller keeps for the next time step.

use crate::box_problem::BoxBounds;
use crate::error::LcpError;
use crate::problem::check_len;
use crate::tuning::ACTIVE_SET_AT_BOUND;

/// Where a row of a box LCP sits: the guess block principal pivoting
/// starts from, and the active set it ends with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RowState {
    /// At the lower bound: `z_i = lo_i`, or `-mu z_j` for a friction row
    /// coupled to normal row `j`; `w_i >= 0`.
    #[default]
    Lower,
    /// At the upper bound: `z_i = hi_i`, or `+mu z_j`; `w_i <= 0`.
    Upper,
    /// Between the bounds: `w_i = 0`.
    Free,
}

/// The active set of a (claimed) solution `z` of a problem with `bounds`:
/// each row at its lower or upper bound (the effective bound of a coupled
/// row, within `1e-12 max(||z||_inf, 1)` for `z` that carries rounding),
/// else free. A row whose two bounds coincide (a friction row whose normal
/// is 0) is put at the bound its `w` points to: lower for `w >= 0`.
///
/// # Errors
///
/// [`LcpError::BadLength`] (`what = "z"` or `"w"`) when `z` or `w` does
/// not have one entry per row of `bounds`; `states` is then left empty.
pub fn active_set_of(
    bounds: &BoxBounds,
    z: &[f64],
    w: &[f64],
    states: &mut Vec<RowState>,
) -> Result<(), LcpError> {
    let n = bounds.len();
    states.clear();
    check_len("z", n, z.len())?;
    check_len("w", n, w.len())?;
    let z_inf = z.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
    let tol = ACTIVE_SET_AT_BOUND * z_inf.max(1.0);
    states.extend((0..n).map(|i| {
        let (lo, hi) = bounds.effective(i, z);
        let at_lo = (z[i] - lo).abs() <= tol;
        let at_hi = (z[i] - hi).abs() <= tol;
        match (at_lo, at_hi) {
            (true, true) if w[i] < 0.0 => RowState::Upper,
            (true, _) => RowState::Lower,
            (false, true) => RowState::Upper,
            (false, false) => RowState::Free,
        }
    }));
    Ok(())
}
