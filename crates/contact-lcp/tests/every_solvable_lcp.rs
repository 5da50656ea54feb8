//! The policy solves problems that have a solution and refuses, with a
//! typed error, problems that have none (issue 25, part 4): Lemke-Howson's
//! method on bimatrix games, where Lemke's covering vector ends on a ray,
//! and the exhaustive search over complementary bases of small problems.
//! Answers are checked with `independent_error` (the certificate's
//! definitions, in the tests' own code).

mod common;

use common::{Rng, box_problem, independent_error};
use contact_lcp::{
    BoxLcp, Coupling, EXHAUSTIVE_MAX_BASES, Lcp, LcpError, Lemke, LemkeParams, Method, Solver,
    SolverParams,
};

const INF: f64 = f64::INFINITY;

/// `M = [[0, A], [B', 0]]` with `A, B` of `n1 x n2`, entries in
/// `[0.05, 1)` times `sa`, `sb`; `q = -1` or random negative.
fn bimatrix(rng: &mut Rng, n1: usize, n2: usize, (sa, sb): (f64, f64), unit_q: bool) -> Lcp {
    let n = n1 + n2;
    let mut m = vec![0.0; n * n];
    for i in 0..n1 {
        for j in 0..n2 {
            m[i * n + n1 + j] = sa * rng.range(0.05, 1.0);
            m[(n1 + j) * n + i] = sb * rng.range(0.05, 1.0);
        }
    }
    let q: Vec<f64> = (0..n)
        .map(|_| if unit_q { -1.0 } else { -rng.range(0.1, 1.0) })
        .collect();
    Lcp::from_row_major(n, &m, &q).unwrap()
}

/// Bimatrix games of several sizes and seeds, payoffs at different
/// scales: the policy solves every one (they always have a solution:
/// Lemke & Howson 1964), certified independently; Lemke's method alone
/// ends on a ray on most of them.
#[test]
fn bimatrix_games_are_solved() {
    let mut rng = Rng::new(0x6A3E);
    let (mut games, mut lemke_failed, mut by_lemke_howson) = (0, 0, 0);
    for (n1, n2) in [(1, 1), (2, 3), (4, 4), (7, 5), (12, 9), (20, 20), (30, 17)] {
        for seed in 0..6 {
            let scales = [(1.0, 1.0), (1e-6, 1e6), (1e9, 3.0)][seed % 3];
            let lcp = bimatrix(&mut rng, n1, n2, scales, seed % 2 == 0);
            let p = BoxLcp::from_lcp(&lcp);
            let sol = Solver::default().solve_lcp(&lcp).unwrap_or_else(|e| {
                panic!("{n1} x {n2}, seed {seed}: {e}");
            });
            let e = independent_error(&p, &sol.z);
            assert!(e <= 1e-9, "{n1} x {n2}, seed {seed}: off by {e:e}");
            games += 1;
            lemke_failed += usize::from(Lemke::default().solve(&lcp).is_err());
            by_lemke_howson += usize::from(sol.method == Method::LemkeHowson);
        }
    }
    assert!(lemke_failed * 2 > games, "{lemke_failed} of {games}");
    assert!(by_lemke_howson * 2 > games, "{by_lemke_howson} of {games}");
}

/// `w = -z - 1 < 0` for every `z >= 0`: no solution. The exhaustive
/// search tries both complementary bases (`z = 0`: `w = -1`; `w = 0`: `z =
/// -1`), both nonsingular, and proves it.
#[test]
fn a_problem_without_solution_is_refused() {
    let lcp = Lcp::from_row_major(1, &[-1.0], &[-1.0]).unwrap();
    // It really has none: w(z) = -z - 1 is at most -1 on z >= 0.
    for k in 0..=1000 {
        let z = f64::from(k) * 0.1;
        assert!(-z - 1.0 <= -1.0);
    }
    assert!(matches!(
        Lemke::default().solve(&lcp),
        Err(LcpError::RayTermination { .. })
    ));
    assert!(matches!(
        Solver::default().solve_lcp(&lcp),
        Err(LcpError::NoSolution { bases: 2 })
    ));
    // The same row inside a larger problem (its other rows solvable):
    // still none, over 2^3 bases.
    let lcp = Lcp::from_row_major(
        3,
        &[2.0, 0.5, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0],
        &[-1.0, -1.0, 1.0],
    )
    .unwrap();
    assert!(matches!(
        Solver::default().solve_lcp(&lcp),
        Err(LcpError::NoSolution { bases: 8 })
    ));
}

/// `M = 0`, `q = (-1, 1)`: no solution (`w_0 = -1`). The bases with `z_0`
/// basic are singular (`0 z_0 = 1`): the search walks their faces, finds
/// no point in any, and proves there is none (singular_bases.rs).
#[test]
fn a_singular_basis_is_ruled_out_on_all_its_faces() {
    let lcp = Lcp::from_row_major(2, &[0.0; 4], &[-1.0, 1.0]).unwrap();
    let err = Solver::default().solve_lcp(&lcp).unwrap_err();
    assert!(matches!(err, LcpError::NoSolution { bases: 4 }), "{err}");
}

/// Small non-symmetric LCPs built around a solution (`q = w* - M z*`, on
/// which Lemke's method is not complete): the policy solves every one,
/// certified independently, the exhaustive search answering where the
/// pivoting methods fail.
#[test]
fn small_problems_with_a_solution_are_solved() {
    let mut rng = Rng::new(0x5EA2);
    let mut searched = 0;
    for case in 0..300 {
        let n = 1 + case % 10;
        assert!(1 << n <= EXHAUSTIVE_MAX_BASES);
        // Dyadic entries, so q is exact and z* stays a solution.
        let dyadic = |rng: &mut Rng| (rng.range(-16.0, 16.0)).round() / 8.0;
        let m: Vec<f64> = (0..n * n).map(|_| dyadic(&mut rng)).collect();
        let lcp = common::planted_lcp(&mut rng, n, &m);
        let sol = Solver::default()
            .solve_lcp(&lcp)
            .unwrap_or_else(|e| panic!("case {case}: {e}"));
        let e = independent_error(&BoxLcp::from_lcp(&lcp), &sol.z);
        assert!(e <= 1e-9, "case {case}: off by {e:e}");
        searched += usize::from(sol.method == Method::ExhaustiveSearch);
    }
    assert!(searched >= 10, "the search answered {searched} times");
}

/// Two contacts with friction (coefficients 2^34 and 0.25), on which
/// Dantzig's passes and projected Gauss-Seidel fail (fuzz, seed 1), with
/// Lemke's method held to one pivot: 2 * 3 * 2 * 3 = 36 complementary
/// bases, searched, the friction rows at either bound or free.
#[test]
fn a_small_coupled_problem_is_searched() {
    let m = [
        1.5575438737869263e-5,
        2.1569430828094482e-6,
        -5.591660737991333e-6,
        -2.682209014892578e-6,
        2.1569430828094482e-6,
        1.3418495655059814e-5,
        -4.176050424575806e-6,
        -9.220093488693237e-6,
        -5.591660737991333e-6,
        -4.176050424575806e-6,
        1.414865255355835e-5,
        6.951391696929932e-6,
        -2.682209014892578e-6,
        -9.220093488693237e-6,
        6.951391696929932e-6,
        1.763179898262024e-5,
    ];
    let q = [
        -289.50000009722135,
        -1801.0000000176115,
        560.4999999816282,
        1237.4999999318788,
    ];
    let couplings = vec![
        Coupling {
            row: 1,
            normal_row: 0,
            mu: 2f64.powi(34),
        },
        Coupling {
            row: 3,
            normal_row: 2,
            mu: 0.25,
        },
    ];
    let p = box_problem(4, &m, &q, (&[0.0, -INF, 0.0, -INF], &[INF; 4]), couplings);
    let held = SolverParams {
        lemke: LemkeParams {
            max_pivots: 1,
            ..LemkeParams::default()
        },
        ..SolverParams::default()
    };
    let sol = Solver::new(held).solve(&p).unwrap();
    assert_eq!(sol.method, Method::ExhaustiveSearch);
    let e = independent_error(&p, &sol.z);
    assert!(e <= 1e-9, "off by {e:e}: {:?}", sol.z);
}

/// Row 1 is bilateral and z_1 appears only in row 0, which is fixed (any
/// w): every basis's equations are singular (no equation pins z_1). The
/// least-norm candidate (z_1 = 0) is a solution: z_2 = 2^-16 / 0.0625
/// from row 1, and row 2 free with w_2 = 0 (fuzz, seed 1: every pivoting
/// method and projected Gauss-Seidel fail on it).
#[test]
fn a_problem_whose_bases_are_all_singular_is_solved() {
    let m = [
        0.05859375, 0.01953125, -0.0234375, //
        0.0, 0.0, -0.0625, //
        0.00390625, 0.0, 0.05078125,
    ];
    let q = [
        -6.705522537231445e-8,
        1.1920928955078125e-6,
        -9.685754776000977e-7,
    ];
    let p = box_problem(
        3,
        &m,
        &q,
        (&[0.0, -INF, -7.62939453125e-6], &[0.0, INF, INF]),
        vec![],
    );
    let sol = Solver::default().solve(&p).unwrap();
    assert_eq!(sol.method, Method::ExhaustiveSearch);
    assert_eq!(sol.z, vec![0.0, 0.0, 1.9073486328125e-5]);
    assert!(independent_error(&p, &sol.z) <= 1e-12);
}

/// A contact problem (`M = J W J'`, `q = J v`: solvable) with friction
/// coefficient 2^34 on one contact, whose friction rows stop at `mu z_n`
/// with `z_n` about 1e-17: the pivoting methods and projected
/// Gauss-Seidel fail, and the exhaustive search's systems, with unknowns
/// 1e10 apart, need iterative refinement to certify (fuzz, seed 1).
#[test]
fn a_contact_with_huge_friction_is_solved_by_the_search() {
    let m = [
        46539997184.0,
        34762391552.0,
        31742492672.0,
        33353105408.0,
        -15602810880.0,
        -4697620480.0,
        34762391552.0,
        50331648000.0,
        6979321856.0,
        21474836480.0,
        -4160749568.0,
        -4160749568.0,
        31742492672.0,
        6979321856.0,
        45499809792.0,
        27246198784.0,
        -32950452224.0,
        -8053063680.0,
        33353105408.0,
        21474836480.0,
        27246198784.0,
        29326573568.0,
        -15904800768.0,
        -1543503872.0,
        -15602810880.0,
        -4160749568.0,
        -32950452224.0,
        -15904800768.0,
        41439723520.0,
        9663676416.0,
        -4697620480.0,
        -4160749568.0,
        -8053063680.0,
        -1543503872.0,
        9663676416.0,
        11207180288.0,
    ];
    let q = [-2624.0, -18752.0, 3072.0, 704.0, 4416.0, -3712.0];
    let coupling = |row, normal_row, mu| Coupling {
        row,
        normal_row,
        mu,
    };
    let mu = 2f64.powi(34);
    let couplings = vec![
        coupling(1, 0, mu),
        coupling(2, 0, mu),
        coupling(4, 3, 0.5),
        coupling(5, 3, 0.5),
    ];
    let lo = [0.0, -INF, -INF, 0.0, -INF, -INF];
    let p = box_problem(6, &m, &q, (&lo, &[INF; 6]), couplings);
    let sol = Solver::default().solve(&p).unwrap();
    assert_eq!(sol.method, Method::ExhaustiveSearch);
    let e = independent_error(&p, &sol.z);
    assert!(e <= 1e-9, "off by {e:e}: {:?}", sol.z);
}
