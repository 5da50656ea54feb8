//! Guards the mass properties of polytopes against closed forms: a box
//! (m/12 (b^2 + c^2), ...), the unit right tetrahedron (volume 1/6,
//! centroid (1/4, 1/4, 1/4), second moments int x^2 = 1/60 and
//! int xy = 1/120 over it), and invariance under rigid motions.

use contact_geometry::{ConvexPolytope, GeometryError};
use glam::{DMat3, DQuat, DVec3};

fn close(a: DMat3, b: DMat3, tol: f64) -> bool {
    (a - b).abs().to_cols_array().iter().all(|&x| x <= tol)
}

#[test]
fn box_matches_the_closed_form() {
    let (h, density) = (DVec3::new(0.5, 1.0, 1.5), 3.0);
    let p = ConvexPolytope::from_box(h).unwrap();
    let mp = p.mass_properties(density).unwrap();
    let (a, b, c) = (2.0 * h.x, 2.0 * h.y, 2.0 * h.z);
    let m = density * a * b * c;
    assert!((mp.mass() - m).abs() < 1e-12 * m);
    assert!(mp.local_com().length() < 1e-14);
    let expected = DMat3::from_diagonal(DVec3::new(
        m / 12.0 * (b * b + c * c),
        m / 12.0 * (a * a + c * c),
        m / 12.0 * (a * a + b * b),
    ));
    assert!(close(mp.local_inertia(), expected, 1e-12 * m));
}

#[test]
fn unit_right_tetrahedron_matches_the_closed_form() {
    let p = ConvexPolytope::from_points(&[DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z]).unwrap();
    let mp = p.mass_properties(1.0).unwrap();
    assert!((mp.mass() - 1.0 / 6.0).abs() < 1e-15);
    assert!((mp.local_com() - DVec3::splat(0.25)).length() < 1e-15);
    // About the origin: int x^2 dV = 1/60, int xy dV = 1/120, so
    // I_xx = int (y^2 + z^2) = 1/30 and I_xy = -1/120; then the parallel
    // axis theorem moves it to the centroid: I_c = I_o - m (|c|^2 1 - c c').
    let io = DMat3::from_cols(
        DVec3::new(1.0 / 30.0, -1.0 / 120.0, -1.0 / 120.0),
        DVec3::new(-1.0 / 120.0, 1.0 / 30.0, -1.0 / 120.0),
        DVec3::new(-1.0 / 120.0, -1.0 / 120.0, 1.0 / 30.0),
    );
    let c = DVec3::splat(0.25);
    let shift = DMat3::from_diagonal(DVec3::splat(c.length_squared()))
        - DMat3::from_cols(c * c.x, c * c.y, c * c.z);
    let expected = io - shift * (1.0 / 6.0);
    assert!(close(mp.local_inertia(), expected, 1e-15));
}

#[test]
fn regular_tetrahedron_has_isotropic_inertia() {
    // Corners of a regular tetrahedron of edge 2 sqrt(2): alternate cube
    // corners. Volume a^3 / (6 sqrt 2) = 8/3; I = m a^2 / 20 about each axis.
    let points = [
        DVec3::new(1.0, 1.0, 1.0),
        DVec3::new(1.0, -1.0, -1.0),
        DVec3::new(-1.0, 1.0, -1.0),
        DVec3::new(-1.0, -1.0, 1.0),
    ];
    let mp = ConvexPolytope::from_points(&points)
        .unwrap()
        .mass_properties(2.0)
        .unwrap();
    let m = 2.0 * 8.0 / 3.0;
    assert!((mp.mass() - m).abs() < 1e-13);
    assert!(mp.local_com().length() < 1e-15);
    let expected = DMat3::from_diagonal(DVec3::splat(m * 8.0 / 20.0));
    assert!(close(mp.local_inertia(), expected, 1e-13));
}

#[test]
fn rigid_motions_move_com_and_rotate_inertia() {
    let points: Vec<DVec3> = (0..12)
        .map(|k| {
            let angle = (k % 6) as f64 * std::f64::consts::PI / 3.0 + 0.1 * k as f64;
            DVec3::new(
                angle.cos(),
                0.7 * angle.sin(),
                if k < 6 { -0.3 } else { 0.8 },
            )
        })
        .collect();
    let base = ConvexPolytope::from_points(&points)
        .unwrap()
        .mass_properties(1.5)
        .unwrap();
    let rotation = DQuat::from_axis_angle(DVec3::new(1.0, -2.0, 0.5).normalize(), 0.9);
    let translation = DVec3::new(3.0, -1.0, 2.0);
    let moved: Vec<DVec3> = points.iter().map(|&p| rotation * p + translation).collect();
    let mp = ConvexPolytope::from_points(&moved)
        .unwrap()
        .mass_properties(1.5)
        .unwrap();
    assert!((mp.mass() - base.mass()).abs() < 1e-12);
    assert!((mp.local_com() - (rotation * base.local_com() + translation)).length() < 1e-12);
    let r = DMat3::from_quat(rotation);
    assert!(close(
        mp.local_inertia(),
        r * base.local_inertia() * r.transpose(),
        1e-12
    ));
}

#[test]
fn bad_density_is_a_typed_error() {
    let p = ConvexPolytope::from_box(DVec3::ONE).unwrap();
    for value in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            p.mass_properties(value),
            Err(GeometryError::InvalidDensity { .. })
        ));
    }
}
