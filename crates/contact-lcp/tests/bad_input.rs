//! Guards the typed errors for invalid input: every index that is reported is
//! the one that is wrong, and nothing panics.

use contact_lcp::faer::Mat;
use contact_lcp::{Lcp, LcpError};

#[test]
fn nan_in_matrix_names_its_row_and_column() {
    let mut m = Mat::<f64>::identity(3, 3);
    m[(2, 1)] = f64::NAN;
    assert_eq!(
        Lcp::new(m, vec![0.0; 3]).unwrap_err(),
        LcpError::NonFinite {
            what: "m",
            row: 2,
            col: 1
        }
    );
}

#[test]
fn infinity_in_row_major_matrix_names_its_row_and_column() {
    let mut m = [0.0; 6 * 6];
    m[4 * 6 + 5] = f64::NEG_INFINITY;
    assert_eq!(
        Lcp::from_row_major(6, &m, &[1.0; 6]).unwrap_err(),
        LcpError::NonFinite {
            what: "m",
            row: 4,
            col: 5
        }
    );
}

#[test]
fn nan_in_q_names_its_row() {
    assert_eq!(
        Lcp::new(Mat::identity(3, 3), vec![0.0, -1.0, f64::NAN]).unwrap_err(),
        LcpError::NonFinite {
            what: "q",
            row: 2,
            col: 0
        }
    );
}

#[test]
fn non_square_matrix_is_rejected() {
    assert_eq!(
        Lcp::new(Mat::zeros(2, 3), vec![0.0; 2]).unwrap_err(),
        LcpError::NotSquare { rows: 2, cols: 3 }
    );
}

#[test]
fn mismatched_lengths_are_rejected() {
    assert_eq!(
        Lcp::new(Mat::identity(3, 3), vec![0.0; 2]).unwrap_err(),
        LcpError::DimensionMismatch {
            matrix: 3,
            vector: 2
        }
    );
    assert_eq!(
        Lcp::from_row_major(2, &[1.0; 4], &[0.0; 3]).unwrap_err(),
        LcpError::DimensionMismatch {
            matrix: 2,
            vector: 3
        }
    );
    assert_eq!(
        Lcp::from_row_major(2, &[1.0; 5], &[0.0; 2]).unwrap_err(),
        LcpError::BadLength {
            what: "m",
            expected: 4,
            found: 5
        }
    );
    assert!(matches!(
        Lcp::from_row_major(usize::MAX, &[], &[]),
        Err(LcpError::BadLength { what: "m", .. })
    ));
}

#[test]
fn errors_display_their_numbers() {
    let e = LcpError::NonFinite {
        what: "m",
        row: 2,
        col: 1,
    };
    assert_eq!(e.to_string(), "non-finite entry in m at row 2, column 1");
    let e = LcpError::PivotLimit {
        pivots: 7,
        best: None,
    };
    assert_eq!(e.to_string(), "pivot limit reached after 7 pivots");
}
