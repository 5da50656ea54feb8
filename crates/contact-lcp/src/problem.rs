//! The plain linear complementarity problem.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use faer::{Mat, MatRef};

use crate::error::LcpError;
use crate::linalg::kernels::dot;
use crate::linalg::lane_scan::{max_abs, max_abs_if_finite};
use crate::linalg::lanes::{Lanes, LanesOp, add_column, add_four_columns, with_best_lanes};
use crate::tuning::AFFINE_CHUNK;

/// A linear complementarity problem LCP(M, q): find `z` with
///
/// ```text
/// w = M z + q,   z >= 0,   w >= 0,   z'w = 0.
/// ```
///
/// `M` is a dense square `n x n` matrix (any sign pattern, symmetric or not),
/// `q` a vector of length `n`. Every entry is finite: the constructors check
/// it, so solvers never see NaN or infinity. `n == 0` is a valid, empty
/// problem whose solution is the empty vector.
#[derive(Clone, Debug)]
pub struct Lcp {
    m: Mat<f64>,
    q: Vec<f64>,
    /// `||M||_max` and `||q||_inf`, found on construction: every solver and
    /// certificate scales by them, so they are not scanned again per solve.
    m_max_abs: f64,
    q_max_abs: f64,
    /// [`Lcp::is_symmetric`], found on first use (Dantzig asks on every
    /// solve; `M` never changes).
    symmetric: OnceLock<bool>,
    /// See [`Lcp::matrix_id`].
    matrix_id: u64,
}

/// The next [`Lcp::matrix_id`]. Ids only decide whether a cache is reused,
/// never a result, so the order in which threads draw them is free.
static NEXT_MATRIX_ID: AtomicU64 = AtomicU64::new(1);

/// Relative tolerance of [`Lcp::is_symmetric`]: `M` counts as symmetric when
/// `|M_ij - M_ji| <= 1e-12 ||M||_max` for every pair.
pub const SYMMETRY_TOLERANCE: f64 = 1e-12;

impl Lcp {
    /// Builds a problem from a faer matrix and a vector.
    ///
    /// # Errors
    ///
    /// - [`LcpError::NotSquare`] if `m` is not square;
    /// - [`LcpError::DimensionMismatch`] if `q.len()` differs from the size of `m`;
    /// - [`LcpError::NonFinite`] naming the first NaN or infinite entry
    ///   (`what = "m"`, scanned column by column, then `what = "q"`, `col = 0`).
    pub fn new(m: Mat<f64>, q: Vec<f64>) -> Result<Self, LcpError> {
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
        let mut m_max_abs = 0.0_f64;
        for j in 0..cols {
            let col = m.col_as_slice(j);
            match max_abs_if_finite(col) {
                Some(col_max) => m_max_abs = m_max_abs.max(col_max),
                None => check_finite("m", col, j)?,
            }
        }
        check_finite("q", &q, 0)?;
        Ok(Self::from_validated_parts(m, q, m_max_abs))
    }

    /// Builds a problem from a row-major `n x n` slice and a vector.
    ///
    /// # Errors
    ///
    /// - [`LcpError::BadLength`] if `m.len() != n * n`;
    /// - [`LcpError::DimensionMismatch`] if `q.len() != n`;
    /// - [`LcpError::NonFinite`] as for [`Lcp::new`].
    pub fn from_row_major(n: usize, m: &[f64], q: &[f64]) -> Result<Self, LcpError> {
        if n.checked_mul(n) != Some(m.len()) {
            return Err(LcpError::BadLength {
                what: "m",
                expected: n.saturating_mul(n),
                found: m.len(),
            });
        }
        // A wrong q.len() is Lcp::new's DimensionMismatch { matrix: n, .. }.
        let mat = Mat::from_fn(n, n, |i, j| m[i * n + j]);
        Self::new(mat, q.to_vec())
    }

    /// The dimension `n` of the problem.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.q.len()
    }

    /// The matrix `M`.
    #[must_use]
    pub fn m(&self) -> MatRef<'_, f64> {
        self.m.as_ref()
    }

    /// The vector `q`.
    #[must_use]
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// Takes the problem apart, so a caller can refill and reuse the buffers
    /// for the next problem of the same size.
    #[must_use]
    pub fn into_parts(self) -> (Mat<f64>, Vec<f64>) {
        (self.m, self.q)
    }

    /// A problem from parts built from validated ones (no scan for NaN or
    /// infinity; `m` square, `q.len()` its size), with `m_max_abs =
    /// ||m||_max` as the caller found it.
    pub(crate) fn from_validated_parts(m: Mat<f64>, q: Vec<f64>, m_max_abs: f64) -> Self {
        debug_assert!(m.nrows() == m.ncols() && q.len() == m.nrows());
        let q_max_abs = max_abs(&q);
        Self {
            m,
            q,
            m_max_abs,
            q_max_abs,
            symmetric: OnceLock::new(),
            matrix_id: NEXT_MATRIX_ID.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// A number that identifies `M`: every construction draws a new one and
    /// clones keep it. Caches of values derived from `M` (projected
    /// Gauss-Seidel's coefficients) check it instead of the matrix.
    pub(crate) fn matrix_id(&self) -> u64 {
        self.matrix_id
    }

    /// Column `j` of `M` as a contiguous slice.
    pub(crate) fn col(&self, j: usize) -> &[f64] {
        self.m.col_as_slice(j)
    }

    /// Row `i` of `M z + q`: row `i` of `M` is read as column `i` when
    /// `symmetric` (contiguous), else across the columns in order.
    ///
    /// Preconditions: `i < self.dim()`, `z.len() == self.dim()`.
    pub(crate) fn affine_row(&self, i: usize, z: &[f64], symmetric: bool) -> f64 {
        let row_dot_z = if symmetric {
            dot(self.col(i), z)
        } else {
            z.iter()
                .enumerate()
                .map(|(j, &zj)| self.col(j)[i] * zj)
                .sum()
        };
        self.q[i] + row_dot_z
    }

    /// `out = M z + q`, on the best lanes of the machine (see `Affine`).
    ///
    /// Preconditions: `z.len() == out.len() == self.dim()`.
    pub(crate) fn affine(&self, z: &[f64], out: &mut [f64]) {
        with_best_lanes(Affine { lcp: self, z, out });
    }

    /// Largest absolute entry of `M` (0 for the empty problem); kept from
    /// construction.
    pub(crate) fn m_max_abs(&self) -> f64 {
        self.m_max_abs
    }

    /// `||q||_inf` (0 for the empty problem); kept from construction.
    pub(crate) fn q_max_abs(&self) -> f64 {
        self.q_max_abs
    }

    /// Whether `M` is symmetric to [`SYMMETRY_TOLERANCE`] (relative to
    /// `||M||_max`). Scanned once, on the first call, and kept.
    #[must_use]
    pub fn is_symmetric(&self) -> bool {
        *self.symmetric.get_or_init(|| {
            let tol = SYMMETRY_TOLERANCE * self.m_max_abs;
            // Column j against row j (read along its stride), no early exit.
            let worst = (0..self.dim()).fold(0.0_f64, |worst, j| {
                let row = self.m.row(j);
                self.col(j)[..j]
                    .iter()
                    .zip(row.iter())
                    .fold(worst, |worst, (&a, &b)| worst.max((a - b).abs()))
            });
            worst <= tol
        })
    }
}

/// `Err(NonFinite)` naming the first NaN or infinite entry of column `col`
/// of `what`, if any.
pub(crate) fn check_finite(what: &'static str, v: &[f64], col: usize) -> Result<(), LcpError> {
    match v.iter().position(|x| !x.is_finite()) {
        Some(row) => Err(LcpError::NonFinite { what, row, col }),
        None => Ok(()),
    }
}

/// `Err(BadLength)` unless a caller's `what` has `found == expected` entries.
pub(crate) fn check_len(what: &'static str, expected: usize, found: usize) -> Result<(), LcpError> {
    if found == expected {
        Ok(())
    } else {
        Err(LcpError::BadLength {
            what,
            expected,
            found,
        })
    }
}

/// A caller's vector `what` must have `n` entries ([`check_len`]), all
/// finite ([`check_finite`], `col = 0`); the length is checked first.
pub(crate) fn check_vector(what: &'static str, v: &[f64], n: usize) -> Result<(), LcpError> {
    check_len(what, n, v.len())?;
    // One branch-free scan; the row is looked up only on failure.
    match max_abs_if_finite(v) {
        Some(_) => Ok(()),
        None => check_finite(what, v, 0),
    }
}

/// [`Lcp::affine`] on given lanes: column by column (columns with `z_j = 0`
/// skipped), four rows at a time; each `out_i` adds `M_ij z_j` in the order
/// of `j`, as a scalar loop would, so the bits are the same on any machine.
struct Affine<'a> {
    lcp: &'a Lcp,
    z: &'a [f64],
    out: &'a mut [f64],
}

impl LanesOp for Affine<'_> {
    type Output = ();

    #[inline(always)]
    fn run<L: Lanes>(self, l: L) {
        let Affine { lcp, z, out } = self;
        out.copy_from_slice(&lcp.q);
        // The columns with z_j != 0 are listed a chunk at a time without a
        // branch per column (the index is always written, the count moves
        // past it only for a nonzero): a branch on data is mispredicted.
        let mut nonzero = [0_u32; AFFINE_CHUNK];
        for (first, chunk) in (0..).step_by(AFFINE_CHUNK).zip(z.chunks(AFFINE_CHUNK)) {
            let mut count = 0;
            for (j, &zj) in (0..).zip(chunk) {
                nonzero[count] = j;
                count += usize::from(zj != 0.0);
            }
            // Four columns at a time: each row's sum still adds its
            // products one by one in the order of j (the bits of one
            // column at a time), with one load and store of `out` per four
            // columns instead of one per column.
            let quads = nonzero[..count].chunks_exact(4);
            let rest = quads.remainder();
            for quad in quads {
                // Written out: the closures of `<[T; 4]>::map` were left
                // uninlined here, a call per quad.
                let (j0, j1, j2, j3) = (
                    first + quad[0] as usize,
                    first + quad[1] as usize,
                    first + quad[2] as usize,
                    first + quad[3] as usize,
                );
                let rows = out.len();
                add_four_columns(
                    l,
                    out,
                    [z[j0], z[j1], z[j2], z[j3]],
                    [
                        &lcp.col(j0)[..rows],
                        &lcp.col(j1)[..rows],
                        &lcp.col(j2)[..rows],
                        &lcp.col(j3)[..rows],
                    ],
                );
            }
            for &j in rest {
                let j = first + j as usize;
                add_column(l, out, z[j], lcp.col(j));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::lanes::ArrayLanes;

    #[test]
    fn row_major_layout_is_respected() {
        let lcp = Lcp::from_row_major(2, &[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0]).unwrap();
        assert_eq!((lcp.m()[(0, 1)], lcp.m()[(1, 0)]), (2.0, 3.0));
        assert_eq!(lcp.q(), &[5.0, 6.0]);
        let mut w = [0.0; 2];
        lcp.affine(&[1.0, 1.0], &mut w);
        assert_eq!(w, [8.0, 13.0]);
        assert_eq!((lcp.m_max_abs(), lcp.q_max_abs()), (4.0, 6.0));
        let negative = Lcp::from_row_major(2, &[1.0, 0.0, 0.0, 1.0], &[-7.0, 3.0]).unwrap();
        assert_eq!(negative.q_max_abs(), 7.0);
    }

    /// `affine` lists the nonzero z_j a chunk of 64 at a time and adds four
    /// rows at a time: across chunk boundaries and row tails (n = 11: two
    /// blocks of four and three), with zeros of both signs in runs and
    /// alone, it must give the bits of the plain loop over the nonzero
    /// columns in order of j, on the dispatched lanes and on plain arrays.
    #[test]
    fn affine_matches_a_plain_loop_over_the_nonzero_columns() {
        for n in [1, 11, 63, 64, 65, 130, 200] {
            let m: Vec<f64> = (0..n * n)
                .map(|k| ((k * 7919 % 1013) as f64 - 506.0) / 97.0)
                .collect();
            let q: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
            let lcp = Lcp::from_row_major(n, &m, &q).unwrap();
            // Zeros: every third, a run of 70 (a whole chunk), -0.0 too.
            let z: Vec<f64> = (0..n)
                .map(|j| match j {
                    _ if j % 3 == 0 => 0.0,
                    _ if (60..130).contains(&j) => -0.0,
                    _ => 1.0 + j as f64 / 7.0,
                })
                .collect();
            let mut expected = q.clone();
            for (j, &zj) in z.iter().enumerate() {
                if zj != 0.0 {
                    for (i, e) in expected.iter_mut().enumerate() {
                        *e += zj * m[i * n + j];
                    }
                }
            }
            let (mut w, mut by_arrays) = (vec![f64::NAN; n], vec![f64::NAN; n]);
            lcp.affine(&z, &mut w);
            let (lcp, z, out) = (&lcp, &z, &mut by_arrays);
            Affine { lcp, z, out }.run(ArrayLanes);
            let expected = format!("{expected:?}");
            assert_eq!(format!("{w:?}"), expected, "n = {n}");
            assert_eq!(format!("{by_arrays:?}"), expected, "n = {n}");
        }
    }

    #[test]
    fn symmetry_is_judged_relative_to_the_largest_entry() {
        // ||M||_max = 4: a difference of 3e-12 is within the tolerance
        // (4e-12), 8e-12 beyond it.
        let symmetric = |m: &[f64]| Lcp::from_row_major(3, m, &[0.0; 3]).unwrap().is_symmetric();
        assert!(symmetric(&[1.0, 0.5, 0.0, 0.5, 4.0, 0.0, 0.0, 0.0, 1.0]));
        assert!(symmetric(&[
            4.0,
            0.5,
            0.0,
            0.5 + 3e-12,
            1.0,
            0.3,
            0.0,
            0.3,
            1.0
        ]));
        let m = [4.0, 0.5, 0.0, 0.5, 1.0, 0.3 + 8e-12, 0.0, 0.3, 1.0];
        assert!(!symmetric(&m));
        // A clone keeps the answer.
        let lcp = Lcp::from_row_major(3, &m, &[0.0; 3]).unwrap();
        assert!(!lcp.is_symmetric() && !lcp.clone().is_symmetric());
    }
}
