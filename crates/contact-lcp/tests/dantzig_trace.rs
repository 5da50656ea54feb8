//! Guards the pivot sequence of the Dantzig solver's one-row pivoting (the
//! block guess off) on small redundant and friction-coupled contact
//! problems (snapshots of the recorded trace, step lengths rounded to 6
//! significant digits), so a change of pivoting behaviour shows in review.

mod common;

use common::contacts::{keep_normal_rows, resting_box};
use contact_lcp::{BoxLcp, Dantzig, DantzigParams, DantzigStep, Lcp};

fn traced(p: &BoxLcp) -> Vec<String> {
    let mut d = Dantzig::new(DantzigParams {
        record_trace: true,
        block_guess_from: usize::MAX,
        ..DantzigParams::default()
    });
    let sol = d.solve(p).unwrap();
    assert!(sol.report.is_solution(1e-12), "{:?}", sol.report);
    assert_eq!(d.last_trace().len(), sol.pivots);
    let mut lines: Vec<String> = d.last_trace().iter().map(show).collect();
    lines.push(format!("z = {}", fmt(&sol.z)));
    lines
}

fn show(s: &DantzigStep) -> String {
    format!("drive {}: {:?}, step {}", s.driven, s.event, round(s.step))
}

/// 6 significant digits; rounding noise (below 1e-12) shows as 0.
fn round(x: f64) -> String {
    if x.abs() < 1e-12 {
        "0".to_string()
    } else {
        format!("{x:.5e}")
    }
}

fn fmt(z: &[f64]) -> String {
    let v: Vec<String> = z.iter().map(|&x| round(x)).collect();
    format!("[{}]", v.join(", "))
}

#[test]
fn duplicated_contact_trace() {
    // The same contact three times: M = ones(3, 3), q = -1. The first copy
    // carries the whole impulse; the others are already complementary
    // (w = 0) and are refused from the clamped set, staying at 0.
    let lcp = Lcp::from_row_major(3, &[1.0; 9], &[-1.0; 3]).unwrap();
    insta::assert_debug_snapshot!(traced(&BoxLcp::from_lcp(&lcp)));
}

#[test]
fn box_on_plane_frictionless_trace() {
    // 4 corner contacts of a resting box (rank 3): the fourth is redundant.
    let (mut c, _) = resting_box(2.0, [0.5, 0.3, 0.2], 0.5);
    keep_normal_rows(&mut c);
    let q = c.q_of(&[0.0, 0.0, -0.0981, 0.0, 0.0, 0.0]);
    let lcp = Lcp::new(c.dense(), q).unwrap();
    insta::assert_debug_snapshot!(traced(&BoxLcp::from_lcp(&lcp)));
}

#[test]
fn pushed_box_friction_trace() {
    // The pushed box of dantzig_contacts.rs, sliding (push 20 N > mu m g):
    // pass 1 solves the normals (friction held at 0); pass 2 starts warm,
    // every friction row moved to its new bound, and drives only the rows
    // whose w then has the wrong sign; pass 3 confirms the radii did not
    // change (no pivot).
    let (c, b) = resting_box(2.0, [0.5, 0.3, 0.2], 0.5);
    let q = c.q_of(&[0.01 * 20.0 / 2.0, 0.0, -0.0981, 0.0, 0.0, 0.0]);
    let p = BoxLcp::with_bounds(Lcp::new(c.dense(), q).unwrap(), b).unwrap();
    insta::assert_debug_snapshot!(traced(&p));
}
