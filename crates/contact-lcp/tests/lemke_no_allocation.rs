//! Guards "a second solve of the same size allocates nothing" for Lemke's
//! method, including periodic refactorisations (faer's LU, inverse and
//! matmul on the solver's own buffers and scratch stack).

use contact_lcp::faer::Mat;
use contact_lcp::{Lcp, LcpSolution, Lemke, LemkeParams};

#[test]
fn second_solve_with_refactorisations_allocates_nothing() {
    // M = A A' / n + I / 10 (positive definite), A and q from a fixed LCG.
    let n = 60;
    let mut state = 0x5EED_u64;
    let mut uniform = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1_u64 << 53) as f64 * 2.0 - 1.0
    };
    let a = Mat::from_fn(n, n, |_, _| uniform());
    let m = Mat::from_fn(n, n, |i, j| {
        (0..n).map(|k| a[(i, k)] * a[(j, k)]).sum::<f64>() / n as f64
            + if i == j { 0.1 } else { 0.0 }
    });
    let q: Vec<f64> = (0..n).map(|_| uniform()).collect();
    let lcp = Lcp::new(m, q).unwrap();
    let mut lemke = Lemke::new(LemkeParams {
        refactor_interval: 5,
        ..LemkeParams::default()
    });
    let mut out = LcpSolution::default();
    lemke.solve_into(&lcp, &mut out).unwrap();
    let info = allocation_counter::measure(|| lemke.solve_into(&lcp, &mut out).unwrap());
    assert_eq!(info.count_total, 0, "{info:?}");
    // The problem exercises what it should: several refactorisations.
    assert!(out.iterations >= 3, "{} refactorisations", out.iterations);
    assert!(out.report.is_solution(1e-12));
    // The measurement itself can fail: a fresh solver must allocate.
    let cold = allocation_counter::measure(|| {
        Lemke::default().solve(&lcp).unwrap();
    });
    assert!(cold.count_total > 0);
}

#[test]
fn second_warm_solve_allocates_nothing() {
    // A warm start from a guess whose basis is singular (two equal rows
    // both guessed basic, so one is cut out) and infeasible (the path
    // must pivot): the second solve reuses every buffer of the first.
    let n = 12;
    let m = Mat::from_fn(n, n, |i, j| {
        let (i, j) = (i.min(n - 2), j.min(n - 2));
        1.0 / (1.0 + i as f64 + j as f64) + if i == j { 0.5 } else { 0.0 }
    });
    let q: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin() - 0.3).collect();
    let lcp = Lcp::new(m, q).unwrap();
    let guess: Vec<f64> = (0..n)
        .map(|i| f64::from(u8::from(i % 3 != 1 || i >= n - 2)))
        .collect();
    let mut lemke = Lemke::default();
    let mut out = LcpSolution::default();
    lemke.solve_warm_into(&lcp, &guess, &mut out).unwrap();
    assert!(out.report.is_solution(1e-12), "{:?}", out.report);
    let info =
        allocation_counter::measure(|| lemke.solve_warm_into(&lcp, &guess, &mut out).unwrap());
    assert_eq!(info.count_total, 0, "{info:?}");
    assert!(out.pivots > 0, "the guess should need pivots");
}
