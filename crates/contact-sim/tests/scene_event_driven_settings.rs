//! Every setting of the event-driven stepper (`EventDrivenParams`, its LCP
//! solvers' included) can be given in a scene file, reaches the stepper as
//! given, and survives a snapshot: written, read back, the same settings.
#![cfg(feature = "serde")]

use contact_sim::contact_lcp::{DantzigParams, LemkeParams, PgsParams, SolverParams};
use contact_sim::scene_file::{SceneFile, SceneStepper};
use contact_sim::{EventDrivenParams, OdeMethod};
use serde_json::json;

/// Every setting away from its default (struct literals without
/// `..Default::default()`: a new setting does not compile here until it
/// is added to the file format and to this test).
fn every_setting() -> EventDrivenParams {
    EventDrivenParams {
        method: OdeMethod::Rk4,
        tolerance: 1e-8,
        max_step: 0.005,
        min_step: 1e-9,
        contact_tolerance: 2e-6,
        resting_speed: 2e-3,
        sticking_speed: 3e-6,
        event_tolerance: 1e-11,
        painleve_step: 2e-6,
        solver: SolverParams {
            dantzig: DantzigParams {
                max_pivots: 500,
                max_total_pivots: 4000,
                pivot_tolerance: 1e-11,
                zero_tolerance: 1e-14,
                max_coupling_rounds: 30,
                coupling_tolerance: 1e-11,
                warm_start_rounds: false,
                record_trace: true,
                block_guess_from: usize::MAX,
            },
            lemke: LemkeParams {
                max_pivots: 900,
                pivot_tolerance: 1e-11,
                zero_tolerance: 1e-9,
                refactor_interval: 50,
                fallback_zero_tolerance: 1e-6,
                record_trace: true,
            },
            pgs: PgsParams {
                omega: 1.3,
                tolerance: 1e-11,
                max_sweeps: 500,
            },
            tolerance: 1e-10,
            lemke_coupled_from: 12,
            dantzig_first_pivots: 40,
        },
    }
}

fn event_driven_params(stepper: &SceneStepper) -> (EventDrivenParams, f64) {
    match stepper {
        SceneStepper::EventDriven { stepper, frame } => (*stepper.params(), *frame),
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_event_driven_setting_reaches_the_stepper_and_survives_a_snapshot() {
    let text = json!({
        "version": 1,
        "bodies": [
            { "fixed": true, "shape": { "half_space": { "normal": [0, 0, 1] } } },
            { "shape": { "sphere": { "radius": 0.2 } }, "mass": 1.0, "position": [0, 0, 0.5],
              "restitution": 0.5 }
        ],
        "stepper": { "event_driven": {
            "frame": 0.02, "method": "rk4", "tolerance": 1e-8, "max_step": 0.005,
            "min_step": 1e-9, "contact_tolerance": 2e-6, "resting_speed": 2e-3,
            "sticking_speed": 3e-6, "event_tolerance": 1e-11, "painleve_step": 2e-6,
            "solver": {
                "tolerance": 1e-10, "lemke_coupled_from": 12, "dantzig_first_pivots": 40,
                "dantzig_max_pivots": 500, "dantzig_max_total_pivots": 4000,
                "dantzig_pivot_tolerance": 1e-11, "dantzig_zero_tolerance": 1e-14,
                "dantzig_max_coupling_rounds": 30, "dantzig_coupling_tolerance": 1e-11,
                "dantzig_warm_start_rounds": false, "dantzig_record_trace": true,
                "dantzig_block_guess_from": null,
                "lemke_max_pivots": 900, "lemke_pivot_tolerance": 1e-11,
                "lemke_zero_tolerance": 1e-9, "lemke_refactor_interval": 50,
                "lemke_fallback_zero_tolerance": 1e-6, "lemke_record_trace": true,
                "pgs_omega": 1.3, "pgs_tolerance": 1e-11, "pgs_max_sweeps": 500 } } }
    })
    .to_string();
    let expected = every_setting();
    let defaults = EventDrivenParams::default();
    // Every setting differs from its default, so each is shown to be read.
    assert_ne!(expected.method, defaults.method);
    for (value, default) in [
        (expected.tolerance, defaults.tolerance),
        (expected.max_step, defaults.max_step),
        (expected.min_step, defaults.min_step),
        (expected.contact_tolerance, defaults.contact_tolerance),
        (expected.resting_speed, defaults.resting_speed),
        (expected.sticking_speed, defaults.sticking_speed),
        (expected.event_tolerance, defaults.event_tolerance),
        (expected.painleve_step, defaults.painleve_step),
    ] {
        assert_ne!(value, default);
    }
    let (solver, default_solver) = (expected.solver, defaults.solver);
    let (d, dd) = (solver.dantzig, default_solver.dantzig);
    let (l, ld) = (solver.lemke, default_solver.lemke);
    let (p, pd) = (solver.pgs, default_solver.pgs);
    let differs = [
        solver.tolerance != default_solver.tolerance,
        solver.lemke_coupled_from != default_solver.lemke_coupled_from,
        solver.dantzig_first_pivots != default_solver.dantzig_first_pivots,
        d.max_pivots != dd.max_pivots,
        d.max_total_pivots != dd.max_total_pivots,
        d.pivot_tolerance != dd.pivot_tolerance,
        d.zero_tolerance != dd.zero_tolerance,
        d.max_coupling_rounds != dd.max_coupling_rounds,
        d.coupling_tolerance != dd.coupling_tolerance,
        d.warm_start_rounds != dd.warm_start_rounds,
        d.record_trace != dd.record_trace,
        d.block_guess_from != dd.block_guess_from,
        l.max_pivots != ld.max_pivots,
        l.pivot_tolerance != ld.pivot_tolerance,
        l.zero_tolerance != ld.zero_tolerance,
        l.refactor_interval != ld.refactor_interval,
        l.fallback_zero_tolerance != ld.fallback_zero_tolerance,
        l.record_trace != ld.record_trace,
        p.omega != pd.omega,
        p.tolerance != pd.tolerance,
        p.max_sweeps != pd.max_sweeps,
    ];
    assert!(differs.iter().all(|&d| d), "{differs:?}");

    let file = SceneFile::parse(&text).unwrap();
    let mut scene = file.build().unwrap();
    assert_eq!(event_driven_params(&scene.stepper), (expected, 0.02));
    assert_eq!(scene.stepper.spec(&scene.world), file.stepper);
    for _ in 0..15 {
        scene.stepper.step(&mut scene.world).unwrap();
    }
    assert!(scene.world.bodies()[1].twist.linear.z > 0.0, "it bounced");
    let written = scene.snapshot().to_json();
    let restored = SceneFile::parse(&written).unwrap().build().unwrap();
    assert_eq!(restored.world, scene.world);
    assert_eq!(event_driven_params(&restored.stepper), (expected, 0.02));
}

/// A file of the first event-driven format (three solver settings) loads
/// with the others at their defaults.
#[test]
fn the_first_solver_settings_still_load() {
    let text = json!({
        "version": 1,
        "bodies": [ { "shape": { "sphere": { "radius": 0.2 } }, "mass": 1.0 } ],
        "stepper": { "event_driven": { "solver": {
            "tolerance": 1e-10, "pgs_tolerance": 1e-11, "pgs_max_sweeps": 500 } } }
    })
    .to_string();
    let scene = SceneFile::parse(&text).unwrap().build().unwrap();
    let (params, _) = event_driven_params(&scene.stepper);
    let mut expected = EventDrivenParams::default();
    expected.solver.tolerance = 1e-10;
    expected.solver.pgs.tolerance = 1e-11;
    expected.solver.pgs.max_sweeps = 500;
    assert_eq!(params, expected);
}

#[test]
fn each_bad_solver_setting_is_named_with_its_rule() {
    let cases = [
        (
            json!({ "pgs_omega": 2.0 }),
            "pgs_omega: must be > 0 and < 2",
        ),
        (
            json!({ "pgs_omega": 0.0 }),
            "pgs_omega: must be > 0 and < 2",
        ),
        (
            json!({ "pgs_max_sweeps": 0 }),
            "pgs_max_sweeps: must be >= 1",
        ),
        (
            json!({ "pgs_tolerance": 0.0 }),
            "pgs_tolerance: must be > 0",
        ),
        (json!({ "tolerance": -1.0 }), "tolerance: must be > 0"),
        (
            json!({ "dantzig_max_pivots": 0 }),
            "dantzig_max_pivots: must be >= 1",
        ),
        (
            json!({ "dantzig_max_total_pivots": 0 }),
            "dantzig_max_total_pivots: must be >= 1",
        ),
        (
            json!({ "dantzig_pivot_tolerance": -1e-9 }),
            "dantzig_pivot_tolerance: must be >= 0",
        ),
        (
            json!({ "dantzig_zero_tolerance": -1.0 }),
            "dantzig_zero_tolerance: must be >= 0",
        ),
        (
            json!({ "dantzig_max_coupling_rounds": 0 }),
            "dantzig_max_coupling_rounds: must be >= 1",
        ),
        (
            json!({ "dantzig_coupling_tolerance": -1.0 }),
            "dantzig_coupling_tolerance: must be >= 0",
        ),
        (
            json!({ "lemke_pivot_tolerance": -1.0 }),
            "lemke_pivot_tolerance: must be >= 0",
        ),
        (
            json!({ "lemke_zero_tolerance": -1.0 }),
            "lemke_zero_tolerance: must be >= 0",
        ),
        (
            json!({ "lemke_fallback_zero_tolerance": -1.0 }),
            "lemke_fallback_zero_tolerance: must be >= 0",
        ),
        (
            json!({ "lemke_max_pivots": -1 }),
            "lemke_max_pivots: invalid value: integer `-1`",
        ),
        (
            json!({ "dantzig_record_trace": 1 }),
            "dantzig_record_trace: invalid type",
        ),
        (
            json!({ "pgs_sweeps": 10 }),
            "pgs_sweeps: unknown field `pgs_sweeps`",
        ),
    ];
    let mut failures = Vec::new();
    for (solver, rule) in cases {
        let text = json!({
            "version": 1,
            "bodies": [ { "shape": { "sphere": { "radius": 0.2 } }, "mass": 1.0 } ],
            "stepper": { "event_driven": { "solver": solver } }
        })
        .to_string();
        let expected = format!("stepper.event_driven.solver.{rule}");
        match SceneFile::parse(&text).and_then(|file| file.build()) {
            Ok(_) => failures.push(format!("accepted {solver}")),
            Err(error) if error.to_string().starts_with(&expected) => {}
            Err(error) => failures.push(format!("expected `{expected}`, got `{error}`")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
