//! Block principal pivoting on proximal subproblems (`BlockPivoting`) on
//! factored box LCPs (`M = J W J' + C`): every `Ok` answer certified by the
//! dense certificate (`verify_box` on `M` formed here from the factors);
//! cold starts on random friction-coupled problems and contact stacks;
//! frictionless positive definite problems against Dantzig's answer
//! (unique there); warm starts from the exact answer and from a perturbed
//! active set; a sliding and a sticking cube against their closed forms; a
//! pyramid stepped in time. Where it fails (cold starts on some
//! friction-coupled problems: see the ignored smallest case at the end),
//! the failure is typed with an honest best iterate. Bad input:
//! block_pivoting_bad_input.rs.

mod common;

use common::Rng;
use common::contacts::{random_stack, resting_box};
use common::factored::{Shape, dense_of, random_parts};
use common::pyramid::{problems, pyramid, velocities};
use contact_lcp::{
    BlockPivoting, BoxBounds, BoxLcp, Coupling, Dantzig, FactoredBoxLcp, FactoredParts,
    JacobianBlock, Lcp, LcpError, LcpSolution, Method, RowState, active_set_of, verify_box,
};

const TOL: f64 = 1e-9;

/// Certifies `sol` independently: the dense certificate, recomputing `w`.
fn assert_certified(dense: &BoxLcp, sol: &LcpSolution, what: &str) {
    let report = verify_box(dense, &sol.z, &sol.w);
    assert!(report.is_solution(TOL), "{what}: {report:?}");
    assert_eq!(sol.method, Method::BlockPivoting, "{what}");
}

/// The warm start of an answer: its active set and its `z`.
fn warm_of(bounds: &BoxBounds, sol: &LcpSolution) -> (Vec<RowState>, Vec<f64>) {
    let mut states = Vec::new();
    active_set_of(bounds, &sol.z, &sol.w, &mut states).unwrap();
    (states, sol.z.clone())
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

fn inf_norm(a: &[f64]) -> f64 {
    a.iter().fold(0.0, |m: f64, x| m.max(x.abs()))
}

/// Solves `parts` cold: an `Ok` answer certified by the dense certificate
/// (returned with the problem, factored and dense), or a typed failure
/// whose best iterate carries its own honest report (`None`).
fn solve_cold(
    solver: &mut BlockPivoting,
    parts: FactoredParts,
    what: &str,
) -> Option<(FactoredBoxLcp, BoxLcp, LcpSolution)> {
    let dense = dense_of(&parts);
    let p = FactoredBoxLcp::new(parts).unwrap();
    let mut out = LcpSolution::default();
    let result = solver.solve_into(&p, None, &mut out);
    if let Err(error) = result {
        assert_honest_failure(&p, &dense, &error, what);
        return None;
    }
    assert_certified(&dense, &out, what);
    assert_eq!(out.iterations, solver.last_stats().solves, "{what}");
    assert_eq!(out.report, p.verify(&out.z, &out.w), "{what}");
    Some((p, dense, out))
}

/// A failure is `BlockPivotingFailed` with a best iterate whose report is
/// its own and which the dense certificate rejects too.
fn assert_honest_failure(p: &FactoredBoxLcp, dense: &BoxLcp, error: &LcpError, what: &str) {
    assert!(
        matches!(error, LcpError::BlockPivotingFailed { .. }),
        "{what}: {error:?}"
    );
    let best = error
        .best()
        .unwrap_or_else(|| panic!("{what}: no best iterate: {error:?}"));
    assert_eq!(best.report, p.verify(&best.z, &best.w), "{what}");
    let report = verify_box(dense, &best.z, &best.w);
    assert!(
        !report.is_solution(TOL),
        "{what}: a solution refused: {report:?}"
    );
    eprintln!("{what}: {error}");
}

/// Random friction-coupled problems with full inverse masses, bilateral and
/// interval rows and compliance, from 1 body to 12: every cold `Ok`
/// certified by the dense certificate, every failure typed with an honest
/// best iterate.
#[test]
fn cold_starts_certify_on_random_friction_coupled_problems() {
    let mut rng = Rng::new(0xC01D);
    let mut solver = BlockPivoting::default();
    let (mut solves, mut failed) = (Vec::new(), Vec::new());
    for case in 0..80 {
        let bodies = 1 + case % 12;
        let shape = Shape {
            bodies,
            contacts: 1 + rng.below(3 * bodies),
            bilateral: rng.below(3),
            interval: rng.below(3),
            friction: true,
            compliant: [0.0, 0.3, 1.0][case % 3],
        };
        let parts = random_parts(&mut rng, shape);
        match solve_cold(&mut solver, parts, &format!("case {case}: {shape:?}")) {
            Some(_) => solves.push(solver.last_stats().solves),
            None => failed.push(case),
        }
    }
    eprintln!("cold solves: {solves:?}; failed: {failed:?}");
}

/// Stacks of up to 6 boxes (4 flush contacts per face: `M` singular),
/// with and without friction, cold: every `Ok` certified, every failure
/// typed.
#[test]
fn cold_starts_certify_on_contact_stacks() {
    let mut rng = Rng::new(0x57AC);
    let mut solver = BlockPivoting::default();
    let mut failed = Vec::new();
    for case in 0..24 {
        let (contacts, dense) = random_stack(&mut rng, 1 + case % 6, case % 5 != 0);
        let p =
            FactoredBoxLcp::from_operator(&contacts, dense.q().to_vec(), dense.bounds().clone())
                .unwrap();
        let mut out = LcpSolution::default();
        let what = format!("case {case}");
        match solver.solve_into(&p, None, &mut out) {
            Ok(()) => {
                assert_certified(&dense, &out, &what);
                assert_eq!(out.report, p.verify(&out.z, &out.w), "{what}");
            }
            Err(error) => {
                assert_honest_failure(&p, &dense, &error, &what);
                failed.push(case);
            }
        }
    }
    eprintln!("stacks failed: {failed:?}");
}

/// Frictionless problems with a positive definite `M` (fewer rows than
/// body coordinates, or every row compliant) have one answer: block
/// pivoting's is Dantzig's.
#[test]
fn frictionless_positive_definite_problems_match_dantzig() {
    let mut rng = Rng::new(0xF1A7);
    let mut solver = BlockPivoting::default();
    let mut dantzig = Dantzig::default();
    let mut worst = 0.0_f64;
    for case in 0..60 {
        let bodies = 1 + case % 8;
        let all_compliant = case % 2 == 0;
        let rows = if all_compliant {
            4 * bodies
        } else {
            3 * bodies
        };
        let shape = Shape {
            bodies,
            contacts: rows - rows / 4,
            bilateral: rows / 8,
            interval: rows / 4 - rows / 8,
            friction: false,
            compliant: if all_compliant { 1.0 } else { 0.0 },
        };
        let parts = random_parts(&mut rng, shape);
        let what = format!("case {case}: {shape:?}");
        let (_, dense, sol) = solve_cold(&mut solver, parts, &what).expect("no failure");
        let reference = dantzig.solve(&dense).unwrap();
        let scale = inf_norm(&reference.z).max(1e-3);
        let diff = max_diff(&sol.z, &reference.z) / scale;
        worst = worst.max(diff);
        assert!(
            diff <= 1e-6,
            "{what}: {diff:e}\n{:?}\n{:?}",
            sol.z,
            reference.z
        );
    }
    eprintln!("largest relative difference from Dantzig: {worst:e}");
}

/// `guess` with `k` random rows flipped: a free row to its lower bound, a
/// row at a bound to free.
fn flip(rng: &mut Rng, guess: &[RowState], k: usize) -> Vec<RowState> {
    let mut guess = guess.to_vec();
    for _ in 0..k {
        let i = rng.below(guess.len());
        guess[i] = match guess[i] {
            RowState::Free => RowState::Lower,
            _ => RowState::Free,
        };
    }
    guess
}

/// From the exact answer (its active set and `z`), one solve, one
/// factorisation and one subproblem; from an active set with three rows
/// flipped, a few solves.
#[test]
fn warm_starts_from_the_exact_and_a_perturbed_answer() {
    let mut rng = Rng::new(0xAC7);
    let mut solver = BlockPivoting::default();
    let mut out = LcpSolution::default();
    let mut perturbed = Vec::new();
    for case in 0..60 {
        let what = format!("case {case}");
        let (p, dense, cold) = if case % 2 == 0 {
            let (contacts, dense) = random_stack(&mut rng, 1 + case % 5, true);
            let p = FactoredBoxLcp::from_operator(
                &contacts,
                dense.q().to_vec(),
                dense.bounds().clone(),
            )
            .unwrap();
            let mut cold = LcpSolution::default();
            if let Err(error) = solver.solve_into(&p, None, &mut cold) {
                assert_honest_failure(&p, &dense, &error, &what);
                continue;
            }
            assert_certified(&dense, &cold, &what);
            (p, dense, cold)
        } else {
            let bodies = 1 + case % 7;
            let shape = Shape {
                bodies,
                contacts: 1 + rng.below(2 * bodies),
                bilateral: rng.below(2),
                interval: rng.below(2),
                friction: true,
                compliant: 0.2,
            };
            match solve_cold(&mut solver, random_parts(&mut rng, shape), &what) {
                Some(solved) => solved,
                None => continue,
            }
        };
        let (states, centre) = warm_of(p.bounds(), &cold);
        solver
            .solve_into(&p, Some((&states, &centre)), &mut out)
            .unwrap();
        assert_certified(&dense, &out, &format!("{what}, exact"));
        let stats = *solver.last_stats();
        assert!(
            stats.solves == 1 && stats.factorizations == 1 && stats.subproblems == 1,
            "{what}, exact: {stats:?}"
        );

        let guess = flip(&mut rng, &states, 3);
        solver
            .solve_into(&p, Some((&guess, &centre)), &mut out)
            .unwrap();
        assert_certified(&dense, &out, &format!("{what}, perturbed"));
        perturbed.push(solver.last_stats().solves);
    }
    let worst = perturbed.iter().max().copied().unwrap_or(0);
    let mean = perturbed.iter().sum::<usize>() as f64 / perturbed.len() as f64;
    eprintln!("perturbed: {perturbed:?}, worst {worst}, mean {mean}");
    assert!(worst <= 12 && mean <= 6.0, "solves: {perturbed:?}");
}

/// A unit cube (mass `m`, half extent 0.5, `mu`) on static ground at its 4
/// bottom corners, with free velocity `(vx, 0, -g h)`: the normals stop
/// the fall, `sum z_n = m g h`. Sliding (`vx` well above `mu g h`): every
/// x-friction row at its bound, `sum z_x = -mu m g h`; sticking (`vx` below
/// it): `sum z_x = -m vx`. No y-friction overall: `sum z_y = 0`.
#[test]
fn a_sliding_and_a_sticking_cube_match_their_closed_forms() {
    let (g, h, mass, mu) = (9.81, 1.0 / 60.0, 2.5, 0.4);
    let fall = g * h;
    for (vx, sliding) in [(3.0, true), (50.0, true), (0.3 * mu * fall, false)] {
        let (contacts, bounds) = resting_box(mass, [0.5; 3], mu);
        let q = contacts.q_of(&[vx, 0.0, -fall, 0.0, 0.0, 0.0]);
        let dense = BoxLcp::with_bounds(
            Lcp::new(contacts.dense(), q.clone()).unwrap(),
            bounds.clone(),
        )
        .unwrap();
        let p = FactoredBoxLcp::from_operator(&contacts, q, bounds).unwrap();
        let mut solver = BlockPivoting::default();
        let mut sol = LcpSolution::default();
        solver.solve_into(&p, None, &mut sol).unwrap();
        let what = format!("vx {vx}");
        assert_certified(&dense, &sol, &what);
        let sum = |first: usize| (first..12).step_by(3).map(|i| sol.z[i]).sum::<f64>();
        let (normal, x, y) = (sum(0), sum(1), sum(2));
        let n_exact = mass * fall;
        assert!(
            (normal - n_exact).abs() <= 1e-9 * n_exact,
            "{what}: {normal} vs {n_exact}"
        );
        let x_exact = if sliding { -mu * n_exact } else { -mass * vx };
        assert!(
            (x - x_exact).abs() <= 1e-9 * x_exact.abs(),
            "{what}: {x} vs {x_exact}"
        );
        assert!(y.abs() <= 1e-9 * n_exact, "{what}: {y}");
        if sliding {
            for i in (1..12).step_by(3) {
                assert!(
                    (sol.z[i] + mu * sol.z[i - 1]).abs() <= 1e-9 * n_exact,
                    "{what}: row {i} off its bound: {:?}",
                    sol.z
                );
            }
        }
    }
}

/// A wall pyramid of 15 cubes (n = 264) stepped with its geometry held
/// fixed (the velocity-level problem of each step: gravity, then the
/// contact impulses), warm-started from each step's answer as a simulator
/// does: every step certified, one symbolic factorisation in all, and few
/// solves per step once it has settled.
#[test]
fn a_stepped_pyramid_warm_started_from_each_answer() {
    let mut rng = Rng::new(0x57E9);
    let (contacts, bounds) = pyramid(&mut rng, 5, 0.5);
    let bodies = contacts.inv_mass.len();
    let mut v = velocities(&mut rng, bodies, 0.05, 0.0);
    let mut solver = BlockPivoting::default();
    let mut out = LcpSolution::default();
    let mut warm: Option<(Vec<RowState>, Vec<f64>)> = None;
    let (mut solves, mut symbolic) = (Vec::new(), 0);
    for step in 0..40 {
        for b in 0..bodies {
            v[6 * b + 2] -= 9.81 / 60.0;
        }
        let (dense, p) = problems(&contacts, &bounds, &v);
        let guess = warm.as_ref().map(|(s, c)| (s.as_slice(), c.as_slice()));
        solver
            .solve_into(&p, guess, &mut out)
            .unwrap_or_else(|e| panic!("step {step}: {e}"));
        assert_certified(&dense, &out, &format!("step {step}"));
        // The simulator's centre: the answer with friction at 0.
        let (states, mut centre) = warm_of(&bounds, &out);
        for c in bounds.couplings() {
            centre[c.row] = 0.0;
        }
        warm = Some((states, centre));
        solves.push(solver.last_stats().solves);
        symbolic += solver.last_stats().symbolic_factorizations;
        let dv = contacts.velocity_change(&out.z);
        for (vi, d) in v.iter_mut().zip(dv) {
            *vi += d;
        }
    }
    eprintln!("pyramid solves per step: {solves:?}");
    assert_eq!(symbolic, 1, "one contact graph, one symbolic factor");
    assert!(solves[0] >= 2, "a cold start: {solves:?}");
    assert!(
        solves[20..].iter().all(|&s| s <= 3),
        "settled steps: {solves:?}"
    );
}

/// A pyramid of 21 cubes (n = 432) whose cubes slide slowly: cold starts
/// certify with both sliding and sticking contacts.
#[test]
fn a_pyramid_with_sliding_and_sticking_contacts() {
    let mut solver = BlockPivoting::default();
    let mut out = LcpSolution::default();
    for mu in [0.3, 0.5] {
        let mut rng = Rng::new(0x9E7A);
        let (contacts, bounds) = pyramid(&mut rng, 6, mu);
        let v = velocities(&mut rng, contacts.inv_mass.len(), 0.02, 0.05);
        let (dense, p) = problems(&contacts, &bounds, &v);
        assert_eq!(p.dim(), 432);
        solver.solve_into(&p, None, &mut out).unwrap();
        assert_certified(&dense, &out, &format!("mu {mu}"));
        let (states, _) = warm_of(&bounds, &out);
        let friction = |kind: fn(RowState) -> bool| {
            bounds
                .couplings()
                .iter()
                .filter(|c| kind(states[c.row]) && out.z[c.normal_row] > 0.0)
                .count()
        };
        let sticking = friction(|s| s == RowState::Free);
        let sliding = friction(|s| s != RowState::Free);
        assert!(
            sticking > 100 && sliding > 5,
            "mu {mu}: {sticking} sticking, {sliding} sliding"
        );
    }
}

/// Repeated warm solves of one problem allocate nothing once the solver
/// has seen it: a frictionless stack, and a pyramid at rest whose contacts
/// all stick (no folded rows: the symmetric factor, refactored into kept
/// storage; faer's LU allocates as it factors).
#[test]
fn repeated_solves_allocate_nothing() {
    let mut rng = Rng::new(0xA110);
    let mut solver = BlockPivoting::default();
    let mut out = LcpSolution::default();
    let (contacts, dense) = random_stack(&mut rng, 4, false);
    let frictionless =
        FactoredBoxLcp::from_operator(&contacts, dense.q().to_vec(), dense.bounds().clone())
            .unwrap();
    let (contacts, bounds) = pyramid(&mut rng, 4, 0.8);
    let v = velocities(&mut rng, contacts.inv_mass.len(), 0.0, 0.1);
    let (_, at_rest) = problems(&contacts, &bounds, &v);
    for (what, p) in [("frictionless", &frictionless), ("at rest", &at_rest)] {
        solver.solve_into(p, None, &mut out).unwrap();
        let (states, centre) = warm_of(p.bounds(), &out);
        solver
            .solve_into(p, Some((&states, &centre)), &mut out)
            .unwrap();
        let info = allocation_counter::measure(|| {
            solver
                .solve_into(p, Some((&states, &centre)), &mut out)
                .unwrap();
        });
        // No friction row is folded (at a bound of a loaded normal): the
        // LU factor such rows need allocates inside faer.
        assert!(
            p.bounds()
                .couplings()
                .iter()
                .all(|c| states[c.row] == RowState::Free || out.z[c.normal_row] == 0.0),
            "{what}: no friction row at a bound of a loaded normal"
        );
        assert_eq!(info.count_total, 0, "{what}: {info:?}");
    }
}

/// The smallest case found where block pivoting fails on a solvable
/// problem: one contact (a normal, two coupled friction rows) on one body
/// with a full inverse mass, `q > 0` (separating), so `z = 0` is the
/// answer (Dantzig's). Cold, the first subproblem cycles: with both
/// friction rows folded at their lower bound the normal comes out
/// positive and both friction rows violate; freeing a friction row makes
/// the normal negative, and folding it back starts over (Murty's one-row
/// rule went round this forever). The subproblem now holds the friction
/// bounds at the centre once the exchanges stall, and is solved.
#[test]
fn a_separating_frictional_contact_is_solved() {
    let inverse_mass = [
        [
            0.6423314738996077,
            -0.5003924007041586,
            0.380192891316553,
            -0.22264724796178917,
            -0.03316553407920574,
            -0.16607654677492106,
        ],
        [
            -0.5003924007041586,
            1.0441308163018925,
            -0.15441949492436616,
            0.16033047533895126,
            -0.43899211234646446,
            0.11225767910256915,
        ],
        [
            0.380192891316553,
            -0.15441949492436616,
            0.7488056516813918,
            0.07734894211238791,
            -0.3620056940960435,
            -0.26869545615307083,
        ],
        [
            -0.22264724796178917,
            0.16033047533895126,
            0.07734894211238791,
            0.4372385557568745,
            0.09248708735764855,
            -0.00036463363171471656,
        ],
        [
            -0.03316553407920574,
            -0.43899211234646446,
            -0.3620056940960435,
            0.09248708735764855,
            0.6982418344545782,
            0.09675752165054628,
        ],
        [
            -0.16607654677492106,
            0.11225767910256915,
            -0.26869545615307083,
            -0.00036463363171471656,
            0.09675752165054628,
            0.6184200153029149,
        ],
    ];
    let j = [
        [
            0.9219412483681565,
            0.2035361610923577,
            0.32954114414614605,
            -0.12323657634234308,
            0.04032604036775167,
            0.3198662062738442,
        ],
        [
            -0.33658677051462116,
            0.0,
            0.9416524549506244,
            -0.2320911712016116,
            -0.49804258904749094,
            -0.0829592886090895,
        ],
        [
            0.1916603257638444,
            -0.9790674293059626,
            0.06850757914502037,
            0.1852134244085033,
            0.00838329128600054,
            -0.39835384858212364,
        ],
    ];
    let mu = 0.9132250356836533;
    let inf = f64::INFINITY;
    let parts = FactoredParts {
        rows: j
            .iter()
            .map(|&j| [Some(JacobianBlock { body: 0, j }), None])
            .collect(),
        inverse_mass: vec![inverse_mass],
        compliance: vec![0.0; 3],
        q: vec![0.13743400745761916, 0.3921049308895188, 0.2308068361592284],
        bounds: BoxBounds::new(
            vec![0.0, -inf, -inf],
            vec![inf; 3],
            (1..3)
                .map(|row| Coupling {
                    row,
                    normal_row: 0,
                    mu,
                })
                .collect(),
        )
        .unwrap(),
    };
    let dense = dense_of(&parts);
    let reference = Dantzig::default().solve(&dense).unwrap();
    assert_eq!(reference.z, [0.0; 3]);
    let p = FactoredBoxLcp::new(parts).unwrap();
    let mut out = LcpSolution::default();
    let mut solver = BlockPivoting::default();
    let result = solver.solve_into(&p, None, &mut out);
    assert!(result.is_ok(), "{result:?}: {:?}", solver.last_stats());
    assert_certified(&dense, &out, "separating");
}
