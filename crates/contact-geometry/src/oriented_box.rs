//! A cuboid placed in the world, and the numbering of its features.
//!
//! Numbering (local frame, axes x = 0, y = 1, z = 2):
//! - vertex `v`: bit `i` of `v` set when local coordinate `i` is negative
//!   (parry's cuboid numbering), so `0` is the `(+, +, +)` corner;
//! - face `2 i + s`: the face normal to axis `i`, `s = 0` on the positive
//!   side, `s = 1` on the negative side;
//! - edge `4 i + b`: the edge parallel to axis `i`; bit 0 of `b` is the sign
//!   bit of the lower of the two other axes, bit 1 that of the higher.

use contact_math::Pose;
use glam::DVec3;

/// A cuboid with its pose resolved into world-frame centre and axes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OrientedBox {
    pub centre: DVec3,
    /// Unit local axes in the world frame.
    pub axes: [DVec3; 3],
    pub half: [f64; 3],
}

impl OrientedBox {
    pub fn new(half_extents: DVec3, pose: &Pose) -> Self {
        let r = pose.rotation;
        Self {
            centre: pose.translation,
            axes: [r * DVec3::X, r * DVec3::Y, r * DVec3::Z],
            half: half_extents.to_array(),
        }
    }

    /// World position of vertex `id` (see the module numbering).
    pub fn vertex(&self, id: u32) -> DVec3 {
        (0..3).fold(self.centre, |p, i| {
            let sign = if id & (1 << i) == 0 { 1.0 } else { -1.0 };
            p + sign * self.half[i] * self.axes[i]
        })
    }

    /// Half the extent of the box's projection onto the unit `direction`.
    pub fn projected_radius(&self, direction: DVec3) -> f64 {
        (0..3)
            .map(|i| self.half[i] * self.axes[i].dot(direction).abs())
            .sum()
    }

    /// The vertex bits that put every coordinate on the side of `direction`
    /// (bit set where the axis points away from it).
    pub fn support_bits(&self, direction: DVec3) -> u32 {
        (0..3).fold(0, |bits, i| {
            if self.axes[i].dot(direction) < 0.0 {
                bits | (1 << i)
            } else {
                bits
            }
        })
    }
}

/// Face id of the face normal to `axis` on the side `negative`.
pub(crate) fn face_id(axis: usize, negative: bool) -> u32 {
    2 * axis as u32 + u32::from(negative)
}

/// Edge id of the edge parallel to `axis` through vertex `vertex`.
pub(crate) fn edge_id(axis: usize, vertex: u32) -> u32 {
    let (low, high) = match axis {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    let bit = |i: usize| (vertex >> i) & 1;
    4 * axis as u32 + bit(low) + 2 * bit(high)
}

/// Edge id of the edge joining two vertices that differ in one bit.
pub(crate) fn edge_between(v: u32, w: u32) -> u32 {
    let axis = (v ^ w).trailing_zeros() as usize;
    edge_id(axis, v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    #[test]
    fn vertices_follow_the_numbering() {
        let b = OrientedBox::new(DVec3::new(1.0, 2.0, 3.0), &Pose::IDENTITY);
        assert_eq!(b.vertex(0), DVec3::new(1.0, 2.0, 3.0));
        assert_eq!(b.vertex(0b101), DVec3::new(-1.0, 2.0, -3.0));
        assert_eq!(b.support_bits(DVec3::new(-1.0, 1.0, -1.0)), 0b101);
    }

    #[test]
    fn twelve_distinct_edges() {
        let mut ids: Vec<u32> = (0..8u32)
            .flat_map(|v| (0..3).map(move |axis| edge_id(axis, v)))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids, (0..12).collect::<Vec<_>>());
        // Both ends of an edge name it the same way.
        assert_eq!(edge_between(0b000, 0b010), edge_between(0b010, 0b000));
        assert_eq!(edge_between(0b000, 0b010), edge_id(1, 0));
    }

    #[test]
    fn projected_radius_of_a_turned_cube() {
        let b = OrientedBox::new(
            DVec3::splat(0.5),
            &Pose::from_rotation(DQuat::from_rotation_z(0.25 * std::f64::consts::PI)),
        );
        assert!((b.projected_radius(DVec3::X) - 0.5 * 2f64.sqrt()).abs() < 1e-15);
    }
}
