//! A loose pile of cubes dropped onto the ground: each cube in a cell of a
//! lattice of `columns x columns` cells per layer, as many layers as the
//! count needs, turned at random and moved off its cell's centre at random
//! (seeded), so that no two cubes touch at the start and they land on one
//! another at odd angles. The scale benchmark's irregular scene (issue 26:
//! 200 cubes).

use contact_dynamics::RigidBody;
use contact_geometry::Shape;
use contact_math::{MassProperties, Pose};
use glam::DVec3;

use super::seeded::SplitMix64;
use crate::{SimError, World};

/// Description of a box pile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxPile {
    /// Number of cubes (>= 1; default 200).
    pub count: usize,
    /// Cells along each horizontal axis of a layer (>= 1; default 5, so 25
    /// cubes a layer and 8 layers for 200).
    pub columns: usize,
    /// Edge of each cube (m, > 0; default 1).
    pub size: f64,
    /// Edge of a lattice cell (m; default 1.8): more than the cube's
    /// diagonal `sqrt(3) size`, so that a cube turned any way fits in its
    /// cell. The cube's centre moves off the cell's centre by up to a
    /// quarter of the room left, along each axis.
    pub spacing: f64,
    /// Mass of each cube (kg, > 0; default 1).
    pub mass: f64,
    /// Friction coefficient of cubes and ground (>= 0; default 0.5).
    pub friction: f64,
    /// Magnitude of gravity along -z (m/s^2; default 9.81).
    pub gravity: f64,
    /// Seed of the orientations and offsets (default 26).
    pub seed: u64,
}

impl Default for BoxPile {
    fn default() -> Self {
        Self {
            count: 200,
            columns: 5,
            size: 1.0,
            spacing: 1.8,
            mass: 1.0,
            friction: 0.5,
            gravity: 9.81,
            seed: 26,
        }
    }
}

/// Builds the pile: body 0 is the ground (z <= 0), then the cubes layer by
/// layer from the bottom, each layer row by row. The lowest layer's cells
/// sit on the ground, so every cube starts above it, apart from the others.
///
/// # Errors
/// [`SimError::Scene`] for no cubes or no columns,
/// [`SimError::InvalidParameter`] for a spacing not above the cube's
/// diagonal or a non-finite gravity, [`SimError::Shape`], [`SimError::Mass`]
/// or [`SimError::Dynamics`] for a bad size, mass or friction.
pub fn box_pile(pile: &BoxPile) -> Result<World, SimError> {
    if pile.count == 0 || pile.columns == 0 {
        return Err(SimError::Scene {
            reason: "a pile needs at least one cube and one column",
        });
    }
    if !pile.gravity.is_finite() {
        return Err(SimError::InvalidParameter {
            name: "gravity",
            value: pile.gravity,
        });
    }
    let half = DVec3::splat(0.5 * pile.size);
    let shape = Shape::cuboid(half).map_err(SimError::Shape)?;
    let mass = MassProperties::solid_box(pile.mass, half)?;
    let diagonal = 3f64.sqrt() * pile.size;
    if !(pile.spacing.is_finite() && pile.spacing > diagonal) {
        return Err(SimError::InvalidParameter {
            name: "spacing",
            value: pile.spacing,
        });
    }
    let mut world = World::new(DVec3::new(0.0, 0.0, -pile.gravity));
    world.add_body(
        RigidBody::fixed(
            Shape::half_space(DVec3::Z).map_err(SimError::Shape)?,
            Pose::IDENTITY,
        )
        .with_friction(pile.friction)?,
    );
    // Two neighbours moved towards each other by `jitter` each stay more
    // than a diagonal apart along the axis that separates their cells.
    let jitter = 0.25 * (pile.spacing - diagonal);
    let mut random = SplitMix64::new(pile.seed);
    let per_layer = pile.columns * pile.columns;
    let middle = 0.5 * (pile.columns - 1) as f64;
    for k in 0..pile.count {
        let (layer, cell) = (k / per_layer, k % per_layer);
        let (row, column) = (cell / pile.columns, cell % pile.columns);
        let centre = DVec3::new(
            (column as f64 - middle) * pile.spacing,
            (row as f64 - middle) * pile.spacing,
            (layer as f64 + 0.5) * pile.spacing,
        );
        let offset = DVec3::new(random.symmetric(), random.symmetric(), random.symmetric());
        let rotation = random.rotation();
        let cube = RigidBody::dynamic(
            shape.clone(),
            mass,
            Pose::new(centre + jitter * offset, rotation),
        )?
        .with_friction(pile.friction)?;
        world.add_body(cube);
    }
    Ok(world)
}
