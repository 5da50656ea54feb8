//! Drumwright's die (2016, sec. 6.1): a cube thrown onto the ground with
//! an arbitrary pose, velocity and spin, simulated until it lies still on a
//! face. The paper's measure of how well conservative advancement finds
//! contact-manifold changes.

use contact_dynamics::RigidBody;
use contact_geometry::Shape;
use contact_math::{MassProperties, Pose, Twist};
use glam::{DQuat, DVec3};

use super::seeded::SplitMix64;
use crate::{SimError, World};

/// Description of a thrown die.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThrownDie {
    /// Edge length (m, > 0; default 0.1).
    pub size: f64,
    /// Mass (kg, > 0; default 0.1).
    pub mass: f64,
    /// Friction coefficient of die and ground (>= 0; default 0.5).
    pub friction: f64,
    /// Magnitude of gravity, pointing down -z (m/s^2; default 9.81).
    pub gravity: f64,
    /// Initial pose of the die's centre (m, unit quaternion; default 0.3 m
    /// above the ground, tilted so a corner points down).
    pub pose: Pose,
    /// Initial velocity of its centre and spin (m/s, rad/s, world frame;
    /// default 1 m/s sideways and 8 rad/s about a tilted axis).
    pub twist: Twist,
}

impl Default for ThrownDie {
    fn default() -> Self {
        Self {
            size: 0.1,
            mass: 0.1,
            friction: 0.5,
            gravity: 9.81,
            pose: Pose::new(
                DVec3::new(0.0, 0.0, 0.3),
                DQuat::from_euler(glam::EulerRot::XYZ, 0.6, 0.4, 0.2),
            ),
            twist: Twist::new(DVec3::new(1.0, 0.0, 0.0), DVec3::new(3.0, -7.0, 2.0)),
        }
    }
}

impl ThrownDie {
    /// A throw drawn from `seed` (the same on every machine): the default
    /// die at a height in `[0.2, 0.5)` m, a uniformly random orientation,
    /// a velocity of up to 1.5 m/s sideways and `[-2, 1)` m/s vertically, a
    /// spin of up to 15 rad/s about each axis.
    #[must_use]
    pub fn random(seed: u64) -> Self {
        let mut rng = SplitMix64::new(seed);
        let height = rng.range(0.2, 0.5);
        // Shoemake's uniform unit quaternion from three uniforms.
        let (u1, u2, u3) = (rng.unit(), rng.unit(), rng.unit());
        let tau = std::f64::consts::TAU;
        let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
        let rotation = DQuat::from_xyzw(
            a * (tau * u2).sin(),
            a * (tau * u2).cos(),
            b * (tau * u3).sin(),
            b * (tau * u3).cos(),
        )
        .normalize();
        let velocity = DVec3::new(
            rng.range(-1.5, 1.5),
            rng.range(-1.5, 1.5),
            rng.range(-2.0, 1.0),
        );
        let spin = DVec3::new(
            rng.range(-15.0, 15.0),
            rng.range(-15.0, 15.0),
            rng.range(-15.0, 15.0),
        );
        Self {
            pose: Pose::new(DVec3::new(0.0, 0.0, height), rotation),
            twist: Twist::new(velocity, spin),
            ..Self::default()
        }
    }
}

/// Builds the world: body 0 the ground (the half-space z <= 0), body 1 the
/// die.
///
/// # Errors
/// [`SimError::InvalidParameter`] for a non-finite gravity,
/// [`SimError::Shape`] for a bad size, [`SimError::Mass`] for a bad mass,
/// [`SimError::Dynamics`] for a bad friction, pose or twist.
pub fn thrown_die(die: &ThrownDie) -> Result<World, SimError> {
    if !die.gravity.is_finite() {
        return Err(SimError::InvalidParameter {
            name: "gravity",
            value: die.gravity,
        });
    }
    let mut world = World::new(DVec3::new(0.0, 0.0, -die.gravity));
    let ground = RigidBody::fixed(
        Shape::half_space(DVec3::Z).map_err(SimError::Shape)?,
        Pose::IDENTITY,
    )
    .with_friction(die.friction)?;
    world.add_body(ground);
    let half = DVec3::splat(0.5 * die.size);
    let mut body = RigidBody::dynamic(
        Shape::cuboid(half).map_err(SimError::Shape)?,
        MassProperties::solid_box(die.mass, half)?,
        die.pose,
    )?
    .with_friction(die.friction)?;
    if !die.twist.is_finite() {
        return Err(SimError::InvalidParameter {
            name: "twist",
            value: die
                .twist
                .to_array()
                .into_iter()
                .find(|v| !v.is_finite())
                .unwrap_or(f64::NAN),
        });
    }
    body.twist = die.twist;
    world.add_body(body);
    Ok(world)
}
