//! Guards the cuboid-cuboid separating-axis test against an independent
//! implementation: parry's GJK/EPA. For random pairs of boxes, our manifold
//! must exist exactly when parry's distance is within the margin, and for
//! overlapping pairs the normal and the deepest point's distance must match
//! parry's penetration (both are the minimum-translation answer).

mod common;

use common::{Rng, assert_well_formed, check_depth_against_parry, parry};

use contact_geometry::{ContactManifold, ManifoldGenerator, Shape};
use contact_math::Pose;
use parry3d_f64::query;
use parry3d_f64::shape::Cuboid;

#[test]
fn contact_exists_exactly_when_parry_distance_is_within_margin() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut generator = ManifoldGenerator::default();
    let mut m = ContactManifold::default();
    let margin = 0.05;
    let (mut touching, mut overlapping) = (0, 0);
    for _ in 0..4000 {
        let (ha, hb) = (rng.vector(0.2, 1.0), rng.vector(0.2, 1.0));
        let pa = Pose::new(rng.vector(-0.5, 0.5), rng.rotation());
        let pb = Pose::new(rng.vector(-2.0, 2.0), rng.rotation());
        generator
            .compute(
                &Shape::cuboid(ha).unwrap(),
                &pa,
                &Shape::cuboid(hb).unwrap(),
                &pb,
                margin,
                &mut m,
            )
            .unwrap();
        let distance =
            query::distance(&parry(&pa), &Cuboid::new(ha), &parry(&pb), &Cuboid::new(hb))
                .unwrap()
                .distance;
        // Closer than the margin (away from the boundary by 1e-6): SAT must
        // find the contact. Farther: SAT's separation is only a lower bound
        // of the distance (vertex-vertex closest pairs), so a point may still
        // be reported, but never beyond the margin (checked per point below).
        if distance < margin - 1e-6 {
            assert!(
                !m.points.is_empty(),
                "parry distance {distance} but no contact"
            );
            touching += 1;
        }
        if distance == 0.0 {
            // Overlapping: compare with parry's penetration.
            let contact = query::contact(
                &parry(&pa),
                &Cuboid::new(ha),
                &parry(&pb),
                &Cuboid::new(hb),
                0.0,
            )
            .unwrap()
            .expect("overlapping boxes are in contact");
            overlapping += 1;
            check_depth_against_parry(&m, &contact);
        }
        assert_well_formed(&m, margin);
    }
    assert!(
        touching > 200 && overlapping > 100,
        "too few informative cases: {touching} {overlapping}"
    );
}
