//! Guards the Dantzig solver, and Lemke's method on the standard form of
//! the box problem, on contact problems `M = J W J'` (singular: 4 contacts
//! per face): a box pushed sideways on a plane against Coulomb's closed
//! form, and stacks of boxes with and without friction coupling against
//! projected Gauss-Seidel, each certified by `verify_box`; a tower of 20
//! boxes solved by Lemke in one path; a resting tower whose coupling passes
//! stop at the first certified pass; resting stacks whose first pass the
//! small guess solves without a pivot; a sliding stack settled by the coupled
//! guess restarted from a pass that took no pivot (without allocating);
//! sliding stacks whose passes flip unless the radii are relaxed, and a
//! pivot budget over all passes; and that the clamped-block factor is
//! only ever updated, never rebuilt.

mod common;

use common::contacts::{
    Contacts, add_box_contacts, bounds, box_inv_mass, random_stack, resting_box,
};
use common::{Rng, dist};
use contact_lcp::{
    BoxLcp, Dantzig, DantzigParams, Lcp, Lemke, Method, PgsParams, ProjectedGaussSeidel, Solver,
    verify_box,
};

const HALF: [f64; 3] = [0.5, 0.3, 0.2];
const MASS: f64 = 2.0;
const G: f64 = 9.81;
const H: f64 = 0.01;
const MU: f64 = 0.5;

/// The pushed box of `pgs_friction.rs`: 4 corner contacts on static ground,
/// a normal and two coupled friction rows each, pushed along +x by `push`
/// newtons for one step H.
fn pushed_box(push: f64) -> (Contacts, BoxLcp, Vec<f64>) {
    let (c, b) = resting_box(MASS, HALF, MU);
    let v_free = vec![H * push / MASS, 0.0, -H * G, 0.0, 0.0, 0.0];
    let q = c.q_of(&v_free);
    let p = BoxLcp::with_bounds(Lcp::new(c.dense(), q).unwrap(), b).unwrap();
    (c, p, v_free)
}

#[test]
fn pushed_box_sticks_then_slides_as_coulomb_says() {
    // Closed form (provided the box does not tip: c mu = 0.1 <= a = 0.5):
    // total normal impulse m g h; friction -F h (sticking, F <= mu m g =
    // 9.81 N) or -mu m g h (sliding); velocity after the step 0 or
    // h (F - mu m g) / m along x.
    let mut dantzig = Dantzig::default();
    let mut lemke = Lemke::default();
    for (push, by_lemke) in [0.0, 3.0, 9.0, 10.5, 20.0]
        .into_iter()
        .flat_map(|push| [(push, false), (push, true)])
    {
        let (c, p, v_free) = pushed_box(push);
        let sol = if by_lemke {
            lemke.solve_box(&p).unwrap()
        } else {
            dantzig.solve(&p).unwrap()
        };
        assert!(
            sol.report.is_solution(1e-12),
            "push {push}: {:?}",
            sol.report
        );
        assert_eq!(sol.report.z_violation, 0.0);
        let z = &sol.z;
        let fn_sum: f64 = (0..4).map(|k| z[3 * k]).sum();
        let fx_sum: f64 = (0..4).map(|k| z[3 * k + 1]).sum();
        let fy_sum: f64 = (0..4).map(|k| z[3 * k + 2]).sum();
        let dv = c.velocity_change(z);
        let v: Vec<f64> = v_free.iter().zip(&dv).map(|(a, b)| a + b).collect();
        let tol = 1e-12;
        assert!((fn_sum - MASS * G * H).abs() <= tol, "normal {fn_sum}");
        assert!(fy_sum.abs() <= tol);
        if push > MU * MASS * G {
            assert!((fx_sum + MU * MASS * G * H).abs() <= tol, "fx {fx_sum}");
            assert!((v[0] - H * (push - MU * MASS * G) / MASS).abs() <= tol);
            for k in 0..4 {
                assert!((z[3 * k + 1] + MU * z[3 * k]).abs() <= tol, "{z:?}");
            }
        } else {
            assert!((fx_sum + push * H).abs() <= tol, "fx {fx_sum}");
            assert!(v[0].abs() <= tol);
        }
        assert!(v[1..].iter().all(|x| x.abs() <= tol), "{v:?}");
        if by_lemke {
            assert_eq!(sol.method, Method::Lemke);
            continue;
        }
        let stats = dantzig.last_stats();
        assert!(stats.rounds <= 3, "push {push}: {stats:?}");
    }
}

/// Solves the coupled box problem `p` by Dantzig's passes and checks the
/// answer against `p` itself: a solution to 1e-10 (scaled) with every
/// friction force within its cone exactly. Returns `z` and the stats.
fn solved_by_passes(d: &mut Dantzig, p: &BoxLcp) -> (Vec<f64>, contact_lcp::DantzigStats) {
    let sol = d.solve(p).unwrap();
    let check = verify_box(p, &sol.z, &sol.w);
    assert!(check.is_solution(1e-10), "{check:?}");
    assert_eq!(check.z_violation, 0.0, "coupling exact");
    (sol.z, *d.last_stats())
}

/// Whether some contact of `z` slides: a friction force at its bound
/// `mu z_n`, nonzero.
fn some_contact_slides(p: &BoxLcp, z: &[f64]) -> bool {
    p.bounds().couplings().iter().any(|cp| {
        let r = cp.mu * z[cp.normal_row];
        r > 0.0 && (z[cp.row].abs() - r).abs() <= 1e-12 * r
    })
}

#[test]
fn frictionless_stacks_agree_with_pgs() {
    // For a symmetric PSD M every solution has the same w (the gradient of
    // the convex QP), so the velocities must agree although z is not unique.
    let mut rng = Rng::new(41);
    let mut dantzig = Dantzig::default();
    let mut pgs = ProjectedGaussSeidel::new(PgsParams {
        tolerance: 1e-12,
        max_sweeps: 200_000,
        ..PgsParams::default()
    });
    for boxes in [1, 2, 3, 5, 8] {
        let (c, p) = random_stack(&mut rng, boxes, false);
        let sol = dantzig.solve(&p).unwrap();
        assert!(
            sol.report.is_solution(1e-12),
            "boxes {boxes}: {:?}",
            sol.report
        );
        assert_eq!(sol.method, Method::Dantzig);
        let reference = pgs.solve(&p, None).unwrap();
        // PGS stops at a scaled natural residual of 1e-12; its w is that
        // close to the unique w (stated tolerance 1e-8 of ||q||).
        let qn = p.q().iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        assert!(dist(&sol.w, &reference.w) <= 1e-8 * qn, "boxes {boxes}");
        let dv = c.velocity_change(&sol.z);
        let dv_ref = c.velocity_change(&reference.z);
        assert!(dist(&dv, &dv_ref) <= 1e-7, "boxes {boxes}");
        let stats = *dantzig.last_stats();
        // Redundant contacts were met and refused rather than factorised.
        assert!(stats.appends <= p.dim(), "{stats:?}");
    }
}

#[test]
fn friction_stacks_agree_with_pgs_and_certify() {
    let mut rng = Rng::new(43);
    let mut dantzig = Dantzig::default();
    let mut pgs = ProjectedGaussSeidel::new(PgsParams {
        tolerance: 1e-11,
        max_sweeps: 500_000,
        ..PgsParams::default()
    });
    for boxes in [1, 2, 3, 5] {
        let (c, p) = random_stack(&mut rng, boxes, true);
        let sol = match dantzig.solve(&p) {
            Ok(s) => s,
            Err(e) => panic!("boxes {boxes}: {e}"),
        };
        // Deterministic: a second solve with the same workspace is
        // bit-identical.
        assert_eq!(dantzig.solve(&p).unwrap(), sol, "boxes {boxes}");
        let check = verify_box(&p, &sol.z, &sol.w);
        assert_eq!(check, sol.report);
        assert!(
            sol.report.is_solution(1e-10),
            "boxes {boxes}: {:?}",
            sol.report
        );
        assert_eq!(sol.report.z_violation, 0.0, "coupling exact");
        let reference = pgs.solve(&p, None).unwrap();
        let dv = c.velocity_change(&sol.z);
        let dv_ref = c.velocity_change(&reference.z);
        // Stated tolerance: 1e-6 in velocity (PGS stops at 1e-11 relative
        // natural residual on a problem whose solution need not be unique).
        assert!(
            dist(&dv, &dv_ref) <= 1e-6,
            "boxes {boxes}: {}",
            dist(&dv, &dv_ref)
        );
        let stats = *dantzig.last_stats();
        // The first pass is the block guess's (every size by default).
        assert!(stats.block_guesses > 0, "boxes {boxes}: {stats:?}");
        // Cold passes (the ODE-like restart from z = 0) reach a certified
        // answer too, with at least as many pivots.
        let mut cold = Dantzig::new(DantzigParams {
            warm_start_rounds: false,
            ..DantzigParams::default()
        });
        let sol_cold = cold.solve(&p).unwrap();
        assert!(sol_cold.report.is_solution(1e-10), "{:?}", sol_cold.report);
        assert!(cold.last_stats().pivots >= stats.pivots, "boxes {boxes}");
        // Lemke on the standard form: the same velocities, coupling exact.
        let by_lemke = Lemke::default().solve_box(&p).unwrap();
        assert!(by_lemke.report.is_solution(1e-10), "{:?}", by_lemke.report);
        assert_eq!(by_lemke.report.z_violation, 0.0, "coupling exact");
        let dv_lemke = c.velocity_change(&by_lemke.z);
        assert!(dist(&dv_lemke, &dv_ref) <= 1e-6, "boxes {boxes}");
    }
}

#[test]
fn resting_stacks_are_solved_by_the_block_guess_of_the_first_pass() {
    // Centred boxes of 2 kg falling at 0.1 m/s onto each other and the
    // ground: no friction is needed, so the first coupling pass (friction
    // rows held at 0) is the answer. The block guess (on at every size by
    // default) solves it with no pivot, and must give the velocities of
    // the pivoting passes.
    for boxes in [1_usize, 3, 5] {
        let mut c = Contacts::default();
        let (mut lo, mut hi, mut cp) = (vec![], vec![], vec![]);
        for body in 0..boxes {
            c.inv_mass.push(box_inv_mass(MASS, HALF));
            let below = body.checked_sub(1);
            add_box_contacts(&mut c, &mut lo, &mut hi, &mut cp, body, below, HALF, MU);
        }
        let v: Vec<f64> = (0..boxes)
            .flat_map(|_| [0.0, 0.0, -0.1, 0.0, 0.0, 0.0])
            .collect();
        let p = BoxLcp::with_bounds(Lcp::new(c.dense(), c.q_of(&v)).unwrap(), bounds(lo, hi, cp))
            .unwrap();
        let mut d = Dantzig::default();
        let (z, stats) = solved_by_passes(&mut d, &p);
        assert_eq!(
            (stats.rounds, stats.pivots),
            (1, 0),
            "boxes {boxes}: {stats:?}"
        );
        assert!(stats.block_guesses >= 1, "boxes {boxes}: {stats:?}");
        let mut pivoting = Dantzig::new(DantzigParams {
            block_guess_from: usize::MAX,
            ..DantzigParams::default()
        });
        let (z_pivoting, by_pivots) = solved_by_passes(&mut pivoting, &p);
        assert!(by_pivots.pivots > 0, "boxes {boxes}");
        // Stated tolerance: the velocities of two certified answers (the
        // forces of redundant contacts are not unique) within 1e-10.
        let (dv, dv_pivoting) = (c.velocity_change(&z), c.velocity_change(&z_pivoting));
        assert!(dist(&dv, &dv_pivoting) <= 1e-10, "boxes {boxes}");
    }
}

#[test]
fn a_sliding_stack_settles_once_a_pass_keeps_its_clamped_set() {
    // 5 boxes of 2 kg (n = 60), mu = 0.9, sliding together at 1 m/s along
    // x: every contact needs friction, so the first pass does not certify
    // and the radii converge linearly over the passes (without the coupled
    // guess from a repeated clamped set: `CouplingLimit` after 50 passes,
    // measured). Once a pass takes no pivot, the coupled guess from its
    // clamped set jumps to the fixed point (measured: 4 passes).
    let mut c = Contacts::default();
    let (mut lo, mut hi, mut cp) = (vec![], vec![], vec![]);
    for body in 0..5_usize {
        c.inv_mass.push(box_inv_mass(2.0, HALF));
        let below = body.checked_sub(1);
        add_box_contacts(&mut c, &mut lo, &mut hi, &mut cp, body, below, HALF, 0.9);
    }
    let v: Vec<f64> = (0..5)
        .flat_map(|_| [1.0, 0.0, -0.1, 0.0, 0.0, 0.0])
        .collect();
    let m = c.dense();
    let p = BoxLcp::with_bounds(Lcp::new(m, c.q_of(&v)).unwrap(), bounds(lo, hi, cp)).unwrap();
    let mut d = Dantzig::default();
    let (z, stats) = solved_by_passes(&mut d, &p);
    assert!(stats.rounds >= 2 && stats.rounds <= 10, "{stats:?}");
    // Friction is needed: some friction row is at its bound, nonzero.
    assert!(some_contact_slides(&p, &z), "no sliding contact");
    // Lemke on the standard form: the same velocities.
    let by_lemke = Lemke::default().solve_box(&p).unwrap();
    assert!(by_lemke.report.is_solution(1e-10), "{:?}", by_lemke.report);
    let dv = c.velocity_change(&z);
    let dv_lemke = c.velocity_change(&by_lemke.z);
    assert!(dist(&dv, &dv_lemke) <= 1e-8, "{}", dist(&dv, &dv_lemke));
    // The restart (coupled guess from a pass's states) reuses the
    // workspace too: repeated solves touch no allocator, same answer.
    let mut out = contact_lcp::LcpSolution::default();
    d.solve_into(&p, &mut out).unwrap();
    let info = allocation_counter::measure(|| {
        for _ in 0..2 {
            d.solve_into(&p, &mut out).unwrap();
        }
    });
    assert_eq!(info.count_total, 0, "{info:?}");
    assert_eq!((out.z, *d.last_stats()), (z, stats));
}

#[test]
fn sliding_stacks_of_twenty_boxes_are_solved_by_the_passes() {
    // Random sliding 20-box stacks (n = 240): every pass after the first
    // starts the block guess from the states of the pass before. Measured
    // on seed 2: 6 passes and 676 pivots; with the pivoting alone in those
    // passes 7 passes and 1795 pivots, so that the policy's capped attempt
    // (then n + 20 pivots a pass) ran out and Lemke answered, 4-6x slower.
    // With the relaxed radii: 10 passes, 913 pivots; the capped attempt
    // now has 10 n pivots over all passes. One seed here (6 s
    // unoptimised).
    let seed = 2;
    let (_, p) = random_stack(&mut Rng::new(seed), 20, true);
    let (_, stats) = solved_by_passes(&mut Dantzig::default(), &p);
    assert!(stats.pivots < 1000, "seed {seed}: {stats:?}");
    let by_policy = Solver::default().solve(&p).unwrap();
    assert_eq!(by_policy.method, Method::Dantzig, "seed {seed}");
    assert!(by_policy.report.is_solution(1e-10), "seed {seed}");
}

#[test]
fn oscillating_radii_settle_once_relaxed() {
    // Seed 11 of the sliding 20-box stacks: taking each pass's radii
    // mu z_j as they come, the passes flip between two sets of sliding
    // contacts (15 and 40 friction rows at their bounds, the radii moving
    // by 6-13 % of ||z|| a pass) and did not settle in 50 passes; with
    // Aitken's relaxation of the radii they settle in 13. The answer is
    // checked against the coupled problem itself.
    let (_, p) = random_stack(&mut Rng::new(11), 20, true);
    let (z, stats) = solved_by_passes(&mut Dantzig::default(), &p);
    assert!(stats.rounds <= 20, "{stats:?}");
    assert!(some_contact_slides(&p, &z), "no sliding contact");
}

#[test]
fn a_pivot_budget_over_all_passes_stops_the_solve() {
    // The policy bounds its first Dantzig attempt by pivots over all the
    // coupling passes: on a sliding stack that takes hundreds, a budget of
    // 150 stops the solve with its best iterate attached.
    let (_, p) = random_stack(&mut Rng::new(11), 20, true);
    let mut capped = Dantzig::new(DantzigParams {
        max_total_pivots: 150,
        ..DantzigParams::default()
    });
    match capped.solve(&p) {
        Err(contact_lcp::LcpError::PivotLimit { pivots, best }) => {
            assert!(pivots <= 150, "{pivots}");
            assert!(best.is_some_and(|b| b.z.len() == p.dim()));
        }
        other => panic!("expected PivotLimit, got {other:?}"),
    }
}

#[test]
fn a_tower_of_twenty_is_solved_by_lemke_in_one_path() {
    // 20 boxes, n = 240. Dantzig needs many coupling passes here (measured:
    // its coupled guess hands over, then 29 passes and 963 pivots; on the
    // benches' towers of 20 cubes the passes never settle); Lemke's single
    // path on the standard form must certify.
    let mut rng = Rng::new(53);
    let (c, p) = random_stack(&mut rng, 20, true);
    let sol = Lemke::default().solve_box(&p).unwrap();
    assert!(sol.report.is_solution(1e-10), "{:?}", sol.report);
    assert_eq!(sol.report.z_violation, 0.0, "coupling exact");
    // Physics: the 4 corner offsets of a face sum to (0, 0, +-4c), so the
    // mean normal velocity of a face's contacts is the relative vertical
    // velocity of its two boxes; with every contact separating or resting
    // (w >= 0), each box ends at least as fast upward as the one below,
    // and the bottom one at least 0: every box stops falling (v_z = -0.1
    // before the step).
    let dv = c.velocity_change(&sol.z);
    for b in 0..20 {
        let vz = -0.1 + dv[6 * b + 2];
        assert!(vz >= -1e-9, "box {b}: v_z {vz}");
    }
}

#[test]
fn a_resting_tower_certifies_after_its_first_coupling_pass() {
    // 12 boxes falling straight at 0.1 (no sliding, no spin): the contact
    // impulses stop the fall and no friction is needed, so the first pass
    // (normals, friction held at 0) is already a solution of the coupled
    // problem; the passes must stop there (before the certified stop they
    // went on while the radii moved at round-off: 32 passes on the peers'
    // 20-box friction stack, `CouplingLimit` on the 50-box one). The guess
    // is off, so the passes are what is tested.
    let mut rng = Rng::new(59);
    let (c, p) = random_stack(&mut rng, 12, true);
    let v: Vec<f64> = (0..12)
        .flat_map(|_| [0.0, 0.0, -0.1, 0.0, 0.0, 0.0])
        .collect();
    let p =
        BoxLcp::with_bounds(Lcp::new(c.dense(), c.q_of(&v)).unwrap(), p.bounds().clone()).unwrap();
    let mut d = Dantzig::new(DantzigParams {
        block_guess_from: usize::MAX,
        ..DantzigParams::default()
    });
    let sol = d.solve(&p).unwrap();
    let check = verify_box(&p, &sol.z, &sol.w);
    assert!(check.is_solution(1e-10), "{check:?}");
    assert_eq!(check.z_violation, 0.0, "coupling exact");
    assert_eq!(d.last_stats().rounds, 1, "{:?}", d.last_stats());
    // The same velocities as Lemke's single path (w is unique for PSD M
    // only without coupling, so compare the bodies' velocity change).
    let by_lemke = Lemke::default().solve_box(&p).unwrap();
    assert!(by_lemke.report.is_solution(1e-10), "{:?}", by_lemke.report);
    let dv = c.velocity_change(&sol.z);
    let dv_lemke = c.velocity_change(&by_lemke.z);
    assert!(dist(&dv, &dv_lemke) <= 1e-8, "{}", dist(&dv, &dv_lemke));
    // With the defaults the block guess
    // solves the first pass (no pivot), and the coupled guess, tried only
    // after a first pass that does not certify, is not tried. The normal
    // forces of a stack are not unique, its velocities are.
    let mut with_guess = Dantzig::default();
    let by_default = with_guess.solve(&p).unwrap();
    let stats = *with_guess.last_stats();
    assert_eq!((stats.rounds, stats.pivots), (1, 0), "{stats:?}");
    assert!(stats.block_guesses >= 1, "{stats:?}");
    let check = verify_box(&p, &by_default.z, &by_default.w);
    assert!(check.is_solution(1e-10), "{check:?}");
    assert_eq!(check.z_violation, 0.0, "coupling exact");
    let dv_default = c.velocity_change(&by_default.z);
    assert!(
        dist(&dv_default, &dv_lemke) <= 1e-8,
        "{}",
        dist(&dv_default, &dv_lemke)
    );
}

#[test]
fn the_factor_is_updated_not_rebuilt() {
    // Every pivot changes the clamped set by exactly one append, one removal
    // or one refused append, plus at most one append per driven row that was
    // already complementary; the pivoting (block guess off) never
    // rebuilds the factor.
    let mut rng = Rng::new(47);
    let (_, p) = random_stack(&mut rng, 4, false);
    let mut d = Dantzig::new(DantzigParams {
        record_trace: true,
        block_guess_from: usize::MAX,
        ..DantzigParams::default()
    });
    let sol = d.solve(&p).unwrap();
    let s = *d.last_stats();
    assert_eq!(s.pivots, sol.pivots);
    assert_eq!(d.last_trace().len(), s.pivots);
    assert!(s.appends + s.removals + s.rejections >= s.pivots);
    assert!(s.appends + s.removals + s.rejections <= s.pivots + p.dim());
    assert!(s.pivots <= 2 * p.dim(), "{s:?}");
}
