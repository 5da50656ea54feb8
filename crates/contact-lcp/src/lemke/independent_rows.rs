// A nonsingular principal block of a square matrix, for a warm start of
// Lemke's method (tableau.rs, `warm_basis`).
//
// A guessed basis from a contact problem's iterate holds dependent rows
// (several contacts on one face, each carrying load) whose principal block
// is singular; the warm start keeps a subset whose block is nonsingular and
// leaves the rest out of the basis, as the pivoting leaves such rows out
// (Baraff 1994 sec. 3). Method: Gaussian elimination with principal pivots
// of order 1 or 2 (as the symmetric indefinite factorisations do, Bunch &
// Kaufman 1977, here on a non-symmetric block), dropping a row that has
// neither a 1 x 1 pivot (its Schur complement given the rows kept so far)
// nor a 2 x 2 one with another pending row above `tol`. Rows with a zero
// diagonal go first, each with the partner of the best 2 x 2 pivot: in the
// standard form of a box problem a multiplier's diagonal is 0 and its
// block with its row's sign part is nonsingular even where that sign part
// depends on other rows (a friction row at its bound); eliminated one by
// one, the sign part could be kept alone and a dependent free row left
// without a partner. The others follow in index order.
//
// Layout: each pivot is swapped to the front of the pending rows and
// columns and each dropped row to the back, so that every update runs over
// one contiguous trailing block, column by column (O(k^3 / 3) multiply-adds
// in loops the compiler vectorises).

/// Finds the kept rows of the `k x k` column-major block `c` (overwritten
/// by the elimination). `order` receives the permutation: its first
/// `returned` entries are the kept rows (original positions, in pivot
/// order), the rest the dropped ones.
pub(super) fn independent_rows(c: &mut [f64], k: usize, tol: f64, order: &mut Vec<usize>) -> usize {
    order.clear();
    order.extend(0..k);
    // Pending rows are [front, back); kept ones before, dropped after.
    let (mut front, mut back) = (0, k);
    let diag_zero = |c: &[f64], p: usize| c[p * k + p].abs() <= tol;
    // Zero diagonals first (in index order: the pending region keeps its
    // original order until rows are swapped out of it).
    let mut p = front;
    while p < back {
        if !diag_zero(c, p) {
            p += 1;
            continue;
        }
        match best_partner(c, k, front, back, p, tol) {
            Some(u) => {
                swap(c, k, order, front, p);
                let u = if u == front { p } else { u };
                swap(c, k, order, front + 1, u);
                eliminate_pair(c, k, front, back);
                front += 2;
                // The rows swapped into p and p + 1 are still to be seen.
                p = p.max(front);
            }
            None => {
                back -= 1;
                swap(c, k, order, p, back);
            }
        }
    }
    // The others by original index.
    while front < back {
        let p = (front..back).min_by_key(|&p| order[p]).unwrap_or(front);
        let pivot = c[p * k + p];
        if pivot.abs() > tol && pivot.is_finite() {
            swap(c, k, order, front, p);
            eliminate_one(c, k, front, back);
            front += 1;
        } else if let Some(u) = best_partner(c, k, front, back, p, tol) {
            swap(c, k, order, front, p);
            let u = if u == front { p } else { u };
            swap(c, k, order, front + 1, u);
            eliminate_pair(c, k, front, back);
            front += 2;
        } else {
            back -= 1;
            swap(c, k, order, p, back);
        }
    }
    front
}

/// The pending row u != t in [front, back) whose 2 x 2 principal block
/// with t has the largest |determinant|, if above `tol`.
fn best_partner(
    c: &[f64],
    k: usize,
    front: usize,
    back: usize,
    t: usize,
    tol: f64,
) -> Option<usize> {
    let mut best = (tol, None);
    for u in front..back {
        if u != t {
            let det = c[t * k + t] * c[u * k + u] - c[u * k + t] * c[t * k + u];
            if det.abs() > best.0 && det.is_finite() {
                best = (det.abs(), Some(u));
            }
        }
    }
    best.1
}

/// Swaps rows and columns `a` and `b` of `c`, and their entries of `order`.
fn swap(c: &mut [f64], k: usize, order: &mut [usize], a: usize, b: usize) {
    if a == b {
        return;
    }
    order.swap(a, b);
    for col in 0..k {
        c.swap(col * k + a, col * k + b);
    }
    let (lo, hi) = (a.min(b), a.max(b));
    let (head, tail) = c.split_at_mut(hi * k);
    head[lo * k..(lo + 1) * k].swap_with_slice(&mut tail[..k]);
}

/// Eliminates the pivot at `f` from the trailing block (f, back):
/// `C_ia -= C_if C_fa / C_ff`.
fn eliminate_one(c: &mut [f64], k: usize, f: usize, back: usize) {
    let inv = 1.0 / c[f * k + f];
    let (head, tail) = c.split_at_mut((f + 1) * k);
    let pivot_col = &head[f * k + f + 1..f * k + back];
    for col in tail[..(back - f - 1) * k].chunks_exact_mut(k) {
        let factor = col[f] * inv;
        if factor != 0.0 {
            for (x, &y) in col[f + 1..back].iter_mut().zip(pivot_col) {
                *x -= factor * y;
            }
        }
    }
}

/// Eliminates the 2 x 2 pivot P at `f`, `f + 1` from the trailing block
/// (f + 1, back): `C_ia -= [C_if, C_ig] P^-1 [C_fa; C_ga]`, g = f + 1.
fn eliminate_pair(c: &mut [f64], k: usize, f: usize, back: usize) {
    let g = f + 1;
    let (pff, pfg) = (c[f * k + f], c[g * k + f]);
    let (pgf, pgg) = (c[f * k + g], c[g * k + g]);
    let inv_det = 1.0 / (pff * pgg - pfg * pgf);
    let (head, tail) = c.split_at_mut((g + 1) * k);
    let col_f = &head[f * k + g + 1..f * k + back];
    let col_g = &head[g * k + g + 1..g * k + back];
    for col in tail[..(back - g - 1) * k].chunks_exact_mut(k) {
        let (cfa, cga) = (col[f], col[g]);
        let ff = (pgg * cfa - pfg * cga) * inv_det;
        let fg = (pff * cga - pgf * cfa) * inv_det;
        if ff != 0.0 || fg != 0.0 {
            for ((x, &a), &b) in col[g + 1..back].iter_mut().zip(col_f).zip(col_g) {
                *x -= a * ff + b * fg;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    /// |det| of the principal block of `m` on `rows`, by faer's LU.
    fn principal_det(m: &Mat<f64>, rows: &[usize]) -> f64 {
        let b = Mat::from_fn(rows.len(), rows.len(), |i, j| m[(rows[i], rows[j])]);
        if rows.is_empty() {
            return 1.0;
        }
        b.as_ref().determinant().abs()
    }

    fn column_major(m: &Mat<f64>) -> Vec<f64> {
        let k = m.nrows();
        (0..k * k).map(|x| m[(x % k, x / k)]).collect()
    }

    #[test]
    fn kept_rows_are_nonsingular_and_dropped_ones_dependent() {
        // A rank-3 PSD 6 x 6 block A A' (A 6 x 3 of rank 3, its first four
        // rows too) bordered by the multiplier structure of a box problem's
        // standard form: rows 6 and 7 with a zero diagonal, coupled to rows
        // 4 and 5 (dependent on rows 0-3) by +1 / -1.
        let a = Mat::from_fn(6, 3, |i, j| ((i * 7 + j * 13) % 11) as f64 - 5.0);
        let k = 8;
        let m = Mat::from_fn(k, k, |i, j| match (i, j) {
            (i, j) if i < 6 && j < 6 => (0..3).map(|t| a[(i, t)] * a[(j, t)]).sum(),
            (4, 6) | (5, 7) => 1.0,
            (6, 4) | (7, 5) => -1.0,
            _ => 0.0,
        });
        let mut c = column_major(&m);
        let mut order = Vec::new();
        let kept = independent_rows(&mut c, k, 1e-9, &mut order);
        let rows = &order[..kept];
        // The kept block must be nonsingular and no dropped row may join
        // it.
        assert!(principal_det(&m, rows) > 1e-9, "{rows:?}");
        for &d in &order[kept..] {
            let mut with = rows.to_vec();
            with.push(d);
            assert!(principal_det(&m, &with) < 1e-9, "{d} joins {rows:?}");
        }
        // Both multipliers (zero diagonals) are kept with their partners,
        // which the pairs make independent of rows 0-3 (the pair's Schur
        // complement leaves rows 0-3 as they were: rank 3), so one of rows
        // 0-3 goes: 4 + 3 rows.
        assert!(rows.contains(&6) && rows.contains(&7), "{rows:?}");
        assert!(rows.contains(&4) && rows.contains(&5), "{rows:?}");
        assert_eq!(kept, 7, "{rows:?}");
    }

    #[test]
    fn a_nonsingular_block_keeps_every_row() {
        let k = 9;
        let m = Mat::from_fn(k, k, |i, j| {
            if i == j {
                3.0
            } else {
                ((i * k + j) as f64).cos() * 0.3
            }
        });
        let mut c = column_major(&m);
        let mut order = Vec::new();
        assert_eq!(independent_rows(&mut c, k, 1e-9, &mut order), k);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..k).collect::<Vec<_>>());
    }
}
