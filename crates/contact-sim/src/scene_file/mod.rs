//! Scene files: a world, its stepper, how long to run it, what to record
//! and what to expect, as JSON (`docs/scene-format.md`; the JSON Schema
//! is `docs/scene.schema.json`, made by [`json_schema`]).
//!
//! A file is read in three passes, each reporting the first problem with
//! its JSON path and the rule it breaks, never panicking:
//! 1. JSON syntax and the format version (a newer file is refused by its
//!    version before any of its fields);
//! 2. the types of the fields ([`SceneFile`] and its parts, which refuse
//!    unknown fields), with the path from `serde_path_to_error`;
//! 3. [`SceneFile::build`]: every value against its rule (`> 0`, finite,
//!    unit length, names that exist...), then the world is made with the
//!    builders of the API ([`RigidBody`](crate::RigidBody),
//!    [`Joint`](crate::Joint), [`ForceElement`](crate::ForceElement),
//!    [`World`]), so a file can hold nothing the API could not build.
//!
//! [`Scene::snapshot`] writes a running scene back as a file: bodies with
//! their exact mass properties, poses and velocities, joints by their
//! frames, the clock and what the stepper carries into its next step, so
//! the restored scene continues bit for bit.

mod body;
mod error;
mod event_driven_spec;
mod force;
mod joint;
mod memory_spec;
mod run;
mod scene_stepper;
mod solver_spec;
mod stepper;

use std::collections::HashMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use body::{AppliedLoadsSpec, BodySpec, OrientationSpec, PlanarLockSpec, ShapeSpec};
pub use error::SceneError;
pub use event_driven_spec::{EventDrivenStepperSpec, OdeMethodSpec};
pub use force::{
    AttachmentSpec, ForceFrameSpec, ForceSpec, PointForceSpec, ProfileSpec, SpringSpec,
};
pub use joint::{FrameSpec, JointKindSpec, JointSpec, LimitSpec, MotorSpec};
pub use memory_spec::{
    CaMemorySpec, ContactFeatureSpec, EventDrivenMemorySpec, RowStateSpec, StepMemorySpec,
    TrackedContactSpec,
};
pub use run::{Axis, ExpectSpec, Expectation, Observable, RecordSpec, RunSpec};
pub use scene_stepper::{ContactForce, SceneStep, SceneStepper};
pub use solver_spec::EventSolverSpec;
pub use stepper::{
    CaStepperSpec, DynamicsSpec, FixedStepperSpec, FormulationSpec, StabilisationKind,
    StabilisationSpec, StepperSpec,
};

use crate::World;
use error::JsonPath;

/// The version of the scene file format this crate reads and writes.
pub const SCENE_FORMAT_VERSION: u32 = 1;

/// A vector `[x, y, z]`.
pub type Vec3 = [f64; 3];

/// A scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// The JSON Schema the file follows (for editors; not read).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The format version: 1.
    pub version: u32,
    /// A short name of the scene.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What the scene shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Gravitational acceleration (m/s^2, world).
    #[serde(default = "default_gravity")]
    pub gravity: Vec3,
    /// Whether every moving body is held in the vertical x-z plane through
    /// its position (the myPhysicsLab world).
    #[serde(default, skip_serializing_if = "is_false")]
    pub planar: bool,
    /// The simulated time at the start (s).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub time: f64,
    /// The bodies; joints, forces and expectations name them by `name` or
    /// by index in this list.
    pub bodies: Vec<BodySpec>,
    /// The joints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<JointSpec>,
    /// The persistent force elements.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forces: Vec<ForceSpec>,
    /// The stepper and its settings (default: the fixed stepper's defaults).
    #[serde(default)]
    pub stepper: StepperSpec,
    /// How long to run.
    #[serde(default, skip_serializing_if = "is_default")]
    pub run: RunSpec,
    /// What to record.
    #[serde(default, skip_serializing_if = "is_default")]
    pub record: RecordSpec,
    /// What a run must measure for its verdict to pass.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<ExpectSpec>,
}

fn default_gravity() -> Vec3 {
    [0.0, 0.0, -9.81]
}

pub(crate) fn is_false(value: &bool) -> bool {
    !*value
}

pub(crate) fn is_true(value: &bool) -> bool {
    *value
}

pub(crate) fn is_zero(value: &f64) -> bool {
    *value == 0.0
}

pub(crate) fn is_zero_vector(value: &Vec3) -> bool {
    *value == [0.0; 3]
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// A body, by its index in `bodies` or by its name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BodyRef {
    /// The index in the scene's `bodies`.
    Index(usize),
    /// The body's `name`.
    Name(String),
}

impl Serialize for BodyRef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Index(index) => serializer.serialize_u64(*index as u64),
            Self::Name(name) => serializer.serialize_str(name),
        }
    }
}

impl<'de> Deserialize<'de> for BodyRef {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = BodyRef;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a body's index (an integer >= 0) or its name (a string)")
            }
            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<BodyRef, E> {
                usize::try_from(value)
                    .map(BodyRef::Index)
                    .map_err(|_| E::custom("body index out of range"))
            }
            fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<BodyRef, E> {
                Ok(BodyRef::Name(value.to_string()))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl JsonSchema for BodyRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BodyRef".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A body, by its index in `bodies` or by its name.",
            "anyOf": [
                { "type": "integer", "minimum": 0 },
                { "type": "string", "minLength": 1 }
            ]
        })
    }
}

/// The bodies' names, for resolving and writing [`BodyRef`]s.
#[derive(Clone, Debug, Default)]
pub(crate) struct BodyNames {
    names: Vec<Option<String>>,
    index: HashMap<String, usize>,
}

impl BodyNames {
    /// The names of `bodies`, checked: non-empty, unique.
    fn of(bodies: &[BodySpec]) -> Result<Self, SceneError> {
        let mut names = Self::default();
        for (i, body) in bodies.iter().enumerate() {
            if let Some(name) = &body.name {
                let path = JsonPath::root("bodies").index(i).field("name");
                if name.trim().is_empty() {
                    return Err(path.error("must not be empty"));
                }
                if let Some(first) = names.index.insert(name.clone(), i) {
                    return Err(path.error(format!("`{name}` is also the name of bodies[{first}]")));
                }
            }
            names.names.push(body.name.clone());
        }
        Ok(names)
    }

    /// The index `body` refers to; `path` names the field in an error.
    pub(crate) fn resolve(&self, body: &BodyRef, path: &JsonPath) -> Result<usize, SceneError> {
        match body {
            BodyRef::Index(i) if *i < self.names.len() => Ok(*i),
            BodyRef::Index(i) => Err(path.error(format!(
                "no body {i}: the scene has {} (indices from 0)",
                self.names.len()
            ))),
            BodyRef::Name(name) => self
                .index
                .get(name)
                .copied()
                .ok_or_else(|| path.error(format!("no body is named `{name}`"))),
        }
    }

    /// A reference to body `index`: its name if it has one.
    pub(crate) fn reference(&self, index: usize) -> BodyRef {
        match self.names.get(index) {
            Some(Some(name)) => BodyRef::Name(name.clone()),
            _ => BodyRef::Index(index),
        }
    }
}

/// A scene built from a file: its world and stepper, ready to run.
#[derive(Debug)]
pub struct Scene {
    /// The scene's name.
    pub name: Option<String>,
    /// What it shows.
    pub description: Option<String>,
    /// The world.
    pub world: World,
    /// Its stepper.
    pub stepper: SceneStepper,
    /// The bodies' names, indexed like the world's bodies.
    pub body_names: Vec<Option<String>>,
    /// How long to run.
    pub run: RunSpec,
    /// What to record.
    pub record: RecordSpec,
    /// What a run must measure.
    pub expectations: Vec<Expectation>,
}

impl Scene {
    /// The scene as a file, at its current state: what
    /// [`SceneFile::build`] turns back into this very scene, which then
    /// continues as this one would, bit for bit.
    #[must_use]
    pub fn snapshot(&self) -> SceneFile {
        let names = BodyNames {
            names: self.body_names.clone(),
            index: HashMap::new(),
        };
        let mut file = SceneFile::capture(&self.world, &names);
        file.name.clone_from(&self.name);
        file.description.clone_from(&self.description);
        file.stepper = self.stepper.spec(&self.world);
        file.run = self.run;
        file.record = self.record;
        file.expect = self.expectations.iter().map(|e| e.spec.clone()).collect();
        file
    }

    /// A body's name, or its index as text.
    #[must_use]
    pub fn body_label(&self, index: usize) -> String {
        match self.body_names.get(index) {
            Some(Some(name)) => name.clone(),
            _ => format!("body {index}"),
        }
    }
}

impl SceneFile {
    /// Reads a scene file (see the module comment for the checks).
    ///
    /// # Errors
    /// [`SceneError::Read`], [`SceneError::Syntax`] or
    /// [`SceneError::Invalid`] naming the field.
    pub fn load(file: &Path) -> Result<Self, SceneError> {
        let text = std::fs::read_to_string(file).map_err(|e| SceneError::Read {
            file: file.to_path_buf(),
            reason: e.to_string(),
        })?;
        Self::parse(&text)
    }

    /// Parses a scene file's text: JSON syntax, version, field types.
    /// Values are checked by [`SceneFile::build`].
    ///
    /// # Errors
    /// [`SceneError::Syntax`], or [`SceneError::Invalid`] naming the field.
    pub fn parse(text: &str) -> Result<Self, SceneError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| SceneError::Syntax {
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            })?;
        check_version(&value)?;
        let deserializer = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(deserializer).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." { String::new() } else { path };
            SceneError::invalid(path, e.into_inner().to_string())
        })
    }

    /// The file as pretty-printed JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self)
            .expect("a scene file holds only numbers, strings, booleans and lists");
        text.push('\n');
        text
    }

    /// Checks every value and builds the scene.
    ///
    /// # Errors
    /// [`SceneError::Invalid`] naming the first field that breaks a rule.
    pub fn build(&self) -> Result<Scene, SceneError> {
        if self.version != SCENE_FORMAT_VERSION {
            return Err(version_error(u64::from(self.version)));
        }
        let names = BodyNames::of(&self.bodies)?;
        let gravity = JsonPath::root("gravity").finite_vector(self.gravity)?;
        let mut world = if self.planar {
            World::planar(gravity)
        } else {
            World::new(gravity)
        };
        world.set_time(JsonPath::root("time").finite(self.time)?);
        let bodies = JsonPath::root("bodies");
        for (i, body) in self.bodies.iter().enumerate() {
            world.add_body(body.build(&bodies.index(i))?);
        }
        let joints = JsonPath::root("joints");
        for (i, joint) in self.joints.iter().enumerate() {
            joint.add_to(&mut world, &names, &joints.index(i))?;
        }
        let forces = JsonPath::root("forces");
        for (i, force) in self.forces.iter().enumerate() {
            force.add_to(&mut world, &names, &forces.index(i))?;
        }
        let stepper = SceneStepper::build(&self.stepper, &JsonPath::root("stepper"), &world)?;
        if matches!(stepper, SceneStepper::EventDriven { .. }) && !self.joints.is_empty() {
            return Err(JsonPath::root("joints").error(
                "the event-driven stepper does not support joints (planar locks are fine): \
                 use the fixed or conservative-advancement stepper",
            ));
        }
        self.run.validate(&JsonPath::root("run"))?;
        self.record.validate(&JsonPath::root("record"))?;
        let expect = JsonPath::root("expect");
        let expectations = self
            .expect
            .iter()
            .enumerate()
            .map(|(i, spec)| Expectation::build(spec, &names, &expect.index(i)))
            .collect::<Result<_, _>>()?;
        Ok(Scene {
            name: self.name.clone(),
            description: self.description.clone(),
            world,
            stepper,
            body_names: names.names,
            run: self.run,
            record: self.record,
            expectations,
        })
    }

    /// The file of `world` as it is now, with the default stepper; bodies
    /// are referred to by index.
    #[must_use]
    pub fn of_world(world: &World) -> Self {
        Self::capture(world, &BodyNames::default())
    }

    fn capture(world: &World, names: &BodyNames) -> Self {
        Self {
            schema: None,
            version: SCENE_FORMAT_VERSION,
            name: None,
            description: None,
            gravity: world.gravity.to_array(),
            planar: world.is_planar(),
            time: world.time(),
            bodies: world
                .bodies()
                .iter()
                .enumerate()
                .map(|(i, body)| BodySpec::of(body, names.names.get(i).cloned().flatten()))
                .collect(),
            joints: world
                .joints()
                .iter()
                .map(|joint| JointSpec::of(joint, names))
                .collect(),
            forces: world
                .forces()
                .iter()
                .map(|force| ForceSpec::of(force, names))
                .collect(),
            stepper: StepperSpec::default(),
            run: RunSpec::default(),
            record: RecordSpec::default(),
            expect: Vec::new(),
        }
    }
}

/// Refuses a file that is not an object or whose `version` this crate does
/// not read, before its fields are looked at.
fn check_version(value: &serde_json::Value) -> Result<(), SceneError> {
    let Some(object) = value.as_object() else {
        return Err(SceneError::invalid(
            "",
            "a scene file is a JSON object ({\"version\": 1, \"bodies\": [...], ...})",
        ));
    };
    match object.get("version") {
        None => Err(SceneError::invalid(
            "version",
            format!("missing: a scene file states its format version ({SCENE_FORMAT_VERSION})"),
        )),
        Some(version) => match version.as_u64() {
            Some(v) if v == u64::from(SCENE_FORMAT_VERSION) => Ok(()),
            Some(v) => Err(version_error(v)),
            None => Err(SceneError::invalid(
                "version",
                format!("must be the integer {SCENE_FORMAT_VERSION}"),
            )),
        },
    }
}

fn version_error(version: u64) -> SceneError {
    let rule = if version > u64::from(SCENE_FORMAT_VERSION) {
        format!(
            "version {version} is newer than this program reads ({SCENE_FORMAT_VERSION}): \
             update it"
        )
    } else {
        format!("must be {SCENE_FORMAT_VERSION}")
    };
    SceneError::invalid("version", rule)
}

/// The JSON Schema of scene files (draft 2020-12), generated from
/// [`SceneFile`]: what `docs/scene.schema.json` holds, pretty-printed
/// with a final newline.
#[must_use]
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(SceneFile);
    let mut text = serde_json::to_string_pretty(&schema).expect("a JSON Schema is JSON");
    text.push('\n');
    text
}
