// Triangular solves with the small guess's factor `M_CC = U'DU`
// (small_guess.rs: U unit upper triangular, D diagonal), blocked by four
// columns.
//
// Storage: U column-major, leading dimension a multiple of 4; column c holds
// U_0c..U_(c-1)c (the unit diagonal is not stored; `1 / D_cc` is kept in
// `inv_diag` by the caller). Both
// solves are the column-oriented substitutions of Golub & Van Loan, Matrix
// Computations, sec. 3.1 (forward by dots, backward by axpys), taken four
// columns at a time: the products with the rows before a block are whole
// groups of four of contiguous memory (four dots, or one four-column
// update, sharing one pass over the vector), and only the block's own
// 4 x 4 triangle is scalar. Short loops pay for their setup: one block
// of four columns costs one loop instead of four. The products are written
// on `Lanes` (lanes.rs): left to the compiler, the four dots were
// vectorised across the columns with a shuffle per product (measured: the
// small guess on spd_64 of the peers' problems 252k -> 213k instructions a
// solve, spd_16 20.6k -> 19.4k). The order of every sum is fixed by the
// code, whatever vectors run it. At n <= 20 a block has few products, so
// its setup (cutting its columns) and the reduction of its four
// accumulators are a large share: full blocks take their columns by
// split_at and the four sums are reduced in registers (`Lanes::sum4`):
// normal_stack_5 20.1k -> 18.5k instructions a solve. When the factor
// appended one row at a time, its bordering solves (this one-right-hand-
// side solve then) ended on a block of `j % 4` columns for most rows j;
// that block computes only its own dots and unknowns instead of a whole
// block with zero columns (same bits): callgrind, instructions a whole
// Dantzig solve, spd_16 13.30k -> 13.27k, normal_stack_5 17.58k -> 17.31k,
// spd_64 149.1k -> 143.1k, normal_stack_20 200.6k -> 190.4k.
// In the 4 x 4 triangles each unknown's terms are fused multiply-adds
// (`f64::mul_add`: one rounding on every machine), the latest unknown's
// last, so the chain from one unknown to the next is one fma and one
// multiply (8 cycles) instead of a multiply, a subtraction and a multiply
// (12): paired runs, a whole Dantzig solve, spd_16 0.988x, normal_stack_5
// 0.959x, spd_64 0.954x the time; instructions 12.14k -> 12.01k, 15.93k ->
// 15.56k, 133.0k -> 130.3k. With the unit diagonal of U'DU (the factor
// was U'U with a stored 1 / U_cc before) the multiply goes too: the chain
// is one fma a step.
//
// The factor now appends four rows at a time: `solve_transposed_four`
// solves their four bordering systems at once, one per lane of a row of X
// (interleaved), so that nothing is reduced across lanes and the 4 x 4
// triangles run as vectors; `scale_with_products` then gives their Gram
// products and their part of the forward solve `U' y = -q_C`. The
// one-right-hand-side solves remain for the `z_C` solve of a guess.

use crate::lanes::Lanes;

/// The four columns of the block starting at column `c0` with `width`
/// columns in use, and which are; in place of a column not in use, column
/// `c0` again (its rows `c0..` are zero, so the triangle of a narrow block
/// sees zeros there; its unknown is not stored).
#[inline(always)]
fn block(u: &[f64], ld: usize, c0: usize, width: usize) -> ([&[f64]; 4], [bool; 4]) {
    let cols = &u[c0 * ld..(c0 + width) * ld];
    if width == 4 {
        // Every block but the last: four consecutive columns, cut by
        // split_at (the branches of the general case below, paid by
        // every block, were the largest cost of these solves at n <= 20).
        let (u0, rest) = cols.split_at(ld);
        let (u1, rest) = rest.split_at(ld);
        let (u2, u3) = rest.split_at(ld);
        return ([u0, u1, u2, u3], [true; 4]);
    }
    // Column c0 + t if in use, else c0.
    let col = |t: usize| {
        let o = if t < width { t * ld } else { 0 };
        &cols[o..o + ld]
    };
    (
        [col(0), col(1), col(2), col(3)],
        [true, width > 1, width > 2, width > 3],
    )
}

/// A column in groups of four.
#[inline(always)]
fn quads(col: &[f64]) -> &[[f64; 4]] {
    pulp::as_arrays::<4, f64>(col).0
}

/// The first `len` (even) entries of a column in pairs.
#[inline(always)]
fn leading_pairs(col: &[f64], len: usize) -> &[[f64; 2]] {
    pulp::as_arrays::<2, f64>(&col[..len]).0
}

/// Stores the block's unknowns in use.
#[inline(always)]
fn store_block(r: &mut [f64], width: usize, x: [f64; 4]) {
    r[0] = x[0];
    if width > 1 {
        r[1] = x[1];
    }
    if width > 2 {
        r[2] = x[2];
    }
    if width > 3 {
        r[3] = x[3];
    }
}

/// Solves `U' x = b` in place (U unit upper triangular) for the `k`
/// leading columns of `u` (layout above; `u` holds at least `k` columns),
/// with `b.len()` at least `k` rounded up to a multiple of 4 (rows `k..`
/// are neither read nor written). The small guess's `z_C` solve where a
/// bound is not 0 (small_guess.rs; the factor's own bordering solves are
/// [`solve_transposed_four`]).
///
/// The whole blocks come first, then a last block of `k % 4` columns with
/// only that many dots and unknowns ([`last_block_transposed`]).
#[inline(always)]
pub(crate) fn solve_transposed_in_place<L: Lanes>(
    l: L,
    u: &[f64],
    ld: usize,
    k: usize,
    b: &mut [f64],
) {
    let whole = k & !3;
    let mut c0 = 0;
    while c0 < whole {
        let cols = &u[c0 * ld..(c0 + 4) * ld];
        let (u0, rest) = cols.split_at(ld);
        let (u1, rest) = rest.split_at(ld);
        let (u2, u3) = rest.split_at(ld);
        let (done, rest) = b.split_at_mut(c0);
        // Dots of the block's columns with the rows before it.
        let (mut a0, mut a1, mut a2, mut a3) =
            (l.splat(0.0), l.splat(0.0), l.splat(0.0), l.splat(0.0));
        for ((((y, x0), x1), x2), x3) in quads(done)
            .iter()
            .zip(quads(u0))
            .zip(quads(u1))
            .zip(quads(u2))
            .zip(quads(u3))
        {
            let y = l.load(y);
            a0 = l.add(a0, l.mul(l.load(x0), y));
            a1 = l.add(a1, l.mul(l.load(x1), y));
            a2 = l.add(a2, l.mul(l.load(x2), y));
            a3 = l.add(a3, l.mul(l.load(x3), y));
        }
        // The block's own triangle, row by row of U'.
        let (v1, v2, v3) = (&u1[c0..c0 + 1], &u2[c0..c0 + 2], &u3[c0..c0 + 3]);
        let r = &mut rest[..4];
        let [s0, s1, s2, s3] = l.sum4([a0, a1, a2, a3]);
        let x0 = r[0] - s0;
        let x1 = (-v1[0]).mul_add(x0, r[1] - s1);
        let x2 = (-v2[1]).mul_add(x1, (-v2[0]).mul_add(x0, r[2] - s2));
        let x3 = (-v3[2]).mul_add(x2, (-v3[1]).mul_add(x1, (-v3[0]).mul_add(x0, r[3] - s3)));
        r.copy_from_slice(&[x0, x1, x2, x3]);
        c0 += 4;
    }
    match k - whole {
        1 => last_block_transposed::<L, 1>(l, u, ld, b, whole),
        2 => last_block_transposed::<L, 2>(l, u, ld, b, whole),
        3 => last_block_transposed::<L, 3>(l, u, ld, b, whole),
        _ => {}
    }
}

/// The last block of [`solve_transposed_in_place`] when it has `W < 4`
/// columns, starting at column `c0`: `W` dots and `W` unknowns, each
/// computed with the operations of a whole block in the same order
/// (the dots reduced as `Lanes::sum4` reduces them, `(s0 + s1) + (s2 +
/// s3)`), so the bits are those of a whole block with its unused columns
/// left out (which no unknown in use reads).
#[inline(always)]
fn last_block_transposed<L: Lanes, const W: usize>(
    l: L,
    u: &[f64],
    ld: usize,
    b: &mut [f64],
    c0: usize,
) {
    let cols: [&[f64]; W] = std::array::from_fn(|t| &u[(c0 + t) * ld..(c0 + t + 1) * ld]);
    let (done, rest) = b.split_at_mut(c0);
    let mut acc = [l.splat(0.0); W];
    for (p, y) in quads(done).iter().enumerate() {
        let y = l.load(y);
        for t in 0..W {
            acc[t] = l.add(acc[t], l.mul(l.load(&quads(cols[t])[p]), y));
        }
    }
    let r = &mut rest[..W];
    let mut x = [0.0; W];
    for t in 0..W {
        let a = l.to_array(acc[t]);
        let mut v = r[t] - ((a[0] + a[1]) + (a[2] + a[3]));
        for s in 0..t {
            v = (-cols[t][c0 + s]).mul_add(x[s], v);
        }
        x[t] = v;
    }
    r.copy_from_slice(&x);
}

/// Solves `U x = b` in place for the `k` leading columns (U unit upper
/// triangular; same storage and sizes as [`solve_transposed_in_place`]),
/// last block first.
#[inline(always)]
pub(crate) fn solve_in_place<L: Lanes>(l: L, u: &[f64], ld: usize, k: usize, b: &mut [f64]) {
    let mut end = k;
    while end > 0 {
        let c0 = (end - 1) / 4 * 4;
        let width = end - c0;
        let ([u0, u1, u2, u3], used) = block(u, ld, c0, width);
        let (v1, v2, v3) = (&u1[c0..c0 + 1], &u2[c0..c0 + 2], &u3[c0..c0 + 3]);
        let (head, rest) = b.split_at_mut(c0);
        // The block's own triangle, last column first (a column not in use
        // has zeros from row c0 down, so its unknown reaches no other).
        let r = &mut rest[..4];
        // An unknown not in use is 0 from the start (its row of `b` is
        // padding, whatever it holds), so it reaches no other.
        let rhs = |t: usize| if used[t] { r[t] } else { 0.0 };
        let x3 = rhs(3);
        let x2 = (-v3[2]).mul_add(x3, rhs(2));
        let x1 = (-v2[1]).mul_add(x2, (-v3[1]).mul_add(x3, rhs(1)));
        let x0 = (-v1[0]).mul_add(x1, (-v2[0]).mul_add(x2, (-v3[0]).mul_add(x3, r[0])));
        store_block(r, width, [x0, x1, x2, x3]);
        // The rows before the block, four columns at once.
        let (s0, s1, s2, s3) = (l.splat(x0), l.splat(x1), l.splat(x2), l.splat(x3));
        for ((((y, w0), w1), w2), w3) in pulp::as_arrays_mut::<4, f64>(head)
            .0
            .iter_mut()
            .zip(quads(u0))
            .zip(quads(u1))
            .zip(quads(u2))
            .zip(quads(u3))
        {
            let t01 = l.add(l.mul(l.load(w0), s0), l.mul(l.load(w1), s1));
            let t23 = l.add(l.mul(l.load(w2), s2), l.mul(l.load(w3), s3));
            let v = l.sub(l.load(y), l.add(t01, t23));
            l.store(y, v);
        }
        end = c0;
    }
}

/// Solves `U' X = B` in place for four right-hand sides at once, over the
/// `k` leading columns of `u` (layout above): `xs[r]` holds row `r` of the
/// four (interleaved, one lane each), `xs.len()` at least `k` rounded up
/// to a multiple of 4 (rows `k..` are padding: read only by unknowns not
/// in use, which are not stored, and never written; any value will do).
/// This is the factor's bordering step for four rows appended together
/// (small_guess.rs): each lane is one new row's `U_11'^-1 M_1j`, and the
/// four share every load of `U` and every loop, and their chains of
/// dependent operations run side by side.
///
/// Left-looking by blocks of four columns, as [`solve_transposed_in_place`],
/// but the dots run down a column of `U` against whole rows of `X`: column
/// `c` gives `X_c -= sum_r U_rc X_r` with `U_rc` broadcast, so the four
/// lanes are four separate sums and nothing is reduced across lanes. The
/// rows before a block are taken in pairs, `acc + (U_(r+1)c X_(r+1) +
/// U_rc X_r)` with the second product fused (explicitly, so the bits do
/// not depend on the lanes; measured: normal_stack_5 0.96x the time, the
/// 16-row problems unchanged), which halves the chain of dependent
/// additions. In the
/// block's own 4 x 4 triangle each unknown's terms are fused, the latest
/// unknown's last, as in the one-row solve. A last block of fewer than
/// four columns takes column `c0` in place of those not in use (its rows
/// from `c0` down are zero) and stores only its unknowns in use.
#[inline(always)]
pub(crate) fn solve_transposed_four<L: Lanes>(
    l: L,
    u: &[f64],
    ld: usize,
    k: usize,
    xs: &mut [[f64; 4]],
) {
    let mut c0 = 0;
    while c0 < k {
        let width = (k - c0).min(4);
        let ([u0, u1, u2, u3], _) = block(u, ld, c0, width);
        let (done, rest) = xs.split_at_mut(c0);
        let mut acc = [l.splat(0.0); 4];
        let pairs = pulp::as_arrays::<2, [f64; 4]>(done).0;
        for ((((x, w0), w1), w2), w3) in pairs
            .iter()
            .zip(leading_pairs(u0, c0))
            .zip(leading_pairs(u1, c0))
            .zip(leading_pairs(u2, c0))
            .zip(leading_pairs(u3, c0))
        {
            let (xa, xb) = (l.load(&x[0]), l.load(&x[1]));
            for (a, w) in acc.iter_mut().zip([w0, w1, w2, w3]) {
                let pair = l.mul_add(l.splat(w[1]), xb, l.mul(l.splat(w[0]), xa));
                *a = l.add(*a, pair);
            }
        }
        let r = &mut rest[..4];
        let b = |t: usize| l.sub(l.load(&r[t]), acc[t]);
        let neg = |w: f64| l.splat(-w);
        let x0 = b(0);
        let x1 = l.mul_add(neg(u1[c0]), x0, b(1));
        let x2 = l.mul_add(neg(u2[c0 + 1]), x1, l.mul_add(neg(u2[c0]), x0, b(2)));
        let x3 = l.mul_add(
            neg(u3[c0 + 2]),
            x2,
            l.mul_add(neg(u3[c0 + 1]), x1, l.mul_add(neg(u3[c0]), x0, b(3))),
        );
        for (out, x) in r[..width].iter_mut().zip([x0, x1, x2, x3]) {
            l.store(out, x);
        }
        c0 += 4;
    }
}

/// Scales the four solutions of [`solve_transposed_four`] by `D^-1` in
/// place (`xs[r] <- xs[r] / D_rr` for the `inv_diag.len()` leading rows:
/// the new rows' columns of `U`) and returns their Gram products
/// `G[s][t] = sum_r X_rs X_rt / D_rr` (lane `t` of entry `s`) and their
/// products with `v` (the forward solution `U_11' y = b` of the rows
/// before: lane `t` is `sum_r U_rt y_r`), each summed over `r` in order,
/// in pairs fused as in the solve. `G[t][t]` is row `t`'s `x' D^-1 x`,
/// `G[s][t]` the share of `M_st` that the rows before the four account for
/// (`M_st - G[s][t]` starts the substitution for `D_ss U_st`), and the
/// products with `y` their share of the new rows' `y` (small_guess.rs).
#[inline(always)]
pub(crate) fn scale_with_products<L: Lanes>(
    l: L,
    inv_diag: &[f64],
    v: &[f64],
    xs: &mut [[f64; 4]],
) -> ([[f64; 4]; 4], [f64; 4]) {
    let k = inv_diag.len();
    let mut gram = [l.splat(0.0); 4];
    let mut with_v = l.splat(0.0);
    let (pairs, last) = pulp::as_arrays_mut::<2, [f64; 4]>(&mut xs[..k]);
    let (inv_pairs, inv_last) = pulp::as_arrays::<2, f64>(inv_diag);
    let (v_pairs, v_last) = pulp::as_arrays::<2, f64>(&v[..k]);
    for ((x, inv), vs) in pairs.iter_mut().zip(inv_pairs).zip(v_pairs) {
        let (ca, cb) = (x[0], x[1]);
        let ya = l.mul(l.load(&ca), l.splat(inv[0]));
        let yb = l.mul(l.load(&cb), l.splat(inv[1]));
        for (s, g) in gram.iter_mut().enumerate() {
            let pair = l.mul_add(l.splat(cb[s]), yb, l.mul(l.splat(ca[s]), ya));
            *g = l.add(*g, pair);
        }
        let pair = l.mul_add(yb, l.splat(vs[1]), l.mul(ya, l.splat(vs[0])));
        with_v = l.add(with_v, pair);
        l.store(&mut x[0], ya);
        l.store(&mut x[1], yb);
    }
    for ((x, &inv), &vr) in last.iter_mut().zip(inv_last).zip(v_last) {
        let c = *x;
        let y = l.mul(l.load(&c), l.splat(inv));
        for (s, g) in gram.iter_mut().enumerate() {
            *g = l.add(*g, l.mul(l.splat(c[s]), y));
        }
        with_v = l.add(with_v, l.mul(y, l.splat(vr)));
        l.store(x, y);
    }
    let [g0, g1, g2, g3] = gram;
    (
        [
            l.to_array(g0),
            l.to_array(g1),
            l.to_array(g2),
            l.to_array(g3),
        ],
        l.to_array(with_v),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lanes::ArrayLanes;

    /// A `k x k` unit upper factor with leading dimension `ld`, zeros from
    /// the diagonal down (the unit diagonal is not stored), and a `D^-1`.
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

    /// `U_rc` with the unit diagonal.
    fn entry(u: &[f64], ld: usize, r: usize, c: usize) -> f64 {
        match r.cmp(&c) {
            std::cmp::Ordering::Less => u[c * ld + r],
            std::cmp::Ordering::Equal => 1.0,
            std::cmp::Ordering::Greater => 0.0,
        }
    }

    /// Four right-hand sides at once: each lane solves its own `U' x = b`
    /// (to rounding, against the exact x), the padding rows are left alone,
    /// and the scaling and Gram products are those of the solved lanes.
    /// Both lanes implementations give the same bits.
    #[test]
    fn four_solves_at_once_invert_their_triangle() {
        for k in 0..14_usize {
            let ld = (k + 1).next_multiple_of(4);
            let (u, inv) = factor(k, ld);
            let x = |r: usize, t: usize| ((r * 4 + t) as f64 * 0.37).cos();
            let mut xs: Vec<[f64; 4]> = (0..k)
                .map(|r| {
                    std::array::from_fn(|t| (0..k).map(|i| entry(&u, ld, i, r) * x(i, t)).sum())
                })
                .collect();
            // Padding that the unknowns not in use read: a finite value,
            // so that a store into it would show.
            xs.resize(ld, [12345.0; 4]);
            let mut array = xs.clone();
            solve_transposed_four(ArrayLanes, &u, ld, k, &mut array);
            assert!(array[k..].iter().all(|r| *r == [12345.0; 4]), "k {k}");
            for (r, row) in array[..k].iter().enumerate() {
                for (t, &v) in row.iter().enumerate() {
                    assert!((v - x(r, t)).abs() < 1e-13, "k {k} row {r} lane {t}: {v}");
                }
            }
            let solved = array.clone();
            let v: Vec<f64> = (0..k).map(|r| 1.0 / (r as f64 + 1.5)).collect();
            let (gram, with_v) = scale_with_products(ArrayLanes, &inv, &v, &mut array);
            for s in 0..4 {
                for t in 0..4 {
                    let sum: f64 = (0..k).map(|r| solved[r][s] * solved[r][t] * inv[r]).sum();
                    assert!(
                        (gram[s][t] - sum).abs() <= 1e-14 * sum.abs().max(1.0),
                        "k {k}"
                    );
                }
            }
            for t in 0..4 {
                let sum: f64 = (0..k).map(|r| solved[r][t] * inv[r] * v[r]).sum();
                assert!(
                    (with_v[t] - sum).abs() <= 1e-14 * sum.abs().max(1.0),
                    "k {k}"
                );
            }
            for r in 0..k {
                assert_eq!(array[r], solved[r].map(|x| x * inv[r]), "k {k} row {r}");
            }
            #[cfg(target_arch = "x86_64")]
            if let Some(simd) = pulp::x86::V3::try_new() {
                let bits =
                    |x: &[[f64; 4]]| x.iter().map(|r| r.map(f64::to_bits)).collect::<Vec<_>>();
                let mut vector = xs.clone();
                solve_transposed_four(simd, &u, ld, k, &mut vector);
                assert_eq!(bits(&vector), bits(&solved), "k {k}");
                let (vector_gram, vector_v) = scale_with_products(simd, &inv, &v, &mut vector);
                assert_eq!(bits(&vector_gram), bits(&gram), "k {k}");
                assert_eq!(
                    vector_v.map(f64::to_bits),
                    with_v.map(f64::to_bits),
                    "k {k}"
                );
                assert_eq!(bits(&vector), bits(&array), "k {k}");
            }
        }
    }

    #[test]
    fn both_solves_invert_their_triangle() {
        // Every block width and a leading dimension past k.
        for k in 0..14_usize {
            let ld = (k + 1).next_multiple_of(4);
            let (u, _) = factor(k, ld);
            let x: Vec<f64> = (0..k).map(|i| (i as f64 * 0.7).sin()).collect();
            // b = U' x and c = U x by the definition, then solve back.
            let mut bt: Vec<f64> = (0..k)
                .map(|r| (0..k).map(|t| entry(&u, ld, t, r) * x[t]).sum())
                .collect();
            let mut b: Vec<f64> = (0..k)
                .map(|r| (0..k).map(|t| entry(&u, ld, r, t) * x[t]).sum())
                .collect();
            // Rows past k: NaN padding, which the solves must neither read
            // nor change.
            bt.resize(ld, f64::NAN);
            b.resize(ld, f64::NAN);
            solve_transposed_in_place(ArrayLanes, &u, ld, k, &mut bt);
            solve_in_place(ArrayLanes, &u, ld, k, &mut b);
            assert!(bt[k..].iter().chain(&b[k..]).all(|&x| x.is_nan()));
            for i in 0..k {
                assert!((bt[i] - x[i]).abs() < 1e-13, "k {k} row {i}: {}", bt[i]);
                assert!((b[i] - x[i]).abs() < 1e-13, "k {k} row {i}: {}", b[i]);
            }
        }
    }
}
