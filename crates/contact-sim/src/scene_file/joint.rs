//! Joints in a scene file: kind, bodies, anchor and axis in the world or
//! explicit anchor frames, limit and motor; built with [`Joint`]'s
//! constructors and read back from a joint.

use contact_dynamics::{Joint, JointKind};
use contact_math::Pose;
use glam::{DQuat, DVec3};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::body::OrientationSpec;
use super::error::{JsonPath, SceneError};
use super::{BodyNames, BodyRef, Vec3, is_zero_vector};
use crate::World;

/// A joint between two bodies, or between the world and a body.
///
/// Either `anchor` (and `axis`): the joint's frame in the world at the
/// bodies' poses as given, so it holds exactly; or `frame_a` and
/// `frame_b`: its frame in each body's frame (what a saved joint holds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JointSpec {
    /// The kind of joint.
    pub kind: JointKindSpec,
    /// The first body (name or index); absent for the world.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_a: Option<BodyRef>,
    /// The second body (name or index); must move.
    pub body_b: BodyRef,
    /// The joint's origin in the world (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<Vec3>,
    /// The joint's axis in the world (nonzero): a hinge turns about it, a
    /// prismatic joint slides along it, a universal joint's two axes are
    /// across it. Needed for those three; a ball or fixed joint ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<Vec3>,
    /// The joint's frame in body a's frame (the world's for the world).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_a: Option<FrameSpec>,
    /// The joint's frame in body b's frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_b: Option<FrameSpec>,
    /// Bounds on a hinge's angle (rad, within `(-pi, pi]`) or a prismatic
    /// joint's travel (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<LimitSpec>,
    /// A velocity motor on a hinge's angle or a prismatic joint's travel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motor: Option<MotorSpec>,
}

/// The kinds of joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JointKindSpec {
    /// Ball and socket: the anchors coincide, any rotation.
    Ball,
    /// Hinge: a ball joint whose z axes stay aligned; turns about z.
    Hinge,
    /// Universal (Hooke): a ball joint with frame a's x axis across frame
    /// b's y axis.
    Universal,
    /// Slider: orientations equal, b's origin on a's z axis.
    Prismatic,
    /// Weld: origins and orientations equal.
    Fixed,
}

impl JointKindSpec {
    fn kind(self) -> JointKind {
        match self {
            Self::Ball => JointKind::Ball,
            Self::Hinge => JointKind::Hinge,
            Self::Universal => JointKind::Universal,
            Self::Prismatic => JointKind::Prismatic,
            Self::Fixed => JointKind::Fixed,
        }
    }

    fn of(kind: JointKind) -> Self {
        match kind {
            JointKind::Ball => Self::Ball,
            JointKind::Hinge => Self::Hinge,
            JointKind::Universal => Self::Universal,
            JointKind::Prismatic => Self::Prismatic,
            JointKind::Fixed => Self::Fixed,
        }
    }
}

/// A frame: origin and orientation in a parent frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FrameSpec {
    /// Origin (m).
    #[serde(default, skip_serializing_if = "is_zero_vector")]
    pub position: Vec3,
    /// Orientation (default: the parent's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<OrientationSpec>,
}

impl FrameSpec {
    fn pose(&self, path: &JsonPath) -> Result<Pose, SceneError> {
        let translation = path.field("position").finite_vector(self.position)?;
        let rotation = match &self.orientation {
            Some(orientation) => orientation.rotation(&path.field("orientation"))?,
            None => DQuat::IDENTITY,
        };
        Ok(Pose::new(translation, rotation))
    }

    fn of(pose: &Pose) -> Self {
        Self {
            position: pose.translation.to_array(),
            orientation: OrientationSpec::of(pose.rotation),
        }
    }
}

/// Bounds on a joint's coordinate; an absent bound is no bound.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitSpec {
    /// Smallest value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower: Option<f64>,
    /// Largest value (>= lower).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper: Option<f64>,
}

/// A velocity motor.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MotorSpec {
    /// The speed it drives the coordinate to (rad/s or m/s).
    pub target_speed: f64,
    /// The largest torque (N m) or force (N) it applies (>= 0); absent for
    /// an unbounded drive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_effort: Option<f64>,
}

impl JointSpec {
    /// Adds the joint to `world`; `path` is this joint's (`joints[2]`).
    pub(crate) fn add_to(
        &self,
        world: &mut World,
        names: &BodyNames,
        path: &JsonPath,
    ) -> Result<(), SceneError> {
        let kind = self.kind.kind();
        let a = match &self.body_a {
            Some(body) => Some(names.resolve(body, &path.field("body_a"))?),
            None => None,
        };
        let b = names.resolve(&self.body_b, &path.field("body_b"))?;
        if a == Some(b) {
            return Err(path
                .field("body_b")
                .error("a joint needs two different bodies"));
        }
        if !world.bodies()[b].is_dynamic() {
            return Err(path.field("body_b").error(
                "must be a moving body (put a fixed one as body_a, or leave body_a out for the world)",
            ));
        }
        let joint = match (&self.anchor, &self.frame_a, &self.frame_b) {
            (Some(anchor), None, None) => {
                let anchor = path.field("anchor").finite_vector(*anchor)?;
                let axis = match self.axis {
                    Some(axis) => path.field("axis").direction(axis)?,
                    None if kind.has_coordinate() || kind == JointKind::Universal => {
                        return Err(path
                            .field("axis")
                            .error("a hinge, prismatic or universal joint needs an axis"));
                    }
                    None => DVec3::Z,
                };
                Joint::at_world_frame(kind, world.bodies(), a, b, anchor, axis)
                    .map_err(|e| path.error(e.to_string()))?
            }
            (None, Some(frame_a), Some(frame_b)) => {
                if self.axis.is_some() {
                    return Err(path
                        .field("axis")
                        .error("only with anchor: explicit frames carry their own axes"));
                }
                let frame_a = frame_a.pose(&path.field("frame_a"))?;
                let frame_b = frame_b.pose(&path.field("frame_b"))?;
                Joint::with_frames(kind, a, b, frame_a, frame_b)
            }
            (None, None, None) => {
                return Err(
                    path.error("give an anchor (and axis) in the world, or frame_a and frame_b")
                );
            }
            (Some(_), _, _) => {
                return Err(path
                    .field("anchor")
                    .error("give an anchor or explicit frames, not both"));
            }
            (None, Some(_), None) => {
                return Err(path
                    .field("frame_b")
                    .error("missing: frame_a needs frame_b"));
            }
            (None, None, Some(_)) => {
                return Err(path
                    .field("frame_a")
                    .error("missing: frame_b needs frame_a"));
            }
        };
        let joint = self.limit_and_motor(joint, path)?;
        world
            .add_joint(joint)
            .map_err(|e| path.error(e.to_string()))?;
        Ok(())
    }

    fn limit_and_motor(&self, mut joint: Joint, path: &JsonPath) -> Result<Joint, SceneError> {
        let coordinate = joint.kind.has_coordinate();
        if let Some(limit) = &self.limit {
            let path = path.field("limit");
            if !coordinate {
                return Err(path.error("only hinge and prismatic joints have limits"));
            }
            let lower = match limit.lower {
                Some(lower) => path.field("lower").finite(lower)?,
                None => f64::NEG_INFINITY,
            };
            let upper = match limit.upper {
                Some(upper) => path.field("upper").finite(upper)?,
                None => f64::INFINITY,
            };
            if lower > upper {
                return Err(path.field("upper").error("must be >= lower"));
            }
            joint = joint.with_limit(lower, upper);
        }
        if let Some(motor) = &self.motor {
            let path = path.field("motor");
            if !coordinate {
                return Err(path.error("only hinge and prismatic joints have motors"));
            }
            let speed = path.field("target_speed").finite(motor.target_speed)?;
            let effort = match motor.max_effort {
                Some(effort) => path.field("max_effort").non_negative(effort)?,
                None => f64::INFINITY,
            };
            joint = joint.with_motor(speed, effort);
        }
        Ok(joint)
    }

    /// The description of `joint` (by explicit frames), bodies named by
    /// `names`.
    pub(crate) fn of(joint: &Joint, names: &BodyNames) -> Self {
        Self {
            kind: JointKindSpec::of(joint.kind),
            body_a: joint.body_a.map(|a| names.reference(a)),
            body_b: names.reference(joint.body_b),
            anchor: None,
            axis: None,
            frame_a: Some(FrameSpec::of(&joint.frame_a)),
            frame_b: Some(FrameSpec::of(&joint.frame_b)),
            limit: joint.limit.map(|limit| LimitSpec {
                lower: limit.lower.is_finite().then_some(limit.lower),
                upper: limit.upper.is_finite().then_some(limit.upper),
            }),
            motor: joint.motor.map(|motor| MotorSpec {
                target_speed: motor.target_speed,
                max_effort: motor.max_effort.is_finite().then_some(motor.max_effort),
            }),
        }
    }
}
