//! One-pass scans of dense data in four lanes: a single running maximum is
//! a serial chain that does not vectorise, four lanes combined at the end
//! do, and the maximum is exact whatever the split.

use crate::linalg::lanes::{ArrayLanes, Lanes};

/// `max_i |x_i|` (0 for an empty slice; a NaN is passed over).
pub(crate) fn max_abs(x: &[f64]) -> f64 {
    max_abs_in(ArrayLanes, x)
}

/// [`max_abs`] on any [`Lanes`] (the same result on each).
#[inline(always)]
pub(crate) fn max_abs_in<L: Lanes>(l: L, x: &[f64]) -> f64 {
    let (x4, rest) = pulp::as_arrays::<4, f64>(x);
    let mut m = l.splat(0.0);
    for xs in x4 {
        m = l.max(l.abs(l.load(xs)), m);
    }
    let mut m = l.to_array(m);
    for &xi in rest {
        let a = xi.abs();
        m[0] = if a > m[0] { a } else { m[0] };
    }
    combine_max(m)
}

/// `Some(max_i |x_i|)` when every entry is finite, `None` otherwise, in one
/// pass (`x * 0` is NaN exactly for a non-finite `x`: their sum flags it).
pub(crate) fn max_abs_if_finite(x: &[f64]) -> Option<f64> {
    let mut m = [0.0_f64; 4];
    let mut flag = [0.0_f64; 4];
    let (x4, rest) = x.split_at(x.len() / 4 * 4);
    for xs in x4.chunks_exact(4) {
        for l in 0..4 {
            let a = xs[l].abs();
            m[l] = if a > m[l] { a } else { m[l] };
            flag[l] += xs[l] * 0.0;
        }
    }
    for &xi in rest {
        let a = xi.abs();
        m[0] = if a > m[0] { a } else { m[0] };
        flag[0] += xi * 0.0;
    }
    (flag.iter().sum::<f64>() == 0.0).then_some(combine_max(m))
}

/// The largest of four lane maxima.
#[inline(always)]
pub(crate) fn combine_max(m: [f64; 4]) -> f64 {
    let a = if m[0] > m[1] { m[0] } else { m[1] };
    let b = if m[2] > m[3] { m[2] } else { m[3] };
    if a > b { a } else { b }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maxima_and_the_finiteness_flag() {
        for len in 0..11 {
            let x: Vec<f64> = (0..len).map(|i| (i as f64 - 4.5) * 1.5).collect();
            let expected = x.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
            assert_eq!(max_abs(&x), expected);
            assert_eq!(max_abs_if_finite(&x), Some(expected));
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                for at in 0..len {
                    let mut y = x.clone();
                    y[at] = bad;
                    assert_eq!(max_abs_if_finite(&y), None, "len {len}, {bad} at {at}");
                }
            }
        }
        assert_eq!(max_abs_if_finite(&[f64::MAX, -f64::MAX]), Some(f64::MAX));
    }
}
