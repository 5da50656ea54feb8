//! The collision pass: from shapes at poses to contact constraints.
//!
//! Speculative contacts: a pair is taken within its margin plus the
//! distance its bodies can close in the step, `h` times a bound on each
//! body's point speeds (`|v| + h |g| + |w| r`, `r` the body's motion radius
//! about its centre of mass). Such a contact's row only asks the bodies not
//! to close the gap by more than it is wide within the step (the gap term
//! `g / h` of the step problem), so a body at any speed stops at a surface
//! instead of passing it, and lands without penetrating.
//!
//! The broad phase (the uniform grid of contact-geometry, `O(N log N)`)
//! finds the pairs whose bounding boxes, grown by those distances, overlap;
//! pairs with no dynamic body, and pairs joined by a joint (which do not
//! collide, Box2D's default: a joint's links usually touch at the joint),
//! are skipped; the narrow phase computes the manifold of the others. The
//! broad phase returns its pairs sorted and points are kept in the
//! generator's order, so the constraint list, and so the whole step, is
//! deterministic.

use contact_dynamics::{ContactConstraint, DynamicsError, Joint, RigidBody};
use contact_geometry::{Aabb, ContactManifold, GridBroadPhase, ManifoldGenerator};
use contact_math::Pose;
use glam::DVec3;

use crate::SimError;

/// Finds contact constraints between bodies; owns its scratch memory.
#[derive(Debug, Default)]
pub struct CollisionPass {
    generator: ManifoldGenerator,
    manifold: ContactManifold,
    /// Pairs `(a, b)`, `a < b`, joined by a joint, sorted.
    jointed: Vec<(usize, usize)>,
    broad_phase: GridBroadPhase,
    boxes: Vec<Aabb>,
    /// How far each body's points can move in the step (m).
    reach: Vec<f64>,
    /// The bodies' own poses, for `detect`.
    poses: Vec<Pose>,
}

impl CollisionPass {
    /// Fills `out` with one constraint per contact point of every pair not
    /// joined by one of `joints` and closer than `margin` (m) plus the
    /// distance its bodies can close in a step of `h` under `gravity` (see
    /// the module comment). A pair's
    /// friction coefficient is the geometric mean of its bodies'
    /// coefficients, its restitution the larger of theirs.
    ///
    /// # Errors
    /// [`SimError::Dynamics`] (`NonFiniteState`) for a body whose pose or
    /// twist is not finite, `NonFiniteResult` for one whose motion over the
    /// step overflows, [`SimError::BroadPhase`] beyond `u32::MAX` bodies,
    /// [`SimError::Geometry`] naming the pair when a query fails.
    pub fn detect(
        &mut self,
        bodies: &[RigidBody],
        joints: &[Joint],
        margin: f64,
        h: f64,
        gravity: DVec3,
        out: &mut Vec<ContactConstraint>,
    ) -> Result<(), SimError> {
        let mut poses = std::mem::take(&mut self.poses);
        poses.clear();
        poses.extend(bodies.iter().map(|body| body.pose));
        let found = self.detect_at(bodies, &poses, joints, margin, h, gravity, out);
        self.poses = poses;
        found
    }

    /// [`CollisionPass::detect`] with the bodies at `poses` instead of their
    /// own (the poses a step arrives at, before it is committed).
    ///
    /// # Errors
    /// As [`CollisionPass::detect`].
    #[allow(clippy::too_many_arguments)] // detect's, and the poses
    pub fn detect_at(
        &mut self,
        bodies: &[RigidBody],
        poses: &[Pose],
        joints: &[Joint],
        margin: f64,
        h: f64,
        gravity: DVec3,
        out: &mut Vec<ContactConstraint>,
    ) -> Result<(), SimError> {
        out.clear();
        self.jointed.clear();
        self.jointed.extend(joints.iter().filter_map(|joint| {
            joint
                .body_a
                .map(|a| (a.min(joint.body_b), a.max(joint.body_b)))
        }));
        self.jointed.sort_unstable();
        if let Some(body) =
            (0..bodies.len()).find(|&i| !(bodies[i].twist.is_finite() && poses[i].is_finite()))
        {
            return Err(DynamicsError::NonFiniteState { body }.into());
        }
        self.reach.clear();
        self.reach.extend(bodies.iter().map(|body| {
            if body.is_dynamic() {
                let twist = &body.twist;
                let speed = twist.linear.length()
                    + h * gravity.length()
                    + twist.angular.length() * body.shape.motion_radius(DVec3::ZERO);
                h * speed
            } else {
                0.0
            }
        }));
        if let Some(body) = self.reach.iter().position(|r| !r.is_finite()) {
            // Its motion over the step overflows: so would the step.
            return Err(DynamicsError::NonFiniteResult { body }.into());
        }
        self.boxes.clear();
        self.boxes.extend(
            bodies
                .iter()
                .zip(poses)
                .zip(&self.reach)
                .map(|((body, pose), &reach)| {
                    Aabb::of_shape(&body.shape, pose, 0.5 * margin + reach)
                }),
        );
        let pairs = self
            .broad_phase
            .pairs(&self.boxes)
            .map_err(|source| SimError::BroadPhase { source })?;
        for &(a, b) in pairs {
            let (a, b) = (a as usize, b as usize);
            let (body_a, body_b) = (&bodies[a], &bodies[b]);
            if !body_a.is_dynamic() && !body_b.is_dynamic()
                || self.jointed.binary_search(&(a, b)).is_ok()
            {
                continue;
            }
            self.generator
                .compute(
                    &body_a.shape,
                    &poses[a],
                    &body_b.shape,
                    &poses[b],
                    margin + self.reach[a] + self.reach[b],
                    &mut self.manifold,
                )
                .map_err(|source| SimError::Geometry {
                    body_a: a,
                    body_b: b,
                    source,
                })?;
            let friction = (body_a.friction() * body_b.friction()).sqrt();
            let restitution = body_a.restitution().max(body_b.restitution());
            out.extend(self.manifold.points.iter().map(|point| ContactConstraint {
                body_a: a,
                body_b: b,
                point: point.midpoint(),
                normal: self.manifold.normal,
                distance: point.distance,
                friction,
                restitution,
                features: [point.feature_a, point.feature_b],
            }));
        }
        Ok(())
    }
}
