//! Symmetric diagonal equilibration of an LCP.
//!
//! For a positive diagonal D, LCP(D M D, D q) has the solutions `z = D z'`,
//! `w = D^-1 w'` of LCP(M, q), with the same complementary bases, so a
//! pivoting method may work on the scaled problem (where relative
//! tolerances mean the same on every row, a heavy body on a light one
//! included) and map its answer back.
//!
//! D is found by Ruiz's iteration (Ruiz 2001, "A scaling algorithm to
//! equilibrate both rows and columns norms in matrices", symmetric variant):
//! repeatedly divide index i by the square root of the larger of the
//! max-norms of row i and column i. Every factor is a power of two, so
//! scaling is exact.

use crate::linalg::lane_scan::combine_max;
use crate::linalg::lanes::{Lanes, LanesOp, with_best_lanes};
use crate::problem::Lcp;
use crate::tuning::RUIZ_SWEEPS;

/// The power of two nearest to `x > 0` (in the log scale), limited to
/// `2^-256 ..= 2^256` so products of a few factors never overflow.
pub(crate) fn pow2_round(x: f64) -> f64 {
    x.log2().round().clamp(-256.0, 256.0).exp2()
}

/// The smallest power of two at least `x > 0` (same limits as [`pow2_round`]).
pub(crate) fn pow2_ceil(x: f64) -> f64 {
    x.log2().ceil().clamp(-256.0, 256.0).exp2()
}

/// The smallest power of two at least `x > 0` over the whole range of f64
/// (`2^-1074 ..= 2^1023`): for the scale of `q`, applied once (with
/// [`pow2_ceil`]'s limits a problem at 1e-190 kept a `q` near 1e-61, below
/// every tolerance of the ratio test).
pub(crate) fn pow2_ceil_full(x: f64) -> f64 {
    x.log2().ceil().clamp(-1074.0, 1023.0).exp2()
}

/// Computes the symmetric scaling `d` (powers of two) for `lcp`'s matrix, so
/// that `max(max_j |d_i M_ij d_j|, max_j |d_j M_ji d_i|)` is within about a
/// factor 2 of 1 for every i with a nonzero row or column (`d_i = 1`
/// otherwise). `rmax` is scratch; no allocation once all have capacity n.
///
/// Returns `Some(max_ij |M_ij * d_i * d_j|)` when a sweep changed nothing
/// (it measured exactly these entries), with `col_max[j]` the maximum of
/// column j; `None` at the sweep limit (`col_max` then holds the maxima
/// before the last change).
pub(crate) fn equilibrate(
    lcp: &Lcp,
    d: &mut Vec<f64>,
    rmax: &mut Vec<f64>,
    col_max: &mut Vec<f64>,
) -> Option<f64> {
    let n = lcp.dim();
    d.clear();
    d.resize(n, 1.0);
    rmax.clear();
    rmax.resize(n, 0.0);
    col_max.clear();
    col_max.resize(n, 0.0);
    for _ in 0..RUIZ_SWEEPS {
        rmax.fill(0.0);
        with_best_lanes(RuizSweep {
            lcp,
            d,
            rmax,
            col_max,
        });
        let mut changed = false;
        for (di, &r) in d.iter_mut().zip(rmax.iter()) {
            if r > 0.0 {
                let f = pow2_round(1.0 / r.sqrt());
                if f != 1.0 {
                    *di *= f;
                    changed = true;
                }
            }
        }
        if !changed {
            return Some(rmax.iter().fold(0.0_f64, |a, &r| a.max(r)));
        }
    }
    None
}

/// One Ruiz sweep's measurement: `col_max[j]` = the max-norm of column j of
/// D M D and `rmax[i]` = the larger of the max-norms of its row and column
/// i, on the best lanes of the machine (the same bits on every machine).
struct RuizSweep<'a> {
    lcp: &'a Lcp,
    d: &'a [f64],
    rmax: &'a mut [f64],
    col_max: &'a mut [f64],
}

impl LanesOp for RuizSweep<'_> {
    type Output = ();

    #[inline(always)]
    fn run<L: Lanes>(self, l: L) {
        let RuizSweep {
            lcp,
            d,
            rmax,
            col_max,
        } = self;
        for (j, cm) in col_max.iter_mut().enumerate() {
            *cm = scaled_column_max(l, lcp.col(j), d, d[j], rmax);
            rmax[j] = rmax[j].max(*cm);
        }
    }
}

/// For column `col` of M with scale `dj`: raises `rmax[i]` to `|col_i d_i
/// dj|` and returns the column's largest such value. Plain comparisons in
/// four lanes (`f64::max`'s NaN rule blocks vectorisation; M is finite).
#[inline(always)]
fn scaled_column_max<L: Lanes>(l: L, col: &[f64], d: &[f64], dj: f64, rmax: &mut [f64]) -> f64 {
    let (d, rmax) = (&d[..col.len()], &mut rmax[..col.len()]);
    let (c4, c_rest) = pulp::as_arrays::<4, f64>(col);
    let (d4, d_rest) = pulp::as_arrays::<4, f64>(d);
    let (r4, r_rest) = pulp::as_arrays_mut::<4, f64>(rmax);
    let djv = l.splat(dj);
    let mut m = l.splat(0.0);
    for ((cs, ds), rs) in c4.iter().zip(d4).zip(r4.iter_mut()) {
        let a = l.abs(l.mul(l.mul(l.load(cs), l.load(ds)), djv));
        m = l.max(a, m);
        l.store(rs, l.max(a, l.load(rs)));
    }
    let mut m = l.to_array(m);
    for ((&x, &di), r) in c_rest.iter().zip(d_rest).zip(r_rest) {
        let a = (x * di * dj).abs();
        m[0] = if a > m[0] { a } else { m[0] };
        *r = if a > *r { a } else { *r };
    }
    combine_max(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::lanes::ArrayLanes;

    #[test]
    fn powers_of_two() {
        assert_eq!(pow2_round(3.0), 4.0);
        assert_eq!(pow2_round(0.7), 0.5);
        assert_eq!(pow2_ceil(3.0), 4.0);
        assert_eq!(pow2_ceil(4.0), 4.0);
        assert_eq!(pow2_ceil(1e-300), 2f64.powi(-256));
        assert_eq!(pow2_ceil_full(3.0), 4.0);
        assert_eq!(pow2_ceil_full(1e-300), 2f64.powi(-996));
        assert_eq!(pow2_ceil_full(5e-324), 5e-324);
        assert_eq!(pow2_ceil_full(3e-320), f64::from_bits(1 << 13));
        assert_eq!(pow2_ceil_full(2.2e-308), f64::from_bits(1 << 52));
        assert_eq!(pow2_ceil_full(f64::MAX), 2f64.powi(1023));
    }

    /// `max_ij |m_ij d_i d_j|` over the given rows and columns of the
    /// row-major `n x n` matrix `m`.
    fn scaled_max(m: &[f64], d: &[f64], rows: &[usize], cols: &[usize]) -> f64 {
        let n = d.len();
        let pairs = rows.iter().flat_map(|&i| cols.iter().map(move |&j| (i, j)));
        pairs.fold(0.0, |a, (i, j)| a.max((m[i * n + j] * d[i] * d[j]).abs()))
    }

    #[test]
    fn badly_scaled_rows_are_equilibrated() {
        // Rows and columns of sizes 1e-6, 1 and 1e4, plus a zero row/column.
        let s = [1e-3, 1.0, 1e2, 0.0];
        let m: Vec<f64> = (0..16)
            .map(|k| s[k / 4] * s[k % 4] * if k / 4 == k % 4 { 2.0 } else { 0.5 })
            .collect();
        let lcp = Lcp::from_row_major(4, &m, &[1.0; 4]).unwrap();
        let (mut d, mut r, mut c) = (Vec::new(), Vec::new(), Vec::new());
        let m_max = equilibrate(&lcp, &mut d, &mut r, &mut c);
        assert_eq!(d[3], 1.0);
        let all = [0, 1, 2, 3];
        assert_eq!(m_max, Some(scaled_max(&m, &d, &all, &all)));
        for (j, &column_max) in c.iter().enumerate() {
            assert_eq!(column_max, scaled_max(&m, &d, &all, &[j]), "column {j}");
        }
        for i in 0..3 {
            assert_eq!(d[i], pow2_round(d[i]));
            let row_max = scaled_max(&m, &d, &[i], &all);
            assert!((0.25..=4.0).contains(&row_max), "row {i}: {row_max}");
        }
    }

    /// One Ruiz measurement as dispatched (AVX2 where this machine has it)
    /// has the bits of plain arrays and of the definition, for every tail
    /// length, with a scaling `d` that is not all ones.
    #[test]
    fn dispatched_sweep_matches_array_lanes_to_the_bit() {
        for n in 0..11 {
            let m: Vec<f64> = (0..n * n)
                .map(|k| ((k as f64 * 0.37).sin() * 1e3).powi(3) * 1e-7)
                .collect();
            let lcp = Lcp::from_row_major(n, &m, &vec![1.0; n]).unwrap();
            let d: Vec<f64> = (0..n).map(|i| 2f64.powi(i as i32 % 5 - 2)).collect();
            let measure = |dispatch: bool| {
                let (mut rmax, mut col_max) = (vec![0.0; n], vec![0.0; n]);
                let sweep = RuizSweep {
                    lcp: &lcp,
                    d: &d,
                    rmax: &mut rmax,
                    col_max: &mut col_max,
                };
                if dispatch {
                    with_best_lanes(sweep);
                } else {
                    sweep.run(ArrayLanes);
                }
                (rmax, col_max)
            };
            let (best, array) = (measure(true), measure(false));
            assert_eq!(best, array, "n {n}");
            let all: Vec<usize> = (0..n).collect();
            for j in 0..n {
                assert_eq!(
                    array.1[j],
                    scaled_max(&m, &d, &all, &[j]),
                    "n {n}, column {j}"
                );
            }
        }
    }
}
