//! Scenario benchmarks of the contact workspace; the benches live in
//! `benches/benches/` and run with `cargo bench -p contact-benches` or,
//! with a report, `cargo xtask bench`. This library holds the problem
//! generators they share, so every bench solves reproducible problems.

mod contact_problem;
mod notes;
mod pyramid_steps;
pub mod scene_bench;
mod settled_stack;
mod sliding_box;

pub use contact_problem::{ContactProblem, ROWS_PER_BOX, StackOperator, box_towers_problem};
pub use notes::Notes;
pub use pyramid_steps::{PyramidStep, pyramid_step};
pub use settled_stack::{SettledStack, settled_stack};
pub use sliding_box::{
    SLIDING_SEED, SLIDING_STACK_CUBES, SLIDING_STACK_SET_SIZE, sliding_box_set, sliding_stack_set,
    sliding_stack_sets,
};

use contact_lcp::faer::{Accum, Mat, MatMut, MatRef, Par};
use contact_lcp::{BoxLcp, Lcp, ProjectedGaussSeidel};
use contact_sim::scenes::{BoxStack, box_stack};
use contact_sim::{FixedStepParams, FixedStepper};
use glam::DVec3;

/// xorshift64*: a small seeded generator, so problems are the same in
/// every run and on every machine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a nonzero seed.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [-1, 1).
    pub fn symmetric(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }

    /// Each coordinate uniform in [lo, hi).
    pub fn vector(&mut self, lo: f64, hi: f64) -> DVec3 {
        DVec3::new(self.unit(), self.unit(), self.unit()) * (hi - lo) + DVec3::splat(lo)
    }
}

/// `y = M x` by faer's dense product on one thread: the yardstick a
/// projected Gauss-Seidel sweep is measured against (issue 3: within 2x).
pub fn faer_matvec(y: MatMut<'_, f64>, m: MatRef<'_, f64>, x: MatRef<'_, f64>) {
    contact_lcp::faer::linalg::matmul::matmul(y, Accum::Replace, m, x, 1.0, Par::Seq);
}

/// The problems and states a projected Gauss-Seidel sweep is timed in
/// (criterion group `pgs_sweep`, example `pgs_sweep_ratio`): the random SPD
/// problem of size `n` (seed `0x5EED + n`, as the other groups), mid-solve
/// at its 10th iterate, and with every row moving (bounds lifted, from
/// `z = 0`).
#[derive(Clone, Debug)]
pub struct SweepCases {
    /// The matrix, for the `M x` yardstick.
    pub m: Mat<f64>,
    /// `q`, also the `x` of the yardstick.
    pub q: Vec<f64>,
    /// The LCP.
    pub mid_solve: BoxLcp,
    /// Its 10th iterate `z`.
    pub z: Vec<f64>,
    /// `w = M z + q` at that iterate.
    pub w: Vec<f64>,
    /// The same `M` and `q` with free rows (start at `z = 0`, `w = q`).
    pub every_row: BoxLcp,
}

/// The [`SweepCases`] of size `n`.
///
/// # Panics
/// Never for `n >= 1`: the problem is finite and its bounds valid.
#[must_use]
pub fn pgs_sweep_cases(n: usize) -> SweepCases {
    let (m, q) = random_positive_definite(n, 0x5EED + n as u64);
    let lcp = Lcp::new(m.clone(), q.clone()).expect("finite");
    let mid_solve = BoxLcp::from_lcp(&lcp);
    let mut solver = ProjectedGaussSeidel::default();
    let (mut z, mut w) = (vec![0.0; n], q.clone());
    for _ in 0..10 {
        solver.sweep(&mid_solve, &mut z, &mut w).expect("valid");
    }
    let every_row = BoxLcp::new(
        m.clone(),
        q.clone(),
        vec![f64::NEG_INFINITY; n],
        vec![f64::INFINITY; n],
        vec![],
    )
    .expect("valid bounds");
    SweepCases {
        m,
        q,
        mid_solve,
        z,
        w,
        every_row,
    }
}

/// A dense symmetric positive definite LCP of size `n`:
/// `M = A A' / n + I / 10` with `A` uniform in [-1, 1], `q` uniform in
/// [-1, 1] (about half the rows end up active).
#[must_use]
pub fn random_positive_definite(n: usize, seed: u64) -> (Mat<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let a = Mat::from_fn(n, n, |_, _| rng.symmetric());
    let mut m = &a * a.transpose() * (1.0 / n as f64);
    for i in 0..n {
        m[(i, i)] += 0.1;
    }
    let q = (0..n).map(|_| rng.symmetric()).collect();
    (m, q)
}

/// `count` different random SPD problems of size `n`
/// ([`random_positive_definite`] on seeds of their own): the sets of the
/// `lcp_random_pd_set` criterion group and of the peers' `spd_*_set`.
#[must_use]
pub fn random_positive_definite_set(n: usize, count: usize) -> Vec<(Mat<f64>, Vec<f64>)> {
    (0..count as u64)
        .map(|k| random_positive_definite(n, 0xD1FF_0000 + 1000 * n as u64 + k))
        .collect()
}

/// The Anitescu-Potra contact LCP of a settled stack of `boxes` unit cubes
/// (4 contacts per face, 8 friction directions: 40 unknowns per box; with
/// the default 4 directions the stepper solves the equivalent box problem
/// instead). Its matrix is non-symmetric and singular (redundant
/// contacts).
///
/// # Panics
/// If the stack fails to step (the test below steps the 3-box one).
#[must_use]
pub fn box_stack_lcp(boxes: usize) -> (Mat<f64>, Vec<f64>) {
    let stack = BoxStack {
        count: boxes,
        ..BoxStack::default()
    };
    let mut world = box_stack(&stack).expect("valid stack");
    let mut params = FixedStepParams::default();
    params.dynamics.friction_directions = 8;
    let mut stepper = FixedStepper::new(params).expect("valid params");
    for _ in 0..5 {
        stepper.step(&mut world).expect("stack steps");
    }
    let (m, q) = stepper.last_problem(0);
    (m.to_owned(), q.to_vec())
}

#[cfg(test)]
mod tests {
    use contact_lcp::{Lemke, verify_z};

    use super::*;

    /// The stack LCP of 3 boxes has 40 unknowns a box (4 contacts, each a
    /// normal, 8 friction generators and a sliding speed), and Lemke's
    /// answer passes an independent certificate.
    #[test]
    fn the_stack_lcp_has_eight_directions_and_lemke_solves_it() {
        let (m, q) = box_stack_lcp(3);
        assert_eq!(q.len(), 3 * 40);
        let lcp = Lcp::new(m, q).unwrap();
        let solution = Lemke::default().solve(&lcp).unwrap();
        let report = verify_z(&lcp, &solution.z);
        assert!(report.scaled_max() <= 1e-9, "{report:?}");
    }
}
