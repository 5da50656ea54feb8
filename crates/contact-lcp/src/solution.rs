//! What a solver returns.

use crate::verify::VerifyReport;

/// Which algorithm produced a solution.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Method {
    /// Lemke's complementary pivoting ([`Lemke`](crate::Lemke)).
    #[default]
    Lemke,
    /// Projected Gauss-Seidel / SOR
    /// ([`ProjectedGaussSeidel`](crate::ProjectedGaussSeidel)).
    ProjectedGaussSeidel,
    /// Dantzig / Baraff principal pivoting ([`Dantzig`](crate::Dantzig)).
    Dantzig,
    /// Block principal pivoting ([`BlockPivoting`](crate::BlockPivoting));
    /// `pivots` counts exchanged rows, `iterations` linear solves.
    BlockPivoting,
    /// Lemke-Howson's method on a bimatrix-game LCP, a resort of the
    /// policy ([`Solver`](crate::Solver)).
    LemkeHowson,
    /// The exhaustive search over complementary bases of a small problem,
    /// the policy's last resort ([`Solver`](crate::Solver),
    /// [`EXHAUSTIVE_MAX_BASES`](crate::EXHAUSTIVE_MAX_BASES)).
    ExhaustiveSearch,
}

/// A solution (or, inside an error, the best iterate) with its statistics and
/// its certificate.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LcpSolution {
    /// The unknowns: `z >= 0` for an [`Lcp`](crate::Lcp), within the bounds
    /// for a [`BoxLcp`](crate::BoxLcp).
    pub z: Vec<f64>,
    /// The slacks `w = M z + q`, recomputed explicitly from `z`.
    pub w: Vec<f64>,
    /// The algorithm that produced `z`.
    pub method: Method,
    /// Basis exchanges done by a pivoting method (0 for the trivial solution
    /// `z = 0` when `q >= 0`, and always 0 for iterative methods).
    pub pivots: usize,
    /// Outer iterations: sweeps for iterative methods; for Lemke, the number
    /// of times the basis was factorised from scratch (periodic
    /// refactorisations plus the final one).
    pub iterations: usize,
    /// Feasibility and complementarity errors of `(z, w)`, see
    /// [`verify`](crate::verify).
    pub report: VerifyReport,
}
