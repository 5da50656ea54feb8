//! Guards Lemke's method on the standard form of a box LCP
//! (`Lemke::solve_box`): on random box problems with every kind of row
//! (unilateral, bilateral, finite on both sides, bounded on one side, fixed
//! at 0) and a P-matrix, the answer is the unique solution found by
//! enumerating all 3^n index sets; a repeated solve of a friction-coupled
//! problem allocates nothing; and the edge shapes of the lift (n = 0, all
//! rows fixed, couplings to higher rows, mu = 0, normals at 0) certify, with
//! one workspace answering problems of different shapes as fresh ones do.

mod common;

use common::{Rng, brute_force_box, dist, random_p_matrix, random_pd};
use contact_lcp::faer::Mat;
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

/// `contacts` contacts of a normal and two coupled friction rows each (the
/// normal last in its triple when `normal_last`, so the coupling points to
/// a higher row; every third contact frictionless), then `extra` rows of
/// the other kinds; M positive definite.
fn coupled_box(rng: &mut Rng, contacts: usize, normal_last: bool, extra: usize) -> BoxLcp {
    let n = 3 * contacts + extra;
    let m = random_pd(rng, n);
    let mut lo = vec![0.0; n];
    let mut hi = vec![INF; n];
    let mut couplings = vec![];
    for c in 0..contacts {
        let normal = if normal_last { 3 * c + 2 } else { 3 * c };
        for r in (3 * c..3 * c + 3).filter(|&r| r != normal) {
            lo[r] = -INF;
            let mu = if c % 3 == 2 { 0.0 } else { rng.range(0.1, 1.0) };
            couplings.push(Coupling {
                row: r,
                normal_row: normal,
                mu,
            });
        }
    }
    for e in 0..extra {
        (lo[3 * contacts + e], hi[3 * contacts + e]) = row_bounds(rng, e);
    }
    let q = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    BoxLcp::new(m, q, lo, hi, couplings).unwrap()
}

#[test]
fn edge_shapes_certify_and_a_shared_workspace_matches_fresh_solvers() {
    let mut rng = Rng::new(71);
    // n = 0, and every row fixed at 0 (a lifted problem of dimension 0):
    // z = 0, w = q.
    let empty = BoxLcp::new(Mat::zeros(0, 0), vec![], vec![], vec![], vec![]).unwrap();
    let sol = Lemke::default().solve_box(&empty).unwrap();
    assert!(sol.z.is_empty() && sol.report.is_solution(0.0));
    let q = vec![-1.0, 2.0, -3.0];
    let fixed = BoxLcp::new(
        random_pd(&mut rng, 3),
        q.clone(),
        vec![0.0; 3],
        vec![0.0; 3],
        vec![],
    )
    .unwrap();
    let sol = Lemke::default().solve_box(&fixed).unwrap();
    assert_eq!((sol.z, sol.w), (vec![0.0; 3], q));
    // Couplings to lower and to higher rows, mu = 0, normals pushed apart
    // (q > 0: the friction bounds are [0, 0]), with rows of every other
    // kind; solved by one workspace in turns of different shapes, each
    // answer certified and equal to a fresh solver's.
    let mut problems = vec![];
    for (contacts, normal_last, extra) in [(5, false, 6), (1, true, 2), (4, true, 5)] {
        problems.push(coupled_box(&mut rng, contacts, normal_last, extra));
    }
    let (lcp, bounds) = coupled_box(&mut rng, 3, true, 0).into_parts();
    let (m, mut q) = lcp.into_parts();
    for c in bounds.couplings() {
        q[c.normal_row] = 3.0;
    }
    problems.push(
        BoxLcp::new(
            m,
            q,
            bounds.lo().to_vec(),
            bounds.hi().to_vec(),
            bounds.couplings().to_vec(),
        )
        .unwrap(),
    );
    let mut lemke = Lemke::default();
    let mut out = LcpSolution::default();
    for (k, p) in problems.iter().chain(&problems).enumerate() {
        lemke.solve_box_into(p, &mut out).unwrap();
        assert!(
            out.report.is_solution(1e-10),
            "problem {k}: {:?}",
            out.report
        );
        assert_eq!(out.report.z_violation, 0.0, "problem {k}: coupling exact");
        assert_eq!(out, Lemke::default().solve_box(p).unwrap(), "problem {k}");
    }
}
