//! Guards the polytope separating-axis test against independent answers:
//! parry's GJK/EPA on random hulls (a contact exists whenever parry's
//! distance is below the margin; for overlapping pairs the depth matches
//! parry's along the same axis), and our cuboid path on random box pairs.

mod common;

use common::{Rng, assert_well_formed, check_depth_against_parry, parry};

use contact_geometry::{ContactManifold, ConvexPolytope, ManifoldGenerator, Shape};
use contact_math::Pose;
use parry3d_f64::query;
use parry3d_f64::shape::ConvexPolyhedron;

fn parry_hull(p: &ConvexPolytope) -> ConvexPolyhedron {
    ConvexPolyhedron::from_convex_hull(p.vertices()).expect("a valid hull")
}

#[test]
fn random_hulls_agree_with_parry() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut generator = ManifoldGenerator::default();
    let mut m = ContactManifold::default();
    let margin = 0.05;
    let (mut touching, mut overlapping, mut same_axis) = (0, 0, 0);
    for _ in 0..1500 {
        let (a, b) = (rng.hull(), rng.hull());
        let pa = Pose::new(rng.vector(-0.3, 0.3), rng.rotation());
        let pb = Pose::new(rng.vector(-1.5, 1.5), rng.rotation());
        let (ha, hb) = (parry_hull(&a), parry_hull(&b));
        let (sa, sb) = (Shape::polytope(a), Shape::polytope(b));
        generator
            .compute(&sa, &pa, &sb, &pb, margin, &mut m)
            .unwrap();
        let distance = query::distance(&parry(&pa), &ha, &parry(&pb), &hb)
            .unwrap()
            .distance;
        if distance < margin - 1e-6 {
            assert!(
                !m.points.is_empty(),
                "parry distance {distance} but no contact"
            );
            touching += 1;
        }
        if distance == 0.0 {
            let contact = query::contact(&parry(&pa), &ha, &parry(&pb), &hb, 0.0)
                .unwrap()
                .expect("overlapping hulls are in contact");
            overlapping += 1;
            if check_depth_against_parry(&m, &contact) {
                same_axis += 1;
            }
        }
        assert_well_formed(&m, margin);
    }
    assert!(
        touching > 150 && overlapping > 100 && same_axis > 50,
        "too few informative cases: {touching} {overlapping} {same_axis}"
    );
}

#[test]
fn random_boxes_agree_with_the_cuboid_path() {
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    let mut generator = ManifoldGenerator::default();
    let (mut ours, mut reference) = (ContactManifold::default(), ContactManifold::default());
    let mut compared = 0;
    for _ in 0..2000 {
        let (ha, hb) = (rng.vector(0.2, 1.0), rng.vector(0.2, 1.0));
        let pa = Pose::new(rng.vector(-0.5, 0.5), rng.rotation());
        let pb = Pose::new(rng.vector(-2.0, 2.0), rng.rotation());
        let (ca, cb) = (Shape::cuboid(ha).unwrap(), Shape::cuboid(hb).unwrap());
        let pa_shape = Shape::polytope(ConvexPolytope::from_box(ha).unwrap());
        generator
            .compute(&ca, &pa, &cb, &pb, 0.05, &mut reference)
            .unwrap();
        generator
            .compute(&pa_shape, &pa, &cb, &pb, 0.05, &mut ours)
            .unwrap();
        assert_eq!(ours.points.is_empty(), reference.points.is_empty());
        if reference.points.is_empty() {
            continue;
        }
        compared += 1;
        // Same best separation; the same axis unless two axes tie.
        assert!((ours.min_distance() - reference.min_distance()).abs() < 1e-9);
        if (ours.normal - reference.normal).length() < 1e-9 {
            assert_eq!(ours.points.len(), reference.points.len());
        }
    }
    assert!(compared > 300, "too few contacts: {compared}");
}
