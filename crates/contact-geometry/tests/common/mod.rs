//! Helpers shared by the integration tests: a seeded generator, so every
//! randomised test reproduces, and the bridge to parry, the oracle.
// Each test file uses a different subset.
#![allow(dead_code)]

use contact_geometry::ConvexPolytope;
use contact_math::Pose;
use glam::{DQuat, DVec3};
use parry3d_f64::math::Pose as ParryPose;

/// xorshift64*: a seeded generator so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in [0, 1).
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }

    /// Each coordinate uniform in [lo, hi).
    pub fn vector(&mut self, lo: f64, hi: f64) -> DVec3 {
        DVec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }

    /// A rotation about a random axis by an angle in [-3.2, 3.2).
    pub fn rotation(&mut self) -> DQuat {
        let axis = self.vector(-1.0, 1.0).normalize_or(DVec3::X);
        DQuat::from_axis_angle(axis, self.range(-3.2, 3.2))
    }

    /// A hull of 4 to 40 points in an ellipsoid-ish cloud.
    pub fn hull(&mut self) -> ConvexPolytope {
        let n = 4 + (self.next() * 37.0) as usize;
        let size = self.vector(0.2, 1.0);
        let points: Vec<DVec3> = (0..n).map(|_| self.vector(-1.0, 1.0) * size).collect();
        ConvexPolytope::from_points(&points).unwrap()
    }
}

/// Our pose as parry's.
pub fn parry(pose: &Pose) -> ParryPose {
    ParryPose::from_parts(pose.translation, pose.rotation)
}
