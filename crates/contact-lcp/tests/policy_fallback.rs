//! Guards the solver policy: Dantzig answers symmetric problems, Lemke
//! non-symmetric plain LCPs, large friction-coupled box problems and what
//! Dantzig gives up on, the exhaustive search small problems that both
//! give up on, and projected Gauss-Seidel takes over (and says so) on
//! larger ones.

mod common;

use common::{Rng, brute_force, dist, feasible_q, random_p_matrix, random_pd, random_psd};
use contact_lcp::faer::Mat;
use contact_lcp::{
    BoxLcp, DantzigParams, EXHAUSTIVE_MAX_BASES, Lcp, LcpError, LemkeParams, Method, PgsParams,
    Solver, SolverParams, verify,
};

const INF: f64 = f64::INFINITY;

fn pgs() -> PgsParams {
    PgsParams {
        tolerance: 1e-12,
        max_sweeps: 100_000,
        ..PgsParams::default()
    }
}

#[test]
fn dantzig_answers_symmetric_problems() {
    let mut rng = Rng::new(1);
    let mut solver = Solver::default();
    for n in 1..8 {
        let m = random_psd(&mut rng, n, n.div_ceil(2));
        let (q, _) = feasible_q(&mut rng, &m);
        let lcp = Lcp::new(m, q).unwrap();
        let sol = solver.solve_lcp(&lcp).unwrap();
        assert_eq!(sol.method, Method::Dantzig);
        assert!(solver.first_failure().is_none());
        assert_eq!(solver.failed_method(), None);
        assert!(verify(&lcp, &sol.z, &sol.w).is_solution(1e-9));
    }
}

#[test]
fn lemke_answers_non_symmetric_lcps() {
    let mut rng = Rng::new(2);
    let mut solver = Solver::default();
    for n in 2..8 {
        let m = random_p_matrix(&mut rng, n);
        let q: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
        let lcp = Lcp::new(m, q).unwrap();
        let sol = solver.solve_lcp(&lcp).unwrap();
        assert_eq!(sol.method, Method::Lemke);
        // P-matrix: the unique solution, by enumeration.
        let all = brute_force(&lcp);
        assert_eq!(all.len(), 1);
        assert!(dist(&sol.z, &all[0]) <= 1e-9);
    }
}

#[test]
fn lemke_then_pgs_take_over_when_dantzig_gives_up() {
    let mut rng = Rng::new(3);
    for limit in [0, 1] {
        // The block guess needs no pivot: off, so that the
        // pivot budget holds Dantzig back.
        let dantzig = DantzigParams {
            max_pivots: limit,
            block_guess_from: usize::MAX,
            ..DantzigParams::default()
        };
        let m = random_pd(&mut rng, 6);
        let p = BoxLcp::new(m, vec![-1.0; 6], vec![0.0; 6], vec![INF; 6], vec![]).unwrap();
        // Same answer as the pivoting with its default budget (SPD: unique).
        let exact = Solver::default().solve(&p).unwrap();
        assert_eq!(exact.method, Method::Dantzig);
        // Lemke (on the standard form of the box problem) answers second.
        let mut solver = Solver::new(SolverParams {
            dantzig,
            ..SolverParams::default()
        });
        let sol = solver.solve(&p).unwrap();
        assert_eq!(sol.method, Method::Lemke);
        assert!(matches!(
            solver.first_failure(),
            Some(LcpError::PivotLimit { pivots, .. }) if *pivots == limit
        ));
        assert!(dist(&sol.z, &exact.z) <= 1e-9);
        // With Lemke held to no pivots as well, the exhaustive search
        // answers (2^6 bases), exactly.
        let held = SolverParams {
            dantzig,
            lemke: LemkeParams {
                // z0 enters at the first pivot; the second is over budget.
                max_pivots: 1,
                fallback_zero_tolerance: 0.0,
                ..LemkeParams::default()
            },
            pgs: pgs(),
            ..SolverParams::default()
        };
        let mut solver = Solver::new(held);
        let sol = solver.solve(&p).unwrap();
        assert_eq!(sol.method, Method::ExhaustiveSearch);
        assert!(sol.report.is_solution(1e-12), "{:?}", sol.report);
        assert!(dist(&sol.z, &exact.z) <= 1e-12);
        // Beyond the search's size (2^13 bases) the fail-safe answers.
        let n = 13;
        assert!(1 << n > EXHAUSTIVE_MAX_BASES);
        let m = random_pd(&mut rng, n);
        let p = BoxLcp::new(m, vec![-1.0; n], vec![0.0; n], vec![INF; n], vec![]).unwrap();
        let exact = Solver::default().solve(&p).unwrap();
        let mut solver = Solver::new(held);
        let sol = solver.solve(&p).unwrap();
        assert_eq!(sol.method, Method::ProjectedGaussSeidel);
        assert!(matches!(
            solver.first_failure(),
            Some(LcpError::PivotLimit { pivots, .. }) if *pivots == limit
        ));
        assert!(sol.report.is_solution(1e-10), "{:?}", sol.report);
        assert!(dist(&sol.z, &exact.z) <= 1e-9);
    }
}

#[test]
fn dantzig_runs_again_with_its_full_budget_only_when_lemke_fails_too() {
    // Dantzig's first attempt held to 1 pivot runs out on a positive
    // definite problem of 6 rows (the one-row pivoting needs one pivot per
    // row it clamps): Lemke answers next; with Lemke held to 1 pivot as
    // well, Dantzig runs again with its own budget and answers.
    let mut rng = Rng::new(7);
    let m = random_pd(&mut rng, 6);
    let p = BoxLcp::new(m, vec![-1.0; 6], vec![0.0; 6], vec![INF; 6], vec![]).unwrap();
    let exact = Solver::default().solve(&p).unwrap();
    assert_eq!(exact.method, Method::Dantzig);
    // The block guess needs no pivot: off, so that the
    // capped budget holds Dantzig back.
    let capped = SolverParams {
        dantzig: DantzigParams {
            block_guess_from: usize::MAX,
            ..DantzigParams::default()
        },
        dantzig_first_pivots: 1,
        ..SolverParams::default()
    };
    let mut solver = Solver::new(capped);
    let sol = solver.solve(&p).unwrap();
    assert_eq!(sol.method, Method::Lemke);
    assert!(matches!(
        solver.first_failure(),
        Some(LcpError::PivotLimit { pivots: 1, .. })
    ));
    assert!(dist(&sol.z, &exact.z) <= 1e-9);
    let mut solver = Solver::new(SolverParams {
        lemke: LemkeParams {
            max_pivots: 1,
            fallback_zero_tolerance: 0.0,
            ..LemkeParams::default()
        },
        ..capped
    });
    let sol = solver.solve(&p).unwrap();
    assert_eq!(sol.method, Method::Dantzig);
    assert!(sol.pivots > 1, "the full budget was used: {}", sol.pivots);
    assert!(dist(&sol.z, &exact.z) <= 1e-12);
}

#[test]
fn non_symmetric_box_problems_are_pivoted_too() {
    // Diagonally dominant, non-symmetric, with a bilateral row.
    let m = Mat::from_fn(3, 3, |i, j| {
        if i == j {
            4.0
        } else {
            (i + 2 * j) as f64 * 0.3
        }
    });
    let p = BoxLcp::new(
        m,
        vec![-1.0, 2.0, -3.0],
        vec![0.0, -INF, -0.5],
        vec![INF, INF, 0.5],
        vec![],
    )
    .unwrap();
    let mut solver = Solver::new(SolverParams {
        pgs: pgs(),
        ..SolverParams::default()
    });
    // Dantzig pivots non-symmetric problems with an updated inverse of the
    // clamped block (dynamic friction); the fail-safe is not needed.
    let sol = solver.solve(&p).unwrap();
    assert_eq!(sol.method, Method::Dantzig);
    assert!(solver.first_failure().is_none());
    assert!(sol.report.is_solution(1e-12), "{:?}", sol.report);
}

#[test]
fn when_both_fail_the_fail_safe_error_is_returned() {
    // Inconsistent duplicated bilateral rows: no solution at all. Alone
    // they are one singular basis, which the exhaustive search rules out
    // (singular_bases.rs); with 13 plain rows beside them (2^13 bases) the
    // search does not run and the fail-safe answers for the policy.
    let n = 15;
    assert!(1 << (n - 2) > EXHAUSTIVE_MAX_BASES);
    let m = Mat::from_fn(n, n, |i, j| match (i < 2 && j < 2, i == j) {
        (true, _) | (_, true) => 1.0,
        _ => 0.0,
    });
    let mut q = vec![-1.0; n];
    q[1] = -2.0;
    let (mut lo, mut hi) = (vec![0.0; n], vec![INF; n]);
    lo[..2].fill(-INF);
    hi[..2].fill(INF);
    let p = BoxLcp::new(m, q, lo, hi, vec![]).unwrap();
    let mut solver = Solver::new(SolverParams {
        pgs: PgsParams {
            max_sweeps: 50,
            ..PgsParams::default()
        },
        ..SolverParams::default()
    });
    let err = solver.solve(&p).unwrap_err();
    assert!(
        matches!(err, LcpError::IterationLimit { sweeps: 50, .. }),
        "{err:?}"
    );
    assert!(matches!(
        solver.first_failure(),
        Some(LcpError::NoSolutionOnPath { .. })
    ));
    assert_eq!(solver.failed_method(), Some(Method::ProjectedGaussSeidel));
}

#[test]
fn the_fail_safe_starts_from_the_better_pivoting_answer() {
    // Dantzig stops after one pivot (its best iterate is far from the
    // solution); Lemke answers to rounding, and a certification tolerance
    // below rounding refuses both. The fail-safe must start from the answer
    // whose certificate is better (Lemke's), not from whichever came first:
    // from there one sweep confirms it, from Dantzig's iterate three sweeps
    // are far too few.
    let mut rng = Rng::new(5);
    let m = random_pd(&mut rng, 6);
    let p = BoxLcp::new(m, vec![-1.0; 6], vec![0.0; 6], vec![INF; 6], vec![]).unwrap();
    let exact = Solver::default().solve(&p).unwrap();
    let mut solver = Solver::new(SolverParams {
        // The block guess (no pivots) is off.
        dantzig: DantzigParams {
            max_pivots: 1,
            block_guess_from: usize::MAX,
            ..DantzigParams::default()
        },
        pgs: PgsParams {
            tolerance: 1e-12,
            max_sweeps: 3,
            ..PgsParams::default()
        },
        tolerance: 1e-300,
        ..SolverParams::default()
    });
    let sol = solver.solve(&p).unwrap();
    assert_eq!(sol.method, Method::ProjectedGaussSeidel);
    assert!(matches!(
        solver.first_failure(),
        Some(LcpError::PivotLimit { .. })
    ));
    assert!(sol.iterations <= 2, "sweeps: {}", sol.iterations);
    assert!(dist(&sol.z, &exact.z) <= 1e-9);
}
