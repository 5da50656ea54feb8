//! Block principal pivoting (`BlockPivoting`): cold starts on random SPD
//! box problems (against Dantzig's answer, unique there) and on
//! friction-coupled contact problems (certified, dense and sparse alike);
//! warm starts from the exact active set of another solver's answer (one
//! linear solve) and from a perturbed one (a few); a pyramid stepped in
//! time, warm-started from each step's active set; failures typed with the
//! best iterate.

mod common;

use common::Rng;
use common::contacts::random_stack;
use common::pyramid::{problems, pyramid, velocities};
use contact_lcp::faer::Mat;
use contact_lcp::{
    BlockPivoting, BlockPivotingParams, BoxLcp, Dantzig, LcpError, LcpSolution, Method, RowState,
    SparseBoxLcp, active_set_of, verify_box,
};

const TOL: f64 = 1e-9;

/// A random SPD box problem: `M = A A' + 0.1 I`, rows plain `[0, inf)`,
/// boxed `[-1, 2]` or free, by turns.
fn random_box(rng: &mut Rng, n: usize) -> BoxLcp {
    let m = common::random_pd(rng, n);
    let q = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    let inf = f64::INFINITY;
    let lo = (0..n).map(|i| [0.0, -1.0, -inf][i % 3]).collect();
    let hi = (0..n).map(|i| [inf, 2.0, inf][i % 3]).collect();
    BoxLcp::new(m, q, lo, hi, vec![]).unwrap()
}

/// Certifies `sol` independently (the public certificate, recomputing w).
fn assert_certified(problem: &BoxLcp, sol: &LcpSolution, what: &str) {
    let report = verify_box(problem, &sol.z, &sol.w);
    assert!(report.is_solution(TOL), "{what}: {report:?}");
    assert_eq!(sol.method, Method::BlockPivoting);
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

#[test]
fn cold_starts_match_dantzig_on_random_spd_box_problems() {
    let mut rng = Rng::new(0xB10C);
    let mut solver = BlockPivoting::default();
    let mut dantzig = Dantzig::default();
    for case in 0..60 {
        let n = [3, 8, 20, 50, 120][case % 5];
        let p = random_box(&mut rng, n);
        let sol = solver.solve(&p, None).unwrap();
        assert_certified(&p, &sol, &format!("case {case}"));
        let reference = dantzig.solve(&p).unwrap();
        // M is positive definite: the solution is unique.
        let scale = reference.z.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
        assert!(
            max_diff(&sol.z, &reference.z) <= 1e-8 * scale,
            "case {case}: {:?} vs {:?}",
            sol.z,
            reference.z
        );
        assert_eq!(sol.iterations, solver.last_stats().solves);
        assert!(
            solver.last_stats().solves <= 12,
            "case {case}: {:?}",
            solver.last_stats()
        );
    }
}

/// Random SPD box problems have a unique solution, so the active set of
/// Dantzig's answer is the exact one: one linear solve, no exchange. From
/// a perturbed one (three rows flipped), a few: a flipped row moves the
/// others of a dense M, which the next guesses follow (measured: 1 to 7
/// solves, 4.3 on average; the bounds guard that).
#[test]
fn the_exact_active_set_takes_one_solve_and_a_perturbed_one_a_few() {
    let mut rng = Rng::new(0xAC7);
    let mut solver = BlockPivoting::default();
    let mut dantzig = Dantzig::default();
    let mut states = Vec::new();
    let mut perturbed_solves = Vec::new();
    for case in 0..30 {
        let p = random_box(&mut rng, 10 + 7 * case);
        let reference = dantzig.solve(&p).unwrap();
        active_set_of(p.bounds(), &reference.z, &reference.w, &mut states);
        let sol = solver.solve(&p, Some(&states)).unwrap();
        assert_certified(&p, &sol, &format!("case {case}"));
        let stats = *solver.last_stats();
        assert_eq!(
            (stats.solves, stats.exchanges),
            (1, 0),
            "case {case}: {stats:?}"
        );
        assert_eq!(solver.active_set(), states.as_slice());
        let guess = flip_three(&mut rng, &states);
        let sol = solver.solve(&p, Some(&guess)).unwrap();
        assert_certified(&p, &sol, &format!("case {case}, perturbed"));
        perturbed_solves.push(solver.last_stats().solves);
    }
    assert_few(&perturbed_solves, 8, 5.0);
}

/// Asserts that every count is at most `worst` and their mean at most
/// `mean`.
fn assert_few(solves: &[usize], worst: usize, mean: f64) {
    let max = solves.iter().max().copied().unwrap_or(0);
    let average = solves.iter().sum::<usize>() as f64 / solves.len().max(1) as f64;
    assert!(max <= worst && average <= mean, "solves: {solves:?}");
}

/// `guess` with three random rows flipped between free and the lower bound.
fn flip_three(rng: &mut Rng, guess: &[RowState]) -> Vec<RowState> {
    let mut guess = guess.to_vec();
    for _ in 0..3 {
        let i = rng.below(guess.len());
        guess[i] = match guess[i] {
            RowState::Free => RowState::Lower,
            _ => RowState::Free,
        };
    }
    guess
}

/// Friction-coupled stacks (singular M, 4 contacts per face): the contact
/// forces are not unique, and Dantzig leaves some dependent friction rows
/// at 0 inside their bounds, which as a guess are free rows: from its
/// active set, at most one more solve. From block pivoting's own answer
/// (what a simulator passes on to the next step), exactly one solve; from
/// a perturbed one, a few (measured: 1 to 13, 5.5 on average: a flipped
/// friction row moves its normal, and the contacts it touches). Cold
/// starts of stacks of up to 4 boxes settle.
#[test]
fn warm_starts_on_friction_coupled_stacks() {
    let mut rng = Rng::new(0x57AC);
    let mut solver = BlockPivoting::default();
    let mut dantzig = Dantzig::default();
    let mut states = Vec::new();
    let mut perturbed_solves = Vec::new();
    for case in 0..24 {
        let (_, p) = random_stack(&mut rng, [1, 2, 3, 4][case % 4], true);
        let reference = dantzig.solve(&p).unwrap();
        active_set_of(p.bounds(), &reference.z, &reference.w, &mut states);
        let sol = solver.solve(&p, Some(&states)).unwrap();
        assert_certified(&p, &sol, &format!("case {case}, from Dantzig's"));
        assert!(
            solver.last_stats().solves <= 2,
            "case {case}: {:?}",
            solver.last_stats()
        );

        let cold = solver.solve(&p, None).unwrap();
        assert_certified(&p, &cold, &format!("case {case}, cold"));
        let own = solver.active_set().to_vec();
        let sol = solver.solve(&p, Some(&own)).unwrap();
        assert_certified(&p, &sol, &format!("case {case}, from its own"));
        let stats = *solver.last_stats();
        assert_eq!(
            (stats.solves, stats.exchanges),
            (1, 0),
            "case {case}: {stats:?}"
        );
        assert_eq!(
            sol.z, cold.z,
            "case {case}: the same system, the same answer"
        );

        let guess = flip_three(&mut rng, &own);
        let sol = solver.solve(&p, Some(&guess)).unwrap();
        assert_certified(&p, &sol, &format!("case {case}, perturbed"));
        perturbed_solves.push(solver.last_stats().solves);
    }
    assert_few(&perturbed_solves, 16, 7.0);
}

/// The sparse path runs the same pivoting with a sparse factor: both
/// certify, on stacks with and without friction.
#[test]
fn dense_and_sparse_paths_both_certify() {
    let mut rng = Rng::new(0x5BA5);
    let mut solver = BlockPivoting::default();
    for case in 0..16 {
        let (_, p) = random_stack(&mut rng, 1 + case % 4, case % 5 != 0);
        let sparse = SparseBoxLcp::from_dense(&p);
        let dense_sol = solver.solve(&p, None).unwrap();
        assert_certified(&p, &dense_sol, &format!("case {case}, dense"));
        let sparse_sol = solver.solve_sparse(&sparse, None).unwrap();
        assert_certified(&p, &sparse_sol, &format!("case {case}, sparse"));
        assert_eq!(
            sparse_sol.report,
            sparse.verify(&sparse_sol.z, &sparse_sol.w)
        );
    }
}

#[test]
fn frictionless_stacks_match_dantzigs_velocities() {
    let mut rng = Rng::new(0xF1A7);
    let mut solver = BlockPivoting::default();
    let mut dantzig = Dantzig::default();
    for case in 0..12 {
        let (_, p) = random_stack(&mut rng, 1 + case, false);
        let sol = solver.solve(&p, None).unwrap();
        assert_certified(&p, &sol, &format!("case {case}"));
        let reference = dantzig.solve(&p).unwrap();
        let scale = reference.w.iter().fold(1e-3_f64, |m, x| m.max(x.abs()));
        assert!(
            max_diff(&sol.w, &reference.w) <= 1e-7 * scale,
            "case {case}"
        );
    }
}

/// A pyramid of 21 cubes (n = 432) whose cubes slide slowly: cold starts,
/// dense and sparse, certify with sliding and sticking contacts.
#[test]
fn a_pyramid_with_sliding_and_sticking_contacts() {
    let mut solver = BlockPivoting::default();
    for mu in [0.3, 0.5] {
        let mut rng = Rng::new(0x9E7A);
        let (contacts, bounds) = pyramid(&mut rng, 6, mu);
        let v = velocities(&mut rng, contacts.inv_mass.len(), 0.02, 0.05);
        let (dense, sparse) = problems(&contacts, &bounds, &v);
        assert_eq!(dense.dim(), 432);
        let sol = solver.solve(&dense, None).unwrap();
        assert_certified(&dense, &sol, "dense");
        let states = solver.active_set().to_vec();
        let friction = |kind: fn(RowState) -> bool| {
            bounds
                .couplings()
                .iter()
                .filter(|c| kind(states[c.row]) && sol.z[c.normal_row] > 0.0)
                .count()
        };
        let sticking = friction(|s| s == RowState::Free);
        let sliding = friction(|s| s != RowState::Free);
        assert!(
            sticking > 100 && sliding > 5,
            "mu {mu}: {sticking} sticking, {sliding} sliding"
        );
        let sparse_sol = solver.solve_sparse(&sparse, None).unwrap();
        assert_certified(&dense, &sparse_sol, "sparse");
    }
}

/// Steps a pyramid with its geometry held fixed (the velocity-level
/// problem of each step: gravity, then the contact impulses), on the sparse
/// path, warm-started from the active set of the step before as a
/// simulator would, falling back to Dantzig where block pivoting gives up
/// (and taking the active set of its answer): once the sliding has
/// stopped, every step is one solve, and the symbolic factor is made once.
#[test]
fn a_stepped_pyramid_needs_one_solve_per_settled_step() {
    let mut rng = Rng::new(0x57E9);
    let (contacts, bounds) = pyramid(&mut rng, 5, 0.5);
    let bodies = contacts.inv_mass.len();
    let mut v = velocities(&mut rng, bodies, 0.05, 0.0);
    let mut solver = BlockPivoting::default();
    let mut dantzig = Dantzig::default();
    let mut guess: Option<Vec<RowState>> = None;
    let (mut solves, mut symbolic) = (Vec::new(), 0);
    for _ in 0..40 {
        for b in 0..bodies {
            v[6 * b + 2] -= 9.81 / 60.0;
        }
        let (dense, sparse) = problems(&contacts, &bounds, &v);
        let sol = match solver.solve_sparse(&sparse, guess.as_deref()) {
            Ok(sol) => {
                guess = Some(solver.active_set().to_vec());
                sol
            }
            Err(_) => {
                let sol = dantzig.solve(&dense).unwrap();
                let mut states = Vec::new();
                active_set_of(&bounds, &sol.z, &sol.w, &mut states);
                guess = Some(states);
                sol
            }
        };
        assert!(verify_box(&dense, &sol.z, &sol.w).is_solution(TOL));
        solves.push(solver.last_stats().solves);
        symbolic += solver.last_stats().symbolic_factorizations;
        let dv = contacts.velocity_change(&sol.z);
        for (vi, d) in v.iter_mut().zip(dv) {
            *vi += d;
        }
    }
    assert_eq!(symbolic, 1, "one pattern, one symbolic factor");
    assert!(solves[0] >= 2, "a cold start: {solves:?}");
    assert!(
        solves[20..].iter().all(|&s| s == 1),
        "settled steps: {solves:?}"
    );
}

#[test]
fn failures_are_typed_with_the_best_iterate() {
    let mut rng = Rng::new(0xFA11);
    let p = random_box(&mut rng, 30);
    let mut solver = BlockPivoting::new(BlockPivotingParams {
        max_solves: 1,
        ..BlockPivotingParams::default()
    });
    let error = solver.solve(&p, None).unwrap_err();
    match &error {
        LcpError::BlockPivotingFailed { solves, reason, .. } => {
            assert_eq!(*solves, 1);
            assert_eq!(*reason, "solve limit reached");
        }
        other => panic!("{other:?}"),
    }
    let best = error.best().expect("best iterate");
    // Projected on the bounds, with its own honest report.
    assert_eq!(best.report, verify_box(&p, &best.z, &best.w));
    assert!(!best.report.is_solution(TOL));

    let bad = BlockPivoting::new(BlockPivotingParams {
        tolerance: f64::NAN,
        ..BlockPivotingParams::default()
    })
    .solve(&p, None)
    .unwrap_err();
    assert!(matches!(
        bad,
        LcpError::InvalidParameter {
            what: "tolerance",
            ..
        }
    ));
    let short = BlockPivoting::default()
        .solve(&p, Some(&[RowState::Free; 3]))
        .unwrap_err();
    assert_eq!(
        short,
        LcpError::BadLength {
            what: "guess",
            expected: 30,
            found: 3
        }
    );
}

/// `SparseBoxLcp::from_operator` forms `J W J'` as the dense product does
/// (the stacks' rows share bodies in pairs, the ground's rows touch one),
/// and names a body out of range.
#[test]
fn the_sparse_operator_matrix_is_j_w_j_transposed() {
    let mut rng = Rng::new(0x0FE7);
    let (contacts, p) = random_stack(&mut rng, 3, true);
    let sparse =
        SparseBoxLcp::from_operator(&contacts, p.q().to_vec(), p.bounds().clone()).unwrap();
    let (m, dense) = (sparse.to_dense(), contacts.dense());
    let scale = (0..p.dim()).map(|i| dense[(i, i)]).fold(0.0, f64::max);
    for i in 0..p.dim() {
        for j in 0..p.dim() {
            assert!(
                (m.m()[(i, j)] - dense[(i, j)]).abs() <= 1e-14 * scale,
                "({i}, {j})"
            );
        }
    }
    let mut broken = contacts.clone();
    broken.rows[5][0].as_mut().unwrap().body = 7;
    let error =
        SparseBoxLcp::from_operator(&broken, p.q().to_vec(), p.bounds().clone()).unwrap_err();
    assert_eq!(
        error,
        LcpError::BodyOutOfRange {
            row: 5,
            body: 7,
            bodies: 3
        }
    );
}

/// Without the shift (`regularization` 0) a positive definite problem is
/// solved the same, and its answer is as exact as the factor.
#[test]
fn positive_definite_problems_need_no_shift() {
    let mut rng = Rng::new(0x5417);
    let mut solver = BlockPivoting::new(BlockPivotingParams {
        regularization: 0.0,
        ..BlockPivotingParams::default()
    });
    for case in 0..10 {
        let p = random_box(&mut rng, 10 + 9 * case);
        let sol = solver.solve(&p, None).unwrap();
        assert_certified(&p, &sol, &format!("case {case}"));
        assert!(
            sol.report.scaled_max() < 1e-13,
            "case {case}: {:?}",
            sol.report
        );
        let sparse = SparseBoxLcp::from_dense(&p);
        let sparse_sol = solver.solve_sparse(&sparse, None).unwrap();
        let z_inf = sol.z.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        assert!(
            max_diff(&sol.z, &sparse_sol.z) <= 1e-12 * z_inf,
            "case {case}"
        );
    }
}

#[test]
fn the_empty_problem_and_a_zero_matrix() {
    let empty = BoxLcp::new(Mat::zeros(0, 0), vec![], vec![], vec![], vec![]).unwrap();
    let sol = BlockPivoting::default().solve(&empty, None).unwrap();
    assert!(sol.z.is_empty());
    // M = 0, q >= 0: z = 0 at the lower bounds, nothing to factor.
    let inf = f64::INFINITY;
    let zero = BoxLcp::new(
        Mat::zeros(2, 2),
        vec![1.0, 0.0],
        vec![0.0; 2],
        vec![inf; 2],
        vec![],
    )
    .unwrap();
    let sol = BlockPivoting::default().solve(&zero, None).unwrap();
    assert_eq!(sol.z, [0.0, 0.0]);
}

#[test]
fn repeated_solves_allocate_nothing() {
    let mut rng = Rng::new(0xA110);
    let (_, p) = random_stack(&mut rng, 4, true);
    let mut solver = BlockPivoting::default();
    let mut out = LcpSolution::default();
    solver.solve_into(&p, None, &mut out).unwrap();
    let guess = solver.active_set().to_vec();
    solver.solve_into(&p, Some(&guess), &mut out).unwrap();
    let info = allocation_counter::measure(|| {
        solver.solve_into(&p, None, &mut out).unwrap();
        solver.solve_into(&p, Some(&guess), &mut out).unwrap();
    });
    assert_eq!(info.count_total, 0, "dense: {info:?}");

    // The sparse path on a pyramid at rest, every contact sticking: the
    // symmetric factor, refactored into kept storage.
    let (contacts, bounds) = pyramid(&mut rng, 4, 0.8);
    let v = velocities(&mut rng, contacts.inv_mass.len(), 0.0, 0.1);
    let (_, sparse) = problems(&contacts, &bounds, &v);
    solver.solve_sparse_into(&sparse, None, &mut out).unwrap();
    let guess = solver.active_set().to_vec();
    solver
        .solve_sparse_into(&sparse, Some(&guess), &mut out)
        .unwrap();
    let info = allocation_counter::measure(|| {
        solver
            .solve_sparse_into(&sparse, Some(&guess), &mut out)
            .unwrap();
    });
    assert_eq!(solver.last_stats().solves, 1);
    assert_eq!(solver.last_stats().folded_solves, 0, "every contact sticks");
    assert_eq!(info.count_total, 0, "sparse: {info:?}");
}
