//! Bad scene files: every error names the JSON path of the field and the
//! rule it breaks, and nothing panics, whatever the file holds (random
//! edits of valid scenes).
#![cfg(feature = "serde")]

use std::panic::{AssertUnwindSafe, catch_unwind};

use contact_sim::scene_file::{SceneError, SceneFile};
use serde_json::{Value, json};

/// A small valid scene with a bit of everything.
fn base() -> Value {
    json!({
        "version": 1,
        "bodies": [
            { "name": "ground", "fixed": true, "shape": { "half_space": { "normal": [0, 0, 1] } } },
            { "name": "a", "shape": { "box": { "half_extents": [0.5, 0.5, 0.5] } }, "mass": 1.0,
              "position": [0, 0, 0.5] },
            { "name": "b", "shape": { "sphere": { "radius": 0.2 } }, "density": 1000.0,
              "position": [0, 0, 2], "orientation": { "axis_angle": { "axis": [0, 1, 0], "angle": 0.3 } } }
        ],
        "joints": [
            { "kind": "hinge", "body_a": "a", "body_b": "b", "anchor": [0, 0, 1.5], "axis": [0, 1, 0],
              "limit": { "lower": -1.0, "upper": 1.0 }, "motor": { "target_speed": 0.5, "max_effort": 2.0 } }
        ],
        "forces": [
            { "point_force": { "body": "a", "direction": [1, 0, 0],
                               "magnitude": { "table": [[0, 0], [1, 2]] } } },
            { "spring": { "a": { "point": [0, 0, 3] }, "b": { "body": "b" }, "stiffness": 10.0,
                          "rest_length": 0.5, "implicit": true } }
        ],
        "stepper": { "fixed": { "h": 0.01, "dynamics": { "formulation": "box_friction",
                                "stabilisation": { "joints": { "baumgarte": { "alpha": 20 } } } } } },
        "run": { "duration": 0.05 },
        "record": { "every": 2 },
        "expect": [ { "observable": "max_penetration", "at_most": 1e-6 },
                    { "observable": { "displacement": { "body": "a" } }, "value": 0, "tolerance": 1e-3 } ]
    })
}

/// `value` with the field at JSON pointer `pointer` set to `new` (created
/// in its object if absent), or removed when `new` is `None`.
fn edited(pointer: &str, new: Option<Value>) -> Value {
    let mut value = base();
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let parent = value
        .pointer_mut(parent)
        .unwrap_or_else(|| panic!("{pointer}"));
    match (parent, new) {
        (Value::Object(map), Some(new)) => {
            map.insert(key.to_string(), new);
        }
        (Value::Object(map), None) => {
            map.remove(key);
        }
        (Value::Array(list), Some(new)) => list[key.parse::<usize>().unwrap()] = new,
        (Value::Array(list), None) => {
            list.remove(key.parse::<usize>().unwrap());
        }
        _ => panic!("{pointer}"),
    }
    value
}

/// The base scene with `stepper` replaced.
fn with_stepper(stepper: Value) -> Value {
    let mut scene = base();
    scene["stepper"] = stepper;
    scene
}

/// Parses and builds `text`, returning the error's text.
fn error_of(text: &str) -> String {
    match SceneFile::parse(text).and_then(|file| file.build()) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn the_base_scene_is_valid() {
    let scene = SceneFile::parse(&base().to_string())
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(scene.world.bodies().len(), 3);
    assert_eq!(scene.world.joints().len(), 1);
    assert_eq!(scene.world.forces().len(), 2);
    assert_eq!(scene.expectations.len(), 2);
}

#[test]
fn each_bad_field_is_named_with_its_rule() {
    let cases: Vec<(Value, &str)> = vec![
        (
            edited("/bodies/1/shape/box/half_extents/1", Some(json!(-1.0))),
            "bodies[1].shape.box.half_extents[1]: must be > 0",
        ),
        (
            edited("/bodies/1/hieght", Some(json!(1.0))),
            "bodies[1].hieght: unknown field `hieght`, expected one of `name`, `shape`,",
        ),
        (
            edited("/version", Some(json!(2))),
            "version: version 2 is newer than this program reads (1)",
        ),
        (edited("/version", None), "version: missing"),
        (
            edited("/version", Some(json!("1"))),
            "version: must be the integer 1",
        ),
        (
            edited("/bodies/1/density", Some(json!(3.0))),
            "bodies[1].density: give mass or density, not both",
        ),
        (
            edited("/bodies/2/density", None),
            "bodies[2]: a moving body needs a mass or a density",
        ),
        (
            edited("/bodies/0/fixed", Some(json!(false))),
            "bodies[0].fixed: a half-space has no finite volume",
        ),
        (
            edited("/bodies/0/mass", Some(json!(1.0))),
            "bodies[0].mass: a fixed body has no mass",
        ),
        (
            edited("/joints/0/body_b", Some(json!("nobody"))),
            "joints[0].body_b: no body is named `nobody`",
        ),
        (
            edited("/joints/0/body_b", Some(json!(7))),
            "joints[0].body_b: no body 7: the scene has 3",
        ),
        (
            edited("/joints/0/body_b", Some(json!(-1))),
            "joints[0].body_b: invalid type: integer `-1`, expected a body's index",
        ),
        (
            edited("/joints/0/body_b", Some(json!("a"))),
            "joints[0].body_b: a joint needs two different bodies",
        ),
        (
            edited("/joints/0/body_b", Some(json!("ground"))),
            "joints[0].body_b: must be a moving body",
        ),
        (
            edited("/joints/0/limit/upper", Some(json!(-2.0))),
            "joints[0].limit.upper: must be >= lower",
        ),
        (
            edited("/joints/0/axis", None),
            "joints[0].axis: a hinge, prismatic or universal joint needs an axis",
        ),
        (
            edited("/joints/0/axis", Some(json!([0, 0, 0]))),
            "joints[0].axis: must be a nonzero vector",
        ),
        (
            edited("/joints/0/anchor", None),
            "joints[0]: give an anchor (and axis) in the world, or frame_a and frame_b",
        ),
        (
            edited("/joints/0/frame_a", Some(json!({}))),
            "joints[0].anchor: give an anchor or explicit frames, not both",
        ),
        (
            edited("/joints/0/kind", Some(json!("ball"))),
            "joints[0].limit: only hinge and prismatic joints have limits",
        ),
        (
            edited("/joints/0/motor/max_effort", Some(json!(-1.0))),
            "joints[0].motor.max_effort: must be >= 0",
        ),
        (
            edited("/joints/0/kind", Some(json!("screw"))),
            "joints[0].kind: unknown variant `screw`",
        ),
        (
            edited("/stepper/fixed/h", Some(json!(0.0))),
            "stepper.fixed.h: must be > 0",
        ),
        (
            edited(
                "/stepper/fixed/dynamics/friction_directions",
                Some(json!(5)),
            ),
            "stepper.fixed.dynamics.friction_directions: must be even and >= 4",
        ),
        (
            edited(
                "/stepper/fixed/dynamics/stabilisation/joints/baumgarte/alpha",
                Some(json!(-3)),
            ),
            "stepper.fixed.dynamics.stabilisation.joints.baumgarte.alpha: must be >= 0",
        ),
        (
            edited(
                "/stepper/fixed/dynamics/stabilisation/max_projections",
                Some(json!(0)),
            ),
            "stepper.fixed.dynamics.stabilisation.max_projections: must be >= 1",
        ),
        (
            with_stepper(json!({"conservative_advancement": {"max_step": -0.01}})),
            "stepper.conservative_advancement.max_step: must be > 0",
        ),
        (
            with_stepper(json!({"conservative_advancement": {"max_step": 1e-3, "min_step": 0.1}})),
            "stepper.conservative_advancement.min_step: must be <= max_step",
        ),
        (
            with_stepper(json!({"conservative_advancement": {"contact_band": 1e-12}})),
            "stepper.conservative_advancement.contact_band: must be >= touch_distance",
        ),
        (
            with_stepper(json!({"conservative_advancement": {"penetration_tolerance": "1e-9"}})),
            "stepper.conservative_advancement.penetration_tolerance: invalid type",
        ),
        (
            with_stepper(json!({"conservative_advancement": {"dynamics": {"islands": 1}}})),
            "stepper.conservative_advancement.dynamics.islands: invalid type",
        ),
        (
            with_stepper(json!({"event_driven": {"tolerance": 0.0}})),
            "stepper.event_driven.tolerance: must be > 0",
        ),
        (
            with_stepper(json!({"event_driven": {"frame": -0.01}})),
            "stepper.event_driven.frame: must be > 0",
        ),
        (
            with_stepper(json!({"event_driven": {"max_step": 1e-3, "min_step": 0.1}})),
            "stepper.event_driven.min_step: must be <= max_step",
        ),
        (
            with_stepper(json!({"event_driven": {"solver": {"pgs_max_sweeps": 0}}})),
            "stepper.event_driven.solver.pgs_max_sweeps: must be >= 1",
        ),
        (
            with_stepper(json!({"event_driven": {"method": "euler"}})),
            "stepper.event_driven.method: unknown variant `euler`",
        ),
        (
            with_stepper(json!({"event_driven": {"resting_speed": 1e-3, "sticking": 1e-6}})),
            "stepper.event_driven.sticking: unknown field `sticking`, expected one of `frame`",
        ),
        (
            with_stepper(json!({"event_driven": {}})),
            "joints: the event-driven stepper does not support joints",
        ),
        (edited("/stepper/euler", Some(json!({}))), "stepper: "),
        (
            edited(
                "/stepper/fixed/memory",
                Some(json!({"pending_bounces": [[5, 1.0], [2, 1.0]]})),
            ),
            "stepper.fixed.memory: step memory: pending_bounces[1] keys must increase strictly",
        ),
        (
            edited(
                "/bodies/1/orientation",
                Some(json!({"quaternion": [0, 0, 0, 2]})),
            ),
            "bodies[1].orientation.quaternion: must have unit length (within 1e-3; it has 2)",
        ),
        (
            edited(
                "/bodies/1/orientation",
                Some(json!({"quaternion": [0, 0, 1]})),
            ),
            "bodies[1].orientation.quaternion: invalid length 3, expected an array of length 4",
        ),
        (
            edited(
                "/bodies/1/shape",
                Some(json!({"convex_hull": {"points": [[0,0,0],[1,0,0],[0,1,0],[1,1,0]]}})),
            ),
            "bodies[1].shape.convex_hull.points: ",
        ),
        (
            edited(
                "/bodies/1/shape",
                Some(json!({"convex_hull": {"points": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}})),
            ),
            "bodies[1].shape: the centre of mass is at",
        ),
        (
            edited("/bodies/1/shape", Some(json!({"cylinder": {"radius": 1}}))),
            "bodies[1].shape: unknown variant `cylinder`",
        ),
        (
            edited("/bodies/1/restitution", Some(json!(2.0))),
            "bodies[1].restitution: must be in [0, 1]",
        ),
        (
            edited("/bodies/1/mass", Some(json!("heavy"))),
            "bodies[1].mass: invalid type: string \"heavy\", expected f64",
        ),
        (
            edited("/bodies/2/name", Some(json!("a"))),
            "bodies[2].name: `a` is also the name of bodies[1]",
        ),
        (
            edited("/bodies/0/linear_velocity", Some(json!([1, 0, 0]))),
            "bodies[0].linear_velocity: a fixed body cannot move",
        ),
        (
            edited(
                "/bodies/1/planar_lock",
                Some(json!({"plane_y": 0, "axis_in_body": [0, 2, 0]})),
            ),
            "bodies[1].planar_lock.axis_in_body: must be a unit vector",
        ),
        (
            edited(
                "/bodies/1/inertia",
                Some(json!([[1, 0, 0], [0, 1, 0], [0, 0, 3]])),
            ),
            "bodies[1].inertia: ",
        ),
        (
            edited("/run/steps", Some(json!(10))),
            "run.steps: give duration or steps, not both",
        ),
        (
            edited("/record/every", Some(json!(0))),
            "record.every: must be >= 1",
        ),
        (
            edited("/expect/1/tolerance", None),
            "expect[1].tolerance: missing: a value needs a tolerance",
        ),
        (edited("/expect/0/at_most", None), "expect[0]: give a bound"),
        (
            edited("/expect/1/observable/displacement/body", Some(json!("c"))),
            "expect[1].observable.displacement.body: no body is named `c`",
        ),
        (
            edited(
                "/forces/0/point_force/magnitude/table/1/0",
                Some(json!(-1.0)),
            ),
            "forces[0].point_force.magnitude.table[1][0]: times must increase",
        ),
        (
            edited("/forces/1/spring/a/body", Some(json!("b"))),
            "forces[1].spring.b.body: a spring needs two different bodies",
        ),
        (
            edited("/forces/1/spring/stiffness", Some(json!(-5))),
            "forces[1].spring.stiffness: must be >= 0",
        ),
        (
            edited("/gravity", Some(json!([0, 0]))),
            "gravity: invalid length 2, expected an array of length 3",
        ),
        (json!([1, 2]), "(file): a scene file is a JSON object"),
    ];
    let mut failures = Vec::new();
    for (value, expected) in &cases {
        let error = error_of(&serde_json::to_string_pretty(value).unwrap());
        if !error.starts_with(expected) && !error.contains(expected) {
            failures.push(format!("expected `{expected}`,\n     got `{error}`"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn text_that_is_not_json_is_placed_by_line_and_column() {
    let error = SceneFile::parse("{\n  \"version\": 1,\n  \"bodies\": [,]\n}").unwrap_err();
    assert!(
        matches!(error, SceneError::Syntax { line: 3, .. }),
        "{error}"
    );
    let error =
        SceneFile::parse(r#"{"version": 1, "bodies": [], "gravity": [0, 0, 1e999]}"#).unwrap_err();
    assert!(error.to_string().contains("out of range"), "{error}");
    let missing = SceneFile::load(std::path::Path::new("/nonexistent/scene.json")).unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("cannot read /nonexistent/scene.json")
    );
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every JSON pointer in `value`.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
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
    out.push(at);
}

/// A random replacement for a JSON value.
fn replacement(rng: &mut Rng) -> Option<Value> {
    let numbers = [
        0.0, -1.0, 1.0, 0.5, 3.0, -0.0, 1e308, -1e308, 1e-320, 1e-9, 7.0, 1e12, 2.5e-3,
    ];
    Some(match rng.below(12) {
        0..=4 => json!(numbers[rng.below(numbers.len())]),
        5 => json!(rng.below(10)),
        6 => json!(["x", "a", "b", "ground", "", "box", "hinge", "post"][rng.below(8)]),
        7 => json!(rng.below(2) == 0),
        8 => Value::Null,
        9 => json!([]),
        10 => json!({}),
        _ => return None,
    })
}

#[test]
fn random_edits_of_valid_scenes_give_errors_not_panics() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let mut bases = vec![base()];
    for entry in std::fs::read_dir(&root).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        bases.push(serde_json::from_str(&text).unwrap());
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut accepted, mut refused) = (0, 0);
    for trial in 0..3000 {
        let mut value = bases[trial % bases.len()].clone();
        let mut edits = Vec::new();
        // One to three edits.
        for _ in 0..=rng.below(3) {
            let mut all = Vec::new();
            pointers(&value, String::new(), &mut all);
            let pointer = all[rng.below(all.len())].clone();
            let new = replacement(&mut rng);
            edits.push(format!("{pointer} = {new:?}"));
            if pointer.is_empty() {
                value = new.unwrap_or(Value::Null);
                continue;
            }
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            match (value.pointer_mut(parent).unwrap(), new) {
                (Value::Object(map), Some(new)) => {
                    map.insert(key.to_string(), new);
                }
                (Value::Object(map), None) => {
                    map.remove(key);
                }
                (Value::Array(list), Some(new)) => list[key.parse::<usize>().unwrap()] = new,
                (Value::Array(list), None) => {
                    list.remove(key.parse::<usize>().unwrap());
                }
                _ => unreachable!(),
            }
        }
        let text = value.to_string();
        let clock = std::time::Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            match SceneFile::parse(&text).and_then(|file| file.build()) {
                Ok(mut scene) => {
                    // A scene that builds must step, or fail with an error.
                    // Small ones only: an edit such as a gravity of 1e12
                    // sends Lemke to its pivot limit (an error, as it
                    // should), which on the gallery's stacks takes minutes
                    // in a debug build.
                    let steps = if scene.world.bodies().len() <= 4 {
                        2
                    } else {
                        0
                    };
                    for _ in 0..steps {
                        if scene.stepper.step(&mut scene.world).is_err() {
                            break;
                        }
                    }
                    true
                }
                Err(error) => {
                    assert!(!error.to_string().is_empty());
                    false
                }
            }
        }));
        if clock.elapsed().as_secs_f64() > 0.5 {
            eprintln!(
                "SLOW {:.2} s: base {} {edits:?}",
                clock.elapsed().as_secs_f64(),
                trial % bases.len()
            );
        }
        match outcome {
            Ok(true) => accepted += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!("trial {trial} panicked on:\n{text}"),
        }
    }
    // The edits hit both valid and invalid values.
    assert!(
        accepted > 100 && refused > 1000,
        "{accepted} accepted, {refused} refused"
    );
}
