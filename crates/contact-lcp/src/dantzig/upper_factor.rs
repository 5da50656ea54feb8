// Triangular solves with the small guess's factor `M_CC = U'U`
// (small_guess.rs), blocked by four columns.
//
// Storage: U column-major, leading dimension a multiple of 4; column c holds
// U_0c..U_(c-1)c (the diagonal is kept as 1 / U_cc in `inv_diag`). Both
// solves are the column-oriented substitutions of Golub & Van Loan, Matrix
// Computations, sec. 3.1 (forward by dots, backward by axpys), taken four
// columns at a time: the products with the rows before a block are whole
// groups of four of contiguous memory (four dots, or one four-column
// update, sharing one pass over the vector), and only the block's own
// 4 x 4 triangle is scalar. Short loops pay for their setup: one block
// of four columns costs one loop instead of four (measured in
// small_guess.rs's module comment). The order of every sum is fixed by the
// code, whatever vectors run it.

/// The four columns of the block starting at column `c0` with `width`
/// columns in use; column `c0` again in place of the others (its rows
/// `c0..` are zero, so the triangle of a narrow block sees zeros there).
#[inline(always)]
fn block_columns(u: &[f64], ld: usize, c0: usize, width: usize) -> [&[f64]; 4] {
    std::array::from_fn(|t| {
        let c = c0 + if t < width { t } else { 0 };
        &u[c * ld..c * ld + ld]
    })
}

/// `1 / U_cc` of the block's columns, 0 for those not in use (their
/// unknowns come out 0 and are not stored).
#[inline(always)]
fn block_inverses(inv_diag: &[f64], c0: usize, width: usize) -> [f64; 4] {
    std::array::from_fn(|t| if t < width { inv_diag[c0 + t] } else { 0.0 })
}

/// Solves `U' x = b` in place for the `k = inv_diag.len()` leading columns
/// of `u` (layout above; `u` holds at least `k` columns), with `b.len()`
/// at least `k` rounded up to a multiple of 4 (rows `k..` finite; they are
/// read, never written). `U' x = b` is also the bordering step of the
/// factor: a new column of U is `U_11'^-1 M_1j`.
#[inline(always)]
pub(crate) fn solve_transposed_in_place(u: &[f64], ld: usize, inv_diag: &[f64], b: &mut [f64]) {
    let k = inv_diag.len();
    let mut c0 = 0;
    while c0 < k {
        let width = (k - c0).min(4);
        let [u0, u1, u2, u3] = block_columns(u, ld, c0, width);
        let (done, rest) = b.split_at_mut(c0);
        // Dots of the block's columns with the rows before it.
        let mut acc = [[0.0_f64; 4]; 4];
        for ((((y, x0), x1), x2), x3) in done
            .chunks_exact(4)
            .zip(u0.chunks_exact(4))
            .zip(u1.chunks_exact(4))
            .zip(u2.chunks_exact(4))
            .zip(u3.chunks_exact(4))
        {
            for l in 0..4 {
                acc[0][l] += x0[l] * y[l];
                acc[1][l] += x1[l] * y[l];
                acc[2][l] += x2[l] * y[l];
                acc[3][l] += x3[l] * y[l];
            }
        }
        let s = acc.map(|a| (a[0] + a[2]) + (a[1] + a[3]));
        let inv = block_inverses(inv_diag, c0, width);
        // The block's own triangle, row by row of U'.
        let r = &mut rest[..4];
        let x0 = (r[0] - s[0]) * inv[0];
        let x1 = (r[1] - s[1] - u1[c0] * x0) * inv[1];
        let x2 = (r[2] - s[2] - u2[c0] * x0 - u2[c0 + 1] * x1) * inv[2];
        let x3 = (r[3] - s[3] - u3[c0] * x0 - u3[c0 + 1] * x1 - u3[c0 + 2] * x2) * inv[3];
        r[..width].copy_from_slice(&[x0, x1, x2, x3][..width]);
        c0 += width;
    }
}

/// Solves `U x = b` in place (same storage and sizes as
/// [`solve_transposed_in_place`]), last block first.
#[inline(always)]
pub(crate) fn solve_in_place(u: &[f64], ld: usize, inv_diag: &[f64], b: &mut [f64]) {
    let mut end = inv_diag.len();
    while end > 0 {
        let c0 = (end - 1) / 4 * 4;
        let width = end - c0;
        let [u0, u1, u2, u3] = block_columns(u, ld, c0, width);
        let inv = block_inverses(inv_diag, c0, width);
        let (head, rest) = b.split_at_mut(c0);
        // The block's own triangle, last column first.
        let r = &mut rest[..4];
        let x3 = r[3] * inv[3];
        let x2 = (r[2] - u3[c0 + 2] * x3) * inv[2];
        let x1 = (r[1] - u3[c0 + 1] * x3 - u2[c0 + 1] * x2) * inv[1];
        let x0 = (r[0] - u3[c0] * x3 - u2[c0] * x2 - u1[c0] * x1) * inv[0];
        let x = [x0, x1, x2, x3];
        r[..width].copy_from_slice(&x[..width]);
        // The rows before the block, four columns at once (the columns not
        // in use have x = 0).
        for ((((y, v0), v1), v2), v3) in head
            .chunks_exact_mut(4)
            .zip(u0.chunks_exact(4))
            .zip(u1.chunks_exact(4))
            .zip(u2.chunks_exact(4))
            .zip(u3.chunks_exact(4))
        {
            for l in 0..4 {
                y[l] -= (v0[l] * x[0] + v1[l] * x[1]) + (v2[l] * x[2] + v3[l] * x[3]);
            }
        }
        end = c0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `k x k` upper factor with leading dimension `ld`, zeros from the
    /// diagonal down, and its `1 / U_cc`.
    fn factor(k: usize, ld: usize) -> (Vec<f64>, Vec<f64>) {
        let mut u = vec![0.0; ld * k.max(1)];
        for c in 0..k {
            for r in 0..c {
                u[c * ld + r] = ((r * 7 + c * 3) % 11) as f64 / 11.0 - 0.5;
            }
        }
        let inv: Vec<f64> = (0..k).map(|c| 1.0 / (2.0 + (c % 3) as f64)).collect();
        (u, inv)
    }

    /// `U_rc` with the diagonal from `inv`.
    fn entry(u: &[f64], inv: &[f64], ld: usize, r: usize, c: usize) -> f64 {
        match r.cmp(&c) {
            std::cmp::Ordering::Less => u[c * ld + r],
            std::cmp::Ordering::Equal => 1.0 / inv[c],
            std::cmp::Ordering::Greater => 0.0,
        }
    }

    #[test]
    fn both_solves_invert_their_triangle() {
        // Every block width and a leading dimension past k.
        for k in 0..14_usize {
            let ld = (k + 1).next_multiple_of(4);
            let (u, inv) = factor(k, ld);
            let x: Vec<f64> = (0..k).map(|i| (i as f64 * 0.7).sin()).collect();
            // b = U' x and c = U x by the definition, then solve back.
            let mut bt: Vec<f64> = (0..k)
                .map(|r| (0..k).map(|t| entry(&u, &inv, ld, t, r) * x[t]).sum())
                .collect();
            let mut b: Vec<f64> = (0..k)
                .map(|r| (0..k).map(|t| entry(&u, &inv, ld, r, t) * x[t]).sum())
                .collect();
            // Rows past k: padding the solves read but must not change.
            bt.resize(ld, 0.25);
            b.resize(ld, 0.25);
            solve_transposed_in_place(&u, ld, &inv, &mut bt);
            solve_in_place(&u, ld, &inv, &mut b);
            assert!(bt[k..].iter().chain(&b[k..]).all(|&x| x == 0.25));
            for i in 0..k {
                assert!((bt[i] - x[i]).abs() < 1e-13, "k {k} row {i}: {}", bt[i]);
                assert!((b[i] - x[i]).abs() < 1e-13, "k {k} row {i}: {}", b[i]);
            }
        }
    }
}
