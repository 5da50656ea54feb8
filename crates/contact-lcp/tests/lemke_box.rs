//! Guards Lemke's method on the standard form of a box LCP
//! (`Lemke::solve_box`): on random box problems with every kind of row
//! (unilateral, bilateral, finite on both sides, bounded on one side, fixed
//! at 0) and a P-matrix, the answer is the unique solution found by
//! enumerating all 3^n index sets; and a repeated solve of a friction-coupled
//! problem allocates nothing.

mod common;

use common::{Rng, brute_force_box, dist, random_p_matrix, random_pd};
use contact_lcp::{BoxLcp, Coupling, LcpSolution, Lemke, Method};

const INF: f64 = f64::INFINITY;

/// Bounds of one of the six kinds of row, chosen by `kind`.
fn row_bounds(rng: &mut Rng, kind: usize) -> (f64, f64) {
    match kind {
        0 => (0.0, INF),
        1 => (-INF, INF),
        2 => (rng.range(-1.0, -0.01), rng.range(0.01, 1.0)),
        3 => (-INF, rng.range(0.01, 1.0)),
        4 => (rng.range(-1.0, -0.01), INF),
        _ => (0.0, 0.0),
    }
}

#[test]
fn box_problems_with_p_matrices_have_the_enumerated_solution() {
    let mut rng = Rng::new(61);
    let mut lemke = Lemke::default();
    for case in 0..300 {
        let n = 1 + case % 6;
        let m = if case % 2 == 0 {
            random_pd(&mut rng, n)
        } else {
            random_p_matrix(&mut rng, n)
        };
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let (lo, hi): (Vec<f64>, Vec<f64>) =
            (0..n).map(|i| row_bounds(&mut rng, (case + i) % 6)).unzip();
        let p = BoxLcp::new(m, q, lo, hi, vec![]).unwrap();
        let all = brute_force_box(&p);
        assert_eq!(
            all.len(),
            1,
            "case {case}: a P-matrix box LCP has one solution"
        );
        let sol = lemke.solve_box(&p).unwrap();
        assert_eq!(sol.method, Method::Lemke);
        // Stated tolerance: 1e-9 relative to the solution's size.
        let scale = all[0].iter().fold(1.0_f64, |a, x| a.max(x.abs()));
        assert!(
            dist(&sol.z, &all[0]) <= 1e-9 * scale,
            "case {case}: {:?} vs {:?}",
            sol.z,
            all[0]
        );
        assert!(
            sol.report.is_solution(1e-10),
            "case {case}: {:?}",
            sol.report
        );
    }
}

#[test]
fn a_repeated_coupled_solve_allocates_nothing() {
    // Three contacts (normal, two coupled friction rows each) with a
    // positive definite M and a push that makes some of them slide.
    let mut rng = Rng::new(67);
    let n = 9;
    let m = random_pd(&mut rng, n);
    let q: Vec<f64> = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                -1.0
            } else {
                rng.range(-2.0, 2.0)
            }
        })
        .collect();
    let mut lo = vec![0.0; n];
    let mut couplings = vec![];
    for c in 0..3 {
        for t in 1..3 {
            lo[3 * c + t] = -INF;
            couplings.push(Coupling {
                row: 3 * c + t,
                normal_row: 3 * c,
                mu: 0.3,
            });
        }
    }
    let p = BoxLcp::new(m, q, lo, vec![INF; n], couplings).unwrap();
    let mut lemke = Lemke::default();
    let mut out = LcpSolution::default();
    lemke.solve_box_into(&p, &mut out).unwrap();
    assert!(out.report.is_solution(1e-10), "{:?}", out.report);
    assert_eq!(out.report.z_violation, 0.0);
    let first = out.clone();
    let info = allocation_counter::measure(|| lemke.solve_box_into(&p, &mut out).unwrap());
    assert_eq!(info.count_total, 0, "{info:?}");
    assert_eq!(out, first, "deterministic");
    // The measurement itself can fail: a fresh solver must allocate.
    let cold = allocation_counter::measure(|| {
        Lemke::default().solve_box(&p).unwrap();
    });
    assert!(cold.count_total > 0);
}
