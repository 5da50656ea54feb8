//! Each field a stepper carries into its next step and a snapshot writes
//! changes what comes after when it is dropped (where a scenario shows it
//! at all: see `scene_snapshot.rs` for the round trips that check every
//! field is read back): conservative advancement's drift and held pairs,
//! the event-driven stepper's sliding contacts. (The velocity step's
//! memory and the event-driven next step are shown in
//! `scene_snapshot.rs`.)
#![cfg(feature = "serde")]

use contact_sim::glam::DVec3;
use contact_sim::scene_file::{CaMemorySpec, Scene, SceneFile, SceneStepper, StepperSpec};
use contact_sim::{BodyId, CaEventKind, EventKind, Twist};
use serde_json::json;

/// Ground, a stack of two cubes and a cube spinning down beside them,
/// conservative advancement with its default settings.
fn ca_pile() -> Scene {
    let cube = |position: [f64; 3], spin: [f64; 3], restitution: f64| {
        json!({ "shape": { "box": { "half_extents": [0.2, 0.2, 0.2] } }, "mass": 1.0,
                "position": position, "angular_velocity": spin, "friction": 0.5,
                "restitution": restitution })
    };
    let text = json!({
        "version": 1,
        "bodies": [
            { "fixed": true, "friction": 0.5, "shape": { "half_space": { "normal": [0, 0, 1] } } },
            cube([0.0, 0.0, 0.2], [0.0, 0.0, 0.0], 0.0),
            cube([0.03, 0.02, 0.6], [0.0, 0.0, 0.5], 0.0),
            cube([1.0, 0.0, 0.45], [2.0, 5.0, 1.0], 0.4),
        ],
        "stepper": { "conservative_advancement": {} }
    })
    .to_string();
    let mut scene = SceneFile::parse(&text).unwrap().build().unwrap();
    for _ in 0..30 {
        scene.stepper.step(&mut scene.world).unwrap();
    }
    scene
}

/// `file` with its conservative-advancement memory changed by `change`,
/// built.
fn ca_with(file: &SceneFile, change: impl FnOnce(&mut CaMemorySpec)) -> Scene {
    let mut file = file.clone();
    match &mut file.stepper {
        StepperSpec::ConservativeAdvancement(ca) => change(ca.memory.as_mut().unwrap()),
        other => panic!("{other:?}"),
    }
    file.build().unwrap()
}

fn ca_events(scene: &mut Scene, steps: usize) -> Vec<contact_sim::CaEvent> {
    let SceneStepper::ConservativeAdvancement(stepper) = &mut scene.stepper else {
        panic!("not conservative advancement");
    };
    for _ in 0..steps {
        stepper.step(&mut scene.world).unwrap();
    }
    stepper.events().to_vec()
}

/// The drift limits the steps of the pile right after the snapshot:
/// without it they are longer, and the run goes elsewhere.
#[test]
fn conservative_advancement_without_its_drift_continues_otherwise() {
    let snapshot = ca_pile().snapshot();
    let mut restored = ca_with(&snapshot, |_| {});
    let mut forgetful = ca_with(&snapshot, |memory| {
        assert!(memory.drift > 0.0);
        memory.drift = 0.0;
    });
    let (a, b) = (
        ca_events(&mut restored, 200),
        ca_events(&mut forgetful, 200),
    );
    assert_ne!(restored.world, forgetful.world, "{a:?}\n{b:?}");
}

/// A held pair touches anywhere within the contact band: lifted 50 nm
/// (beyond the touch distance, within the band), the stack's bottom cube
/// still touches the ground for a restored stepper, while one without its
/// held pairs sees the pair apart and logs a touch when it lands.
#[test]
fn conservative_advancement_without_its_held_pairs_logs_other_events() {
    let snapshot = ca_pile().snapshot();
    let mut restored = ca_with(&snapshot, |_| {});
    let mut forgetful = ca_with(&snapshot, |memory| {
        assert!(memory.held.contains(&(0, 1)), "{:?}", memory.held);
        memory.held.clear();
    });
    let touches = |scene: &mut Scene| {
        for body in [BodyId(1), BodyId(2)] {
            scene.world.body_mut(body).pose.translation.z += 5e-8;
        }
        let events = ca_events(scene, 3);
        events
            .iter()
            .filter(|e| (e.body_a, e.body_b) == (0, 1) && e.kind == CaEventKind::Touch)
            .count()
    };
    assert_eq!(touches(&mut restored), 0);
    assert_eq!(touches(&mut forgetful), 1);
}

/// A box sliding on the ground, stopped between two frames: the stepper
/// that knows its contacts slid logs them sticking; one without its
/// sliding contacts does not.
#[test]
fn the_event_driven_stepper_without_its_sliding_contacts_logs_no_stick() {
    let text = json!({
        "version": 1,
        "bodies": [
            { "fixed": true, "friction": 0.3, "shape": { "half_space": { "normal": [0, 0, 1] } } },
            { "shape": { "box": { "half_extents": [0.3, 0.2, 0.1] } }, "mass": 2.0,
              "position": [0.0, 0.0, 0.1], "linear_velocity": [2.0, 0.5, 0.0],
              "angular_velocity": [0.0, 0.0, 3.0], "friction": 0.3 }
        ],
        "stepper": { "event_driven": { "frame": 0.01 } }
    })
    .to_string();
    let mut running = SceneFile::parse(&text).unwrap().build().unwrap();
    for _ in 0..10 {
        running.stepper.step(&mut running.world).unwrap();
    }
    let snapshot = running.snapshot();
    let mut forgetful_file = snapshot.clone();
    match &mut forgetful_file.stepper {
        StepperSpec::EventDriven(event_driven) => {
            let memory = event_driven.memory.as_mut().unwrap();
            assert!(!memory.sliding.is_empty());
            memory.sliding.clear();
        }
        other => panic!("{other:?}"),
    }
    let sticks = |file: &SceneFile| {
        let mut scene = file.build().unwrap();
        scene.world.body_mut(BodyId(1)).twist = Twist::new(DVec3::ZERO, DVec3::ZERO);
        let SceneStepper::EventDriven { stepper, frame } = &mut scene.stepper else {
            panic!("not event-driven");
        };
        stepper.advance(&mut scene.world, *frame).unwrap();
        (stepper.events().iter())
            .filter(|e| matches!(e.kind, EventKind::Stick { .. }))
            .count()
    };
    assert!(sticks(&snapshot) > 0);
    assert_eq!(sticks(&forgetful_file), 0);
}
