//! Guards the pivot sequence of Lemke's method on small degenerate problems
//! (snapshots of the recorded trace, values rounded to 6 significant digits).

mod common;

use common::box_on_plane;
use contact_lcp::{Lcp, Lemke, LemkeParams, PivotRecord};

fn traced(lcp: &Lcp) -> Vec<String> {
    let mut lemke = Lemke::new(LemkeParams {
        record_trace: true,
        ..LemkeParams::default()
    });
    let sol = lemke.solve(lcp).unwrap();
    assert!(sol.report.is_solution(1e-12));
    assert_eq!(lemke.last_trace().len(), sol.pivots);
    lemke.last_trace().iter().map(show).collect()
}

fn show(p: &PivotRecord) -> String {
    format!(
        "{:?} in, {:?} out, ratio {:.6e}",
        p.entering, p.leaving, p.ratio
    )
}

#[test]
fn box_on_plane_trace() {
    // The 4-contact box of lemke_cases.rs: q has four exactly tied entries,
    // M = J W J' has rank 3; the lexicographic rule picks the rows.
    let (lcp, _) = box_on_plane();
    insta::assert_debug_snapshot!(traced(&lcp));
}

#[test]
fn duplicated_contact_trace() {
    // The same contact twice: M = [[1, 1], [1, 1]], q = [-1, -1]. One of the
    // two copies carries the whole impulse.
    let lcp = Lcp::from_row_major(2, &[1.0, 1.0, 1.0, 1.0], &[-1.0, -1.0]).unwrap();
    insta::assert_debug_snapshot!(traced(&lcp));
}
