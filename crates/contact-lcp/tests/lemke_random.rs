//! Guards Lemke's answers on seeded random problems of the classes it must
//! solve, against a brute-force enumeration of all 2^n complementary sets.

mod common;

use common::{
    Rng, brute_force, dist, feasible_q, random_friction_form, random_p_matrix, random_pd,
    random_psd,
};
use contact_lcp::faer::Mat;
use contact_lcp::{Lcp, LcpError, Lemke, LemkeParams, verify};

const TOL: f64 = 1e-9;

/// Solves with Lemke and asserts the certificate; returns z.
#[track_caller]
fn solve_certified(lemke: &mut Lemke, lcp: &Lcp, what: &str) -> Vec<f64> {
    let sol = match lemke.solve(lcp) {
        Ok(sol) => sol,
        Err(e) => panic!(
            "{what}: Lemke failed: {e}\nM = {:?}\nq = {:?}",
            lcp.m(),
            lcp.q()
        ),
    };
    assert!(
        sol.report.is_solution(TOL),
        "{what}: not a solution: {:?}",
        sol.report
    );
    // The attached report is what `verify` says about (z, w).
    assert_eq!(verify(lcp, &sol.z, &sol.w), sol.report);
    sol.z
}

/// For a P-matrix the solution is unique: Lemke's must equal brute force's.
#[track_caller]
fn assert_unique_solution(lemke: &mut Lemke, lcp: &Lcp, what: &str) {
    let z = solve_certified(lemke, lcp, what);
    let all = brute_force(lcp);
    assert_eq!(
        all.len(),
        1,
        "{what}: a P-matrix LCP has exactly one solution: {all:?}"
    );
    let zmax = z.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
    assert!(
        dist(&z, &all[0]) <= 1e-9 * zmax,
        "{what}: lemke {z:?} vs brute force {:?}",
        all[0]
    );
}

#[test]
fn positive_definite_matches_brute_force() {
    let mut rng = Rng::new(1);
    let mut lemke = Lemke::default();
    for n in 1..=10 {
        for rep in 0..8 {
            let m = random_pd(&mut rng, n);
            let q = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
            let lcp = Lcp::new(m, q).unwrap();
            assert_unique_solution(&mut lemke, &lcp, &format!("pd n={n} rep={rep}"));
        }
    }
}

#[test]
fn nonsymmetric_p_matrix_matches_brute_force() {
    let mut rng = Rng::new(2);
    let mut lemke = Lemke::default();
    for n in 1..=10 {
        for rep in 0..8 {
            let m = random_p_matrix(&mut rng, n);
            let q = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
            let lcp = Lcp::new(m, q).unwrap();
            assert_unique_solution(&mut lemke, &lcp, &format!("p-matrix n={n} rep={rep}"));
        }
    }
}

#[test]
fn p_matrix_with_degenerate_q_matches_brute_force() {
    // Many zeros in q: the lexicographic rule is what avoids cycling here.
    let mut rng = Rng::new(3);
    let mut lemke = Lemke::default();
    for n in 2..=10 {
        for rep in 0..8 {
            let m = random_p_matrix(&mut rng, n);
            let q = (0..n)
                .map(|_| match rng.below(3) {
                    0 => -1.0,
                    1 => 0.0,
                    _ => rng.range(-1.0, 1.0),
                })
                .collect();
            let lcp = Lcp::new(m, q).unwrap();
            assert_unique_solution(
                &mut lemke,
                &lcp,
                &format!("degenerate p-matrix n={n} rep={rep}"),
            );
        }
    }
}

#[test]
fn rank_deficient_psd_is_solved() {
    let mut rng = Rng::new(4);
    let mut lemke = Lemke::default();
    for n in 2..=10 {
        for rep in 0..8 {
            let k = 1 + rng.below(n - 1);
            let m = random_psd(&mut rng, n, k);
            let (q, _) = feasible_q(&mut rng, &m);
            let lcp = Lcp::new(m, q).unwrap();
            solve_certified(&mut lemke, &lcp, &format!("psd n={n} k={k} rep={rep}"));
            if n <= 8 {
                assert!(
                    !brute_force(&lcp).is_empty(),
                    "psd n={n}: brute force agrees a solution exists"
                );
            }
        }
    }
}

#[test]
fn friction_form_copositive_plus_is_solved() {
    let mut rng = Rng::new(5);
    let mut lemke = Lemke::default();
    for a in 1..=6 {
        for b in 1..=4 {
            for rep in 0..4 {
                let k = 1 + rng.below(a);
                let m = random_friction_form(&mut rng, a, b, k);
                let (q, _) = feasible_q(&mut rng, &m);
                let lcp = Lcp::new(m, q).unwrap();
                solve_certified(
                    &mut lemke,
                    &lcp,
                    &format!("friction form a={a} b={b} k={k} rep={rep}"),
                );
            }
        }
    }
}

#[test]
fn infeasible_copositive_plus_ends_on_a_ray() {
    // Friction form with q chosen at random, not made feasible: for
    // copositive-plus M, Lemke ends on a ray exactly when no solution exists,
    // so it must agree with brute force both ways.
    let mut rng = Rng::new(6);
    let mut lemke = Lemke::default();
    let (mut solved, mut rays) = (0, 0);
    for rep in 0..200 {
        let (a, b) = (1 + rng.below(4), 1 + rng.below(4));
        let k = 1 + rng.below(a);
        let m = random_friction_form(&mut rng, a, b, k);
        let q = (0..a + b).map(|_| rng.range(-1.0, 1.0)).collect();
        let lcp = Lcp::new(m, q).unwrap();
        let exists = !brute_force(&lcp).is_empty();
        match lemke.solve(&lcp) {
            Ok(sol) => {
                assert!(sol.report.is_solution(TOL), "rep={rep}: {:?}", sol.report);
                solved += 1;
            }
            Err(LcpError::RayTermination { best, .. }) => {
                assert!(!exists, "rep={rep}: ray, but brute force found a solution");
                assert!(best.is_some());
                rays += 1;
            }
            Err(e) => panic!("rep={rep}: {e}"),
        }
    }
    assert!(
        solved > 20 && rays > 20,
        "both outcomes exercised: {solved} solved, {rays} rays"
    );
}

/// One rigid body (6 dof, linear then angular) touching the world at `p`
/// points, each with a polyhedral friction cone of 4 directions: the
/// Anitescu-Potra LCP (Cline eq. 2.47-2.49) in z = (c_n, beta, lambda):
///
/// ```text
/// M = [ N W N'   N W D'   0  ]      q = [ N v ]
///     [ D W N'   D W D'   E  ]          [ D v ]
///     [ mu       -E'      0  ]          [ 0   ]
/// ```
///
/// always solvable (Anitescu and Potra 1997).
fn anitescu_potra(rng: &mut Rng, p: usize) -> Lcp {
    let k = 4;
    let mass = rng.range(0.5, 5.0);
    let inertia: Vec<f64> = (0..3).map(|_| rng.range(0.05, 1.0)).collect();
    let w_inv: Vec<f64> = [1.0 / mass; 3]
        .into_iter()
        .chain(inertia.iter().map(|i| 1.0 / i))
        .collect();
    let mut rows: Vec<[f64; 6]> = Vec::new(); // p normal rows then p*k friction rows
    let mut normals = Vec::new();
    let mut points = Vec::new();
    for _ in 0..p {
        // Points below the centre of mass, normals tilted up to ~25 degrees.
        let r = [
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, -0.2),
        ];
        let nrm = normalize([rng.range(-0.4, 0.4), rng.range(-0.4, 0.4), 1.0]);
        points.push(r);
        normals.push(nrm);
    }
    let row = |r: [f64; 3], d: [f64; 3]| {
        let c = cross(r, d);
        [d[0], d[1], d[2], c[0], c[1], c[2]]
    };
    for i in 0..p {
        rows.push(row(points[i], normals[i]));
    }
    for i in 0..p {
        let t1 = normalize(cross(normals[i], [1.0, 0.0, 0.0]));
        let t2 = cross(normals[i], t1);
        for d in [t1, t2, neg(t1), neg(t2)] {
            rows.push(row(points[i], d));
        }
    }
    let v: Vec<f64> = (0..6).map(|_| rng.range(-1.0, 1.0)).collect();
    let nj = rows.len(); // p + p k
    let n = nj + p;
    let mu: Vec<f64> = (0..p).map(|_| rng.range(0.1, 1.0)).collect();
    let mut m = Mat::<f64>::zeros(n, n);
    for a in 0..nj {
        for b in 0..nj {
            m[(a, b)] = (0..6).map(|s| rows[a][s] * w_inv[s] * rows[b][s]).sum();
        }
    }
    for i in 0..p {
        for d in 0..k {
            let f = p + i * k + d;
            m[(f, nj + i)] = 1.0; // E
            m[(nj + i, f)] = -1.0; // -E'
        }
        m[(nj + i, i)] = mu[i];
    }
    let mut q = vec![0.0; n];
    for a in 0..nj {
        q[a] = (0..6).map(|s| rows[a][s] * v[s]).sum();
    }
    Lcp::new(m, q).unwrap()
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn neg(a: [f64; 3]) -> [f64; 3] {
    [-a[0], -a[1], -a[2]]
}

fn normalize(a: [f64; 3]) -> [f64; 3] {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

#[test]
fn anitescu_potra_contact_problems_are_solved() {
    // Up to 12 contacts (n = 72): redundant contacts make N W N' singular.
    let mut rng = Rng::new(7);
    let mut lemke = Lemke::default();
    for p in 1..=12 {
        for rep in 0..10 {
            let lcp = anitescu_potra(&mut rng, p);
            solve_certified(&mut lemke, &lcp, &format!("anitescu-potra p={p} rep={rep}"));
        }
    }
}

#[test]
fn anitescu_potra_small_agree_with_brute_force_existence() {
    let mut rng = Rng::new(8);
    let mut lemke = Lemke::default();
    for rep in 0..10 {
        let lcp = anitescu_potra(&mut rng, 1); // n = 6
        solve_certified(&mut lemke, &lcp, &format!("anitescu-potra p=1 rep={rep}"));
        assert!(!brute_force(&lcp).is_empty());
    }
}

#[test]
fn frequent_refactorisation_gives_the_same_answers() {
    // Refactorising every pivot and never refactorising must both work; the
    // answers agree to rounding.
    let mut rng = Rng::new(9);
    let every = LemkeParams {
        refactor_interval: 1,
        ..LemkeParams::default()
    };
    let never = LemkeParams {
        refactor_interval: 0,
        ..LemkeParams::default()
    };
    let (mut a, mut b) = (Lemke::new(every), Lemke::new(never));
    for rep in 0..20 {
        let lcp = anitescu_potra(&mut rng, 1 + rep % 8);
        let za = solve_certified(&mut a, &lcp, "refactor every pivot");
        let zb = solve_certified(&mut b, &lcp, "never refactor");
        let zmax = za.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
        // Not unique in general (singular M), but the pivot sequence is the same here.
        assert!(dist(&za, &zb) <= 1e-8 * zmax, "rep={rep}: {za:?} vs {zb:?}");
    }
}
