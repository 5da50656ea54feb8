//! A certificate for any claimed LCP solution, whatever solver produced it.
//!
//! For `w = M z + q, z >= 0, w >= 0, z'w = 0` the report measures, in max
//! norms, how far `(z, w)` is from each condition, and divides each error by
//! a scale of the problem so one tolerance fits any units:
//! `scale = max(||M||_max ||z||_inf, ||q||_inf)` (of `w`) and
//! `z_scale = max(||z||_inf, scale / ||M||_max)` (of `z`), each replaced by
//! 1 when it is 0. Errors in `w` and the residual are divided by `scale`,
//! errors in `z` by `z_scale`, `max |z_i w_i|` by `z_scale * scale`.
//!
//! The natural residual `max_i |z_i - clamp(z_i - c w_i, lo_i, hi_i)|`, with
//! `c = 1 / ||M||_max` converting `w` to the units of `z` (the quotient
//! `z_scale / scale` where a scale was replaced or `1 / ||M||_max` is not
//! finite), is 0 exactly at a solution; iterative solvers stop on it. It is
//! not part of `scaled_max`. Box problems are certified by
//! [`verify_box`](crate::verify_box), which fills the same report.
//!
//! Where `||M||_max` or a scale lies outside `2^-500..2^500`, products in
//! the problem's units can underflow and hide a wrong answer; there the
//! report is measured on the problem rescaled by powers of two
//! (rescaled_verify.rs).

use crate::problem::Lcp;
use crate::rescaled_verify::{check, in_safe_range};

/// Feasibility and complementarity errors of a candidate solution.
///
/// Raw errors are in the problem's units (at extreme scales, of the problem
/// rescaled by powers of two); judge them by
/// [`scaled_max`](Self::scaled_max) or [`is_solution`](Self::is_solution).
/// A non-finite input or a length mismatch gives infinite errors.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VerifyReport {
    /// `max(0, -z_i)` over `i`: how negative `z` is.
    pub z_violation: f64,
    /// `max(0, -w_i)` over `i`: how negative `w` is.
    pub w_violation: f64,
    /// `max |z_i w_i|` over `i`.
    pub complementarity: f64,
    /// `max |w_i - (M z + q)_i|` over `i`: whether the given `w` belongs to `z`.
    pub residual: f64,
    /// The scale of `w`: `max(||M||_max ||z||_inf, ||q||_inf)`, or 1 if that is 0.
    pub scale: f64,
    /// The natural residual `max_i |z_i - clamp(z_i - c w_i, lo_i, hi_i)|`
    /// (module doc), in the units of `z`.
    pub natural_residual: f64,
    /// The scale of `z`: `max(||z||_inf, scale / ||M||_max)`, or 1 if that is 0.
    pub z_scale: f64,
}

impl VerifyReport {
    /// A report whose every error is infinite (for invalid input).
    #[must_use]
    pub fn infinite() -> Self {
        Self {
            z_violation: f64::INFINITY,
            w_violation: f64::INFINITY,
            complementarity: f64::INFINITY,
            residual: f64::INFINITY,
            natural_residual: f64::INFINITY,
            scale: 1.0,
            z_scale: 1.0,
        }
    }

    /// `z_violation / z_scale`.
    #[must_use]
    pub fn scaled_z_violation(&self) -> f64 {
        self.z_violation / self.z_scale
    }

    /// `w_violation / scale`.
    #[must_use]
    pub fn scaled_w_violation(&self) -> f64 {
        self.w_violation / self.scale
    }

    /// `complementarity / (z_scale * scale)`.
    #[must_use]
    pub fn scaled_complementarity(&self) -> f64 {
        self.complementarity / (self.z_scale * self.scale)
    }

    /// `residual / scale`.
    #[must_use]
    pub fn scaled_residual(&self) -> f64 {
        self.residual / self.scale
    }

    /// `natural_residual / z_scale`: the measure projected Gauss-Seidel stops on.
    #[must_use]
    pub fn scaled_natural_residual(&self) -> f64 {
        self.natural_residual / self.z_scale
    }

    /// The largest scaled error (infinite if any error is NaN or infinite).
    #[must_use]
    pub fn scaled_max(&self) -> f64 {
        let errors = [
            self.scaled_z_violation(),
            self.scaled_w_violation(),
            self.scaled_complementarity(),
            self.scaled_residual(),
        ];
        if errors.iter().any(|e| !e.is_finite()) {
            return f64::INFINITY;
        }
        errors.into_iter().fold(0.0, f64::max)
    }

    /// Whether every scaled error is at most `tol` (a relative tolerance such
    /// as `1e-9`).
    #[must_use]
    pub fn is_solution(&self, tol: f64) -> bool {
        self.scaled_max() <= tol
    }
}

/// Certifies a claimed solution `(z, w)` of `lcp`.
///
/// `w` is checked against `M z + q`, recomputed here (`residual`), and
/// `z >= 0`, `w >= 0`, `z'w = 0` are measured on the given vectors. Never
/// panics: a wrong length, a NaN or an infinity gives infinite errors.
/// Allocates one vector of length n.
#[must_use]
pub fn verify(lcp: &Lcp, z: &[f64], w: &[f64]) -> VerifyReport {
    verify_into(lcp, z, Some(w), &mut Vec::new())
}

/// Certifies `z` alone: `w = M z + q` is computed here, so `residual` is 0.
///
/// Same conventions as [`verify`].
#[must_use]
pub fn verify_z(lcp: &Lcp, z: &[f64]) -> VerifyReport {
    verify_into(lcp, z, None, &mut Vec::new())
}

/// [`verify`] with a caller-owned scratch vector (no allocation once it has
/// capacity n). With `w == None`, `w = M z + q` is used.
pub(crate) fn verify_into(
    lcp: &Lcp,
    z: &[f64],
    w: Option<&[f64]>,
    scratch: &mut Vec<f64>,
) -> VerifyReport {
    let n = lcp.dim();
    let bad = |v: &[f64]| v.len() != n || v.iter().any(|x| !x.is_finite());
    if bad(z) || w.is_some_and(bad) {
        return VerifyReport::infinite();
    }
    scratch.clear();
    scratch.resize(n, 0.0);
    lcp.affine(z, scratch);
    let exact: &[f64] = scratch;
    // M z + q can overflow (or be inf - inf = NaN) for a finite z; the
    // maxima below would pass over a NaN.
    if crate::linalg::lane_scan::max_abs_if_finite(exact).is_none() {
        return VerifyReport::infinite();
    }
    let given = w;
    let w = w.unwrap_or(exact);

    let (scale, z_scale, c) = scales(lcp.m_max_abs(), max_abs(z), lcp.q_max_abs());
    let mut report = VerifyReport {
        scale,
        z_scale,
        ..VerifyReport::default()
    };
    if !in_safe_range(&report, lcp.m_max_abs()) {
        check(&mut report, lcp, None, z, given);
        return report;
    }
    for i in 0..n {
        report.z_violation = report.z_violation.max(-z[i]);
        report.w_violation = report.w_violation.max(-w[i]);
        report.complementarity = report.complementarity.max((z[i] * w[i]).abs());
        report.residual = report.residual.max((w[i] - exact[i]).abs());
        let r = z[i] - (z[i] - c * w[i]).max(0.0);
        report.natural_residual = report.natural_residual.max(r.abs());
    }
    if !(report.residual.is_finite() && report.complementarity.is_finite()) {
        return VerifyReport::infinite();
    }
    report
}

/// The scaled error up to which an exact method (Lemke, Dantzig) returns its
/// answer; above it the solve ends in
/// [`LcpError::NotCertified`](crate::LcpError::NotCertified). Also the
/// policy's default tolerance ([`SolverParams`](crate::SolverParams)).
pub(crate) const ACCEPT: f64 = 1e-9;

/// `Ok` if `out`'s report certifies to [`ACCEPT`], else `NotCertified`
/// carrying `out`: the gate of every exact method's answer.
pub(crate) fn certified(out: &crate::LcpSolution) -> Result<(), crate::LcpError> {
    if out.report.is_solution(ACCEPT) {
        return Ok(());
    }
    Err(crate::LcpError::NotCertified {
        error: out.report.scaled_max(),
        tolerance: ACCEPT,
        best: Some(Box::new(out.clone())),
    })
}

/// `max_i |x_i|` (0 for an empty slice): one scan, in four lanes.
pub(crate) use crate::linalg::lane_scan::max_abs;

/// `(scale, z_scale, c)` from `||M||_max`, `||z||_inf` and `||q||_inf` (module
/// doc): each scale replaced by 1 when it is 0 or not finite; `c = 1 /
/// ||M||_max` where neither was replaced and that is finite (then equal to
/// `z_scale / scale` but for rounding), else `z_scale / scale`. The
/// reciprocal, which does not wait on `z`, spares a solve's last steps a
/// division.
pub(crate) fn scales(m_norm: f64, z_inf: f64, q_inf: f64) -> (f64, f64, f64) {
    let inv_m = 1.0 / m_norm;
    let raw_scale = (m_norm * z_inf).max(q_inf);
    let scale_kept = raw_scale != 0.0 && raw_scale.is_finite();
    let scale = if scale_kept { raw_scale } else { 1.0 };
    let raw_z_scale = if m_norm > 0.0 {
        // An ||M|| below 1 / f64::MAX has no finite reciprocal: divide.
        z_inf.max(if inv_m.is_finite() {
            scale * inv_m
        } else {
            scale / m_norm
        })
    } else {
        z_inf
    };
    let z_scale_kept = raw_z_scale != 0.0 && raw_z_scale.is_finite();
    let z_scale = if z_scale_kept { raw_z_scale } else { 1.0 };
    let c = if scale_kept && z_scale_kept && m_norm > 0.0 && inv_m.is_finite() {
        inv_m
    } else {
        z_scale / scale
    };
    (scale, z_scale, c)
}

#[cfg(test)]
mod tests {
    use super::scales;

    /// The natural residual's factor is `1 / ||M||` where neither scale
    /// was replaced, within a few roundings of `z_scale / scale` (the
    /// definition it stands for); where a scale was replaced, or `||M||`
    /// is 0 or below `1 / f64::MAX`, it is that quotient.
    #[test]
    fn the_natural_factor_is_the_scales_quotient() {
        let mut seed = 0xc0ffee_u64;
        let mut exp10 = || 10f64.powf(20.0 * crate::next_uniform(&mut seed));
        for _ in 0..10_000 {
            let (m_norm, z_inf, q_inf) = (exp10(), exp10(), exp10());
            let (scale, z_scale, c) = scales(m_norm, z_inf, q_inf);
            assert_eq!(c, 1.0 / m_norm);
            let quotient = z_scale / scale;
            assert!(
                (c - quotient).abs() <= 4.0 * f64::EPSILON * quotient,
                "{m_norm} {z_inf} {q_inf}"
            );
        }
        // Replaced scales, ||M|| = 0, a subnormal ||M||.
        for (m_norm, z_inf, q_inf) in [
            (2.0, 0.0, 0.0),
            (1e300, 1e300, 1.0),
            (0.0, 3.0, 2.0),
            (0.0, 0.0, 0.0),
            (1e-310, 1e-10, 1e-300),
        ] {
            let (scale, z_scale, c) = scales(m_norm, z_inf, q_inf);
            assert_eq!(c, z_scale / scale, "{m_norm} {z_inf} {q_inf}");
        }
        // A subnormal ||M|| above 1 / f64::MAX still has its reciprocal.
        let (_, _, c) = scales(1e-308, 1.0, 1e-300);
        assert!(c.is_finite() && c == 1.0 / 1e-308, "{c}");
    }
}
