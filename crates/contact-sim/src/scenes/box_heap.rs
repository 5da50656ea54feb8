//! A heap of boxes dropped loosely onto the ground: boxes of mixed sizes on
//! a loose grid of layers above the ground, each turned by a small seeded
//! random rotation, falling together. The robustness scene of issue 26
//! (40 boxes at h = 1/240 s for 10 000 steps) and a pile at scale.

use contact_dynamics::RigidBody;
use contact_geometry::Shape;
use contact_math::{MassProperties, Pose};
use glam::{DQuat, DVec3, EulerRot};

use crate::{SimError, World};

/// Description of a dropped heap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxHeap {
    /// Number of boxes (>= 1; default 40).
    pub count: usize,
    /// Boxes per side of a layer (>= 1; default 3: 9 boxes a layer).
    pub per_side: usize,
    /// Largest edge of a box (m, > 0; default 1); edges vary from half of it.
    pub size: f64,
    /// Gap between neighbouring boxes and layers (m, >= 0; default 0.2).
    pub gap: f64,
    /// Friction coefficient of boxes and ground (>= 0; default 0.5).
    pub friction: f64,
    /// Magnitude of gravity along -z (m/s^2; default 9.81).
    pub gravity: f64,
    /// Seed of the sizes and rotations.
    pub seed: u64,
}

impl Default for BoxHeap {
    fn default() -> Self {
        Self {
            count: 40,
            per_side: 3,
            size: 1.0,
            gap: 0.2,
            friction: 0.5,
            gravity: 9.81,
            seed: 1,
        }
    }
}

/// Builds the heap: body 0 the ground (z <= 0), then the boxes layer by
/// layer from the bottom, none touching another or the ground.
///
/// # Errors
/// [`SimError::Scene`] for zero boxes or a zero layer side,
/// [`SimError::InvalidParameter`] for a bad size, gap or gravity,
/// [`SimError::Dynamics`] for a bad friction.
pub fn box_heap(heap: &BoxHeap) -> Result<World, SimError> {
    if heap.count == 0 || heap.per_side == 0 {
        return Err(SimError::Scene {
            reason: "a heap needs at least one box and one box per side",
        });
    }
    for (name, value, ok) in [
        ("size", heap.size, heap.size > 0.0),
        ("gap", heap.gap, heap.gap >= 0.0),
        ("gravity", heap.gravity, true),
    ] {
        if !(value.is_finite() && ok) {
            return Err(SimError::InvalidParameter { name, value });
        }
    }
    let mut state = heap.seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1_u64 << 53) as f64
    };
    let mut world = World::new(DVec3::new(0.0, 0.0, -heap.gravity));
    world.add_body(
        RigidBody::fixed(
            Shape::half_space(DVec3::Z).map_err(SimError::Shape)?,
            Pose::IDENTITY,
        )
        .with_friction(heap.friction)?,
    );
    // A cell holds any box turned by up to 0.3 rad: its diagonal, plus the gap.
    let pitch = heap.size * 3f64.sqrt() + heap.gap;
    let layer = heap.per_side * heap.per_side;
    for k in 0..heap.count {
        let (level, slot) = (k / layer, k % layer);
        let (i, j) = (slot % heap.per_side, slot / heap.per_side);
        let centre = DVec3::new(
            (i as f64 - 0.5 * (heap.per_side - 1) as f64) * pitch,
            (j as f64 - 0.5 * (heap.per_side - 1) as f64) * pitch,
            (level as f64 + 0.5) * pitch + heap.gap,
        );
        let half = DVec3::new(
            0.25 + 0.25 * uniform(),
            0.25 + 0.25 * uniform(),
            0.25 + 0.25 * uniform(),
        ) * heap.size;
        let rotation = DQuat::from_euler(
            EulerRot::XYZ,
            0.6 * (uniform() - 0.5),
            0.6 * (uniform() - 0.5),
            std::f64::consts::TAU * uniform(),
        );
        let body = RigidBody::dynamic(
            Shape::cuboid(half).map_err(SimError::Shape)?,
            MassProperties::solid_box(8.0 * half.x * half.y * half.z * 1000.0, half)?,
            Pose::new(centre, rotation),
        )?
        .with_friction(heap.friction)?;
        world.add_body(body);
    }
    Ok(world)
}
