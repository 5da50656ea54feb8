//! The one error type of the crate.

use crate::solution::LcpSolution;

/// Everything that can go wrong when building or solving a complementarity
/// problem.
///
/// Input errors (`NotSquare`, `DimensionMismatch`, `BadLength`, `NonFinite`)
/// come from the constructors of [`Lcp`](crate::Lcp). Solver outcomes that are
/// not a solution (`RayTermination`, `PivotLimit`) carry the best iterate the
/// solver saw, with its [`VerifyReport`](crate::VerifyReport), so a caller can
/// still use or inspect it.
#[non_exhaustive]
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum LcpError {
    /// The matrix is not square.
    #[error("matrix is not square: {rows} rows, {cols} columns")]
    NotSquare {
        /// Number of rows of the matrix.
        rows: usize,
        /// Number of columns of the matrix.
        cols: usize,
    },
    /// The vector `q` does not have as many entries as the matrix has rows.
    #[error("dimension mismatch: matrix is {matrix} x {matrix}, vector has {vector} entries")]
    DimensionMismatch {
        /// Dimension of the (square) matrix.
        matrix: usize,
        /// Length of the vector.
        vector: usize,
    },
    /// A flat buffer has the wrong length (e.g. a row-major matrix that is not
    /// `n * n` long).
    #[error("{what} has {found} entries, expected {expected}")]
    BadLength {
        /// Which buffer (`"m"`, `"q"`, ...).
        what: &'static str,
        /// The length that was required.
        expected: usize,
        /// The length that was given.
        found: usize,
    },
    /// An input entry is NaN or infinite.
    #[error("non-finite entry in {what} at row {row}, column {col}")]
    NonFinite {
        /// Which input (`"m"` or `"q"`).
        what: &'static str,
        /// Row of the entry.
        row: usize,
        /// Column of the entry (0 for a vector).
        col: usize,
    },
    /// Lemke's algorithm ended on a secondary ray: no entering step is
    /// bounded. For a copositive-plus matrix this proves the problem has no
    /// solution (it is infeasible).
    #[error("Lemke's algorithm ended on a secondary ray after {pivots} pivots (no solution found)")]
    RayTermination {
        /// Pivots done before the ray was found.
        pivots: usize,
        /// The best almost-complementary iterate seen (smallest artificial
        /// variable), projected onto `z >= 0`, with its report.
        best: Option<Box<LcpSolution>>,
    },
    /// The pivot budget ran out before a solution was found.
    #[error("pivot limit reached after {pivots} pivots")]
    PivotLimit {
        /// Pivots done (equal to the limit).
        pivots: usize,
        /// The best almost-complementary iterate seen (smallest artificial
        /// variable), projected onto `z >= 0`, with its report.
        best: Option<Box<LcpSolution>>,
    },
    /// The basis matrix became numerically singular or non-finite when it was
    /// refactorised (a sign of a badly scaled or near-singular problem).
    #[error("basis matrix became singular after {pivots} pivots")]
    SingularBasis {
        /// Pivots done before the failure.
        pivots: usize,
    },
}

impl LcpError {
    /// The best iterate attached to a solver failure, if any.
    #[must_use]
    pub fn best(&self) -> Option<&LcpSolution> {
        match self {
            Self::RayTermination { best, .. } | Self::PivotLimit { best, .. } => best.as_deref(),
            _ => None,
        }
    }
}
