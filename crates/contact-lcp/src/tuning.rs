// The tuning constants of the crate's solvers, in one place: dimensionless
// thresholds and counts that the users' settings do not cover (how each was
// measured: docs/benchmarks.md and the commit that set it). They only scale
// or bound work around the tolerances a user sets, never replace them.

// Dantzig (dantzig/).

/// Before the second coupling pass, a friction row starts at the bound that
/// opposes its `w` when `|w|` exceeds this times `||q||_inf` (a sticking
/// contact keeps its state).
pub(crate) const FRICTION_START_W: f64 = 1e-9;

/// Coupled problems of at least this many rows whose first coupling pass
/// does not certify try the coupled guess of the whole problem before more
/// passes; on smaller ones it mostly hands over and costs more than it saves.
pub(crate) const COUPLED_GUESS_FROM: usize = 48;

/// Most guesses of the coupled guess before it hands over.
pub(crate) const COUPLED_GUESS_MAX: usize = 24;

/// Guesses of the coupled guess without fewer violated rows before it hands
/// over.
pub(crate) const COUPLED_GUESS_STALL: usize = 6;

/// The block guess starts the rows with `|q_i|` at most this times
/// `||q||_inf` clamped, as resting contacts.
pub(crate) const RESTING_Q: f64 = 1e-6;

/// Most guesses of the block guess before the pivoting finishes.
pub(crate) const BLOCK_GUESS_MAX: usize = 24;

/// A guess updates the last factor instead of refactoring when at most
/// `1 / UPDATE_AT_MOST` of its rows changed.
pub(crate) const UPDATE_AT_MOST: usize = 16;

/// Guesses of the block guess without fewer violated rows before the
/// pivoting finishes.
pub(crate) const BLOCK_GUESS_STALL: usize = 3;

/// While guessing, a `w` of the wrong sign is ignored up to this times the
/// certificate's scale `max(||M|| ||z||, ||q||)`: the rounding of a dependent
/// row's `w`. An answer that needs this slack goes through the strict phase
/// or the pivoting, so it never loosens the result.
pub(crate) const DEPENDENT_W: f64 = 1e-14;

/// The pivot a refused row gets in `Factor::factor_block`, relative to the
/// largest diagonal entry (its column then falls below the rounding of any
/// update).
pub(crate) const REFUSED_PIVOT: f64 = 1e200;

/// `copy_block` copies slices when C's runs of consecutive rows are on
/// average at least this long, and gathers entry by entry otherwise.
pub(crate) const SHORT_RUNS: usize = 4;

/// Smallest relaxation factor of the friction radii (Aitken's estimate can
/// drop near 0 when the normals jump, which would stall the passes).
pub(crate) const MIN_RELAX: f64 = 0.125;

/// Scaled error up to which a non-symmetric pivoting path's answer is
/// accepted (a failed path is off by 1e-3 and more).
pub(crate) const NON_SYMMETRIC_ACCEPT: f64 = 1e-9;

/// Coupled guesses started from a pass's clamped set, at most, per solve (a
/// set that already failed is not tried again and not counted).
pub(crate) const MAX_COUPLED_RESTARTS: usize = 12;

/// Guesses of all the restarts of a solve, at most: their dense LUs are
/// outside the pivot budget (`max_total_pivots`).
pub(crate) const MAX_RESTART_GUESSES: usize = 72;

/// Scaled error up to which a coupling pass's or a settled coupled guess's
/// answer is accepted before the friction radii have settled (ten times
/// stricter than the policy's default tolerance).
pub(crate) const COUPLING_PASS_ACCEPT: f64 = 1e-10;

// Dense kernels.

/// Triangular solves up to this size run on plain arrays (the same bits,
/// without the dispatch to vector code, which costs more than the solve).
pub(crate) const PLAIN_SOLVE_UP_TO: usize = 8;

/// Blocks of the block guess up to this size are factored by the plain loops
/// of `Factor::factor_small` (keeping the last factor's leading columns),
/// larger ones by faer's blocked Cholesky.
pub(crate) const SMALL_BLOCK_UP_TO: usize = 128;

/// Sizes from which `gemv` calls faer instead of its plain loops.
pub(crate) const FAER_FROM: usize = 32;

// Lemke.

/// A warm start's guessed block is singular when one LU finds a pivot at
/// most this times its largest entry, and then a guessed row whose Schur
/// complement is at most this (scaled problem, entries at most 1) is left
/// out of the basis (independent_rows.rs): dependent contacts give
/// 1e-16-level complements, independent ones far above 1e-9.
pub(crate) const WARM_PIVOT: f64 = 1e-9;

/// A Lemke result whose `VerifyReport::scaled_max` exceeds this triggers
/// the retries (see `fallback_zero_tolerance`); the bar of an answer
/// returned as a solution.
pub(crate) const RETRY_ABOVE: f64 = crate::verify::ACCEPT;

/// Lemke pivots with `u_r < SMALL_PIVOT * max_j |(B^-1)_rj| * max_i |c_i|`
/// are only taken from a freshly factorised basis.
pub(crate) const SMALL_PIVOT: f64 = 1e-6;

/// Among tied rows, only those whose relative pivot is at least this fraction
/// of the largest one take part in the lexicographic choice.
pub(crate) const TIE_PIVOT_RATIO: f64 = 0.99;

/// Relative tolerance of Lemke's lexicographic comparisons (rounding level).
pub(crate) const LEX_TOLERANCE: f64 = 1e-11;

// Lemke-Howson.

/// Pivot elements at most this times their column's largest entry count
/// as zero in the ratio test.
pub(crate) const LEMKE_HOWSON_PIVOT: f64 = 1e-11;

/// Relative tolerance of the lexicographic comparisons (rounding level).
pub(crate) const LEMKE_HOWSON_LEX: f64 = 1e-11;

// Exhaustive search.

/// A basis's candidate whose inequalities fail by more than this (scaled
/// like the certificate) rules the basis out; between `ACCEPT` and this
/// the search cannot tell a rounding from a miss and proves nothing.
pub(crate) const RULED_OUT: f64 = 1e-3;

/// A basis whose LU has a pivot below this times its largest entry counts
/// as singular: its candidate (if finite) is still tried, but a miss does
/// not rule the basis out. Above it a candidate errs by at most about n
/// eps / SINGULAR, far below `RULED_OUT`.
pub(crate) const SINGULAR: f64 = 1e-9;

// Lemke on the box LCP (pyramid_lift.rs).

/// A row's `z` within this relative distance of a nonzero bound counts as
/// at that bound in a warm start's guess (`PyramidLift::basic_of`).
pub(crate) const AT_BOUND: f64 = 1e-9;

// Scaling.

/// Maximum number of Ruiz sweeps (each costs one pass over M). Row and column
/// maxima are within a factor 2 of 1 after a few sweeps on contact matrices.
pub(crate) const RUIZ_SWEEPS: usize = 20;

// Projected Gauss-Seidel.

/// Rows per block of a dense PGS sweep (pgs/mod.rs, `sweep_dense`).
pub(crate) const SWEEP_BLOCK: usize = 4;
