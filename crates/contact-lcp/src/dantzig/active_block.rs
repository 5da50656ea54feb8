// The block M_AC of the rows whose w the pivoting watches (pivot.rs): the
// "active" rows A that can stop a step (the driven row, processed rows at a
// bound or parked). Clamped rows have dw = 0 and rows not yet driven have
// no event, so their w is recomputed when needed (as ODE's Dantzig solver
// restricts its update). A packed column-major copy of M_AC, columns in the
// factor's order of C, makes dw_A = M_AC dz_C + s M_Ad one dense product;
// it follows every exchange at O(n) or O(|A| (k - p)) cost.

use crate::linalg::kernels::gemv;
use crate::problem::Lcp;

/// Marks a row that is not in A.
const NOT_ACTIVE: usize = usize::MAX;

/// Packed `M_AC` (for a symmetric M a row is read as the contiguous column
/// of the same index).
#[derive(Clone, Debug, Default)]
pub(crate) struct ActiveBlock {
    /// Leading dimension: the problem dimension n (|A| <= n).
    ld: usize,
    /// `M_AC`, column-major, column `r` for the `r`-th row of C.
    block: Vec<f64>,
    /// The rows in A, in slot order.
    pub(crate) rows: Vec<usize>,
    /// Row -> slot in `rows`, or `NOT_ACTIVE`.
    slot: Vec<usize>,
    /// Columns held (= |C|).
    cols: usize,
    /// Whether M is symmetric.
    symmetric: bool,
}

impl ActiveBlock {
    /// Empties A and C for a problem of dimension `n` (allocates only when
    /// `n` grows).
    pub(crate) fn reset(&mut self, n: usize, symmetric: bool) {
        self.ld = n;
        self.symmetric = symmetric;
        if self.block.len() < n * n {
            self.block.resize(n * n, 0.0);
        }
        self.rows.clear();
        self.slot.clear();
        self.slot.resize(n, NOT_ACTIVE);
        self.cols = 0;
    }

    /// Empties A, keeping C = `clamped` (the factor's order).
    pub(crate) fn reset_rows(&mut self, clamped: &[usize]) {
        for &i in &self.rows {
            self.slot[i] = NOT_ACTIVE;
        }
        self.rows.clear();
        self.cols = clamped.len();
    }

    /// Whether row `i` is in A.
    pub(crate) fn contains(&self, i: usize) -> bool {
        self.slot[i] != NOT_ACTIVE
    }

    /// Adds row `i` to A (no-op when it is there); `clamped` is C in the
    /// factor's order.
    pub(crate) fn insert_row(&mut self, m: &Lcp, i: usize, clamped: &[usize]) {
        if self.contains(i) {
            return;
        }
        let q = self.rows.len();
        let col = m.col(i);
        for (r, &c) in clamped.iter().enumerate() {
            self.block[r * self.ld + q] = if self.symmetric { col[c] } else { m.col(c)[i] };
        }
        self.slot[i] = q;
        self.rows.push(i);
    }

    /// Removes row `i` from A (no-op when it is not there): the last slot
    /// moves into its place.
    pub(crate) fn remove_row(&mut self, i: usize) {
        let q = self.slot[i];
        if q == NOT_ACTIVE {
            return;
        }
        let last = self.rows.len() - 1;
        if q != last {
            for r in 0..self.cols {
                self.block[r * self.ld + q] = self.block[r * self.ld + last];
            }
            let moved = self.rows[last];
            self.rows[q] = moved;
            self.slot[moved] = q;
        }
        self.rows.pop();
        self.slot[i] = NOT_ACTIVE;
    }

    /// Appends the column of row `j`, which has just joined C at its end.
    pub(crate) fn push_col(&mut self, m: &Lcp, j: usize) {
        let col = m.col(j);
        let start = self.cols * self.ld;
        for (dst, &i) in self.block[start..].iter_mut().zip(&self.rows) {
            *dst = col[i];
        }
        self.cols += 1;
    }

    /// Deletes the column at position `p` of C (later columns move left,
    /// as in the factor).
    pub(crate) fn remove_col(&mut self, p: usize) {
        let (ld, a) = (self.ld, self.rows.len());
        for c in p + 1..self.cols {
            self.block.copy_within(c * ld..c * ld + a, (c - 1) * ld);
        }
        self.cols -= 1;
    }

    /// `out[q] = (M_AC dz)_q` for every slot `q` (`dz` in the factor's
    /// order, `out.len() >= |A|`).
    pub(crate) fn product(&self, dz: &[f64], out: &mut [f64]) {
        let a = self.rows.len();
        gemv(&self.block, self.ld, &dz[..self.cols], &mut out[..a]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symmetric 6 x 6 matrix with distinct entries.
    fn symmetric() -> Lcp {
        let n = 6;
        let m: Vec<f64> = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                (i.min(j) * 10 + i.max(j)) as f64
            })
            .collect();
        Lcp::from_row_major(n, &m, &[0.0; 6]).unwrap()
    }

    /// After a mixed sequence of exchanges the packed block equals M_AC in
    /// slot and factor order, checked through the product with unit vectors.
    #[test]
    fn the_block_follows_every_exchange() {
        let m = symmetric();
        let mut b = ActiveBlock::default();
        b.reset(6, true);
        let mut clamped = vec![];
        b.insert_row(&m, 1, &clamped);
        b.insert_row(&m, 4, &clamped);
        for j in [2, 5, 0] {
            clamped.push(j);
            b.push_col(&m, j);
        }
        b.insert_row(&m, 3, &clamped);
        b.remove_row(1);
        clamped.remove(1);
        b.remove_col(1);
        b.insert_row(&m, 1, &clamped);
        let mut out = vec![0.0; 6];
        for r in 0..clamped.len() {
            let mut e = vec![0.0; clamped.len()];
            e[r] = 1.0;
            b.product(&e, &mut out);
            for (q, &i) in b.rows.iter().enumerate() {
                assert_eq!(
                    out[q],
                    m.col(clamped[r])[i],
                    "row {i}, column {}",
                    clamped[r]
                );
            }
        }
        assert_eq!(b.rows.len(), 3);
        assert!(b.contains(4) && b.contains(3) && b.contains(1) && !b.contains(2));
    }
}
