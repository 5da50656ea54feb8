// A nonsingular principal block of a square matrix, for a warm start of
// Lemke's method (tableau.rs, `warm_basis`): a guessed basis with dependent
// loaded contacts has a singular block; the rows kept are those the pivoting
// would keep (Baraff 1994 sec. 3).
//
// Method: Gaussian elimination with principal pivots of order 1 or 2 (as in
// Bunch & Kaufman 1977, here on a non-symmetric block), dropping a row that
// has neither a 1 x 1 pivot (its Schur complement given the rows kept so far)
// nor a 2 x 2 one with another pending row above `tol`. Rows with a zero
// diagonal go first, each with the partner of the best 2 x 2 pivot: in the
// standard form of a box problem a multiplier's diagonal is 0 and its block
// with its row's sign part is nonsingular even where the sign part depends on
// other rows (a friction row at its bound); one by one, the sign part could be
// kept alone and the multiplier dropped. The others follow in index order.
// Each pivot is swapped to the front of the pending rows and each dropped row
// to the back, so every update runs over one contiguous trailing block.

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
                take_pair(c, k, order, (front, back), p, u);
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
            take_pair(c, k, order, (front, back), p, u);
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

/// Moves rows `p` and `u` to `front` and `front + 1` and eliminates their
/// 2 x 2 pivot from the pending block `[front, back)`.
fn take_pair(
    c: &mut [f64],
    k: usize,
    order: &mut [usize],
    (front, back): (usize, usize),
    p: usize,
    u: usize,
) {
    swap(c, k, order, front, p);
    let u = if u == front { p } else { u };
    swap(c, k, order, front + 1, u);
    eliminate_pair(c, k, front, back);
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

    /// The kept and dropped rows of `m` (tolerance 1e-9), checked against
    /// determinants by faer's LU: the kept block is nonsingular, no dropped
    /// row can join it, and `order` is a permutation.
    fn split(m: &Mat<f64>) -> (Vec<usize>, Vec<usize>) {
        let k = m.nrows();
        let mut c: Vec<f64> = (0..k * k).map(|x| m[(x % k, x / k)]).collect();
        let mut order = Vec::new();
        let kept = independent_rows(&mut c, k, 1e-9, &mut order);
        let det = |rows: &[usize]| {
            let b = Mat::from_fn(rows.len(), rows.len(), |i, j| m[(rows[i], rows[j])]);
            b.as_ref().determinant().abs()
        };
        let (kept, dropped) = order.split_at(kept);
        assert!(det(kept) > 1e-9, "{kept:?}");
        for &d in dropped {
            assert!(det(&[kept, &[d]].concat()) < 1e-9, "{d} joins {kept:?}");
        }
        let mut all = order.clone();
        all.sort_unstable();
        assert_eq!(all, (0..k).collect::<Vec<_>>());
        (kept.to_vec(), dropped.to_vec())
    }

    #[test]
    fn multipliers_are_kept_with_their_partners() {
        // A rank-3 PSD 6 x 6 block A A' (A 6 x 3 of rank 3, its first four
        // rows too) bordered by the multiplier structure of a box problem's
        // standard form: rows 6 and 7 with a zero diagonal, coupled to rows
        // 4 and 5 (dependent on rows 0-3) by +1 / -1.
        let a = Mat::from_fn(6, 3, |i, j| ((i * 7 + j * 13) % 11) as f64 - 5.0);
        let m = Mat::from_fn(8, 8, |i, j| match (i, j) {
            (i, j) if i < 6 && j < 6 => (0..3).map(|t| a[(i, t)] * a[(j, t)]).sum(),
            (4, 6) | (5, 7) => 1.0,
            (6, 4) | (7, 5) => -1.0,
            _ => 0.0,
        });
        // Both pairs are kept and leave rows 0-3 as they were (rank 3): one
        // of them goes.
        let (kept, _) = split(&m);
        assert!([4, 5, 6, 7].iter().all(|r| kept.contains(r)), "{kept:?}");
        assert_eq!(kept.len(), 7, "{kept:?}");
    }

    #[test]
    fn a_nonsingular_block_keeps_every_row() {
        let m = Mat::from_fn(9, 9, |i, j| {
            if i == j {
                3.0
            } else {
                ((i * 9 + j) as f64).cos() * 0.3
            }
        });
        assert_eq!(split(&m).0.len(), 9);
    }
}
