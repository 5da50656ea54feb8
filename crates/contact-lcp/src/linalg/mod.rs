// The dense linear algebra of the solvers, on column-major storage, with
// reused buffers and sequential faer kernels (results never depend on the
// number of threads): cholesky.rs, the updatable factor of Dantzig's
// clamped block; inverse.rs, its non-symmetric counterpart; lu.rs, LU of a
// square block; kernels.rs, dot, axpy, gemv and triangular solves;
// lanes.rs and lane_scan.rs, four-lane arithmetic with the same bits on
// every machine; faer_scratch.rs, faer's scratch stack kept between calls.

pub(crate) mod cholesky;
pub(crate) mod faer_scratch;
pub(crate) mod inverse;
pub(crate) mod kernels;
pub(crate) mod lane_scan;
pub(crate) mod lanes;
pub(crate) mod lu;
