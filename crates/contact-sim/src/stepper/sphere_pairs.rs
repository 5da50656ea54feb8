//! The broad phase of the conservative-advancement and event-driven
//! steppers: the pairs whose bounding spheres, each grown by a distance of
//! its own, may overlap, found by the uniform grid of contact-geometry
//! (`O(N log N)`) instead of by testing every pair.
//!
//! Each body enters the grid as the cube around its bounding sphere grown
//! by its distance, padded by a few parts in a billion of its size and
//! position so that round-off cannot drop a pair whose spheres are just
//! within reach. A pair left out is therefore farther apart (its
//! bounding spheres, so its shapes too) than the sum of its two distances:
//! what both steppers rely on to skip it. A half-space's sphere is
//! infinite, so it pairs with every body, as before.
//!
//! The pairs come out as the all-pairs loop listed them, `(a, b)`, `a < b`,
//! in increasing order, with at least one body dynamic. Should the grid
//! refuse the boxes (a NaN pose or distance), every such pair is listed,
//! so the caller meets the bad value where it did without the grid.

use contact_dynamics::RigidBody;
use contact_geometry::{Aabb, GridBroadPhase};
use glam::DVec3;

/// Relative padding of each box (see the module comment).
const PAD: f64 = 1e-9;

/// Candidate pairs by grown bounding spheres; owns its buffers, so nothing
/// is allocated once they have grown.
#[derive(Debug, Default)]
pub(crate) struct SpherePairs {
    grid: GridBroadPhase,
    boxes: Vec<Aabb>,
    pairs: Vec<(usize, usize)>,
    /// Tests only: list every pair, as the all-pairs loop did.
    #[cfg(test)]
    pub(crate) everything: bool,
}

impl SpherePairs {
    /// The pairs `(a, b)`, `a < b`, sorted, with a dynamic body, whose
    /// bounding spheres (centred at `centres`) grown by `grow(i)` (m, >= 0)
    /// may overlap: every pair whose centres are within the sum of their
    /// bounding radii and grown distances is among them.
    pub(crate) fn find(
        &mut self,
        bodies: &[RigidBody],
        centres: impl Iterator<Item = DVec3>,
        grow: impl Fn(usize) -> f64,
    ) -> &[(usize, usize)] {
        self.boxes.clear();
        self.boxes
            .extend(centres.zip(bodies).enumerate().map(|(i, (centre, body))| {
                let half = body.shape.bounding_radius() + grow(i);
                let half = half + PAD * (half + centre.abs().max_element());
                Aabb {
                    min: centre - DVec3::splat(half),
                    max: centre + DVec3::splat(half),
                }
            }));
        self.pairs.clear();
        let dynamic = |&(a, b): &(usize, usize)| bodies[a].is_dynamic() || bodies[b].is_dynamic();
        #[cfg(test)]
        let everything = self.everything;
        #[cfg(not(test))]
        let everything = false;
        let found = if everything {
            None
        } else {
            self.grid.pairs(&self.boxes).ok()
        };
        match found {
            Some(found) => self.pairs.extend(
                found
                    .iter()
                    .map(|&(a, b)| (a as usize, b as usize))
                    .filter(dynamic),
            ),
            None => {
                let n = bodies.len();
                self.pairs.extend(
                    (0..n)
                        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                        .filter(dynamic),
                );
            }
        }
        &self.pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contact_geometry::Shape;
    use contact_math::{MassProperties, Pose};

    fn ball(x: DVec3, radius: f64) -> RigidBody {
        RigidBody::dynamic(
            Shape::sphere(radius).unwrap(),
            MassProperties::solid_sphere(1.0, radius).unwrap(),
            Pose::from_translation(x),
        )
        .unwrap()
    }

    /// Every pair within reach, by testing all of them.
    fn brute_force(bodies: &[RigidBody], grow: &[f64]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for a in 0..bodies.len() {
            for b in a + 1..bodies.len() {
                let reach = bodies[a].shape.bounding_radius()
                    + bodies[b].shape.bounding_radius()
                    + grow[a]
                    + grow[b];
                let apart = bodies[a]
                    .pose
                    .translation
                    .distance(bodies[b].pose.translation);
                if (bodies[a].is_dynamic() || bodies[b].is_dynamic()) && apart <= reach {
                    out.push((a, b));
                }
            }
        }
        out
    }

    #[test]
    fn the_grid_keeps_every_pair_within_reach_in_order() {
        let mut bodies = vec![RigidBody::fixed(
            Shape::half_space(DVec3::Z).unwrap(),
            Pose::IDENTITY,
        )];
        // A sparse lattice, and pairs about at reach (radius 0.1 each,
        // grown 0.05 each: reach 0.3), where round-off decides.
        for k in 0..60 {
            let x = DVec3::new((k % 8) as f64 * 2.0, (k / 8) as f64 * 2.0, 1.0);
            bodies.push(ball(x, 0.1));
        }
        for (k, gap) in [0.3, 0.3 - 1e-12, 0.3 + 1e-9, 0.29].into_iter().enumerate() {
            let x = DVec3::new(-5.0, 3.0 * k as f64, 1.0);
            bodies.push(ball(x, 0.1));
            bodies.push(ball(x + DVec3::new(gap, 0.0, 0.0), 0.1));
        }
        bodies.push(RigidBody::fixed(
            Shape::cuboid(DVec3::splat(0.5)).unwrap(),
            Pose::from_translation(DVec3::new(-5.0, 0.0, 1.5)),
        ));
        let grow = vec![0.05; bodies.len()];
        let expected = brute_force(&bodies, &grow);
        let mut pairs = SpherePairs::default();
        let found = pairs.find(&bodies, bodies.iter().map(|b| b.pose.translation), |i| {
            grow[i]
        });
        // The grid may add pairs whose cubes overlap but spheres do not;
        // it must keep every pair within reach, sorted.
        assert!(found.windows(2).all(|w| w[0] < w[1]), "{found:?}");
        for pair in &expected {
            assert!(found.binary_search(pair).is_ok(), "{pair:?} missing");
        }
        assert!(found.len() < 2 * expected.len(), "{found:?}");
    }

    #[test]
    fn a_nan_centre_lists_every_pair_with_a_dynamic_body() {
        let bodies: Vec<_> = (0..4)
            .map(|k| ball(DVec3::new(10.0 * k as f64, 0.0, 0.0), 0.1))
            .collect();
        let mut pairs = SpherePairs::default();
        let centres = bodies.iter().enumerate().map(|(i, b)| {
            if i == 2 {
                DVec3::NAN
            } else {
                b.pose.translation
            }
        });
        let found = pairs.find(&bodies, centres, |_| 0.0).to_vec();
        assert_eq!(found, brute_force_all(4));
    }

    fn brute_force_all(n: usize) -> Vec<(usize, usize)> {
        (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect()
    }
}
