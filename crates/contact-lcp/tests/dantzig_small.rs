//! Dantzig on small problems, with the block guess (the default) and by
//! the pivoting alone (`block_guess_from: usize::MAX`): the unique
//! solution that brute-force
//! enumeration finds, the same answer by both routes, certified answers
//! on singular problems (rank deficient, duplicated rows), a trace that
//! shows the guesses that ran, and no allocation on a repeated solve.

mod common;

use common::{
    Rng, assert_is_the_unique_solution, assert_repeated_solves_allocate_nothing, brute_force,
    brute_force_box, dist, feasible_q, random_pd, random_pd_box, random_psd,
};
use contact_lcp::faer::Mat;
use contact_lcp::{BoxLcp, Dantzig, DantzigEvent, DantzigParams, Lcp, LcpSolution, verify};

const INF: f64 = f64::INFINITY;

/// Whether the last solve was answered by a guess without a pivot.
fn guessed(d: &Dantzig) -> bool {
    d.last_stats().block_guesses > 0 && d.last_stats().pivots == 0
}

/// Dantzig with the block guess tried at every size (the default).
fn guessing() -> Dantzig {
    Dantzig::default()
}

/// Dantzig with the block guess off: the one-row pivoting alone.
fn pivoting() -> Dantzig {
    Dantzig::new(DantzigParams {
        block_guess_from: usize::MAX,
        ..DantzigParams::default()
    })
}

#[test]
fn positive_definite_box_problems_settle_on_the_unique_solution() {
    // Bounds of every kind: unilateral, bilateral, finite, one-sided, fixed.
    let mut rng = Rng::new(0x5A11_0001);
    let mut d = guessing();
    let mut settled = 0;
    let trials = 150;
    for trial in 0..trials {
        let n = 1 + trial % 6;
        let m = random_pd(&mut rng, n);
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let (lo, hi): (Vec<f64>, Vec<f64>) = (0..n)
            .map(|_| match rng.below(5) {
                0 => (0.0, INF),
                1 => (-INF, INF),
                2 => (-rng.range(0.1, 2.0), rng.range(0.1, 2.0)),
                3 => (0.0, rng.range(0.1, 2.0)),
                _ => (0.0, 0.0),
            })
            .unzip();
        let p = BoxLcp::new(m, q, lo, hi, vec![]).unwrap();
        let sol = d.solve(&p).unwrap();
        assert!(
            sol.report.is_solution(1e-12),
            "trial {trial}: {:?}",
            sol.report
        );
        assert_is_the_unique_solution(&sol.z, &brute_force_box(&p), trial);
        settled += usize::from(guessed(&d));
    }
    // Random positive definite problems of this size settle in a few
    // guesses; a stall hands over to the pivoting, which must stay rare.
    assert!(settled * 10 >= trials * 9, "{settled} of {trials}");
}

#[test]
fn plain_lcps_match_brute_force_and_the_pivoting() {
    let mut rng = Rng::new(0x5A11_0002);
    let mut d = guessing();
    let mut pivoting = pivoting();
    for trial in 0..200 {
        let n = 1 + trial % 9;
        let lcp = Lcp::new(
            random_pd(&mut rng, n),
            (0..n).map(|_| rng.range(-1.0, 1.0)).collect(),
        )
        .unwrap();
        let p = BoxLcp::from_lcp(&lcp);
        let sol = d.solve(&p).unwrap();
        let all = brute_force(&lcp);
        assert_eq!(all.len(), 1);
        assert!(dist(&sol.z, &all[0]) <= 1e-9, "trial {trial}");
        let reference = pivoting.solve(&p).unwrap();
        assert!(dist(&sol.z, &reference.z) <= 1e-9, "trial {trial}");
    }
}

#[test]
fn singular_problems_certify_on_either_path() {
    // Rank-deficient A A' and duplicated rows: the guess refuses dependent
    // rows; where it cannot settle, the pivoting answers. Both kinds of
    // answer must occur here, and every answer must certify.
    let mut rng = Rng::new(0x5A11_0003);
    let mut d = guessing();
    let (mut by_guess, mut by_pivoting) = (0, 0);
    for trial in 0..400 {
        let m = if trial % 2 == 0 {
            let n = 2 + trial % 11;
            let rank = 1 + rng.below(n - 1);
            random_psd(&mut rng, n, rank)
        } else {
            let base = 2 + trial % 6;
            let m0 = random_pd(&mut rng, base);
            let mut rows: Vec<usize> = (0..base).collect();
            for _ in 0..1 + rng.below(3) {
                rows.push(rng.below(base));
            }
            Mat::from_fn(rows.len(), rows.len(), |i, j| m0[(rows[i], rows[j])])
        };
        let (q, _) = feasible_q(&mut rng, &m);
        let lcp = Lcp::new(m, q).unwrap();
        let sol = d.solve(&BoxLcp::from_lcp(&lcp)).unwrap();
        let r = verify(&lcp, &sol.z, &sol.w);
        assert!(r.is_solution(1e-10), "trial {trial}: {r:?}");
        if guessed(&d) {
            by_guess += 1;
        } else {
            by_pivoting += 1;
        }
    }
    assert!(
        by_guess > 0 && by_pivoting > 0,
        "{by_guess} / {by_pivoting}"
    );
}

#[test]
fn the_trace_shows_the_guesses_that_ran() {
    // Recording a trace changes nothing: the same answer and counters,
    // and the trace holds the guess runs and every pivot.
    let mut rng = Rng::new(0x5A11_0004);
    for n in [12, 60] {
        let p = random_pd_box(&mut rng, n, 1.0);
        let mut plain = guessing();
        let sol = plain.solve(&p).unwrap();
        let mut traced = Dantzig::new(DantzigParams {
            record_trace: true,
            ..*plain.params()
        });
        let traced_sol = traced.solve(&p).unwrap();
        assert!(sol.report.is_solution(1e-12), "{:?}", sol.report);
        assert_eq!(sol.z, traced_sol.z);
        assert_eq!(plain.last_stats(), traced.last_stats());
        let trace = traced.last_trace();
        let guess_steps: usize = trace
            .iter()
            .map(|s| match s.event {
                DantzigEvent::BlockGuess { guesses, .. } => guesses,
                _ => 0,
            })
            .sum();
        let pivots = trace
            .iter()
            .filter(|s| !matches!(s.event, DantzigEvent::BlockGuess { .. }))
            .count();
        assert!(guess_steps > 0, "n {n}: {trace:?}");
        assert_eq!(guess_steps, traced.last_stats().block_guesses, "n {n}");
        assert_eq!(pivots, traced.last_stats().pivots, "n {n}");
    }
}

#[test]
fn a_repeated_solve_allocates_nothing() {
    // The workspace is sized by the first solve of a size; later solves
    // touch no allocator, whether the guess settles (positive definite)
    // or hands over to the pivoting (here: a rank-one matrix).
    let mut rng = Rng::new(0x5A11_0005);
    let n = 24;
    let pd = random_pd_box(&mut rng, n, 2.0);
    let m = random_psd(&mut rng, n, 3);
    let (q, _) = feasible_q(&mut rng, &m);
    let psd = BoxLcp::from_lcp(&Lcp::new(m, q).unwrap());
    for (p, mut d) in [
        (pd.clone(), pivoting()),
        (psd.clone(), pivoting()),
        (pd, guessing()),
        (psd, guessing()),
    ] {
        assert_repeated_solves_allocate_nothing(&mut d, &p, 1e-10);
    }
    // Another problem of the same size with a larger clamped set: q > 0
    // keeps every row at 0 (nothing clamped), q < 0 clamps every row. The
    // factors grow with the clamped set, once: after the larger problem
    // was solved, nothing allocates.
    let m = random_pd(&mut rng, n);
    let few = BoxLcp::from_lcp(&Lcp::new(m.clone(), vec![1.0; n]).unwrap());
    let all = BoxLcp::from_lcp(&Lcp::new(m, vec![-1.0; n]).unwrap());
    for mut d in [pivoting(), guessing()] {
        let mut out = LcpSolution::default();
        d.solve_into(&all, &mut out).unwrap();
        d.solve_into(&few, &mut out).unwrap();
        let info = allocation_counter::measure(|| d.solve_into(&all, &mut out).unwrap());
        assert_eq!(info.count_total, 0, "{info:?}");
        assert!(out.report.is_solution(1e-12), "{:?}", out.report);
    }
    let mut d = guessing();
    let mut out = LcpSolution::default();
    d.solve_into(&few, &mut out).unwrap();
    assert!(guessed(&d));
}
