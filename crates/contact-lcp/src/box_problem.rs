//! The bounded (box, mixed) LCP and its bounds with friction coupling.
//!
//! With `w = M z + q`, each row has bounds `lo_i <= z_i <= hi_i`,
//! `lo_i` in `[-inf, 0]`, `hi_i` in `[0, +inf]`, and
//!
//! ```text
//! z_i = lo_i          =>  w_i >= 0
//! z_i = hi_i          =>  w_i <= 0
//! lo_i < z_i < hi_i   =>  w_i = 0
//! ```
//!
//! (Cline 2002 sec. 2.7.2: the mixed LCP of eq. 2.40 is the case where the
//! equality rows are bilateral, `(-inf, +inf)`.) A plain LCP is `lo = 0`,
//! `hi = +inf`. A friction row `i` may be coupled to the normal row `j` of
//! the same contact: its bounds become `-mu max(z_j, 0) <= z_i <= mu
//! max(z_j, 0)` (a box approximation of the Coulomb cone, per direction),
//! whatever `lo_i`, `hi_i` say.

use faer::{Mat, MatRef};

use crate::error::LcpError;
use crate::problem::{Lcp, check_len};

/// A friction coupling: the bounds of `row` are `[-mu z_n, mu z_n]` with
/// `z_n = max(z[normal_row], 0)`, replacing the row's own `lo`, `hi`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Coupling {
    /// The friction row whose bounds depend on the normal force.
    pub row: usize,
    /// The row of the same contact's normal force; must be a plain
    /// unilateral row (`lo = 0`, `hi = +inf`) that is not coupled itself.
    pub normal_row: usize,
    /// The friction coefficient, finite and `>= 0` (dimensionless).
    pub mu: f64,
}

/// Validated per-row bounds and friction couplings of a box LCP (without
/// the matrix, so a matrix-free solver can use them too).
///
/// Compared as values (a `lo` of `-0.0` equals one of `+0.0`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoxBounds {
    lo: Vec<f64>,
    hi: Vec<f64>,
    couplings: Vec<Coupling>,
    /// For each row, the index into `couplings` that couples it.
    coupled: Vec<Option<usize>>,
}

impl BoxBounds {
    /// Builds and validates the bounds of an `n = lo.len()` row problem.
    ///
    /// # Errors
    ///
    /// - [`LcpError::BadLength`] (`what = "hi"`) if `hi.len() != lo.len()`;
    /// - [`LcpError::InvalidBounds`] for the first row with a NaN bound,
    ///   `lo > 0` or `hi < 0` (infinite bounds are allowed);
    /// - [`LcpError::InvalidCoupling`] for the first bad coupling, with the
    ///   reason (indices out of range, a row coupled to itself or twice, a
    ///   negative or non-finite `mu`, a normal row that is coupled itself or
    ///   is not `[0, +inf]`).
    pub fn new(lo: Vec<f64>, hi: Vec<f64>, couplings: Vec<Coupling>) -> Result<Self, LcpError> {
        let mut bounds = Self {
            lo,
            hi,
            couplings,
            coupled: Vec::new(),
        };
        bounds.index()?;
        Ok(bounds)
    }

    /// Refills the bounds in place: `edit` rewrites `lo`, `hi` and the
    /// couplings (their storage is reused, so rebuilding the bounds of every
    /// time step allocates nothing once warmed up), then they are validated
    /// as by [`new`](Self::new).
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new); the bounds are then left empty (zero rows), so
    /// an invalid state is never observable.
    pub fn rebuild(
        &mut self,
        edit: impl FnOnce(&mut Vec<f64>, &mut Vec<f64>, &mut Vec<Coupling>),
    ) -> Result<(), LcpError> {
        edit(&mut self.lo, &mut self.hi, &mut self.couplings);
        self.index().inspect_err(|_| {
            self.lo.clear();
            self.hi.clear();
            self.couplings.clear();
            self.coupled.clear();
        })
    }

    /// Validates the bounds and fills `coupled` (see [`new`](Self::new)).
    fn index(&mut self) -> Result<(), LcpError> {
        let Self {
            lo,
            hi,
            couplings,
            coupled,
        } = self;
        let n = lo.len();
        check_len("hi", n, hi.len())?;
        for (row, (&l, &h)) in lo.iter().zip(hi.iter()).enumerate() {
            // Written so that NaN fails too.
            if !(l <= 0.0 && h >= 0.0) {
                return Err(LcpError::InvalidBounds { row, lo: l, hi: h });
            }
        }
        coupled.clear();
        coupled.resize(n, None);
        let bad = |k: usize, c: &Coupling, reason| LcpError::InvalidCoupling {
            coupling: k,
            row: c.row,
            normal_row: c.normal_row,
            reason,
        };
        for (k, c) in couplings.iter().enumerate() {
            let reason = if c.row >= n {
                "row out of range"
            } else if c.normal_row >= n {
                "normal row out of range"
            } else if c.row == c.normal_row {
                "row coupled to itself"
            } else if !(c.mu.is_finite() && c.mu >= 0.0) {
                "mu must be finite and >= 0"
            } else if coupled[c.row].is_some() {
                "row coupled twice"
            } else {
                coupled[c.row] = Some(k);
                continue;
            };
            return Err(bad(k, c, reason));
        }
        for (k, c) in couplings.iter().enumerate() {
            if coupled[c.normal_row].is_some() {
                return Err(bad(k, c, "normal row is itself coupled"));
            }
            if lo[c.normal_row] != 0.0 || hi[c.normal_row] != f64::INFINITY {
                return Err(bad(k, c, "normal row must have bounds [0, +inf]"));
            }
        }
        Ok(())
    }

    /// The bounds of a plain LCP: `lo = 0`, `hi = +inf`, no coupling.
    #[must_use]
    pub fn unilateral(n: usize) -> Self {
        Self {
            lo: vec![0.0; n],
            hi: vec![f64::INFINITY; n],
            couplings: Vec::new(),
            coupled: vec![None; n],
        }
    }

    /// Number of rows.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lo.len()
    }

    /// Whether there are no rows.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.lo.is_empty()
    }

    /// The lower bounds as given (coupled rows ignore theirs).
    #[must_use]
    pub fn lo(&self) -> &[f64] {
        &self.lo
    }

    /// The upper bounds as given (coupled rows ignore theirs).
    #[must_use]
    pub fn hi(&self) -> &[f64] {
        &self.hi
    }

    /// The friction couplings, in the order given.
    #[must_use]
    pub fn couplings(&self) -> &[Coupling] {
        &self.couplings
    }

    /// The coupling of `row`, if it is a coupled friction row.
    ///
    /// # Panics
    ///
    /// If `row >= self.len()`.
    #[must_use]
    #[track_caller]
    pub fn coupling_of(&self, row: usize) -> Option<&Coupling> {
        self.coupled[row].map(|k| &self.couplings[k])
    }

    /// Whether these are a plain LCP's bounds: `lo = +0.0` (the bits: `-0.0`
    /// projects differently), `hi = +inf` on every row, no coupling.
    pub(crate) fn is_plain(&self) -> bool {
        self.couplings.is_empty()
            && self.lo.iter().all(|l| l.to_bits() == 0)
            && self.hi.iter().all(|&h| h == f64::INFINITY)
    }

    /// For each row, the index into [`couplings`](Self::couplings) of the
    /// coupling of that row (`None`: not a coupled friction row).
    pub(crate) fn coupled_rows(&self) -> &[Option<usize>] {
        &self.coupled
    }

    /// Projects `z` onto the bounds: the uncoupled rows first (by [`clamp`]),
    /// then the coupled rows onto the bounds of the projected normals, so the
    /// coupling holds exactly at the returned point. Returns whether any
    /// entry changed value (a NaN counts as changed; -0 and +0 as equal).
    pub(crate) fn project(&self, z: &mut [f64]) -> bool {
        let mut moved = false;
        let rows = z.iter_mut().zip(&self.lo).zip(&self.hi).zip(&self.coupled);
        for (((zi, &lo), &hi), coupled) in rows {
            if coupled.is_none() {
                let p = clamp(*zi, lo, hi);
                moved |= p != *zi;
                *zi = p;
            }
        }
        for c in &self.couplings {
            // max/min, not `clamp`: r is NaN for mu = 0 and an infinite
            // normal, and max/min then leave the row as it is.
            let r = c.mu * z[c.normal_row].max(0.0);
            let p = z[c.row].max(-r).min(r);
            moved |= p != z[c.row];
            z[c.row] = p;
        }
        moved
    }

    /// The bounds `(lo, hi)` that row `i` has at the point `z`: its own for
    /// an uncoupled row, `(-mu max(z_j, 0), mu max(z_j, 0))` for a row coupled
    /// to normal row `j`. Always `lo <= 0 <= hi`.
    ///
    /// # Panics
    ///
    /// If `i >= self.len()` or `z` is shorter than the normal row index.
    #[must_use]
    #[track_caller]
    pub fn effective(&self, i: usize, z: &[f64]) -> (f64, f64) {
        match self.coupling_of(i) {
            None => (self.lo[i], self.hi[i]),
            Some(c) => {
                let r = c.mu * z[c.normal_row].max(0.0);
                (-r, r)
            }
        }
    }
}

/// `x` clamped to `[lo, hi]` (`lo <= hi`, neither NaN): `x` itself (its sign
/// of zero kept) when within, `lo` when `x < lo` or `x` is NaN, `hi` when
/// `x > hi`. By two selects, which define the sign of a zero result where
/// `f64::max` and `min` do not.
#[inline(always)]
pub(crate) fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    let at_least_lo = if x >= lo { x } else { lo };
    if at_least_lo > hi { hi } else { at_least_lo }
}

/// A bounded (box, mixed) linear complementarity problem: find `z` with
/// `w = M z + q` and, per row, `lo_i <= z_i <= hi_i`, `w_i >= 0` where
/// `z_i = lo_i`, `w_i <= 0` where `z_i = hi_i`, `w_i = 0` strictly between;
/// optionally with friction couplings (see [`Coupling`]).
///
/// Everything is validated on construction: `M` square and finite, `q` of
/// matching length and finite, and the bounds as in [`BoxBounds::new`].
#[derive(Clone, Debug)]
pub struct BoxLcp {
    lcp: Lcp,
    bounds: BoxBounds,
}

impl BoxLcp {
    /// Builds and validates a box LCP.
    ///
    /// # Errors
    ///
    /// - the errors of [`Lcp::new`] for `m` and `q`;
    /// - [`LcpError::BadLength`] (`what = "lo"`) if `lo.len() != q.len()`;
    /// - the errors of [`BoxBounds::new`].
    pub fn new(
        m: Mat<f64>,
        q: Vec<f64>,
        lo: Vec<f64>,
        hi: Vec<f64>,
        couplings: Vec<Coupling>,
    ) -> Result<Self, LcpError> {
        let lcp = Lcp::new(m, q)?;
        check_len("lo", lcp.dim(), lo.len())?;
        let bounds = BoxBounds::new(lo, hi, couplings)?;
        Ok(Self { lcp, bounds })
    }

    /// Combines a validated matrix and vector with validated bounds.
    ///
    /// # Errors
    ///
    /// [`LcpError::BadLength`] (`what = "bounds"`) if the sizes differ.
    pub fn with_bounds(lcp: Lcp, bounds: BoxBounds) -> Result<Self, LcpError> {
        check_len("bounds", lcp.dim(), bounds.len())?;
        Ok(Self { lcp, bounds })
    }

    /// The plain LCP as a box LCP (`lo = 0`, `hi = +inf`); copies `M`.
    #[must_use]
    pub fn from_lcp(lcp: &Lcp) -> Self {
        Self {
            bounds: BoxBounds::unilateral(lcp.dim()),
            lcp: lcp.clone(),
        }
    }

    /// The dimension `n`.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.lcp.dim()
    }

    /// The matrix `M`.
    #[must_use]
    pub fn m(&self) -> MatRef<'_, f64> {
        self.lcp.m()
    }

    /// The vector `q`.
    #[must_use]
    pub fn q(&self) -> &[f64] {
        self.lcp.q()
    }

    /// The lower bounds as given (coupled rows ignore theirs).
    #[must_use]
    pub fn lo(&self) -> &[f64] {
        self.bounds.lo()
    }

    /// The upper bounds as given (coupled rows ignore theirs).
    #[must_use]
    pub fn hi(&self) -> &[f64] {
        self.bounds.hi()
    }

    /// The friction couplings.
    #[must_use]
    pub fn couplings(&self) -> &[Coupling] {
        self.bounds.couplings()
    }

    /// The bounds and couplings.
    #[must_use]
    pub fn bounds(&self) -> &BoxBounds {
        &self.bounds
    }

    /// The matrix and vector as a plain [`Lcp`] (ignoring the bounds).
    #[must_use]
    pub fn lcp(&self) -> &Lcp {
        &self.lcp
    }

    /// The problem taken apart, so a caller can reuse the storage of the
    /// matrix, the vector and the bounds for the next problem.
    #[must_use]
    pub fn into_parts(self) -> (Lcp, BoxBounds) {
        (self.lcp, self.bounds)
    }

    /// The bounds of row `i` at the point `z`, see [`BoxBounds::effective`].
    ///
    /// # Panics
    ///
    /// If `i >= self.dim()` or `z` is too short.
    #[must_use]
    #[track_caller]
    pub fn effective_bounds(&self, i: usize, z: &[f64]) -> (f64, f64) {
        self.bounds.effective(i, z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INF: f64 = f64::INFINITY;

    #[test]
    fn rebuild_validates_like_new_and_empties_on_error() {
        let mut bounds = BoxBounds::unilateral(2);
        assert!(bounds.is_plain());
        let coupling = |row, normal_row, mu| Coupling {
            row,
            normal_row,
            mu,
        };
        bounds
            .rebuild(|lo, hi, couplings| {
                lo.push(-1.0);
                hi.push(1.0);
                couplings.push(coupling(2, 0, 0.3));
            })
            .unwrap();
        assert_eq!(bounds.len(), 3);
        assert!(!bounds.is_plain(), "a coupled box is not a plain LCP's");
        assert_eq!(bounds.coupling_of(2).map(|c| c.mu), Some(0.3));
        assert_eq!(bounds.effective(2, &[2.0, 0.0, 0.0]), (-0.6, 0.6));
        // A coupling to a row that is not [0, inf] fails as in `new` ...
        let error = bounds
            .rebuild(|_, _, couplings| couplings.push(coupling(0, 1, 0.1)))
            .unwrap_err();
        assert!(
            matches!(error, LcpError::InvalidCoupling { .. }),
            "{error:?}"
        );
        // ... and leaves no half-valid state behind: no rows, which are
        // vacuously a plain LCP's, as the default's.
        assert!(bounds.is_empty() && bounds.couplings().is_empty());
        assert!(bounds.is_plain() && BoxBounds::default().is_plain());
    }

    /// `is_plain` follows the bounds' bits: +0.0 / +inf rows without
    /// coupling; a lower bound of -0.0 projects differently (a negative z
    /// goes to -0.0), so it is not plain, yet the bounds compare equal.
    #[test]
    fn plain_bounds_are_recognised_by_their_bits() {
        let plain = BoxBounds::new(vec![0.0; 3], vec![INF; 3], vec![]).unwrap();
        assert!(plain.is_plain() && plain == BoxBounds::unilateral(3));
        let negative_zero = BoxBounds::new(vec![0.0, -0.0, 0.0], vec![INF; 3], vec![]).unwrap();
        assert!(!negative_zero.is_plain());
        assert_eq!(negative_zero, plain);
        let capped = BoxBounds::new(vec![0.0; 3], vec![INF, 1.0, INF], vec![]).unwrap();
        assert!(!capped.is_plain());
        for (bounds, projected) in [
            (&negative_zero, [0.0, -0.0, 2.0]),
            (&plain, [0.0, 0.0, 2.0]),
        ] {
            let mut z = [-1.0, -1.0, 2.0];
            assert!(bounds.project(&mut z));
            assert_eq!(z.map(f64::to_bits), projected.map(f64::to_bits));
        }
    }
}
