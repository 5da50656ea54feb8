//! Bad input to `FactoredBoxLcp` and `BlockPivoting`: typed errors naming
//! what and where, never a panic; a solve limit reached is a typed failure
//! with the best iterate; degenerate problems (no rows, rows on no body).

mod common;

use common::Rng;
use common::factored::{dense_of, random_block, random_spd6};
use common::pyramid::{problems, pyramid, velocities};
use contact_lcp::{
    BlockPivoting, BlockPivotingParams, BoxBounds, FactoredBoxLcp, FactoredParts, LcpError,
    LcpSolution, Method, RowState, active_set_of, verify_box,
};

const TOL: f64 = 1e-9;

/// A problem of two bodies and three rows whose parts the bad-input cases
/// spoil one at a time.
fn good_parts() -> FactoredParts {
    let mut rng = Rng::new(0xBAD);
    let inverse_mass = vec![random_spd6(&mut rng), random_spd6(&mut rng)];
    let rows = vec![
        [Some(random_block(&mut rng, 0)), None],
        [
            Some(random_block(&mut rng, 0)),
            Some(random_block(&mut rng, 1)),
        ],
        [Some(random_block(&mut rng, 1)), None],
    ];
    let inf = f64::INFINITY;
    FactoredParts {
        rows,
        inverse_mass,
        compliance: vec![0.0, 0.01, 0.0],
        q: vec![-1.0, 0.5, -0.2],
        bounds: BoxBounds::new(vec![0.0, -1.0, -inf], vec![inf, 1.0, inf], vec![]).unwrap(),
    }
}

fn invalid_field(field: &str) -> impl Fn(&LcpError) -> bool + '_ {
    move |e| matches!(e, LcpError::InvalidField { field: f, .. } if f == field)
}

#[test]
fn bad_factored_problems_are_typed_errors_naming_what_and_where() {
    let build = |spoil: &dyn Fn(&mut FactoredParts)| {
        let mut parts = good_parts();
        spoil(&mut parts);
        FactoredBoxLcp::new(parts).unwrap_err()
    };
    assert!(FactoredBoxLcp::new(good_parts()).is_ok());
    assert_eq!(
        build(&|p| p.rows[1][1].as_mut().unwrap().body = 2),
        LcpError::BodyOutOfRange {
            row: 1,
            body: 2,
            bodies: 2
        }
    );
    assert_eq!(
        build(&|p| p.rows[2][0].as_mut().unwrap().j[4] = f64::NAN),
        LcpError::NonFinite {
            what: "jacobian",
            row: 2,
            col: 1
        }
    );
    assert_eq!(
        build(&|p| p.rows[0][0].as_mut().unwrap().j[0] = f64::INFINITY),
        LcpError::NonFinite {
            what: "jacobian",
            row: 0,
            col: 0
        }
    );
    assert_eq!(
        build(&|p| p.inverse_mass[1][2][3] = f64::NAN),
        LcpError::NonFinite {
            what: "inverse_mass",
            row: 1,
            col: 15
        }
    );
    assert_eq!(
        build(&|p| p.q[2] = f64::NAN),
        LcpError::NonFinite {
            what: "q",
            row: 2,
            col: 0
        }
    );
    assert_eq!(
        build(&|p| p.q[0] = f64::NEG_INFINITY),
        LcpError::NonFinite {
            what: "q",
            row: 0,
            col: 0
        }
    );
    assert_eq!(
        build(&|p| p.compliance[1] = f64::NAN),
        LcpError::NonFinite {
            what: "compliance",
            row: 1,
            col: 0
        }
    );
    // Entries so large that M_ii overflows.
    assert_eq!(
        build(&|p| p.rows[2][0].as_mut().unwrap().j = [1e200; 6]),
        LcpError::NonFinite {
            what: "m",
            row: 2,
            col: 2
        }
    );
    assert!(invalid_field("compliance[2]")(&build(
        &|p| p.compliance[2] = -1e-9
    )));
    // Not positive definite: a negative, a zero and a singular inverse mass.
    assert!(invalid_field("inverse_mass[0]")(&build(&|p| {
        p.inverse_mass[0][3][3] = -1.0;
    })));
    assert!(invalid_field("inverse_mass[1]")(&build(&|p| {
        p.inverse_mass[1] = [[0.0; 6]; 6];
    })));
    assert!(invalid_field("inverse_mass[1]")(&build(&|p| {
        p.inverse_mass[1] = [[1.0; 6]; 6];
    })));
    // Asymmetric beyond rounding.
    assert!(invalid_field("inverse_mass[0]")(&build(&|p| {
        p.inverse_mass[0][0][5] += 1e-3;
    })));
    // Rounding-level asymmetry is accepted (and averaged out).
    let mut parts = good_parts();
    parts.inverse_mass[0][0][5] *= 1.0 + 1e-15;
    assert!(FactoredBoxLcp::new(parts).is_ok());
    for (what, spoil) in [
        (
            "compliance",
            &(|p: &mut FactoredParts| p.compliance.push(0.0)) as &dyn Fn(&mut FactoredParts),
        ),
        ("q", &|p: &mut FactoredParts| {
            p.q.pop();
        }),
        ("bounds", &|p: &mut FactoredParts| {
            p.bounds = BoxBounds::unilateral(4);
        }),
    ] {
        let expected = if what == "q" { (3, 2) } else { (3, 4) };
        assert_eq!(
            build(spoil),
            LcpError::BadLength {
                what,
                expected: expected.0,
                found: expected.1
            }
        );
    }
}

#[test]
fn bad_settings_and_warm_starts_are_typed_errors() {
    let parts = good_parts();
    let p = FactoredBoxLcp::new(parts).unwrap();
    let mut out = LcpSolution::default();
    for (what, params) in [
        (
            "tolerance",
            BlockPivotingParams {
                tolerance: f64::NAN,
                ..BlockPivotingParams::default()
            },
        ),
        (
            "tolerance",
            BlockPivotingParams {
                tolerance: 0.0,
                ..BlockPivotingParams::default()
            },
        ),
        (
            "tolerance",
            BlockPivotingParams {
                tolerance: f64::INFINITY,
                ..BlockPivotingParams::default()
            },
        ),
        (
            "proximal_weight",
            BlockPivotingParams {
                proximal_weight: 0.0,
                ..BlockPivotingParams::default()
            },
        ),
        (
            "proximal_weight",
            BlockPivotingParams {
                proximal_weight: 2.0,
                ..BlockPivotingParams::default()
            },
        ),
        (
            "proximal_weight",
            BlockPivotingParams {
                proximal_weight: f64::NAN,
                ..BlockPivotingParams::default()
            },
        ),
    ] {
        let error = BlockPivoting::new(params)
            .solve_into(&p, None, &mut out)
            .unwrap_err();
        assert!(
            matches!(error, LcpError::InvalidParameter { what: w, .. } if w == what),
            "{what}: {error:?}"
        );
    }
    let mut solver = BlockPivoting::default();
    let (three, two) = ([RowState::Free; 3], [RowState::Free; 2]);
    assert_eq!(
        solver
            .solve_into(&p, Some((&two, &[0.0; 3])), &mut out)
            .unwrap_err(),
        LcpError::BadLength {
            what: "guess",
            expected: 3,
            found: 2
        }
    );
    assert_eq!(
        solver
            .solve_into(&p, Some((&three, &[0.0; 4])), &mut out)
            .unwrap_err(),
        LcpError::BadLength {
            what: "centre",
            expected: 3,
            found: 4
        }
    );
    for bad in [f64::NAN, f64::INFINITY] {
        assert_eq!(
            solver
                .solve_into(&p, Some((&three, &[0.0, bad, 0.0])), &mut out)
                .unwrap_err(),
            LcpError::NonFinite {
                what: "centre",
                row: 1,
                col: 0
            }
        );
    }
    // The solver still works after the rejected calls.
    solver.solve_into(&p, None, &mut out).unwrap();
    assert_certified(&dense_of(&good_parts()), &out, "after the errors");
}

/// `active_set_of` with a `z` or `w` not one entry per row: a typed error
/// naming the argument, not a panic.
#[test]
fn active_set_of_a_wrong_length_is_a_typed_error() {
    let bounds = good_parts().bounds;
    let mut states = vec![RowState::Free];
    for (z, w, what, found) in [
        (&[0.0; 2][..], &[0.0; 3][..], "z", 2),
        (&[0.0; 3][..], &[0.0; 1][..], "w", 1),
        (&[0.0; 4][..], &[0.0; 3][..], "z", 4),
    ] {
        assert_eq!(
            active_set_of(&bounds, z, w, &mut states),
            Err(LcpError::BadLength {
                what,
                expected: 3,
                found
            })
        );
        assert!(states.is_empty());
    }
    active_set_of(&bounds, &[0.0, 1.0, 0.5], &[2.0, -1.0, 0.0], &mut states).unwrap();
    assert_eq!(states, [RowState::Lower, RowState::Upper, RowState::Free]);
}

/// Certifies `sol` by the dense certificate.
fn assert_certified(dense: &contact_lcp::BoxLcp, sol: &LcpSolution, what: &str) {
    let report = verify_box(dense, &sol.z, &sol.w);
    assert!(report.is_solution(TOL), "{what}: {report:?}");
    assert_eq!(sol.method, Method::BlockPivoting, "{what}");
}

/// A cold start that needs more solves than allowed fails typed, with the
/// best iterate and its honest report: stopped inside the first subproblem
/// (the last guess's answer, projected) and later.
#[test]
fn a_solve_limit_is_a_typed_failure_with_the_best_iterate() {
    let mut rng = Rng::new(0xFA11);
    let (contacts, bounds) = pyramid(&mut rng, 4, 0.5);
    let v = velocities(&mut rng, contacts.inv_mass.len(), 0.05, 0.2);
    let (dense, p) = problems(&contacts, &bounds, &v);
    let mut out = LcpSolution::default();
    let mut solver = BlockPivoting::default();
    solver.solve_into(&p, None, &mut out).unwrap();
    let needed = solver.last_stats().solves;
    assert!(needed >= 3, "{:?}", solver.last_stats());
    for max_solves in 1..needed {
        let mut limited = BlockPivoting::new(BlockPivotingParams {
            max_solves,
            ..BlockPivotingParams::default()
        });
        let error = limited.solve_into(&p, None, &mut out).unwrap_err();
        match &error {
            LcpError::BlockPivotingFailed { solves, reason, .. } => {
                assert_eq!(*solves, max_solves);
                assert_eq!(*reason, "solve limit reached");
            }
            other => panic!("max_solves {max_solves}: {other:?}"),
        }
        let best = error
            .best()
            .unwrap_or_else(|| panic!("max_solves {max_solves}: no best iterate"));
        assert_eq!(best.report, p.verify(&best.z, &best.w));
        assert_eq!(best.method, Method::BlockPivoting);
        let dense_report = verify_box(&dense, &best.z, &best.w);
        assert!(!dense_report.is_solution(TOL), "{dense_report:?}");
        // Within the bounds: the iterate is projected.
        for i in 0..p.dim() {
            let (lo, hi) = bounds.effective(i, &best.z);
            assert!(lo <= best.z[i] && best.z[i] <= hi, "row {i}");
        }
    }
}

/// No rows, and rows that touch no body with no compliance (`M = 0`): the
/// answer is the bounds' projection of the sign of `-q`.
#[test]
fn the_empty_problem_and_rows_on_no_body() {
    let mut out = LcpSolution::default();
    let empty = FactoredBoxLcp::new(FactoredParts::default()).unwrap();
    BlockPivoting::default()
        .solve_into(&empty, None, &mut out)
        .unwrap();
    assert!(out.z.is_empty());
    let inf = f64::INFINITY;
    let parts = FactoredParts {
        rows: vec![[None, None]; 3],
        inverse_mass: vec![],
        compliance: vec![0.0; 3],
        q: vec![1.0, 0.0, -2.0],
        bounds: BoxBounds::new(vec![0.0, 0.0, -1.0], vec![inf, inf, 3.0], vec![]).unwrap(),
    };
    let dense = dense_of(&parts);
    let p = FactoredBoxLcp::new(parts).unwrap();
    BlockPivoting::default()
        .solve_into(&p, None, &mut out)
        .unwrap();
    assert_certified(&dense, &out, "M = 0");
    assert_eq!(out.z[0], 0.0);
    assert_eq!(out.z[2], 3.0);
}
