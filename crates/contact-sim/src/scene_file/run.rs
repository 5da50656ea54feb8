//! How long a scene runs, what it records, and what it expects.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::{JsonPath, SceneError};
use super::{BodyNames, BodyRef, is_false, is_true};

/// How long the scene runs (the command line may override it). Give
/// `duration` or `steps`, not both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Simulated time (s, > 0), rounded to whole steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// Number of steps (>= 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<u64>,
}

impl RunSpec {
    pub(crate) fn validate(&self, path: &JsonPath) -> Result<(), SceneError> {
        if let Some(duration) = self.duration {
            path.field("duration").positive(duration)?;
        }
        if self.steps == Some(0) {
            return Err(path.field("steps").error("must be >= 1"));
        }
        if self.duration.is_some() && self.steps.is_some() {
            return Err(path
                .field("steps")
                .error("give duration or steps, not both"));
        }
        Ok(())
    }
}

/// What a run records in its trajectory.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RecordSpec {
    /// Record every this many steps (>= 1); the first and last states are
    /// always recorded.
    pub every: u64,
    /// Whether each recorded step lists its contacts and their forces.
    #[serde(skip_serializing_if = "is_true")]
    pub contacts: bool,
    /// Whether each recorded step lists the bodies' velocities.
    #[serde(skip_serializing_if = "is_false")]
    pub velocities: bool,
}

impl Default for RecordSpec {
    fn default() -> Self {
        Self {
            every: 1,
            contacts: true,
            velocities: false,
        }
    }
}

impl RecordSpec {
    pub(crate) fn validate(&self, path: &JsonPath) -> Result<(), SceneError> {
        if self.every == 0 {
            return Err(path.field("every").error("must be >= 1"));
        }
        Ok(())
    }
}

/// A quantity a run measures, for an expectation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum Observable {
    /// The largest interpenetration at the start of any step (m, >= 0).
    MaxPenetration,
    /// The largest position error of any joint after any step (m or rad).
    MaxJointError,
    /// The kinetic energy at the end (J).
    FinalKineticEnergy,
    /// The total energy (kinetic, gravitational, springs) at the end less
    /// at the start (J).
    EnergyChange,
    /// The largest rise of the total energy above its value at the start,
    /// over the recorded steps and the end (J, >= 0).
    MaxEnergyGain,
    /// How far a body's centre of mass is from where it started (m).
    Displacement {
        /// The body (name or index).
        body: BodyRef,
    },
    /// A coordinate of a body's centre of mass at the end (m).
    FinalPosition {
        /// The body (name or index).
        body: BodyRef,
        /// The coordinate.
        axis: Axis,
    },
    /// The largest speed of any body's centre of mass at the end (m/s).
    FinalMaxSpeed,
    /// How many times two bodies began to push on each other (contact
    /// events of kind `contact_begins`).
    ContactsBegun,
}

/// A world axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// x.
    X,
    /// y.
    Y,
    /// z.
    Z,
}

impl Axis {
    /// The coordinate's index (0, 1, 2).
    #[must_use]
    pub fn index(self) -> usize {
        match self {
            Self::X => 0,
            Self::Y => 1,
            Self::Z => 2,
        }
    }
}

/// What a run must measure for its verdict to pass: an observable and a
/// bound (`at_most`, `at_least`, or `value` within `tolerance`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectSpec {
    /// What is measured.
    pub observable: Observable,
    /// Its largest allowed value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_most: Option<f64>,
    /// Its smallest allowed value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_least: Option<f64>,
    /// The value it must have, within `tolerance`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// The largest allowed difference from `value` (>= 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Why this is the expected value (a closed form, a paper's figure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// An expectation with its body resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// As the file gives it.
    pub spec: ExpectSpec,
    /// The index of the body its observable names, if any.
    pub body: Option<usize>,
}

impl Expectation {
    /// Whether `measured` meets the bound (a NaN never does).
    #[must_use]
    pub fn holds(&self, measured: f64) -> bool {
        let spec = &self.spec;
        !measured.is_nan()
            && spec.at_most.is_none_or(|max| measured <= max)
            && spec.at_least.is_none_or(|min| measured >= min)
            && spec
                .value
                .is_none_or(|value| (measured - value).abs() <= spec.tolerance.unwrap_or(0.0))
    }

    /// The bound in words: `<= 1e-6`, `= 0.5 +- 0.01`.
    #[must_use]
    pub fn describe_bound(&self) -> String {
        let short = |x: f64| {
            if x == 0.0 || (1e-3..1e5).contains(&x.abs()) {
                format!("{x}")
            } else {
                format!("{x:e}")
            }
        };
        let spec = &self.spec;
        let mut parts = Vec::new();
        if let Some(value) = spec.value {
            parts.push(format!(
                "= {} +- {}",
                short(value),
                short(spec.tolerance.unwrap_or(0.0))
            ));
        }
        if let Some(min) = spec.at_least {
            parts.push(format!(">= {}", short(min)));
        }
        if let Some(max) = spec.at_most {
            parts.push(format!("<= {}", short(max)));
        }
        parts.join(" and ")
    }

    /// The expectation of `spec`; `path` is its (`expect[0]`).
    pub(crate) fn build(
        spec: &ExpectSpec,
        names: &BodyNames,
        path: &JsonPath,
    ) -> Result<Self, SceneError> {
        let body = match &spec.observable {
            Observable::Displacement { body } => Some(names.resolve(
                body,
                &path.field("observable").field("displacement").field("body"),
            )?),
            Observable::FinalPosition { body, .. } => Some(
                names.resolve(
                    body,
                    &path
                        .field("observable")
                        .field("final_position")
                        .field("body"),
                )?,
            ),
            _ => None,
        };
        for (field, bound) in [
            ("at_most", spec.at_most),
            ("at_least", spec.at_least),
            ("value", spec.value),
        ] {
            if let Some(bound) = bound {
                path.field(field).finite(bound)?;
            }
        }
        match (spec.value, spec.tolerance) {
            (Some(_), None) => {
                return Err(path
                    .field("tolerance")
                    .error("missing: a value needs a tolerance (>= 0)"));
            }
            (None, Some(_)) => {
                return Err(path.field("tolerance").error("only with value"));
            }
            (_, Some(tolerance)) => {
                path.field("tolerance").non_negative(tolerance)?;
            }
            (None, None) => {}
        }
        if spec.at_most.is_none() && spec.at_least.is_none() && spec.value.is_none() {
            return Err(path.error("give a bound: at_most, at_least, or value and tolerance"));
        }
        if let (Some(min), Some(max)) = (spec.at_least, spec.at_most)
            && min > max
        {
            return Err(path.field("at_most").error("must be >= at_least"));
        }
        Ok(Self {
            spec: spec.clone(),
            body,
        })
    }
}

impl Observable {
    /// A short name: `max_penetration`, `displacement(top)`.
    #[must_use]
    pub fn label(&self) -> String {
        let body = |body: &BodyRef| match body {
            BodyRef::Index(i) => i.to_string(),
            BodyRef::Name(name) => name.clone(),
        };
        match self {
            Self::MaxPenetration => "max_penetration".into(),
            Self::MaxJointError => "max_joint_error".into(),
            Self::FinalKineticEnergy => "final_kinetic_energy".into(),
            Self::EnergyChange => "energy_change".into(),
            Self::MaxEnergyGain => "max_energy_gain".into(),
            Self::Displacement { body: b } => format!("displacement({})", body(b)),
            Self::FinalPosition { body: b, axis } => {
                format!(
                    "final_position({}, {})",
                    body(b),
                    ["x", "y", "z"][axis.index()]
                )
            }
            Self::FinalMaxSpeed => "final_max_speed".into(),
            Self::ContactsBegun => "contacts_begun".into(),
        }
    }
}
