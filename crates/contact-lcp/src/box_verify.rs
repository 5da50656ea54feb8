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

use crate::box_problem::{BoxBounds, BoxLcp, clamp};
use crate::lane_scan::{combine_max, max_abs_if_finite};
use crate::lanes::{Lanes, LanesOp, with_best_lanes};
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
/// the other fields are checked in full; not recomputing `M z + q` saves
/// one O(n^2) pass (measured 3-6 % of a Dantzig solve at n = 16..64).
pub(crate) fn finish_box_answer(problem: &BoxLcp, out: &mut LcpSolution) {
    problem.bounds().project(&mut out.z);
    out.w.clear();
    out.w.resize(problem.dim(), 0.0);
    problem.lcp().affine(&out.z, &mut out.w);
    finish_projected_answer(problem, out);
}

/// [`finish_box_answer`] for an `out.z` whose `M z + q` the caller has
/// already, with the bits [`Lcp::affine`](crate::problem::Lcp::affine)
/// gives (`w_of_z`): it is computed again only if projecting `z` moved it.
/// Saves the O(n^2) product on a small guess that settled (measured:
/// see small_guess.rs).
pub(crate) fn finish_box_answer_with_w(problem: &BoxLcp, out: &mut LcpSolution, w_of_z: &[f64]) {
    let moved = problem.bounds().project(&mut out.z);
    out.w.clear();
    if moved {
        out.w.resize(problem.dim(), 0.0);
        problem.lcp().affine(&out.z, &mut out.w);
    } else {
        out.w.extend_from_slice(w_of_z);
    }
    finish_projected_answer(problem, out);
}

/// `out.z = z`, then [`finish_box_answer_with_w`] with `w_of_z`, for a
/// guess held in arrays of the problem's dimension `N` (the tiny guess's,
/// dantzig/tiny_guess.rs): the same `z`, `w` and report, to the bit. On an
/// uncoupled problem the projection and the copies run on arrays of known
/// length, unrolled and without bounds checks (measured, callgrind, whole
/// Dantzig solves: n = 1 1002 -> 950 instructions, n = 4 1895 -> 1854,
/// the box on the ground 2111 -> 2059), and so does the report
/// (`fixed_report`, or `fixed_plain_report` for a plain LCP's bounds;
/// `box_report` itself inlined here cost more: n = 8 3783 against 3553).
/// A coupled problem, or one of another dimension, takes the general
/// path.
pub(crate) fn finish_fixed_answer<const N: usize>(
    problem: &BoxLcp,
    out: &mut LcpSolution,
    z: &[f64; N],
    w_of_z: &[f64; N],
) {
    let bounds = problem.bounds();
    let uncoupled = problem.dim() == N && bounds.couplings().is_empty();
    let (true, Some(lo), Some(hi)) = (
        uncoupled,
        bounds.lo().first_chunk::<N>(),
        bounds.hi().first_chunk::<N>(),
    ) else {
        out.z.clear();
        out.z.extend_from_slice(z);
        return finish_box_answer_with_w(problem, out, w_of_z);
    };
    // BoxBounds::project on uncoupled rows.
    let mut projected = *z;
    let mut moved = false;
    for ((zi, &lo), &hi) in projected.iter_mut().zip(lo).zip(hi) {
        let p = clamp(*zi, lo, hi);
        moved |= p != *zi;
        *zi = p;
    }
    out.z.clear();
    out.z.extend_from_slice(&projected);
    out.w.clear();
    let lcp = problem.lcp();
    if moved {
        return finish_moved_fixed(problem, out, (lo, hi), &projected);
    }
    out.w.extend_from_slice(w_of_z);
    let report = if bounds.is_plain() {
        fixed_plain_report(lcp.q_max_abs(), lcp.m_max_abs(), &projected, w_of_z)
    } else {
        fixed_report(
            (lo, hi),
            lcp.q_max_abs(),
            lcp.m_max_abs(),
            &projected,
            w_of_z,
        )
    };
    out.report = report;
    check(&mut out.report, lcp, Some(bounds), &out.z, Some(&out.w));
}

/// The rest of [`finish_fixed_answer`] when projection moved `z` (a
/// clamped `z_i` of -1e-17, say, common where contacts share a load):
/// `w` again, as `Lcp::affine` computes it (columns with `z_j != 0` in
/// order of `j`, one product and one sum each; the bits are tested), and
/// the report, in arrays of size `N`. Measured on the box on the ground
/// whose four q are equal (every solve moves a z): 2313 -> 2071
/// instructions a whole solve. Out of line: inlined, it slowed the path
/// that does not move (random problems, n = 2: 947 -> 1001).
#[inline(never)]
fn finish_moved_fixed<const N: usize>(
    problem: &BoxLcp,
    out: &mut LcpSolution,
    (lo, hi): (&[f64; N], &[f64; N]),
    z: &[f64; N],
) {
    let lcp = problem.lcp();
    let Some(&q) = lcp.q().first_chunk::<N>() else {
        out.w.resize(N, 0.0);
        lcp.affine(&out.z, &mut out.w);
        return finish_projected_answer(problem, out);
    };
    let mut w = q;
    for (j, &zj) in z.iter().enumerate() {
        if zj != 0.0 {
            for (wi, &m) in w.iter_mut().zip(lcp.col(j)) {
                *wi += zj * m;
            }
        }
    }
    out.w.extend_from_slice(&w);
    let report = if problem.bounds().is_plain() {
        fixed_plain_report(lcp.q_max_abs(), lcp.m_max_abs(), z, &w)
    } else {
        fixed_report((lo, hi), lcp.q_max_abs(), lcp.m_max_abs(), z, &w)
    };
    out.report = report;
    check(
        &mut out.report,
        lcp,
        Some(problem.bounds()),
        &out.z,
        Some(&out.w),
    );
}

/// Finishes an answer whose `out.z` is already on the problem's bounds
/// (the projection of [`finish_box_answer`] would leave it alone) and
/// whose `out.w` is `M z + q` with the bits of
/// [`Lcp::affine`](crate::problem::Lcp::affine): only the report, whose
/// residual field is then 0.
pub(crate) fn finish_projected_answer(problem: &BoxLcp, out: &mut LcpSolution) {
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
    if bounds.is_plain() {
        return plain_report(q_max, m_norm, z, w, exact);
    }
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
    if bounds.couplings().is_empty() {
        // Uncoupled rows: their own bounds, read in one sweep, four rows
        // at a time with each field's maximum in four lanes (see
        // `uncoupled_maxima`).
        let [zv, wv, comp, nat] =
            uncoupled_maxima(bounds.lo(), bounds.hi(), z, w, (c, larger(z_scale, z_inf)));
        r.z_violation = zv;
        r.w_violation = wv;
        r.complementarity = comp;
        r.natural_residual = nat;
    } else {
        // `BoxBounds::effective` of each row, inlined: a call a row cost
        // 1356 -> 992 instructions a report (callgrind, the peers'
        // friction_stack_1, n = 12; `row_candidates`' selects instead of
        // the row loop's branches: 1118).
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

/// [`box_report`] for a plain LCP's bounds (`lo = +0.0`, `hi = +inf` on
/// every row, no coupling), to the bit: with those bounds a row's
/// candidates are `-z_i` (z_violation), `max(-w_i, 0)` (w_violation),
/// `max(w_i, 0) |z_i|` (complementarity) and `|z_i - max(z_i - c w_i, 0)|`
/// (natural residual, a NaN step going to 0 as there), and all but the
/// last do not depend on `c`, so they are taken in the pass that finds
/// `||z||` and the finiteness of `z` and `w`: two passes over the rows
/// where the general report makes three, without the bound tests, in the
/// machine's vectors (`PlainReport`). Each field is a maximum of the same
/// exact values as in the general report (up to the sign of a zero,
/// which never wins: the maxima start at +0.0 and take only a strictly
/// larger value), so the same bits (tested against the reference).
/// Measured (callgrind, the peers' spd_16): 898 -> 319 instructions a
/// report.
fn plain_report(
    q_max: f64,
    m_norm: f64,
    z: &[f64],
    w: &[f64],
    exact: Option<&[f64]>,
) -> VerifyReport {
    let n = z.len().min(w.len());
    let Some(r) = with_best_lanes(PlainReport {
        z: &z[..n],
        w: &w[..n],
        q_max,
        m_norm,
    }) else {
        return VerifyReport::infinite();
    };
    with_residual(r, w, exact)
}

/// The two passes of [`plain_report`] on given lanes, rows `4k + l` in
/// lane `l` and the last `n % 4` rows in lane 0; `None` when `z` or `w`
/// is not finite. `z` and `w` have the same length.
struct PlainReport<'a> {
    z: &'a [f64],
    w: &'a [f64],
    q_max: f64,
    m_norm: f64,
}

impl LanesOp for PlainReport<'_> {
    type Output = Option<VerifyReport>;

    #[inline(always)]
    fn run<L: Lanes>(self, l: L) -> Option<VerifyReport> {
        let larger = |a: f64, b: f64| if b > a { b } else { a };
        let (z, w) = (self.z, self.w);
        let (z4, z_rest) = pulp::as_arrays::<4, f64>(z);
        let (w4, w_rest) = pulp::as_arrays::<4, f64>(w);
        let zero = l.splat(0.0);
        // ||z||, z_violation, w_violation, complementarity; the finiteness
        // flag (x * 0 is 0 for a finite x, NaN otherwise).
        let [mut z_inf, mut z_vio, mut w_vio, mut comp, mut flag] = [zero; 5];
        for (zs, ws) in z4.iter().zip(w4) {
            let (zv, wv) = (l.load(zs), l.load(ws));
            let z_abs = l.abs(zv);
            z_inf = l.max(z_abs, z_inf);
            z_vio = l.max(l.sub(zero, zv), z_vio);
            w_vio = l.max(l.max(l.sub(zero, wv), zero), w_vio);
            comp = l.max(l.mul(l.max(wv, zero), z_abs), comp);
            flag = l.add(flag, l.add(l.mul(zv, zero), l.mul(wv, zero)));
        }
        let lanes = |v: L::V| l.to_array(v);
        let [mut z_inf, mut z_vio, mut w_vio, mut comp, flag] =
            [z_inf, z_vio, w_vio, comp, flag].map(lanes);
        let mut tail_flag = 0.0;
        for (&zi, &wi) in z_rest.iter().zip(w_rest) {
            let [a, v, wv, cp] = plain_first_pass(zi, wi);
            z_inf[0] = larger(z_inf[0], a);
            z_vio[0] = larger(z_vio[0], v);
            w_vio[0] = larger(w_vio[0], wv);
            comp[0] = larger(comp[0], cp);
            tail_flag += zi * 0.0 + wi * 0.0;
        }
        if flag.iter().sum::<f64>() + tail_flag != 0.0 {
            return None;
        }
        let (scale, z_scale, c) = scales(self.m_norm, combine_max(z_inf), self.q_max);
        let cv = l.splat(c);
        let mut nat = zero;
        for (zs, ws) in z4.iter().zip(w4) {
            let zv = l.load(zs);
            let step = l.sub(zv, l.mul(cv, l.load(ws)));
            nat = l.max(l.abs(l.sub(zv, l.max(step, zero))), nat);
        }
        let mut nat = lanes(nat);
        for (&zi, &wi) in z_rest.iter().zip(w_rest) {
            nat[0] = larger(nat[0], plain_natural(zi, wi, c));
        }
        Some(VerifyReport {
            scale,
            z_scale,
            z_violation: combine_max(z_vio),
            w_violation: combine_max(w_vio),
            complementarity: combine_max(comp),
            natural_residual: combine_max(nat),
            ..VerifyReport::default()
        })
    }
}

/// A plain LCP's row's candidates that do not depend on the scale:
/// `[|z_i|, -z_i, max(-w_i, 0), max(w_i, 0) |z_i|]` (for `||z||`,
/// z_violation, w_violation, complementarity; see [`plain_report`]).
#[inline(always)]
fn plain_first_pass(zi: f64, wi: f64) -> [f64; 4] {
    let larger = |a: f64, b: f64| if b > a { b } else { a };
    [zi.abs(), -zi, larger(-wi, 0.0), larger(wi, 0.0) * zi.abs()]
}

/// The natural residual of a plain LCP's row, `|z_i - max(z_i - c w_i,
/// 0)|`, a NaN step (c = +inf, w_i = 0) going to 0 as `box_report`'s
/// clamp sends it to lo.
#[inline(always)]
fn plain_natural(zi: f64, wi: f64, c: f64) -> f64 {
    let step = zi - c * wi;
    (zi - if step >= 0.0 { step } else { 0.0 }).abs()
}

/// The report of an answer whose `w` is `M z + q` exactly (residual 0),
/// from its scales and its maxima `[z_violation, w_violation,
/// complementarity, natural_residual]`; infinite when a product
/// overflowed.
#[inline(always)]
fn exact_report(
    (scale, z_scale): (f64, f64),
    [z_violation, w_violation, complementarity, natural_residual]: [f64; 4],
) -> VerifyReport {
    if !(complementarity.is_finite() && natural_residual.is_finite()) {
        return VerifyReport::infinite();
    }
    VerifyReport {
        z_violation,
        w_violation,
        complementarity,
        residual: 0.0,
        scale,
        natural_residual,
        z_scale,
    }
}

/// The maxima `[z_violation, w_violation, complementarity,
/// natural_residual]` of `box_report` over uncoupled rows (finite `z` and
/// `w`, `lo <= hi`), with `c` the natural residual's factor (`scales`) and
/// `z_cap` the largest distance to a bound that counts (`max(z_scale,
/// ||z||)`, see the module doc).
///
/// Each field keeps four lane maxima, row `4k + l` in lane `l`, combined
/// at the end; every candidate is the same product or difference as in
/// the one-row loop, and a maximum of exact values does not depend on the
/// order it is taken in (the lanes start at +0.0, and a candidate only
/// replaces a strictly smaller value, so -0.0 never shows), so the fields
/// have the bits of the row-by-row sweep (tested against the reference).
/// The bound tests are selects rather than branches: a row's candidate
/// that its bounds rule out is replaced by 0, which changes no maximum.
/// Measured (callgrind, spd_16 of the peers' problems, 16 rows): box_report
/// 1096 -> 1001 instructions a call (its finiteness scans and scales
/// included).
#[inline]
fn uncoupled_maxima(
    lo: &[f64],
    hi: &[f64],
    z: &[f64],
    w: &[f64],
    (c, z_cap): (f64, f64),
) -> [f64; 4] {
    let larger = |a: f64, b: f64| if b > a { b } else { a };
    let candidates = |lo, hi, zi, wi| row_candidates(lo, hi, zi, wi, (c, z_cap));
    let mut acc = [[0.0_f64; 4]; 4];
    let n = z.len();
    let whole = n / 4 * 4;
    let rows = lo[..whole]
        .chunks_exact(4)
        .zip(hi[..whole].chunks_exact(4))
        .zip(z[..whole].chunks_exact(4))
        .zip(w[..whole].chunks_exact(4));
    for (((lo4, hi4), z4), w4) in rows {
        for l in 0..4 {
            let cand = candidates(lo4[l], hi4[l], z4[l], w4[l]);
            for f in 0..4 {
                acc[f][l] = larger(acc[f][l], cand[f]);
            }
        }
    }
    for i in whole..n {
        let cand = candidates(lo[i], hi[i], z[i], w[i]);
        for f in 0..4 {
            acc[f][0] = larger(acc[f][0], cand[f]);
        }
    }
    acc.map(combine_max)
}

/// The candidates `[z_violation, w_violation, complementarity,
/// natural_residual]` of one uncoupled row (finite `z_i` and `w_i`, `lo
/// <= hi`) for the maxima of `box_report`, with `c` and `z_cap` as in
/// [`uncoupled_maxima`]. The bound tests are selects: a candidate its
/// bounds rule out is 0, which changes no maximum.
#[inline(always)]
fn row_candidates(lo: f64, hi: f64, zi: f64, wi: f64, (c, z_cap): (f64, f64)) -> [f64; 4] {
    let larger = |a: f64, b: f64| if b > a { b } else { a };
    let cap = |d: f64| if d > z_cap { z_cap } else { d };
    let zv = larger(lo - zi, zi - hi);
    let (wp, wm) = (larger(wi, 0.0), larger(-wi, 0.0));
    let (hi_free, lo_free) = (hi == f64::INFINITY, lo == f64::NEG_INFINITY);
    let wv = larger(
        if hi_free { wm } else { 0.0 },
        if lo_free { wp } else { 0.0 },
    );
    let comp = larger(
        if hi_free {
            0.0
        } else {
            wm * cap((hi - zi).abs())
        },
        if lo_free {
            0.0
        } else {
            wp * cap((zi - lo).abs())
        },
    );
    // `step >= lo` first keeps a NaN step (c = +inf, w = 0) at lo, as in
    // the one-row loop of `box_report`.
    let step = zi - c * wi;
    let clamped = if step >= lo {
        if step > hi { hi } else { step }
    } else {
        lo
    };
    [zv, wv, comp, (zi - clamped).abs()]
}

/// [`fixed_report`] for a plain LCP's bounds: the candidates of
/// [`plain_report`], to the bit, in arrays of size `N` (unrolled). Measured
/// (callgrind, the box at rest of the peers, n = 4): a whole Dantzig solve
/// 1631 -> 1515 instructions (0.85x the time, paired runs).
#[inline(always)]
fn fixed_plain_report<const N: usize>(
    q_max: f64,
    m_norm: f64,
    z: &[f64; N],
    w: &[f64; N],
) -> VerifyReport {
    let larger = |a: f64, b: f64| if b > a { b } else { a };
    let mut acc = [0.0_f64; 4];
    // `x * 0` is NaN for an infinity or a NaN, ±0 otherwise.
    let mut flag = 0.0;
    for (&zi, &wi) in z.iter().zip(w) {
        for (a, x) in acc.iter_mut().zip(plain_first_pass(zi, wi)) {
            *a = larger(*a, x);
        }
        flag += zi * 0.0 + wi * 0.0;
    }
    if flag != 0.0 {
        return VerifyReport::infinite();
    }
    let [z_inf, z_violation, w_violation, complementarity] = acc;
    let (scale, z_scale, c) = scales(m_norm, z_inf, q_max);
    let mut natural_residual = 0.0;
    for (&zi, &wi) in z.iter().zip(w) {
        natural_residual = larger(natural_residual, plain_natural(zi, wi, c));
    }
    exact_report(
        (scale, z_scale),
        [z_violation, w_violation, complementarity, natural_residual],
    )
}

/// [`box_report`] of an uncoupled problem of dimension `N` held in arrays
/// of that size, without `exact`: the same report to the bit (each field
/// is a maximum of the same exact values, whatever their order), with
/// loops the compiler unrolls. At these sizes the setup of `box_report`'s
/// four-lane scans costs more than its rows (305 instructions at n = 1):
/// one plain pass finds `||z||` and the finiteness of both vectors, and
/// below four rows a plain pass takes the maxima too (the four lanes of
/// `uncoupled_maxima` do better from four rows). Measured (callgrind,
/// whole Dantzig solves): n = 1 951 -> 768 instructions, n = 2 1184 ->
/// 991, n = 4 1861 -> 1779, n = 8 3540 -> 3460.
#[inline(always)]
fn fixed_report<const N: usize>(
    (lo, hi): (&[f64; N], &[f64; N]),
    q_max: f64,
    m_norm: f64,
    z: &[f64; N],
    w: &[f64; N],
) -> VerifyReport {
    let larger = |a: f64, b: f64| if b > a { b } else { a };
    // `x * 0` is NaN for an infinity or a NaN, ±0 otherwise.
    let mut z_inf = 0.0_f64;
    let mut flag = 0.0;
    for (&zi, &wi) in z.iter().zip(w) {
        z_inf = larger(z_inf, zi.abs());
        flag += zi * 0.0 + wi * 0.0;
    }
    if flag != 0.0 {
        return VerifyReport::infinite();
    }
    let (scale, z_scale, c) = scales(m_norm, z_inf, q_max);
    let [z_violation, w_violation, complementarity, natural_residual] = if N < 4 {
        let mut acc = [0.0_f64; 4];
        for i in 0..N {
            let cand = row_candidates(lo[i], hi[i], z[i], w[i], (c, larger(z_scale, z_inf)));
            for (a, x) in acc.iter_mut().zip(cand) {
                *a = larger(*a, x);
            }
        }
        acc
    } else {
        uncoupled_maxima(lo, hi, z, w, (c, larger(z_scale, z_inf)))
    };
    exact_report(
        (scale, z_scale),
        [z_violation, w_violation, complementarity, natural_residual],
    )
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

    #[test]
    fn a_given_w_is_used_only_while_projection_leaves_z_alone() {
        // M z + q with M = I, q = 0 is z itself.
        let p = problem(false);
        let finish = |z: [f64; 3], given: &[f64]| {
            let mut out = LcpSolution {
                z: z.to_vec(),
                ..LcpSolution::default()
            };
            finish_box_answer_with_w(&p, &mut out, given);
            out
        };
        // Inside the bounds: the given w is taken as it is.
        let inside = finish([0.5, -3.0, 1.0], &[7.0, 8.0, 9.0]);
        assert_eq!(inside.w, [7.0, 8.0, 9.0]);
        // Row 0 projected from 2.5 to 2: w is computed again, and the
        // answer is finish_box_answer's.
        let moved = finish([2.5, -3.0, 1.0], &[f64::NAN; 3]);
        let mut reference = LcpSolution {
            z: vec![2.5, -3.0, 1.0],
            ..LcpSolution::default()
        };
        finish_box_answer(&p, &mut reference);
        assert_eq!(moved.z, [2.0, -3.0, 1.0]);
        assert_eq!(moved.w, reference.w);
        assert_eq!(moved.report, reference.report);
    }

    #[test]
    fn the_fixed_size_finish_is_the_general_one() {
        // Inside the bounds (the given w is kept), projected (w computed
        // again), and coupled (the general path), for both problems.
        let cases = [
            ([0.5, -3.0, 1.0], [7.0, 8.0, 9.0]),
            ([2.5, -3.0, 1.0], [0.25, -1.0, 0.0]),
            ([0.75, 2.0, 1.0], [0.0, 0.0, -0.5]),
        ];
        for coupled in [false, true] {
            let p = problem(coupled);
            for (z, w) in cases {
                let mut general = LcpSolution {
                    z: z.to_vec(),
                    ..LcpSolution::default()
                };
                finish_box_answer_with_w(&p, &mut general, &w);
                let mut fixed = LcpSolution::default();
                finish_fixed_answer(&p, &mut fixed, &z, &w);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&fixed.z), bits(&general.z), "{coupled} {z:?}");
                assert_eq!(bits(&fixed.w), bits(&general.w), "{coupled} {z:?}");
                assert_eq!(fixed.report, general.report, "{coupled} {z:?}");
            }
        }
    }

    /// `fixed_report` against `box_report` on the same numbers: below four
    /// rows (its own loop) and from four (the four lanes), with every kind
    /// of bound, values on and off the bounds, and non-finite entries.
    #[test]
    fn the_fixed_size_report_is_box_reports() {
        fn check<const N: usize>(seed: &mut u64) -> usize {
            let mut plains = 0;
            let kinds = [
                (0.0, INF),
                (-INF, INF),
                (-0.5, 0.75),
                (-INF, 0.0),
                (0.0, 0.0),
            ];
            let mut next = || {
                *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                (*seed >> 33) as usize
            };
            for case in 0..500 {
                let mut lo = [0.0; N];
                let mut hi = [0.0; N];
                let (mut z, mut w) = ([0.0; N], [0.0; N]);
                for i in 0..N {
                    // A plain LCP's bounds in every third case.
                    (lo[i], hi[i]) = if case % 3 == 0 {
                        kinds[0]
                    } else {
                        kinds[next() % kinds.len()]
                    };
                    let values = [lo[i], hi[i], 0.0, 0.3, -0.7, 2.5, -1e-17];
                    let v = values[next() % values.len()];
                    z[i] = if v.is_finite() { v } else { 0.0 };
                    w[i] = [0.0, 1.5, -0.25, 1e-300, -3.0][next() % 5];
                }
                if next() % 10 == 0 {
                    let bad = [f64::NAN, INF, -INF][next() % 3];
                    let at = next() % N;
                    if next() % 2 == 0 {
                        z[at] = bad
                    } else {
                        w[at] = bad
                    }
                }
                let bounds = BoxBounds::new(lo.to_vec(), hi.to_vec(), vec![]).unwrap();
                // Ordinary scales, and scales so small that c overflows.
                let (q_max, m_norm) = [(0.5, 2.0), (0.0, 0.0), (5e-324, 1e-310)][case / 3 % 3];
                let general = box_report(&bounds, q_max, m_norm, &z, &w, None);
                let fixed = fixed_report((&lo, &hi), q_max, m_norm, &z, &w);
                assert_eq!(bits(&fixed), bits(&general), "{z:?} {w:?} {lo:?} {hi:?}");
                if bounds.is_plain() {
                    // Against the rows' general code (fixed_report) and
                    // the plain vector report (box_report).
                    let plain = fixed_plain_report(q_max, m_norm, &z, &w);
                    assert_eq!(bits(&plain), bits(&fixed), "{z:?} {w:?}");
                    plains += 1;
                }
            }
            plains
        }
        let mut seed = 0xF1ED;
        let plains = check::<1>(&mut seed)
            + check::<3>(&mut seed)
            + check::<4>(&mut seed)
            + check::<7>(&mut seed);
        assert!(plains >= 4 * 167, "{plains} plain cases");
    }

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
    fn the_lean_report_and_projection_have_the_bits_of_the_reference() {
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
            // A plain LCP's bounds in two of every five even cases (the
            // report's own path for them).
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
            let plain_bounds = bounds.is_plain();
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
            if plain_bounds {
                // The plain report's passes on arrays give the bits of the
                // machine's vectors (which box_report runs, checked below).
                let on = |lanes| {
                    let report = PlainReport {
                        z: &z,
                        w: &w,
                        q_max: max_abs(&q),
                        m_norm,
                    };
                    report.run(lanes).map(|r| bits(&r))
                };
                let best = with_best_lanes(PlainReport {
                    z: &z,
                    w: &w,
                    q_max: max_abs(&q),
                    m_norm,
                });
                assert_eq!(
                    on(crate::lanes::ArrayLanes),
                    best.map(|r| bits(&r)),
                    "case {case}"
                );
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
