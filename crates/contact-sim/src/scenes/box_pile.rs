//! A loose pile of boxes: cubes of jittered sizes and random orientations,
//! released apart in a few columns above the ground so they fall and settle
//! on each other. The many-contact scene of the stepper benchmarks.

use contact_dynamics::RigidBody;
use contact_geometry::Shape;
use contact_math::{MassProperties, Pose};
use glam::{DQuat, DVec3};

use super::seeded::SplitMix64;
use crate::{SimError, World};

/// Description of a box pile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxPile {
    /// Number of boxes (>= 1; default 20).
    pub count: usize,
    /// Columns they are released in (>= 1; default 4, on a square grid).
    pub columns: usize,
    /// Nominal edge length (m, > 0; default 0.1); each edge is drawn within
    /// 20% of it.
    pub size: f64,
    /// Mass of each box (kg, > 0; default 0.1).
    pub mass: f64,
    /// Friction coefficient of boxes and ground (>= 0; default 0.5).
    pub friction: f64,
    /// Seed of the sizes, orientations and offsets.
    pub seed: u64,
}

impl Default for BoxPile {
    fn default() -> Self {
        Self {
            count: 20,
            columns: 4,
            size: 0.1,
            mass: 0.1,
            friction: 0.5,
            seed: 1,
        }
    }
}

/// Builds the world under gravity 9.81 m/s^2 down -z: body 0 the ground
/// (z <= 0), then the boxes at rest, column by column from the bottom up,
/// centres 2 sizes apart horizontally and 2 sizes apart vertically (so no
/// two overlap whatever their orientation), the lowest a size above the
/// ground, each column nudged by up to a fifth of a size so the boxes land
/// on each other's edges.
///
/// # Errors
/// [`SimError::Scene`] for zero boxes or columns; [`SimError::Shape`],
/// [`SimError::Mass`] or [`SimError::Dynamics`] for a bad size, mass or
/// friction.
pub fn box_pile(pile: &BoxPile) -> Result<World, SimError> {
    if pile.count == 0 || pile.columns == 0 {
        return Err(SimError::Scene {
            reason: "a pile needs at least one box and one column",
        });
    }
    let mut rng = SplitMix64::new(pile.seed);
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    let ground = RigidBody::fixed(
        Shape::half_space(DVec3::Z).map_err(SimError::Shape)?,
        Pose::IDENTITY,
    )
    .with_friction(pile.friction)?;
    world.add_body(ground);
    let side = (pile.columns as f64).sqrt().ceil() as usize;
    let spacing = 2.0 * pile.size;
    for k in 0..pile.count {
        let (column, level) = (k % pile.columns, k / pile.columns);
        let nudge = |rng: &mut SplitMix64| rng.range(-0.2, 0.2) * pile.size;
        let centre = DVec3::new(
            (column % side) as f64 * spacing + nudge(&mut rng),
            (column / side) as f64 * spacing + nudge(&mut rng),
            pile.size * (1.0 + 2.0 * level as f64),
        );
        let half = 0.5
            * pile.size
            * DVec3::new(
                rng.range(0.8, 1.2),
                rng.range(0.8, 1.2),
                rng.range(0.8, 1.2),
            );
        let rotation = DQuat::from_euler(
            glam::EulerRot::XYZ,
            rng.range(-0.6, 0.6),
            rng.range(-0.6, 0.6),
            rng.range(-3.2, 3.2),
        );
        let body = RigidBody::dynamic(
            Shape::cuboid(half).map_err(SimError::Shape)?,
            MassProperties::solid_box(pile.mass, half)?,
            Pose::new(centre, rotation),
        )?
        .with_friction(pile.friction)?;
        world.add_body(body);
    }
    Ok(world)
}
