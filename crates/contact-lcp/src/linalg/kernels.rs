// Level-2 kernels of the pivoting solvers on column-major storage. Small
// products use plain loops (a call into faer costs more than the whole
// operation there), from `FAER_FROM` rows on faer's; the triangular solves
// run on lanes (lanes.rs). Dot products keep four partial sums so that they
// vectorise. Which kernel runs depends only on the sizes.

use crate::linalg::lanes::{ArrayLanes, Lanes, LanesOp, add_column, with_best_lanes};
use crate::tuning::{FAER_FROM, PLAIN_SOLVE_UP_TO};
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};

/// `a . b` over the common length, with four partial sums.
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0_f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    (acc[0] + acc[2]) + (acc[1] + acc[3]) + tail
}

/// `y += alpha x` over the common length.
#[inline]
pub(crate) fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

/// Solves `L y = b` (or `L' x = b` if `transposed`) in place, with `L` the
/// leading `k x k` lower triangle of the column-major `l` (leading dimension
/// `ld`), `k = b.len()`, and `inv_diag[c] = 1 / L_cc` (a multiply keeps the
/// serial chain short). `L y = b` goes column by column
/// (`b[c+1..] -= y_c L[c+1.., c]`), `L' x = b` row by row from the last with
/// the partial sums of [`dot`]: the bits of the scalar loops, on plain arrays
/// up to `PLAIN_SOLVE_UP_TO` rows, else on the best lanes of the machine
/// (faer's blocked solves cost more on one right-hand side).
pub(crate) fn substitute(l: &[f64], ld: usize, inv_diag: &[f64], b: &mut [f64], transposed: bool) {
    let op = Substitution {
        l,
        ld,
        inv_diag,
        b,
        transposed,
    };
    if op.b.len() <= PLAIN_SOLVE_UP_TO {
        op.run(ArrayLanes);
    } else {
        with_best_lanes(op);
    }
}

/// One triangular solve of [`substitute`] as a lanes operation.
struct Substitution<'a> {
    l: &'a [f64],
    ld: usize,
    inv_diag: &'a [f64],
    b: &'a mut [f64],
    transposed: bool,
}

impl LanesOp for Substitution<'_> {
    type Output = ();
    #[inline(always)]
    fn run<L: Lanes>(self, lanes: L) {
        let (l, ld, b) = (self.l, self.ld, self.b);
        let k = b.len();
        if self.transposed {
            for c in (0..k).rev() {
                let (head, tail) = b.split_at_mut(c + 1);
                let s = dot_lanes(lanes, &l[c * ld + c + 1..c * ld + k], tail);
                head[c] = (head[c] - s) * self.inv_diag[c];
            }
        } else {
            for c in 0..k {
                let x = b[c] * self.inv_diag[c];
                b[c] = x;
                add_column(lanes, &mut b[c + 1..], -x, &l[c * ld + c + 1..c * ld + k]);
            }
        }
    }
}

/// [`dot`] on lanes, with the same bits.
#[inline(always)]
fn dot_lanes<L: Lanes>(lanes: L, a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a4, a_rest) = pulp::as_arrays::<4, f64>(&a[..n]);
    let (b4, b_rest) = pulp::as_arrays::<4, f64>(&b[..n]);
    let mut acc = lanes.splat(0.0);
    for (x, y) in a4.iter().zip(b4) {
        acc = lanes.add(acc, lanes.mul(lanes.load(x), lanes.load(y)));
    }
    let acc = lanes.to_array(acc);
    let tail: f64 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
    (acc[0] + acc[2]) + (acc[1] + acc[3]) + tail
}

/// `out = A x` with `A` the leading `out.len() x x.len()` block of the
/// column-major buffer `a` (leading dimension `ld`).
pub(crate) fn gemv(a: &[f64], ld: usize, x: &[f64], out: &mut [f64]) {
    let (rows, cols) = (out.len(), x.len());
    if rows == 0 {
        return;
    }
    if cols == 0 {
        out.fill(0.0);
        return;
    }
    if rows.max(cols) >= FAER_FROM {
        let a = MatRef::from_column_major_slice_with_stride(
            &a[..(cols - 1) * ld + rows],
            rows,
            cols,
            ld,
        );
        let x = MatRef::from_column_major_slice(x, cols, 1);
        matmul(
            MatMut::from_column_major_slice_mut(out, rows, 1),
            Accum::Replace,
            a,
            x,
            1.0,
            Par::Seq,
        );
        return;
    }
    out.fill(0.0);
    for (c, &xc) in x.iter().enumerate() {
        if xc != 0.0 {
            axpy(xc, &a[c * ld..c * ld + rows], out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The triangular solves have the bits of the scalar substitutions, on
    /// every remainder of four and both sides of the dispatch sizes, and a
    /// round-off residual against a direct product.
    #[test]
    fn triangular_solves_match_the_scalar_loops_and_invert_the_factor() {
        for k in [0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 70] {
            let ld = k + 3;
            // Lower triangular with a dominant diagonal.
            let mut l = vec![0.0; ld * k.max(1)];
            for c in 0..k {
                for r in c..k {
                    l[c * ld + r] = if r == c {
                        2.0 + (r % 3) as f64
                    } else {
                        ((r * 7 + c * 3) % 11) as f64 / 11.0 - 0.5
                    };
                }
            }
            let b: Vec<f64> = (0..k).map(|i| (i as f64 * 0.37).sin()).collect();
            let inv: Vec<f64> = (0..k).map(|c| 1.0 / l[c * ld + c]).collect();
            let mut forward = b.clone();
            for c in 0..k {
                let x = forward[c] * inv[c];
                forward[c] = x;
                axpy(-x, &l[c * ld + c + 1..c * ld + k], &mut forward[c + 1..]);
            }
            let mut y = b.clone();
            substitute(&l, ld, &inv, &mut y, false);
            assert_eq!(y, forward, "k = {k}, L y = b");
            let mut backward = b.clone();
            for c in (0..k).rev() {
                let (head, tail) = backward.split_at_mut(c + 1);
                let s = dot(&l[c * ld + c + 1..c * ld + k], tail);
                head[c] = (head[c] - s) * inv[c];
            }
            let mut x = b.clone();
            substitute(&l, ld, &inv, &mut x, true);
            assert_eq!(x, backward, "k = {k}, L' x = b");
            for r in 0..k {
                let ly: f64 = (0..=r).map(|c| l[c * ld + r] * y[c]).sum();
                let ltx: f64 = (r..k).map(|c| l[r * ld + c] * x[c]).sum();
                assert!(
                    (ly - b[r]).abs() < 1e-12 && (ltx - b[r]).abs() < 1e-12,
                    "k {k} row {r}"
                );
            }
        }
    }

    /// The matrix-vector product matches the definition on both paths.
    #[test]
    fn gemv_matches_the_definition() {
        for (rows, cols) in [(0, 3), (3, 0), (4, 5), (40, 7), (7, 40)] {
            let ld = rows + 2;
            let a: Vec<f64> = (0..ld * cols.max(1))
                .map(|i| (i as f64 * 0.11).cos())
                .collect();
            let x: Vec<f64> = (0..cols).map(|i| 1.0 - i as f64 * 0.1).collect();
            let mut out = vec![f64::NAN; rows];
            gemv(&a, ld, &x, &mut out);
            for r in 0..rows {
                let expect: f64 = (0..cols).map(|c| a[c * ld + r] * x[c]).sum();
                assert!((out[r] - expect).abs() < 1e-12, "{rows}x{cols} row {r}");
            }
        }
    }

    #[test]
    fn dot_handles_every_remainder() {
        for n in 0..10 {
            let a: Vec<f64> = (0..n).map(|i| i as f64 + 1.0).collect();
            let expect: f64 = a.iter().map(|x| x * x).sum();
            assert_eq!(dot(&a, &a), expect);
        }
    }
}
