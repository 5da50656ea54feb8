//! Guards Lemke's warm start (`solve_warm_into`, `solve_box_warm_into`):
//! whatever the guess, the answer is a certified solution (the unique one
//! for P-matrices, against brute-force enumeration); a guess whose basis
//! solves the problem takes no pivot, also when its rows are dependent
//! (loaded redundant contacts) or the problem has friction coupling; where
//! `z = 0` is an answer too (`q >= 0`) but not the only one, the guess's
//! answer is kept; bad guesses are typed errors.

mod common;

use common::contacts::{random_stack, resting_box};
use common::{
    Rng, assert_is_the_unique_solution, box_on_plane, brute_force, feasible_q, random_p_matrix,
    random_pd, random_psd,
};
use contact_lcp::{BoxLcp, Dantzig, Lcp, LcpError, LcpSolution, Lemke};

const TOL: f64 = 1e-9;

/// Warm-solves `lcp` from `guess`, asserts the certificate, returns the
/// solution.
#[track_caller]
fn warm(lemke: &mut Lemke, lcp: &Lcp, guess: &[f64], what: &str) -> LcpSolution {
    let mut out = LcpSolution::default();
    if let Err(e) = lemke.solve_warm_into(lcp, guess, &mut out) {
        panic!("{what}: warm Lemke failed: {e}");
    }
    assert!(
        out.report.is_solution(TOL),
        "{what}: not a solution: {:?}",
        out.report
    );
    out
}

#[test]
fn a_guess_at_the_solution_takes_no_pivot() {
    // Positive definite problems with a known solution z* (some of its
    // indices degenerate: z*_i = w*_i = 0): the basis of z* > 0 is
    // feasible, so the warm start answers without pivoting, where the
    // cold start pivots.
    let mut rng = Rng::new(31);
    let mut lemke = Lemke::default();
    let mut cold_pivots = 0;
    for n in [3, 8, 20, 40] {
        for rep in 0..5 {
            let m = random_pd(&mut rng, n);
            let (q, z_star) = feasible_q(&mut rng, &m);
            let lcp = Lcp::new(m, q).unwrap();
            let what = format!("n {n} rep {rep}");
            let out = warm(&mut lemke, &lcp, &z_star, &what);
            assert_eq!(out.pivots, 0, "{what}");
            let zmax = z_star.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
            for (a, b) in out.z.iter().zip(&z_star) {
                assert!((a - b).abs() <= 1e-9 * zmax, "{what}: {a} vs {b}");
            }
            cold_pivots += lemke.solve(&lcp).unwrap().pivots;
        }
    }
    // The comparison can fail: the cold starts did pivot.
    assert!(cold_pivots > 0);
}

#[test]
fn any_guess_gives_the_unique_solution_of_a_p_matrix_problem() {
    // Random guesses (a random support, random magnitudes, some negative
    // entries, which count as nonbasic) on positive definite and
    // non-symmetric P-matrix problems: the answer must be the one
    // solution brute force finds.
    let mut rng = Rng::new(32);
    let mut lemke = Lemke::default();
    let mut case = 0;
    for n in 1..=8 {
        for rep in 0..12 {
            let m = if rep % 2 == 0 {
                random_pd(&mut rng, n)
            } else {
                random_p_matrix(&mut rng, n)
            };
            let q: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
            let lcp = Lcp::new(m, q).unwrap();
            let guess: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
            let out = warm(&mut lemke, &lcp, &guess, &format!("n {n} rep {rep}"));
            assert_is_the_unique_solution(&out.z, &brute_force(&lcp), case);
            case += 1;
        }
    }
}

#[test]
fn positive_semidefinite_problems_from_perturbed_solutions() {
    // Rank-deficient M with a feasible q: the guess is a known solution
    // with a few indices switched in or out of its support, so its basis
    // may be singular (dependent columns) or infeasible; the answer must
    // still certify.
    let mut rng = Rng::new(33);
    let mut lemke = Lemke::default();
    for n in [4, 10, 25] {
        for rep in 0..6 {
            let m = random_psd(&mut rng, n, n / 2 + 1);
            let (q, mut guess) = feasible_q(&mut rng, &m);
            for _ in 0..2 {
                let i = rng.below(n);
                guess[i] = if guess[i] > 0.0 { 0.0 } else { 1.0 };
            }
            let lcp = Lcp::new(m, q).unwrap();
            warm(&mut lemke, &lcp, &guess, &format!("n {n} rep {rep}"));
        }
    }
}

#[test]
fn dependent_loaded_contacts_are_left_out_of_the_basis() {
    // A box on a plane at its 4 corners: M is 4 x 4 of rank 3. A guess
    // with all four normals loaded has a singular basis; the warm start
    // keeps three of them (the fourth is dependent) and that basis solves
    // the problem: no pivot, and the impulses stop the box (sum m h g).
    let (lcp, total) = box_on_plane();
    let mut lemke = Lemke::default();
    let out = warm(&mut lemke, &lcp, &[1.0; 4], "box on plane");
    assert_eq!(out.pivots, 0);
    let sum: f64 = out.z.iter().sum();
    assert!((sum - total).abs() <= 1e-9 * total, "{sum} vs {total}");
    assert!(
        out.z.iter().filter(|&&z| z == 0.0).count() >= 1,
        "{:?}",
        out.z
    );
}

#[test]
fn a_box_problem_from_its_solution_takes_few_pivots() {
    // Friction-coupled contact problems solved by Dantzig, then by Lemke
    // warm-started from that answer, which rebuilds the standard form's
    // basis from it (sign parts, and multipliers of the rows at their
    // friction bound). A resting box pushed sideways (sliding or sticking
    // by its mu): that basis is feasible, no pivot. Sliding stacks of 3
    // boxes: in the standard form a friction row at its bound moves with
    // its normal (x = mu z_j), which Dantzig's passes, with the bound
    // fixed, do not see, so a free row may depend on the others there and
    // leave the basis; the path then starts close and stays shorter than
    // the cold start's.
    let mut lemke = Lemke::default();
    let mut dantzig = Dantzig::default();
    let mut warm_and_cold = |p: &BoxLcp, what: &str| {
        let Ok(guess) = dantzig.solve(p) else {
            panic!("{what}: Dantzig failed");
        };
        assert!(guess.report.is_solution(TOL), "{what}");
        let mut out = LcpSolution::default();
        lemke.solve_box_warm_into(p, &guess.z, &mut out).unwrap();
        assert!(out.report.is_solution(TOL), "{what}: {:?}", out.report);
        let cold = lemke.solve_box(p).unwrap().pivots;
        (out.pivots, cold)
    };
    for (mu, push) in [(0.3, 0.5), (0.8, 0.05), (0.5, 0.0)] {
        let (c, b) = resting_box(2.0, [0.5, 0.3, 0.2], mu);
        let v = [push, 0.2 * push, -0.1, 0.0, 0.0, 0.3 * push];
        let p = BoxLcp::with_bounds(Lcp::new(c.dense(), c.q_of(&v)).unwrap(), b).unwrap();
        let what = format!("box mu {mu} push {push}");
        let (warm, cold) = warm_and_cold(&p, &what);
        assert_eq!(warm, 0, "{what}");
        assert!(cold > 0, "{what}");
    }
    let mut rng = Rng::new(34);
    for rep in 0..6 {
        let (_, p) = random_stack(&mut rng, 3, true);
        let what = format!("stack {rep}");
        let (warm, cold) = warm_and_cold(&p, &what);
        assert!(2 * warm <= cold, "{what}: warm {warm} cold {cold}");
    }
}

#[test]
fn poor_guesses_on_box_problems_still_give_certified_answers() {
    // Guesses that have nothing to do with the answer (every row positive,
    // every row negative, random signs and sizes) on coupled sliding stacks
    // and on random box problems with finite bounds: the guessed basis is
    // cut to a nonsingular block, the path runs from it or hands over to
    // the cold start, and the answer certifies either way.
    let mut rng = Rng::new(36);
    let mut lemke = Lemke::default();
    let mut problems: Vec<BoxLcp> = (0..4)
        .map(|k| random_stack(&mut rng, 1 + k, true).1)
        .collect();
    for n in [3, 7, 12] {
        // Rows of three kinds: unilateral, boxed [-0.5, 0.8], free.
        let m = random_pd(&mut rng, n);
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let lo = (0..n)
            .map(|i| [0.0, -0.5, f64::NEG_INFINITY][i % 3])
            .collect();
        let hi = (0..n)
            .map(|i| [f64::INFINITY, 0.8, f64::INFINITY][i % 3])
            .collect();
        problems.push(BoxLcp::new(m, q, lo, hi, vec![]).unwrap());
    }
    for (k, p) in problems.iter().enumerate() {
        let n = p.dim();
        let guesses = [
            vec![1.0; n],
            vec![-1.0; n],
            (0..n).map(|_| rng.range(-3.0, 3.0)).collect::<Vec<f64>>(),
        ];
        for (g, guess) in guesses.iter().enumerate() {
            let mut out = LcpSolution::default();
            if let Err(e) = lemke.solve_box_warm_into(p, guess, &mut out) {
                panic!("problem {k} guess {g}: {e}");
            }
            assert!(
                out.report.is_solution(TOL),
                "problem {k} guess {g}: {:?}",
                out.report
            );
        }
    }
}

/// `w = M z + q` with `M = [[-1, 0], [0, 2]]`, `q = (1, 3)`: the answers
/// are `z = 0` and `z = (1, 0)` (`w = (0, 3)`), checked here by hand. The
/// cold start gives `z = 0`; a guess with the first unknown positive gives
/// the other, with no pivot.
#[test]
fn a_guess_keeps_its_answer_where_zero_is_one_too() {
    let m = contact_lcp::faer::Mat::from_fn(2, 2, |i, j| match (i, j) {
        (0, 0) => -1.0,
        (1, 1) => 2.0,
        _ => 0.0,
    });
    let lcp = Lcp::new(m, vec![1.0, 3.0]).unwrap();
    let mut lemke = Lemke::default();
    let mut out = LcpSolution::default();
    lemke.solve_into(&lcp, &mut out).unwrap();
    assert_eq!(out.z, [0.0, 0.0]);
    let out = warm(&mut lemke, &lcp, &[0.7, 0.0], "guess (0.7, 0)");
    assert!(
        (out.z[0] - 1.0).abs() < 1e-15 && out.z[1] == 0.0,
        "{:?}",
        out.z
    );
    assert!(out.w[0].abs() < 1e-15 && (out.w[1] - 3.0).abs() < 1e-15);
    assert_eq!(out.pivots, 0);
    let out = warm(&mut lemke, &lcp, &[0.0, 0.0], "guess 0");
    assert_eq!(out.z, [0.0, 0.0]);
}

#[test]
fn a_bad_guess_is_a_typed_error() {
    let lcp = Lcp::new(random_pd(&mut Rng::new(35), 3), vec![-1.0, 0.5, -0.2]).unwrap();
    let mut lemke = Lemke::default();
    let mut out = LcpSolution::default();
    let short = lemke.solve_warm_into(&lcp, &[1.0, 0.0], &mut out);
    assert!(
        matches!(
            short,
            Err(LcpError::BadLength {
                what: "guess",
                expected: 3,
                found: 2
            })
        ),
        "{short:?}"
    );
    let nan = lemke.solve_warm_into(&lcp, &[1.0, f64::NAN, 0.0], &mut out);
    assert!(
        matches!(
            nan,
            Err(LcpError::NonFinite {
                what: "guess",
                row: 1,
                ..
            })
        ),
        "{nan:?}"
    );
    let p = BoxLcp::from_lcp(&lcp);
    let inf = lemke.solve_box_warm_into(&p, &[f64::INFINITY, 0.0, 0.0], &mut out);
    assert!(
        matches!(
            inf,
            Err(LcpError::NonFinite {
                what: "guess",
                row: 0,
                ..
            })
        ),
        "{inf:?}"
    );
}
