//! Guards the block principal pivoting guess of the Dantzig solver
//! (problems of dimension >= `block_guess_from`): on positive definite
//! problems it must find the unique solution that the one-row pivoting finds,
//! and on singular or coupled problems the answer must still certify, with
//! the pivoting taking over where the guess cannot finish. Friction-coupled
//! problems have their own guess (friction at a bound folded into its
//! normal's column), checked against the coupling passes.

mod common;

use common::{
    Rng, assert_repeated_solves_allocate_nothing, brute_force, brute_force_box, dist, feasible_q,
    random_pd, random_pd_box, random_psd,
};
use contact_lcp::faer::Mat;
use contact_lcp::{BoxBounds, BoxLcp, Coupling, Dantzig, DantzigParams, Lcp, LcpSolution};

const INF: f64 = f64::INFINITY;

/// The solver with the guesses off (this one and the small problems'):
/// plain one-row pivoting.
fn pivoting_only() -> Dantzig {
    Dantzig::new(DantzigParams {
        block_guess_from: usize::MAX,
        ..DantzigParams::default()
    })
}

/// Solves with the guess on and off; both must certify to `tol`.
fn both(p: &BoxLcp, tol: f64) -> (LcpSolution, LcpSolution, usize) {
    let mut guessing = Dantzig::default();
    let with_guess = guessing.solve(p).unwrap();
    let guesses = guessing.last_stats().block_guesses;
    let without = pivoting_only().solve(p).unwrap();
    assert!(
        with_guess.report.is_solution(tol),
        "{:?}",
        with_guess.report
    );
    assert!(without.report.is_solution(tol), "{:?}", without.report);
    (with_guess, without, guesses)
}

#[test]
fn positive_definite_problems_get_the_unique_solution_from_the_guess() {
    let mut rng = Rng::new(0xB10C_0001);
    for (trial, n) in [48, 64, 100, 160].into_iter().enumerate() {
        let m = random_pd(&mut rng, n);
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        // Plain LCP, then finite and bilateral bounds on the same matrix.
        let plain = BoxLcp::from_lcp(&Lcp::new(m.clone(), q.clone()).unwrap());
        let (lo, hi): (Vec<f64>, Vec<f64>) = (0..n)
            .map(|i| match i % 4 {
                0 => (0.0, INF),
                1 => (-INF, INF),
                2 => (-0.5, 0.5),
                _ => (0.0, 0.3),
            })
            .unzip();
        let boxed = BoxLcp::new(m, q, lo, hi, vec![]).unwrap();
        for p in [plain, boxed] {
            let (g, o, guesses) = both(&p, 1e-12);
            // Positive definite: one solution, so both paths agree.
            let scale = o.z.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
            assert!(dist(&g.z, &o.z) <= 1e-9 * scale, "trial {trial}, n = {n}");
            assert!(guesses > 0, "trial {trial}: the guess was not used");
            assert_eq!(g.pivots, 0, "trial {trial}: the guess solved it alone");
        }
    }
}

/// `M = [A A; A A]` with `A` positive definite (every row has a twin, so
/// any block holding both twins is singular) and `q = [q1; q1 + shift]`;
/// a plain LCP, or with `boxed` every row in `[-1, 1]`.
fn twins(rng: &mut Rng, h: usize, shift: f64, boxed: bool) -> BoxLcp {
    let a = random_pd(rng, h);
    let m = Mat::from_fn(2 * h, 2 * h, |i, j| a[(i % h, j % h)]);
    let qh: Vec<f64> = (0..h).map(|_| rng.range(-2.0, 1.0)).collect();
    let q: Vec<f64> = (0..2 * h)
        .map(|i| qh[i % h] + if i >= h { shift } else { 0.0 })
        .collect();
    if boxed {
        BoxLcp::new(m, q, vec![-1.0; 2 * h], vec![1.0; 2 * h], vec![]).unwrap()
    } else {
        BoxLcp::from_lcp(&Lcp::new(m, q).unwrap())
    }
}

#[test]
fn redundant_rows_are_refused_by_the_guess_as_by_the_pivoting() {
    // Consistent twins (a contact duplicated): the guess refuses the second
    // twin of every clamped pair and finishes without pivots. M is only
    // semidefinite, so z is not unique, but w is (the gradient of the convex
    // QP): both paths must give the same w.
    let mut rng = Rng::new(0xB10C_0002);
    let p = twins(&mut rng, 32, 0.0, false);
    let mut d = Dantzig::default();
    let sol = d.solve(&p).unwrap();
    assert!(sol.report.is_solution(1e-12), "{:?}", sol.report);
    assert!(d.last_stats().block_guesses > 0);
    assert_eq!(sol.pivots, 0);
    let reference = pivoting_only().solve(&p).unwrap();
    let scale = p.q().iter().fold(1.0_f64, |a, x| a.max(x.abs()));
    assert!(dist(&sol.w, &reference.w) <= 1e-9 * scale);
}

#[test]
fn inconsistent_twins_are_solved_from_the_guess() {
    // Box rows in [-1, 1] whose twins' q differ: the first guess clamps
    // every row, refuses the second twins and parks them inside their box
    // with w = w_twin + 0.5 != 0, which no flip of the parked row alone can
    // fix. The guess's exchange with a partner (or the pivoting from the
    // last guess, `Core::rerun`) must solve it exactly (no added diagonal;
    // a solution exists since every box is finite). M is only
    // semidefinite, but w is unique (the gradient of the convex QP): it
    // must equal the cold pivoting's.
    let mut rng = Rng::new(0xB10C_0005);
    let p = twins(&mut rng, 32, 0.5, true);
    let mut d = Dantzig::default();
    let sol = d.solve(&p).unwrap();
    assert!(sol.report.is_solution(1e-12), "{:?}", sol.report);
    assert!(d.last_stats().block_guesses > 1);
    let reference = pivoting_only().solve(&p).unwrap();
    let scale = p.q().iter().fold(1.0_f64, |a, x| a.max(x.abs()));
    assert!(dist(&sol.w, &reference.w) <= 1e-9 * scale);
}

/// Rows in triples (normal, two tangents) with tangent bounds coupled to
/// the normal by `mu` on a positive definite M (`contacts` contacts).
fn coupled_pd(rng: &mut Rng, contacts: usize, mu: f64) -> BoxLcp {
    let n = 3 * contacts;
    let m = random_pd(rng, n);
    let q: Vec<f64> = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                rng.range(-2.0, 0.5)
            } else {
                rng.range(-1.0, 1.0)
            }
        })
        .collect();
    let mut lo = vec![0.0; n];
    let hi = vec![INF; n];
    let mut couplings = vec![];
    for c in 0..contacts {
        for t in 1..3 {
            lo[3 * c + t] = -INF;
            couplings.push(Coupling {
                row: 3 * c + t,
                normal_row: 3 * c,
                mu,
            });
        }
    }
    let bounds = BoxBounds::new(lo, hi, couplings).unwrap();
    BoxLcp::with_bounds(Lcp::new(m, q).unwrap(), bounds).unwrap()
}

#[test]
fn friction_coupled_problems_are_solved_by_the_coupled_guess() {
    // On positive definite coupled problems the coupled guess settles
    // after the first coupling pass, with no pivot of its own (that pass is
    // the passes' first one, so it cannot take more pivots than all the
    // passes); its answer certifies like the coupling passes' and,
    // for a friction coefficient small enough that the solution is unique
    // (mu = 0.1 here), it is the same answer.
    let mut rng = Rng::new(0xB10C_0003);
    let mut settled = 0;
    for trial in 0..8 {
        let p = coupled_pd(&mut rng, 16 + 2 * trial, 0.1);
        let (g, o, guesses) = both(&p, 1e-10);
        assert_eq!(g.report.z_violation, 0.0, "trial {trial}: coupling exact");
        if guesses > 0 {
            settled += 1;
            assert!(g.pivots <= o.pivots, "trial {trial}");
            assert!(o.iterations >= 2, "trial {trial}: the first pass certified");
            assert_eq!(g.iterations, 1, "trial {trial}");
            let scale = o.z.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
            assert!(dist(&g.z, &o.z) <= 1e-9 * scale, "trial {trial}");
        }
    }
    // Measured: all 8 settle; the guess must not silently stop working.
    assert!(settled >= 6, "the coupled guess settled {settled} of 8");
}

#[test]
fn the_guess_judges_bounds_in_the_problems_own_units() {
    // q of order 1e-10 gives z of order 1e-10: a bound tolerance in
    // absolute units (it was 1e-12) accepted clamped rows 1 % outside their
    // bounds (scaled error 2.8e-4). The answers must certify as tightly as
    // the pivoting's, and be the same unique solution.
    let mut rng = Rng::new(0xB10C_0006);
    for (trial, n) in [48, 60, 75].into_iter().enumerate() {
        let m = random_pd(&mut rng, n);
        let q: Vec<f64> = (0..n).map(|_| 1e-10 * rng.range(-1.0, 1.0)).collect();
        let p = BoxLcp::from_lcp(&Lcp::new(m, q).unwrap());
        let (g, o, guesses) = both(&p, 1e-12);
        assert!(guesses > 0, "trial {trial}");
        let scale = o.z.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        assert!(dist(&g.z, &o.z) <= 1e-9 * scale, "trial {trial}");
    }
}

#[test]
fn a_repeated_solve_allocates_nothing_on_either_path() {
    // The workspace (factor, packed block, faer's Cholesky scratch) is sized
    // by the first solve; later solves of the same size touch no allocator,
    // whether the guess finishes (positive definite, redundant rows, rows
    // off by rounding, the coupled guess) or hands over (inconsistent
    // twins).
    let mut rng = Rng::new(0xB10C_0004);
    let n = 64;
    let pd = random_pd_box(&mut rng, n, 2.0);
    let consistent = twins(&mut rng, n / 2, 0.0, false);
    let inconsistent = twins(&mut rng, n / 2, 0.5, true);
    // Settles within the slack for dependent rows: the strict phase.
    let rounded = twins(&mut rng, n / 2, -1e-12, false);
    let coupled = coupled_pd(&mut rng, 22, 0.1);
    for p in [pd, consistent, inconsistent, rounded, coupled] {
        assert_repeated_solves_allocate_nothing(&mut Dantzig::default(), &p, 1e-12);
    }
}

/// The solver with the guess on from dimension 1 (and the small problems'
/// own guess off), so small problems that brute force can enumerate go
/// through it.
fn guessing_always() -> Dantzig {
    Dantzig::new(DantzigParams {
        block_guess_from: 1,
        ..DantzigParams::default()
    })
}

/// `w = M z + q` of a brute-force solution.
fn w_of(p: &BoxLcp, z: &[f64]) -> Vec<f64> {
    let n = p.dim();
    (0..n)
        .map(|i| p.q()[i] + (0..n).map(|j| p.m()[(i, j)] * z[j]).sum::<f64>())
        .collect()
}

/// Checks a guessed answer of a singular PSD problem against the brute-force
/// solutions `all` (at least one must exist by construction): it certifies,
/// and its `w` is theirs (for a PSD `M`, `w` is the gradient of a convex QP
/// at its minimisers, the same at all of them).
fn check_against_brute_force(p: &BoxLcp, sol: &LcpSolution, all: &[Vec<f64>], case: usize) {
    assert!(!all.is_empty(), "case {case}: brute force found nothing");
    assert!(
        sol.report.is_solution(1e-10),
        "case {case}: {:?}",
        sol.report
    );
    let scale = p
        .q()
        .iter()
        .chain(&all[0])
        .fold(1.0_f64, |a, x| a.max(x.abs()));
    for z in all {
        let w = w_of(p, z);
        assert!(
            dist(&sol.w, &w) <= 1e-8 * scale,
            "case {case}: w {:?} vs brute force {w:?}",
            sol.w
        );
    }
}

#[test]
fn singular_plain_lcps_through_the_guess_match_brute_force() {
    // Rank-deficient Gram matrices and duplicated rows (redundant contacts),
    // n = 2..8, with q = w* - M z* for a random complementary (z*, w*), so
    // a solution exists. Every one goes through the guess (refused rows,
    // and the pivoting finishing from the guess where it cannot).
    let mut rng = Rng::new(0xB10C_0007);
    let mut solver = guessing_always();
    let mut guessed = 0;
    for case in 0..200 {
        let n = 2 + case % 7;
        let m = if case % 2 == 0 {
            let rank = 1 + rng.below(n - 1);
            random_psd(&mut rng, n, rank)
        } else {
            let base = 1 + rng.below(n - 1);
            let m0 = random_pd(&mut rng, base);
            let rows: Vec<usize> = (0..n)
                .map(|i| if i < base { i } else { rng.below(base) })
                .collect();
            Mat::from_fn(n, n, |i, j| m0[(rows[i], rows[j])])
        };
        let (q, _) = feasible_q(&mut rng, &m);
        let lcp = Lcp::new(m, q).unwrap();
        let p = BoxLcp::from_lcp(&lcp);
        let sol = solver.solve(&p).unwrap();
        if solver.last_stats().block_guesses > 0 {
            guessed += 1;
        }
        check_against_brute_force(&p, &sol, &brute_force(&lcp), case);
    }
    assert_eq!(guessed, 200, "every problem goes through the guess");
}

#[test]
fn singular_box_problems_through_the_guess_match_brute_force() {
    // As above with bounds: each row at its lower bound (w* > 0), at its
    // upper bound (w* < 0) or strictly inside (w* = 0) of a random
    // unilateral, one-sided finite or finite box, q = w* - M z*.
    let mut rng = Rng::new(0xB10C_0008);
    let mut solver = guessing_always();
    for case in 0..200 {
        let n = 2 + case % 5;
        let rank = 1 + rng.below(n - 1);
        let m = random_psd(&mut rng, n, rank);
        let mut lo = vec![0.0; n];
        let mut hi = vec![INF; n];
        let mut z = vec![0.0; n];
        let mut w = vec![0.0; n];
        for i in 0..n {
            match rng.below(3) {
                0 => {}
                1 => hi[i] = rng.range(0.2, 2.0),
                _ => {
                    lo[i] = -rng.range(0.2, 2.0);
                    hi[i] = rng.range(0.2, 2.0);
                }
            }
            match rng.below(3) {
                0 => {
                    z[i] = lo[i];
                    w[i] = rng.range(0.0, 1.0);
                }
                1 if hi[i].is_finite() => {
                    z[i] = hi[i];
                    w[i] = -rng.range(0.0, 1.0);
                }
                _ => z[i] = rng.range(lo[i].max(-1.0), hi[i].min(1.0)),
            }
        }
        let q: Vec<f64> = (0..n)
            .map(|i| w[i] - (0..n).map(|j| m[(i, j)] * z[j]).sum::<f64>())
            .collect();
        let p = BoxLcp::new(m, q, lo, hi, vec![]).unwrap();
        let sol = solver.solve(&p).unwrap();
        assert!(solver.last_stats().block_guesses > 0, "case {case}");
        check_against_brute_force(&p, &sol, &brute_force_box(&p), case);
    }
}

#[test]
fn redundant_rows_with_rounding_in_q_are_solved_exactly() {
    // Twins whose q differ by -1e-12 (the rounding of an assembled contact
    // problem, as on the 20-box stack; above the pivoting's w tolerance,
    // 1e-13 ||q||): the guess settles within its loose tolerance for
    // dependent rows, then its strict phase (or the pivoting) must bring
    // the answer to the pivoting's own accuracy, with the pivoting's w.
    let mut rng = Rng::new(0xB10C_0009);
    let p = twins(&mut rng, 32, -1e-12, false);
    let mut d = Dantzig::default();
    let sol = d.solve(&p).unwrap();
    assert!(d.last_stats().block_guesses > 0);
    assert!(sol.report.is_solution(1e-14), "{:?}", sol.report);
    let reference = pivoting_only().solve(&p).unwrap();
    let scale = p.q().iter().fold(1.0_f64, |a, x| a.max(x.abs()));
    assert!(dist(&sol.w, &reference.w) <= 1e-9 * scale);
}

/// `Dantzig::solve_from_into` (the active set of the last time step as the
/// first guess): given the active set of the answer, one guess and no pivot
/// answer, with the same `z` where the solution is unique; given a
/// perturbed one, the answer still certifies; a guess of the wrong length
/// is a typed error.
#[test]
fn a_guess_from_the_answers_active_set_solves_in_one_factorisation() {
    use contact_lcp::{LcpError, RowState, Solver, active_set_of};
    let mut rng = Rng::new(0xB10C_0005);
    let mut cases = Vec::new();
    for n in [40, 90] {
        cases.push((random_pd_box(&mut rng, n, 2.0), true));
    }
    for boxes in [3, 6] {
        // Resting stacks: four coplanar contacts a face (singular M).
        cases.push((
            common::contacts::random_stack(&mut rng, boxes, false).1,
            false,
        ));
    }
    let mut solver = Dantzig::default();
    for (case, (p, unique)) in cases.iter().enumerate() {
        let cold = solver.solve(p).unwrap();
        let mut states = Vec::new();
        active_set_of(p.bounds(), &cold.z, &cold.w, &mut states).unwrap();
        let mut warm = LcpSolution::default();
        solver.solve_from_into(p, &states, &mut warm).unwrap();
        assert!(
            warm.report.is_solution(1e-12),
            "case {case}: {:?}",
            warm.report
        );
        assert_eq!(solver.last_stats().block_guesses, 1, "case {case}");
        assert_eq!(warm.pivots, 0, "case {case}");
        if *unique {
            let scale = cold.z.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
            assert!(dist(&warm.z, &cold.z) <= 1e-9 * scale, "case {case}");
        }
        // Every fifth row guessed wrong: more work, still an answer.
        for state in states.iter_mut().step_by(5) {
            *state = match *state {
                RowState::Free => RowState::Lower,
                _ => RowState::Free,
            };
        }
        solver.solve_from_into(p, &states, &mut warm).unwrap();
        assert!(
            warm.report.is_solution(1e-12),
            "case {case}: {:?}",
            warm.report
        );
        assert!(
            solver.last_stats().block_guesses + warm.pivots > 1,
            "case {case}"
        );
        // The policy passes the guess to its Dantzig.
        let mut policy = Solver::default();
        policy.solve_from_into(p, &states, &mut warm).unwrap();
        assert!(
            warm.report.is_solution(1e-12),
            "case {case}: {:?}",
            warm.report
        );
        states.pop();
        assert!(matches!(
            solver.solve_from_into(p, &states, &mut warm),
            Err(LcpError::BadLength { what: "guess", .. })
        ));
        assert!(matches!(
            policy.solve_from_into(p, &states, &mut warm),
            Err(LcpError::BadLength { what: "guess", .. })
        ));
    }
}
