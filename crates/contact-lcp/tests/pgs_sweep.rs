//! Guards the projected Gauss-Seidel iteration itself: one row and one sweep
//! by hand, the blocked sweep against the plain row-by-row iteration, and
//! the typed errors of bad settings, diagonals and sweep arguments.

mod common;

use common::Rng;
use contact_lcp::faer::Mat;
use contact_lcp::{BoxLcp, Coupling, LcpError, Method, PgsParams, ProjectedGaussSeidel};

const INF: f64 = f64::INFINITY;

#[test]
fn one_row_closed_form() {
    // w = 4 z - 2 in [-1, 0.25]: the unbounded answer 0.5 is clipped at
    // 0.25, where w = -1 <= 0.
    let p = BoxLcp::new(
        Mat::from_fn(1, 1, |_, _| 4.0),
        vec![-2.0],
        vec![-1.0],
        vec![0.25],
        vec![],
    );
    let sol = ProjectedGaussSeidel::default()
        .solve(&p.unwrap(), None)
        .unwrap();
    assert_eq!((sol.z[0], sol.w[0], sol.iterations), (0.25, -1.0, 1));
    assert_eq!(sol.method, Method::ProjectedGaussSeidel);
}

/// One sweep on a 2 x 2 LCP, by hand: row 0 solves 4 z0 - 1 = 0, so
/// z0 = 1/4; then w1 = -2 + z0 = -7/4 and z1 = 7/12. The returned w is
/// M z + q.
#[test]
fn one_sweep_is_gauss_seidel_by_hand() {
    let m = Mat::from_fn(2, 2, |i, j| [[4.0, 1.0], [1.0, 3.0]][i][j]);
    let p = BoxLcp::new(m, vec![-1.0, -2.0], vec![0.0; 2], vec![INF; 2], vec![]).unwrap();
    let mut pgs = ProjectedGaussSeidel::default();
    let (mut z, mut w) = (vec![0.0; 2], vec![-1.0, -2.0]);
    pgs.sweep(&p, &mut z, &mut w).unwrap();
    // z1 = 1.75 * (1/3): one rounding of the reciprocal, one of the product.
    assert_eq!(z[0], 0.25);
    assert!((z[1] - 7.0 / 12.0).abs() <= 1e-15, "{z:?}");
    let exact = [4.0 * z[0] + z[1] - 1.0, z[0] + 3.0 * z[1] - 2.0];
    for (a, b) in w.iter().zip(exact) {
        assert!((a - b).abs() <= 1e-15, "{w:?} vs {exact:?}");
    }
    let short = pgs.sweep(&p, &mut z[..1], &mut w);
    let bad_length = LcpError::BadLength {
        what: "z",
        expected: 2,
        found: 1,
    };
    assert_eq!(short, Err(bad_length));
    w[1] = f64::NAN;
    let non_finite = LcpError::NonFinite {
        what: "w",
        row: 1,
        col: 0,
    };
    assert_eq!(pgs.sweep(&p, &mut z, &mut w), Err(non_finite));
}

/// The blocked sweep is the plain row-by-row iteration: checked against a
/// reference that recomputes each `w_i = (M z + q)_i` from scratch (no
/// incremental update, no blocks) on problems whose size is not a multiple
/// of the block, with rows stuck at bounds, rows moving, friction couplings
/// and over-relaxation. Both orders of summation round differently, so the
/// tolerance is a few ulps of the scale.
#[test]
fn blocked_sweep_is_the_row_by_row_iteration() {
    // Rows ending a sweep at a bound and strictly inside, over all cases.
    let (mut at_bound, mut inside) = (0, 0);
    for (n, seed) in [(1_usize, 1_u64), (3, 2), (4, 3), (9, 4), (14, 5), (23, 6)] {
        let mut rng = Rng::new(seed);
        let a = rng.mat(n, n, -1.0, 1.0);
        let m = Mat::from_fn(n, n, |i, j| {
            let aat: f64 = (0..n).map(|k| a[(i, k)] * a[(j, k)]).sum();
            aat / n as f64 + if i == j { 0.5 } else { 0.0 }
        });
        let q: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
        // Every third row j a normal (z >= 0); row j + 1 a friction row
        // coupled to it (its normal visited before it) and row j + 2 one
        // coupled to the normal two ahead, j + 6, or else to the next one,
        // j + 3 (visited after it, in its block or a later one); the rows
        // left over boxes [-0.2, 0.3].
        let (mut lo, mut hi, mut couplings) = (vec![-0.2; n], vec![0.3; n], vec![]);
        for j in (0..n).step_by(3) {
            (lo[j], hi[j]) = (0.0, INF);
            let ahead = if j + 6 < n { j + 6 } else { j + 3 };
            for (row, normal_row) in [(j + 1, j), (j + 2, ahead)] {
                if row < n && normal_row < n {
                    couplings.push(Coupling {
                        row,
                        normal_row,
                        mu: 0.4,
                    });
                    (lo[row], hi[row]) = (-INF, INF);
                }
            }
        }
        let p = BoxLcp::new(m.clone(), q.clone(), lo, hi, couplings).unwrap();
        let omega = 1.3;
        let params = PgsParams {
            omega,
            ..PgsParams::default()
        };
        let mut pgs = ProjectedGaussSeidel::new(params);
        let (mut z, mut w) = (vec![0.0; n], q.clone());
        let mut z_ref = z.clone();
        let affine = |i: usize, z: &[f64]| q[i] + (0..n).map(|j| m[(i, j)] * z[j]).sum::<f64>();
        for _ in 0..3 {
            pgs.sweep(&p, &mut z, &mut w).unwrap();
            for i in 0..n {
                let (lo, hi) = p.effective_bounds(i, &z_ref);
                z_ref[i] = (z_ref[i] - omega * affine(i, &z_ref) / m[(i, i)])
                    .max(lo)
                    .min(hi);
            }
            for i in 0..n {
                assert!(
                    (z[i] - z_ref[i]).abs() <= 1e-13,
                    "n {n} row {i}: {z:?} vs {z_ref:?}"
                );
                let wi = affine(i, &z);
                assert!(
                    (w[i] - wi).abs() <= 1e-13,
                    "n {n} row {i}: w {} vs {wi}",
                    w[i]
                );
                let (lo, hi) = p.effective_bounds(i, &z);
                if z[i] == lo || z[i] == hi {
                    at_bound += 1;
                } else {
                    inside += 1;
                }
            }
        }
    }
    assert!(
        at_bound > 10 && inside > 10,
        "{at_bound} at a bound, {inside} inside"
    );
}

#[test]
fn bad_settings_and_diagonals_are_typed_errors() {
    let m = Mat::from_fn(2, 2, |i, j| if i == j { i as f64 } else { 0.0 });
    let p = BoxLcp::new(m, vec![0.0; 2], vec![0.0; 2], vec![1.0; 2], vec![]).unwrap();
    let mut pgs = ProjectedGaussSeidel::default();
    let zero = LcpError::NonPositiveDiagonal { row: 0, value: 0.0 };
    assert_eq!(pgs.solve(&p, None).unwrap_err(), zero);
    for (omega, tolerance, what, value) in [
        (2.0, 1e-8, "omega", 2.0),
        (0.0, 1e-8, "omega", 0.0),
        (1.0, -1.0, "tolerance", -1.0),
    ] {
        pgs.set_params(PgsParams {
            omega,
            tolerance,
            ..PgsParams::default()
        });
        assert_eq!(pgs.params().omega, omega);
        let invalid = LcpError::InvalidParameter { what, value };
        assert_eq!(pgs.solve(&p, None).unwrap_err(), invalid);
    }
}
