//! Tests of `MassProperties`: closed forms from textbooks, frame invariance,
//! and every validation error.

use super::*;
use crate::test_rng::TestRng;

fn rel_close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs())
}

#[test]
fn solid_box_closed_form() {
    // Textbook: I_xx = m (h^2 + d^2) / 12 for full sides w, h, d.
    let (m, w, h, d) = (3.0, 2.0, 4.0, 6.0);
    let mp = MassProperties::solid_box(m, DVec3::new(w, h, d) / 2.0).unwrap();
    let i = mp.local_inertia().diagonal();
    assert!(rel_close(i.x, m * (h * h + d * d) / 12.0, 1e-15));
    assert!(rel_close(i.y, m * (w * w + d * d) / 12.0, 1e-15));
    assert!(rel_close(i.z, m * (w * w + h * h) / 12.0, 1e-15));
    assert_eq!(mp.local_com(), DVec3::ZERO);
    assert_eq!(mp.mass(), 3.0);
    assert!(rel_close(mp.inv_mass(), 1.0 / 3.0, 1e-16));
}

#[test]
fn solid_sphere_closed_form() {
    // Textbook: 2/5 m r^2.
    let mp = MassProperties::solid_sphere(5.0, 2.0).unwrap();
    assert!(
        mp.local_inertia()
            .abs_diff_eq(DMat3::from_diagonal(DVec3::splat(8.0)), 1e-14)
    );
    assert!(
        mp.inv_local_inertia()
            .abs_diff_eq(DMat3::from_diagonal(DVec3::splat(0.125)), 1e-16)
    );
}

#[test]
fn solid_cylinder_closed_form_axis_y() {
    // Textbook: axial m r^2 / 2, transverse m (3 r^2 + L^2) / 12 with L the full length.
    let (m, r, hh) = (2.0, 0.5, 1.5);
    let mp = MassProperties::solid_cylinder(m, r, hh).unwrap();
    let i = mp.local_inertia().diagonal();
    let l = 2.0 * hh;
    assert!(rel_close(i.y, m * r * r / 2.0, 1e-15));
    assert!(rel_close(i.x, m * (3.0 * r * r + l * l) / 12.0, 1e-15));
    assert!(rel_close(i.z, i.x, 0.0));
}

#[test]
fn box_corner_point_masses_closed_form() {
    // m/8 at each (+-a, +-b, +-c): I_xx = m (b^2 + c^2), no products of inertia.
    let (m, a, b, c) = (4.0, 1.0, 2.0, 3.0);
    let mut pts = Vec::new();
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                pts.push((m / 8.0, DVec3::new(sx * a, sy * b, sz * c)));
            }
        }
    }
    let mp = MassProperties::from_point_masses(&pts).unwrap();
    let expected = DMat3::from_diagonal(DVec3::new(
        m * (b * b + c * c),
        m * (a * a + c * c),
        m * (a * a + b * b),
    ));
    assert!(mp.local_inertia().abs_diff_eq(expected, 1e-13));
    assert!(mp.local_com().length() < 1e-15);
    assert!(rel_close(mp.mass(), m, 1e-15));
}

#[test]
fn point_masses_satisfy_parallel_axis_theorem() {
    // Independent answer: inertia about the origin, summed directly, equals
    // I_com + M (|c|^2 I - c c') (parallel-axis / Steiner theorem).
    let mut rng = TestRng::new(0x3a55_0001);
    for _ in 0..100 {
        let pts: Vec<(f64, DVec3)> = (0..6)
            .map(|_| {
                (
                    rng.range(0.1, 2.0),
                    rng.vec3(2.0) + DVec3::new(3.0, -1.0, 0.5),
                )
            })
            .collect();
        let mp = MassProperties::from_point_masses(&pts).unwrap();
        let mut about_origin = DMat3::ZERO;
        for &(m, p) in &pts {
            about_origin +=
                (DMat3::from_diagonal(DVec3::splat(p.length_squared())) - outer(p, p)) * m;
        }
        let c = mp.local_com();
        let steiner = mp.local_inertia()
            + (DMat3::from_diagonal(DVec3::splat(c.length_squared())) - outer(c, c)) * mp.mass();
        assert!(steiner.abs_diff_eq(about_origin, 1e-11));
    }
}

#[test]
fn coplanar_points_are_a_valid_lamina() {
    // A planar square of four points: I_zz = I_xx + I_yy exactly (perpendicular
    // axis theorem), which is the boundary of the triangle inequality.
    let pts = [
        (1.0, DVec3::new(1.0, 1.0, 0.0)),
        (1.0, DVec3::new(-1.0, 1.0, 0.0)),
        (1.0, DVec3::new(1.0, -1.0, 0.0)),
        (1.0, DVec3::new(-1.0, -1.0, 0.0)),
    ];
    let mp = MassProperties::from_point_masses(&pts).unwrap();
    assert_eq!(mp.principal_moments(), [4.0, 4.0, 8.0]);
}

#[test]
fn degenerate_point_clouds_are_errors() {
    assert_eq!(
        MassProperties::from_point_masses(&[]),
        Err(MathError::EmptyPointCloud)
    );
    let single = [(1.0, DVec3::new(1.0, 2.0, 3.0))];
    assert!(matches!(
        MassProperties::from_point_masses(&single),
        Err(MathError::InertiaNotPositiveDefinite { .. })
    ));
    let dir = DVec3::new(1.0, 2.0, -0.5);
    let collinear: Vec<_> = (0..5)
        .map(|i| (1.0, dir * f64::from(i) + DVec3::ONE))
        .collect();
    assert!(matches!(
        MassProperties::from_point_masses(&collinear),
        Err(MathError::InertiaNotPositiveDefinite { .. })
    ));
    let bad_mass = [(1.0, DVec3::ZERO), (-2.0, DVec3::X)];
    assert_eq!(
        MassProperties::from_point_masses(&bad_mass),
        Err(MathError::NonPositivePointMass {
            index: 1,
            mass: -2.0
        })
    );
    let nan_pos = [(1.0, DVec3::new(0.0, f64::NAN, 0.0))];
    assert!(matches!(
        MassProperties::from_point_masses(&nan_pos),
        Err(MathError::NonFinite { .. })
    ));
    let inf_mass = [(f64::INFINITY, DVec3::ZERO)];
    assert!(matches!(
        MassProperties::from_point_masses(&inf_mass),
        Err(MathError::NonFinite { .. })
    ));
}

/// `R` by Rodrigues' formula, independent of glam's quaternion-to-matrix code.
fn rodrigues(axis: DVec3, angle: f64) -> [[f64; 3]; 3] {
    let k = axis.normalize().to_array();
    let (s, c) = angle.sin_cos();
    let kx = [[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]];
    core::array::from_fn(|i| {
        core::array::from_fn(|j| {
            let kk: f64 = (0..3).map(|l| kx[i][l] * kx[l][j]).sum();
            f64::from(u8::from(i == j)) + s * kx[i][j] + (1.0 - c) * kk
        })
    })
}

#[test]
fn world_inertia_is_r_i_rt_and_keeps_eigenvalues() {
    let mut rng = TestRng::new(0x3a55_0002);
    let mp = MassProperties::solid_box(2.0, DVec3::new(0.5, 1.0, 1.5)).unwrap();
    let local = mp.local_inertia().transpose().to_cols_array_2d(); // [row][col]
    for _ in 0..200 {
        let axis = rng.vec3(1.0) + DVec3::new(0.0, 0.0, 1e-3);
        let angle = rng.range(-3.0, 3.0);
        let q = DQuat::from_axis_angle(axis.normalize(), angle);
        let r = rodrigues(axis, angle);
        let world = mp.world_inertia(q);
        for i in 0..3 {
            for j in 0..3 {
                let mut by_hand = 0.0;
                for k in 0..3 {
                    for l in 0..3 {
                        by_hand += r[i][k] * local[k][l] * r[j][l];
                    }
                }
                assert!((world.col(j)[i] - by_hand).abs() < 1e-13);
            }
        }
        assert_eq!(world, world.transpose());
        let e = symmetric_eigen(world).unwrap();
        for (a, b) in e.values.iter().zip(mp.principal_moments()) {
            assert!(rel_close(*a, b, 1e-13));
        }
        let inv = mp.world_inv_inertia(q);
        assert!((world * inv).abs_diff_eq(DMat3::IDENTITY, 1e-13));
    }
}

#[test]
fn general_inertia_inverse_and_principal_moments() {
    // A rotated box: the inverse must invert, and the principal moments are
    // the box's diagonal, sorted.
    let q = DQuat::from_axis_angle(DVec3::new(1.0, 1.0, 0.0).normalize(), 0.7);
    let b = MassProperties::solid_box(1.0, DVec3::new(0.3, 0.2, 0.1)).unwrap();
    let mp = MassProperties::new(1.0, DVec3::X, b.world_inertia(q)).unwrap();
    assert!((mp.local_inertia() * mp.inv_local_inertia()).abs_diff_eq(DMat3::IDENTITY, 1e-13));
    let mut d = b.local_inertia().diagonal().to_array();
    d.sort_by(f64::total_cmp);
    for (a, b) in mp.principal_moments().iter().zip(d) {
        assert!(rel_close(*a, b, 1e-13));
    }
    assert_eq!(mp.local_com(), DVec3::X);
}

#[test]
fn energy_and_momentum_of_a_spinning_sphere() {
    // I = 2/5 m r^2 = 0.4 for m = 1, r = 1: E = m v^2 / 2 + I w^2 / 2.
    let mp = MassProperties::solid_sphere(1.0, 1.0).unwrap();
    let t = Twist::new(DVec3::new(2.0, 0.0, 0.0), DVec3::new(0.0, 0.0, 3.0));
    let e = mp.kinetic_energy(DQuat::from_rotation_x(0.3), &t);
    assert!(rel_close(e, 0.5 * 4.0 + 0.5 * 0.4 * 9.0, 1e-15));
    let l = mp.angular_momentum(DQuat::IDENTITY, t.angular);
    assert!((l - DVec3::new(0.0, 0.0, 1.2)).length() < 1e-15);
}

#[test]
fn validation_errors() {
    let good = DMat3::from_diagonal(DVec3::new(1.0, 2.0, 2.5));
    assert_eq!(
        MassProperties::new(0.0, DVec3::ZERO, good),
        Err(MathError::NonPositiveMass { mass: 0.0 })
    );
    assert_eq!(
        MassProperties::new(-1.0, DVec3::ZERO, good),
        Err(MathError::NonPositiveMass { mass: -1.0 })
    );
    assert_eq!(
        MassProperties::new(f64::NAN, DVec3::ZERO, good),
        Err(MathError::NonFinite { what: "mass" })
    );
    assert_eq!(
        MassProperties::new(1.0, DVec3::new(f64::INFINITY, 0.0, 0.0), good),
        Err(MathError::NonFinite {
            what: "centre of mass"
        })
    );
    let mut nan = good;
    nan.z_axis.x = f64::NAN;
    assert_eq!(
        MassProperties::new(1.0, DVec3::ZERO, nan),
        Err(MathError::NonFinite { what: "inertia" })
    );

    let mut asym = good;
    asym.y_axis.x = 0.1; // entry (0, 1); (1, 0) stays 0
    assert_eq!(
        MassProperties::new(1.0, DVec3::ZERO, asym),
        Err(MathError::InertiaNotSymmetric { max_asymmetry: 0.1 })
    );
    // Asymmetry within 1e-9 relative is accepted and symmetrised.
    let mut nearly = good;
    nearly.y_axis.x = 1e-12;
    let mp = MassProperties::new(1.0, DVec3::ZERO, nearly).unwrap();
    assert_eq!(mp.local_inertia(), mp.local_inertia().transpose());

    let indefinite = DMat3::from_diagonal(DVec3::new(1.0, -1.0, 1.0));
    assert_eq!(
        MassProperties::new(1.0, DVec3::ZERO, indefinite),
        Err(MathError::InertiaNotPositiveDefinite { eigenvalue: -1.0 })
    );
    let singular = DMat3::from_diagonal(DVec3::new(0.0, 1.0, 1.0));
    assert_eq!(
        MassProperties::new(1.0, DVec3::ZERO, singular),
        Err(MathError::InertiaNotPositiveDefinite { eigenvalue: 0.0 })
    );

    // 1 + 1 < 3: no mass distribution has these moments.
    let violating = DMat3::from_diagonal(DVec3::new(1.0, 3.0, 1.0));
    assert_eq!(
        MassProperties::new(1.0, DVec3::ZERO, violating),
        Err(MathError::TriangleInequality {
            principal: [1.0, 1.0, 3.0]
        })
    );
    // Exactly on the boundary (a lamina) is fine.
    assert!(
        MassProperties::new(
            1.0,
            DVec3::ZERO,
            DMat3::from_diagonal(DVec3::new(1.0, 2.0, 3.0))
        )
        .is_ok()
    );
}

#[test]
fn subnormal_mass_is_an_error_not_an_infinite_inverse() {
    // 1 / 1e-320 overflows to infinity.
    let i = DMat3::from_diagonal(DVec3::splat(1.0));
    assert_eq!(
        MassProperties::new(1e-320, DVec3::ZERO, i),
        Err(MathError::NonFinite {
            what: "inverse mass"
        })
    );
    let tiny = DMat3::from_diagonal(DVec3::splat(1e-320));
    assert_eq!(
        MassProperties::new(1.0, DVec3::ZERO, tiny),
        Err(MathError::NonFinite {
            what: "inverse inertia"
        })
    );
}

#[test]
fn shape_constructor_errors() {
    assert_eq!(
        MassProperties::solid_sphere(1.0, 0.0),
        Err(MathError::NonPositiveDimension {
            what: "sphere radius",
            value: 0.0
        })
    );
    assert_eq!(
        MassProperties::solid_box(1.0, DVec3::new(1.0, -1.0, 1.0)),
        Err(MathError::NonPositiveDimension {
            what: "box half extent",
            value: -1.0
        })
    );
    assert_eq!(
        MassProperties::solid_cylinder(1.0, 1.0, f64::NAN),
        Err(MathError::NonFinite {
            what: "cylinder half height"
        })
    );
    assert_eq!(
        MassProperties::solid_cylinder(-2.0, 1.0, 1.0),
        Err(MathError::NonPositiveMass { mass: -2.0 })
    );
    assert_eq!(
        MassProperties::solid_box(f64::INFINITY, DVec3::ONE),
        Err(MathError::NonFinite { what: "mass" })
    );
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trip_goes_through_validation() {
    let mp = MassProperties::solid_cylinder(2.5, 0.5, 1.0).unwrap();
    let json = serde_json::to_string(&mp).unwrap();
    let back: MassProperties = serde_json::from_str(&json).unwrap();
    assert_eq!(back, mp);
    // A rotated inertia with arbitrary digits: equal to within a few ulps
    // (serde_json's parser is not guaranteed to round-trip the last bit).
    let general = MassProperties::new(
        1.3,
        DVec3::new(0.1, 0.2, 0.3),
        mp.world_inertia(DQuat::from_rotation_x(0.4)),
    )
    .unwrap();
    let back: MassProperties =
        serde_json::from_str(&serde_json::to_string(&general).unwrap()).unwrap();
    assert!(
        back.local_inertia()
            .abs_diff_eq(general.local_inertia(), 1e-15)
    );
    assert!(
        back.inv_local_inertia()
            .abs_diff_eq(general.inv_local_inertia(), 1e-14)
    );

    let bad_mass = r#"{"mass":-1.0,"local_com":[0,0,0],"local_inertia":[1,0,0,0,1,0,0,0,1]}"#;
    let err = serde_json::from_str::<MassProperties>(bad_mass).unwrap_err();
    assert!(err.to_string().contains("mass must be positive"), "{err}");
    let bad_inertia = r#"{"mass":1.0,"local_com":[0,0,0],"local_inertia":[1,0,0,0,1,0,0,0,3]}"#;
    let err = serde_json::from_str::<MassProperties>(bad_inertia).unwrap_err();
    assert!(err.to_string().contains("triangle inequality"), "{err}");
}
