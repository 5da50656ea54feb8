//! A running scene saved to a file and loaded back continues bit for bit,
//! whichever its stepper: bodies, clock and what the stepper carries into
//! its next step (the fixed stepper's pending bounces and warm starts;
//! conservative advancement's held pairs, drift and cull distance besides;
//! the event-driven stepper's next step size, sliding contacts and the
//! forces' reference). Each carried field is shown to matter by a run
//! restored without it.
#![cfg(feature = "serde")]

use contact_sim::scene_file::{
    CaMemorySpec, EventDrivenMemorySpec, Scene, SceneFile, SceneStepper, StepMemorySpec,
    StepperSpec,
};
use contact_sim::{BodyId, CaStepper, EventDrivenStepper, World};
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

/// `file` written to disk, read back and built.
fn restore_through_disk(file: &SceneFile, name: &str) -> Scene {
    let path = std::env::temp_dir().join(format!(
        "contact-snapshot-{name}-{}.json",
        std::process::id()
    ));
    std::fs::write(&path, file.to_json()).unwrap();
    let loaded = SceneFile::load(&path);
    std::fs::remove_file(&path).unwrap();
    loaded.unwrap().build().unwrap()
}

/// Ground, a cube spinning down onto it with restitution, and a stack of
/// two cubes resting on it; box friction solved sparse (warm starts).
fn cube_pile(stepper: serde_json::Value) -> Scene {
    let cube = |name: &str, position: [f64; 3], spin: [f64; 3], restitution: f64| {
        json!({ "name": name, "shape": { "box": { "half_extents": [0.2, 0.2, 0.2] } },
                "mass": 1.0, "position": position, "angular_velocity": spin,
                "friction": 0.5, "restitution": restitution })
    };
    let text = json!({
        "version": 1,
        "bodies": [
            { "name": "ground", "fixed": true, "friction": 0.5,
              "shape": { "half_space": { "normal": [0, 0, 1] } } },
            cube("bottom", [0.0, 0.0, 0.2], [0.0, 0.0, 0.0], 0.0),
            cube("top", [0.03, 0.02, 0.6], [0.0, 0.0, 0.5], 0.0),
            cube("spinner", [1.0, 0.0, 0.45], [2.0, 5.0, 1.0], 0.4),
        ],
        "stepper": stepper
    })
    .to_string();
    SceneFile::parse(&text).unwrap().build().unwrap()
}

fn ca_memory(file: &SceneFile) -> &CaMemorySpec {
    match &file.stepper {
        StepperSpec::ConservativeAdvancement(ca) => ca.memory.as_ref().expect("a memory"),
        other => panic!("{other:?}"),
    }
}

/// The conservative-advancement stepper and the world of `scene`.
fn ca_parts(scene: &mut Scene) -> (&mut CaStepper, &mut World) {
    match &mut scene.stepper {
        SceneStepper::ConservativeAdvancement(stepper) => (stepper, &mut scene.world),
        other => panic!("{other:?}"),
    }
}

/// Conservative advancement: a snapshot taken while pairs are held
/// touching, the drift is measured, warm starts are kept and a bounce is
/// pending continues bit for bit (every step report, event and statistic
/// after it), and is written back the same (so every carried field is read
/// into the stepper); without the velocity step's memory it does not
/// continue the same way (the other fields: `scene_snapshot_fields.rs`).
#[test]
fn a_conservative_advancement_snapshot_continues_bit_for_bit() {
    let mut running = cube_pile(json!({ "conservative_advancement": {
        "max_step": 0.005,
        "dynamics": { "formulation": "box_friction", "sparse_from": 1 } } }));
    let mut steps = 0;
    let snapshot = loop {
        step(&mut running, 1);
        steps += 1;
        let file = running.snapshot();
        if !ca_memory(&file).dynamics.pending_bounces.is_empty() {
            break file;
        }
        assert!(steps < 2000, "the spinner never bounced");
    };
    let memory = ca_memory(&snapshot);
    assert!(
        memory.held.len() >= 2
            && memory.drift > 0.0
            && memory.cull_distance.is_some()
            && !memory.dynamics.active_sets.is_empty(),
        "{memory:?}"
    );
    let text = snapshot.to_json();
    let mut restored = restore_through_disk(&snapshot, "ca");
    assert_eq!(restored.world, running.world);
    assert!(
        restored.snapshot().to_json() == text,
        "saved again, not the same file"
    );
    let mut forgetful_file = snapshot.clone();
    if let StepperSpec::ConservativeAdvancement(ca) = &mut forgetful_file.stepper {
        ca.memory.as_mut().unwrap().dynamics = StepMemorySpec::default();
    }
    let mut forgetful = forgetful_file.build().unwrap();

    let (a, world_a) = ca_parts(&mut running);
    let (b, world_b) = ca_parts(&mut restored);
    a.clear_events();
    a.reset_statistics();
    for _ in 0..150 {
        assert_eq!(a.step(world_a).unwrap(), b.step(world_b).unwrap());
        step(&mut forgetful, 1);
    }
    assert!(!a.events().is_empty());
    assert_eq!(a.events(), b.events());
    assert_eq!(a.statistics(), b.statistics());
    assert_eq!(restored.world, running.world, "the restored run drifted");
    assert_eq!(restored.snapshot(), running.snapshot());
    assert_ne!(
        forgetful.world, running.world,
        "the velocity step's memory made no difference"
    );
}

fn event_driven_memory(file: &SceneFile) -> Option<&EventDrivenMemorySpec> {
    match &file.stepper {
        StepperSpec::EventDriven(event_driven) => event_driven.memory.as_ref(),
        other => panic!("{other:?}"),
    }
}

/// The event-driven stepper and the world of `scene`.
fn event_driven_parts(scene: &mut Scene) -> (&mut EventDrivenStepper, f64, &mut World) {
    match &mut scene.stepper {
        SceneStepper::EventDriven { stepper, frame } => (stepper, *frame, &mut scene.world),
        other => panic!("{other:?}"),
    }
}

/// The event-driven stepper: a snapshot taken while a spinning box slides
/// on the ground (its contacts sliding, the forces' reference kept, the
/// error control's next step set) continues bit for bit (every report and
/// event after it) and is written back the same; without its next step it
/// does not continue the same way (the other fields:
/// `scene_snapshot_fields.rs`).
#[test]
fn an_event_driven_snapshot_continues_bit_for_bit() {
    let text = json!({
        "version": 1,
        "bodies": [
            { "fixed": true, "friction": 0.3, "shape": { "half_space": { "normal": [0, 0, 1] } } },
            { "shape": { "box": { "half_extents": [0.3, 0.2, 0.1] } }, "mass": 2.0,
              "position": [0.0, 0.0, 0.1], "orientation": { "axis_angle": { "axis": [0, 0, 1], "angle": 0.3 } },
              "linear_velocity": [2.0, 0.5, 0.0], "angular_velocity": [0.0, 0.0, 3.0],
              "friction": 0.3 },
            { "shape": { "sphere": { "radius": 0.1 } }, "mass": 0.5, "position": [-1.0, 0.0, 0.4],
              "linear_velocity": [0.0, 0.3, 0.0], "restitution": 0.5, "friction": 0.3 }
        ],
        "stepper": { "event_driven": { "frame": 0.0123, "tolerance": 1e-12 } }
    })
    .to_string();
    let mut running = SceneFile::parse(&text).unwrap().build().unwrap();
    step(&mut running, 10);
    let snapshot = running.snapshot();
    let memory = event_driven_memory(&snapshot).expect("a memory");
    assert!(
        !memory.sliding.is_empty()
            && !memory.reference_forces.is_empty()
            && memory.next_step < 0.01,
        "{memory:?}"
    );
    let text = snapshot.to_json();
    let mut restored = restore_through_disk(&snapshot, "event-driven");
    assert_eq!(restored.world, running.world);
    assert!(
        restored.snapshot().to_json() == text,
        "saved again, not the same file"
    );
    let mut forgetful_file = snapshot.clone();
    if let StepperSpec::EventDriven(event_driven) = &mut forgetful_file.stepper {
        event_driven.memory.as_mut().unwrap().next_step = event_driven.max_step;
    }
    let mut forgetful = forgetful_file.build().unwrap();

    let (a, frame, world_a) = event_driven_parts(&mut running);
    let (b, _, world_b) = event_driven_parts(&mut restored);
    a.clear_events();
    for _ in 0..60 {
        assert_eq!(
            a.advance(world_a, frame).unwrap(),
            b.advance(world_b, frame).unwrap()
        );
        step(&mut forgetful, 1);
    }
    assert!(!a.events().is_empty());
    assert_eq!(a.events(), b.events());
    assert_eq!(restored.world, running.world, "the restored run drifted");
    assert_eq!(restored.snapshot(), running.snapshot());
    assert_ne!(
        forgetful.world, running.world,
        "the next step made no difference"
    );
}

/// A world changed after the snapshot (the stack lifted 50 nm, the
/// spinner pushed) continues the same from the running scene and from the
/// restored one: both measure the changed state afresh, as they would
/// have measured the unchanged one the same way.
#[test]
fn a_conservative_advancement_snapshot_changed_after_it_continues_the_same() {
    let mut running = cube_pile(json!({ "conservative_advancement": {} }));
    step(&mut running, 40);
    let mut restored = restore_through_disk(&running.snapshot(), "ca-changed");
    for scene in [&mut running, &mut restored] {
        for body in [BodyId(1), BodyId(2)] {
            scene.world.body_mut(body).pose.translation.z += 5e-8;
        }
        scene.world.body_mut(BodyId(3)).twist.linear.x += 0.3;
    }
    let (a, world_a) = ca_parts(&mut running);
    let (b, world_b) = ca_parts(&mut restored);
    a.clear_events();
    for _ in 0..100 {
        assert_eq!(a.step(world_a).unwrap(), b.step(world_b).unwrap());
    }
    assert_eq!(a.events(), b.events());
    assert_eq!(restored.world, running.world);
}
