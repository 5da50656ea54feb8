// The row kernels of a pivot's sweep over the Lemke tableau (tableau.rs,
// `RowSweep`): `x -= f y` with the row's new maximum and, when the next
// entering column is computed alongside, its dot product with c_R. Written
// once for any `Lanes` (linalg/lanes.rs) with four lanes of maxima and sums
// combined in a fixed order, so AVX2 registers and arrays give the same bits.

use crate::linalg::lane_scan::{combine_max, max_abs_in};
use crate::linalg::lanes::{ArrayLanes, Lanes};

/// `x -= f y`, returning `max |x_i|` afterwards and the dot product of the
/// updated `x` with `c`, in one pass (the hot loop of a pivot): four lanes
/// of maxima and of partial sums, combined as in [`dot_in`], so the dot
/// product equals `dot_in(x, c)` exactly and the maximum `max_abs_in(x)`.
#[inline(always)]
pub(super) fn axpy_max_abs_dot<L: Lanes>(
    l: L,
    x: &mut [f64],
    f: f64,
    y: &[f64],
    c: &[f64],
) -> (f64, f64) {
    let (y, c) = (&y[..x.len()], &c[..x.len()]);
    let (x4, x_rest) = pulp::as_arrays_mut::<4, f64>(x);
    let (y4, y_rest) = pulp::as_arrays::<4, f64>(y);
    let (c4, c_rest) = pulp::as_arrays::<4, f64>(c);
    let fv = l.splat(f);
    let (mut m, mut acc) = (l.splat(0.0), l.splat(0.0));
    for ((xs, ys), cs) in x4.iter_mut().zip(y4).zip(c4) {
        let v = l.sub(l.load(xs), l.mul(fv, l.load(ys)));
        l.store(xs, v);
        m = l.max(l.abs(v), m);
        acc = l.add(acc, l.mul(v, l.load(cs)));
    }
    finish_lanes(x_rest, f, y_rest, c_rest, l.to_array(m), l.to_array(acc))
}

/// The tail of [`axpy_max_abs_dot`] after its four-lane body: updates the
/// rest of the row, then combines the lanes (maximum, and the partial sums
/// in [`dot_in`]'s order).
#[inline(always)]
fn finish_lanes(
    rest: &mut [f64],
    f: f64,
    y_rest: &[f64],
    c_rest: &[f64],
    mut m: [f64; 4],
    acc: [f64; 4],
) -> (f64, f64) {
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for ((xi, &yi), &ci) in rest.iter_mut().zip(y_rest).zip(c_rest) {
        *xi -= f * yi;
        let a = xi.abs();
        m[0] = if a > m[0] { a } else { m[0] };
        s += *xi * ci;
    }
    (combine_max(m), s)
}

/// [`axpy_max_abs_dot`] on two rows `x` (factor `f`) and `z` (factor `g`)
/// with the same `y` and `c`: each result equals the one-row call exactly.
#[inline(always)]
pub(super) fn axpy_max_abs_dot_2<L: Lanes>(
    l: L,
    x: &mut [f64],
    f: f64,
    z: &mut [f64],
    g: f64,
    y: &[f64],
    c: &[f64],
) -> ((f64, f64), (f64, f64)) {
    let len = x.len();
    let (z, y, c) = (&mut z[..len], &y[..len], &c[..len]);
    let (x4, x_rest) = pulp::as_arrays_mut::<4, f64>(x);
    let (z4, z_rest) = pulp::as_arrays_mut::<4, f64>(z);
    let (y4, y_rest) = pulp::as_arrays::<4, f64>(y);
    let (c4, c_rest) = pulp::as_arrays::<4, f64>(c);
    let (fv, gv) = (l.splat(f), l.splat(g));
    let (mut mx, mut mz) = (l.splat(0.0), l.splat(0.0));
    let (mut ax, mut az) = (l.splat(0.0), l.splat(0.0));
    for (((xs, zs), ys), cs) in x4.iter_mut().zip(z4.iter_mut()).zip(y4).zip(c4) {
        let (yv, cv) = (l.load(ys), l.load(cs));
        let v = l.sub(l.load(xs), l.mul(fv, yv));
        let t = l.sub(l.load(zs), l.mul(gv, yv));
        l.store(xs, v);
        l.store(zs, t);
        mx = l.max(l.abs(v), mx);
        mz = l.max(l.abs(t), mz);
        ax = l.add(ax, l.mul(v, cv));
        az = l.add(az, l.mul(t, cv));
    }
    (
        finish_lanes(x_rest, f, y_rest, c_rest, l.to_array(mx), l.to_array(ax)),
        finish_lanes(z_rest, g, y_rest, c_rest, l.to_array(mz), l.to_array(az)),
    )
}

/// `x -= f y`, returning `max |x_i|` afterwards (as `max_abs_in`): the
/// sweep's row update when no column is computed alongside.
#[inline(always)]
pub(super) fn axpy_max_abs<L: Lanes>(l: L, x: &mut [f64], f: f64, y: &[f64]) -> f64 {
    let y = &y[..x.len()];
    let (x4, x_rest) = pulp::as_arrays_mut::<4, f64>(x);
    let (y4, y_rest) = pulp::as_arrays::<4, f64>(y);
    let fv = l.splat(f);
    for (xs, ys) in x4.iter_mut().zip(y4) {
        l.store(xs, l.sub(l.load(xs), l.mul(fv, l.load(ys))));
    }
    for (xi, &yi) in x_rest.iter_mut().zip(y_rest) {
        *xi -= f * yi;
    }
    max_abs_in(l, x)
}

/// Dot product with four accumulators in a fixed order (vectorises, and is
/// deterministic).
#[inline(always)]
pub(super) fn dot_in<L: Lanes>(l: L, a: &[f64], b: &[f64]) -> f64 {
    let b = &b[..a.len()];
    let (a4, a_rest) = pulp::as_arrays::<4, f64>(a);
    let (b4, b_rest) = pulp::as_arrays::<4, f64>(b);
    let mut acc = l.splat(0.0);
    for (x, y) in a4.iter().zip(b4) {
        acc = l.add(acc, l.mul(l.load(x), l.load(y)));
    }
    let acc = l.to_array(acc);
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in a_rest.iter().zip(b_rest) {
        s += x * y;
    }
    s
}

/// [`dot_in`] on arrays.
pub(super) fn dot(a: &[f64], b: &[f64]) -> f64 {
    dot_in(ArrayLanes, a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::lane_scan::max_abs;

    /// The fused row update gives the bits of separate loops (the update,
    /// `max_abs_in`, `dot_in`), of `axpy_max_abs` and, two rows at once, of
    /// one-row calls, the dot product agrees with a naive sum, and
    /// AVX2 registers (where this machine has them) give the bits of arrays,
    /// for every tail length.
    #[test]
    fn fused_update_matches_separate_loops_on_every_lanes() {
        for len in 0..14 {
            let x0: Vec<f64> = (0..len).map(|i| (i as f64 * 0.7).sin() * 1e3).collect();
            let y: Vec<f64> = (0..len).map(|i| (i as f64 * 1.3).cos() / 7.0).collect();
            let c: Vec<f64> = (0..len).map(|i| 2.0 - i as f64 * 0.3).collect();
            let mut fused = x0.clone();
            let (m, d) = axpy_max_abs_dot(ArrayLanes, &mut fused, 0.4, &y, &c);
            let naive: Vec<f64> = x0.iter().zip(&y).map(|(x, y)| x - 0.4 * y).collect();
            assert_eq!(fused, naive);
            assert_eq!(m, naive.iter().fold(0.0_f64, |a, x| a.max(x.abs())));
            assert_eq!(d.to_bits(), dot(&naive, &c).to_bits());
            let mut separate = x0.clone();
            assert_eq!(axpy_max_abs(ArrayLanes, &mut separate, 0.4, &y), m);
            assert_eq!(separate, naive);
            // Two rows at once: each as the one-row call.
            let (mut a, mut b) = (x0.clone(), y.clone());
            let two = axpy_max_abs_dot_2(ArrayLanes, &mut a, 0.4, &mut b, -1.7, &y, &c);
            let mut b1 = y.clone();
            let one_b = axpy_max_abs_dot(ArrayLanes, &mut b1, -1.7, &y, &c);
            assert_eq!(
                (a.clone(), b.clone(), two),
                (naive.clone(), b1, ((m, d), one_b))
            );
            let naive_dot: f64 = naive.iter().zip(&c).map(|(x, c)| x * c).sum();
            let terms: f64 = naive.iter().zip(&c).map(|(x, c)| (x * c).abs()).sum();
            assert!((d - naive_dot).abs() <= 1e-14 * terms, "{d} vs {naive_dot}");
            #[cfg(target_arch = "x86_64")]
            if let Some(simd) = pulp::x86::V3::try_new() {
                let mut by_registers = x0.clone();
                let md = axpy_max_abs_dot(simd, &mut by_registers, 0.4, &y, &c);
                assert_eq!(
                    format!("{md:?} {by_registers:?}"),
                    format!("{:?} {fused:?}", (m, d))
                );
                assert_eq!(dot_in(simd, &x0, &c).to_bits(), dot(&x0, &c).to_bits());
                assert_eq!(max_abs_in(simd, &y), max_abs(&y));
                let mut separate = x0.clone();
                assert_eq!(axpy_max_abs(simd, &mut separate, 0.4, &y), m);
                assert_eq!(separate, naive);
                let (mut a2, mut b2) = (x0.clone(), y.clone());
                let two_v = axpy_max_abs_dot_2(simd, &mut a2, 0.4, &mut b2, -1.7, &y, &c);
                assert_eq!(
                    format!("{two_v:?} {a2:?} {b2:?}"),
                    format!("{two:?} {a:?} {b:?}")
                );
            }
        }
    }
}
