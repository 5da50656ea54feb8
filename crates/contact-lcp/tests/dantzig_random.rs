//! Guards the Dantzig principal pivoting solver against brute-force
//! enumeration: random symmetric positive definite box problems (unique
//! solution), positive semidefinite rank-deficient and duplicated-row plain
//! LCPs (certified by `verify`), and bad input. Each enumeration runs
//! twice: with the defaults (small problems go through the block guess of
//! small_guess.rs) and with the one-row pivoting alone.

mod common;

use common::{
    Rng, assert_is_the_unique_solution, brute_force, brute_force_box, dist, feasible_q, random_pd,
    random_psd,
};
use contact_lcp::faer::Mat;
use contact_lcp::{
    BoxLcp, Dantzig, DantzigParams, Lcp, LcpError, LcpSolution, Method, verify, verify_box,
};

const INF: f64 = f64::INFINITY;

/// The solvers each enumeration runs: the defaults, and the one-row
/// pivoting alone (both guesses off).
fn solvers() -> [Dantzig; 2] {
    [
        Dantzig::default(),
        Dantzig::new(DantzigParams {
            block_guess_from: usize::MAX,
            ..DantzigParams::default()
        }),
    ]
}

/// Random bounds: unilateral, bilateral, finite box, one-sided finite, or
/// the degenerate [0, 0].
fn random_bounds(rng: &mut Rng, n: usize) -> (Vec<f64>, Vec<f64>) {
    (0..n)
        .map(|_| match rng.below(6) {
            0 => (0.0, INF),
            1 => (-INF, INF),
            2 => (-rng.range(0.1, 2.0), rng.range(0.1, 2.0)),
            3 => (0.0, rng.range(0.1, 2.0)),
            4 => (-rng.range(0.1, 2.0), 0.0),
            _ => (0.0, 0.0),
        })
        .unzip()
}

#[test]
fn random_spd_box_problems_match_the_unique_solution() {
    let mut rng = Rng::new(0xDA27_2161);
    let mut solvers = solvers();
    let mut checked = 0;
    for trial in 0..400 {
        let n = 1 + trial % 7;
        let m = random_pd(&mut rng, n);
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let (lo, hi) = random_bounds(&mut rng, n);
        let p = BoxLcp::new(m, q, lo, hi, vec![]).unwrap();
        // SPD: exactly one solution, found by enumerating 3^n assignments.
        let all = brute_force_box(&p);
        for dantzig in &mut solvers {
            let sol = dantzig.solve(&p).unwrap();
            assert_eq!(sol.method, Method::Dantzig);
            assert!(
                sol.report.is_solution(1e-12),
                "trial {trial}: {:?}",
                sol.report
            );
            assert_is_the_unique_solution(&sol.z, &all, trial);
            checked += 1;
        }
    }
    assert_eq!(checked, 800);
}

#[test]
fn random_pd_plain_lcps_match_brute_force() {
    for mut dantzig in solvers() {
        let mut rng = Rng::new(17);
        for trial in 0..200 {
            let n = 1 + trial % 8;
            let m = random_pd(&mut rng, n);
            let q: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
            let lcp = Lcp::new(m, q).unwrap();
            let sol = dantzig.solve(&BoxLcp::from_lcp(&lcp)).unwrap();
            let r = verify(&lcp, &sol.z, &sol.w);
            assert!(r.is_solution(1e-12), "trial {trial}: {r:?}");
            let all = brute_force(&lcp);
            assert_eq!(all.len(), 1);
            assert!(dist(&sol.z, &all[0]) <= 1e-9, "trial {trial}");
        }
    }
}

/// Rank-deficient PSD `A A'` (A n x k, k < n) with a q for which a solution
/// exists: every answer must certify, whatever solution it picks.
#[test]
fn rank_deficient_psd_lcps_are_certified() {
    for mut dantzig in solvers() {
        let mut rng = Rng::new(99);
        for trial in 0..300 {
            let n = 2 + trial % 9;
            let k = 1 + rng.below(n - 1);
            let m = random_psd(&mut rng, n, k);
            let (q, _) = feasible_q(&mut rng, &m);
            let lcp = Lcp::new(m, q).unwrap();
            let sol = dantzig.solve(&BoxLcp::from_lcp(&lcp)).unwrap();
            let r = verify(&lcp, &sol.z, &sol.w);
            assert!(
                r.is_solution(1e-10),
                "trial {trial} (n {n}, rank {k}): {r:?}"
            );
        }
    }
}

/// Duplicated rows and columns (the same contact listed twice, or three
/// times): M singular with exactly repeated rows.
#[test]
fn duplicated_rows_are_certified() {
    for mut dantzig in solvers() {
        let mut rng = Rng::new(5);
        for trial in 0..200 {
            let base = 2 + trial % 5;
            let m0 = random_pd(&mut rng, base);
            // Rows: 0..base, then copies of random rows.
            let mut rows: Vec<usize> = (0..base).collect();
            for _ in 0..1 + rng.below(3) {
                rows.push(rng.below(base));
            }
            let n = rows.len();
            let m = Mat::from_fn(n, n, |i, j| m0[(rows[i], rows[j])]);
            let (q, _) = feasible_q(&mut rng, &m);
            let lcp = Lcp::new(m, q).unwrap();
            let sol = dantzig.solve(&BoxLcp::from_lcp(&lcp)).unwrap();
            let r = verify(&lcp, &sol.z, &sol.w);
            assert!(r.is_solution(1e-10), "trial {trial}: {r:?}");
        }
    }
}

#[test]
fn infeasible_and_bad_input_are_typed_errors() {
    // Two equal bilateral rows asking for different w: 0 = z0 + z1 - 1 and
    // 0 = z0 + z1 - 2 cannot both hold.
    let p = BoxLcp::new(
        Mat::from_fn(2, 2, |_, _| 1.0),
        vec![-1.0, -2.0],
        vec![-INF; 2],
        vec![INF; 2],
        vec![],
    )
    .unwrap();
    let err = Dantzig::default().solve(&p).unwrap_err();
    assert!(
        matches!(err, LcpError::NoSolutionOnPath { row: 1, .. }),
        "{err:?}"
    );
    let best = err.best().unwrap();
    assert_eq!(best.method, Method::Dantzig);
    assert!(!best.report.is_solution(1e-6));

    // A plain LCP with no solution: w = -z - 1 >= 0 is impossible for z >= 0
    // (M = -1 is not PSD, but symmetric: the driven row cannot reach w = 0).
    let p = BoxLcp::new(
        Mat::from_fn(1, 1, |_, _| -1.0),
        vec![-1.0],
        vec![0.0],
        vec![INF],
        vec![],
    )
    .unwrap();
    assert!(matches!(
        Dantzig::default().solve(&p).unwrap_err(),
        LcpError::NoSolutionOnPath { row: 0, .. }
    ));

    // Empty problem.
    let p = BoxLcp::new(Mat::zeros(0, 0), vec![], vec![], vec![], vec![]).unwrap();
    let sol = Dantzig::default().solve(&p).unwrap();
    assert!(sol.z.is_empty() && sol.report.is_solution(0.0));
}

#[test]
fn pivot_limit_returns_the_best_iterate() {
    let mut rng = Rng::new(3);
    let m = random_pd(&mut rng, 6);
    let q = vec![-1.0; 6];
    let p = BoxLcp::new(m, q, vec![0.0; 6], vec![INF; 6], vec![]).unwrap();
    for limit in [0, 1, 2] {
        // The pivot limit is the pivoting's: the block guess, which needs
        // no pivot here, is off.
        let mut d = Dantzig::new(DantzigParams {
            max_pivots: limit,
            block_guess_from: usize::MAX,
            ..DantzigParams::default()
        });
        let mut out = LcpSolution::default();
        let err = d.solve_into(&p, &mut out).unwrap_err();
        match &err {
            LcpError::PivotLimit { pivots, best } => {
                assert_eq!(*pivots, limit);
                let best = best.as_deref().unwrap();
                assert_eq!(best, &out);
                assert_eq!(verify_box(&p, &best.z, &best.w), best.report);
                assert!(best.z.iter().all(|&z| z >= 0.0));
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn repeated_solve_into_is_bit_identical() {
    let mut rng = Rng::new(11);
    let m = random_psd(&mut rng, 12, 7);
    let (q, _) = feasible_q(&mut rng, &m);
    let (lo, hi) = random_bounds(&mut rng, 12);
    // Bounds that exclude no solution are not guaranteed; use the LCP bounds
    // for half the rows so the problem stays feasible.
    let lo: Vec<f64> = lo
        .iter()
        .enumerate()
        .map(|(i, &l)| if i % 2 == 0 { 0.0 } else { l.max(-1.0) })
        .collect();
    let hi: Vec<f64> = hi
        .iter()
        .enumerate()
        .map(|(i, &h)| if i % 2 == 0 { INF } else { h.max(1.0) })
        .collect();
    let p = BoxLcp::new(m, q, lo, hi, vec![]).unwrap();
    let mut d = Dantzig::default();
    let mut first = LcpSolution::default();
    let r1 = d.solve_into(&p, &mut first);
    let mut again = LcpSolution::default();
    for _ in 0..3 {
        let r2 = d.solve_into(&p, &mut again);
        assert_eq!(r1.is_ok(), r2.is_ok());
        assert_eq!(
            first.z.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            again.z.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(first, again);
    }
}
