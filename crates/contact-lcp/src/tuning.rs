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

/// A pass's pivot limit when `DantzigParams::max_pivots` is left at its
/// default: `DANTZIG_PIVOTS_PER_ROW n + DANTZIG_PIVOTS_BASE` for `n` rows
/// (each row enters the clamped set about once; the base covers the
/// releases of a small problem).
pub(crate) const DANTZIG_PIVOTS_PER_ROW: usize = 10;

/// See `DANTZIG_PIVOTS_PER_ROW`.
pub(crate) const DANTZIG_PIVOTS_BASE: usize = 100;

/// A guessed free row of the block or the coupled guess counts as outside
/// its bound only beyond this times `||z||_inf`: the rounding of a dense
/// solve. The user's `zero_tolerance` bounds `w`, not `z`, and the answer is
/// certified afterwards, so this only keeps rounding from flipping a guess.
pub(crate) const GUESS_Z_ROUNDING: f64 = 1e-12;

/// A clamped row whose re-solved `z` after a change of bounds (`Core::rerun`)
/// lies outside them by more than this times `||z||_inf` is released: the
/// rounding of a factor's solve (the user's tolerances bound `w` and the
/// Schur complements, not `z`).
pub(crate) const RERUN_Z_ROUNDING: f64 = 1e-13;

/// When a dependent row joins C, entries of its direction `M_CC^-1 M_Ci`
/// at most this times the largest are rounding and do not choose the
/// clamped row that leaves (block_guess.rs, `partner`). Not the user's
/// `pivot_tolerance`, which bounds a joining row's Schur complement
/// against `||M||_max`: this compares the entries of one solved direction
/// with each other, a different quantity.
pub(crate) const PARTNER_ENTRY: f64 = 1e-9;

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

/// Removing a position from the explicit inverse `B = M_CC^-1`
/// (linalg/inverse.rs) is refused when `|B_pp|` is at most this times B's
/// largest diagonal entry: the block left is then singular to rounding
/// (`det M_C'C' = B_pp det M_CC`). Not the user's `pivot_tolerance`: that
/// bounds the Schur complement of a joining row against `||M||_max`,
/// while this is an entry of the inverse against the inverse's own
/// diagonal; it only guards the update against dividing by rounding.
pub(crate) const REMOVAL_PIVOT: f64 = 1e-13;

/// Columns of `z` listed at a time by the dense `w = M z + q`
/// (problem.rs), the length of a stack buffer of column indices: long
/// enough to amortise the listing, short enough to stay in registers'
/// reach of the cache.
pub(crate) const AFFINE_CHUNK: usize = 64;

// Lemke.

/// A warm start's guessed block is singular when one LU finds a pivot at
/// most this times its largest entry, and then a guessed row whose Schur
/// complement is at most this (scaled problem, entries at most 1) is left
/// out of the basis (independent_rows.rs): dependent contacts give
/// rounding-level complements, independent ones far above this. Not the
/// user's `LemkeParams::pivot_tolerance`, which bounds a ratio test's
/// pivot against its row of `B^-1` and the entering column: this tests
/// the guessed block's own factorisation, once, before the path starts.
pub(crate) const WARM_PIVOT: f64 = 1e-9;

/// Lemke's pivot limit when `LemkeParams::max_pivots` is 0:
/// `LEMKE_PIVOTS_PER_ROW n + LEMKE_PIVOTS_BASE` for `n` rows, counting all
/// attempts (contact problems need a few pivots per row; Murty's worst
/// case, exponentially many, is not to be waited for).
pub(crate) const LEMKE_PIVOTS_PER_ROW: usize = 50;

/// See `LEMKE_PIVOTS_PER_ROW`.
pub(crate) const LEMKE_PIVOTS_BASE: usize = 1000;

/// The retry ladder of Lemke (`LemkeParams::fallback_zero_tolerance`):
/// after the fallback tolerance `f`, the retries use `f * RETRY_WIDER` ...
pub(crate) const RETRY_WIDER: f64 = 10.0;

/// ... then the user's `zero_tolerance` divided by each of these: a wider
/// Harris tolerance avoids near-singular bases, a narrower one keeps
/// genuine small steps.
pub(crate) const RETRY_NARROWER: [f64; 3] = [10.0, 100.0, 1e5];

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
/// as singular: its equations' solution set is searched over its faces
/// (the LU's candidate is tried only where the basis has full numerical
/// rank). Above it a candidate errs by at most about n eps / SINGULAR, far
/// below `RULED_OUT`.
pub(crate) const SINGULAR: f64 = 1e-9;

/// The most faces (independent sets of a singular basis's inequalities,
/// each one projection, a leaf one small SVD) one exhaustive search walks
/// over all its singular bases; beyond, a singular basis proves nothing.
/// A plain LCP of 12 rows has at most C(12, 6) = 924 vertex sets per basis.
pub(crate) const EXHAUSTIVE_MAX_FACES: usize = 1 << 14;

/// Singular values of a basis's system at most this times the largest
/// count as zero (rounding of an exact 0: about n eps); between this and
/// `SINGULAR` the rank is unclear and the basis proves nothing.
pub(crate) const ZERO_SINGULAR: f64 = 1e-12;

/// An inequality's row counts as independent of the rows chosen before it
/// when its distance to their span exceeds this times its norm (below the
/// ranks' gap: a leaf it lets through is checked by its own SVD).
pub(crate) const INDEPENDENT_ROW: f64 = 1e-11;

/// A row within this times its norm of the span is dependent to rounding
/// and skipped; between this and `INDEPENDENT_ROW` it is skipped too, but
/// the walk proves nothing (a nearly dependent set may hold the only
/// vertex).
pub(crate) const DEPENDENT_ROW: f64 = 1e-14;

/// The least-squares solution of a basis's equations counts as solving them
/// when its residual is at most this times `|x| + |b|` (max norms).
pub(crate) const CONSISTENT: f64 = 1e-9;

// Lemke on the box LCP (pyramid_lift.rs).

/// A row's `z` within this relative distance of a nonzero bound counts as
/// at that bound in a warm start's guess (`PyramidLift::basic_of`).
pub(crate) const AT_BOUND: f64 = 1e-9;

// Block principal pivoting (block_pivoting/).

/// A solve's budget when `BlockPivotingParams::max_solves` is 0:
/// `max(SOLVES_AT_LEAST, n^2 / ROWS_SQUARED_PER_SOLVE)` for `n` rows. A
/// solve costs about linear time in the rows and the dense pivoting a
/// caller falls back to cubic time, so the budget stays below that
/// fallback's cost while large islands get the many solves they need.
pub(crate) const SOLVES_AT_LEAST: usize = 100;

/// See `SOLVES_AT_LEAST`.
pub(crate) const ROWS_SQUARED_PER_SOLVE: usize = 1500;

/// Iterative refinement steps after each subproblem's pivoting settles.
pub(crate) const REFINEMENTS: usize = 1;

/// The proximal weight of a friction row relative to a normal row's: among
/// the equally valid load distributions of redundant contacts the
/// subproblem then moves normal loads before it adds friction, so nearly
/// unloaded corners of a resting pile do not sit at their cone's edge (a
/// folded row, an LU factor instead of a Cholesky one).
pub(crate) const FRICTION_WEIGHT: f64 = 100.0;

/// Proximal steps on a certified answer's guess (see `finish`).
pub(crate) const FINISH_STEPS: usize = 2;

/// The factor by which block pivoting raises the proximal weight after a
/// slow frozen subproblem and lowers it after a subproblem whose guess
/// held (`scale_weight`), the most it raises it to, and the solves that
/// make a frozen subproblem slow. A landing pile's large islands freeze
/// subproblem after subproblem, each taking hundreds of Newton steps at
/// weights of 1e-6 to 3e-6, until the budget is gone; at 1e-4 their
/// frozen subproblems are short, but the outer loop then needs thousands
/// of subproblems unless the weight comes down once guesses hold. Raised
/// after every frozen subproblem, the weight cost small islands, whose
/// frozen subproblems are cheap, the subproblems their small budgets
/// allow.
pub(crate) const PROXIMAL_GROWTH: f64 = 10.0;

/// See `PROXIMAL_GROWTH`.
pub(crate) const MAX_PROXIMAL_WEIGHT: f64 = 1e-4;

/// See `PROXIMAL_GROWTH`.
pub(crate) const SLOW_SUBPROBLEM: usize = 100;

/// A subproblem's answer whose scaled error is within this share of the
/// answer's two subproblems before, its guess not holding, marks a
/// two-cycle of the outer loop; a frozen one then counts as slow
/// (`PROXIMAL_GROWTH`).
pub(crate) const CYCLE_MATCH: f64 = 1e-3;

/// The share of the `proximal_weight` setting that block pivoting lowers
/// the weight to after subproblems whose guess held. The setting is what a
/// warm start's first subproblem needs (the load of redundant contacts
/// held where it was, see `BlockPivotingParams::proximal_weight`); an
/// outer loop that drifts along a held guess converges faster below it
/// (more of a landing pile's islands certify within their budgets:
/// docs/benchmarks.md). A hundredth left a 40-box heap moving after
/// 10 000 steps (regress `box_heap_40_box_friction`).
pub(crate) const LOWEST_WEIGHT_SHARE: f64 = 0.1;

/// Block exchanges allowed without a fall in the number of violated rows
/// before the subproblem is frozen (Judice & Pires 1994's p).
pub(crate) const BLOCK_TRIES: usize = 3;

/// Projected Gauss-Seidel sweeps that make a cold start's first guess.
pub(crate) const COLD_SWEEPS: usize = 30;

/// A cold start's row counts as at a bound within this much of the
/// largest impulse of the sweeps' iterate.
pub(crate) const COLD_ACTIVE: f64 = 1e-6;

/// A row violates its guess only by more than the user's `tolerance`
/// divided by this (scaled like the certificate): smaller violations are
/// rounding, and a margin below the tolerance keeps the certified answer
/// within it.
pub(crate) const VIOLATION_SHARE: f64 = 16.0;

/// While extrapolating, a row within this times `||z||_inf` of a bound is
/// at it (rounding) and slides along it instead of bounding the jump.
pub(crate) const EXTRAPOLATION_AT_BOUND: f64 = 1e-9;

/// `active_set_of` puts a row at a bound within this times
/// `max(||z||_inf, 1)` of it: the rounding a claimed answer carries (a
/// public function without settings; its documentation gives the number).
pub(crate) const ACTIVE_SET_AT_BOUND: f64 = 1e-12;

// Scaling.

/// Maximum number of Ruiz sweeps (each costs one pass over M). Row and column
/// maxima are within a factor 2 of 1 after a few sweeps on contact matrices.
pub(crate) const RUIZ_SWEEPS: usize = 20;

// Projected Gauss-Seidel.

/// Rows per block of a dense PGS sweep (pgs/mod.rs, `sweep_dense`).
pub(crate) const SWEEP_BLOCK: usize = 4;
