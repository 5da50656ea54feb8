//! Conservative advancement for a link of a serial chain (Drumwright
//! 2016, sec. 5, eq. 11-15).
//!
//! Body A is link `i` of a chain whose base moves with linear velocity
//! `x'` (of the location `l_1` of joint 1) and angular velocity `w` (about
//! `l_1`), and whose joints `j = 1..i` move at rates `q'_j`. The velocity
//! of a point `p` of link `i` is
//! `x' + w x (p - l_1) + sum_j J_j(p) q'_j`, where a prismatic joint
//! contributes `axis_j q'_j` and a rotational one (revolute, universal,
//! spherical: `|q'_j|` the norm of its relative angular velocity)
//! `omega_j x (p - l_j)`. With `gamma_j` a bound of `|p - l_j|` (eq. 13:
//! the joint spacings from `j` to `i - 1` plus the reach of link `i` from
//! joint `i`, which the paper takes as `2 r_A`), the speed of any point of
//! A along a unit `d` is at most (eq. 11-12)
//!
//! `|x' . d| + |w| gamma_1 + sum_j kappa_j`, `kappa_j = |q'_j|` (prismatic)
//! or `|q'_j| gamma_j` (rotational).
//!
//! Eq. 14 spaces joints `k` and `k + 1` by `|l_{k+1} - l_k|` (rigid) after
//! a rotational joint, and by `|q_k| + |q'_k|` after a prismatic one: the
//! extension reached within one second. We write the horizon `h` (s)
//! explicitly, `link_length_k + |q_k| + |q'_k| h` (with `link_length` the
//! spacing at zero extension, the paper's minimum-distance configuration),
//! so the speed bound holds over `[0, h]` and the returned time is capped
//! at `h`; `h = 1` s is the paper's.
//!
//! Eq. 15, the touching bound for a link, replaces `|w_A x n|` in eq. 7 by
//! `|w| + sum_j |q'_j|` over the rotational joints: [`ChainMotion::tilt_rate`].

use glam::DVec3;

use super::BodyMotion;

/// The kind of a joint, for the motion bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// A sliding joint: the rate is a speed (m/s).
    Prismatic,
    /// A revolute, universal or spherical joint: the rate is the norm of
    /// the relative angular velocity (rad/s).
    Rotational,
}

/// One joint of a chain, from the base outwards, as eq. 11-14 need it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainJoint {
    /// Prismatic or rotational.
    pub kind: JointKind,
    /// The prismatic extension `q_k` (m) at the start of the step;
    /// ignored for a rotational joint.
    pub position: f64,
    /// `|q'_k|`: speed (m/s) or angular speed (rad/s), >= 0.
    pub rate: f64,
    /// Distance (m) from this joint to the next one (for a prismatic
    /// joint, at zero extension); ignored for the last joint of the chain,
    /// whose link is bounded by [`ChainMotion::reach`].
    pub link_length: f64,
}

/// The motion of link `i` of a serial chain: the base's velocities and
/// the joints `1..=i` from the base to the link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainMotion<'a> {
    /// Linear velocity of joint 1's location (m/s); zero for a fixed base.
    pub base_linear: DVec3,
    /// Angular velocity of the base (rad/s), about joint 1's location.
    pub base_angular: DVec3,
    /// Joints `1..=i`, base first.
    pub joints: &'a [ChainJoint],
    /// Distance (m) from the last joint to the farthest point of the link
    /// (the paper's `2 r_A` when that joint lies in the link's bounding
    /// sphere of radius `r_A`).
    pub reach: f64,
}

impl ChainMotion<'_> {
    /// `gamma_j` of eq. 13 for joint index `j` (0-based), valid over a
    /// step of `horizon` seconds.
    fn lever(&self, j: usize, horizon: f64) -> f64 {
        let n = self.joints.len();
        let spacing: f64 = self.joints[j..n.saturating_sub(1)]
            .iter()
            .map(|k| match k.kind {
                JointKind::Prismatic => k.link_length + k.position.abs() + k.rate * horizon,
                JointKind::Rotational => k.link_length,
            })
            .sum();
        spacing + self.reach
    }

    /// Eq. 11-12: how fast (m/s) any point of the link can move along the
    /// unit `direction` at any time within `horizon` seconds.
    #[must_use]
    pub fn speed_along(&self, direction: DVec3, horizon: f64) -> f64 {
        self.speed_with(self.base_linear.dot(direction).abs(), horizon)
    }

    /// How fast (m/s) any point of the link can move at any time within
    /// `horizon` seconds, in any direction: [`speed_along`](Self::speed_along)
    /// at its largest, the base's whole speed in place of its component.
    #[must_use]
    pub fn max_speed(&self, horizon: f64) -> f64 {
        self.speed_with(self.base_linear.length(), horizon)
    }

    /// Eq. 11-12 with `base` (m/s) for the base's linear term.
    fn speed_with(&self, base: f64, horizon: f64) -> f64 {
        let base_turn = self.base_angular.length();
        let mut speed = base;
        if base_turn > 0.0 {
            speed += base_turn * self.lever(0, horizon);
        }
        for (j, joint) in self.joints.iter().enumerate() {
            if joint.rate == 0.0 {
                continue;
            }
            speed += match joint.kind {
                JointKind::Prismatic => joint.rate,
                JointKind::Rotational => joint.rate * self.lever(j, horizon),
            };
        }
        speed
    }

    /// Eq. 15: a bound of the rate (rad/s) at which the link can tilt,
    /// `|w| + sum |q'_j|` over the rotational joints, for
    /// [`touching_bound`](crate::touching_bound).
    #[must_use]
    pub fn tilt_rate(&self) -> f64 {
        self.base_angular.length()
            + self
                .joints
                .iter()
                .filter(|j| j.kind == JointKind::Rotational)
                .map(|j| j.rate)
                .sum::<f64>()
    }
}

/// Mirtich's bound (eq. 4) with body A a chain link (eq. 11-14): the time
/// (s), at most `horizon`, before link `a` and body `b`, separated by
/// `distance` (m) along the unit `direction` from `a`'s closest point to
/// `b`'s, can touch. Zero when `distance <= 0`.
#[must_use]
pub fn chain_mirtich_bound(
    distance: f64,
    direction: DVec3,
    a: &ChainMotion<'_>,
    b: &BodyMotion,
    horizon: f64,
) -> f64 {
    if distance <= 0.0 {
        return 0.0;
    }
    let rate = a.speed_along(direction, horizon) + b.speed_along(-direction);
    if rate > 0.0 {
        (distance / rate).min(horizon)
    } else {
        horizon
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levers_sum_the_spacings_outwards() {
        let joints = [
            ChainJoint {
                kind: JointKind::Rotational,
                position: 0.0,
                rate: 1.0,
                link_length: 2.0,
            },
            ChainJoint {
                kind: JointKind::Prismatic,
                position: -0.5,
                rate: 0.25,
                link_length: 1.0,
            },
            ChainJoint {
                kind: JointKind::Rotational,
                position: 0.0,
                rate: 3.0,
                link_length: 99.0,
            },
        ];
        let chain = ChainMotion {
            base_linear: DVec3::new(0.0, 0.0, -1.0),
            base_angular: DVec3::new(0.0, 0.5, 0.0),
            joints: &joints,
            reach: 0.4,
        };
        // gamma_1 = 2 + (1 + 0.5 + 0.25 * 2) + 0.4 = 4.4 with h = 2;
        // gamma_3 = 0.4. Speed along z: 1 + 0.5 * 4.4 + 1 * 4.4 + 0.25 + 3 * 0.4.
        let s = chain.speed_along(DVec3::Z, 2.0);
        assert!((s - (1.0 + 2.2 + 4.4 + 0.25 + 1.2)).abs() < 1e-12);
        assert!((chain.tilt_rate() - 4.5).abs() < 1e-15);
        let t = chain_mirtich_bound(9.05, DVec3::Z, &chain, &BodyMotion::STATIC, 2.0);
        assert!((t - 1.0).abs() < 1e-12);
        assert_eq!(
            chain_mirtich_bound(1e9, DVec3::Z, &chain, &BodyMotion::STATIC, 2.0),
            2.0
        );
    }
}
