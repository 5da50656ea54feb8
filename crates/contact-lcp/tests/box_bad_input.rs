//! Guards the typed errors of box LCP construction: each names the row or
//! coupling that is wrong and why, and nothing panics.

use contact_lcp::faer::Mat;
use contact_lcp::{BoxBounds, BoxLcp, Coupling, Lcp, LcpError};

const INF: f64 = f64::INFINITY;

fn build(lo: Vec<f64>, hi: Vec<f64>, couplings: Vec<Coupling>) -> Result<BoxLcp, LcpError> {
    let n = lo.len();
    BoxLcp::new(Mat::identity(n, n), vec![0.0; n], lo, hi, couplings)
}

fn coupling(row: usize, normal_row: usize, mu: f64) -> Coupling {
    Coupling {
        row,
        normal_row,
        mu,
    }
}

/// Rows 0 and 3 are normal rows, 1, 2 and 4 friction rows.
fn lo5() -> Vec<f64> {
    vec![0.0, -1.0, -INF, 0.0, -1.0]
}
fn hi5() -> Vec<f64> {
    vec![INF, 1.0, INF, INF, 1.0]
}

fn coupling_error(couplings: Vec<Coupling>) -> (usize, &'static str) {
    match build(lo5(), hi5(), couplings).unwrap_err() {
        LcpError::InvalidCoupling {
            coupling, reason, ..
        } => (coupling, reason),
        e => panic!("expected a coupling error, got {e:?}"),
    }
}

#[test]
fn valid_problem_is_accepted() {
    let p = build(
        lo5(),
        hi5(),
        vec![
            coupling(1, 0, 0.5),
            coupling(2, 0, 0.5),
            coupling(4, 3, 0.0),
        ],
    )
    .unwrap();
    assert_eq!((p.dim(), p.couplings().len()), (5, 3));
}

#[test]
fn bad_bounds_name_their_row() {
    for (row, l, h) in [
        (2, 0.5, 1.0),
        (3, -1.0, -0.5),
        (1, f64::NAN, 1.0),
        (4, 0.0, f64::NAN),
    ] {
        let (mut lo, mut hi) = (lo5(), hi5());
        lo[row] = l;
        hi[row] = h;
        match build(lo, hi, vec![]).unwrap_err() {
            LcpError::InvalidBounds { row: r, .. } => assert_eq!(r, row),
            e => panic!("expected bad bounds, got {e:?}"),
        }
    }
    // lo > hi always excludes 0 from one side.
    assert!(matches!(
        build(vec![0.0, 1.0], vec![INF, -1.0], vec![]),
        Err(LcpError::InvalidBounds { row: 1, .. })
    ));
    let e = LcpError::InvalidBounds {
        row: 2,
        lo: 0.5,
        hi: 1.0,
    };
    assert_eq!(
        e.to_string(),
        "invalid bounds at row 2: [0.5, 1] (need lo <= 0 <= hi, no NaN)"
    );
}

#[test]
fn bad_couplings_name_the_coupling_and_the_reason() {
    let ok = coupling(1, 0, 0.5);
    assert_eq!(
        coupling_error(vec![ok, coupling(5, 0, 0.5)]),
        (1, "row out of range")
    );
    assert_eq!(
        coupling_error(vec![coupling(2, 9, 0.5)]),
        (0, "normal row out of range")
    );
    assert_eq!(
        coupling_error(vec![coupling(0, 0, 0.5)]),
        (0, "row coupled to itself")
    );
    assert_eq!(
        coupling_error(vec![ok, coupling(2, 0, -0.1)]),
        (1, "mu must be finite and >= 0")
    );
    assert_eq!(
        coupling_error(vec![coupling(2, 0, f64::NAN)]),
        (0, "mu must be finite and >= 0")
    );
    assert_eq!(
        coupling_error(vec![coupling(2, 0, INF)]),
        (0, "mu must be finite and >= 0")
    );
    assert_eq!(
        coupling_error(vec![ok, coupling(1, 3, 0.5)]),
        (1, "row coupled twice")
    );
    assert_eq!(
        coupling_error(vec![ok, coupling(2, 1, 0.5)]),
        (1, "normal row is itself coupled")
    );
    assert_eq!(
        coupling_error(vec![coupling(4, 2, 0.5)]),
        (0, "normal row must have bounds [0, +inf]")
    );
    let e = LcpError::InvalidCoupling {
        coupling: 1,
        row: 2,
        normal_row: 1,
        reason: "row coupled twice",
    };
    assert_eq!(
        e.to_string(),
        "invalid coupling #1 (row 2, normal row 1): row coupled twice"
    );
}

#[test]
fn shapes_and_entries_are_checked() {
    assert_eq!(
        BoxLcp::new(
            Mat::identity(2, 2),
            vec![0.0; 2],
            vec![0.0; 3],
            vec![INF; 2],
            vec![]
        )
        .unwrap_err(),
        LcpError::BadLength {
            what: "lo",
            expected: 2,
            found: 3
        }
    );
    assert_eq!(
        BoxLcp::new(
            Mat::identity(2, 2),
            vec![0.0; 2],
            vec![0.0; 2],
            vec![INF; 1],
            vec![]
        )
        .unwrap_err(),
        LcpError::BadLength {
            what: "hi",
            expected: 2,
            found: 1
        }
    );
    let mut m = Mat::<f64>::identity(3, 3);
    m[(1, 2)] = f64::NAN;
    assert_eq!(
        BoxLcp::new(m, vec![0.0; 3], vec![0.0; 3], vec![INF; 3], vec![]).unwrap_err(),
        LcpError::NonFinite {
            what: "m",
            row: 1,
            col: 2
        }
    );
    assert_eq!(
        BoxLcp::new(
            Mat::identity(2, 2),
            vec![0.0, INF],
            vec![0.0; 2],
            vec![INF; 2],
            vec![]
        )
        .unwrap_err(),
        LcpError::NonFinite {
            what: "q",
            row: 1,
            col: 0
        }
    );
    assert_eq!(
        BoxLcp::new(
            Mat::zeros(2, 3),
            vec![0.0; 2],
            vec![0.0; 2],
            vec![INF; 2],
            vec![]
        )
        .unwrap_err(),
        LcpError::NotSquare { rows: 2, cols: 3 }
    );
    let lcp = Lcp::new(Mat::identity(2, 2), vec![0.0; 2]).unwrap();
    assert_eq!(
        BoxLcp::with_bounds(lcp, BoxBounds::unilateral(3)).unwrap_err(),
        LcpError::BadLength {
            what: "bounds",
            expected: 2,
            found: 3
        }
    );
}
