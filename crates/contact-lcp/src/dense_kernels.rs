// Level-2 kernels of the pivoting solvers on column-major storage.
//
// Small sizes (most contact islands) use plain loops: a call into faer costs
// a dispatch that is larger than the whole operation there. From
// `FAER_FROM` rows on, faer's kernels (runtime-selected SIMD) take over.
// Plain dot products use four independent partial sums so that the compiler
// can vectorise them (a single running sum is a serial dependency chain).
// The split point only changes rounding, never which kernel a given size
// uses, so results do not depend on anything but the problem.

use faer::linalg::matmul::matmul;
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::{Accum, MatMut, MatRef, Par};

/// Sizes from which the faer kernels are faster than the plain loops
/// (measured on the Dantzig benches: the crossover lies between 24 and 48).
const FAER_FROM: usize = 32;

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

/// Solves `L y = b` in place, with `L` the leading `k x k` lower triangle of
/// the column-major buffer `l` (leading dimension `ld`), `k = b.len()`, and
/// `inv_diag[c] = 1 / L_cc` (a multiply instead of a division keeps the
/// substitution's serial dependency chain short on small sizes).
pub(crate) fn solve_lower_in_place(l: &[f64], ld: usize, inv_diag: &[f64], b: &mut [f64]) {
    let k = b.len();
    if k == 0 {
        return;
    }
    if k >= FAER_FROM {
        let lk = MatRef::from_column_major_slice_with_stride(&l[..(k - 1) * ld + k], k, k, ld);
        solve_lower_triangular_in_place(lk, MatMut::from_column_major_slice_mut(b, k, 1), Par::Seq);
        return;
    }
    for c in 0..k {
        let x = b[c] * inv_diag[c];
        b[c] = x;
        axpy(-x, &l[c * ld + c + 1..c * ld + k], &mut b[c + 1..]);
    }
}

/// Solves `L' x = y` in place (same storage as [`solve_lower_in_place`]).
pub(crate) fn solve_lower_transpose_in_place(
    l: &[f64],
    ld: usize,
    inv_diag: &[f64],
    b: &mut [f64],
) {
    let k = b.len();
    if k == 0 {
        return;
    }
    if k >= FAER_FROM {
        let lk = MatRef::from_column_major_slice_with_stride(&l[..(k - 1) * ld + k], k, k, ld);
        solve_upper_triangular_in_place(
            lk.transpose(),
            MatMut::from_column_major_slice_mut(b, k, 1),
            Par::Seq,
        );
        return;
    }
    for c in (0..k).rev() {
        let (head, tail) = b.split_at_mut(c + 1);
        let s = dot(&l[c * ld + c + 1..c * ld + k], tail);
        head[c] = (head[c] - s) * inv_diag[c];
    }
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

    /// A deterministic lower-triangular `k x k` factor with a dominant
    /// diagonal, stored with leading dimension `ld`.
    fn factor(k: usize, ld: usize) -> Vec<f64> {
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
        l
    }

    /// Both triangular solves, on both sides of the faer threshold, leave a
    /// residual at round-off level against a direct product.
    #[test]
    fn triangular_solves_invert_the_factor() {
        for k in [0, 1, 5, FAER_FROM - 1, FAER_FROM, 70] {
            let ld = k + 3;
            let l = factor(k, ld);
            let b: Vec<f64> = (0..k).map(|i| (i as f64 * 0.37).sin()).collect();
            let inv: Vec<f64> = (0..k).map(|c| 1.0 / l[c * ld + c]).collect();
            let mut y = b.clone();
            solve_lower_in_place(&l, ld, &inv, &mut y);
            for r in 0..k {
                let ly: f64 = (0..=r).map(|c| l[c * ld + r] * y[c]).sum();
                assert!((ly - b[r]).abs() < 1e-12, "k = {k}, L y row {r}");
            }
            let mut x = b.clone();
            solve_lower_transpose_in_place(&l, ld, &inv, &mut x);
            for r in 0..k {
                let ltx: f64 = (r..k).map(|c| l[r * ld + c] * x[c]).sum();
                assert!((ltx - b[r]).abs() < 1e-12, "k = {k}, L' x row {r}");
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
