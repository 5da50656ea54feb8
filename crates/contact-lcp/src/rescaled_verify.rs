//! The certificate at extreme scales.
//!
//! [`verify`](crate::verify) and [`verify_box`](crate::verify_box) measure in
//! f64 in the problem's units, exact enough while `||M||_max` and the scales
//! of `w` and `z` lie within `2^-SAFE_EXPONENT..2^SAFE_EXPONENT`. Outside,
//! an underflowing product can hide a wrong answer (`M = [[5e-324]]`, `q =
//! -M`: `z = 1.4` has `M z + q = 0` in f64, the solution is `z = 1`) and an
//! underflowing scale makes the scaled errors meaningless.
//!
//! There the report is computed on the problem rescaled by powers of two
//! (exact; no solution changes): `M` by `alpha`, `z` by `beta`, `q` and `w`
//! by `alpha beta`, so that `||M||` and the scale of `w` are about 1. Every
//! scaled measure is invariant; the raw errors and scales are those of the
//! rescaled problem. The conditions on `w` are judged on `M z + q` beyond
//! what the rounding of `z` makes (a subnormal `z_j` is known to half the
//! least subnormal, so `|w_i|` up to `n ||M||` times that counts as 0); the
//! residual, beyond the rounding of the given `w` (`n + 2` least
//! subnormals).

use crate::box_problem::BoxBounds;
use crate::linalg::lane_scan::max_abs;
use crate::problem::Lcp;
use crate::verify::{VerifyReport, scales};

/// At `2^-500` a product's underflow (`2^-1074`) is `2^-574` of the scale;
/// the product of two scales stays below `2^1000`.
const SAFE_EXPONENT: i32 = 500;

/// Whether a report with these scales, of a problem with this `||M||_max`,
/// is measured exactly enough in the problem's units. By the exponent bits,
/// without branches (every answer is tested).
#[inline(always)]
pub(crate) fn in_safe_range(report: &VerifyReport, m_norm: f64) -> bool {
    const LOW: u64 = (1023 - SAFE_EXPONENT) as u64;
    let safe = |x: f64| (x.to_bits() >> 52).wrapping_sub(LOW) <= 2 * SAFE_EXPONENT as u64;
    // ||M|| = 0 has nothing to underflow (w = q).
    safe(report.scale) & safe(report.z_scale) & (safe(m_norm) | (m_norm == 0.0))
}

/// Leaves `report` as it is when [`in_safe_range`] (or infinite), else
/// replaces it by the report of `(z, w)` measured on the rescaled problem
/// (see the module doc; `w = None` means `M z + q`). `bounds = None` is a
/// plain LCP. Allocates two vectors of length n in the rescaled case.
#[inline(always)]
pub(crate) fn check(
    report: &mut VerifyReport,
    lcp: &Lcp,
    bounds: Option<&BoxBounds>,
    z: &[f64],
    w: Option<&[f64]>,
) {
    if !in_safe_range(report, lcp.m_max_abs()) && *report != VerifyReport::infinite() {
        *report = rescaled_report(lcp, bounds, z, w);
    }
}

/// `x * 2^k` for any `k` (in steps, so no factor overflows; exact unless
/// the result is subnormal).
fn times_pow2(mut x: f64, mut k: i32) -> f64 {
    while k.abs() > 1000 {
        let step = 1000 * k.signum();
        x *= 2f64.powi(step);
        k -= step;
    }
    x * 2f64.powi(k)
}

/// `floor(log2 x)` for `x > 0`, subnormals included (within one either
/// way: only a rough normalisation is needed).
fn exponent(x: f64) -> i32 {
    x.log2().floor() as i32
}

/// The report of `(z, w)` on the problem rescaled so that `||M||` and the
/// scale of `w` are about 1 (module doc).
#[cold]
fn rescaled_report(
    lcp: &Lcp,
    bounds: Option<&BoxBounds>,
    z: &[f64],
    w: Option<&[f64]>,
) -> VerifyReport {
    let n = lcp.dim();
    let (m_norm, q_max, z_inf) = (lcp.m_max_abs(), lcp.q_max_abs(), max_abs(z));
    let e_m = if m_norm > 0.0 { exponent(m_norm) } else { 0 };
    let e_mz = (m_norm > 0.0 && z_inf > 0.0).then(|| e_m + exponent(z_inf));
    let e_q = (q_max > 0.0).then(|| exponent(q_max));
    // With a zero scale of w nothing underflows (w = q = 0 wherever z or M
    // is 0): scale z alone.
    let e_w = e_mz.max(e_q).unwrap_or(e_m);
    // alpha = 2^ka, beta = 2^kb, alpha beta = 2^kw.
    let (ka, kb, kw) = (-e_m, e_m - e_w, -e_w);
    let zs: Vec<f64> = z.iter().map(|&x| times_pow2(x, kb)).collect();
    let mut exact: Vec<f64> = lcp.q().iter().map(|&x| times_pow2(x, kw)).collect();
    for (j, &zj) in zs.iter().enumerate() {
        if zj != 0.0 {
            for (e, &m) in exact.iter_mut().zip(lcp.col(j)) {
                *e += times_pow2(m, ka) * zj;
            }
        }
    }
    if exact.iter().any(|x| !x.is_finite()) {
        return VerifyReport::infinite();
    }
    // What the problem's units cannot resolve, rescaled: the rounding of a
    // given w, and the w that the rounding of z makes (each row up to n
    // ||M|| (eps ||z|| + 2^-1074), from the rescaled factors).
    let tiny = f64::from_bits(1);
    let allowance = times_pow2((n as f64 + 2.0) * tiny, kw);
    let z_rounding = times_pow2(f64::EPSILON * z_inf, kb) + times_pow2(tiny, kb);
    let w_allowance = n as f64 * times_pow2(m_norm, ka) * z_rounding;
    let residual = w.map_or(0.0, |w| {
        w.iter().zip(&exact).fold(0.0_f64, |acc, (&wi, &ei)| {
            let d = ((times_pow2(wi, kw) - ei).abs() - allowance).max(0.0);
            if d > acc || d.is_nan() { d } else { acc }
        })
    });
    let (scale, z_scale, c) = scales(times_pow2(m_norm, ka), max_abs(&zs), times_pow2(q_max, kw));
    let z_cap = z_scale.max(max_abs(&zs));
    let mut r = VerifyReport {
        scale,
        z_scale,
        residual,
        ..VerifyReport::default()
    };
    for i in 0..n {
        let (lo, hi) = match bounds {
            Some(b) => b.effective(i, z),
            None => (0.0, f64::INFINITY),
        };
        // Differences in the problem's units (exact up to one rounding),
        // then rescaled: a huge bound stays finite.
        let (zi, wi) = (z[i], exact[i]);
        let wi = wi.signum() * (wi.abs() - w_allowance).max(0.0);
        let violation = (lo - zi).max(zi - hi).max(0.0);
        r.z_violation = r.z_violation.max(times_pow2(violation, kb));
        let (wp, wm) = (wi.max(0.0), (-wi).max(0.0));
        // Distances to a bound count up to the scale of z (box_verify.rs).
        let distance = |d: f64| times_pow2(d, kb).min(z_cap);
        if hi == f64::INFINITY {
            r.w_violation = r.w_violation.max(wm);
        } else if wm > 0.0 {
            r.complementarity = r.complementarity.max(wm * distance((hi - zi).abs()));
        }
        if lo == f64::NEG_INFINITY {
            r.w_violation = r.w_violation.max(wp);
        } else if wp > 0.0 {
            r.complementarity = r.complementarity.max(wp * distance((zi - lo).abs()));
        }
        let step = zs[i] - c * wi;
        let clamped = step.max(times_pow2(lo, kb)).min(times_pow2(hi, kb));
        r.natural_residual = r.natural_residual.max((zs[i] - clamped).abs());
    }
    if !(r.residual.is_finite() && r.complementarity.is_finite() && r.natural_residual.is_finite())
    {
        return VerifyReport::infinite();
    }
    r
}
