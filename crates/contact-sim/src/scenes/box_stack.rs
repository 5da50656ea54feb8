//! A vertical stack of equal boxes on the ground, released at rest with
//! every face exactly touching: the first end-to-end test of resting contact
//! with friction. Exact contact forces must hold it still indefinitely, with
//! the ground carrying the whole weight.

use contact_dynamics::RigidBody;
use contact_geometry::Shape;
use contact_math::{MassProperties, Pose};
use glam::DVec3;

use crate::{FixedStepper, SimError, World};

/// Description of a box stack.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxStack {
    /// Number of boxes (>= 1; default 5).
    pub count: usize,
    /// Edge length of each cube (m, > 0; default 1).
    pub size: f64,
    /// Mass of each cube (kg, > 0; default 1).
    pub mass: f64,
    /// Friction coefficient of boxes and ground (>= 0; default 0.5).
    pub friction: f64,
    /// Magnitude of gravity, pointing down -z (m/s^2; default 9.81).
    pub gravity: f64,
}

impl Default for BoxStack {
    fn default() -> Self {
        Self {
            count: 5,
            size: 1.0,
            mass: 1.0,
            friction: 0.5,
            gravity: 9.81,
        }
    }
}

/// Builds the world: body 0 is the ground (the half-space z <= 0), bodies
/// 1..=count the cubes from the bottom up, each resting exactly on the one
/// below.
///
/// # Errors
/// [`SimError::Scene`] for zero boxes, [`SimError::InvalidParameter`] for a
/// non-finite gravity, [`SimError::Shape`] for a bad size, [`SimError::Mass`]
/// for a bad mass, [`SimError::Dynamics`] for a bad friction.
pub fn box_stack(stack: &BoxStack) -> Result<World, SimError> {
    if stack.count == 0 {
        return Err(SimError::Scene {
            reason: "a stack needs at least one box",
        });
    }
    if !stack.gravity.is_finite() {
        return Err(SimError::InvalidParameter {
            name: "gravity",
            value: stack.gravity,
        });
    }
    let mut world = World::new(DVec3::new(0.0, 0.0, -stack.gravity));
    let ground = RigidBody::fixed(
        Shape::half_space(DVec3::Z).map_err(SimError::Shape)?,
        Pose::IDENTITY,
    )
    .with_friction(stack.friction)?;
    world.add_body(ground);
    let half = DVec3::splat(0.5 * stack.size);
    let shape = Shape::cuboid(half).map_err(SimError::Shape)?;
    let mass = MassProperties::solid_box(stack.mass, half)?;
    for level in 0..stack.count {
        let centre = DVec3::new(0.0, 0.0, (level as f64 + 0.5) * stack.size);
        let cube = RigidBody::dynamic(shape.clone(), mass, Pose::from_translation(centre))
            .and_then(|body| body.with_friction(stack.friction))?;
        world.add_body(cube);
    }
    Ok(world)
}

/// What a run of the stack measured.
#[derive(Clone, Debug, PartialEq)]
pub struct StackObservations {
    /// Steps taken.
    pub steps: usize,
    /// Largest interpenetration seen at the start of any step (m, >= 0).
    pub max_penetration: f64,
    /// Distance of the top box's centre from where it started (m).
    pub top_drift: f64,
    /// Ground support force of every step: the sum of the normal impulses
    /// of the ground contacts divided by h (N).
    pub support_force: Vec<f64>,
    /// The total weight of the stack, `count * mass * gravity` (N).
    pub weight: f64,
    /// Largest LCP complementarity error of any step.
    pub max_complementarity: f64,
    /// Largest number of LCP pivots in any step.
    pub max_pivots: usize,
    /// Whether every pose and twist stayed finite.
    pub all_finite: bool,
    /// The world at the end.
    pub final_world: World,
}

/// Simulates `stack` for `seconds` with `stepper` and measures it.
///
/// # Errors
/// The first error of [`box_stack`] or of a step.
pub fn run_box_stack(
    stack: &BoxStack,
    stepper: &mut FixedStepper,
    seconds: f64,
) -> Result<StackObservations, SimError> {
    let mut world = box_stack(stack)?;
    let h = stepper.params().h;
    let steps = (seconds / h).round() as usize;
    let top = world.bodies().len() - 1;
    let top_start = world.bodies()[top].pose.translation;
    let mut observations = StackObservations {
        steps,
        max_penetration: 0.0,
        top_drift: 0.0,
        support_force: Vec::with_capacity(steps),
        weight: stack.count as f64 * stack.mass * stack.gravity,
        max_complementarity: 0.0,
        max_pivots: 0,
        all_finite: true,
        final_world: world.clone(),
    };
    for _ in 0..steps {
        let report = stepper.step(&mut world)?;
        observations.max_penetration = observations.max_penetration.max(-report.min_distance);
        observations.max_complementarity =
            observations.max_complementarity.max(report.complementarity);
        observations.max_pivots = observations.max_pivots.max(report.pivots);
        let ground_impulse: f64 = stepper
            .contacts()
            .iter()
            .zip(&stepper.solution().normal_impulses)
            .filter(|(contact, _)| contact.body_a == 0 || contact.body_b == 0)
            .map(|(_, impulse)| impulse)
            .sum();
        observations.support_force.push(ground_impulse / h);
        observations.all_finite &= world.bodies().iter().all(RigidBody::is_finite);
    }
    observations.top_drift = (world.bodies()[top].pose.translation - top_start).length();
    observations.final_world = world;
    Ok(observations)
}
