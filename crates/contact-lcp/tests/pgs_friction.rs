//! Guards projected Gauss-Seidel on friction-coupled contact problems: a box
//! pushed sideways on a plane against Coulomb's closed form (sticking below
//! mu m g, sliding with |f_t| = mu f_n above), and the matrix-free form on
//! M = J W J' against the dense form of the same problem.

mod common;

use common::contacts::{Contacts, block, random_stack, resting_box};
use common::{Rng, dist};
use contact_lcp::faer::Mat;
use contact_lcp::{
    BoxBounds, BoxLcp, ContactOperator, JacobianBlock, Lcp, LcpError, PgsParams,
    ProjectedGaussSeidel, verify_box,
};

const HALF: [f64; 3] = [0.5, 0.3, 0.2];
const MASS: f64 = 2.0;
const G: f64 = 9.81;
const H: f64 = 0.01;
const MU: f64 = 0.5;

/// A box at rest on static ground, 4 corner contacts with a normal and two
/// friction rows each, pushed along +x by `push` (newtons) at its centre of
/// mass for one step H: the impulse LCP `w = J (v_free + W J' z)`, with
/// `v_free = H W f_ext`.
fn pushed_box(push: f64) -> (Contacts, Vec<f64>, BoxBounds, Vec<f64>) {
    let (c, b) = resting_box(MASS, HALF, MU);
    let v_free = vec![H * push / MASS, 0.0, -H * G, 0.0, 0.0, 0.0];
    let q = c.q_of(&v_free);
    (c, q, b, v_free)
}

fn params() -> PgsParams {
    PgsParams {
        omega: 1.0,
        tolerance: 1e-10,
        max_sweeps: 100_000,
    }
}

/// Checks the closed form: total normal impulse m g h; total friction
/// impulse -F h (sticking) or -mu m g h (sliding); body velocity after the
/// step 0 (sticking) or (h (F - mu m g) / m, 0, 0, 0, 0, 0) (sliding,
/// provided c mu <= a so the box does not tip: 0.1 <= 0.5 here).
fn check_coulomb(push: f64, z: &[f64], c: &Contacts, v_free: &[f64]) {
    let (mut fn_sum, mut fx_sum, mut fy_sum) = (0.0, 0.0, 0.0);
    for k in 0..4 {
        fn_sum += z[3 * k];
        fx_sum += z[3 * k + 1];
        fy_sum += z[3 * k + 2];
    }
    let dv = c.velocity_change(z);
    let v: Vec<f64> = v_free.iter().zip(&dv).map(|(a, b)| a + b).collect();
    let tol = 1e-7;
    assert!((fn_sum - MASS * G * H).abs() <= tol, "normal {fn_sum}");
    assert!(fy_sum.abs() <= tol, "fy {fy_sum}");
    let sliding = push > MU * MASS * G;
    if sliding {
        assert!((fx_sum + MU * MASS * G * H).abs() <= tol, "fx {fx_sum}");
        let vx = H * (push - MU * MASS * G) / MASS;
        assert!((v[0] - vx).abs() <= tol, "v {v:?}");
        // Every contact slides: its x friction is at -mu f_n.
        for k in 0..4 {
            assert!(
                (z[3 * k + 1] + MU * z[3 * k]).abs() <= tol,
                "contact {k}: {z:?}"
            );
        }
    } else {
        assert!((fx_sum + push * H).abs() <= tol, "fx {fx_sum}");
        assert!(v[0].abs() <= tol, "v {v:?}");
    }
    for (k, vk) in v.iter().enumerate().skip(1) {
        assert!(vk.abs() <= tol, "v[{k}] = {vk}");
    }
}

#[test]
fn pushed_box_sticks_then_slides_as_coulomb_says() {
    // mu m g = 9.81 N.
    let mut pgs = ProjectedGaussSeidel::new(params());
    for push in [0.0, 3.0, 9.0, 10.5, 20.0] {
        let (c, q, b, v_free) = pushed_box(push);
        let dense =
            BoxLcp::with_bounds(Lcp::new(c.dense(), q.clone()).unwrap(), b.clone()).unwrap();
        let sol = pgs.solve(&dense, None).unwrap();
        assert!(
            sol.report.is_solution(1e-8),
            "push {push}: {:?}",
            sol.report
        );
        check_coulomb(push, &sol.z, &c, &v_free);
        let free = pgs.solve_matrix_free(&c, &q, &b, None).unwrap();
        assert!(
            free.report.is_solution(1e-8),
            "push {push}: {:?}",
            free.report
        );
        check_coulomb(push, &free.z, &c, &v_free);
        // Coupled bounds hold exactly at the returned z (up to rounding).
        for k in 0..4 {
            for t in 1..3 {
                assert!(free.z[3 * k + t].abs() <= MU * free.z[3 * k] * (1.0 + 1e-12));
            }
        }
    }
}

#[test]
fn matrix_free_equals_dense_on_the_same_problem() {
    // Same iteration on the same M, so the same iterates up to rounding: the
    // answers agree far below the tolerance even though M is singular (4
    // contacts per face) and z is not unique.
    let mut rng = Rng::new(31);
    let mut pgs = ProjectedGaussSeidel::new(PgsParams {
        tolerance: 1e-9,
        ..params()
    });
    for boxes in [1, 2, 4] {
        let (c, p) = random_stack(&mut rng, boxes, true);
        let (q, b) = (p.q(), p.bounds());
        let dense = pgs.solve(&p, None).unwrap();
        let free = pgs.solve_matrix_free(&c, q, b, None).unwrap();
        assert!(dense.report.is_solution(1e-7), "{:?}", dense.report);
        assert_eq!(dense.iterations, free.iterations, "boxes = {boxes}");
        let zmax = dense.z.iter().fold(1e-3_f64, |a, x| a.max(x.abs()));
        assert!(dist(&dense.z, &free.z) <= 1e-9 * zmax, "boxes = {boxes}");
        assert!(dist(&dense.w, &free.w) <= 1e-9);
        // The matrix-free report is the dense certificate of the same z.
        let check = verify_box(&p, &free.z, &free.w);
        assert!(check.is_solution(1e-7), "{check:?}");
        assert!(
            (check.scaled_natural_residual() - free.report.scaled_natural_residual()).abs() <= 1e-9
        );
        // Warm start from the answer: one sweep.
        let warm = pgs.solve_matrix_free(&c, q, b, Some(&free.z)).unwrap();
        assert_eq!(warm.iterations, 1);
    }
}

/// An operator with one body and one row, whose parts can be broken.
struct Broken {
    block: JacobianBlock,
    inv_mass: f64,
}

impl ContactOperator for Broken {
    fn rows(&self) -> usize {
        1
    }
    fn bodies(&self) -> usize {
        1
    }
    fn jacobian(&self, _row: usize) -> [Option<JacobianBlock>; 2] {
        [None, Some(self.block)]
    }
    fn inverse_mass(&self, _body: usize) -> [[f64; 6]; 6] {
        std::array::from_fn(|r| std::array::from_fn(|c| if r == c { self.inv_mass } else { 0.0 }))
    }
}

#[test]
fn matrix_free_input_errors_name_the_culprit() {
    let mut pgs = ProjectedGaussSeidel::default();
    let b = BoxBounds::unilateral(1);
    let ok = Broken {
        block: block(0, [0.0; 3], [0.0, 0.0, 1.0], 1.0),
        inv_mass: 1.0,
    };
    let sol = pgs.solve_matrix_free(&ok, &[-2.0], &b, None).unwrap();
    assert_eq!(sol.z, [2.0]);
    let mut bad = Broken {
        inv_mass: f64::NAN,
        ..ok
    };
    assert_eq!(
        pgs.solve_matrix_free(&bad, &[-2.0], &b, None).unwrap_err(),
        LcpError::NonFinite {
            what: "inverse_mass",
            row: 0,
            col: 0
        }
    );
    bad.inv_mass = 0.0;
    assert_eq!(
        pgs.solve_matrix_free(&bad, &[-2.0], &b, None).unwrap_err(),
        LcpError::NonPositiveDiagonal { row: 0, value: 0.0 }
    );
    bad.inv_mass = 1.0;
    bad.block.body = 3;
    assert_eq!(
        pgs.solve_matrix_free(&bad, &[-2.0], &b, None).unwrap_err(),
        LcpError::BodyOutOfRange {
            row: 0,
            body: 3,
            bodies: 1
        }
    );
    bad.block.body = 0;
    bad.block.j[4] = f64::INFINITY;
    assert_eq!(
        pgs.solve_matrix_free(&bad, &[-2.0], &b, None).unwrap_err(),
        LcpError::NonFinite {
            what: "jacobian",
            row: 0,
            col: 4
        }
    );
    assert_eq!(
        pgs.solve_matrix_free(&ok, &[-2.0, 0.0], &b, None)
            .unwrap_err(),
        LcpError::DimensionMismatch {
            matrix: 1,
            vector: 2
        }
    );
    assert_eq!(
        pgs.solve_matrix_free(&ok, &[-2.0], &BoxBounds::unilateral(2), None)
            .unwrap_err(),
        LcpError::BadLength {
            what: "bounds",
            expected: 1,
            found: 2
        }
    );
    assert!(matches!(
        pgs.solve_matrix_free(&ok, &[f64::NAN], &b, None),
        Err(LcpError::NonFinite {
            what: "q",
            row: 0,
            ..
        })
    ));
    // The dense path reports the same diagonal problem.
    let p = BoxLcp::from_lcp(&Lcp::new(Mat::zeros(1, 1), vec![0.0]).unwrap());
    assert!(matches!(
        pgs.solve(&p, None),
        Err(LcpError::NonPositiveDiagonal { row: 0, .. })
    ));
}

#[test]
fn coupling_is_exact_when_friction_rows_come_first() {
    // The same pushed box with its rows in reverse order, so every friction
    // row is visited before its normal row: the returned z must still
    // satisfy |f_t| <= mu f_n exactly (the final projection), and Coulomb's
    // closed form.
    let mut pgs = ProjectedGaussSeidel::new(params());
    for push in [5.0, 15.0] {
        let (c, q, b, v_free) = pushed_box(push);
        let n = q.len();
        let rev = |i: usize| n - 1 - i;
        let rc = Contacts {
            inv_mass: c.inv_mass.clone(),
            rows: (0..n).map(|i| c.rows[rev(i)]).collect(),
        };
        let rq: Vec<f64> = (0..n).map(|i| q[rev(i)]).collect();
        let rb = BoxBounds::new(
            (0..n).map(|i| b.lo()[rev(i)]).collect(),
            (0..n).map(|i| b.hi()[rev(i)]).collect(),
            b.couplings()
                .iter()
                .map(|k| contact_lcp::Coupling {
                    row: rev(k.row),
                    normal_row: rev(k.normal_row),
                    mu: k.mu,
                })
                .collect(),
        )
        .unwrap();
        for sol in [
            pgs.solve_matrix_free(&rc, &rq, &rb, None).unwrap(),
            pgs.solve(
                &BoxLcp::with_bounds(Lcp::new(rc.dense(), rq.clone()).unwrap(), rb.clone())
                    .unwrap(),
                None,
            )
            .unwrap(),
        ] {
            assert_eq!(sol.report.z_violation, 0.0, "push {push}");
            assert!(sol.report.is_solution(1e-8), "{:?}", sol.report);
            let z: Vec<f64> = (0..n).map(|i| sol.z[rev(i)]).collect();
            check_coulomb(push, &z, &c, &v_free);
        }
    }
}
