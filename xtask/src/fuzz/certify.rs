//! The fuzz's own certificate of an answer, written apart from the crate's
//! (`contact_lcp::verify`, `verify_box`) so that a flaw in one is not
//! hidden by the same flaw in the other.
//!
//! It measures what the crate's certificate documents (docs of
//! `contact_lcp::VerifyReport` and `verify_box`), but on the true
//! `w = M z + q`, not on floating-point products that underflow: the
//! problem is first rescaled by powers of two (exact), `M` by `alpha`, `z`
//! by `beta`, `q` and `w` by `alpha beta`, so that `||M||` and the scale
//! of `w` are near 1, and `M z + q` is summed with compensated products
//! and sums (Ogita, Rump & Oishi 2005, Dot2). Every scaled measure is
//! invariant under that rescaling. The conditions on `w` are judged on the
//! true `w`, beyond what the rounding of z makes (a subnormal z is known
//! to half the least subnormal); the reported `w` must equal the true one
//! up to the tolerance or its own rounding.

use super::generate::Problem;

/// The measures of one answer, dimensionless.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Measures {
    /// The largest of the scaled bound violation, sign violation of `w`,
    /// complementarity and residual (`VerifyReport::scaled_max`).
    pub(crate) scaled_max: f64,
    /// The scaled natural residual (`VerifyReport::scaled_natural_residual`).
    pub(crate) natural: f64,
    /// The scaled residual alone: how far the reported `w` is from `M z + q`.
    pub(crate) residual: f64,
}

/// `(a * b)` as a sum of two floats (exact).
pub(crate) fn two_product(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// `a + b` as a sum of two floats (exact).
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let t = s - a;
    (s, (a - (s - t)) + (b - t))
}

/// `x * 2^k` for any integer `k` (in steps, so no factor overflows).
fn ldexp(mut x: f64, mut k: i32) -> f64 {
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

/// `floor(log2 x)` for `x > 0` (subnormals included).
fn exponent(x: f64) -> i32 {
    x.log2().floor() as i32
}

fn max_abs(v: impl IntoIterator<Item = f64>) -> f64 {
    v.into_iter().fold(0.0, |a, x| a.max(x.abs()))
}

/// Measures the answer `(z, w)` of `p`; infinite measures when `z` or `w`
/// has the wrong length or a non-finite entry.
pub(crate) fn measure(p: &Problem, z: &[f64], w: &[f64]) -> Measures {
    let infinite = Measures {
        scaled_max: f64::INFINITY,
        natural: f64::INFINITY,
        residual: f64::INFINITY,
    };
    let n = p.n;
    if z.len() != n || w.len() != n || z.iter().chain(w).any(|x| !x.is_finite()) {
        return infinite;
    }
    let (m_norm, z_norm, q_norm) = (
        max_abs(p.m.iter().copied()),
        max_abs(z.iter().copied()),
        max_abs(p.q.iter().copied()),
    );
    // Exponents of ||M|| and of the scale of w, max(||M|| ||z||, ||q||).
    let e_m = if m_norm > 0.0 { exponent(m_norm) } else { 0 };
    let mut e_w = None::<i32>;
    if m_norm > 0.0 && z_norm > 0.0 {
        e_w = Some(e_m + exponent(z_norm));
    }
    if q_norm > 0.0 {
        let e = exponent(q_norm);
        e_w = Some(e_w.map_or(e, |x| x.max(e)));
    }
    // alpha = 2^-e_m, beta = 2^(e_m - e_w), alpha beta = 2^-e_w; nothing
    // to rescale when the scale of w is 0.
    let (ka, kb) = match e_w {
        Some(e) => (-e_m, e_m - e),
        None => (0, 0),
    };
    let kw = ka + kb;
    let zs: Vec<f64> = z.iter().map(|&x| ldexp(x, kb)).collect();
    let ws: Vec<f64> = w.iter().map(|&x| ldexp(x, kw)).collect();
    // The true w, rescaled, and the reported one's distance from it.
    let mut exact = vec![0.0; n];
    let mut residual = 0.0_f64;
    // What the problem's units cannot resolve: the reported w's own
    // rounding ((n + 2) least subnormals), and the w that the rounding of
    // z makes (up to n ||M|| (eps ||z|| + least subnormal)), rescaled.
    let ulp_allowance = ldexp((n as f64 + 2.0) * 5e-324, kw);
    let z_rounding = ldexp(f64::EPSILON * z_norm, kb) + ldexp(5e-324, kb);
    let w_allowance = n as f64 * ldexp(m_norm, ka) * z_rounding;
    for i in 0..n {
        let (mut s, mut c) = (ldexp(p.q[i], kw), 0.0);
        for (j, &zj) in zs.iter().enumerate() {
            let (prod, e) = two_product(ldexp(p.at(i, j), ka), zj);
            let (t, f) = two_sum(s, prod);
            s = t;
            c += e + f;
        }
        exact[i] = s + c;
        residual = residual.max(((ws[i] - exact[i]).abs() - ulp_allowance).max(0.0));
    }
    if !residual.is_finite() || exact.iter().any(|x| !x.is_finite()) {
        return infinite;
    }
    // Scales of the rescaled problem (the documented definitions).
    let m_s = ldexp(m_norm, ka);
    let z_s = max_abs(zs.iter().copied());
    let raw_scale = (m_s * z_s).max(ldexp(q_norm, kw));
    let scale = if raw_scale > 0.0 { raw_scale } else { 1.0 };
    let raw_z_scale = if m_s > 0.0 { z_s.max(scale / m_s) } else { z_s };
    let z_scale = if raw_z_scale > 0.0 { raw_z_scale } else { 1.0 };
    let c = if raw_scale > 0.0 && raw_z_scale > 0.0 && m_s > 0.0 {
        1.0 / m_s
    } else {
        z_scale / scale
    };
    let (mut z_violation, mut w_violation, mut complementarity, mut natural) =
        (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
    for i in 0..n {
        // Bounds in the original units, then rescaled (a bound beyond the
        // rescaled range is as good as infinite for the natural residual).
        let (lo, hi) = p.effective(i, z);
        let (zi, wi) = (z[i], exact[i]);
        let wi = wi.signum() * (wi.abs() - w_allowance).max(0.0);
        z_violation = z_violation.max(ldexp((lo - zi).max(zi - hi).max(0.0), kb));
        let (wp, wm) = (wi.max(0.0), (-wi).max(0.0));
        // A bound's distance counts up to the scale of z.
        let distance = |d: f64| ldexp(d, kb).min(z_scale);
        if hi == f64::INFINITY {
            w_violation = w_violation.max(wm);
        } else if wm > 0.0 {
            complementarity = complementarity.max(wm * distance((hi - zi).abs()));
        }
        if lo == f64::NEG_INFINITY {
            w_violation = w_violation.max(wp);
        } else if wp > 0.0 {
            complementarity = complementarity.max(wp * distance((zi - lo).abs()));
        }
        let (los, his) = (ldexp(lo, kb), ldexp(hi, kb));
        let step = zs[i] - c * wi;
        let clamped = if step > his {
            his
        } else if step < los {
            los
        } else {
            step
        };
        natural = natural.max((zs[i] - clamped).abs());
    }
    let errors = [
        z_violation / z_scale,
        w_violation / scale,
        complementarity / (z_scale * scale),
        residual / scale,
    ];
    if errors.iter().any(|e| !e.is_finite()) {
        return infinite;
    }
    Measures {
        scaled_max: errors.into_iter().fold(0.0, f64::max),
        natural: natural / z_scale,
        residual: residual / scale,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::generate::{Family, Problem};

    fn plain(n: usize, m: Vec<f64>, q: Vec<f64>) -> Problem {
        Problem {
            family: Family::Spd,
            n,
            m,
            q,
            bounds: None,
            solvable: true,
            guaranteed: true,
            witness: None,
            factors: None,
        }
    }

    /// The subnormal case of the issue: M = [[5e-324]], q = -M. z = 1 is
    /// the solution; z = 1.4 has M z + q = 0 in floating point but not in
    /// truth.
    #[test]
    fn subnormal_products_are_measured_exactly() {
        let p = plain(1, vec![5e-324], vec![-5e-324]);
        assert_eq!(measure(&p, &[1.0], &[0.0]).scaled_max, 0.0);
        let wrong = measure(&p, &[1.4], &[0.0]);
        assert!(wrong.scaled_max > 0.1, "{wrong:?}");
    }

    /// M = diag(1e-190), q = -M 1: z = (0, 1) leaves w_0 = -1e-190, a
    /// violation of the whole scale.
    #[test]
    fn tiny_scales_are_relative() {
        let p = plain(2, vec![1e-190, 0.0, 0.0, 1e-190], vec![-1e-190, -1e-190]);
        assert_eq!(measure(&p, &[1.0, 1.0], &[0.0, 0.0]).scaled_max, 0.0);
        let wrong = measure(&p, &[0.0, 1.0], &[-1e-190, 0.0]);
        assert!((wrong.scaled_max - 1.0).abs() < 1e-12, "{wrong:?}");
        // At ordinary scale the same numbers as the crate's definitions:
        // w = (1, 0) for z = (1, 0) on M = [[2, 1], [1, 2]], q = (-1, -1):
        // complementarity 1 / (z_scale 1 * scale 2).
        let p = plain(2, vec![2.0, 1.0, 1.0, 2.0], vec![-1.0, -1.0]);
        // (Up to the allowance for the rounding of z, n eps of the scale.)
        let m = measure(&p, &[1.0, 0.0], &[1.0, 0.0]);
        assert!((m.scaled_max - 0.5).abs() <= 1e-15, "{m:?}");
        assert!((m.natural - 0.5).abs() <= 1e-15, "{m:?}");
    }
}
