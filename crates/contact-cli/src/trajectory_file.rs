//! Reading a trajectory file (the JSON document `contact run --out
//! TRAJ.json` writes) for `contact view` and `contact plot`, refusing a
//! malformed one with what is wrong and where: the JSON path, and the line
//! and column for a syntax or type error.
//!
//! Two passes: the JSON syntax and the field types (with
//! `serde_path_to_error`), then the values: the format and its version,
//! shapes that can be drawn, poses for every body in every frame, unit
//! quaternions, times in order, body indices that exist. Numbers are
//! finite by construction: JSON has no NaN or infinity, and a number out of
//! the f64 range is a syntax error.

use std::fmt;
use std::path::{Path, PathBuf};

use contact_sim::trajectory::{ShapeGeometry, TRAJECTORY_FORMAT, TRAJECTORY_VERSION, Trajectory};

/// What is wrong with a trajectory file.
#[derive(Debug)]
pub struct TrajectoryFileError {
    /// The file.
    pub file: PathBuf,
    /// Where in it: a JSON path (`frames[3].poses[1]`), with the line and
    /// column for syntax and type errors; empty for the whole file.
    pub location: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TrajectoryFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.location.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "{}: {}: {}",
                self.file.display(),
                self.location,
                self.message
            )
        }
    }
}

impl std::error::Error for TrajectoryFileError {}

/// Reads and checks the trajectory in `file`.
///
/// # Errors
/// When the file cannot be read, is not JSON, lacks a field or has one of
/// the wrong type, or holds a value that breaks a rule of the format; a CSV
/// trajectory is refused with a hint (it has no shapes to draw).
pub fn load(file: &Path) -> Result<Trajectory, TrajectoryFileError> {
    let error = |location: String, message: String| TrajectoryFileError {
        file: file.to_path_buf(),
        location,
        message,
    };
    if file.extension().is_some_and(|e| e == "csv") {
        return Err(error(
            String::new(),
            "a CSV trajectory has no shapes or joints to draw: record a JSON one \
             (contact run SCENE --out TRAJ.json)"
                .into(),
        ));
    }
    let text = std::fs::read_to_string(file).map_err(|e| error(String::new(), e.to_string()))?;
    parse(&text).map_err(|(location, message)| error(location, message))
}

/// Parses and checks a trajectory document; the error is `(where, what)`.
///
/// # Errors
/// As [`load`].
pub fn parse(text: &str) -> Result<Trajectory, (String, String)> {
    // The format first, so another kind of JSON file is named as such
    // rather than by its first missing field; only these two fields are
    // kept (the rest is skipped, not built as a JSON tree).
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(default)]
        format: Option<serde_json::Value>,
        #[serde(default)]
        version: Option<serde_json::Value>,
    }
    let not_an_object = || {
        (
            "the document".to_string(),
            "is not a JSON object: not a trajectory file".to_string(),
        )
    };
    let probe: Probe = serde_json::from_str(text).map_err(|e| {
        if e.is_data() {
            not_an_object()
        } else {
            (
                format!("line {} column {}", e.line(), e.column()),
                strip_position(&e.to_string()),
            )
        }
    })?;
    // (serde also fills a struct from an array, by position.)
    if !text.trim_start().starts_with('{') {
        return Err(not_an_object());
    }
    match probe.format.as_ref().and_then(serde_json::Value::as_str) {
        Some(TRAJECTORY_FORMAT) => {}
        Some(other) => {
            return Err((
                "format".into(),
                format!("\"{other}\" is not a trajectory (expected \"{TRAJECTORY_FORMAT}\")"),
            ));
        }
        None => {
            return Err((
                "format".into(),
                format!(
                    "missing: not a trajectory file (expected \"format\": \"{TRAJECTORY_FORMAT}\")"
                ),
            ));
        }
    }
    match probe.version.as_ref().and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(TRAJECTORY_VERSION) => {}
        Some(v) => {
            return Err((
                "version".into(),
                format!("version {v} is not supported (this program reads {TRAJECTORY_VERSION})"),
            ));
        }
        None => return Err(("version".into(), "missing or not an integer".into())),
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let trajectory: Trajectory =
        serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let at = format!("line {} column {}", inner.line(), inner.column());
            let location = if path == "." {
                at
            } else {
                format!("{path} ({at})")
            };
            (location, strip_position(&inner.to_string()))
        })?;
    check(&trajectory)?;
    Ok(trajectory)
}

/// serde_json's message without its trailing " at line L column C" (the
/// location says it).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// The value rules (see the module comment).
fn check(t: &Trajectory) -> Result<(), (String, String)> {
    let fail = |location: String, message: &str| Err((location, message.to_string()));
    let bodies = t.header.bodies.len();
    if t.header.every == 0 {
        return fail("every".into(), "must be >= 1");
    }
    for (i, body) in t.header.bodies.iter().enumerate() {
        let at = format!("bodies[{i}].shape");
        match &body.shape {
            ShapeGeometry::Box { half_extents } => {
                if half_extents.iter().any(|&e| e <= 0.0) {
                    return fail(format!("{at}.box.half_extents"), "must all be > 0");
                }
            }
            ShapeGeometry::Sphere { radius } => {
                if *radius <= 0.0 {
                    return fail(format!("{at}.sphere.radius"), "must be > 0");
                }
            }
            ShapeGeometry::ConvexHull { vertices, faces } => {
                if vertices.len() < 4 {
                    return fail(format!("{at}.convex_hull.vertices"), "needs at least 4");
                }
                for (f, face) in faces.iter().enumerate() {
                    if face.len() < 3 {
                        return fail(
                            format!("{at}.convex_hull.faces[{f}]"),
                            "needs at least 3 vertices",
                        );
                    }
                    if face.iter().any(|&v| v as usize >= vertices.len()) {
                        return fail(
                            format!("{at}.convex_hull.faces[{f}]"),
                            "names a vertex that does not exist",
                        );
                    }
                }
            }
            ShapeGeometry::HalfSpace { normal } => {
                if norm(normal) < 1e-9 {
                    return fail(format!("{at}.half_space.normal"), "must be nonzero");
                }
            }
        }
    }
    for (j, joint) in t.header.joints.iter().enumerate() {
        if joint.body_a.is_some_and(|a| a >= bodies) {
            return fail(format!("joints[{j}].body_a"), "no such body");
        }
        if joint.body_b >= bodies {
            return fail(format!("joints[{j}].body_b"), "no such body");
        }
        for (name, frame) in [("frame_a", &joint.frame_a), ("frame_b", &joint.frame_b)] {
            if !unit_quaternion(frame) {
                return fail(
                    format!("joints[{j}].{name}"),
                    "its quaternion (elements 3..7) is not of unit length",
                );
            }
        }
    }
    if t.frames.is_empty() {
        return fail("frames".into(), "no frame recorded");
    }
    let mut time = f64::NEG_INFINITY;
    for (f, frame) in t.frames.iter().enumerate() {
        if frame.time < time {
            return fail(
                format!("frames[{f}].time"),
                "earlier than the frame before (frames must be in time order)",
            );
        }
        time = frame.time;
        if frame.h < 0.0 {
            return fail(format!("frames[{f}].h"), "must be >= 0");
        }
        if frame.poses.len() != bodies {
            return Err((
                format!("frames[{f}].poses"),
                format!("{} poses for {bodies} bodies", frame.poses.len()),
            ));
        }
        for (b, pose) in frame.poses.iter().enumerate() {
            if !unit_quaternion(pose) {
                return fail(
                    format!("frames[{f}].poses[{b}]"),
                    "its quaternion (elements 3..7) is not of unit length",
                );
            }
        }
        for (c, contact) in frame.contacts.iter().flatten().enumerate() {
            if contact.bodies.iter().any(|&b| b >= bodies) {
                return fail(format!("frames[{f}].contacts[{c}].bodies"), "no such body");
            }
        }
        if let Some(velocities) = &frame.velocities
            && velocities.len() != bodies
        {
            return Err((
                format!("frames[{f}].velocities"),
                format!("{} twists for {bodies} bodies", velocities.len()),
            ));
        }
    }
    for (e, event) in t.events.iter().enumerate() {
        if event.bodies.iter().any(|&b| b >= bodies) {
            return fail(format!("events[{e}].bodies"), "no such body");
        }
    }
    Ok(())
}

fn norm(v: &[f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// Whether the quaternion of a `[x, y, z, qx, qy, qz, qw]` pose is of unit
/// length within 1e-6 (what the simulator keeps it to, with room).
fn unit_quaternion(pose: &[f64; 7]) -> bool {
    let length = pose[3..].iter().map(|q| q * q).sum::<f64>().sqrt();
    (length - 1.0).abs() <= 1e-6
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small valid trajectory: a fixed ground, a box, a sphere, a hull
    /// and a joint; two frames with a contact and an event.
    pub(crate) fn sample() -> String {
        serde_json::json!({
            "format": "contact-trajectory", "version": 1, "scene": "sample",
            "gravity": [0.0, 0.0, -9.81],
            "bodies": [
                {"fixed": true, "shape": {"half_space": {"normal": [0.0, 0.0, 1.0]}}},
                {"name": "box", "fixed": false, "shape": {"box": {"half_extents": [0.5, 0.5, 0.5]}}},
                {"name": "ball", "fixed": false, "shape": {"sphere": {"radius": 0.3}}},
                {"name": "tetra", "fixed": false, "shape": {"convex_hull": {
                    "vertices": [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                    "faces": [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]}}}
            ],
            "joints": [{"kind": "ball", "body_a": null, "body_b": 2,
                        "frame_a": [0.0, 2.0, 2.0, 0.0, 0.0, 0.0, 1.0],
                        "frame_b": [0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 1.0]}],
            "every": 1,
            "frames": [
                {"step": 0, "time": 0.0, "h": 0.0,
                 "poses": [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 1.0],
                           [0.0, 2.0, 1.5, 0.0, 0.0, 0.0, 1.0], [2.0, 0.0, 0.2, 0.0, 0.0, 0.0, 1.0]],
                 "contacts": [],
                 "kinetic_energy": 0.0, "potential_energy": 4.9, "energy": 4.9, "penetration": 0.0},
                {"step": 1, "time": 0.01, "h": 0.01,
                 "poses": [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.4999, 0.0, 0.0, 0.0, 1.0],
                           [0.0, 2.0, 1.5, 0.0, 0.0, 0.0, 1.0], [2.0, 0.0, 0.2, 0.0, 0.0, 0.0, 1.0]],
                 "contacts": [{"bodies": [0, 1], "point": [0.5, 0.5, 0.0], "normal": [0.0, 0.0, 1.0],
                               "force": [0.0, 0.0, 9.81], "distance": -1e-4}],
                 "kinetic_energy": 0.01, "potential_energy": 4.89, "energy": 4.9, "penetration": 1e-4}
            ],
            "events": [{"step": 1, "time": 0.01, "kind": "contact_begins", "bodies": [0, 1]}],
            "summary": {"observations": {"steps": 1, "elapsed": 0.01, "max_penetration": 1e-4,
                "max_penetration_time": 0.01, "max_joint_error": 0.0, "initial_energy": 4.9,
                "energy": 4.9, "kinetic_energy": 0.01, "max_energy_gain": 0.0,
                "contacts_begun": 1, "contacts_ended": 0},
                "events_left_out": 0, "verdict": [], "wall_seconds": 0.0}
        })
        .to_string()
    }

    /// `sample()` with `edit` applied to its JSON value.
    pub(crate) fn edited(edit: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut value: serde_json::Value = serde_json::from_str(&sample()).unwrap();
        edit(&mut value);
        value.to_string()
    }

    #[test]
    fn the_sample_is_read() {
        let t = parse(&sample()).unwrap();
        assert_eq!(t.frames.len(), 2);
        assert_eq!(t.header.bodies.len(), 4);
    }

    /// Each malformed file is refused with the place of its fault.
    #[test]
    fn malformed_files_are_refused_where_they_break() {
        let cases: Vec<(String, &str, &str)> = vec![
            ("{\"format\": ".into(), "line 1 column 11", "EOF"),
            ("[1, 2]".into(), "the document", "not a JSON object"),
            ("{\"frames\": []}".into(), "format", "missing"),
            (
                edited(|v| v["format"] = "contact-scene".into()),
                "format",
                "not a trajectory",
            ),
            (
                edited(|v| v["version"] = 7.into()),
                "version",
                "not supported",
            ),
            (
                edited(|v| v["frames"][1]["poses"][2] = serde_json::json!([0.0, 1.0])),
                "frames[1].poses[2]",
                "invalid length",
            ),
            (
                edited(|v| v["frames"][0]["time"] = "soon".into()),
                "frames[0].time",
                "invalid type",
            ),
            (
                edited(|v| {
                    v["frames"][1]["poses"].as_array_mut().unwrap().pop();
                }),
                "frames[1].poses",
                "3 poses for 4 bodies",
            ),
            (
                edited(|v| v["frames"][1]["poses"][1][6] = 2.0.into()),
                "frames[1].poses[1]",
                "unit length",
            ),
            (
                edited(|v| v["frames"][1]["time"] = (-1.0).into()),
                "frames[1].time",
                "time order",
            ),
            (
                edited(|v| v["frames"][1]["contacts"][0]["bodies"][1] = 9.into()),
                "frames[1].contacts[0].bodies",
                "no such body",
            ),
            (
                edited(|v| v["frames"] = serde_json::json!([])),
                "frames",
                "no frame",
            ),
            (
                edited(|v| v["bodies"][2]["shape"]["sphere"]["radius"] = 0.0.into()),
                "bodies[2].shape.sphere.radius",
                "> 0",
            ),
            (
                edited(|v| v["bodies"][3]["shape"]["convex_hull"]["faces"][1][2] = 8.into()),
                "bodies[3].shape.convex_hull.faces[1]",
                "does not exist",
            ),
            (
                edited(|v| v["joints"][0]["body_b"] = 4.into()),
                "joints[0].body_b",
                "no such body",
            ),
            (
                edited(|v| v["events"][0]["bodies"][0] = 5.into()),
                "events[0].bodies",
                "no such body",
            ),
            (
                sample().replace("4.89", "1e999"),
                "line 1 column",
                "number out of range",
            ),
        ];
        for (text, location, message) in cases {
            let (at, what) = parse(&text).expect_err(location);
            assert!(
                at.contains(location) && what.contains(message),
                "expected {location}: {message}; got {at}: {what}"
            );
        }
    }

    #[test]
    fn a_missing_file_and_a_csv_file_are_named() {
        let missing = load(Path::new("/nonexistent/traj.json")).unwrap_err();
        assert!(missing.to_string().starts_with("/nonexistent/traj.json: "));
        let csv = load(Path::new("traj.csv")).unwrap_err();
        assert!(csv.to_string().contains("CSV"), "{csv}");
    }
}
