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
//! - `complementarity`: `max(w+_i d(z_i, lo_i), w-_i d(hi_i, z_i))` with
//!   the distance to a bound `d(a, b) = min(|a - b|, max(z_scale,
//!   ||z||_inf))` (`z_scale` is at least `||z||_inf` but where it was
//!   replaced by 1, out of the range where the report is measured in the
//!   problem's units, see rescaled_verify.rs), each term
//!   only where that bound is finite (for a plain LCP row this is `|z_i
//!   w_i|` whenever `w_i >= 0`, since `|z_i| <= ||z||`). A bound farther
//!   than the scale of `z` then asks what no bound asks, `|w_i|` within
//!   the tolerance of the scale of `w`: an unbounded distance made the
//!   product fail on the rounding of `w` alone (a friction row inside
//!   bounds `mu z_j` with `mu = 2^34`: a scaled error of 5e-7 at the
//!   exact answer of the rounded problem);
//! - `residual`: `|w_i - (M z + q)_i|`;
//! - `natural_residual`: `|z_i - clamp(z_i - c w_i, lo_i, hi_i)|` with
//!   `c = 1 / ||M||_max` (the factor of [`verify`](crate::verify)'s
//!   natural residual, `z_scale / scale` but for rounding, and that
//!   quotient where a scale was replaced: see `verify::scales`).
//!
//! The scales are those of [`verify`](crate::verify) (with `||M||_max`,
//! `||z||_inf`, `||q||_inf`), so a plain LCP as a box LCP gets the same
//! scales, and the same report when `w >= 0`.

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
    let mut scratch = Vec::new();
    verify_box_into(problem, z, Some(w), &mut scratch)
}

/// Certifies `z` alone: `w = M z + q` is computed here, so `residual` is 0.
#[must_use]
pub fn verify_box_z(problem: &BoxLcp, z: &[f64]) -> VerifyReport {
    let mut scratch = Vec::new();
    verify_box_into(problem, z, None, &mut scratch)
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
    problem.lcp().affine(z, scratch);
    let report = match w {
        Some(w) => box_report(
            problem.bounds(),
            problem.lcp().q_max_abs(),
            problem.lcp().m_max_abs(),
            z,
            w,
            Some(scratch),
        ),
        None => box_report(
            problem.bounds(),
            problem.lcp().q_max_abs(),
            problem.lcp().m_max_abs(),
            z,
            scratch,
            None,
        ),
    };
    let mut report = report;
    check(&mut report, problem.lcp(), Some(problem.bounds()), z, w);
    report
}

/// Finishes a pivoting answer in `out`: projects `out.z` onto the
/// effective bounds (uncoupled rows, then coupled ones with the final
/// normals, so the coupling holds exactly), sets `out.w = M z + q` and the
/// report. `w` was just computed as `M z + q` by the same code a
/// certificate would use, so the residual field is 0 by construction and
/// the other fields are checked in full.
pub(crate) fn finish_box_answer(problem: &BoxLcp, out: &mut LcpSolution) {
    finish_box_answer_with(problem, out, None);
}

/// [`finish_box_answer`] given `w = M z + q` as `Lcp::affine` computed it
/// for the `z` in `out` before its projection: used as it is when the
/// projection moves nothing (the same bits), recomputed otherwise.
pub(crate) fn finish_box_answer_with(problem: &BoxLcp, out: &mut LcpSolution, w: Option<&[f64]>) {
    let moved = problem.bounds().project(&mut out.z);
    out.w.clear();
    match w {
        Some(w) if !moved => out.w.extend_from_slice(w),
        _ => {
            out.w.resize(problem.dim(), 0.0);
            problem.lcp().affine(&out.z, &mut out.w);
        }
    }

    let report = box_report(
        problem.bounds(),
        problem.lcp().q_max_abs(),
        problem.lcp().m_max_abs(),
        &out.z,
        &out.w,
        None,
    );
    out.report = report;
    let (lcp, bounds) = (problem.lcp(), Some(problem.bounds()));
    check(&mut out.report, lcp, bounds, &out.z, Some(&out.w));
}

/// The report of `(z, w)` for the given bounds, `||q||_inf` and `||M||_max`;
/// `exact = M z + q` if known (for the `residual` field; 0 if `None`).
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
    // z and w are finite here and lo <= hi, so plain comparisons give the
    // maxima (f64::max's NaN handling cost half of this loop at n = 16).
    let larger = |a: f64, b: f64| if b > a { b } else { a };
    let z_cap = larger(z_scale, z_inf);
    let cap = |d: f64| if d > z_cap { z_cap } else { d };
    let mut row = |lo: f64, hi: f64, zi: f64, wi: f64| {
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
        // c (z_scale / scale when ||M|| is 0 or below 1 / f64::MAX)
        // overflows to +inf when the scale is subnormal too (||q|| that
        // small): a row with w = 0 then gives step = NaN, which max/min
        // clamp to lo; testing `step >= lo` first keeps that (`step < lo`
        // let the NaN through, and the row dropped out of the residual).
        let step = zi - c * wi;
        let clamped = if step >= lo {
            if step > hi { hi } else { step }
        } else {
            lo
        };
        r.natural_residual = larger(r.natural_residual, (zi - clamped).abs());
    };
    // Each row's effective bounds (`BoxBounds::effective`, inlined).
    let couplings = bounds.couplings();
    let rows = bounds
        .lo()
        .iter()
        .zip(bounds.hi())
        .zip(bounds.coupled_rows());
    for (((&lo, &hi), &coupled), (&zi, &wi)) in rows.zip(z.iter().zip(w)) {
        let (lo, hi) = match coupled {
            None => (lo, hi),
            Some(k) => {
                let coupling = &couplings[k];
                let radius = coupling.mu * z[coupling.normal_row].max(0.0);
                (-radius, radius)
            }
        };
        row(lo, hi, zi, wi);
    }
    with_residual(r, w, exact)
}

/// `r` with its `residual` field, `max |w_i - exact_i|` (0 without
/// `exact`), or infinite when a field is not finite. NaN-propagating: `M
/// z + q` can be NaN for a finite z (inf - inf in the product), and
/// f64::max would pass over that row.
fn with_residual(mut r: VerifyReport, w: &[f64], exact: Option<&[f64]>) -> VerifyReport {
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
    use crate::problem::Lcp;
    use crate::verify::max_abs;
    use crate::verify::verify;
    use faer::Mat;

    const INF: f64 = f64::INFINITY;

    /// M = I (3 x 3), q = 0; row 0 in [-1, 2], row 1 bilateral, row 2 a
    /// normal row coupled to row 0 with mu = 0.5 (so row 0's bounds are
    /// [-z_2 / 2, z_2 / 2]).
    fn problem(coupled: bool) -> BoxLcp {
        let couplings = if coupled {
            vec![Coupling {
                row: 0,
                normal_row: 2,
                mu: 0.5,
            }]
        } else {
            vec![]
        };
        BoxLcp::new(
            Mat::identity(3, 3),
            vec![0.0; 3],
            vec![-1.0, -INF, 0.0],
            vec![2.0, INF, INF],
            couplings,
        )
        .unwrap()
    }

    #[test]
    fn each_condition_is_measured_separately() {
        let p = problem(false);
        // Row 0 at its upper bound with w < 0: fine. Row 1 bilateral with w = 0.
        // (w is not M z + q here, which only the `residual` field sees.)
        let r = verify_box(&p, &[2.0, 0.0, 0.0], &[-3.0, 0.0, 0.0]);
        assert_eq!(
            (r.z_violation, r.w_violation, r.complementarity),
            (0.0, 0.0, 0.0)
        );
        assert_eq!((r.natural_residual, r.residual), (0.0, 5.0));
        // Row 0 past its upper bound by 1.
        let r = verify_box(&p, &[3.0, 0.0, 0.0], &[-3.0, 0.0, 0.0]);
        assert_eq!(
            (r.z_violation, r.w_violation, r.complementarity),
            (1.0, 0.0, 3.0)
        );
        // Row 1 bilateral with w = -0.5: a sign violation only.
        let r = verify_box(&p, &[0.0, 0.0, 0.0], &[0.0, -0.5, 0.0]);
        assert_eq!(
            (r.z_violation, r.w_violation, r.complementarity),
            (0.0, 0.5, 0.0)
        );
        // Row 0 strictly inside with w = 2: complementarity (z - lo) w+ = 2.
        let r = verify_box(&p, &[0.0, 0.0, 0.0], &[2.0, 0.0, 0.0]);
        assert_eq!(
            (r.z_violation, r.w_violation, r.complementarity),
            (0.0, 0.0, 2.0)
        );
        assert_eq!(r.scale, 1.0);
        // Natural residual with c = 1 / ||M|| = 1: 0 - clamp(-2, -1, 2).
        assert_eq!(r.natural_residual, 1.0);
    }

    #[test]
    fn coupled_bounds_use_the_given_normal_force() {
        let p = problem(true);
        // z_2 = 2, so row 0 lives in [-1, 1]; z_0 = -1 at lo with w_0 > 0.
        let r = verify_box_z(&p, &[-1.0, 0.0, 2.0]);
        // w = z: w_0 = -1 at lo gives (hi - z_0) w-_0 = 2, and w_2 = 2 with
        // z_2 = 2 off its bound gives (z_2 - lo) w+_2 = 4.
        assert_eq!(r.z_violation, 0.0);
        assert_eq!(r.complementarity, 4.0);
        let r = verify_box(&p, &[-1.5, 0.0, 2.0], &[1.0, 0.0, 0.0]);
        assert_eq!(r.z_violation, 0.5);
        assert!(r.residual > 0.0);
    }

    #[test]
    fn an_overflowing_product_is_no_certificate() {
        // M z + q = 1e308 * 10 - 1e308 * 10 = inf - inf = NaN in row 0 for
        // a finite z: the residual must report it, not pass over it.
        let lcp = Lcp::from_row_major(2, &[1e308, -1e308, 0.0, 0.0], &[0.0, 0.0]).unwrap();
        let p = BoxLcp::from_lcp(&lcp);
        let r = verify_box(&p, &[10.0, 10.0], &[0.0, 0.0]);
        assert!(!r.residual.is_finite(), "{r:?}");
        assert!(!r.is_solution(1.0), "{r:?}");
        // The plain LCP's certificate, with and without a given w.
        assert!(!verify(&lcp, &[10.0, 10.0], &[0.0, 0.0]).is_solution(1.0));
        assert!(!crate::verify::verify_z(&lcp, &[10.0, 10.0]).is_solution(1.0));
        assert!(!verify_box_z(&p, &[10.0, 10.0]).is_solution(1.0));
    }

    #[test]
    fn plain_lcp_report_matches_verify() {
        let lcp = Lcp::from_row_major(2, &[2.0, 1.0, 1.0, 2.0], &[-1.0, 1.0]).unwrap();
        let p = BoxLcp::from_lcp(&lcp);
        for (z, w) in [([0.5, 0.0], [0.0, 1.5]), ([1.0, 0.2], [1.2, 2.4])] {
            assert_eq!(verify_box(&p, &z, &w), verify(&lcp, &z, &w));
        }
    }

    /// The report as written before it was made lean (one loop, f64::max,
    /// `clamp` by max/min): the reference the lean one must match bit for
    /// bit.
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
        if !(r.residual.is_finite()
            && r.complementarity.is_finite()
            && r.natural_residual.is_finite())
        {
            return VerifyReport::infinite();
        }
        r
    }

    /// The fields of a report as bits (so -0.0 and 0.0 differ).
    fn bits(r: &VerifyReport) -> [u64; 7] {
        [
            r.z_violation,
            r.w_violation,
            r.complementarity,
            r.residual,
            r.scale,
            r.natural_residual,
            r.z_scale,
        ]
        .map(f64::to_bits)
    }

    /// SplitMix64 (Steele, Lea, Flood 2014): seeded, reproducible cases.
    struct Mix(u64);

    impl Mix {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = self.0;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^ (x >> 31)
        }

        fn below(&mut self, k: usize) -> usize {
            (self.next() % k as u64) as usize
        }

        fn of<T: Copy>(&mut self, items: &[T]) -> T {
            items[self.below(items.len())]
        }

        /// Uniform in [-scale, scale) three times in four, else one of
        /// the awkward values (signed zeros, subnormal, huge).
        fn value(&mut self, scale: f64) -> f64 {
            const AWKWARD: [f64; 11] = [
                0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 5e-324, -5e-324, 1e300, -1e300, 1e-300,
            ];
            if self.below(4) == 0 {
                self.of(&AWKWARD)
            } else {
                let unit = (self.next() >> 11) as f64 / (1_u64 << 53) as f64;
                scale * (2.0 * unit - 1.0)
            }
        }
    }

    #[test]
    fn the_report_and_projection_have_the_bits_of_the_reference() {
        let mut rng = Mix(0x5EED);
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
            // A plain LCP's bounds in two of every five even cases.
            // (case % 10 == 0 also has a tiny q, where c overflows.)
            if case % 10 == 4 || case % 10 == 0 {
                lo.fill(0.0);
                hi.fill(INF);
            }
            // Couplings in half the cases: row j, [0, inf), is the normal
            // of row j + 1.
            let mut couplings = vec![];
            if case % 2 == 1 {
                for j in (0..n.saturating_sub(1)).step_by(3) {
                    (lo[j], hi[j]) = (0.0, INF);
                    couplings.push(Coupling {
                        row: j + 1,
                        normal_row: j,
                        mu: rng.of(&[0.0, 0.3, 1.0, 1e300]),
                    });
                }
            }
            let bounds = BoxBounds::new(lo.clone(), hi.clone(), couplings).unwrap();
            plain += usize::from(bounds.is_plain());
            let mut z: Vec<f64> = (0..n).map(|_| rng.value(2.0)).collect();
            // A third of the rows exactly at a (finite, effective) bound.
            for i in 0..n {
                if rng.below(3) == 0 {
                    let (l, h) = bounds.effective(i, &z);
                    z[i] = if l.is_finite() && rng.below(2) == 0 {
                        l
                    } else if h.is_finite() {
                        h
                    } else {
                        z[i]
                    };
                }
            }
            let mut w: Vec<f64> = (0..n).map(|_| rng.value(2.0)).collect();
            // Every fifth q tiny: with ||M|| 0 or subnormal the scale is
            // then subnormal too and c = z_scale / scale overflows to +inf.
            let q: Vec<f64> = (0..n)
                .map(|_| {
                    if case % 5 == 0 {
                        rng.of(&[0.0, 5e-324, -5e-324, 1e-310])
                    } else {
                        rng.value(1.0)
                    }
                })
                .collect();
            let exact: Vec<f64> = w.iter().map(|&x| x + rng.value(1e-3)).collect();
            // ||M|| zero, subnormal, ordinary, huge.
            let m_norm = rng.of(&[0.0, 5e-324, 1e-310, 1.0, 4.0, 1e300]);
            if case % 7 == 0 {
                let at = rng.below(n);
                let bad = rng.of(&[f64::NAN, INF, -INF]);
                if rng.below(2) == 0 {
                    z[at] = bad;
                } else {
                    w[at] = bad;
                }
            }
            for e in [None, Some(exact.as_slice())] {
                let lean = box_report(&bounds, max_abs(&q), m_norm, &z, &w, e);
                let reference = reference_report(&bounds, &q, m_norm, &z, &w, e);
                assert_eq!(
                    bits(&lean),
                    bits(&reference),
                    "case {case}: z {z:?} w {w:?} q {q:?} lo {lo:?} hi {hi:?} \
                     ||M|| {m_norm:e}\n{lean:?}\n{reference:?}"
                );
                compared += 1;
            }
            // Projection: uncoupled rows onto their bounds (x kept when
            // within them, NaN to lo), then coupled ones by max/min (whose
            // bounds may be NaN: 0 * inf).
            let mut projected = z.clone();
            bounds.project(&mut projected);
            let mut by_rows = z.clone();
            for coupled in [false, true] {
                for i in 0..n {
                    if bounds.coupling_of(i).is_some() == coupled {
                        let (l, h) = bounds.effective(i, &by_rows);
                        let x = by_rows[i];
                        by_rows[i] = if coupled {
                            x.max(l).min(h)
                        } else if x > h {
                            h
                        } else if x >= l {
                            x
                        } else {
                            l
                        };
                    }
                }
            }
            let as_bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                as_bits(&projected),
                as_bits(&by_rows),
                "case {case}: {z:?} {bounds:?}"
            );
        }
        assert_eq!(compared, 6000);
        assert!(plain >= 300, "{plain} plain cases");
    }

    #[test]
    fn bad_input_gives_infinite_errors() {
        let p = problem(true);
        assert!(!verify_box(&p, &[0.0; 2], &[0.0; 3]).is_solution(1.0));
        assert!(!verify_box(&p, &[0.0; 3], &[f64::NAN, 0.0, 0.0]).is_solution(1.0));
        assert!(!verify_box_z(&p, &[INF, 0.0, 0.0]).is_solution(1.0));
    }
}
