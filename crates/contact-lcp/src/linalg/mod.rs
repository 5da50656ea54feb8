// The dense linear algebra of the solvers, on column-major storage, with
// reused buffers (a repeated solve allocates nothing) and sequential faer
// kernels (results never depend on the number of threads):
//
// - cholesky.rs: the updatable Cholesky factor L L' of a clamped block
//   (append by a forward solve, removal by a rank-one update), Dantzig's
//   kernel; a whole block factored at once for the block guess;
// - inverse.rs: the explicit inverse of a non-symmetric clamped block,
//   updated by bordering;
// - lu.rs: LU with partial pivoting of a square block (Lemke's basis, the
//   coupled guess, block pivoting's step systems);
// - kernels.rs: dot, axpy, matrix-vector product and triangular solves;
// - lanes.rs, lane_scan.rs: four-lane arithmetic (plain arrays or AVX2
//   through pulp) with the same bits either way, and the max-abs scans
//   built on it;
// - faer_scratch.rs: faer's scratch stack kept between calls.

pub(crate) mod cholesky;
pub(crate) mod faer_scratch;
pub(crate) mod inverse;
pub(crate) mod kernels;
pub(crate) mod lane_scan;
pub(crate) mod lanes;
pub(crate) mod lu;
