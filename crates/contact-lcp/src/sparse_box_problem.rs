//! The box LCP of [`BoxLcp`](crate::BoxLcp) with a sparse matrix.
//!
//! The step problems of piles and pyramids are sparse: in `M = J W J'` two
//! rows couple only when their contacts share a body. This holds `M` as a
//! faer sparse column matrix (both triangles stored), `q` and the bounds,
//! with the same validation and the same certificate as the dense problem.

use faer::sparse::{SparseColMat, SparseColMatRef, Triplet};

use crate::box_problem::{BoxBounds, BoxLcp};
use crate::box_verify::box_report;
use crate::error::LcpError;
use crate::pgs::ContactOperator;
use crate::problem::Lcp;
use crate::verify::VerifyReport;

/// A box LCP (`w = M z + q`, bounds and friction couplings as in
/// [`BoxBounds`]) whose `M` is a sparse column matrix.
///
/// Every stored entry is finite (checked); entries not stored are 0.
/// Solvers that assume a symmetric `M`
/// ([`BlockPivoting`](crate::BlockPivoting)) read both triangles and do not
/// check symmetry.
#[derive(Clone, Debug)]
pub struct SparseBoxLcp {
    m: SparseColMat<usize, f64>,
    q: Vec<f64>,
    bounds: BoxBounds,
    /// `||M||_max`, the certificate's scale (as `Lcp`'s).
    m_max_abs: f64,
    /// `||q||_inf`.
    q_max_abs: f64,
}

impl SparseBoxLcp {
    /// Builds and validates a sparse box LCP.
    ///
    /// # Errors
    ///
    /// - [`LcpError::NotSquare`] if `m` is not square;
    /// - [`LcpError::DimensionMismatch`] if `q.len()` differs from its size;
    /// - [`LcpError::BadLength`] (`what = "bounds"`) if the bounds have
    ///   another number of rows;
    /// - [`LcpError::NonFinite`] naming the first NaN or infinite stored
    ///   entry of `m` (column by column) or of `q`.
    pub fn new(
        m: SparseColMat<usize, f64>,
        q: Vec<f64>,
        bounds: BoxBounds,
    ) -> Result<Self, LcpError> {
        let (rows, cols) = (m.nrows(), m.ncols());
        if rows != cols {
            return Err(LcpError::NotSquare { rows, cols });
        }
        if q.len() != rows {
            return Err(LcpError::DimensionMismatch {
                matrix: rows,
                vector: q.len(),
            });
        }
        if bounds.len() != rows {
            return Err(LcpError::BadLength {
                what: "bounds",
                expected: rows,
                found: bounds.len(),
            });
        }
        let mut m_max_abs = 0.0_f64;
        let view = m.as_ref();
        for col in 0..cols {
            let rows_of = view.symbolic().row_idx_of_col_raw(col);
            for (&row, &value) in rows_of.iter().zip(view.val_of_col(col)) {
                if !value.is_finite() {
                    return Err(LcpError::NonFinite {
                        what: "m",
                        row,
                        col,
                    });
                }
                m_max_abs = m_max_abs.max(value.abs());
            }
        }
        if let Some(row) = q.iter().position(|x| !x.is_finite()) {
            return Err(LcpError::NonFinite {
                what: "q",
                row,
                col: 0,
            });
        }
        let q_max_abs = q.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        Ok(Self {
            m,
            q,
            bounds,
            m_max_abs,
            q_max_abs,
        })
    }

    /// The sparse form of a dense box LCP: every nonzero entry of its `M`
    /// stored, the same `q` and bounds.
    #[must_use]
    pub fn from_dense(problem: &BoxLcp) -> Self {
        let m = problem.m();
        let n = problem.dim();
        let mut entries = Vec::new();
        for col in 0..n {
            for row in 0..n {
                let value = m[(row, col)];
                if value != 0.0 {
                    entries.push(Triplet::new(row, col, value));
                }
            }
        }
        // Indices are in range and unique, and the values finite (the
        // dense problem was validated), so neither step can fail.
        let m = SparseColMat::try_new_from_triplets(n, n, &entries)
            .unwrap_or_else(|_| unreachable!("entries in range"));
        Self::new(m, problem.q().to_vec(), problem.bounds().clone())
            .unwrap_or_else(|_| unreachable!("a validated problem"))
    }

    /// `M = J W J'` of a contact operator (rows coupled only through a
    /// shared body), with `q` and the bounds.
    ///
    /// # Errors
    ///
    /// - [`LcpError::BodyOutOfRange`] for the first Jacobian block naming a
    ///   body that does not exist;
    /// - [`LcpError::NonFinite`] (`what = "m"`) if an entry of `J W J'` is
    ///   not finite;
    /// - the errors of [`new`](Self::new).
    pub fn from_operator<O: ContactOperator + ?Sized>(
        operator: &O,
        q: Vec<f64>,
        bounds: BoxBounds,
    ) -> Result<Self, LcpError> {
        let (n, bodies) = (operator.rows(), operator.bodies());
        // Rows of each body, and each row's blocks.
        let mut rows_of_body: Vec<Vec<(usize, [f64; 6])>> = vec![Vec::new(); bodies];
        for row in 0..n {
            for block in operator.jacobian(row).into_iter().flatten() {
                if block.body >= bodies {
                    return Err(LcpError::BodyOutOfRange {
                        row,
                        body: block.body,
                        bodies,
                    });
                }
                rows_of_body[block.body].push((row, block.j));
            }
        }
        let mut entries = Vec::new();
        for (body, rows) in rows_of_body.iter().enumerate() {
            let w = operator.inverse_mass(body);
            for &(col, b) in rows {
                // W_b J_b' of the column's row.
                let wb: [f64; 6] =
                    std::array::from_fn(|r| (0..6).map(|c| w[r][c] * b[c]).sum::<f64>());
                for &(row, a) in rows {
                    let value: f64 = (0..6).map(|k| a[k] * wb[k]).sum();
                    entries.push(Triplet::new(row, col, value));
                }
            }
        }
        // Duplicates (two rows sharing both bodies) are summed.
        let m = SparseColMat::try_new_from_triplets(n, n, &entries).map_err(|_| {
            LcpError::BadLength {
                what: "m",
                expected: n,
                found: entries.len(),
            }
        })?;
        Self::new(m, q, bounds)
    }

    /// The problem's parts, `(M, q, bounds)`, so that a caller solving a
    /// new problem each time step can reuse their storage.
    #[must_use]
    pub fn into_parts(self) -> (SparseColMat<usize, f64>, Vec<f64>, BoxBounds) {
        (self.m, self.q, self.bounds)
    }

    /// The dimension `n`.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.q.len()
    }

    /// The matrix `M`.
    #[must_use]
    pub fn m(&self) -> SparseColMatRef<'_, usize, f64> {
        self.m.as_ref()
    }

    /// The vector `q`.
    #[must_use]
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// The bounds and couplings.
    #[must_use]
    pub fn bounds(&self) -> &BoxBounds {
        &self.bounds
    }

    /// The same problem with a dense `M` (allocates `n x n`).
    #[must_use]
    pub fn to_dense(&self) -> BoxLcp {
        let lcp = Lcp::new(self.m.to_dense(), self.q.clone())
            .unwrap_or_else(|_| unreachable!("validated entries"));
        BoxLcp::with_bounds(lcp, self.bounds.clone())
            .unwrap_or_else(|_| unreachable!("validated sizes"))
    }

    /// Certifies a claimed solution `(z, w)`, as
    /// [`verify_box`](crate::verify_box) does for the dense problem (the
    /// same fields, scales and conventions; `residual` compares `w` with
    /// `M z + q` computed here). Never panics: a length mismatch or a
    /// non-finite entry gives a report with infinite errors.
    #[must_use]
    pub fn verify(&self, z: &[f64], w: &[f64]) -> VerifyReport {
        let n = self.dim();
        if z.len() != n || w.len() != n || z.iter().any(|x| !x.is_finite()) {
            return VerifyReport::infinite();
        }
        let mut exact = vec![0.0; n];
        self.affine(z, &mut exact);
        self.report(z, w, Some(&exact))
    }

    /// The report of `(z, w)` with `exact = M z + q` if known (residual 0
    /// without it); see [`verify`](Self::verify).
    pub(crate) fn report(&self, z: &[f64], w: &[f64], exact: Option<&[f64]>) -> VerifyReport {
        box_report(&self.bounds, self.q_max_abs, self.m_max_abs, z, w, exact)
    }

    /// `out = M z + q`.
    ///
    /// Preconditions: `z.len() == out.len() == self.dim()`.
    pub(crate) fn affine(&self, z: &[f64], out: &mut [f64]) {
        out.copy_from_slice(&self.q);
        let m = self.m.as_ref();
        for (col, &zc) in z.iter().enumerate() {
            if zc == 0.0 {
                continue;
            }
            let rows = m.symbolic().row_idx_of_col_raw(col);
            for (&row, &value) in rows.iter().zip(m.val_of_col(col)) {
                out[row] += value * zc;
            }
        }
    }

    /// `||M||_max`.
    pub(crate) fn m_max_abs(&self) -> f64 {
        self.m_max_abs
    }

    /// `||q||_inf`.
    pub(crate) fn q_max_abs(&self) -> f64 {
        self.q_max_abs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::box_problem::Coupling;
    use crate::box_verify::verify_box;
    use faer::mat;

    fn dense_problem() -> BoxLcp {
        let inf = f64::INFINITY;
        BoxLcp::new(
            mat![[2.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 3.0]],
            vec![-1.0, 0.5, -2.0],
            vec![0.0, -inf, 0.0],
            vec![inf, inf, inf],
            vec![Coupling {
                row: 1,
                normal_row: 0,
                mu: 0.5,
            }],
        )
        .unwrap()
    }

    #[test]
    fn the_sparse_certificate_is_the_dense_one() {
        let dense = dense_problem();
        let sparse = SparseBoxLcp::from_dense(&dense);
        assert_eq!(sparse.m().compute_nnz(), 5);
        assert_eq!(sparse.to_dense().m(), dense.m());
        for (z, w) in [
            ([0.1, -0.02, 0.6], [0.0, 0.1, -0.1]),
            ([0.0, 0.0, 0.0], [-1.0, 0.5, -2.0]),
            ([1.0, 3.0, -1.0], [4.0, 4.0, 4.0]),
        ] {
            assert_eq!(sparse.verify(&z, &w), verify_box(&dense, &z, &w));
        }
        assert_eq!(
            sparse.verify(&[f64::NAN, 0.0, 0.0], &[0.0; 3]),
            VerifyReport::infinite()
        );
        assert_eq!(
            sparse.verify(&[0.0; 2], &[0.0; 3]),
            VerifyReport::infinite()
        );
    }

    #[test]
    fn bad_input_is_named() {
        let bounds = BoxBounds::unilateral(2);
        let m = SparseColMat::try_new_from_triplets(
            2,
            2,
            &[Triplet::new(0, 0, 1.0), Triplet::new(1, 0, f64::NAN)],
        )
        .unwrap();
        let error = SparseBoxLcp::new(m.clone(), vec![0.0; 2], bounds.clone()).unwrap_err();
        assert_eq!(
            error,
            LcpError::NonFinite {
                what: "m",
                row: 1,
                col: 0
            }
        );
        let error = SparseBoxLcp::new(m.clone(), vec![0.0; 3], bounds.clone()).unwrap_err();
        assert!(matches!(error, LcpError::DimensionMismatch { .. }));
        let error = SparseBoxLcp::new(m, vec![0.0; 2], BoxBounds::unilateral(3)).unwrap_err();
        assert!(matches!(error, LcpError::BadLength { what: "bounds", .. }));
        let rect = SparseColMat::<usize, f64>::try_new_from_triplets(2, 3, &[]).unwrap();
        let error = SparseBoxLcp::new(rect, vec![0.0; 2], bounds).unwrap_err();
        assert_eq!(error, LcpError::NotSquare { rows: 2, cols: 3 });
    }
}
