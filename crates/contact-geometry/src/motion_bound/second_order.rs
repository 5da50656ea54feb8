//! A second-order conservative-advancement bound for bodies moving with
//! constant twists, the motion a velocity-level step gives them.
//!
//! Mirtich's eq. 4 and Drumwright's eq. 7 (2016) bound every point's
//! approach speed by the worst over the body, `|w x n| r`; a vertex that is
//! barely moving towards the other body (a die rolling onto its next edge,
//! a vertex hovering a hair above the ground while the die slides) still
//! gets that worst rate, and conservative advancement crawls. For a
//! polytope the first-order term of each vertex is known exactly, and only
//! the change of its velocity over the step needs bounding.
//!
//! A point of a body moving with constant linear velocity `v` of its centre
//! `c` and constant angular velocity `w` about it is
//! `x(t) = c + v t + R(w t) u`, `u = x(0) - c`. Along a fixed unit `n`,
//! `f(t) = n . R(w t) u` has `f' = (R u) . (n x w)` and
//! `f'' = (w x R u) . (n x w)`, so `|f''| <= |w| |w x n| |u|` and
//!
//! `n . x(t) >= n . x(0) + t n . x'(0) - t^2 k / 2`, `k = |w| |w x n| |u|`,
//!
//! with the opposite sign for the upper bound. For a pair along an axis
//! `n` from body a to body b, the gap between a point `x` of a and a point
//! `y` of b, `n . y(t) - n . x(t)`, is then at least
//!
//! `g_xy - t (n . x'(0) - n . y'(0)) - t^2 (k_x + k_y) / 2`,
//!
//! and the least first root of these parabolas over the pairs of points is
//! a lower bound of the time the bodies can touch: along the fixed `n`, a
//! polytope's support is one of its vertices. For touching bodies (sec.
//! 3.1's question: when can a new point reach the other body?) the points
//! within the contact tolerance of their own body's support are the
//! contact, held by the step's contact rows, and the pairs of two such
//! points are left out.
//!
//! Only pairs that can close within the step matter: a pair whose gap
//! exceeds what the fastest closing speed and the largest bend can cover
//! within the horizon is skipped, and so is a point too far from its
//! body's support to be in such a pair; for resting or sliding contact
//! that leaves the few points near the contact.
//!
//! Spheres enter by their centre and radius (their support along `n` is
//! the centre's plus the radius however they turn), half-spaces by a point
//! of their boundary. The bound is exact to first order in `t` and never
//! later than the true time of contact of the constant-twist motion.

use glam::DVec3;

/// A body moving over the step with constant linear velocity `linear` of
/// its centre of rotation `centre` (the centre of mass) and constant angular
/// velocity `angular` about it (world frame), as a velocity-level step
/// moves it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TwistMotion {
    /// Centre of rotation at the start of the step (m).
    pub centre: DVec3,
    /// Linear velocity of the centre (m/s).
    pub linear: DVec3,
    /// Angular velocity (rad/s).
    pub angular: DVec3,
}

impl TwistMotion {
    /// A body that does not move.
    pub const STATIC: Self = Self {
        centre: DVec3::ZERO,
        linear: DVec3::ZERO,
        angular: DVec3::ZERO,
    };

    /// `n . x'(0)`: the speed of the body's point at `x` along `normal`.
    #[must_use]
    pub fn normal_speed(&self, x: DVec3, normal: DVec3) -> f64 {
        normal.dot(self.linear + self.angular.cross(x - self.centre))
    }

    /// `k = |w| |w x n| |x - c|`: the bound of the second derivative of the
    /// point's projection on `normal` over the step.
    #[must_use]
    pub fn normal_curvature(&self, x: DVec3, normal: DVec3) -> f64 {
        self.angular.length() * self.angular.cross(normal).length() * (x - self.centre).length()
    }
}

/// One side of a pair for [`second_order_bound`].
#[derive(Clone, Copy, Debug)]
pub struct MovingSupport<'a> {
    /// Points whose support bounds the body along any axis, world frame at
    /// the start of the step: a polytope's vertices, a sphere's centre, one
    /// point of a half-space's boundary (its own normal is then the axis).
    pub points: &'a [DVec3],
    /// How far the surface lies beyond the points' support (m): a sphere's
    /// radius, else 0.
    pub radius: f64,
    /// The body's motion over the step.
    pub motion: TwistMotion,
}

/// The second-order bound (see the module notes): a time (s) before which
/// no point of `a` can reach `b` along the unit `normal` (from a to b), nor
/// a point of `b` reach `a`; a result of `horizon` or more (possibly
/// `f64::INFINITY`) only says that nothing can happen within `horizon`.
///
/// With `contact_tolerance` `None` the bodies are separated and every pair
/// of points counts. With `Some(tolerance)` they touch: points within the
/// tolerance of their own body's support (along `normal` for a, `-normal`
/// for b) are the contact, and pairs of two contact points are left out.
/// A gap already closed gives 0.
#[must_use]
pub fn second_order_bound(
    normal: DVec3,
    a: &MovingSupport<'_>,
    b: &MovingSupport<'_>,
    contact_tolerance: Option<f64>,
    horizon: f64,
) -> f64 {
    let n = normal;
    // Heights towards the other body, normal speeds and bends.
    let height_a = |x: DVec3| n.dot(x) + a.radius;
    let height_b = |y: DVec3| n.dot(y) - b.radius;
    let (mut top, mut fastest_a, mut bend_a) = (f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0_f64);
    for &x in a.points {
        top = top.max(height_a(x));
        fastest_a = fastest_a.max(a.motion.normal_speed(x, n));
        bend_a = bend_a.max(a.motion.normal_curvature(x, n));
    }
    let (mut bottom, mut fastest_b, mut bend_b) = (f64::INFINITY, f64::INFINITY, 0.0_f64);
    for &y in b.points {
        bottom = bottom.min(height_b(y));
        fastest_b = fastest_b.min(b.motion.normal_speed(y, n));
        bend_b = bend_b.max(b.motion.normal_curvature(y, n));
    }
    // The farthest any pair can close within the horizon.
    let reach =
        horizon * (fastest_a - fastest_b).max(0.0) + 0.5 * horizon * horizon * (bend_a + bend_b);
    let tolerance = contact_tolerance.unwrap_or(-1.0);
    let mut least = f64::INFINITY;
    for &x in a.points {
        let hx = height_a(x);
        if hx <= bottom - reach {
            continue;
        }
        let contact_x = hx >= top - tolerance;
        let (sx, kx) = (a.motion.normal_speed(x, n), a.motion.normal_curvature(x, n));
        for &y in b.points {
            let hy = height_b(y);
            let gap = hy - hx;
            if gap >= reach || contact_x && hy <= bottom + tolerance {
                continue;
            }
            let closing = sx - b.motion.normal_speed(y, n);
            let bend = kx + b.motion.normal_curvature(y, n);
            least = least.min(first_root(gap, closing, bend));
        }
    }
    least
}

/// The first `t > 0` where `gap - closing t - bend t^2 / 2` reaches zero
/// (`f64::INFINITY` if never; 0 for a gap already closed), in the form that
/// loses no digits when `closing` dominates.
fn first_root(gap: f64, closing: f64, bend: f64) -> f64 {
    if gap <= 0.0 {
        return 0.0;
    }
    if bend <= 0.0 {
        return if closing > 0.0 {
            gap / closing
        } else {
            f64::INFINITY
        };
    }
    // Root of bend t^2 / 2 + closing t - gap = 0:
    // t = 2 gap / (closing + sqrt(closing^2 + 2 bend gap)).
    let root = (closing * closing + 2.0 * bend * gap).sqrt();
    if closing >= 0.0 {
        2.0 * gap / (closing + root)
    } else {
        (root - closing) / bend
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_in_both_forms_agree_with_the_quadratic() {
        for (gap, closing, bend) in [(1.0, 2.0, 3.0), (1.0, -2.0, 3.0), (1e-9, -5.0, 40.0)] {
            let t = first_root(gap, closing, bend);
            let residual = gap - closing * t - 0.5 * bend * t * t;
            assert!(
                residual.abs() <= 1e-12 * gap.max(closing.abs() * t),
                "{residual}"
            );
        }
        assert_eq!(first_root(1.0, -1.0, 0.0), f64::INFINITY);
        assert_eq!(first_root(2.0, 4.0, 0.0), 0.5);
        assert_eq!(first_root(-1.0, 1.0, 1.0), 0.0);
    }
}
