//! A tiny seeded RNG for tests (SplitMix64), so that test inputs are the same
//! on every machine and every version of every dependency.

use glam::{DQuat, DVec3};

/// SplitMix64 (Steele, Lea & Flood 2014): one 64-bit state, good enough to
/// scatter test inputs.
pub(crate) struct TestRng(u64);

impl TestRng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        // 53 random bits into the mantissa.
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Each component uniform in `[-scale, scale)`.
    pub(crate) fn vec3(&mut self, scale: f64) -> DVec3 {
        DVec3::new(
            self.range(-scale, scale),
            self.range(-scale, scale),
            self.range(-scale, scale),
        )
    }

    /// A uniformly distributed unit quaternion (Shoemake's subgroup algorithm).
    pub(crate) fn rotation(&mut self) -> DQuat {
        let u1 = self.unit();
        let u2 = self.unit() * std::f64::consts::TAU;
        let u3 = self.unit() * std::f64::consts::TAU;
        let a = (1.0 - u1).sqrt();
        let b = u1.sqrt();
        DQuat::from_xyzw(a * u2.sin(), a * u2.cos(), b * u3.sin(), b * u3.cos())
    }
}
