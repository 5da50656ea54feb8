//! Unit tests of the tableau: its updated basis inverse.

use super::*;

/// After two pivots the updated inverse agrees with a refactorised one,
/// and B^-1 B = I for B built from the basis list alone.
#[test]
fn updated_inverse_matches_refactorised_inverse() {
    let lcp = Lcp::from_row_major(
        3,
        &[2.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 4.0],
        &[-1.0, -2.0, 1.0],
    )
    .unwrap();
    let mut t = Tableau::default();
    t.load(&lcp);
    let r = t.initial_row();
    assert_eq!(r, 1);
    t.entering_column(&lcp, t.z0());
    t.pivot(&lcp, r, t.z0());
    // z_1 enters in row 0 (a row need not be feasible for this check).
    t.entering_column(&lcp, 3 + 1);
    t.pivot(&lcp, 0, 3 + 1);
    let inverse = |t: &Tableau| -> Vec<f64> {
        (0..9)
            .map(|x| t.inverse_entry(x / 3, x % 3))
            .chain((0..3).map(|p| t.value(p)))
            .collect()
    };
    let updated = inverse(&t);
    t.refactor(&lcp).unwrap();
    let fresh = inverse(&t);
    for (a, b) in updated.iter().zip(&fresh) {
        assert!((a - b).abs() < 1e-12, "{updated:?} vs {fresh:?}");
    }
    for (p, &var) in t.basis.iter().enumerate() {
        // Column p of B: the column of `var` in [I, -M~, -d].
        let b = |row: usize| match var {
            0..3 => f64::from(u8::from(row == var)),
            3..6 => -ScaledColumn::new(&lcp, &t.d, t.inv_ms, var - 3).get(row),
            _ => -1.0,
        };
        for i in 0..3 {
            let e: f64 = (0..3).map(|j| t.inverse_entry(i, j) * b(j)).sum();
            let expected = f64::from(u8::from(i == p));
            assert!((e - expected).abs() < 1e-12, "(B^-1 B)[{i}, {p}] = {e}");
        }
    }
}
