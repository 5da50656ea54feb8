//! Guards Lemke's method on hand-made cases: trivial and empty problems,
//! infeasible problems (rays), degeneracy, Murty's exponential example, a box
//! resting on a plane, and workspace reuse.

mod common;

use common::{Rng, box_on_plane, brute_force, dist, feasible_q, random_psd};
use contact_lcp::faer::Mat;
use contact_lcp::{
    BoxLcp, Lcp, LcpError, LcpSolution, Lemke, LemkeParams, Method, verify_box, verify_z,
};

#[test]
fn nonnegative_q_is_solved_by_zero_without_pivots() {
    let lcp = Lcp::from_row_major(2, &[-1.0, 5.0, 3.0, -2.0], &[0.0, 2.0]).unwrap();
    let sol = Lemke::default().solve(&lcp).unwrap();
    assert_eq!(sol.z, [0.0, 0.0]);
    assert_eq!(sol.w, [0.0, 2.0]);
    assert_eq!(
        (sol.pivots, sol.iterations, sol.method),
        (0, 0, Method::Lemke)
    );
    assert!(sol.report.is_solution(0.0));
}

#[test]
fn empty_problem_has_empty_solution() {
    let lcp = Lcp::new(Mat::zeros(0, 0), vec![]).unwrap();
    let sol = Lemke::default().solve(&lcp).unwrap();
    assert!(sol.z.is_empty() && sol.w.is_empty());
    assert!(sol.report.is_solution(0.0));
}

#[test]
fn one_dimensional_closed_form() {
    // w = 4 z - 2: z = 1/2, w = 0.
    let lcp = Lcp::from_row_major(1, &[4.0], &[-2.0]).unwrap();
    let sol = Lemke::default().solve(&lcp).unwrap();
    assert_eq!(sol.z, [0.5]);
    assert_eq!(sol.w, [0.0]);
    assert_eq!(sol.pivots, 2);
}

#[test]
fn negative_matrix_is_infeasible() {
    // w = -z - 1 < 0 for every z >= 0.
    let lcp = Lcp::from_row_major(1, &[-1.0], &[-1.0]).unwrap();
    let err = Lemke::default().solve(&lcp).unwrap_err();
    let LcpError::RayTermination { pivots, best } = &err else {
        panic!("expected a ray, got {err:?}");
    };
    // One pivot (z0 enters) then a ray, in the first attempt and in each of
    // the five retries with other Harris tolerances.
    assert_eq!(*pivots, 6);
    let no_retry = LemkeParams {
        fallback_zero_tolerance: 0.0,
        ..LemkeParams::default()
    };
    assert!(matches!(
        Lemke::new(no_retry).solve(&lcp),
        Err(LcpError::RayTermination { pivots: 1, .. })
    ));
    let best = best.as_ref().unwrap();
    assert_eq!(best.z, [0.0]);
    assert_eq!(best.report.w_violation, 1.0);
    assert_eq!(err.best(), Some(&**best));
}

#[test]
fn zero_matrix_with_negative_q_is_infeasible() {
    let lcp = Lcp::new(Mat::zeros(3, 3), vec![1.0, -1.0, -2.0]).unwrap();
    assert!(matches!(
        Lemke::default().solve(&lcp),
        Err(LcpError::RayTermination { .. })
    ));
}

#[test]
fn error_leaves_best_iterate_in_out() {
    let lcp = Lcp::from_row_major(2, &[0.0, -1.0, -1.0, 0.0], &[-1.0, -1.0]).unwrap();
    let mut out = LcpSolution::default();
    let err = Lemke::default().solve_into(&lcp, &mut out).unwrap_err();
    assert_eq!(err.best(), Some(&out));
    assert_eq!(out.report, verify_z(&lcp, &out.z));
}

/// A singular basis stops the solve with the best iterate attached, like a
/// ray or the pivot limit, on the plain and the box path; `out` holds it
/// too. (M = [[1e-27, -1e-18], [0, 1e-27]] is a P-matrix: the problem has
/// an answer, which the policy's other solvers find.)
#[test]
fn a_singular_basis_carries_the_best_iterate() {
    let lcp = Lcp::from_row_major(2, &[1e-27, -1e-18, 0.0, 1e-27], &[-1.0, -1.0]).unwrap();
    let mut out = LcpSolution::default();
    let err = Lemke::default().solve_into(&lcp, &mut out).unwrap_err();
    assert!(matches!(err, LcpError::SingularBasis { .. }), "{err:?}");
    let best = err
        .best()
        .expect("a singular basis carries the best iterate");
    assert_eq!(best, &out);
    assert_eq!(best.z.len(), 2);
    assert_eq!(best.report, verify_z(&lcp, &best.z));

    let problem = BoxLcp::from_lcp(&lcp);
    let mut out = LcpSolution::default();
    let err = Lemke::default()
        .solve_box_into(&problem, &mut out)
        .unwrap_err();
    assert!(matches!(err, LcpError::SingularBasis { .. }), "{err:?}");
    let best = err.best().expect("and so on the box path");
    assert_eq!(best, &out);
    assert_eq!(best.report, verify_box(&problem, &best.z, &best.w));
}

/// Murty's example (Murty 1978, "Computational complexity of complementary
/// pivot methods") on which Lemke's method with covering vector (1, ..., 1)
/// needs 2^n pivots: M lower triangular with 1 on the diagonal and 2 below it,
/// q_i = -(2^n + 2^(n-1) + ... + 2^(n-i)) (0-based i). M is a P-matrix; the
/// unique solution is z = 2^n e_1 (w_1 = 0, w_i = 2^(n-i) > 0 for i > 0).
fn murty(n: usize) -> Lcp {
    let m = Mat::from_fn(n, n, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Equal => 1.0,
        std::cmp::Ordering::Greater => 2.0,
        std::cmp::Ordering::Less => 0.0,
    });
    let q = (0..n)
        .map(|i| -(0..=i).map(|k| 2f64.powi((n - k) as i32)).sum::<f64>())
        .collect();
    Lcp::new(m, q).unwrap()
}

/// Solves Murty's LCP of size `n` with at most `max_pivots` pivots and
/// checks Lemke's path against the known answer: exactly 2^n pivots,
/// ending exactly at z = 2^n e_1 (every intermediate value is an integer
/// below 2^17, so the arithmetic is exact). Returns the LCP and z.
fn assert_murty_takes_two_to_the_n_pivots(n: usize, max_pivots: usize) -> (Lcp, Vec<f64>) {
    let lcp = murty(n);
    let mut lemke = Lemke::new(LemkeParams {
        max_pivots,
        ..LemkeParams::default()
    });
    let sol = lemke.solve(&lcp).unwrap();
    let mut expected = vec![0.0; n];
    expected[0] = 2f64.powi(n as i32);
    assert_eq!(sol.z, expected, "n = {n}");
    assert_eq!(sol.pivots, 1 << n, "n = {n}");
    assert!(sol.report.is_solution(0.0), "n = {n}: {:?}", sol.report);
    (lcp, expected)
}

#[test]
fn murty_example_takes_two_to_the_n_pivots() {
    let (lcp, expected) = assert_murty_takes_two_to_the_n_pivots(10, 1 << 12);
    // The known answer is the only one (Murty's matrix is a P-matrix).
    assert_eq!(brute_force(&lcp), vec![expected]);
}

/// Issue 3: on Murty's matrix Lemke takes 2^n pivots for every n = 10..=16
/// (65 536 at n = 16) and must still end exactly at the known solution
/// z = 2^n e_1 (every intermediate value is an integer below 2^17, so the
/// arithmetic is exact and so must be the answer).
#[test]
fn murty_example_finishes_correctly_up_to_n_16() {
    for n in 10..=16 {
        assert_murty_takes_two_to_the_n_pivots(n, 1 << 17);
    }
}

#[test]
fn murty_example_hits_a_small_pivot_limit() {
    let lcp = murty(10);
    let mut lemke = Lemke::new(LemkeParams {
        max_pivots: 5,
        ..LemkeParams::default()
    });
    match lemke.solve(&lcp) {
        Err(LcpError::PivotLimit { pivots, best }) => {
            assert_eq!(pivots, 5);
            let best = best.unwrap();
            assert_eq!(best.pivots, 5);
            assert!(best.z.iter().all(|&z| z >= 0.0));
            assert_eq!(best.report, verify_z(&lcp, &best.z));
        }
        other => panic!("expected a pivot limit, got {other:?}"),
    }
}

#[test]
fn degenerate_q_with_duplicated_rows_is_solved() {
    // Redundant contacts: every row and column of a rank-deficient PSD matrix
    // appears twice, so q has exact ties, and many q_i are exactly 0. The base
    // problem is made feasible with q0 = w0 - M0 z0 (z0, w0 >= 0
    // complementary; w0_i = (M0 z0)_i where that is >= 0, giving q0_i = 0); the
    // duplicated problem is then solved by z = (z0, 0).
    let mut rng = Rng::new(11);
    let mut lemke = Lemke::default();
    let mut zeros = 0;
    for rep in 0..100 {
        let base = 2 + rep % 6;
        let k = 1 + rng.below(base);
        let m0 = random_psd(&mut rng, base, k);
        let z0: Vec<f64> = (0..base)
            .map(|_| {
                if rng.below(2) == 0 {
                    rng.range(0.1, 1.0)
                } else {
                    0.0
                }
            })
            .collect();
        let q0: Vec<f64> = (0..base)
            .map(|i| {
                let mz: f64 = (0..base).map(|j| m0[(i, j)] * z0[j]).sum();
                if z0[i] > 0.0 {
                    -mz
                } else if mz >= 0.0 && rng.below(2) == 0 {
                    0.0
                } else {
                    mz.abs() + 0.5 - mz
                }
            })
            .collect();
        zeros += q0.iter().filter(|&&x| x == 0.0).count();
        let copies: Vec<usize> = (0..2 * base).map(|i| i % base).collect();
        let n = copies.len();
        let m = Mat::from_fn(n, n, |i, j| m0[(copies[i], copies[j])]);
        let q = copies.iter().map(|&c| q0[c]).collect();
        let lcp = Lcp::new(m, q).unwrap();
        let sol = lemke
            .solve(&lcp)
            .unwrap_or_else(|e| panic!("rep={rep}: {e}\n{:?}\n{:?}", lcp.m(), lcp.q()));
        assert!(sol.report.is_solution(1e-9), "rep={rep}: {:?}", sol.report);
    }
    assert!(zeros > 50, "the test exercises zeros in q ({zeros})");
}

#[test]
fn all_zero_q_rows_with_one_negative() {
    // q = (0, ..., 0, -1) with M = I + ones: heavy primal degeneracy.
    let n = 8;
    let m = Mat::from_fn(n, n, |i, j| if i == j { 2.0 } else { 1.0 });
    let mut q = vec![0.0; n];
    q[n - 1] = -1.0;
    let lcp = Lcp::new(m, q).unwrap();
    let sol = Lemke::default().solve(&lcp).unwrap();
    let mut expected = vec![0.0; n];
    expected[n - 1] = 0.5;
    assert!(dist(&sol.z, &expected) < 1e-14, "{:?}", sol.z);
}

#[test]
fn box_resting_on_plane_is_stopped() {
    let (lcp, impulse) = box_on_plane();
    let sol = Lemke::default().solve(&lcp).unwrap();
    let total: f64 = sol.z.iter().sum();
    assert!(
        (total - impulse).abs() < 1e-9,
        "sum z = {total}, expected {impulse}"
    );
    assert!(
        sol.w.iter().all(|w| w.abs() < 1e-12),
        "the box is at rest: w = {:?}",
        sol.w
    );
    assert!(sol.report.is_solution(1e-12), "{:?}", sol.report);
}

#[test]
fn solve_into_reuse_is_deterministic() {
    let mut rng = Rng::new(12);
    let problems: Vec<Lcp> = (0..5)
        .map(|_| {
            let m = random_psd(&mut rng, 9, 5);
            let (q, _) = feasible_q(&mut rng, &m);
            Lcp::new(m, q).unwrap()
        })
        .collect();
    let mut lemke = Lemke::default();
    let mut out = LcpSolution::default();
    let first: Vec<LcpSolution> = problems.iter().map(|p| lemke.solve(p).unwrap()).collect();
    for _ in 0..3 {
        for (p, expected) in problems.iter().zip(&first) {
            lemke.solve_into(p, &mut out).unwrap();
            assert_eq!(&out, expected, "bit-for-bit identical on reuse");
        }
    }
    // A fresh solver gives the same bits too.
    assert_eq!(Lemke::default().solve(&problems[3]).unwrap(), first[3]);
}

#[test]
fn solutions_are_invariant_to_problem_scale() {
    // LCP(a M, b q) has solution (b / a) z: the internal scaling makes the
    // pivot sequence identical.
    let (lcp, _) = box_on_plane();
    let base = Lemke::default().solve(&lcp).unwrap();
    for (a, b) in [(1e-6, 1.0), (1e6, 1e-3), (1e3, 1e3)] {
        let (m, q) = lcp.clone().into_parts();
        let scaled = Lcp::new(
            m * contact_lcp::faer::Scale(a),
            q.iter().map(|x| x * b).collect(),
        )
        .unwrap();
        let sol = Lemke::default().solve(&scaled).unwrap();
        assert_eq!(sol.pivots, base.pivots);
        let expected: Vec<f64> = base.z.iter().map(|z| z * b / a).collect();
        let zmax = expected.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        assert!(
            dist(&sol.z, &expected) <= 1e-12 * zmax,
            "{:?} vs {expected:?}",
            sol.z
        );
    }
}

#[test]
fn badly_scaled_rows_give_the_scaled_solution() {
    // LCP(D M D, D q) has the solution D^-1 z when LCP(M, q) has z (D > 0
    // diagonal). With D spanning 1e-4 ..= 1e4 and M a P-matrix (unique
    // solutions), Lemke must return exactly that.
    let mut rng = Rng::new(13);
    let mut lemke = Lemke::default();
    for rep in 0..20 {
        let n = 2 + rep % 9;
        let m = common::random_p_matrix(&mut rng, n);
        let q: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
        let d: Vec<f64> = (0..n).map(|_| 10f64.powf(rng.range(-4.0, 4.0))).collect();
        let base = Lcp::new(m.clone(), q.clone()).unwrap();
        let scaled = Lcp::new(
            Mat::from_fn(n, n, |i, j| d[i] * m[(i, j)] * d[j]),
            q.iter().zip(&d).map(|(qi, di)| qi * di).collect(),
        )
        .unwrap();
        let z = lemke.solve(&base).unwrap().z;
        let sol = lemke.solve(&scaled).unwrap();
        assert!(sol.report.is_solution(1e-10), "rep={rep}: {:?}", sol.report);
        for i in 0..n {
            let expected = z[i] / d[i];
            assert!(
                (sol.z[i] - expected).abs()
                    <= 1e-9 * expected.abs().max(1e-300) + 1e-12 * (1.0 / d[i]),
                "rep={rep} i={i}: {} vs {expected}",
                sol.z[i]
            );
        }
    }
}
