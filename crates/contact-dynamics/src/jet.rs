//! Second-order jets: a quantity with its first two time derivatives along a
//! motion, propagated through arithmetic by the product and chain rules.
//!
//! The acceleration-level contact model needs `d''`, the second derivative
//! of every contact's gap, split into the part the unknown accelerations
//! produce (`J a`) and the velocity-product part (`(dJ/dt) u`: the
//! `w x (w x r)` of a point, the turning normal's `2 n' . (p_b' - p_a')`,
//! the myPhysicsLab page's eq. 5-11). Evaluating a gap formula on jets whose
//! seeds carry the velocities and the accelerations of rigid motion *at zero
//! body acceleration* gives exactly the velocity-product part in `d2`, for
//! any feature pair, with no case-by-case derivation.

use std::ops::{Add, Mul, Neg, Sub};

use glam::DVec3;

/// A scalar and its first two time derivatives.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Jet {
    pub(crate) v: f64,
    pub(crate) d1: f64,
    pub(crate) d2: f64,
}

/// A vector and its first two time derivatives.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Jet3 {
    pub(crate) v: DVec3,
    pub(crate) d1: DVec3,
    pub(crate) d2: DVec3,
}

impl Jet {
    /// A constant.
    pub(crate) fn constant(v: f64) -> Self {
        Self {
            v,
            d1: 0.0,
            d2: 0.0,
        }
    }

    /// `sqrt(self)`: from `s^2 = f`, `s' = f' / 2s`, `s'' = (f'' - 2 s'^2) / 2s`.
    pub(crate) fn sqrt(self) -> Self {
        let s = self.v.sqrt();
        let d1 = self.d1 / (2.0 * s);
        Self {
            v: s,
            d1,
            d2: (self.d2 - 2.0 * d1 * d1) / (2.0 * s),
        }
    }

    /// `self / other`: from `q g = f`.
    pub(crate) fn div(self, g: Self) -> Self {
        let q = self.v / g.v;
        let d1 = (self.d1 - q * g.d1) / g.v;
        Self {
            v: q,
            d1,
            d2: (self.d2 - 2.0 * d1 * g.d1 - q * g.d2) / g.v,
        }
    }
}

impl Add for Jet {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self {
            v: self.v + o.v,
            d1: self.d1 + o.d1,
            d2: self.d2 + o.d2,
        }
    }
}

impl Sub for Jet {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Self {
            v: self.v - o.v,
            d1: self.d1 - o.d1,
            d2: self.d2 - o.d2,
        }
    }
}

impl Mul for Jet {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        Self {
            v: self.v * o.v,
            d1: self.d1 * o.v + self.v * o.d1,
            d2: self.d2 * o.v + 2.0 * self.d1 * o.d1 + self.v * o.d2,
        }
    }
}

impl Jet3 {
    /// A constant vector.
    #[cfg(test)]
    pub(crate) fn constant(v: DVec3) -> Self {
        Self {
            v,
            d1: DVec3::ZERO,
            d2: DVec3::ZERO,
        }
    }

    pub(crate) fn dot(self, o: Self) -> Jet {
        Jet {
            v: self.v.dot(o.v),
            d1: self.d1.dot(o.v) + self.v.dot(o.d1),
            d2: self.d2.dot(o.v) + 2.0 * self.d1.dot(o.d1) + self.v.dot(o.d2),
        }
    }

    pub(crate) fn cross(self, o: Self) -> Self {
        Self {
            v: self.v.cross(o.v),
            d1: self.d1.cross(o.v) + self.v.cross(o.d1),
            d2: self.d2.cross(o.v) + 2.0 * self.d1.cross(o.d1) + self.v.cross(o.d2),
        }
    }

    /// `s self` for a scalar jet `s`.
    pub(crate) fn scale(self, s: Jet) -> Self {
        Self {
            v: s.v * self.v,
            d1: s.d1 * self.v + s.v * self.d1,
            d2: s.d2 * self.v + 2.0 * s.d1 * self.d1 + s.v * self.d2,
        }
    }

    pub(crate) fn length(self) -> Jet {
        self.dot(self).sqrt()
    }

    /// The unit vector `self / |self|` (undefined for a zero vector).
    pub(crate) fn normalize(self) -> Self {
        let inverse = Jet::constant(1.0).div(self.length());
        self.scale(inverse)
    }
}

impl Add for Jet3 {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self {
            v: self.v + o.v,
            d1: self.d1 + o.d1,
            d2: self.d2 + o.d2,
        }
    }
}

impl Sub for Jet3 {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Self {
            v: self.v - o.v,
            d1: self.d1 - o.d1,
            d2: self.d2 - o.d2,
        }
    }
}

impl Neg for Jet3 {
    type Output = Self;
    fn neg(self) -> Self {
        Self {
            v: -self.v,
            d1: -self.d1,
            d2: -self.d2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jets of `t -> (cos t, sin t, t^2)` at t = 0.7 through `|x|`, `x / |x|`
    /// and a cross product, against the derivatives written out by hand.
    #[test]
    fn derivatives_match_closed_forms() {
        let t: f64 = 0.7;
        let x = Jet3 {
            v: DVec3::new(t.cos(), t.sin(), t * t),
            d1: DVec3::new(-t.sin(), t.cos(), 2.0 * t),
            d2: DVec3::new(-t.cos(), -t.sin(), 2.0),
        };
        // |x| = sqrt(1 + t^4): f = 1 + t^4, f' = 4 t^3, f'' = 12 t^2.
        let length = x.length();
        let f = 1.0 + t.powi(4);
        assert!((length.v - f.sqrt()).abs() < 1e-15);
        let d1 = 2.0 * t.powi(3) / f.sqrt();
        assert!((length.d1 - d1).abs() < 1e-14);
        let d2 = (12.0 * t * t - 2.0 * (4.0 * t.powi(3)).powi(2) / (4.0 * f)) / (2.0 * f.sqrt());
        assert!((length.d2 - d2).abs() < 1e-14, "{} vs {d2}", length.d2);
        // The unit vector stays unit: its rate is perpendicular to it, and
        // (n . n)'' = 0 gives n . n'' = -|n'|^2.
        let n = x.normalize();
        assert!(n.v.dot(n.d1).abs() < 1e-15);
        assert!((n.v.dot(n.d2) + n.d1.length_squared()).abs() < 1e-14);
        // (x x e_z) with e_z constant: (sin t, -cos t, 0).
        let c = x.cross(Jet3::constant(DVec3::Z));
        assert!((c.d2 - DVec3::new(-t.sin(), t.cos(), 0.0)).length() < 1e-15);
    }
}
