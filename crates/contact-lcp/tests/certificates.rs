//! The certificates (`verify`, `verify_box`) and the problem types they
//! read, through the public API: each measure against hand-computed values,
//! bad input, and extreme scales (judged as the same problem at unit scale).

use contact_lcp::faer::{Mat, mat};
use contact_lcp::{BoxBounds, BoxLcp, Coupling, Lcp, verify, verify_box, verify_box_z, verify_z};

const INF: f64 = f64::INFINITY;

/// M = [[2, 1], [1, 2]], q = [-1, -1]: solution z = [1/3, 1/3], w = 0.
fn lcp_2x2() -> Lcp {
    Lcp::from_row_major(2, &[2.0, 1.0, 1.0, 2.0], &[-1.0, -1.0]).unwrap()
}

/// M = I (3 x 3), q = 0; row 0 in [-1, 2], row 1 bilateral, row 2 a normal
/// row; coupled: row 0's bounds become [-z_2 / 2, z_2 / 2].
fn box_3(coupled: bool) -> BoxLcp {
    let couplings = match coupled {
        true => vec![Coupling {
            row: 0,
            normal_row: 2,
            mu: 0.5,
        }],
        false => vec![],
    };
    let (lo, hi) = (vec![-1.0, -INF, 0.0], vec![2.0, INF, INF]);
    BoxLcp::new(Mat::identity(3, 3), vec![0.0; 3], lo, hi, couplings).unwrap()
}

#[test]
fn each_plain_violation_is_measured() {
    let lcp = lcp_2x2();
    let r = verify_z(&lcp, &[1.0 / 3.0, 1.0 / 3.0]);
    assert!(r.is_solution(1e-15), "{r:?}");
    assert_eq!(r.scale, 1.0);
    // z = [1, 0]: w = [1, 0]; complementarity 1, nothing negative.
    let r = verify(&lcp, &[1.0, 0.0], &[1.0, 0.0]);
    assert_eq!(r.complementarity, 1.0);
    assert_eq!((r.z_violation, r.w_violation, r.residual), (0.0, 0.0, 0.0));
    assert_eq!((r.scale, r.z_scale), (2.0, 1.0));
    assert_eq!(r.scaled_complementarity(), 0.5);
    // c = 1 / ||M|| = 1/2: min(z_0, w_0 / 2) = 1/2.
    assert_eq!(r.natural_residual, 0.5);
    // z = 0, w = q: w is negative.
    assert_eq!(verify_z(&lcp, &[0.0, 0.0]).w_violation, 1.0);
    // z negative, and a w that does not belong to z.
    let r = verify(&lcp, &[-1.0, 0.0], &[0.0, 0.0]);
    assert_eq!((r.z_violation, r.residual), (1.0, 3.0));
    assert!(!r.is_solution(1e-3));
}

#[test]
fn each_box_condition_is_measured_separately() {
    let p = box_3(false);
    let fields = |z: [f64; 3], w: [f64; 3]| {
        let r = verify_box(&p, &z, &w);
        (r.z_violation, r.w_violation, r.complementarity)
    };
    // Row 0 at its upper bound with w < 0: fine (only the residual sees
    // that w is not M z + q).
    let r = verify_box(&p, &[2.0, 0.0, 0.0], &[-3.0, 0.0, 0.0]);
    assert_eq!(
        (r.z_violation, r.w_violation, r.complementarity),
        (0.0, 0.0, 0.0)
    );
    assert_eq!((r.natural_residual, r.residual), (0.0, 5.0));
    // Row 0 past its upper bound by 1.
    assert_eq!(fields([3.0, 0.0, 0.0], [-3.0, 0.0, 0.0]), (1.0, 0.0, 3.0));
    // Row 1 bilateral with w = -0.5: a sign violation only.
    assert_eq!(fields([0.0; 3], [0.0, -0.5, 0.0]), (0.0, 0.5, 0.0));
    // Row 0 strictly inside with w = 2: complementarity (z - lo) w+ = 2.
    let r = verify_box(&p, &[0.0; 3], &[2.0, 0.0, 0.0]);
    assert_eq!(
        (r.z_violation, r.w_violation, r.complementarity),
        (0.0, 0.0, 2.0)
    );
    // Natural residual with c = 1 / ||M|| = 1: 0 - clamp(-2, -1, 2).
    assert_eq!((r.scale, r.natural_residual), (1.0, 1.0));
}

#[test]
fn coupled_bounds_use_the_given_normal_force() {
    let p = box_3(true);
    // z_2 = 2, so row 0 lives in [-1, 1]. w = z: w_0 = -1 at lo gives
    // (hi - z_0) w-_0 = 2, and w_2 = 2 off its bound (z_2 - lo) w+_2 = 4.
    let r = verify_box_z(&p, &[-1.0, 0.0, 2.0]);
    assert_eq!((r.z_violation, r.complementarity), (0.0, 4.0));
    let r = verify_box(&p, &[-1.5, 0.0, 2.0], &[1.0, 0.0, 0.0]);
    assert_eq!(r.z_violation, 0.5);
    assert!(r.residual > 0.0);
}

#[test]
fn a_plain_lcp_as_a_box_lcp_gets_the_same_report() {
    let lcp = Lcp::from_row_major(2, &[2.0, 1.0, 1.0, 2.0], &[-1.0, 1.0]).unwrap();
    let p = BoxLcp::from_lcp(&lcp);
    for (z, w) in [([0.5, 0.0], [0.0, 1.5]), ([1.0, 0.2], [1.2, 2.4])] {
        assert_eq!(verify_box(&p, &z, &w), verify(&lcp, &z, &w));
    }
}

#[test]
fn bad_input_and_overflow_give_infinite_errors() {
    let lcp = lcp_2x2();
    assert!(!verify(&lcp, &[0.0], &[0.0, 0.0]).is_solution(1.0));
    assert!(!verify(&lcp, &[0.0, 0.0], &[0.0]).is_solution(1.0));
    assert!(!verify(&lcp, &[f64::NAN, 0.0], &[0.0, 0.0]).is_solution(1.0));
    assert!(!verify(&lcp, &[0.0, 0.0], &[INF, 0.0]).is_solution(1.0));
    assert_eq!(verify_z(&lcp, &[0.0]).scaled_max(), INF);
    let p = box_3(true);
    assert!(!verify_box(&p, &[0.0; 2], &[0.0; 3]).is_solution(1.0));
    assert!(!verify_box(&p, &[0.0; 3], &[f64::NAN, 0.0, 0.0]).is_solution(1.0));
    assert!(!verify_box_z(&p, &[INF, 0.0, 0.0]).is_solution(1.0));
    // M z + q = 1e308 * 10 - 1e308 * 10 = inf - inf = NaN in row 0 for a
    // finite z: no certificate, with or without a given w.
    let lcp = Lcp::from_row_major(2, &[1e308, -1e308, 0.0, 0.0], &[0.0, 0.0]).unwrap();
    let p = BoxLcp::from_lcp(&lcp);
    let r = verify_box(&p, &[10.0, 10.0], &[0.0, 0.0]);
    assert!(!r.residual.is_finite() && !r.is_solution(1.0), "{r:?}");
    assert!(!verify(&lcp, &[10.0, 10.0], &[0.0, 0.0]).is_solution(1.0));
    assert!(!verify_z(&lcp, &[10.0, 10.0]).is_solution(1.0));
    assert!(!verify_box_z(&p, &[10.0, 10.0]).is_solution(1.0));
}

/// `M = [[5e-324]]`, `q = -M`: the solution is `z = 1`. `z = 1.4` has
/// `M z + q = 0` in f64 (one least subnormal times 1.4 rounds to one), but
/// not in truth: it is no certificate.
#[test]
fn subnormal_products_do_not_certify_a_wrong_z() {
    let lcp = Lcp::from_row_major(1, &[5e-324], &[-5e-324]).unwrap();
    assert!(verify_z(&lcp, &[1.0]).is_solution(1e-15));
    let wrong = verify(&lcp, &[1.4], &[0.0]);
    assert!(!wrong.is_solution(0.1), "{wrong:?}");
    let p = BoxLcp::from_lcp(&lcp);
    assert!(verify_box_z(&p, &[1.0]).is_solution(1e-15));
    assert!(!verify_box(&p, &[1.4], &[0.0]).is_solution(0.1));
}

/// `M = diag(1e-190)`, `q = -M 1`, and `M = 1e300 I`, `q = -1e300 (1, 2)`:
/// the scaled measures are those of the same problem at unit scale.
#[test]
fn tiny_and_huge_problems_are_judged_as_at_unit_scale() {
    let tiny = Lcp::from_row_major(2, &[1e-190, 0.0, 0.0, 1e-190], &[-1e-190; 2]).unwrap();
    let unit = Lcp::from_row_major(2, &[1.0, 0.0, 0.0, 1.0], &[-1.0; 2]).unwrap();
    assert!(verify_z(&tiny, &[1.0, 1.0]).is_solution(1e-15));
    for z in [[0.0, 1.0], [0.5, 1.0], [2.0, 0.0]] {
        let (a, b) = (verify_z(&tiny, &z), verify_z(&unit, &z));
        assert!(
            (a.scaled_max() - b.scaled_max()).abs() <= 1e-15 * b.scaled_max(),
            "{z:?}: {a:?} against {b:?}"
        );
        assert!(!a.is_solution(1e-3));
    }
    let huge = Lcp::from_row_major(2, &[1e300, 0.0, 0.0, 1e300], &[-1e300, -2e300]).unwrap();
    assert!(verify_z(&huge, &[1.0, 2.0]).is_solution(1e-15));
    let r = verify_z(&huge, &[1.0, 1.0]);
    assert!((r.scaled_max() - 0.5).abs() < 1e-15, "{r:?}");
}

/// `M = [[1.001]]`, `q = -8.5428e-319` (a stiff spring's projection step):
/// the solution is not representable to better than 6e-6 of itself; the
/// nearest z certifies, a z one percent off does not.
#[test]
fn the_rounding_of_a_subnormal_z_is_allowed() {
    let lcp = Lcp::from_row_major(1, &[1.001], &[-8.5428e-319]).unwrap();
    let bounds = BoxBounds::new(vec![-INF], vec![INF], vec![]).unwrap();
    let p = BoxLcp::with_bounds(lcp.clone(), bounds).unwrap();
    let z = 8.5428e-319 / 1.001;
    assert!(verify_box_z(&p, &[z]).is_solution(1e-12));
    assert!(!verify_box_z(&p, &[z * 1.01]).is_solution(1e-3));
    assert!(verify_z(&lcp, &[z]).is_solution(1e-12));
}

/// Bounds and a friction coupling at a subnormal scale: the normal `z_0 = 2`
/// at rest (w_0 = 0), the friction row at its bound `mu z_0 = 1` with
/// `w_1 < 0`; off the bound, or beyond it, is no solution.
#[test]
fn box_problems_at_subnormal_scale() {
    let s = 1e-320;
    let coupling = Coupling {
        row: 1,
        normal_row: 0,
        mu: 0.5,
    };
    let (q, lo) = (vec![-2.0 * s, -3.0 * s], vec![0.0, -INF]);
    let p = BoxLcp::new(
        mat![[s, 0.0], [0.0, s]],
        q,
        lo,
        vec![INF; 2],
        vec![coupling],
    )
    .unwrap();
    assert!(verify_box_z(&p, &[2.0, 1.0]).is_solution(1e-12));
    assert!(!verify_box_z(&p, &[2.0, 0.9]).is_solution(1e-3));
    assert!(!verify_box_z(&p, &[2.0, 1.2]).is_solution(1e-3));
}

#[test]
fn effective_bounds_follow_the_normal_force() {
    let c = Coupling {
        row: 1,
        normal_row: 0,
        mu: 0.5,
    };
    let (lo, hi) = (vec![0.0, -1.0, -INF], vec![INF, 1.0, INF]);
    let p = BoxLcp::new(Mat::identity(3, 3), vec![0.0; 3], lo, hi, vec![c]).unwrap();
    assert_eq!(p.effective_bounds(1, &[2.0, 0.0, 0.0]), (-1.0, 1.0));
    assert_eq!(p.effective_bounds(1, &[-2.0, 0.0, 0.0]), (-0.0, 0.0));
    assert_eq!(p.effective_bounds(2, &[2.0, 0.0, 0.0]), (-INF, INF));
    assert_eq!(p.bounds().coupling_of(1), Some(&c));
    assert_eq!(p.bounds().coupling_of(0), None);
    let plain = BoxLcp::from_lcp(p.lcp());
    assert_eq!(plain.hi(), &[INF; 3]);
    assert!(plain.couplings().is_empty());
    // The empty problem is valid.
    let empty = Lcp::new(Mat::zeros(0, 0), Vec::new()).unwrap();
    assert_eq!(empty.dim(), 0);
    let (m, q) = empty.into_parts();
    assert_eq!((m.nrows(), q.len()), (0, 0));
}
