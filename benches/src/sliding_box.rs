//! Box-friction problems of cubes sliding and spinning: a single cube on
//! the ground, the most common contact island of a scene in motion and the
//! one where the friction coupling decides the answer (a cube at rest
//! needs no friction, so its first coupling pass already certifies), and
//! stacks of cubes each sliding on the one below.

use contact_lcp::BoxLcp;
use contact_sim::{BodyId, Twist};
use glam::DVec3;

use crate::Rng;
use crate::settled_stack::{box_friction_stack, quantize_state};

/// Steps before the cube is set moving: it settles on its four corners.
const SETTLE_STEPS: usize = 10;

/// The seed of the sliding sets the criterion benches and the peers share
/// (`lcp_sliding_box_set`, `sliding_box_set`); a stack of `k` cubes takes
/// it plus `k`.
pub const SLIDING_SEED: u64 = 0x511DE;

/// Cubes in the stacks of [`sliding_stack_sets`].
pub const SLIDING_STACK_CUBES: [usize; 2] = [2, 3];

/// Stacks in each set of [`sliding_stack_sets`].
pub const SLIDING_STACK_SET_SIZE: usize = 32;

/// The sliding-stack sets the criterion benches (`lcp_sliding_stack_set`)
/// and the peers (`sliding_stack_{2,3}_set`) share: for each count of
/// [`SLIDING_STACK_CUBES`], [`SLIDING_STACK_SET_SIZE`] stacks of
/// [`sliding_stack_set`] seeded with [`SLIDING_SEED`] plus the count.
///
/// # Errors
/// As [`sliding_stack_set`].
pub fn sliding_stack_sets() -> Result<Vec<Vec<BoxLcp>>, String> {
    SLIDING_STACK_CUBES
        .iter()
        .map(|&boxes| sliding_stack_set(boxes, SLIDING_STACK_SET_SIZE, SLIDING_SEED + boxes as u64))
        .collect()
}

/// `count` box-friction LCPs (n = 12: four corner contacts, a normal and
/// two friction rows each, friction 0.5) of the default cube resting on
/// the ground and then given a random horizontal velocity (each component
/// in [-0.2, 0.2] m/s) and spin about the vertical (in [-0.4, 0.4]
/// rad/s), the problem of the step after that; seeded, so the set is the
/// same on every run. Slow enough that the cube keeps all four contacts
/// (the problem has 12 rows), fast enough that the contacts slide: one
/// step of gravity at mu = 0.5 removes at most mu g h = 0.02 m/s.
///
/// # Errors
/// If the scene or a step fails, or a problem has not 12 rows.
pub fn sliding_box_set(count: usize, seed: u64) -> Result<Vec<BoxLcp>, String> {
    sliding_stack_set(1, count, seed)
}

/// As [`sliding_box_set`] for a stack of `boxes` default cubes settled on
/// the ground, each then given its own random velocity and spin (drawn in
/// stack order, bottom first, so that one cube gives the problems of
/// [`sliding_box_set`]): every cube slides on the one below (n = 12
/// `boxes`, four contacts a face).
///
/// # Errors
/// If the scene or a step fails, or a problem has not 12 `boxes` rows.
pub fn sliding_stack_set(boxes: usize, count: usize, seed: u64) -> Result<Vec<BoxLcp>, String> {
    let mut rng = Rng::new(seed);
    let mut set = Vec::with_capacity(count);
    for k in 0..count {
        let (mut world, mut stepper) = box_friction_stack(boxes)?;
        for _ in 0..SETTLE_STEPS {
            stepper.step(&mut world).map_err(|e| e.to_string())?;
        }
        for body in 1..=boxes {
            world.body_mut(BodyId(body)).twist = Twist::new(
                DVec3::new(0.2 * rng.symmetric(), 0.2 * rng.symmetric(), 0.0),
                DVec3::new(0.0, 0.0, 0.4 * rng.symmetric()),
            );
        }
        // The problem depends on the seed alone, not on the last bits of
        // the settling steps' solves (see `quantize_state`).
        quantize_state(&mut world);
        stepper
            .step(&mut world)
            .map_err(|e| format!("sliding stack {k}: {e}"))?;
        let (m, q) = stepper.last_problem(0);
        if q.len() != 12 * boxes {
            return Err(format!(
                "sliding stack {k}: {} rows, expected {} (four contacts a face)",
                q.len(),
                12 * boxes
            ));
        }
        let lcp = contact_lcp::Lcp::new(m.to_owned(), q.to_vec())
            .map_err(|e| format!("sliding stack {k}: {e}"))?;
        let bounds = stepper.last_box_bounds(0).clone();
        set.push(BoxLcp::with_bounds(lcp, bounds).map_err(|e| format!("sliding stack {k}: {e}"))?);
    }
    Ok(set)
}
