//! The certificate at extreme scales.
//!
//! [`verify`](crate::verify) and [`verify_box`](crate::verify_box) compute
//! their measures in f64 in the problem's units. That is exact enough
//! while `||M||_max` and the two scales (of `w` and of `z`) lie within
//! `2^-SAFE_EXPONENT..2^SAFE_EXPONENT`: an underflowing product `M_ij z_j`
//! then errs by at most the least subnormal, far below `1e-16` of the
//! scale, and no product of scales overflows. Outside that range a product
//! that underflows can hide a wrong answer (`M = [[5e-324]]`, `q = -M`:
//! `z = 1.4` has `M z + q = 0` in f64, while the solution is `z = 1`), and
//! a scale that underflows makes the scaled errors meaningless.
//!
//! There the report is computed on the problem rescaled by powers of two,
//! which is exact and changes no solution: `M` by `alpha`, `z` by `beta`,
//! `q` and `w` by `alpha beta`, chosen so that `||M||` and the scale of `w`
//! are about 1. Every scaled measure is invariant under this rescaling;
//! the raw errors and the two scales of the report are those of the
//! rescaled problem (not of the problem's units). The conditions on `w`
//! are judged on `M z + q` computed in the rescaled units, beyond what the
//! rounding of z makes: a subnormal `z_j` is only known to half the least
//! subnormal, so `|w_i|` up to `n ||M||` times that counts as 0 (at `M =
//! [[1.001]]`, `q = -8.5e-319` no representable z makes `M z + q` smaller
//! than 1e-6 of `q`). The residual field measures how far a given `w`, in
//! the problem's units, is from `M z + q` beyond its own rounding (`n + 2`
//! least subnormals).

use crate::box_problem::BoxBounds;
use crate::linalg::lane_scan::max_abs;
use crate::problem::Lcp;
use crate::verify::{VerifyReport, scales};

/// `||M||_max` and the scales of a report within `2^-SAFE_EXPONENT ..=
/// 2^SAFE_EXPONENT` are measured in the problem's units; outside, on the
/// rescaled problem. At `2^-500` a product's underflow (`2^-1074`) is
/// `2^-574` of the scale; the product of two scales stays below `2^1000`.
const SAFE_EXPONENT: i32 = 500;

/// Whether a report with these scales, of a problem with this
/// `||M||_max`, is measured exactly enough in the problem's units. By the
/// exponent bits, without branches: `x` (positive) is within `2^-500
/// ..= 2^500` exactly when its biased exponent is within `523 ..= 1523`
/// (the finishing of a tiny solve makes this test on every answer).
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
    while k > 1000 {
        x *= 2f64.powi(1000);
        k -= 1000;
    }
    while k < -1000 {
        x *= 2f64.powi(-1000);
        k += 1000;
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
    let mut e_w = None::<i32>;
    if m_norm > 0.0 && z_inf > 0.0 {
        e_w = Some(e_m + exponent(z_inf));
    }
    if q_max > 0.0 {
        let e = exponent(q_max);
        e_w = Some(e_w.map_or(e, |x| x.max(e)));
    }
    // With a zero scale of w nothing underflows: w = q = 0 wherever z or M
    // is 0. Measure in the problem's units (scaling z alone).
    let e_w = e_w.unwrap_or(e_m);
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
    // given w (n + 2 least subnormals), and the w that the rounding of z
    // makes (each z_j is off by up to eps |z_j| or, subnormal, half the
    // least subnormal: each row by up to n ||M|| (eps ||z|| + 2^-1074),
    // computed from the rescaled factors, as it may underflow). The true
    // w is judged only beyond the latter.
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

#[cfg(test)]
mod tests {
    use crate::box_problem::BoxLcp;
    use crate::verify::{verify, verify_z};
    use crate::{Lcp, verify_box, verify_box_z};

    /// `M = [[5e-324]]`, `q = -M`: the solution is `z = 1`. `z = 1.4` has
    /// `M z + q = 0` in f64 (one least subnormal times 1.4 rounds to one),
    /// but not in truth: it is no certificate.
    #[test]
    fn subnormal_products_do_not_certify_a_wrong_z() {
        let lcp = Lcp::from_row_major(1, &[5e-324], &[-5e-324]).unwrap();
        assert!(verify_z(&lcp, &[1.0]).is_solution(1e-15));
        let wrong = verify(&lcp, &[1.4], &[0.0]);
        assert!(!wrong.is_solution(0.1), "{wrong:?}");
        let p = BoxLcp::from_lcp(&lcp);
        assert!(verify_box_z(&p, &[1.0]).is_solution(1e-15));
        assert!(!verify_box(&p, &[1.4], &[0.0]).is_solution(0.1));
    }

    /// `M = diag(1e-190)`, `q = -M 1`: `z = (0, 1)` leaves `w_0 = -q_0`,
    /// a sign violation of the whole scale; `z = (1, 1)` is the solution.
    /// The scaled measures are those of the same problem at unit scale.
    #[test]
    fn tiny_problems_are_judged_as_at_unit_scale() {
        let tiny = Lcp::from_row_major(2, &[1e-190, 0.0, 0.0, 1e-190], &[-1e-190; 2]).unwrap();
        let unit = Lcp::from_row_major(2, &[1.0, 0.0, 0.0, 1.0], &[-1.0; 2]).unwrap();
        assert!(verify_z(&tiny, &[1.0, 1.0]).is_solution(1e-15));
        for z in [[0.0, 1.0], [0.5, 1.0], [2.0, 0.0]] {
            let (a, b) = (verify_z(&tiny, &z), verify_z(&unit, &z));
            assert!(
                (a.scaled_max() - b.scaled_max()).abs() <= 1e-15 * b.scaled_max(),
                "{z:?}: {a:?} against {b:?}"
            );
            assert!(!a.is_solution(1e-3));
        }
    }

    /// `M = [[1.001]]`, `q = -8.5428e-319` (a stiff spring's projection
    /// step): the solution is not representable to better than 6e-6 of
    /// itself, and the nearest z certifies; a z one percent off does not.
    #[test]
    fn the_rounding_of_a_subnormal_z_is_allowed() {
        let lcp = Lcp::from_row_major(1, &[1.001], &[-8.5428e-319]).unwrap();
        let p = BoxLcp::new(
            crate::faer::mat![[1.001]],
            vec![-8.5428e-319],
            vec![f64::NEG_INFINITY],
            vec![f64::INFINITY],
            vec![],
        )
        .unwrap();
        let z = 8.5428e-319 / 1.001;
        assert!(verify_box_z(&p, &[z]).is_solution(1e-12));
        assert!(!verify_box_z(&p, &[z * 1.01]).is_solution(1e-3));
        assert!(verify_z(&lcp, &[z]).is_solution(1e-12));
    }

    /// A huge scale too: `M = 1e300 I`, `q = -1e300 (1, 2)`.
    #[test]
    fn huge_problems_are_judged_as_at_unit_scale() {
        let huge = Lcp::from_row_major(2, &[1e300, 0.0, 0.0, 1e300], &[-1e300, -2e300]).unwrap();
        assert!(verify_z(&huge, &[1.0, 2.0]).is_solution(1e-15));
        let r = verify_z(&huge, &[1.0, 1.0]);
        assert!((r.scaled_max() - 0.5).abs() < 1e-15, "{r:?}");
    }

    /// Bounds and a friction coupling at a subnormal scale: the normal
    /// `z_0 = 2` at rest (w_0 = 0), the friction row at its bound
    /// `mu z_0 = 1` with `w_1 < 0`.
    #[test]
    fn box_problems_at_subnormal_scale() {
        let s = 1e-320;
        let m = crate::faer::mat![[s, 0.0], [0.0, s]];
        let inf = f64::INFINITY;
        let coupling = crate::Coupling {
            row: 1,
            normal_row: 0,
            mu: 0.5,
        };
        let p = BoxLcp::new(
            m,
            vec![-2.0 * s, -3.0 * s],
            vec![0.0, -inf],
            vec![inf; 2],
            vec![coupling],
        )
        .unwrap();
        assert!(verify_box_z(&p, &[2.0, 1.0]).is_solution(1e-12));
        // Off the bound, and beyond it.
        assert!(!verify_box_z(&p, &[2.0, 0.9]).is_solution(1e-3));
        assert!(!verify_box_z(&p, &[2.0, 1.2]).is_solution(1e-3));
    }
}
