//! Linear complementarity problems and their solvers, for contact mechanics
//! and anything else.
//!
//! An LCP asks for `z` with `w = M z + q`, `z >= 0`, `w >= 0`, `z'w = 0`. In
//! rigid-body simulation `z` holds contact impulses (or forces) and friction
//! multipliers, `w` the matching separating velocities; `M` may be positive
//! definite, singular (redundant contacts) or non-symmetric (friction).
//!
//! This crate stands alone: it depends on faer (re-exported as
//! [`faer`], so you build matrices with the same version) and thiserror, and on
//! no other crate of the contact workspace. It provides:
//!
//! - [`Lcp`]: a validated problem (square, matching sizes, every entry finite);
//! - [`Lemke`]: Lemke's complementary pivoting with lexicographic
//!   anti-cycling, a per-pivot update of the basis inverse and periodic
//!   refactorisation; solves copositive-plus problems (such as the
//!   Anitescu-Potra time-stepping LCP) and P-matrix problems, cold or
//!   warm-started from a guess ([`Lemke::solve_warm_into`]);
//! - [`BoxLcp`]: the bounded (mixed) LCP, `lo <= z <= hi` per row, with
//!   optional friction coupling of a row's bounds to a normal force
//!   ([`Coupling`]);
//! - [`ProjectedGaussSeidel`]: projected Gauss-Seidel / SOR for box LCPs,
//!   on a dense `M` or matrix-free on `M = J W J'` ([`ContactOperator`]);
//! - [`Dantzig`]: Dantzig / Baraff principal pivoting for box LCPs with a
//!   symmetric positive semidefinite `M` (redundant contacts included) and
//!   friction coupling, updating a Cholesky factor of the clamped block per
//!   pivot, its first block guess optionally a given active set
//!   ([`Dantzig::solve_from_into`], e.g. the last time step's);
//! - [`BlockPivoting`]: block principal pivoting (Judice & Pires 1994) on
//!   proximal subproblems (Rockafellar 1976) for box LCPs with friction
//!   coupling whose `M = J W J' + C` is given by its factors
//!   ([`FactoredBoxLcp`]), solved in body space with sparse factors and
//!   warm-started from the last answer and its active set ([`RowState`]):
//!   the step solves of a simulator's large islands, one linear solve when
//!   the guess is right;
//! - [`Solver`]: the policy, Dantzig (or Lemke for a non-symmetric plain
//!   LCP) first; then Lemke-Howson's method on a bimatrix game and an
//!   exhaustive search over the complementary bases of a small problem
//!   ([`EXHAUSTIVE_MAX_BASES`], [`EXHAUSTIVE_MAX_ROWS`]), which solves it or proves that it has no
//!   solution; projected Gauss-Seidel as the fail-safe; reporting which
//!   [`Method`] answered;
//! - [`verify`] and [`verify_box`]: a solver-independent certificate of any
//!   claimed solution.
//! - with the `serde` feature, `ProblemFile` and `SolutionLine`: the file
//!   format of problems (JSON `{"M", "q", "lo", "hi", "coupling"}`, read with
//!   errors naming the field) and of solution lines, as used by `cargo xtask
//!   solve-lcp` (see `docs/lcp-file-format.md`).
//!
//! Every solver is a struct that owns its workspace: solving a second problem
//! of the same size allocates nothing. No solver panics on valid input; a
//! solver returns `Ok` only with an answer its certificate accepts, and not
//! finding a solution is a typed [`LcpError`] carrying the best iterate.
//!
//! ```
//! use contact_lcp::{Lcp, Lemke, faer::mat};
//!
//! // w = M z + q with M symmetric positive definite.
//! let m = mat![[2.0, 1.0], [1.0, 2.0]];
//! let lcp = Lcp::new(m, vec![-1.0, 1.0])?;
//! let sol = Lemke::default().solve(&lcp)?;
//! assert!((sol.z[0] - 0.5).abs() < 1e-12 && sol.z[1] == 0.0);
//! assert!((sol.w[1] - 1.5).abs() < 1e-12);
//! assert!(sol.report.is_solution(1e-12));
//! # Ok::<(), contact_lcp::LcpError>(())
//! ```

/// The crate README's example, compiled and run by `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use faer;

mod block_pivoting;
mod box_problem;
mod box_verify;
mod dantzig;
mod error;
mod exhaustive;
mod factored_problem;
#[cfg(feature = "serde")]
mod file_format;
mod lemke;
mod lemke_howson;
mod linalg;
mod pgs;
mod policy;
mod problem;
mod pyramid_lift;
mod rescaled_verify;
mod scaling;
mod solution;
mod tuning;
mod verify;

/// Test support: the next number of a seeded linear congruential sequence,
/// uniform in `[-1, 1)`.
#[cfg(test)]
pub(crate) fn next_uniform(seed: &mut u64) -> f64 {
    *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (*seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}

pub use block_pivoting::{
    BlockPivoting, BlockPivotingParams, BlockPivotingStats, RowState, active_set_of,
};
pub use box_problem::{BoxBounds, BoxLcp, Coupling};
pub use box_verify::{verify_box, verify_box_z};
pub use dantzig::{Dantzig, DantzigEvent, DantzigParams, DantzigStats, DantzigStep};
pub use error::LcpError;
pub use exhaustive::{EXHAUSTIVE_MAX_BASES, EXHAUSTIVE_MAX_ROWS};
pub use factored_problem::{FactoredBoxLcp, FactoredParts};
#[cfg(feature = "serde")]
pub use file_format::{LcpProblem, ProblemFile, SolutionLine, SolveStatus};
pub use lemke::{Lemke, LemkeParams, PivotRecord, Variable};
pub use pgs::{ContactOperator, JacobianBlock, PgsParams, ProjectedGaussSeidel};
pub use policy::{Solver, SolverParams};
pub use problem::{Lcp, SYMMETRY_TOLERANCE};
pub use solution::{LcpSolution, Method};
pub use verify::{VerifyReport, verify, verify_z};
