//! Guards "allocates nothing once the solver has seen a problem of this
//! size" for projected Gauss-Seidel on a dense box LCP: a second
//! `solve_into` and a `sweep` (the blocked dense sweep, dispatched to the
//! machine's lanes) with friction couplings, and the first ones on a new
//! problem of the same size.

use contact_lcp::faer::Mat;
use contact_lcp::{BoxLcp, Coupling, LcpSolution, PgsParams, ProjectedGaussSeidel};

#[test]
fn second_solve_and_sweeps_allocate_nothing() {
    // M = A A' / n + I / 2 (positive definite), A and q from a fixed LCG;
    // rows in triples: a normal row z >= 0 and two friction rows coupled to
    // it (n = 30, not a multiple of the sweep's block of 4 after the first
    // 28 rows).
    let n = 30;
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
            + if i == j { 0.5 } else { 0.0 }
    });
    let q: Vec<f64> = (0..n).map(|_| uniform()).collect();
    let (mut lo, mut hi, mut couplings) = (vec![0.0; n], vec![f64::INFINITY; n], vec![]);
    for normal in (0..n).step_by(3) {
        for row in [normal + 1, normal + 2] {
            couplings.push(Coupling {
                row,
                normal_row: normal,
                mu: 0.5,
            });
            (lo[row], hi[row]) = (f64::NEG_INFINITY, f64::INFINITY);
        }
    }
    let problem = BoxLcp::new(m, q.clone(), lo, hi, couplings).unwrap();
    let mut pgs = ProjectedGaussSeidel::new(PgsParams {
        tolerance: 1e-8,
        max_sweeps: 2000,
        ..PgsParams::default()
    });
    let mut out = LcpSolution::default();
    pgs.solve_into(&problem, None, &mut out).unwrap();
    let warm = out.z.clone();
    let info = allocation_counter::measure(|| {
        pgs.solve_into(&problem, Some(&warm), &mut out).unwrap();
    });
    assert_eq!(info.count_total, 0, "solve_into: {info:?}");

    let (mut z, mut w) = (vec![0.0; n], q);
    pgs.sweep(&problem, &mut z, &mut w).unwrap();
    let info = allocation_counter::measure(|| {
        for _ in 0..3 {
            pgs.sweep(&problem, &mut z, &mut w).unwrap();
        }
    });
    assert_eq!(info.count_total, 0, "sweep: {info:?}");
    // The sweeps did work (some rows moved off zero).
    assert!(z.iter().any(|&x| x != 0.0));

    // A new problem of the same size (as a stepper builds every step):
    // its first solve and sweep allocate nothing either.
    let fresh = BoxLcp::new(
        problem.m().to_owned(),
        problem.q().iter().map(|x| x * 0.5).collect(),
        problem.lo().to_vec(),
        problem.hi().to_vec(),
        problem.couplings().to_vec(),
    )
    .unwrap();
    let info = allocation_counter::measure(|| {
        pgs.solve_into(&fresh, None, &mut out).unwrap();
        pgs.sweep(&fresh, &mut z, &mut w).unwrap();
    });
    assert_eq!(info.count_total, 0, "a new problem: {info:?}");

    // The measurement itself can fail: a fresh solver must allocate.
    let cold = allocation_counter::measure(|| {
        ProjectedGaussSeidel::default()
            .solve(&problem, None)
            .unwrap();
    });
    assert!(cold.count_total > 0);
}
