//! Joints between two bodies, or a body and the world (Cline 2002,
//! sec. 4.4.1): ball, hinge (revolute), universal, prismatic and fixed, each
//! defined by an anchor frame on each side; limits on a hinge's angle or a
//! prismatic joint's travel; a velocity motor with a bounded effort.
//!
//! A joint holds when its two anchor frames coincide as its kind requires:
//! their origins (all but the prismatic joint, whose origin slides along the
//! frame's z axis) and their orientations (the fixed and prismatic joints),
//! or their z axes (the hinge, whose angle about z is free), or the first
//! frame's x axis perpendicular to the second's y axis (the universal joint).
//! Each kind's rows are in its own file; `anchor.rs` holds the rows they
//! share. Every row is bilateral with its error `g` as position condition,
//! so stabilisation (Baumgarte or the projection) removes drift.
//!
//! A limit adds a unilateral row per finite bound on the joint coordinate
//! `s` (the hinge angle or the prismatic travel): `s - lower >= 0` and
//! `upper - s >= 0`, whose gap terms keep `s` from crossing a bound within
//! the step. A motor adds a row `ds/dt = speed` whose impulse is bounded by
//! `max_effort h`.

mod anchor;
mod ball;
mod fixed;
mod hinge;
mod prismatic;
mod universal;

use contact_math::{Pose, Wrench};
use glam::{DQuat, DVec3};

use super::{ConstraintRow, EmitRows, PositionCondition, RowBounds, RowSet, StabilisationGroup};
use crate::{BodyState, DynamicsError, JacobianRow, RigidBody};
use anchor::AnchorFrames;

/// The kinds of joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// Ball and socket: the anchor points coincide; any rotation (3 rows).
    Ball,
    /// Hinge (revolute): ball plus the z axes aligned; rotation about z
    /// free (5 rows). Its coordinate is the angle about z (rad).
    Hinge,
    /// Universal (Hooke): ball plus frame a's x axis perpendicular to frame
    /// b's y axis; rotation about both free (4 rows).
    Universal,
    /// Prismatic (slider): orientations equal and b's origin on the line
    /// through a's origin along a's z axis (5 rows). Its coordinate is the
    /// travel along z (m).
    Prismatic,
    /// Fixed (weld): origins and orientations equal (6 rows).
    Fixed,
}

impl JointKind {
    /// Whether the kind has a coordinate a limit or motor acts on.
    #[must_use]
    pub fn has_coordinate(self) -> bool {
        matches!(self, Self::Hinge | Self::Prismatic)
    }
}

/// Bounds on a joint's coordinate (rad for a hinge, m for a prismatic
/// joint). Either may be infinite. A hinge's angle lives in `(-pi, pi]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointLimit {
    /// Smallest allowed value.
    pub lower: f64,
    /// Largest allowed value (`>= lower`).
    pub upper: f64,
}

/// A velocity motor on a joint's coordinate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointMotor {
    /// Speed the motor drives the coordinate to (rad/s or m/s, finite).
    pub target_speed: f64,
    /// Largest torque (N m) or force (N) it may apply (>= 0; `inf` for an
    /// unbounded drive).
    pub max_effort: f64,
}

/// A joint: its kind, its bodies and an anchor frame on each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Joint {
    /// The kind of joint.
    pub kind: JointKind,
    /// The first body, `None` for the world.
    pub body_a: Option<usize>,
    /// The second body; must move.
    pub body_b: usize,
    /// Anchor frame in body a's frame (in the world frame for the world).
    pub frame_a: Pose,
    /// Anchor frame in body b's frame.
    pub frame_b: Pose,
    /// Optional limit on the coordinate (hinge, prismatic).
    pub limit: Option<JointLimit>,
    /// Optional velocity motor on the coordinate (hinge, prismatic).
    pub motor: Option<JointMotor>,
}

/// What a joint transmits: the force and torque it applies to body b, world
/// frame, the torque about b's anchor point (body a receives the opposite).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JointReaction {
    /// Force on body b (N).
    pub force: DVec3,
    /// Torque on body b about its anchor point (N m).
    pub torque: DVec3,
}

fn invalid(field: &'static str, reason: &'static str) -> DynamicsError {
    DynamicsError::InvalidJoint {
        joint: None,
        field,
        reason,
    }
}

impl Joint {
    /// A joint whose anchor frame is at `anchor` (world) with its z axis
    /// along `axis` (world), expressed in the frames of body `a` (or the
    /// world) and body `b` at their current poses, so the joint holds
    /// exactly as built. For a universal joint the first axis (frame a's
    /// x) and the second (frame b's y) are perpendicular to `axis`; see
    /// [`Joint::with_frames`] to choose them.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidJoint`] for a body index out of range, `a ==
    /// b`, a fixed body `b`, a non-finite anchor, or an axis of zero or
    /// non-finite length.
    pub fn at_world_frame(
        kind: JointKind,
        bodies: &[RigidBody],
        a: Option<usize>,
        b: usize,
        anchor: DVec3,
        axis: DVec3,
    ) -> Result<Self, DynamicsError> {
        if !anchor.is_finite() {
            return Err(invalid("anchor", "must be finite"));
        }
        let length = axis.length();
        if !(length.is_finite() && length > 0.0) {
            return Err(invalid("axis", "must have a finite, nonzero length"));
        }
        let frame = Pose::new(anchor, DQuat::from_rotation_arc(DVec3::Z, axis / length));
        check_bodies(a, b, bodies.len(), |i| bodies[i].is_dynamic())?;
        let local = |body: Option<usize>| match body {
            Some(i) => bodies[i].pose.inverse() * frame,
            None => frame,
        };
        Ok(Self::with_frames(kind, a, b, local(a), local(Some(b))))
    }

    /// A joint from its anchor frames, each in its body's frame (`frame_a` in
    /// the world frame when `a` is `None`). Checked by [`Joint::validate`].
    #[must_use]
    pub fn with_frames(
        kind: JointKind,
        a: Option<usize>,
        b: usize,
        frame_a: Pose,
        frame_b: Pose,
    ) -> Self {
        Self {
            kind,
            body_a: a,
            body_b: b,
            frame_a,
            frame_b,
            limit: None,
            motor: None,
        }
    }

    /// The same joint with a limit on its coordinate.
    #[must_use]
    pub fn with_limit(mut self, lower: f64, upper: f64) -> Self {
        self.limit = Some(JointLimit { lower, upper });
        self
    }

    /// The same joint with a velocity motor on its coordinate.
    #[must_use]
    pub fn with_motor(mut self, target_speed: f64, max_effort: f64) -> Self {
        self.motor = Some(JointMotor {
            target_speed,
            max_effort,
        });
        self
    }

    /// Checks the joint against a world of `bodies`; `index` names it in
    /// the error.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidJoint`] naming the field: a body out of
    /// range, `a == b`, a fixed body `b`, a frame that is not finite or not
    /// unit, a limit or motor on a kind without a coordinate, a limit with
    /// `lower > upper` or a NaN bound, a motor with a non-finite speed or a
    /// negative or NaN effort.
    pub fn validate(&self, index: usize, bodies: &[RigidBody]) -> Result<(), DynamicsError> {
        self.check(bodies.len(), |i| bodies[i].is_dynamic())
            .map_err(|e| match e {
                DynamicsError::InvalidJoint { field, reason, .. } => DynamicsError::InvalidJoint {
                    joint: Some(index),
                    field,
                    reason,
                },
                other => other,
            })
    }

    fn check(&self, count: usize, dynamic: impl Fn(usize) -> bool) -> Result<(), DynamicsError> {
        check_bodies(self.body_a, self.body_b, count, dynamic)?;
        for (field, frame) in [("frame_a", &self.frame_a), ("frame_b", &self.frame_b)] {
            if Pose::try_new(frame.translation, frame.rotation).is_err() {
                return Err(invalid(field, "must be finite with a unit rotation"));
            }
        }
        if let Some(limit) = self.limit {
            if !self.kind.has_coordinate() {
                return Err(invalid(
                    "limit",
                    "only hinge and prismatic joints have limits",
                ));
            }
            if limit.lower.is_nan() || limit.upper.is_nan() {
                return Err(invalid("limit", "bounds must not be NaN"));
            }
            if limit.lower > limit.upper {
                return Err(invalid("limit", "lower must not exceed upper"));
            }
        }
        if let Some(motor) = self.motor {
            if !self.kind.has_coordinate() {
                return Err(invalid(
                    "motor",
                    "only hinge and prismatic joints have motors",
                ));
            }
            if !motor.target_speed.is_finite() {
                return Err(invalid("motor.target_speed", "must be finite"));
            }
            if motor.max_effort.is_nan() || motor.max_effort < 0.0 {
                return Err(invalid("motor.max_effort", "must be >= 0"));
            }
        }
        Ok(())
    }

    /// The joint's coordinate (hinge angle in rad, prismatic travel in m)
    /// for the bodies' states; `None` for other kinds.
    #[must_use]
    pub fn coordinate(&self, bodies: &[BodyState]) -> Option<f64> {
        let frames = AnchorFrames::of(self, bodies);
        match self.kind {
            JointKind::Hinge => Some(hinge::angle(&frames)),
            JointKind::Prismatic => Some(prismatic::travel(&frames)),
            _ => None,
        }
    }

    /// The largest position error of the joint's equality rows (m or rad):
    /// how far it is from holding.
    #[must_use]
    pub fn error(&self, bodies: &[BodyState]) -> f64 {
        let mut rows = RowSet::default();
        rows.begin(super::ConstraintRef::Joint(0), 0);
        self.emit_rows(bodies, 1.0, &mut rows);
        rows.rows()
            .iter()
            .map(|row| match row.condition {
                PositionCondition::Equality { error } => error.abs(),
                _ => 0.0,
            })
            .fold(0.0, f64::max)
    }

    /// The reaction of the joint given the impulses of its rows (N s) over a
    /// step of `h` seconds.
    pub(crate) fn reaction(
        &self,
        bodies: &[BodyState],
        rows: &[ConstraintRow],
        impulses: &[f64],
        h: f64,
    ) -> JointReaction {
        let frames = AnchorFrames::of(self, bodies);
        let mut wrench = Wrench::ZERO;
        for (row, &impulse) in rows.iter().zip(impulses) {
            if let Some(block) = row.jacobian.b {
                wrench.force += impulse * block.linear;
                wrench.torque += impulse * block.angular;
            }
        }
        // About b's anchor instead of b's centre of mass.
        let about_anchor = wrench.shift(frames.point_b - bodies[self.body_b].centre());
        JointReaction {
            force: about_anchor.force / h,
            torque: about_anchor.torque / h,
        }
    }
}

fn check_bodies(
    a: Option<usize>,
    b: usize,
    count: usize,
    dynamic: impl Fn(usize) -> bool,
) -> Result<(), DynamicsError> {
    if a.is_some_and(|a| a >= count) {
        return Err(invalid("body_a", "names a body that is not in the world"));
    }
    if b >= count {
        return Err(invalid("body_b", "names a body that is not in the world"));
    }
    if a == Some(b) {
        return Err(invalid("body_b", "a joint needs two different bodies"));
    }
    if !dynamic(b) {
        return Err(invalid(
            "body_b",
            "must be a dynamic body (put a fixed one as body_a, or use the world)",
        ));
    }
    Ok(())
}

impl EmitRows for Joint {
    fn emit_rows(&self, bodies: &[BodyState], h: f64, out: &mut RowSet) {
        let frames = AnchorFrames::of(self, bodies);
        match self.kind {
            JointKind::Ball => ball::emit(&frames, bodies, h, out),
            JointKind::Hinge => hinge::emit(&frames, bodies, h, out),
            JointKind::Universal => universal::emit(&frames, bodies, h, out),
            JointKind::Prismatic => prismatic::emit(&frames, bodies, h, out),
            JointKind::Fixed => fixed::emit(&frames, bodies, h, out),
        }
        let (coordinate, rate) = match self.kind {
            JointKind::Hinge => (hinge::angle(&frames), hinge::rate_row(&frames, bodies)),
            JointKind::Prismatic => (
                prismatic::travel(&frames),
                prismatic::rate_row(&frames, bodies),
            ),
            _ => return,
        };
        if let Some(limit) = self.limit {
            emit_limit(limit, coordinate, rate, out);
        }
        if let Some(motor) = self.motor {
            let bound = motor.max_effort * h;
            out.push(ConstraintRow {
                velocity_target: motor.target_speed,
                ..ConstraintRow::new(
                    rate,
                    RowBounds::Interval {
                        lo: -bound,
                        hi: bound,
                    },
                    PositionCondition::None,
                )
            });
        }
    }
}

/// The unilateral rows of a limit: `s - lower >= 0` along the rate row and
/// `upper - s >= 0` along its negative, for each finite bound.
fn emit_limit(limit: JointLimit, s: f64, rate: JacobianRow, out: &mut RowSet) {
    let negated = rate.combine(-1.0, &rate, 0.0);
    for (bound, gap, row) in [
        (limit.lower, s - limit.lower, rate),
        (limit.upper, limit.upper - s, negated),
    ] {
        if bound.is_finite() {
            out.push(ConstraintRow::new(
                row,
                RowBounds::NonNegative,
                PositionCondition::Gap {
                    gap,
                    group: StabilisationGroup::Joint,
                },
            ));
        }
    }
}
