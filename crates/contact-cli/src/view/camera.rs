//! The viewer's camera: an orbit about a target point, with a perspective
//! projection. The page (`viewer.js`, `project`) implements the same
//! formulas; `cargo xtask viewer-check` projects with this one to find
//! where the page must have drawn each body.
//!
//! The eye is at `target + distance (cos(el) (cos(az) e1 + sin(az) e2) +
//! sin(el) up)` with `e2 = up x e1`; it looks at the target with `up`
//! upwards. A point `p` at view coordinates `(x, y, z)` (right, up,
//! forward) lands at pixel `(w/2 + f x/z, h/2 - f y/z)` of a `w x h`
//! canvas, `f = min(w, h) / 2 / tan(fov/2)`, so the field of view fits
//! the canvas's narrower side.

use serde::{Deserialize, Serialize};

use contact_sim::trajectory::{ShapeGeometry, Trajectory};

type V3 = [f64; 3];

/// An orbit camera (see the module comment).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Camera {
    /// The point looked at (m, world).
    pub target: V3,
    /// The world's up direction (unit): against gravity, else `z`.
    pub up: V3,
    /// The horizontal direction of azimuth 0 (unit, normal to `up`).
    pub east: V3,
    /// From the target to the eye (m).
    pub distance: f64,
    /// Azimuth (rad) from `east` towards `up x east`.
    pub azimuth: f64,
    /// Elevation above the horizontal (rad).
    pub elevation: f64,
    /// The field of view across the canvas's narrower side (rad).
    pub fov: f64,
}

/// The default view: azimuth -60 degrees, 25 degrees above, a 45 degree
/// field of view.
const AZIMUTH: f64 = -60.0 * std::f64::consts::PI / 180.0;
const ELEVATION: f64 = 25.0 * std::f64::consts::PI / 180.0;
const FOV: f64 = 45.0 * std::f64::consts::PI / 180.0;

impl Camera {
    /// A camera that keeps every finite body of every frame in view, its
    /// up against gravity.
    #[must_use]
    pub fn fit(trajectory: &Trajectory) -> Self {
        let g = trajectory.header.gravity;
        let up = if norm(g) > 0.0 {
            scale(g, -1.0 / norm(g))
        } else {
            [0.0, 0.0, 1.0]
        };
        // x made normal to up; y when up is (nearly) along x.
        let mut east = [0.0; 3];
        for axis in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
            let candidate = sub(axis, scale(up, dot(axis, up)));
            if norm(candidate) > 0.3 {
                east = scale(candidate, 1.0 / norm(candidate));
                break;
            }
        }
        let (mut low, mut high) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for frame in &trajectory.frames {
            for (body, pose) in trajectory.header.bodies.iter().zip(&frame.poses) {
                let Some(radius) = bounding_radius(&body.shape) else {
                    continue;
                };
                for k in 0..3 {
                    low[k] = low[k].min(pose[k] - radius);
                    high[k] = high[k].max(pose[k] + radius);
                }
            }
        }
        let (target, radius) = if low[0].is_finite() {
            let centre = scale(add(low, high), 0.5);
            (centre, (0.5 * norm(sub(high, low))).max(0.05))
        } else {
            ([0.0; 3], 1.0)
        };
        Self {
            target,
            up,
            east,
            distance: 1.1 * radius / (0.5 * FOV).sin(),
            azimuth: AZIMUTH,
            elevation: ELEVATION,
            fov: FOV,
        }
    }

    /// The eye's position.
    #[must_use]
    pub fn eye(&self) -> V3 {
        let north = cross(self.up, self.east);
        let (ca, sa) = (self.azimuth.cos(), self.azimuth.sin());
        let horizontal = add(scale(self.east, ca), scale(north, sa));
        let direction = add(
            scale(horizontal, self.elevation.cos()),
            scale(self.up, self.elevation.sin()),
        );
        add(self.target, scale(direction, self.distance))
    }

    /// The pixel where `point` appears on a `width x height` canvas, `None`
    /// when it is not in front of the eye.
    #[must_use]
    pub fn project(&self, point: V3, width: f64, height: f64) -> Option<[f64; 2]> {
        let eye = self.eye();
        let forward = normalised(sub(self.target, eye));
        let right = normalised(cross(forward, self.up));
        let up = cross(right, forward);
        let q = sub(point, eye);
        let z = dot(q, forward);
        if z <= 1e-9 * self.distance {
            return None;
        }
        let focal = 0.5 * width.min(height) / (0.5 * self.fov).tan();
        Some([
            0.5 * width + focal * dot(q, right) / z,
            0.5 * height - focal * dot(q, up) / z,
        ])
    }

    /// The radius in pixels of a ball of `radius` about `point`, as seen on
    /// a canvas `height` high (`None` behind the eye).
    #[must_use]
    pub fn projected_radius(&self, point: V3, radius: f64, width: f64, height: f64) -> Option<f64> {
        let eye = self.eye();
        let z = dot(sub(point, eye), normalised(sub(self.target, eye)));
        (z > 1e-9 * self.distance)
            .then(|| radius * 0.5 * width.min(height) / (0.5 * self.fov).tan() / z)
    }
}

/// The radius of a ball about the body origin holding the shape; `None`
/// for a half-space.
#[must_use]
pub fn bounding_radius(shape: &ShapeGeometry) -> Option<f64> {
    match shape {
        ShapeGeometry::Box { half_extents } => Some(norm(*half_extents)),
        ShapeGeometry::Sphere { radius } => Some(*radius),
        ShapeGeometry::ConvexHull { vertices, .. } => {
            Some(vertices.iter().map(|v| norm(*v)).fold(0.0, f64::max))
        }
        ShapeGeometry::HalfSpace { .. } => None,
    }
}

fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}
fn normalised(a: V3) -> V3 {
    scale(a, 1.0 / norm(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With gravity along -z, azimuth 0 and elevation 0 the eye is on +x
    /// looking at the target: +y appears to the right, +z above, and the
    /// target at the centre.
    #[test]
    fn the_projection_has_the_documented_orientation() {
        let camera = Camera {
            target: [0.0; 3],
            up: [0.0, 0.0, 1.0],
            east: [1.0, 0.0, 0.0],
            distance: 10.0,
            azimuth: 0.0,
            elevation: 0.0,
            fov: std::f64::consts::FRAC_PI_2,
        };
        assert_eq!(camera.eye(), [10.0, 0.0, 0.0]);
        let centre = camera.project([0.0; 3], 200.0, 100.0).unwrap();
        assert_eq!(centre, [100.0, 50.0]);
        // f = 50 / tan(45 deg) = 50 px; a point 1 m to the right at depth 10: 5 px.
        let right = camera.project([0.0, 1.0, 0.0], 200.0, 100.0).unwrap();
        assert!((right[0] - 105.0).abs() < 1e-9 && (right[1] - 50.0).abs() < 1e-9);
        let above = camera.project([0.0, 0.0, 2.0], 200.0, 100.0).unwrap();
        assert!((above[0] - 100.0).abs() < 1e-9 && (above[1] - 40.0).abs() < 1e-9);
        assert!(camera.project([20.0, 0.0, 0.0], 200.0, 100.0).is_none());
    }

    /// Up is against gravity, and east normal to it; without gravity, z
    /// is up.
    #[test]
    fn up_follows_gravity() {
        let fit = |gravity: [f64; 3]| {
            let text = crate::trajectory_file::tests::edited(|v| {
                v["gravity"] = serde_json::to_value(gravity).unwrap();
            });
            Camera::fit(&crate::trajectory_file::parse(&text).unwrap())
        };
        for (gravity, up) in [
            ([0.0, -9.81, 0.0], [0.0, 1.0, 0.0]),
            ([-2.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
            ([0.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ] {
            let camera = fit(gravity);
            assert_eq!(camera.up, up, "gravity {gravity:?}");
            assert!(dot(camera.east, camera.up).abs() < 1e-15);
            assert!((norm(camera.east) - 1.0).abs() < 1e-15);
            // The eye is above the target by sin(elevation) of its distance.
            let rise = dot(sub(camera.eye(), camera.target), camera.up);
            assert!((rise - camera.distance * ELEVATION.sin()).abs() < 1e-9);
        }
    }

    /// The fitted camera sees every body's bounding ball inside the canvas.
    #[test]
    fn the_fitted_camera_keeps_the_bodies_in_view() {
        let text = crate::trajectory_file::tests::sample();
        let trajectory = crate::trajectory_file::parse(&text).unwrap();
        let camera = Camera::fit(&trajectory);
        assert_eq!(camera.up, [0.0, 0.0, 1.0]);
        let (w, h) = (800.0, 500.0);
        for frame in &trajectory.frames {
            for (body, pose) in trajectory.header.bodies.iter().zip(&frame.poses) {
                let Some(r) = bounding_radius(&body.shape) else {
                    continue;
                };
                let centre = [pose[0], pose[1], pose[2]];
                let [x, y] = camera.project(centre, w, h).unwrap();
                let pixels = camera.projected_radius(centre, r, w, h).unwrap();
                assert!(x - pixels >= 0.0 && x + pixels <= w, "x {x} +- {pixels}");
                assert!(y - pixels >= 0.0 && y + pixels <= h, "y {y} +- {pixels}");
            }
        }
    }
}
