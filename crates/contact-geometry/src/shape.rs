//! The shapes bodies can have.

use std::sync::Arc;

use glam::DVec3;

use crate::{ConvexPolytope, GeometryError};

/// A convex shape in its own local frame.
///
/// Constructors validate their input, so a `Shape` is always well formed.
/// Cloning is cheap: a polytope is shared, not copied.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A box centred at the local origin, axis-aligned in the local frame.
    Cuboid {
        /// Half of the edge lengths along local x, y, z (metres, all > 0).
        half_extents: DVec3,
    },
    /// The half-space `{ x : normal . x <= 0 }` in the local frame: its
    /// boundary plane passes through the local origin and `normal` (unit)
    /// points out of the solid. Meant for static bodies (ground, walls).
    HalfSpace {
        /// Outward unit normal of the boundary plane, local frame.
        normal: DVec3,
    },
    /// A convex polytope (hull of a point cloud), shared between the
    /// bodies that use it.
    Polytope(Arc<ConvexPolytope>),
    /// A ball centred at the local origin. Its boundary is one smooth
    /// face: contact features name it `Feature::Face(0)`.
    Sphere {
        /// Radius (m, > 0).
        radius: f64,
    },
}

impl Shape {
    /// A box with the given half extents.
    ///
    /// # Errors
    /// [`GeometryError::InvalidSize`] when a half extent is not positive and finite.
    pub fn cuboid(half_extents: DVec3) -> Result<Self, GeometryError> {
        const NAMES: [&str; 3] = ["half_extents.x", "half_extents.y", "half_extents.z"];
        for (axis, name) in NAMES.iter().enumerate() {
            let value = half_extents[axis];
            if !(value.is_finite() && value > 0.0) {
                return Err(GeometryError::InvalidSize { what: name, value });
            }
        }
        Ok(Self::Cuboid { half_extents })
    }

    /// A half-space whose outward normal is `normal` (normalised here).
    ///
    /// # Errors
    /// [`GeometryError::InvalidDirection`] when `normal` is zero or not finite.
    pub fn half_space(normal: DVec3) -> Result<Self, GeometryError> {
        let length = normal.length();
        if !(normal.is_finite() && length > 0.0) {
            return Err(GeometryError::InvalidDirection {
                what: "half-space normal",
                value: normal.to_array(),
            });
        }
        Ok(Self::HalfSpace {
            normal: normal / length,
        })
    }

    /// A ball of the given radius centred at the local origin.
    ///
    /// # Errors
    /// [`GeometryError::InvalidSize`] when `radius` is not positive and finite.
    pub fn sphere(radius: f64) -> Result<Self, GeometryError> {
        if !(radius.is_finite() && radius > 0.0) {
            return Err(GeometryError::InvalidSize {
                what: "radius",
                value: radius,
            });
        }
        Ok(Self::Sphere { radius })
    }

    /// A convex polytope shape.
    #[must_use]
    pub fn polytope(polytope: ConvexPolytope) -> Self {
        Self::Polytope(Arc::new(polytope))
    }

    /// A short name of the shape's kind, for messages.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Cuboid { .. } => "cuboid",
            Self::HalfSpace { .. } => "half-space",
            Self::Polytope(_) => "polytope",
            Self::Sphere { .. } => "sphere",
        }
    }

    /// Whether the shape has finite volume (and so can carry mass).
    #[must_use]
    pub fn is_bounded(&self) -> bool {
        !matches!(self, Self::HalfSpace { .. })
    }

    /// The radius of the smallest sphere about the local origin that
    /// contains the shape (infinite for a half-space).
    #[must_use]
    pub fn bounding_radius(&self) -> f64 {
        match self {
            Self::Cuboid { half_extents } => half_extents.length(),
            Self::HalfSpace { .. } => f64::INFINITY,
            Self::Polytope(p) => p.bounding_radius(),
            Self::Sphere { radius } => *radius,
        }
    }

    /// The `radius` that [`BodyMotion`](crate::BodyMotion) needs for this
    /// shape turning about `local_centre` (local frame, m): the largest
    /// distance from it to a point whose motion moves the surface. For a
    /// cuboid or polytope that is its farthest vertex. A sphere's support
    /// along any fixed direction is its centre's plus the radius whatever
    /// it spins by, so only its centre's distance counts (zero when it
    /// turns about its centre: Mirtich's eq. 4 then reduces to the
    /// approach speed of the centres, which is exact). Infinite for a
    /// half-space.
    #[must_use]
    pub fn motion_radius(&self, local_centre: DVec3) -> f64 {
        match self {
            Self::Cuboid { half_extents } => {
                // The farthest corner is the one opposite in every axis.
                (local_centre.abs() + *half_extents).length()
            }
            Self::HalfSpace { .. } => f64::INFINITY,
            Self::Polytope(p) => p
                .vertices()
                .iter()
                .map(|&v| (v - local_centre).length())
                .fold(0.0, f64::max),
            Self::Sphere { .. } => local_centre.length(),
        }
    }

    /// Mass properties of the shape filled with uniform `density`
    /// (kg/m^3), in its local frame: closed form for cuboids and spheres
    /// (`I = m (b^2 + c^2) / 3` about each axis of a box of half extents
    /// `a, b, c`; `I = 2 m r^2 / 5` for a ball), exact integration for
    /// polytopes ([`ConvexPolytope::mass_properties`]).
    ///
    /// # Errors
    /// [`GeometryError::InvalidDensity`] when `density` is not positive and
    /// finite; [`GeometryError::Unbounded`] for a half-space;
    /// [`GeometryError::MassProperties`] if the result fails validation.
    pub fn mass_properties(
        &self,
        density: f64,
    ) -> Result<contact_math::MassProperties, GeometryError> {
        if !(density.is_finite() && density > 0.0) {
            return Err(GeometryError::InvalidDensity { value: density });
        }
        match self {
            Self::Cuboid { half_extents } => {
                let volume = 8.0 * half_extents.x * half_extents.y * half_extents.z;
                contact_math::MassProperties::solid_box(density * volume, *half_extents)
                    .map_err(GeometryError::MassProperties)
            }
            Self::HalfSpace { .. } => Err(GeometryError::Unbounded { kind: self.kind() }),
            Self::Polytope(p) => p.mass_properties(density),
            Self::Sphere { radius } => {
                let volume = 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
                contact_math::MassProperties::solid_sphere(density * volume, *radius)
                    .map_err(GeometryError::MassProperties)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_sizes_are_named() {
        let err = Shape::cuboid(DVec3::new(1.0, -2.0, 1.0)).unwrap_err();
        assert_eq!(
            err,
            GeometryError::InvalidSize {
                what: "half_extents.y",
                value: -2.0
            }
        );
        assert!(matches!(
            Shape::cuboid(DVec3::new(1.0, 1.0, f64::NAN)),
            Err(GeometryError::InvalidSize {
                what: "half_extents.z",
                ..
            })
        ));
        assert!(Shape::half_space(DVec3::ZERO).is_err());
        assert!(Shape::half_space(DVec3::new(f64::INFINITY, 0.0, 0.0)).is_err());
    }

    #[test]
    fn polytopes_are_bounded_and_shared() {
        let shape = Shape::polytope(ConvexPolytope::from_box(DVec3::new(1.0, 2.0, 2.0)).unwrap());
        assert_eq!(shape.kind(), "polytope");
        assert!(shape.is_bounded());
        assert!((shape.bounding_radius() - 3.0).abs() < 1e-15);
        let copy = shape.clone();
        match (&shape, &copy) {
            (Shape::Polytope(a), Shape::Polytope(b)) => assert!(Arc::ptr_eq(a, b)),
            _ => unreachable!("both are polytopes"),
        }
    }

    #[test]
    fn half_space_normal_is_normalised() {
        let Shape::HalfSpace { normal } = Shape::half_space(DVec3::new(0.0, 3.0, 4.0)).unwrap()
        else {
            unreachable!("half_space builds a HalfSpace")
        };
        assert!((normal - DVec3::new(0.0, 0.6, 0.8)).length() < 1e-15);
    }
}
