//! Guards the Dantzig solver on non-symmetric problems, which dynamic
//! (sliding) friction makes (Baraff 1994 sec. 5-6: the friction force of a
//! sliding contact is -mu f_n along its sliding direction, substituted into
//! the normal force's column): a box sliding on a plane against the closed
//! form, random non-symmetric P-matrix LCPs against brute force, and
//! Painleve's configuration (no solution) as a typed error, not a loop.

mod common;

use common::contacts::{Contacts, block, box_inv_mass};
use common::{Rng, assert_is_the_unique_solution, brute_force, dist, random_p_matrix};
use contact_lcp::faer::Mat;
use contact_lcp::{BoxLcp, Dantzig, Lcp, LcpError, Lemke, LemkeParams, Method};

const G: f64 = 9.81;
const H: f64 = 0.01;

#[test]
fn a_sliding_box_decelerates_at_mu_g_with_every_contact_sliding() {
    // Box (half extents a, b, c) on static ground sliding along +x at 1 m/s,
    // 4 corner contacts, each with dynamic friction -mu f_n x. Closed form
    // (the box stays flat: c mu = 0.1 <= a): total normal impulse m g h and
    // a velocity change of -mu g h along x, none along z. Four contacts on
    // one face make M singular as well as non-symmetric.
    let (half, mass, mu) = ([0.5, 0.3, 0.2], 2.0, 0.5);
    let inv = box_inv_mass(mass, half);
    let mut normals = Contacts {
        inv_mass: vec![inv],
        rows: vec![],
    };
    let mut forces = normals.clone();
    let [a, b, c] = half;
    for (x, y) in [(a, b), (-a, b), (-a, -b), (a, -b)] {
        let r = [x, y, -c];
        normals
            .rows
            .push([Some(block(0, r, [0.0, 0.0, 1.0], 1.0)), None]);
        forces
            .rows
            .push([Some(block(0, r, [-mu, 0.0, 1.0], 1.0)), None]);
    }
    let m = normals.coupled_dense(&forces);
    let v_free = [1.0, 0.0, -G * H, 0.0, 0.0, 0.0];
    let q = normals.q_of(&v_free);
    let lcp = Lcp::new(m, q).unwrap();
    let sol = Dantzig::default().solve(&BoxLcp::from_lcp(&lcp)).unwrap();
    assert_eq!(sol.method, Method::Dantzig);
    assert!(sol.report.is_solution(1e-12), "{:?}", sol.report);
    let total: f64 = sol.z.iter().sum();
    assert!(
        (total - mass * G * H).abs() <= 1e-12 * mass * G * H,
        "{total}"
    );
    let dv = forces.velocity_change(&sol.z);
    assert!((v_free[0] + dv[0] - (1.0 - mu * G * H)).abs() <= 1e-12);
    assert!((v_free[2] + dv[2]).abs() <= 1e-12);
    assert!(dv[3].abs() <= 1e-12 && dv[4].abs() <= 1e-12);
    // Lemke on the same LCP: another path to the same velocities.
    let reference = Lemke::new(LemkeParams::default()).solve(&lcp).unwrap();
    assert!(dist(&forces.velocity_change(&reference.z), &dv) <= 1e-12);
}

#[test]
fn random_non_symmetric_p_matrix_lcps_match_brute_force() {
    let mut rng = Rng::new(0x51D1_0001);
    let mut dantzig = Dantzig::default();
    for trial in 0..300 {
        let n = 1 + trial % 7;
        let m = random_p_matrix(&mut rng, n);
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let lcp = Lcp::new(m, q).unwrap();
        let sol = dantzig.solve(&BoxLcp::from_lcp(&lcp)).unwrap();
        assert!(
            sol.report.is_solution(1e-12),
            "trial {trial}: {:?}",
            sol.report
        );
        // P-matrix: exactly one solution.
        assert_is_the_unique_solution(&sol.z, &brute_force(&lcp), trial);
    }
}

#[test]
fn painleves_rod_has_no_solution_and_says_so() {
    // A thin rod (length 1, mass 1) leaning at 30 degrees from the ground,
    // its lower end on the ground (its upper end towards +x), the end
    // sliding along -x, away from the upper end, while falling. With mu = 3 the friction force at the end turns the
    // rod so that pushing up makes the end go down: the effective normal
    // mass n' W (n + mu x) is negative (checked), and with q < 0 no normal
    // impulse z >= 0 can give w >= 0: no solution (Painleve's paradox).
    let (len, mass, mu) = (1.0_f64, 1.0, 3.0);
    let theta = 30f64.to_radians();
    let inertia = mass * len * len / 12.0;
    let inv = [
        1.0 / mass,
        1.0 / mass,
        1.0 / mass,
        1.0 / inertia,
        1.0 / inertia,
        1.0 / inertia,
    ];
    // Lower end relative to the centre: down and back along the rod.
    let r = [-0.5 * len * theta.cos(), 0.0, -0.5 * len * theta.sin()];
    let normals = Contacts {
        inv_mass: vec![inv],
        rows: vec![[Some(block(0, r, [0.0, 0.0, 1.0], 1.0)), None]],
    };
    let forces = Contacts {
        inv_mass: vec![inv],
        rows: vec![[Some(block(0, r, [mu, 0.0, 1.0], 1.0)), None]],
    };
    let m = normals.coupled_dense(&forces);
    assert!(
        m[(0, 0)] < 0.0,
        "the configuration is not Painleve's: {}",
        m[(0, 0)]
    );
    let q = normals.q_of(&[-1.0, 0.0, -1.0, 0.0, 0.0, 0.0]);
    assert!(q[0] < 0.0);
    let lcp = Lcp::new(m, q).unwrap();
    let err = Dantzig::default()
        .solve(&BoxLcp::from_lcp(&lcp))
        .unwrap_err();
    assert!(
        matches!(err, LcpError::NoSolutionOnPath { row: 0, .. }),
        "{err:?}"
    );
}

#[test]
fn a_removal_that_would_leave_a_singular_block_is_reported() {
    // M = [[1, 1, 0], [-1, 0, -1], [0, 0, 1]]: along the pivoting path row 0
    // must leave C = {0, 1} while row 1 alone is singular (M_11 = 0); the
    // inverse used to fill with infinities there. With q = (-2, 1, -10)
    // there is no solution (z_2 = 10 forces w_1 = -z_0 - 9 < 0; brute force
    // agrees): a typed error with a finite best iterate. With q_2 = -0.5
    // the same matrix has one, and it is found.
    let m = Mat::from_fn(3, 3, |i, j| {
        [[1.0, 1.0, 0.0], [-1.0, 0.0, -1.0], [0.0, 0.0, 1.0]][i][j]
    });
    let none = Lcp::new(m.clone(), vec![-2.0, 1.0, -10.0]).unwrap();
    assert!(brute_force(&none).is_empty());
    match Dantzig::default().solve(&BoxLcp::from_lcp(&none)) {
        Err(LcpError::NoSolutionOnPath { best, .. }) => {
            let best = best.expect("a best iterate");
            assert!(best.z.iter().chain(&best.w).all(|x| x.is_finite()));
        }
        other => panic!("expected NoSolutionOnPath, got {other:?}"),
    }
    let some = Lcp::new(m, vec![-2.0, 1.0, -0.5]).unwrap();
    let all = brute_force(&some);
    let sol = Dantzig::default().solve(&BoxLcp::from_lcp(&some)).unwrap();
    assert!(sol.report.is_solution(1e-12), "{:?}", sol.report);
    assert!(
        all.iter().any(|s| dist(s, &sol.z) <= 1e-12),
        "{:?} not in {all:?}",
        sol.z
    );
}

#[test]
fn non_symmetric_answers_certify_or_are_typed_errors() {
    // Random low-rank non-symmetric LCPs (M = A' B with B near A): many
    // have no solution and some pivoting paths cannot finish. Every `Ok`
    // must certify; everything else must be a typed error with a best
    // iterate. (Before the final check, 119 of 20 000 such problems came
    // back `Ok` with a wrong-signed w.)
    let mut rng = Rng::new(0x51D1_0002);
    let mut dantzig = Dantzig::default();
    let (mut solved, mut refused) = (0, 0);
    for trial in 0..3000 {
        let n = 2 + trial % 6;
        let r = 1 + trial % 4;
        let a = rng.mat(r, n, -1.0, 1.0);
        let b = Mat::from_fn(r, n, |t, j| a[(t, j)] + 0.6 * rng.range(-1.0, 1.0));
        let m: Mat<f64> = a.transpose() * &b;
        let q: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
        let p = BoxLcp::from_lcp(&Lcp::new(m, q).unwrap());
        match dantzig.solve(&p) {
            Ok(sol) => {
                assert!(
                    sol.report.is_solution(1e-9),
                    "trial {trial}: {:?}",
                    sol.report
                );
                solved += 1;
            }
            Err(LcpError::NoSolutionOnPath { best, .. } | LcpError::PivotLimit { best, .. }) => {
                assert!(best.is_some(), "trial {trial}");
                refused += 1;
            }
            Err(e) => panic!("trial {trial}: unexpected {e:?}"),
        }
    }
    // Both outcomes occur, so the check is exercised.
    assert!(
        solved > 1000 && refused > 100,
        "{solved} solved, {refused} refused"
    );
}
