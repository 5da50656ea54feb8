//! A running scene saved to a file and loaded back continues bit for bit:
//! bodies, clock and the fixed stepper's memory (pending bounces, warm
//! starts of the sparse box solves); the other steppers keep their settings.
#![cfg(feature = "serde")]

use contact_sim::scene_file::{Scene, SceneFile, StepperSpec};
use serde_json::json;

/// A bouncing ball (restitution: bounces wait in the stepper's memory) and
/// a small stack solved sparse (warm starts in its memory).
fn scene() -> Scene {
    let cube = |name: &str, x: f64, z: f64| {
        json!({ "name": name, "shape": { "box": { "half_extents": [0.25, 0.25, 0.25] } },
                "mass": 1.0, "position": [x, 0.1 * z, z], "friction": 0.6,
                "angular_velocity": [0.0, 0.3 * x, 0.0] })
    };
    let text = json!({
        "version": 1,
        "bodies": [
            { "name": "ground", "fixed": true, "shape": { "half_space": { "normal": [0, 0, 1] } } },
            { "name": "ball", "shape": { "sphere": { "radius": 0.2 } }, "density": 500.0,
              "position": [3.0, 0.0, 0.6], "linear_velocity": [0.5, 0.0, -2.0],
              "restitution": 0.7 },
            cube("a", 0.0, 0.25), cube("b", 0.05, 0.75), cube("c", -1.0, 0.6)
        ],
        "stepper": { "fixed": { "h": 0.005, "dynamics": { "formulation": "box_friction",
                                                         "sparse_from": 1 } } }
    })
    .to_string();
    SceneFile::parse(&text).unwrap().build().unwrap()
}

fn step(scene: &mut Scene, steps: usize) {
    for _ in 0..steps {
        scene.stepper.step(&mut scene.world).unwrap();
    }
}

fn memory_of(file: &SceneFile) -> (usize, usize) {
    match &file.stepper {
        StepperSpec::Fixed(fixed) => fixed
            .memory
            .as_ref()
            .map_or((0, 0), |m| (m.pending_bounces.len(), m.active_sets.len())),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_snapshot_continues_bit_for_bit() {
    let mut running = scene();
    // Step until a bounce is pending: the snapshot must carry it.
    let mut steps = 0;
    let snapshot = loop {
        step(&mut running, 1);
        steps += 1;
        let file = running.snapshot();
        if memory_of(&file).0 > 0 {
            break file;
        }
        assert!(steps < 400, "the ball never bounced");
    };
    let (bounces, active) = memory_of(&snapshot);
    assert!(
        bounces > 0 && active > 0,
        "{bounces} bounces, {active} active rows"
    );
    let text = snapshot.to_json();
    let mut restored = SceneFile::parse(&text).unwrap().build().unwrap();
    assert_eq!(restored.world, running.world);
    assert_eq!(
        restored.snapshot().to_json(),
        text,
        "saved again, the same file"
    );

    // Without its memory, the same state does not continue the same way:
    // the memory is what the comparison below tests.
    let mut forgetful_file = snapshot.clone();
    if let StepperSpec::Fixed(fixed) = &mut forgetful_file.stepper {
        fixed.memory = None;
    }
    let mut forgetful = forgetful_file.build().unwrap();

    step(&mut running, 80);
    step(&mut restored, 80);
    step(&mut forgetful, 80);
    assert_eq!(restored.world, running.world, "the restored run drifted");
    assert_ne!(
        forgetful.world, running.world,
        "the memory made no difference"
    );
}

#[test]
fn a_conservative_advancement_snapshot_keeps_its_settings() {
    let text = json!({
        "version": 1,
        "bodies": [
            { "fixed": true, "shape": { "half_space": { "normal": [0, 0, 1] } } },
            { "shape": { "sphere": { "radius": 0.2 } }, "mass": 1.0, "position": [0, 0, 0.5] }
        ],
        "stepper": { "conservative_advancement": { "max_step": 0.005, "penetration_tolerance": 1e-8 } }
    })
    .to_string();
    let mut scene = SceneFile::parse(&text).unwrap().build().unwrap();
    step(&mut scene, 20);
    let file = scene.snapshot();
    assert_eq!(file.stepper, scene.stepper.spec());
    let restored = SceneFile::parse(&file.to_json()).unwrap().build().unwrap();
    assert_eq!(restored.world, scene.world);
    assert_eq!(restored.stepper.spec(), file.stepper);
    assert!(!restored.stepper.restores_exactly());
}

/// Every event-driven setting survives a file: written by a snapshot,
/// read back, the same settings and state; its carried state is not
/// written, which `restores_exactly` says.
#[test]
fn an_event_driven_snapshot_keeps_every_setting() {
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
            "solver": { "tolerance": 1e-10, "pgs_tolerance": 1e-11, "pgs_max_sweeps": 500 } } }
    })
    .to_string();
    let file = SceneFile::parse(&text).unwrap();
    let mut scene = file.build().unwrap();
    assert_eq!(scene.stepper.spec(), file.stepper, "every setting read");
    assert_eq!(scene.stepper.nominal_step(), 0.02);
    // Through the first impact (t = 0.247 s) and a little after.
    let mut time = 0.0;
    for _ in 0..15 {
        let step = scene.stepper.step(&mut scene.world).unwrap();
        assert!((step.duration - 0.02).abs() < 1e-15, "{}", step.duration);
        time += step.duration;
    }
    assert!((scene.world.time() - time).abs() < 1e-12);
    assert!(scene.world.bodies()[1].twist.linear.z > 0.0, "it bounced");
    let snapshot = scene.snapshot();
    assert_eq!(snapshot.stepper, file.stepper);
    let written = snapshot.to_json();
    assert_eq!(SceneFile::parse(&written).unwrap(), snapshot);
    let restored = SceneFile::parse(&written).unwrap().build().unwrap();
    assert_eq!(restored.world, scene.world);
    assert_eq!(restored.stepper.spec(), file.stepper);
    assert!(!restored.stepper.restores_exactly());
}
