//! The myPhysicsLab "Rigid Body Contact Forces" world in the x-z plane:
//! blocks on a floor between two walls, two stacked, one leaning on the
//! stack and one leaning on the right wall, every body held in its plane by
//! a planar lock. The contact forces at the blocks' corners are what the
//! page draws ([`FixedStepper::contact_forces`](crate::FixedStepper::contact_forces)).

use contact_dynamics::RigidBody;
use contact_geometry::Shape;
use contact_math::{MassProperties, Pose};
use glam::{DQuat, DVec3};

use crate::{SimError, World};

/// Description of the planar blocks scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarBlocks {
    /// Friction coefficient of every surface (>= 0; default 0.4).
    pub friction: f64,
    /// Magnitude of gravity, pointing down -z (m/s^2; default 9.81).
    pub gravity: f64,
    /// Lean of the block resting on the stack, from the vertical (rad,
    /// default 0.35); the block on the wall leans 0.3 rad.
    pub lean: f64,
}

impl Default for PlanarBlocks {
    fn default() -> Self {
        Self {
            friction: 0.4,
            gravity: 9.81,
            lean: 0.35,
        }
    }
}

/// Half-width of the room: the walls stand at `x = -ROOM` and `x = ROOM`.
const ROOM: f64 = 2.0;

/// Builds the scene: body 0 the floor, 1 and 2 the left and right walls,
/// then the lower and upper stacked blocks, the block leaning on the stack
/// and the block leaning on the right wall, each touching what it rests on
/// exactly.
///
/// # Errors
/// [`SimError::InvalidParameter`] for a non-finite gravity or a lean
/// outside `(0.2, 0.6)` rad (the block would miss the stack or stand
/// upright), [`SimError::Dynamics`] for a bad friction.
pub fn planar_blocks(scene: &PlanarBlocks) -> Result<World, SimError> {
    if !scene.gravity.is_finite() {
        return Err(SimError::InvalidParameter {
            name: "gravity",
            value: scene.gravity,
        });
    }
    if !(scene.lean > 0.2 && scene.lean < 0.6) {
        return Err(SimError::InvalidParameter {
            name: "lean",
            value: scene.lean,
        });
    }
    let mut world = World::planar(DVec3::new(0.0, 0.0, -scene.gravity));
    let surface = |normal: DVec3, at: DVec3| {
        RigidBody::fixed(
            Shape::half_space(normal).map_err(SimError::Shape)?,
            Pose::from_translation(at),
        )
        .with_friction(scene.friction)
        .map_err(SimError::from)
    };
    world.add_body(surface(DVec3::Z, DVec3::ZERO)?);
    world.add_body(surface(DVec3::X, DVec3::new(-ROOM, 0.0, 0.0))?);
    world.add_body(surface(DVec3::NEG_X, DVec3::new(ROOM, 0.0, 0.0))?);
    let block = |width: f64, height: f64, mass: f64, centre: DVec3, rotation: DQuat| {
        let half = DVec3::new(width / 2.0, 0.25, height / 2.0);
        RigidBody::dynamic(
            Shape::cuboid(half).map_err(SimError::Shape)?,
            MassProperties::solid_box(mass, half)?,
            Pose::new(centre, rotation),
        )?
        .with_friction(scene.friction)
        .map_err(SimError::from)
    };
    // The stack: a 1 x 1 block with a 0.8 x 0.5 block on it.
    let stack_x = -0.8;
    world.add_body(block(
        1.0,
        1.0,
        2.0,
        DVec3::new(stack_x, 0.0, 0.5),
        DQuat::IDENTITY,
    )?);
    world.add_body(block(
        0.8,
        0.5,
        1.0,
        DVec3::new(stack_x, 0.0, 1.25),
        DQuat::IDENTITY,
    )?);
    // Leaning on the stack's right face from the right: its left edge runs
    // from the floor to the face (the ladder's geometry).
    let (length, width, phi) = (0.9, 0.2, scene.lean);
    let face = stack_x + 0.5;
    let foot = DVec3::new(face + length * phi.sin(), 0.0, 0.0);
    let rotation = DQuat::from_rotation_y(-phi);
    let centre = foot + rotation * DVec3::new(width / 2.0, 0.0, length / 2.0);
    world.add_body(block(width, length, 0.5, centre, rotation)?);
    // Leaning on the right wall from the left: its right edge runs from the
    // floor to the wall.
    let (length, width, phi) = (1.2, 0.25, 0.3_f64);
    let foot = DVec3::new(ROOM - length * phi.sin(), 0.0, 0.0);
    let rotation = DQuat::from_rotation_y(phi);
    let centre = foot + rotation * DVec3::new(-width / 2.0, 0.0, length / 2.0);
    world.add_body(block(width, length, 0.8, centre, rotation)?);
    Ok(world)
}
