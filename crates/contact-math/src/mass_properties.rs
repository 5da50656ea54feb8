//! Mass, centre of mass and inertia tensor of a rigid body, validated once.
//!
//! The inertia is about the centre of mass in body axes (Cline 2002 sec. 2.3,
//! eq. 2.13-2.14); its world form is `R I R'` (Cline, text after eq. 2.14).
//! A `MassProperties` can only be built through checks that every physical
//! mass distribution passes: positive mass, finite numbers, a symmetric,
//! positive definite inertia whose principal moments satisfy the triangle
//! inequality `I_a + I_b >= I_c` (each moment is an integral of `y^2 + z^2`
//! etc., so two of them always add up to at least the third).

use glam::{DMat3, DQuat, DVec3};

use crate::{MathError, Twist, symmetric_eigen};

/// Relative tolerance on `max |I_ij - I_ji|` against the largest entry.
pub const INERTIA_SYMMETRY_TOLERANCE: f64 = 1e-9;
/// Relative tolerance of the triangle inequality, against the largest
/// principal moment (`I_a + I_b >= I_c - tol * I_c`).
pub const TRIANGLE_INEQUALITY_TOLERANCE: f64 = 1e-9;
/// The smallest principal moment must exceed this times the largest; below
/// it the inertia is singular to working precision (a rod or a point).
pub const INERTIA_CONDITION_TOLERANCE: f64 = 1e-12;

/// Mass, centre of mass and inertia of a rigid body (validated; see the
/// module docs for the checks).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(into = "RawMassProperties", try_from = "RawMassProperties")
)]
pub struct MassProperties {
    mass: f64,
    inv_mass: f64,
    local_com: DVec3,
    local_inertia: DMat3,
    inv_local_inertia: DMat3,
    principal: [f64; 3],
}

impl MassProperties {
    /// Validates and builds mass properties.
    ///
    /// `mass` in kg; `local_com` the centre of mass in the body's modelling
    /// frame, m; `local_inertia` about the centre of mass in body axes, kg m^2.
    /// The inertia is symmetrised (`(I + I') / 2`) after the symmetry check.
    ///
    /// # Errors
    ///
    /// In this order: [`MathError::NonFinite`], [`MathError::NonPositiveMass`],
    /// [`MathError::InertiaNotSymmetric`] (beyond
    /// [`INERTIA_SYMMETRY_TOLERANCE`]), [`MathError::InertiaNotPositiveDefinite`]
    /// (smallest eigenvalue not above [`INERTIA_CONDITION_TOLERANCE`] times the
    /// largest), [`MathError::TriangleInequality`] (beyond
    /// [`TRIANGLE_INEQUALITY_TOLERANCE`]).
    pub fn new(
        mass: f64,
        local_com: DVec3,
        local_inertia: DMat3,
    ) -> Result<MassProperties, MathError> {
        check_mass(mass)?;
        if !local_com.is_finite() {
            return Err(MathError::NonFinite {
                what: "centre of mass",
            });
        }
        if !local_inertia.is_finite() {
            return Err(MathError::NonFinite { what: "inertia" });
        }

        let t = local_inertia.transpose();
        let scale = local_inertia
            .abs()
            .to_cols_array()
            .into_iter()
            .fold(0.0, f64::max);
        let max_asymmetry = (local_inertia - t)
            .abs()
            .to_cols_array()
            .into_iter()
            .fold(0.0, f64::max);
        if max_asymmetry > INERTIA_SYMMETRY_TOLERANCE * scale {
            return Err(MathError::InertiaNotSymmetric { max_asymmetry });
        }
        let inertia = (local_inertia + t) * 0.5;

        // Finite was checked above, so the eigen-solver cannot fail; keep the
        // `?` anyway rather than an unwrap.
        let eigen = symmetric_eigen(inertia)?;
        let [l0, l1, l2] = eigen.values;
        // Finite input, so finite eigenvalues: `<=` also catches l2 <= 0.
        if l0 <= INERTIA_CONDITION_TOLERANCE * l2 {
            return Err(MathError::InertiaNotPositiveDefinite { eigenvalue: l0 });
        }
        if l0 + l1 - l2 < -TRIANGLE_INEQUALITY_TOLERANCE * l2 {
            return Err(MathError::TriangleInequality {
                principal: eigen.values,
            });
        }

        // I^-1 = V diag(1/l) V': stays symmetric and is exact for diagonal I.
        let v = eigen.vectors;
        let inv =
            v * DMat3::from_diagonal(DVec3::new(1.0 / l0, 1.0 / l1, 1.0 / l2)) * v.transpose();
        let inv_local_inertia = symmetrise(inv);
        // Only reachable with subnormal masses or moments, but then the
        // inverse would be infinite: report it rather than store it.
        if !(1.0 / mass).is_finite() {
            return Err(MathError::NonFinite {
                what: "inverse mass",
            });
        }
        if !inv_local_inertia.is_finite() {
            return Err(MathError::NonFinite {
                what: "inverse inertia",
            });
        }
        Ok(MassProperties {
            mass,
            inv_mass: 1.0 / mass,
            local_com,
            local_inertia: inertia,
            inv_local_inertia,
            principal: eigen.values,
        })
    }

    /// A solid box of uniform density centred at the origin:
    /// `I_xx = m (b^2 + c^2) / 3` for half extents `(a, b, c)` (the textbook
    /// `m ((2b)^2 + (2c)^2) / 12`).
    ///
    /// # Errors
    ///
    /// [`MathError::NonFinite`], [`MathError::NonPositiveMass`], or
    /// [`MathError::NonPositiveDimension`] for a half extent that is not positive.
    pub fn solid_box(mass: f64, half_extents: DVec3) -> Result<Self, MathError> {
        check_mass(mass)?;
        for e in half_extents.to_array() {
            check_dimension("box half extent", e)?;
        }
        let s = half_extents * half_extents;
        let d = DVec3::new(s.y + s.z, s.x + s.z, s.x + s.y) * (mass / 3.0);
        Self::new(mass, DVec3::ZERO, DMat3::from_diagonal(d))
    }

    /// A solid ball of uniform density centred at the origin: `I = 2 m r^2 / 5`.
    ///
    /// # Errors
    ///
    /// [`MathError::NonFinite`], [`MathError::NonPositiveMass`], or
    /// [`MathError::NonPositiveDimension`] for a radius that is not positive.
    pub fn solid_sphere(mass: f64, radius: f64) -> Result<Self, MathError> {
        check_mass(mass)?;
        check_dimension("sphere radius", radius)?;
        let i = 0.4 * mass * radius * radius;
        Self::new(mass, DVec3::ZERO, DMat3::from_diagonal(DVec3::splat(i)))
    }

    /// A solid cylinder of uniform density centred at the origin, axis along
    /// local Y (parry's convention): `I_yy = m r^2 / 2`,
    /// `I_xx = I_zz = m (3 r^2 + h^2) / 12` with `h = 2 half_height`.
    ///
    /// # Errors
    ///
    /// [`MathError::NonFinite`], [`MathError::NonPositiveMass`], or
    /// [`MathError::NonPositiveDimension`] for a radius or half height that is
    /// not positive.
    pub fn solid_cylinder(mass: f64, radius: f64, half_height: f64) -> Result<Self, MathError> {
        check_mass(mass)?;
        check_dimension("cylinder radius", radius)?;
        check_dimension("cylinder half height", half_height)?;
        let (r2, h2) = (radius * radius, half_height * half_height);
        let axial = 0.5 * mass * r2;
        let transverse = mass * (3.0 * r2 + 4.0 * h2) / 12.0;
        Self::new(
            mass,
            DVec3::ZERO,
            DMat3::from_diagonal(DVec3::new(transverse, axial, transverse)),
        )
    }

    /// The mass properties of a set of point masses `(mass, position)`: the
    /// total mass, the mass-weighted mean position, and the inertia about that
    /// centre of mass, `sum m_i (|r_i|^2 I - r_i r_i')` (Cline eq. 2.13).
    ///
    /// # Errors
    ///
    /// [`MathError::EmptyPointCloud`]; [`MathError::NonFinite`] for a NaN or
    /// infinite mass or position; [`MathError::NonPositivePointMass`] with the
    /// index of a mass that is not positive; and the errors of
    /// [`MassProperties::new`], notably
    /// [`MathError::InertiaNotPositiveDefinite`] for a single point or
    /// collinear points (their inertia is singular).
    pub fn from_point_masses(points: &[(f64, DVec3)]) -> Result<Self, MathError> {
        if points.is_empty() {
            return Err(MathError::EmptyPointCloud);
        }
        let mut total = 0.0;
        let mut moment = DVec3::ZERO;
        for (index, &(m, p)) in points.iter().enumerate() {
            if !m.is_finite() {
                return Err(MathError::NonFinite { what: "point mass" });
            }
            if !p.is_finite() {
                return Err(MathError::NonFinite {
                    what: "point mass position",
                });
            }
            if m <= 0.0 {
                return Err(MathError::NonPositivePointMass { index, mass: m });
            }
            total += m;
            moment += m * p;
        }
        let com = moment / total;
        // About the COM directly (not via the parallel-axis theorem), so no
        // large terms cancel for a cloud far from the origin.
        let mut inertia = DMat3::ZERO;
        for &(m, p) in points {
            let r = p - com;
            inertia += (DMat3::from_diagonal(DVec3::splat(r.length_squared())) - outer(r, r)) * m;
        }
        Self::new(total, com, inertia)
    }

    /// Total mass, kg.
    #[must_use]
    #[inline]
    pub fn mass(&self) -> f64 {
        self.mass
    }

    /// `1 / mass`, 1/kg.
    #[must_use]
    #[inline]
    pub fn inv_mass(&self) -> f64 {
        self.inv_mass
    }

    /// Centre of mass in the body's modelling frame, m.
    #[must_use]
    #[inline]
    pub fn local_com(&self) -> DVec3 {
        self.local_com
    }

    /// Inertia about the centre of mass, body axes, kg m^2 (exactly symmetric).
    #[must_use]
    #[inline]
    pub fn local_inertia(&self) -> DMat3 {
        self.local_inertia
    }

    /// Inverse of [`MassProperties::local_inertia`] (exactly symmetric).
    #[must_use]
    #[inline]
    pub fn inv_local_inertia(&self) -> DMat3 {
        self.inv_local_inertia
    }

    /// Inertia about the centre of mass in world axes for a body with the
    /// given orientation: `R I R'` (Cline, after eq. 2.14). Exactly symmetric.
    #[must_use]
    pub fn world_inertia(&self, rotation: DQuat) -> DMat3 {
        rotate_tensor(self.local_inertia, rotation)
    }

    /// Inverse world inertia: `R I^-1 R'`. Exactly symmetric.
    #[must_use]
    pub fn world_inv_inertia(&self, rotation: DQuat) -> DMat3 {
        rotate_tensor(self.inv_local_inertia, rotation)
    }

    /// Principal moments of inertia (eigenvalues of the inertia), ascending,
    /// kg m^2. Computed once at construction by cyclic Jacobi
    /// ([`crate::symmetric_eigen`]).
    #[must_use]
    #[inline]
    pub fn principal_moments(&self) -> [f64; 3] {
        self.principal
    }

    /// Angular momentum about the centre of mass, world axes: `R I R' w`.
    #[must_use]
    pub fn angular_momentum(&self, rotation: DQuat, angular_velocity: DVec3) -> DVec3 {
        self.world_inertia(rotation) * angular_velocity
    }

    /// Kinetic energy of a body moving with `twist` (at its centre of mass):
    /// `m |v|^2 / 2 + w' I w / 2`, J.
    #[must_use]
    pub fn kinetic_energy(&self, rotation: DQuat, twist: &Twist) -> f64 {
        let w = twist.angular;
        0.5 * self.mass * twist.linear.length_squared()
            + 0.5 * w.dot(self.world_inertia(rotation) * w)
    }
}

fn check_mass(mass: f64) -> Result<(), MathError> {
    if !mass.is_finite() {
        return Err(MathError::NonFinite { what: "mass" });
    }
    if mass <= 0.0 {
        return Err(MathError::NonPositiveMass { mass });
    }
    Ok(())
}

fn check_dimension(what: &'static str, value: f64) -> Result<(), MathError> {
    if !value.is_finite() {
        return Err(MathError::NonFinite { what });
    }
    if value <= 0.0 {
        return Err(MathError::NonPositiveDimension { what, value });
    }
    Ok(())
}

/// `a b'`.
fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// `(m + m') / 2`: removes round-off asymmetry so downstream solvers see an
/// exactly symmetric matrix.
fn symmetrise(m: DMat3) -> DMat3 {
    (m + m.transpose()) * 0.5
}

/// `R T R'` for a symmetric tensor `T`.
fn rotate_tensor(t: DMat3, rotation: DQuat) -> DMat3 {
    let r = DMat3::from_quat(rotation);
    symmetrise(r * t * r.transpose())
}

/// The unvalidated wire form of [`MassProperties`]: only the defining numbers;
/// deserialisation goes through [`MassProperties::new`].
#[cfg(feature = "serde")]
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct RawMassProperties {
    mass: f64,
    local_com: DVec3,
    local_inertia: DMat3,
}

#[cfg(feature = "serde")]
impl From<MassProperties> for RawMassProperties {
    fn from(m: MassProperties) -> Self {
        RawMassProperties {
            mass: m.mass,
            local_com: m.local_com,
            local_inertia: m.local_inertia,
        }
    }
}

#[cfg(feature = "serde")]
impl TryFrom<RawMassProperties> for MassProperties {
    type Error = MathError;

    fn try_from(raw: RawMassProperties) -> Result<Self, Self::Error> {
        MassProperties::new(raw.mass, raw.local_com, raw.local_inertia)
    }
}

#[cfg(test)]
#[path = "mass_properties_tests.rs"]
mod tests;
