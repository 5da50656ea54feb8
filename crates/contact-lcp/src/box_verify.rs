//! A certificate for any claimed solution of a box LCP.
//!
//! For `w = M z + q` with bounds `lo <= z <= hi` (a coupled friction row
//! uses its effective bounds `[-mu max(z_j, 0), mu max(z_j, 0)]` at the given
//! `z`), write `w = w+ - w-` with `w+ = max(w, 0)`, `w- = max(-w, 0)`. The
//! conditions are: `z` within its bounds; `w+ > 0` only where `z = lo`;
//! `w- > 0` only where `z = hi`. The [`VerifyReport`] fields then mean, in
//! max norms over the rows:
//!
//! - `z_violation`, the bound violation: `max(lo_i - z_i, z_i - hi_i, 0)`;
//! - `w_violation`, the sign violation of `w` that no position of `z` can
//!   excuse: `w-` where `hi = +inf` and `w+` where `lo = -inf` (so `|w_i|`
//!   on a bilateral row, and `max(-w_i, 0)` on a plain LCP row);
//! - `complementarity`: `max(w+_i d(z_i, lo_i), w-_i d(hi_i, z_i))` over the
//!   finite bounds, with the distance `d(a, b) = min(|a - b|, max(z_scale,
//!   ||z||_inf))` (for a plain LCP row `|z_i w_i|` whenever `w_i >= 0`). A
//!   bound farther than the scale of `z` then asks `|w_i|` within the
//!   tolerance of the scale of `w`: with an unbounded distance the product
//!   failed on the rounding of `w` alone (a friction row with `mu = 2^34`);
//! - `residual`: `|w_i - (M z + q)_i|`;
//! - `natural_residual`: `|z_i - clamp(z_i - c w_i, lo_i, hi_i)|`, with the
//!   `c` of [`verify`](crate::verify).
//!
//! The scales are those of [`verify`](crate::verify), so a plain LCP as a
//! box LCP gets the same report when `w >= 0`.

use crate::box_problem::{BoxBounds, BoxLcp};
use crate::linalg::lane_scan::max_abs_if_finite;
use crate::rescaled_verify::check;
use crate::solution::LcpSolution;
use crate::verify::{VerifyReport, scales};

/// Certifies a claimed solution `(z, w)` of the box LCP `problem`.
///
/// Never panics: a length mismatch, or a NaN or an infinity in `z` or `w`,
/// gives a report with infinite errors. Allocates one vector of length n.
#[must_use]
pub fn verify_box(problem: &BoxLcp, z: &[f64], w: &[f64]) -> VerifyReport {
    verify_box_into(problem, z, Some(w), &mut Vec::new())
}

/// Certifies `z` alone: `w = M z + q` is computed here, so `residual` is 0.
#[must_use]
pub fn verify_box_z(problem: &BoxLcp, z: &[f64]) -> VerifyReport {
    verify_box_into(problem, z, None, &mut Vec::new())
}

/// [`verify_box`] with caller-owned scratch (no allocation once it has
/// capacity n). With `w == None`, `w = M z + q` is used.
pub(crate) fn verify_box_into(
    problem: &BoxLcp,
    z: &[f64],
    w: Option<&[f64]>,
    scratch: &mut Vec<f64>,
) -> VerifyReport {
    let n = problem.dim();
    if z.len() != n || w.is_some_and(|w| w.len() != n) || z.iter().any(|x| !x.is_finite()) {
        return VerifyReport::infinite();
    }
    scratch.clear();
    scratch.resize(n, 0.0);
    let lcp = problem.lcp();
    lcp.affine(z, scratch);
    let (given, exact) = match w {
        Some(w) => (w, Some(scratch.as_slice())),
        None => (scratch.as_slice(), None),
    };
    let mut report = box_report(
        problem.bounds(),
        lcp.q_max_abs(),
        lcp.m_max_abs(),
        z,
        given,
        exact,
    );
    check(&mut report, lcp, Some(problem.bounds()), z, w);
    report
}

/// Finishes a pivoting answer in `out`: projects `out.z` onto the effective
/// bounds (`BoxBounds::project`), sets `out.w = M z + q` and the report.
/// The residual is 0 by construction (`w` computed by the code a
/// certificate uses); every other field is checked in full.
pub(crate) fn finish_box_answer(problem: &BoxLcp, out: &mut LcpSolution) {
    finish_box_answer_with(problem, out, None);
}

/// [`finish_box_answer`] given `w = M z + q` as `Lcp::affine` computed it for
/// `out.z` before the projection: used as it is when the projection moves
/// nothing (the same bits), recomputed otherwise.
pub(crate) fn finish_box_answer_with(problem: &BoxLcp, out: &mut LcpSolution, w: Option<&[f64]>) {
    let (lcp, bounds) = (problem.lcp(), problem.bounds());
    let moved = bounds.project(&mut out.z);
    out.w.clear();
    match w {
        Some(w) if !moved => out.w.extend_from_slice(w),
        _ => {
            out.w.resize(problem.dim(), 0.0);
            lcp.affine(&out.z, &mut out.w);
        }
    }
    let (q_max, m_norm) = (lcp.q_max_abs(), lcp.m_max_abs());
    out.report = box_report(bounds, q_max, m_norm, &out.z, &out.w, None);
    check(&mut out.report, lcp, Some(bounds), &out.z, Some(&out.w));
}

/// The report of `(z, w)` for the given bounds, `||q||_inf` and `||M||_max`
/// (in the problem's units: see rescaled_verify.rs for extreme scales);
/// `exact = M z + q` if known (for `residual`; 0 if `None`).
///
/// Preconditions: all slices have length `bounds.len()`.
pub(crate) fn box_report(
    bounds: &BoxBounds,
    q_max: f64,
    m_norm: f64,
    z: &[f64],
    w: &[f64],
    exact: Option<&[f64]>,
) -> VerifyReport {
    // The finiteness scans give ||z|| too (a NaN would pass the maxima).
    let (Some(z_inf), Some(_)) = (max_abs_if_finite(z), max_abs_if_finite(w)) else {
        return VerifyReport::infinite();
    };
    let (scale, z_scale, c) = scales(m_norm, z_inf, q_max);
    let mut r = VerifyReport {
        scale,
        z_scale,
        ..VerifyReport::default()
    };
    // z and w are finite and lo <= hi, so plain comparisons give the maxima
    // (f64::max's NaN handling is slower; the test below keeps the bits of
    // the f64::max form).
    let larger = |a: f64, b: f64| if b > a { b } else { a };
    let z_cap = larger(z_scale, z_inf);
    let cap = |d: f64| if d > z_cap { z_cap } else { d };
    let couplings = bounds.couplings();
    let rows = bounds
        .lo()
        .iter()
        .zip(bounds.hi())
        .zip(bounds.coupled_rows());
    for (((&lo, &hi), &coupled), (&zi, &wi)) in rows.zip(z.iter().zip(w)) {
        // The effective bounds (`BoxBounds::effective`, inlined).
        let (lo, hi) = match coupled {
            None => (lo, hi),
            Some(k) => {
                let radius = couplings[k].mu * z[couplings[k].normal_row].max(0.0);
                (-radius, radius)
            }
        };
        r.z_violation = larger(larger(r.z_violation, lo - zi), zi - hi);
        let (wp, wm) = (larger(wi, 0.0), larger(-wi, 0.0));
        if hi == f64::INFINITY {
            r.w_violation = larger(r.w_violation, wm);
        } else {
            r.complementarity = larger(r.complementarity, wm * cap((hi - zi).abs()));
        }
        if lo == f64::NEG_INFINITY {
            r.w_violation = larger(r.w_violation, wp);
        } else {
            r.complementarity = larger(r.complementarity, wp * cap((zi - lo).abs()));
        }
        // c overflows to +inf when ||M|| and the scale are both tiny: a row
        // with w = 0 then has step = NaN, which `step >= lo` sends to lo
        // (as max/min would) instead of dropping the row.
        let step = zi - c * wi;
        let clamped = if step >= lo {
            if step > hi { hi } else { step }
        } else {
            lo
        };
        r.natural_residual = larger(r.natural_residual, (zi - clamped).abs());
    }
    // NaN-propagating: M z + q can be NaN for a finite z (inf - inf).
    if let Some(e) = exact {
        r.residual = w.iter().zip(e).fold(0.0_f64, |acc, (&wi, &ei)| {
            let d = (wi - ei).abs();
            if d > acc || d.is_nan() { d } else { acc }
        });
    }
    if !(r.residual.is_finite() && r.complementarity.is_finite() && r.natural_residual.is_finite())
    {
        return VerifyReport::infinite();
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::box_problem::Coupling;
    use crate::verify::max_abs;

    const INF: f64 = f64::INFINITY;

    /// The report written plainly (f64::max, clamp by max/min, the bounds by
    /// `BoxBounds::effective`): `box_report` must have its bits.
    fn reference_report(
        bounds: &BoxBounds,
        q: &[f64],
        m_norm: f64,
        z: &[f64],
        w: &[f64],
        exact: Option<&[f64]>,
    ) -> VerifyReport {
        if z.iter().chain(w).any(|x| !x.is_finite()) {
            return VerifyReport::infinite();
        }
        let (scale, z_scale, c) = scales(m_norm, max_abs(z), max_abs(q));
        let z_cap = z_scale.max(max_abs(z));
        let mut r = VerifyReport {
            scale,
            z_scale,
            ..VerifyReport::default()
        };
        for i in 0..z.len() {
            let (lo, hi) = bounds.effective(i, z);
            let (zi, wi) = (z[i], w[i]);
            r.z_violation = r.z_violation.max(lo - zi).max(zi - hi);
            let (wp, wm) = (wi.max(0.0), (-wi).max(0.0));
            if hi == INF {
                r.w_violation = r.w_violation.max(wm);
            } else {
                r.complementarity = r.complementarity.max(wm * (hi - zi).abs().min(z_cap));
            }
            if lo == -INF {
                r.w_violation = r.w_violation.max(wp);
            } else {
                r.complementarity = r.complementarity.max(wp * (zi - lo).abs().min(z_cap));
            }
            let nat = zi - (zi - c * wi).max(lo).min(hi);
            r.natural_residual = r.natural_residual.max(nat.abs());
            if let Some(e) = exact {
                r.residual = r.residual.max((wi - e[i]).abs());
            }
        }
        let fields = [r.residual, r.complementarity, r.natural_residual];
        if fields.iter().all(|x| x.is_finite()) {
            r
        } else {
            VerifyReport::infinite()
        }
    }

    /// Seeded draws (`crate::next_uniform`).
    struct Draw(u64);

    impl Draw {
        fn below(&mut self, k: usize) -> usize {
            ((crate::next_uniform(&mut self.0) + 1.0) * 0.5 * k as f64) as usize
        }

        fn of<T: Copy>(&mut self, items: &[T]) -> T {
            items[self.below(items.len())]
        }

        /// Uniform in [-scale, scale) three times in four, else one of the
        /// awkward values (signed zeros, subnormal, huge).
        fn value(&mut self, scale: f64) -> f64 {
            const AWKWARD: [f64; 11] = [
                0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 5e-324, -5e-324, 1e300, -1e300, 1e-300,
            ];
            if self.below(4) == 0 {
                self.of(&AWKWARD)
            } else {
                scale * crate::next_uniform(&mut self.0)
            }
        }
    }

    /// The report and `BoxBounds::project` against plain references, to
    /// the bit (Debug prints every f64 distinctly, -0.0 too), on random
    /// bounds of every kind, couplings, rows at their bounds, awkward
    /// values, NaN and infinities.
    #[test]
    fn the_report_and_projection_have_the_bits_of_the_reference() {
        let mut rng = Draw(0x5EED);
        let (mut compared, mut plain) = (0, 0);
        for case in 0..3000 {
            let n = 1 + rng.below(9);
            let (mut lo, mut hi) = (vec![0.0; n], vec![0.0; n]);
            for i in 0..n {
                let (a, b) = (-rng.value(3.0).abs(), rng.value(3.0).abs());
                (lo[i], hi[i]) = match rng.below(7) {
                    0 => (0.0, INF),
                    1 => (-INF, INF),
                    2 => (-INF, b),
                    3 => (a, INF),
                    4 => (0.0, 0.0),
                    5 => (-0.0, -0.0),
                    _ => (a, b),
                };
            }
            // A plain LCP's bounds in two of every ten cases (case % 10 == 0
            // also has a tiny q, where c overflows).
            if case % 10 == 4 || case % 10 == 0 {
                lo.fill(0.0);
                hi.fill(INF);
            }
            // Couplings in odd cases: row j, [0, inf), the normal of row j + 1.
            let mut couplings = vec![];
            if case % 2 == 1 {
                for j in (0..n.saturating_sub(1)).step_by(3) {
                    (lo[j], hi[j]) = (0.0, INF);
                    let mu = rng.of(&[0.0, 0.3, 1.0, 1e300]);
                    couplings.push(Coupling {
                        row: j + 1,
                        normal_row: j,
                        mu,
                    });
                }
            }
            let bounds = BoxBounds::new(lo, hi, couplings).unwrap();
            plain += usize::from(bounds.is_plain());
            let mut z: Vec<f64> = (0..n).map(|_| rng.value(2.0)).collect();
            // A third of the rows exactly at a (finite, effective) bound.
            for i in 0..n {
                let (l, h) = bounds.effective(i, &z);
                match rng.below(6) {
                    0 if l.is_finite() => z[i] = l,
                    0 | 1 if h.is_finite() => z[i] = h,
                    _ => {}
                }
            }
            let mut w: Vec<f64> = (0..n).map(|_| rng.value(2.0)).collect();
            // Every fifth q tiny: with ||M|| 0 or subnormal the scale is then
            // subnormal too and c = z_scale / scale overflows to +inf.
            let q: Vec<f64> = (0..n)
                .map(|_| match case % 5 {
                    0 => rng.of(&[0.0, 5e-324, -5e-324, 1e-310]),
                    _ => rng.value(1.0),
                })
                .collect();
            let exact: Vec<f64> = w.iter().map(|&x| x + rng.value(1e-3)).collect();
            let m_norm = rng.of(&[0.0, 5e-324, 1e-310, 1.0, 4.0, 1e300]);
            if case % 7 == 0 {
                let at = rng.below(n);
                let bad = rng.of(&[f64::NAN, INF, -INF]);
                let target = if rng.below(2) == 0 { &mut z } else { &mut w };
                target[at] = bad;
            }
            for e in [None, Some(exact.as_slice())] {
                let lean = box_report(&bounds, max_abs(&q), m_norm, &z, &w, e);
                let reference = reference_report(&bounds, &q, m_norm, &z, &w, e);
                assert_eq!(
                    format!("{lean:?}"),
                    format!("{reference:?}"),
                    "case {case}: z {z:?} w {w:?} q {q:?} {bounds:?} ||M|| {m_norm:e}"
                );
                compared += 1;
            }
            // Projection: uncoupled rows onto their bounds (x kept within
            // them, NaN to lo), then coupled ones by max/min (whose bounds
            // may be NaN: 0 * inf).
            let mut projected = z.clone();
            bounds.project(&mut projected);
            let mut by_rows = z.clone();
            for coupled in [false, true] {
                for i in 0..n {
                    if bounds.coupling_of(i).is_some() == coupled {
                        let (l, h) = bounds.effective(i, &by_rows);
                        let x = by_rows[i];
                        by_rows[i] = match x {
                            _ if coupled => x.max(l).min(h),
                            _ if x > h => h,
                            _ if x >= l => x,
                            _ => l,
                        };
                    }
                }
            }
            assert_eq!(
                format!("{projected:?}"),
                format!("{by_rows:?}"),
                "case {case}: {z:?} {bounds:?}"
            );
        }
        assert_eq!(compared, 6000);
        assert!(plain >= 300, "{plain} plain cases");
    }
}
