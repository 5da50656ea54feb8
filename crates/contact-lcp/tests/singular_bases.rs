//! The exhaustive search on singular complementary bases (issue 25, part
//! 4): a basis whose equations are singular holds its solutions on an
//! affine set cut by its inequalities, which its least-norm candidate can
//! miss; the search walks the set's minimal faces (vertices). Problems
//! whose only solutions lie in singular bases are solved; one without
//! solution is still proved to have none. Answers are checked with
//! `independent_error` and against the solution sets in closed form.

mod common;

use common::{box_problem, independent_error};
use contact_lcp::{
    BoxLcp, Coupling, DantzigParams, EXHAUSTIVE_MAX_BASES, Lcp, LcpError, LemkeParams, Method,
    Solver, SolverParams,
};

const INF: f64 = f64::INFINITY;

/// Pivoting held to (almost) nothing, so the problems reach the search.
fn held() -> SolverParams {
    SolverParams {
        dantzig: DantzigParams {
            max_pivots: 0,
            max_total_pivots: 0,
            block_guess_from: usize::MAX,
            ..DantzigParams::default()
        },
        lemke: LemkeParams {
            max_pivots: 1,
            fallback_zero_tolerance: 0.0,
            ..LemkeParams::default()
        },
        ..SolverParams::default()
    }
}

/// `M = [[0, 0], [a, -b]]`, `q = [0, -c]` (a, b, c > 0): w_0 = 0 for every
/// z, w_1 = a z_0 - b z_1 - c. The solutions: z_1 = 0 with z_0 >= c / a,
/// or z_1 = (a z_0 - c) / b > 0. Every basis holding one is singular, and
/// the least-norm point of {w = 0} has z_1 < 0. The first case is the
/// fuzz's counterexample (seed 3, non-symmetric family: "policy
/// unsolved", projected Gauss-Seidel refusing row 0's zero diagonal).
#[test]
fn a_solution_only_in_singular_bases_is_found() {
    for (a, b, c) in [(14336.0, 5120.0, 32.5), (1.0, 1.0, 1.0), (3.0, 2.0, 6.0)] {
        let lcp = Lcp::from_row_major(2, &[0.0, 0.0, a, -b], &[0.0, -c]).unwrap();
        let sol = Solver::default()
            .solve_lcp(&lcp)
            .unwrap_or_else(|e| panic!("{a} {b} {c}: {e}"));
        assert_eq!(sol.method, Method::ExhaustiveSearch);
        let e = independent_error(&BoxLcp::from_lcp(&lcp), &sol.z);
        assert!(e <= 1e-12, "{a} {b} {c}: off by {e:e}");
        let [z0, z1] = [sol.z[0], sol.z[1]];
        let on_set = (z1 == 0.0 && a * z0 >= c * (1.0 - 1e-15))
            || (z1 > 0.0 && (b * z1 - (a * z0 - c)).abs() <= 1e-12 * (a * z0 + c));
        assert!(on_set, "{a} {b} {c}: {:?}", sol.z);
    }
    // The counterexample's answer: the vertex z = (c / a, 0).
    let lcp = Lcp::from_row_major(2, &[0.0, 0.0, 14336.0, -5120.0], &[0.0, -32.5]).unwrap();
    let sol = Solver::default().solve_lcp(&lcp).unwrap();
    assert!((sol.z[0] - 32.5 / 14336.0).abs() <= 1e-18, "{:?}", sol.z);
    assert_eq!(sol.z[1], 0.0);
}

/// `M = [[0, 0, 0], [0, 0, 0], [2, 4, -1]]`, `q = [0, 0, -8]`: a singular
/// basis of rank 1 whose vertices need two inequalities active (z_1 = z_2
/// = 0: z_0 = 4). The solutions: z_2 = 0 with 2 z_0 + 4 z_1 >= 8, or z_2 =
/// 2 z_0 + 4 z_1 - 8 > 0.
#[test]
fn a_vertex_of_two_active_bounds_is_found() {
    let m = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 4.0, -1.0];
    let lcp = Lcp::from_row_major(3, &m, &[0.0, 0.0, -8.0]).unwrap();
    let sol = Solver::default()
        .solve_lcp(&lcp)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sol.method, Method::ExhaustiveSearch);
    assert!(independent_error(&BoxLcp::from_lcp(&lcp), &sol.z) <= 1e-12);
    let [z0, z1, z2] = [sol.z[0], sol.z[1], sol.z[2]];
    let s = 2.0 * z0 + 4.0 * z1 - 8.0;
    assert!(sol.z.iter().all(|&x| x >= 0.0), "{:?}", sol.z);
    assert!(
        (z2 == 0.0 && s >= -1e-12) || (z2 - s).abs() <= 1e-12,
        "{:?}",
        sol.z
    );
}

/// Box problems: row 0 bilateral and unbounded, with w_0 = 0 for every z.
/// `M = [[0, 0], [1, -1]]`, `q = [0, -1/2]`: z_0 is pinned by no equation
/// and no bound; the solutions are z_1 = 0 with z_0 >= 1/2, or z_1 = z_0 -
/// 1/2 > 0. With a third row whose column is zero, the basis's feasible
/// set has no vertex (it holds the line along z_0 of row 0 in the 3-row
/// problem `M = [[0, 0, 0], [0, 0, 0], [0, 1, -1]]`, `q = [0, 0, -1/2]`,
/// row 0 bilateral): the search takes its minimal face's least-norm
/// point, z = (0, 1/2, 0).
#[test]
fn singular_box_bases_are_searched() {
    let p = box_problem(
        2,
        &[0.0, 0.0, 1.0, -1.0],
        &[0.0, -0.5],
        (&[-INF, 0.0], &[INF, INF]),
        vec![],
    );
    let sol = Solver::new(held())
        .solve(&p)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sol.method, Method::ExhaustiveSearch);
    assert!(independent_error(&p, &sol.z) <= 1e-12);
    let [z0, z1] = [sol.z[0], sol.z[1]];
    assert!((z1 == 0.0 && z0 >= 0.5) || (z1 - (z0 - 0.5)).abs() <= 1e-15);

    let m = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, -1.0];
    let bounds = (&[-INF, 0.0, 0.0][..], &[INF; 3][..]);
    let p = box_problem(3, &m, &[0.0, 0.0, -0.5], bounds, vec![]);
    let sol = Solver::new(held())
        .solve(&p)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sol.method, Method::ExhaustiveSearch);
    assert!(independent_error(&p, &sol.z) <= 1e-12);
    assert_eq!(sol.z, vec![0.0, 0.5, 0.0]);
}

/// `M = [[0]]`, `q = [-1]`: w = -1 < 0 for every z, no solution. The basis
/// z = 0 gives w = -1; the basis w = 0 is singular (0 z = 1) and holds no
/// point: the search proves there is none over its 2 bases (before, the
/// singular basis left it without proof, and projected Gauss-Seidel
/// blamed row 0's zero diagonal).
#[test]
fn a_problem_without_solution_is_still_refused() {
    let lcp = Lcp::from_row_major(1, &[0.0], &[-1.0]).unwrap();
    let mut solver = Solver::default();
    let err = solver.solve_lcp(&lcp).unwrap_err();
    assert!(matches!(err, LcpError::NoSolution { bases: 2 }), "{err:?}");
    assert_eq!(solver.failed_method(), Some(Method::ExhaustiveSearch));
    // Duplicated bilateral rows with inconsistent q: 1 basis, singular
    // (z_0 + z_1 = 1 and = 2), ruled out by its residual.
    let p = box_problem(2, &[1.0; 4], &[-1.0, -2.0], (&[-INF; 2], &[INF; 2]), vec![]);
    let err = Solver::default().solve(&p).unwrap_err();
    assert!(matches!(err, LcpError::NoSolution { bases: 1 }), "{err:?}");
}

/// Beyond the search (the counterexample with 11 more rows, 2^13 bases),
/// projected Gauss-Seidel cannot run (M_00 = 0): the policy returns the
/// pivoting failure with its best iterate, not `NonPositiveDiagonal`, which
/// would blame a valid, solvable problem.
#[test]
fn a_pivoting_failure_is_returned_where_the_fail_safe_cannot_run() {
    let n = 13;
    assert!(1 << n > EXHAUSTIVE_MAX_BASES);
    let mut m = vec![0.0; n * n];
    m[n] = 14336.0;
    m[n + 1] = -5120.0;
    for i in 2..n {
        m[i * n + i] = 1.0;
    }
    let mut q = vec![-1.0; n];
    q[0] = 0.0;
    q[1] = -32.5;
    let lcp = Lcp::from_row_major(n, &m, &q).unwrap();
    let mut solver = Solver::default();
    let err = solver.solve_lcp(&lcp).unwrap_err();
    assert!(
        !matches!(err, LcpError::NonPositiveDiagonal { .. }),
        "{err:?}"
    );
    let best = err.best().unwrap_or_else(|| panic!("{err:?}"));
    assert!(solver.first_failure().is_some());
    // The pivoting solver that failed is named, not the fail-safe.
    assert_ne!(best.method, Method::ProjectedGaussSeidel);
    assert_eq!(solver.failed_method(), Some(best.method));
}

/// Small LCPs of low rank (`M = U V'` of rank 0 to n - 1, dyadic, so `q`
/// is exact) built around a solution (`q = w* - M z*`, with rows where
/// both are 0): the policy solves every one, certified independently, and
/// never claims there is no solution.
#[test]
fn low_rank_problems_with_a_solution_are_solved() {
    let mut rng = common::Rng::new(0x51A6);
    let (mut searched, mut cases) = (0, 0);
    for case in 0..400 {
        let n = 1 + case % 8;
        let rank = rng.below(n);
        let dyadic = |rng: &mut common::Rng| (rng.range(-8.0, 8.0)).round() / 4.0;
        let u: Vec<f64> = (0..n * rank).map(|_| dyadic(&mut rng)).collect();
        let v: Vec<f64> = (0..n * rank).map(|_| dyadic(&mut rng)).collect();
        let m: Vec<f64> = (0..n * n)
            .map(|k| {
                (0..rank)
                    .map(|r| u[k / n * rank + r] * v[k % n * rank + r])
                    .sum()
            })
            .collect();
        let lcp = common::planted_lcp(&mut rng, n, &m);
        let sol = Solver::default()
            .solve_lcp(&lcp)
            .unwrap_or_else(|e| panic!("case {case} (n {n}, rank {rank}): {e}"));
        let e = independent_error(&BoxLcp::from_lcp(&lcp), &sol.z);
        assert!(e <= 1e-9, "case {case}: off by {e:e}");
        searched += usize::from(sol.method == Method::ExhaustiveSearch);
        cases += 1;
    }
    assert!(
        searched * 10 >= cases,
        "the search answered {searched} of {cases}"
    );
}

/// `M` of rank 2 (rows 1 and 3 equal), integer data: no solution (checked
/// exactly by enumerating the basic feasible solutions of `w - M z = q`,
/// `w, z >= 0` over complementary column sets). A singular basis's LU
/// candidate was z of 1e16 along a near-null direction of M, which the
/// scaled certificate accepted; its least-norm candidate and faces hold
/// no point, and the search proves there is none.
#[test]
fn a_huge_z_along_a_null_direction_is_not_an_answer() {
    let m = [
        -1.0, 0.0, 2.0, 0.0, //
        -5.0, 2.0, 4.0, -4.0, //
        4.0, -1.0, -5.0, 2.0, //
        -5.0, 2.0, 4.0, -4.0,
    ];
    let lcp = Lcp::from_row_major(4, &m, &[-2.0, -1.0, 0.0, -1.0]).unwrap();
    let r = Solver::default().solve_lcp(&lcp);
    assert!(
        matches!(r, Err(LcpError::NoSolution { bases: 16 })),
        "{r:?}"
    );
}

/// Two contacts, the second with friction coefficient 2^34 (fuzz, seed 3:
/// a contact problem, so solvable): its friction rows stop at `mu z_n`
/// with `z_n` about 2e-6, and the basis's equations, with unknowns 1e10
/// apart, meet an LU pivot below `SINGULAR` although they have full rank.
/// The LU's refined candidate certifies where the SVD's least-norm one is
/// too coarse; it is still offered on a basis of full numerical rank.
#[test]
fn a_full_rank_basis_with_a_small_pivot_keeps_its_lu_candidate() {
    let m = [
        2414.5, 1079.0, -1362.5, 734.0, 60.0, -27.5, //
        1079.0, 2155.0, 53.0, -244.0, 843.0, -335.0, //
        -1362.5, 53.0, 1464.5, -1030.0, -16.0, 51.5, //
        734.0, -244.0, -1030.0, 2405.0, -144.0, -717.0, //
        60.0, 843.0, -16.0, -144.0, 1553.0, -804.0, //
        -27.5, -335.0, 51.5, -717.0, -804.0, 1992.5,
    ];
    let q = [
        -897581056.0,
        -880803840.0,
        486539264.0,
        -285212672.0,
        1015021568.0,
        2608857088.0,
    ];
    let coupling = |row, normal_row, mu| Coupling {
        row,
        normal_row,
        mu,
    };
    let mu = 2f64.powi(34);
    let couplings = vec![
        coupling(1, 0, 0.75),
        coupling(2, 0, 0.75),
        coupling(4, 3, mu),
        coupling(5, 3, mu),
    ];
    let lo = [0.0, -INF, -INF, 0.0, -INF, -INF];
    let p = box_problem(6, &m, &q, (&lo, &[INF; 6]), couplings);
    let sol = Solver::default()
        .solve(&p)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sol.method, Method::ExhaustiveSearch);
    let e = independent_error(&p, &sol.z);
    assert!(e <= 1e-9, "off by {e:e}: {:?}", sol.z);
}
