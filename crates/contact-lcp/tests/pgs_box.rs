//! Guards projected Gauss-Seidel on box LCPs: agreement with brute-force
//! enumeration on symmetric positive definite problems (unique solution),
//! warm starts, singular (PSD) problems, the sweep limit, and plain LCPs.

mod common;

use common::{Rng, brute_force_box, dist, feasible_q, random_pd, random_psd};
use contact_lcp::faer::Mat;
use contact_lcp::{
    BoxLcp, Lcp, LcpError, LcpSolution, Lemke, Method, PgsParams, ProjectedGaussSeidel, verify_box,
};

const INF: f64 = f64::INFINITY;

/// A random SPD box problem of size n: each row is unilateral `[0, inf)`,
/// a two-sided box `[-a, b]`, bilateral `(-inf, inf)` or one-sided
/// `(-inf, b]`; q uniform in [-3, 3] so that many rows end at a bound.
fn random_box(rng: &mut Rng, n: usize) -> BoxLcp {
    let m = random_pd(rng, n);
    let mut lo = Vec::new();
    let mut hi = Vec::new();
    for _ in 0..n {
        let (l, h) = match rng.below(4) {
            0 => (0.0, INF),
            1 => (-rng.range(0.0, 1.0), rng.range(0.0, 1.0)),
            2 => (-INF, INF),
            _ => (-INF, rng.range(0.0, 0.5)),
        };
        lo.push(l);
        hi.push(h);
    }
    let q = (0..n).map(|_| rng.range(-3.0, 3.0)).collect();
    BoxLcp::new(m, q, lo, hi, vec![]).unwrap()
}

fn tight(omega: f64) -> PgsParams {
    PgsParams {
        omega,
        tolerance: 1e-12,
        max_sweeps: 200_000,
    }
}

#[test]
fn spd_box_problems_match_brute_force() {
    // SPD M: the box LCP has exactly one solution, which the enumeration
    // finds; PGS must reach it for every omega in (0, 2).
    let mut rng = Rng::new(21);
    let mut at_bound = 0;
    for n in 1..=7 {
        for _ in 0..12 {
            let p = random_box(&mut rng, n);
            let all = brute_force_box(&p);
            assert_eq!(all.len(), 1, "SPD box LCP must have one solution: {all:?}");
            let exact = &all[0];
            at_bound += (0..n)
                .filter(|&i| exact[i] == p.lo()[i] || exact[i] == p.hi()[i])
                .count();
            for omega in [0.6, 1.0, 1.4] {
                let sol = ProjectedGaussSeidel::new(tight(omega))
                    .solve(&p, None)
                    .unwrap_or_else(|e| panic!("n = {n}, omega = {omega}: {e}"));
                assert!(sol.report.is_solution(1e-10), "{:?}", sol.report);
                assert!(sol.report.scaled_natural_residual() <= 1e-12);
                let zmax = exact.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
                // Natural residual 1e-12 and cond(M) <= about 1e4 here.
                assert!(
                    dist(&sol.z, exact) <= 1e-7 * zmax,
                    "n = {n}, omega = {omega}: {:?} vs {exact:?}",
                    sol.z
                );
                assert_eq!(verify_box(&p, &sol.z, &sol.w), sol.report);
            }
        }
    }
    // The cases exercise the bounds, not only the free solution.
    assert!(at_bound > 100, "{at_bound}");
}

#[test]
fn warm_start_from_the_solution_takes_one_sweep() {
    let mut rng = Rng::new(22);
    let mut pgs = ProjectedGaussSeidel::new(PgsParams {
        tolerance: 1e-9,
        ..tight(1.0)
    });
    for n in [3, 7, 20] {
        let p = random_box(&mut rng, n);
        let cold = pgs.solve(&p, None).unwrap();
        let warm = pgs.solve(&p, Some(&cold.z)).unwrap();
        assert_eq!(warm.iterations, 1, "n = {n}");
        assert!(warm.report.is_solution(1e-8));
        // A warm start outside the bounds is projected first.
        let far: Vec<f64> = cold.z.iter().map(|z| z + 1e3).collect();
        let sol = pgs.solve(&p, Some(&far)).unwrap();
        assert!(sol.report.is_solution(1e-8));
    }
}

#[test]
fn psd_problems_with_redundant_rows_converge_in_residual() {
    // Rank-deficient M = A A' (n = 12, rank 5) with duplicated rows, q built
    // from a known solution, so the LCP is solvable though z is not unique.
    let mut rng = Rng::new(23);
    for _ in 0..10 {
        let mut m = random_psd(&mut rng, 12, 5);
        // Row/column 11 duplicates 10 (two identical contacts).
        for k in 0..12 {
            m[(11, k)] = m[(10, k)];
        }
        for k in 0..12 {
            m[(k, 11)] = m[(k, 10)];
        }
        m[(11, 11)] = m[(10, 10)];
        let (q, _) = feasible_q(&mut rng, &m);
        let p = BoxLcp::from_lcp(&Lcp::new(m, q).unwrap());
        let sol = ProjectedGaussSeidel::new(PgsParams {
            tolerance: 1e-8,
            ..tight(1.0)
        })
        .solve(&p, None)
        .unwrap();
        assert!(sol.report.scaled_natural_residual() <= 1e-8);
        assert!(sol.report.is_solution(1e-6), "{:?}", sol.report);
    }
}

#[test]
fn plain_lcp_agrees_with_lemke() {
    let mut rng = Rng::new(24);
    for n in [5, 16, 40] {
        let m = random_pd(&mut rng, n);
        let (q, _) = feasible_q(&mut rng, &m);
        let lcp = Lcp::new(m, q).unwrap();
        let lemke = Lemke::default().solve(&lcp).unwrap();
        let pgs = ProjectedGaussSeidel::new(tight(1.0))
            .solve(&BoxLcp::from_lcp(&lcp), None)
            .unwrap();
        let zmax = lemke.z.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
        assert!(dist(&pgs.z, &lemke.z) <= 1e-6 * zmax, "n = {n}");
    }
}

#[test]
fn sweep_limit_returns_the_best_iterate() {
    let mut rng = Rng::new(25);
    let p = random_box(&mut rng, 30);
    let mut pgs = ProjectedGaussSeidel::new(PgsParams {
        max_sweeps: 3,
        ..tight(1.0)
    });
    let mut out = LcpSolution::default();
    let err = pgs.solve_into(&p, None, &mut out).unwrap_err();
    let LcpError::IterationLimit {
        sweeps,
        residual,
        best,
    } = &err
    else {
        panic!("expected the sweep limit, got {err:?}");
    };
    assert_eq!(*sweeps, 3);
    let best = best.as_deref().unwrap();
    assert_eq!(best, &out);
    assert_eq!(err.best(), Some(&out));
    assert_eq!(*residual, best.report.scaled_natural_residual());
    assert!(*residual > 1e-12);
    assert_eq!(
        (best.method, best.iterations),
        (Method::ProjectedGaussSeidel, 3)
    );
    // w belongs to z.
    assert_eq!(best.report.residual, 0.0);
}

#[test]
fn empty_problem_and_bad_warm_start() {
    let p = BoxLcp::new(Mat::zeros(0, 0), vec![], vec![], vec![], vec![]).unwrap();
    let sol = ProjectedGaussSeidel::default().solve(&p, None).unwrap();
    assert!(sol.z.is_empty() && sol.report.is_solution(0.0));
    let p = BoxLcp::from_lcp(&Lcp::new(Mat::identity(2, 2), vec![-1.0, 1.0]).unwrap());
    let mut pgs = ProjectedGaussSeidel::default();
    assert_eq!(
        pgs.solve(&p, Some(&[0.0])).unwrap_err(),
        LcpError::BadLength {
            what: "warm_start",
            expected: 2,
            found: 1
        }
    );
    assert_eq!(
        pgs.solve(&p, Some(&[0.0, f64::NAN])).unwrap_err(),
        LcpError::NonFinite {
            what: "warm_start",
            row: 1,
            col: 0
        }
    );
    // M = I: one sweep solves it exactly.
    let sol = pgs.solve(&p, None).unwrap();
    assert_eq!((sol.z.as_slice(), sol.iterations), (&[1.0, 0.0][..], 1));
}
