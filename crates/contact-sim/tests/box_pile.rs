//! The box pile scene: cubes start apart, above the ground, turned every
//! which way, the same for the same seed; bad descriptions are typed errors.

use contact_sim::scenes::{BoxPile, box_pile};
use contact_sim::{CollisionPass, Shape, SimError};

#[test]
fn the_cubes_start_apart_above_the_ground_and_turned_at_random() {
    let pile = BoxPile::default();
    let world = box_pile(&pile).unwrap();
    assert_eq!(world.bodies().len(), pile.count + 1);
    // The collision pass's exact distances: no pair, and no cube with the
    // ground, within 1 cm. The lattice leaves at least
    // (spacing - sqrt 3) / 4 = 1.7 cm below a cube and twice that between
    // two.
    let mut contacts = Vec::new();
    CollisionPass::default()
        .detect(
            world.bodies(),
            world.joints(),
            0.01,
            0.0,
            glam::DVec3::ZERO,
            &mut contacts,
        )
        .unwrap();
    assert!(
        contacts.is_empty(),
        "{} contacts at the start, first {:?}",
        contacts.len(),
        contacts.first()
    );
    let reach = 0.5 * pile.columns as f64 * pile.spacing;
    let mut cos_squared = 0.0;
    for body in &world.bodies()[1..] {
        let Shape::Cuboid { half_extents } = body.shape else {
            panic!("a cube")
        };
        assert_eq!(half_extents.x, 0.5 * pile.size);
        // Every corner above the ground and inside the lattice's footprint.
        for corner in 0..8 {
            let sign = |bit: usize| if corner >> bit & 1 == 1 { 1.0 } else { -1.0 };
            let local = half_extents * glam::DVec3::new(sign(0), sign(1), sign(2));
            let p = body.pose.transform_point(local);
            assert!(p.z > 0.0, "corner below the ground: {p}");
            assert!(p.x.abs() < reach && p.y.abs() < reach, "outside: {p}");
        }
        cos_squared += body.pose.rotation.mul_vec3(glam::DVec3::Z).z.powi(2);
    }
    // For rotations uniform over all rotations the turned z axis is
    // uniform on the sphere: E[cos^2] = 1/3, standard deviation of the
    // mean of 200 about 0.021; 0.1 is near five of them.
    let mean = cos_squared / pile.count as f64;
    assert!((mean - 1.0 / 3.0).abs() < 0.1, "mean cos^2 {mean}");
}

#[test]
fn the_seed_decides_the_pile() {
    let pile = BoxPile {
        count: 30,
        ..BoxPile::default()
    };
    let poses = |seed| {
        box_pile(&BoxPile { seed, ..pile })
            .unwrap()
            .bodies()
            .iter()
            .map(|b| b.pose)
            .collect::<Vec<_>>()
    };
    assert_eq!(poses(7), poses(7));
    assert_ne!(poses(7), poses(8));
}

#[test]
fn bad_piles_are_typed_errors() {
    let pile = BoxPile::default();
    assert!(matches!(
        box_pile(&BoxPile { count: 0, ..pile }),
        Err(SimError::Scene { .. })
    ));
    assert!(matches!(
        box_pile(&BoxPile { columns: 0, ..pile }),
        Err(SimError::Scene { .. })
    ));
    // A unit cube's diagonal is sqrt(3) = 1.732...: a cell of 1.7 is too small.
    assert!(matches!(
        box_pile(&BoxPile {
            spacing: 1.7,
            ..pile
        }),
        Err(SimError::InvalidParameter {
            name: "spacing",
            ..
        })
    ));
    assert!(matches!(
        box_pile(&BoxPile {
            gravity: f64::NAN,
            ..pile
        }),
        Err(SimError::InvalidParameter {
            name: "gravity",
            ..
        })
    ));
    assert!(matches!(
        box_pile(&BoxPile { size: -1.0, ..pile }),
        Err(SimError::Shape(_))
    ));
    assert!(matches!(
        box_pile(&BoxPile { mass: 0.0, ..pile }),
        Err(SimError::Mass(_))
    ));
    assert!(matches!(
        box_pile(&BoxPile {
            friction: -0.1,
            ..pile
        }),
        Err(SimError::Dynamics(_))
    ));
}
