//! The one error type of the crate.

use crate::solution::LcpSolution;

/// Everything that can go wrong when building or solving a complementarity
/// problem.
///
/// Input errors (`NotSquare`, `DimensionMismatch`, `BadLength`, `NonFinite`,
/// `InvalidBounds`, `InvalidCoupling`) come from the constructors of
/// [`Lcp`](crate::Lcp), [`BoxLcp`](crate::BoxLcp) and
/// [`BoxBounds`](crate::BoxBounds); `NonPositiveDiagonal`, `BodyOutOfRange`
/// and `InvalidParameter` from the checks a solver makes before it starts.
/// Solver outcomes that are not a solution carry the best iterate the
/// solver saw, with its [`VerifyReport`](crate::VerifyReport)
/// ([`LcpError::best`]).
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
    /// A buffer has the wrong length (e.g. a row-major matrix not `n * n` long).
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
    /// bounded. For a copositive-plus matrix the problem has no solution.
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
        /// As for `RayTermination`.
        best: Option<Box<LcpSolution>>,
    },
    /// A bound is NaN, or excludes 0: every row needs `lo <= 0 <= hi`.
    #[error("invalid bounds at row {row}: [{lo}, {hi}] (need lo <= 0 <= hi, no NaN)")]
    InvalidBounds {
        /// Row of the bounds.
        row: usize,
        /// The lower bound given.
        lo: f64,
        /// The upper bound given.
        hi: f64,
    },
    /// A friction coupling is invalid.
    #[error("invalid coupling #{coupling} (row {row}, normal row {normal_row}): {reason}")]
    InvalidCoupling {
        /// Position of the coupling in the list given.
        coupling: usize,
        /// Its `row` (the friction row).
        row: usize,
        /// Its `normal_row`.
        normal_row: usize,
        /// What is wrong: `"row out of range"`, `"normal row out of range"`,
        /// `"row coupled to itself"`, `"mu must be finite and >= 0"`,
        /// `"row coupled twice"`, `"normal row is itself coupled"` or
        /// `"normal row must have bounds [0, +inf]"`.
        reason: &'static str,
    },
    /// Projected Gauss-Seidel divides by `M_ii`: this row's diagonal is zero,
    /// negative or not finite.
    #[error("diagonal entry of row {row} is {value}, projected Gauss-Seidel needs it > 0")]
    NonPositiveDiagonal {
        /// Row of the diagonal entry.
        row: usize,
        /// Its value (`M_ii`, or `J_i W J_i'` in matrix-free form).
        value: f64,
    },
    /// A Jacobian block of a matrix-free operator names a missing body.
    #[error("row {row} refers to body {body}, but there are {bodies} bodies")]
    BodyOutOfRange {
        /// The constraint row.
        row: usize,
        /// The body index it gave.
        body: usize,
        /// The number of bodies of the operator.
        bodies: usize,
    },
    /// A solver setting is outside its valid range.
    #[error("invalid solver parameter {what} = {value}")]
    InvalidParameter {
        /// Which setting (e.g. `"omega"`).
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// An iterative solver used its sweep budget without reaching the
    /// tolerance.
    #[error("iteration limit reached after {sweeps} sweeps (best scaled residual {residual:e})")]
    IterationLimit {
        /// Sweeps done (equal to the limit).
        sweeps: usize,
        /// The smallest scaled natural residual reached (that of `best`).
        residual: f64,
        /// The iterate with the smallest residual, with its report.
        best: Option<Box<LcpSolution>>,
    },
    /// Principal pivoting found no solution along its path: driving `row`
    /// to complementarity, no event bounds the step. For a positive
    /// semidefinite matrix the problem is infeasible.
    #[error("no solution along the pivoting path: row {row} is unbounded after {pivots} pivots")]
    NoSolutionOnPath {
        /// The row being driven.
        row: usize,
        /// Pivots done.
        pivots: usize,
        /// The iterate when the solver stopped, projected onto the bounds,
        /// with its report.
        best: Option<Box<LcpSolution>>,
    },
    /// The friction-coupling passes of [`Dantzig`](crate::Dantzig) did not
    /// settle: the friction radii `mu z_n` still changed between passes.
    #[error("friction coupling did not settle after {rounds} passes (radius change {change:e})")]
    CouplingLimit {
        /// Passes done.
        rounds: usize,
        /// The smallest relative change of a friction radius between two
        /// passes (that of `best`).
        change: f64,
        /// The pass with the smallest change, with its report.
        best: Option<Box<LcpSolution>>,
    },
    /// Block principal pivoting ([`BlockPivoting`](crate::BlockPivoting))
    /// stopped without a certified answer.
    #[error("block principal pivoting stopped after {solves} linear solves: {reason}")]
    BlockPivotingFailed {
        /// Linear solves done.
        solves: usize,
        /// Why: `"solve limit reached"` (the guesses did not settle within
        /// `max_solves`), `"singular guessed block"` (a guess's system, or
        /// a body's inverse mass, could not be factored) or `"symbolic
        /// factorisation failed"` (faer could not analyse the body-space
        /// system's pattern, which happens only when it cannot allocate).
        reason: &'static str,
        /// The iterate with the smallest scaled error on the problem,
        /// projected onto the bounds, with its report; before any
        /// subproblem finished, the last guess's answer, and when the
        /// system could not even be set up, the start (the warm start's
        /// centre, or 0).
        best: Option<Box<LcpSolution>>,
    },
    /// The solver ended with an answer that its certificate rejects (a
    /// [`VerifyReport::scaled_max`](crate::VerifyReport::scaled_max) above
    /// `tolerance`): numerical trouble on the path or a problem outside the
    /// method's class, not a proof that there is no solution.
    #[error("the answer does not certify: scaled error {error:e} above {tolerance:e}")]
    NotCertified {
        /// The answer's scaled error.
        error: f64,
        /// The bound it had to meet.
        tolerance: f64,
        /// The answer, with its report.
        best: Option<Box<LcpSolution>>,
    },
    /// The policy ([`Solver`](crate::Solver)) searched every complementary
    /// basis of the problem ([`EXHAUSTIVE_MAX_BASES`](crate::EXHAUSTIVE_MAX_BASES)
    /// at most) and ruled each out, a singular one on every minimal face of
    /// its feasible set, with ranks clear of rounding: there is none.
    #[error("no solution: none of the {bases} complementary bases holds one")]
    NoSolution {
        /// The complementary bases searched (all of them).
        bases: usize,
    },
    /// The basis matrix became numerically singular or non-finite when it was
    /// refactorised (a badly scaled or near-singular problem).
    #[error("basis matrix became singular after {pivots} pivots")]
    SingularBasis {
        /// Pivots done before the failure.
        pivots: usize,
        /// As for `RayTermination`.
        best: Option<Box<LcpSolution>>,
    },
    /// A field of a problem file (`ProblemFile`, feature `serde`) is missing,
    /// has the wrong type or shape, or holds an invalid value.
    #[error("{field} {reason}")]
    InvalidField {
        /// The field, as a path into the file: `"M"`, `"M[3]"`, `"lo[2]"`,
        /// `"coupling[1].normal_row"`, ...
        field: String,
        /// What is wrong with it, e.g. `"has 4 entries, expected 5"`.
        reason: String,
    },
}

impl LcpError {
    /// The best iterate attached to a solver failure, if any.
    #[must_use]
    pub fn best(&self) -> Option<&LcpSolution> {
        match self {
            Self::RayTermination { best, .. }
            | Self::PivotLimit { best, .. }
            | Self::IterationLimit { best, .. }
            | Self::NoSolutionOnPath { best, .. }
            | Self::CouplingLimit { best, .. }
            | Self::BlockPivotingFailed { best, .. }
            | Self::NotCertified { best, .. }
            | Self::SingularBasis { best, .. } => best.as_deref(),
            _ => None,
        }
    }
}
