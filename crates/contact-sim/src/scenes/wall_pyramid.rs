//! A wall pyramid of cubes on the ground: `base` cubes in the bottom row,
//! one fewer in each row above, each cube resting on two below it (half of
//! its bottom face on each), neighbours in a row a small gap apart so that
//! they do not touch. The scale benchmark's scene (issue 26): 15, 55 and
//! 210 cubes for bases 5, 10 and 20, at h = 1/60 s.

use contact_dynamics::RigidBody;
use contact_geometry::Shape;
use contact_math::{MassProperties, Pose};
use glam::DVec3;

use crate::{SimError, World};

/// Description of a wall pyramid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallPyramid {
    /// Cubes in the bottom row (>= 1; default 10, so 55 cubes).
    pub base: usize,
    /// Edge of each cube (m, > 0; default 1).
    pub size: f64,
    /// Gap between neighbours in a row (m, >= 0; default 0.05): above the
    /// default contact margin, so rows have no side contacts.
    pub gap: f64,
    /// Mass of each cube (kg, > 0; default 1).
    pub mass: f64,
    /// Friction coefficient of cubes and ground (>= 0; default 0.5).
    pub friction: f64,
    /// Magnitude of gravity along -z (m/s^2; default 9.81).
    pub gravity: f64,
}

impl Default for WallPyramid {
    fn default() -> Self {
        Self {
            base: 10,
            size: 1.0,
            gap: 0.05,
            mass: 1.0,
            friction: 0.5,
            gravity: 9.81,
        }
    }
}

impl WallPyramid {
    /// The number of cubes, `base (base + 1) / 2`.
    #[must_use]
    pub fn cubes(&self) -> usize {
        self.base * (self.base + 1) / 2
    }
}

/// Builds the pyramid: body 0 is the ground (z <= 0), then the cubes row by
/// row from the bottom, each row from -x to +x, every face exactly touching
/// the faces it rests on. The top cube is the last body.
///
/// # Errors
/// [`SimError::Scene`] for a zero base, [`SimError::InvalidParameter`] for a
/// negative or non-finite gap or a non-finite gravity, [`SimError::Shape`],
/// [`SimError::Mass`] or [`SimError::Dynamics`] for a bad size, mass or
/// friction.
pub fn wall_pyramid(pyramid: &WallPyramid) -> Result<World, SimError> {
    if pyramid.base == 0 {
        return Err(SimError::Scene {
            reason: "a pyramid needs at least one cube in its base",
        });
    }
    for (name, value) in [("gap", pyramid.gap), ("gravity", pyramid.gravity)] {
        if !(value.is_finite() && (name != "gap" || value >= 0.0)) {
            return Err(SimError::InvalidParameter { name, value });
        }
    }
    let mut world = World::new(DVec3::new(0.0, 0.0, -pyramid.gravity));
    world.add_body(
        RigidBody::fixed(
            Shape::half_space(DVec3::Z).map_err(SimError::Shape)?,
            Pose::IDENTITY,
        )
        .with_friction(pyramid.friction)?,
    );
    let half = DVec3::splat(0.5 * pyramid.size);
    let shape = Shape::cuboid(half).map_err(SimError::Shape)?;
    let mass = MassProperties::solid_box(pyramid.mass, half)?;
    let pitch = pyramid.size + pyramid.gap;
    for row in 0..pyramid.base {
        let count = pyramid.base - row;
        let z = (row as f64 + 0.5) * pyramid.size;
        for k in 0..count {
            let x = (k as f64 - 0.5 * (count - 1) as f64) * pitch;
            let cube = RigidBody::dynamic(
                shape.clone(),
                mass,
                Pose::from_translation(DVec3::new(x, 0.0, z)),
            )?
            .with_friction(pyramid.friction)?;
            world.add_body(cube);
        }
    }
    Ok(world)
}
