//! Bad stepper memories in scene files (what a snapshot writes for a
//! stepper to continue bit for bit): every error names the JSON path of
//! the field and the rule it breaks, and no edit of a snapshot's memory
//! makes loading or stepping panic.
#![cfg(feature = "serde")]

use std::panic::{AssertUnwindSafe, catch_unwind};

use contact_sim::scene_file::SceneFile;
use serde_json::{Value, json};

/// Ground, a box and a sphere (no joints: every stepper takes it) with
/// `stepper`.
fn scene(stepper: Value) -> Value {
    json!({
        "version": 1,
        "bodies": [
            { "fixed": true, "friction": 0.5, "shape": { "half_space": { "normal": [0, 0, 1] } } },
            { "shape": { "box": { "half_extents": [0.3, 0.2, 0.1] } }, "mass": 2.0,
              "position": [0, 0, 0.1], "linear_velocity": [1.0, 0, 0], "friction": 0.5 },
            { "shape": { "sphere": { "radius": 0.1 } }, "mass": 0.5, "position": [2, 0, 0.3],
              "restitution": 0.5 }
        ],
        "stepper": stepper
    })
}

/// A contact between the ground's face and a corner of the box.
fn contact() -> Value {
    json!({ "bodies": [0, 1],
            "features": [ { "face": { "local": [0, 0, 0], "normal": [0, 0, 1] } },
                          { "point": { "local": [0.3, 0.2, -0.1], "radius": 0 } } ],
            "friction": 0.5 })
}

fn ca(memory: Value) -> Value {
    scene(json!({ "conservative_advancement": { "memory": memory } }))
}

fn event_driven(memory: Value) -> Value {
    scene(json!({ "event_driven": { "memory": memory } }))
}

/// An event-driven memory with `field` of its sliding contact set to
/// `value` (JSON pointer inside the contact).
fn sliding_with(pointer: &str, value: Value) -> Value {
    let mut contact = contact();
    *contact.pointer_mut(pointer).unwrap() = value;
    event_driven(json!({ "next_step": 1e-3, "sliding": [contact] }))
}

fn error_of(value: &Value) -> String {
    let text = serde_json::to_string_pretty(value).unwrap();
    match SceneFile::parse(&text).and_then(|file| file.build()) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn valid_memories_load() {
    for value in [
        ca(
            json!({ "held": [[0, 1]], "drift": 0.5, "cull_distance": 0.1,
                   "dynamics": { "pending_bounces": [[3, 1.0]] } }),
        ),
        event_driven(
            json!({ "next_step": 1e-3, "stalls": 2, "sliding": [contact()],
                             "indeterminate": contact(), "reference_forces": [1.0, -2.0] }),
        ),
    ] {
        let file = SceneFile::parse(&value.to_string()).unwrap();
        let mut scene = file.build().unwrap();
        scene.stepper.step(&mut scene.world).unwrap();
    }
}

#[test]
fn each_bad_memory_field_is_named_with_its_rule() {
    let ca_path = "stepper.conservative_advancement.memory";
    let ed_path = "stepper.event_driven.memory";
    let cases: Vec<(Value, String)> = vec![
        (
            ca(json!({ "held": [[1, 0]] })),
            format!("{ca_path}.held[0]: a pair is [a, b] with a < b"),
        ),
        (
            ca(json!({ "held": [[0, 7]] })),
            format!("{ca_path}.held[0][1]: no body 7: the scene has 3"),
        ),
        (
            ca(json!({ "held": [[0, 2], [0, 1]] })),
            format!("{ca_path}.held[1]: pairs must increase"),
        ),
        (
            ca(json!({ "drift": -1.0 })),
            format!("{ca_path}.drift: must be >= 0"),
        ),
        (
            ca(json!({ "cull_distance": 0.0 })),
            format!("{ca_path}.cull_distance: must be > 0"),
        ),
        (
            ca(json!({ "dynamics": { "pending_bounces": [[1, -2.0]] } })),
            format!(
                "{ca_path}.dynamics: step memory: pending_bounces[0] speed must be finite and >= 0"
            ),
        ),
        (
            {
                let mut value = ca(json!({ "cull_distance": 0.1 }));
                value["bodies"][1]["position"] = json!([0, 0, 0.05]);
                value
            },
            format!("{ca_path}: bodies 0 and 1 start at signed distance"),
        ),
        (
            ca(json!({ "helds": [] })),
            format!("{ca_path}.helds: unknown field `helds`"),
        ),
        (
            event_driven(json!({ "stalls": 1 })),
            format!("{ed_path}: missing field `next_step`"),
        ),
        (
            event_driven(json!({ "next_step": 0.0 })),
            format!("{ed_path}.next_step: must be > 0"),
        ),
        (
            sliding_with("/bodies", json!([1, 1])),
            format!("{ed_path}.sliding[0].bodies: two different bodies"),
        ),
        (
            sliding_with("/bodies", json!([0, 9])),
            format!("{ed_path}.sliding[0].bodies[1]: no body 9: the scene has 3"),
        ),
        (
            sliding_with(
                "/features/1",
                json!({ "face": { "local": [0, 0, 0], "normal": [0, 0, -1] } }),
            ),
            format!("{ed_path}.sliding[0].features: this pair of features has no gap formula"),
        ),
        (
            sliding_with("/features/0/face/normal", json!([0, 0, 2])),
            format!(
                "{ed_path}.sliding[0].features: an edge direction or face normal is not a unit vector"
            ),
        ),
        (
            sliding_with("/features/1/point/radius", json!(-0.1)),
            format!("{ed_path}.sliding[0].features[1].point.radius: must be >= 0"),
        ),
        (
            sliding_with("/friction", json!(-1.0)),
            format!("{ed_path}.sliding[0].friction: must be >= 0"),
        ),
        (
            {
                let mut contact = contact();
                contact["restitution"] = json!(1.5);
                event_driven(json!({ "next_step": 1e-3, "indeterminate": contact }))
            },
            format!("{ed_path}.indeterminate.restitution: must be <= 1"),
        ),
        (
            {
                let mut contact = contact();
                contact["edge_sign"] = json!(0);
                event_driven(json!({ "next_step": 1e-3, "sliding": [contact] }))
            },
            format!("{ed_path}.sliding[0].edge_sign: must be 1 or -1"),
        ),
    ];
    let mut failures = Vec::new();
    for (value, expected) in &cases {
        let error = error_of(value);
        if !error.starts_with(expected.as_str()) {
            failures.push(format!("expected `{expected}`,\n     got `{error}`"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Numbers JSON cannot hold exactly (`1e400`) are refused where a memory
/// holds them, as everywhere.
#[test]
fn a_number_too_large_is_refused() {
    let text = ca(json!({ "drift": 1.0 }))
        .to_string()
        .replace("\"drift\":1.0", "\"drift\":1e400");
    assert!(text.contains("1e400"));
    let error = SceneFile::parse(&text).unwrap_err().to_string();
    assert!(error.contains("number out of range"), "{error}");
}

/// A small generator (xorshift) for the edits.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// The JSON pointers of every value under `value`.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                pointers(child, format!("{at}/{key}"), out);
            }
        }
        Value::Array(list) => {
            for (i, child) in list.iter().enumerate() {
                pointers(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn random_edits_of_memories_give_errors_not_panics() {
    // Snapshots of both steppers with their memories in use.
    let mut bases = Vec::new();
    for (stepper, steps) in [
        (
            json!({ "conservative_advancement": { "max_step": 0.005 } }),
            40,
        ),
        (
            json!({ "event_driven": { "frame": 0.0123, "tolerance": 1e-12 } }),
            5,
        ),
    ] {
        let mut scene = SceneFile::parse(&scene(stepper).to_string())
            .unwrap()
            .build()
            .unwrap();
        for _ in 0..steps {
            scene.stepper.step(&mut scene.world).unwrap();
        }
        let base = serde_json::to_value(scene.snapshot()).unwrap();
        let memory = base["stepper"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap()["memory"]
            .clone();
        assert!(memory.as_object().is_some_and(|m| m.len() >= 2), "{memory}");
        bases.push(base);
    }
    let replacements = [
        json!(-1),
        json!(0),
        json!(1),
        json!(7),
        json!(0.5),
        json!(-1e300),
        json!(1e300),
        json!("x"),
        json!(null),
        json!([]),
        json!([0, 1]),
        json!({}),
    ];
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut accepted, mut refused) = (0, 0);
    for trial in 0..600 {
        let mut value = bases[trial % bases.len()].clone();
        let memory = value["stepper"]
            .as_object()
            .and_then(|stepper| stepper.values().next())
            .map(|spec| spec["memory"].clone())
            .unwrap();
        let mut all = Vec::new();
        pointers(&memory, String::new(), &mut all);
        let pointer = &all[1 + rng.below(all.len() - 1)];
        let name = value["stepper"]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        let full = format!("/stepper/{name}/memory{pointer}");
        let new = replacements[rng.below(replacements.len())].clone();
        *value.pointer_mut(&full).unwrap() = new;
        let text = value.to_string();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            match SceneFile::parse(&text).and_then(|file| file.build()) {
                Ok(mut scene) => {
                    for _ in 0..2 {
                        if scene.stepper.step(&mut scene.world).is_err() {
                            break;
                        }
                    }
                    true
                }
                Err(error) => {
                    assert!(error.to_string().contains("memory"), "{error}");
                    false
                }
            }
        }));
        match outcome {
            Ok(true) => accepted += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!("trial {trial} panicked on {full}:\n{text}"),
        }
    }
    assert!(
        accepted > 50 && refused > 100,
        "{accepted} accepted, {refused} refused"
    );
}
