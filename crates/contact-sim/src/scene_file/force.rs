//! Force elements in a scene file: point forces with profiles in time,
//! springs (explicit or implicit); built as [`ForceElement`]s and read back.

use contact_dynamics::{Attachment, ForceElement, ForceFrame, PointForce, Profile, Spring};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::{JsonPath, SceneError};
use super::{BodyNames, BodyRef, Vec3, is_false, is_true, is_zero, is_zero_vector};
use crate::World;

/// A persistent force element.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum ForceSpec {
    /// A force `magnitude(t) direction` at a body point.
    PointForce(PointForceSpec),
    /// A linear spring-damper between two points.
    Spring(SpringSpec),
}

/// A force at a body point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PointForceSpec {
    /// The body it acts on (name or index).
    pub body: BodyRef,
    /// The point of application (m, body frame).
    #[serde(default, skip_serializing_if = "is_zero_vector")]
    pub point: Vec3,
    /// The force at magnitude 1 (N): the force is `magnitude(t)` times it.
    pub direction: Vec3,
    /// Whether `direction` is fixed in the world or turns with the body.
    #[serde(default, skip_serializing_if = "ForceFrameSpec::is_world")]
    pub frame: ForceFrameSpec,
    /// The magnitude in time (default: constant 1).
    #[serde(default = "ProfileSpec::one")]
    pub magnitude: ProfileSpec,
    /// Whether it acts.
    #[serde(default = "enabled", skip_serializing_if = "is_true")]
    pub enabled: bool,
}

fn enabled() -> bool {
    true
}

/// The frame a point force's direction is fixed in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ForceFrameSpec {
    /// A world vector.
    #[default]
    World,
    /// A body-frame vector, turning with the body (a thruster).
    Body,
}

impl ForceFrameSpec {
    fn is_world(&self) -> bool {
        *self == Self::World
    }
}

/// A scalar function of the simulated time `t` (s).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum ProfileSpec {
    /// A constant.
    Constant(f64),
    /// `initial + rate t`.
    Ramp {
        /// Value at `t = 0`.
        initial: f64,
        /// Change per second.
        rate: f64,
    },
    /// `offset + amplitude sin(2 pi frequency t + phase)`.
    Sine {
        /// Mean value.
        #[serde(default, skip_serializing_if = "is_zero")]
        offset: f64,
        /// Amplitude.
        amplitude: f64,
        /// Frequency (Hz).
        frequency: f64,
        /// Phase (rad).
        #[serde(default, skip_serializing_if = "is_zero")]
        phase: f64,
    },
    /// Piecewise linear through `[t, value]` points, times increasing;
    /// constant before the first and after the last.
    Table(Vec<[f64; 2]>),
}

impl ProfileSpec {
    fn one() -> Self {
        Self::Constant(1.0)
    }

    fn build(&self, path: &JsonPath) -> Result<Profile, SceneError> {
        Ok(match self {
            Self::Constant(value) => Profile::Constant(path.field("constant").finite(*value)?),
            Self::Ramp { initial, rate } => {
                let path = path.field("ramp");
                Profile::Ramp {
                    initial: path.field("initial").finite(*initial)?,
                    rate: path.field("rate").finite(*rate)?,
                }
            }
            Self::Sine {
                offset,
                amplitude,
                frequency,
                phase,
            } => {
                let path = path.field("sine");
                Profile::Sine {
                    offset: path.field("offset").finite(*offset)?,
                    amplitude: path.field("amplitude").finite(*amplitude)?,
                    frequency: path.field("frequency").finite(*frequency)?,
                    phase: path.field("phase").finite(*phase)?,
                }
            }
            Self::Table(points) => {
                let path = path.field("table");
                if points.is_empty() {
                    return Err(path.error("a table needs at least one point"));
                }
                for (i, [t, value]) in points.iter().enumerate() {
                    path.index(i).index(0).finite(*t)?;
                    path.index(i).index(1).finite(*value)?;
                    if i > 0 && points[i - 1][0] >= *t {
                        return Err(path
                            .index(i)
                            .index(0)
                            .error("times must increase from point to point"));
                    }
                }
                Profile::Table(points.iter().map(|&[t, v]| (t, v)).collect())
            }
        })
    }

    fn of(profile: &Profile) -> Self {
        match profile {
            Profile::Constant(value) => Self::Constant(*value),
            Profile::Ramp { initial, rate } => Self::Ramp {
                initial: *initial,
                rate: *rate,
            },
            Profile::Sine {
                offset,
                amplitude,
                frequency,
                phase,
            } => Self::Sine {
                offset: *offset,
                amplitude: *amplitude,
                frequency: *frequency,
                phase: *phase,
            },
            Profile::Table(points) => Self::Table(points.iter().map(|&(t, v)| [t, v]).collect()),
        }
    }
}

/// A linear spring-damper: the force on end b is
/// `-(stiffness (L - rest_length) + damping dL/dt)` along the line from a to b.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpringSpec {
    /// First end.
    pub a: AttachmentSpec,
    /// Second end.
    pub b: AttachmentSpec,
    /// Stiffness (N/m, >= 0).
    pub stiffness: f64,
    /// Damping along the spring (N s/m, >= 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub damping: f64,
    /// Rest length (m, >= 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rest_length: f64,
    /// Whether the step takes it linearly implicitly (stable at any
    /// stiffness; Cline 2002, sec. 2.7.4).
    #[serde(default, skip_serializing_if = "is_false")]
    pub implicit: bool,
}

/// One end of a spring: a body point, or a world point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttachmentSpec {
    /// The body (name or index); absent for a world point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<BodyRef>,
    /// The point (m): in the body frame, or in the world.
    #[serde(default, skip_serializing_if = "is_zero_vector")]
    pub point: Vec3,
}

impl AttachmentSpec {
    fn build(&self, names: &BodyNames, path: &JsonPath) -> Result<Attachment, SceneError> {
        let point = path.field("point").finite_vector(self.point)?;
        Ok(match &self.body {
            Some(body) => Attachment::Body {
                body: names.resolve(body, &path.field("body"))?,
                point,
            },
            None => Attachment::World(point),
        })
    }

    fn of(attachment: &Attachment, names: &BodyNames) -> Self {
        match *attachment {
            Attachment::World(point) => Self {
                body: None,
                point: point.to_array(),
            },
            Attachment::Body { body, point } => Self {
                body: Some(names.reference(body)),
                point: point.to_array(),
            },
        }
    }
}

impl ForceSpec {
    /// Adds the element to `world`; `path` is this element's (`forces[1]`).
    pub(crate) fn add_to(
        &self,
        world: &mut World,
        names: &BodyNames,
        path: &JsonPath,
    ) -> Result<(), SceneError> {
        let element = match self {
            Self::PointForce(force) => {
                let path = path.field("point_force");
                ForceElement::PointForce(PointForce {
                    body: names.resolve(&force.body, &path.field("body"))?,
                    point: path.field("point").finite_vector(force.point)?,
                    direction: path.field("direction").finite_vector(force.direction)?,
                    frame: match force.frame {
                        ForceFrameSpec::World => ForceFrame::World,
                        ForceFrameSpec::Body => ForceFrame::Body,
                    },
                    magnitude: force.magnitude.build(&path.field("magnitude"))?,
                    enabled: force.enabled,
                })
            }
            Self::Spring(spring) => {
                let path = path.field("spring");
                let a = spring.a.build(names, &path.field("a"))?;
                let b = spring.b.build(names, &path.field("b"))?;
                if let (Some(x), Some(y)) = (&spring.a.body, &spring.b.body)
                    && names.resolve(x, &path)? == names.resolve(y, &path)?
                {
                    return Err(path
                        .field("b")
                        .field("body")
                        .error("a spring needs two different bodies"));
                }
                ForceElement::Spring(Spring {
                    a,
                    b,
                    stiffness: path.field("stiffness").non_negative(spring.stiffness)?,
                    damping: path.field("damping").non_negative(spring.damping)?,
                    rest_length: path.field("rest_length").non_negative(spring.rest_length)?,
                    implicit: spring.implicit,
                })
            }
        };
        world.add_force(element).map_err(|e| match e {
            crate::SimError::Dynamics(contact_dynamics::DynamicsError::InvalidForce {
                field,
                reason,
                ..
            }) => {
                let kind = match self {
                    Self::PointForce(_) => "point_force",
                    Self::Spring(_) => "spring",
                };
                path.field(kind).field(field).error(reason)
            }
            other => path.error(other.to_string()),
        })?;
        Ok(())
    }

    /// The description of `element`, bodies named by `names`.
    pub(crate) fn of(element: &ForceElement, names: &BodyNames) -> Self {
        match element {
            ForceElement::PointForce(force) => Self::PointForce(PointForceSpec {
                body: names.reference(force.body),
                point: force.point.to_array(),
                direction: force.direction.to_array(),
                frame: match force.frame {
                    ForceFrame::World => ForceFrameSpec::World,
                    ForceFrame::Body => ForceFrameSpec::Body,
                },
                magnitude: ProfileSpec::of(&force.magnitude),
                enabled: force.enabled,
            }),
            ForceElement::Spring(spring) => Self::Spring(SpringSpec {
                a: AttachmentSpec::of(&spring.a, names),
                b: AttachmentSpec::of(&spring.b, names),
                stiffness: spring.stiffness,
                damping: spring.damping,
                rest_length: spring.rest_length,
                implicit: spring.implicit,
            }),
        }
    }
}
