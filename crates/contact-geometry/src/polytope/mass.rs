//! Mass properties of a solid convex polytope of uniform density, exact up
//! to round-off.
//!
//! The polytope is split into tetrahedra `(r, v0, vk, vk+1)`: `r` an
//! interior reference point, each face fanned from its first vertex. For a
//! tetrahedron with corners `x_0..x_3` relative to `r` and volume `V`, the
//! exact polynomial integrals are (Tonon 2004, "Explicit exact formulas for
//! the 3-D tetrahedron inertia tensor in terms of its vertex coordinates",
//! J. Math. Stat. 1(1); the same second moments as Mirtich 1996's
//! divergence-theorem method):
//!
//! - `int 1 dV = V = det[x_1 - x_0, x_2 - x_0, x_3 - x_0] / 6`,
//! - `int x dV = V (x_0 + x_1 + x_2 + x_3) / 4`,
//! - `int x x' dV = V / 20 (sum_i x_i x_i' + s s')`, `s = sum_i x_i`.
//!
//! Summed over the tetrahedra they give the volume, the first moment and
//! the covariance `C` about `r`; the parallel-axis theorem moves `C` to the
//! centre of mass, and the inertia is `rho (tr(C) 1 - C)` (Cline 2002,
//! eq. 2.13).

use glam::{DMat3, DVec3};

use super::ConvexPolytope;
use crate::GeometryError;

pub(super) fn mass_properties(
    polytope: &ConvexPolytope,
    density: f64,
) -> Result<contact_math::MassProperties, GeometryError> {
    if !(density.is_finite() && density > 0.0) {
        return Err(GeometryError::InvalidDensity { value: density });
    }
    let r = polytope.interior_point();
    let mut volume = 0.0;
    let mut first = DVec3::ZERO;
    let mut covariance = DMat3::ZERO;
    for face in 0..polytope.faces().len() {
        let l = polytope.face_vertices(face);
        let corner = |k: usize| polytope.vertices()[l[k] as usize] - r;
        let x1 = corner(0);
        for k in 1..l.len() - 1 {
            let (x2, x3) = (corner(k), corner(k + 1));
            // The reference corner is the origin here (x_0 = 0).
            let v = x1.dot(x2.cross(x3)) / 6.0;
            let s = x1 + x2 + x3;
            volume += v;
            first += v * s / 4.0;
            let outer = |a: DVec3, b: DVec3| DMat3::from_cols(a * b.x, a * b.y, a * b.z);
            covariance +=
                (outer(x1, x1) + outer(x2, x2) + outer(x3, x3) + outer(s, s)) * (v / 20.0);
        }
    }
    let centroid = first / volume;
    // Parallel axis: the covariance about the centroid.
    let shifted = covariance
        - DMat3::from_cols(
            centroid * centroid.x,
            centroid * centroid.y,
            centroid * centroid.z,
        ) * volume;
    let trace = shifted.x_axis.x + shifted.y_axis.y + shifted.z_axis.z;
    let inertia = (DMat3::from_diagonal(DVec3::splat(trace)) - shifted) * density;
    contact_math::MassProperties::new(density * volume, r + centroid, inertia)
        .map_err(GeometryError::MassProperties)
}
