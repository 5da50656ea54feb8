//! A seeded generator for reproducible scenes.

/// SplitMix64 (Steele, Lea & Flood 2014): a seeded generator that is the
/// same everywhere, for reproducible scenes.
pub(super) struct SplitMix64(u64);

impl SplitMix64 {
    pub(super) fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// Uniform in `[0, 1)`.
    pub(super) fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi)`.
    pub(super) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in `[-1, 1)`.
    pub(super) fn symmetric(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }

    /// A rotation uniform over all rotations (Shoemake, "Uniform random
    /// rotations", Graphics Gems III, 1992): a unit quaternion from three
    /// uniforms.
    pub(super) fn rotation(&mut self) -> glam::DQuat {
        let (u1, u2, u3) = (self.unit(), self.unit(), self.unit());
        let (r1, r2) = ((1.0 - u1).sqrt(), u1.sqrt());
        let (a, b) = (std::f64::consts::TAU * u2, std::f64::consts::TAU * u3);
        glam::DQuat::from_xyzw(r1 * a.sin(), r1 * a.cos(), r2 * b.sin(), r2 * b.cos()).normalize()
    }
}
