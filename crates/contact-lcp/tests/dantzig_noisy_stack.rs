//! Guards the Dantzig solver on the frictionless contact problem users meet
//! most: a resting stack of equal boxes (4 contacts per face, so M = J W J'
//! is singular, rank 3 per face) whose faces' gap terms are slightly
//! inconsistent (rounding-sized noise in q, as the assembled stacks of the
//! benches have). The guess used to stop at the first dependent contact
//! whose w had the wrong sign and leave a long pivoting path of tiny steps;
//! the answer must certify, match the plain pivoting's w (w is unique for a
//! PSD M), and take at most n / 4 pivots.

mod common;

use common::contacts::{Contacts, add_box_contacts, box_inv_mass, keep_normal_rows};
use common::{Rng, dist};
use contact_lcp::{BoxLcp, Dantzig, DantzigParams, Lcp};

const HALF: [f64; 3] = [0.5, 0.5, 0.5];

/// `boxes` unit cubes stacked on static ground, all falling at 0.1 (so the
/// ground contacts are pushed and the others rest), normal rows only; every
/// q_i gets `noise * u_i`, u_i uniform in [-1, 1]: the rounding of an
/// assembled problem, which makes the 4 gap terms of a face inconsistent
/// (a dependent contact's w is then of one sign) and gives resting
/// contacts tiny positive q.
fn noisy_stack(rng: &mut Rng, boxes: usize, noise: f64) -> Lcp {
    let mut c = Contacts::default();
    let (mut lo, mut hi, mut cp) = (vec![], vec![], vec![]);
    let mut v = Vec::new();
    for body in 0..boxes {
        c.inv_mass.push(box_inv_mass(1.0, HALF));
        add_box_contacts(
            &mut c,
            &mut lo,
            &mut hi,
            &mut cp,
            body,
            body.checked_sub(1),
            HALF,
            0.5,
        );
        v.extend([0.0, 0.0, -0.1, 0.0, 0.0, 0.0]);
    }
    keep_normal_rows(&mut c);
    let mut q = c.q_of(&v);
    for qk in &mut q {
        *qk += noise * rng.range(-1.0, 1.0);
    }
    Lcp::new(c.dense(), q).unwrap()
}

#[test]
fn a_noisy_resting_stack_is_solved_exactly_in_few_pivots() {
    // 12 boxes: n = 48, the smallest problem the guess is tried on. Before
    // the guess exchanged dependent contacts of the wrong sign, these took
    // 121, 35 and 18 pivots after the guess gave up (measured).
    let mut rng = Rng::new(0x57AC_0001);
    for noise in [1e-10, 1e-8, 1e-6] {
        let lcp = noisy_stack(&mut rng, 12, noise);
        let p = BoxLcp::from_lcp(&lcp);
        let mut d = Dantzig::default();
        let sol = d.solve(&p).unwrap();
        // The certificate recomputes w = M z + q (verify_box).
        assert!(
            sol.report.is_solution(1e-12),
            "noise {noise}: {:?}",
            sol.report
        );
        let stats = *d.last_stats();
        assert!(stats.block_guesses > 0, "noise {noise}: {stats:?}");
        assert!(sol.pivots <= p.dim() / 4, "noise {noise}: {stats:?}");
        // w is unique for a PSD M (the gradient of the convex QP): the
        // pivoting alone, another path to it, must agree.
        let pivoting = Dantzig::new(DantzigParams {
            block_guess_from: usize::MAX,
            ..DantzigParams::default()
        })
        .solve(&p)
        .unwrap();
        assert!(pivoting.report.is_solution(1e-12), "{:?}", pivoting.report);
        let qn = lcp.q().iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        assert!(dist(&sol.w, &pivoting.w) <= 1e-12 * qn, "noise {noise}");
    }
}
