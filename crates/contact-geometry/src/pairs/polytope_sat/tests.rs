//! Tests of the separating-axis search (polytope_sat.rs).

use super::*;

/// The separation along a face normal by a plain loop over vertices.
fn plain_face_separation(plane: &FacePlane, other: &[DVec3]) -> f64 {
    other
        .iter()
        .map(|&v| plane.normal.dot(v))
        .fold(f64::INFINITY, f64::min)
        - plane.offset
}

/// Gregorius's crossing test as he writes it, on the four normals
/// with B's negated: arcs `a`-`b` and `c`-`d` cross.
fn arcs_cross(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> bool {
    let b_x_a = b.cross(a);
    let d_x_c = d.cross(c);
    let cba = c.dot(b_x_a);
    let dba = d.dot(b_x_a);
    let adc = a.dot(d_x_c);
    let bdc = b.dot(d_x_c);
    cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0
}

/// `edge_axis` with the crossing test as written in the paper.
fn reference_edge_axis(pa: &Posed, ea: &Edge, pb: &Posed, eb: &Edge) -> Option<(DVec3, f64)> {
    let normal = |posed: &Posed, face: u32| posed.planes[face as usize].normal;
    let (u_a, v_a) = (normal(pa, ea.faces[0]), normal(pa, ea.faces[1]));
    let (u_b, v_b) = (normal(pb, eb.faces[0]), normal(pb, eb.faces[1]));
    if arcs_cross(u_a, v_a, -u_b, -v_b) {
        edge_pair_axis(pa, ea, pb, eb)
    } else {
        None
    }
}

/// The search without pruning (the reference): every candidate in id
/// order, faces of a, faces of b, then every edge pair; `None` if any
/// separates by more than the margin; else the first of the largest
/// face separations, unless the first of the largest edge-pair ones
/// beats it by the preference of `choice`.
fn every_pair_best_axis(
    pa: &Posed,
    a: &ConvexPolytope,
    pb: &Posed,
    b: &ConvexPolytope,
    margin: f64,
    scale: f64,
    choice: AxisChoice,
) -> Option<(Axis, f64)> {
    fn face_axis<'p>(
        of_b: bool,
        own: &'p Posed,
        other: &'p Posed,
    ) -> impl Iterator<Item = (Axis, f64)> + 'p {
        own.planes.iter().enumerate().map(move |(face, plane)| {
            let normal = if of_b { -plane.normal } else { plane.normal };
            let s = plain_face_separation(plane, &other.vertices);
            (Axis::Face { of_b, face, normal }, s)
        })
    }
    let faces: Vec<(Axis, f64)> = face_axis(false, pa, pb)
        .chain(face_axis(true, pb, pa))
        .collect();
    let edges: Vec<(Axis, f64)> = (0..a.edges().len())
        .flat_map(|edge_a| (0..b.edges().len()).map(move |edge_b| (edge_a, edge_b)))
        .filter_map(|(edge_a, edge_b)| {
            let (normal, s) = reference_edge_axis(pa, &a.edges()[edge_a], pb, &b.edges()[edge_b])?;
            Some((
                Axis::Edges {
                    edge_a,
                    edge_b,
                    normal,
                },
                s,
            ))
        })
        .collect();
    if faces.iter().chain(&edges).any(|&(_, s)| s > margin) {
        return None;
    }
    let first_largest = |list: &[(Axis, f64)]| {
        list.iter()
            .copied()
            .reduce(|kept, x| if x.1 > kept.1 { x } else { kept })
    };
    let face = first_largest(&faces)?;
    match first_largest(&edges) {
        Some(edge) if edge.1 > face.1 + edge_preference(choice, face.1, scale) => Some(edge),
        _ => Some(face),
    }
}

/// `axes_near` without the search record: every face, then every edge
/// pair in id order.
fn every_pair_axes_near(
    pa: &Posed,
    a: &ConvexPolytope,
    pb: &Posed,
    b: &ConvexPolytope,
    threshold: f64,
) -> Vec<DVec3> {
    let mut out = Vec::new();
    for (of_b, own, other) in [(false, pa, pb), (true, pb, pa)] {
        for plane in &own.planes {
            if plain_face_separation(plane, &other.vertices) >= threshold {
                out.push(if of_b { -plane.normal } else { plane.normal });
            }
        }
    }
    for ea in a.edges() {
        for eb in b.edges() {
            if let Some((normal, s)) = reference_edge_axis(pa, ea, pb, eb) {
                if s >= threshold {
                    out.push(normal);
                }
            }
        }
    }
    out
}

/// A small deterministic generator (64-bit LCG, top 53 bits).
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    fn vector(&mut self, lo: f64, hi: f64) -> DVec3 {
        DVec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }
    fn rotation(&mut self) -> DQuat {
        let axis = self.vector(-1.0, 1.0).normalize_or(DVec3::Z);
        DQuat::from_axis_angle(axis, self.range(0.0, std::f64::consts::TAU))
    }
    /// A hull of 4 to 24 points: on a sphere (every face a triangle)
    /// or in a box (some faces merged into polygons).
    fn hull(&mut self) -> ConvexPolytope {
        let n = 4 + (self.unit() * 21.0) as usize;
        let on_sphere = self.unit() < 0.5;
        let points: Vec<DVec3> = (0..n)
            .map(|_| {
                let p = self.vector(-0.5, 0.5);
                if on_sphere {
                    p.normalize_or(DVec3::X) * 0.5
                } else {
                    p
                }
            })
            .collect();
        ConvexPolytope::from_points(&points).unwrap_or_else(|_| {
            ConvexPolytope::from_box(self.vector(0.1, 0.6)).expect("positive sizes")
        })
    }
}

/// Runs both searches on one posed pair, for each axis choice, and
/// requires the same answer to the bit (the pruning skips only pairs
/// that cannot count, and the tie rule is the reference's), and the same
/// axes near the best. Returns the reference's answer for a manifold.
fn compare(
    a: &ConvexPolytope,
    pose_a: &Pose,
    b: &ConvexPolytope,
    pose_b: &Pose,
    margin: f64,
    scratch: &mut Scratch,
) -> Option<(Axis, f64)> {
    scratch.a.load(a, pose_a);
    scratch.b.load(b, pose_b);
    let scale = a.bounding_radius().max(b.bounding_radius());
    let mut expected = None;
    for choice in [AxisChoice::Largest, AxisChoice::FacesNearContact] {
        let (pa, pb) = (&scratch.a, &scratch.b);
        expected = every_pair_best_axis(pa, a, pb, b, margin, scale, choice);
        let got = best_axis(pa, a, pb, b, margin, choice, &mut scratch.search);
        assert_eq!(got, expected, "margin {margin}, {choice:?}");
        if let Some((_, separation)) = got {
            let threshold = separation - 1e-6;
            let near = every_pair_axes_near(pa, a, pb, b, threshold);
            axes_near(scratch, threshold);
            assert_eq!(scratch.axes, near);
        }
    }
    expected
}

#[test]
fn pruned_search_matches_the_every_pair_search() {
    let mut rng = Lcg(0x0005_EED0_F5A7);
    let mut scratch = Scratch::default();
    let (mut edge_wins, mut face_wins, mut touching, mut overlapping, mut apart) = (0, 0, 0, 0, 0);
    for _ in 0..300 {
        let (a, b) = (rng.hull(), rng.hull());
        let pose_a = Pose::new(rng.vector(-0.2, 0.2), rng.rotation());
        let mut pose_b = Pose::new(rng.vector(-1.0, 1.0), rng.rotation());
        if rng.unit() < 0.1 {
            // Off unit length: the posed shape shrinks, its arcs turn
            // the same (without normalising the turn, cones shrunk
            // with it and pairs were lost).
            pose_b.rotation *= 0.9;
        }
        // Free pose: overlapping or apart, with and without a margin.
        compare(&a, &pose_a, &b, &pose_b, 0.05, &mut scratch);
        let Some((axis, s)) = compare(&a, &pose_a, &b, &pose_b, f64::INFINITY, &mut scratch) else {
            panic!("an infinite margin always gives an axis");
        };
        if s < 0.0 {
            overlapping += 1
        } else {
            apart += 1
        }
        // Moved along the best axis until touching on it: contacts of
        // every kind, separations near zero, many near-ties.
        let normal = match axis {
            Axis::Face { normal, .. } | Axis::Edges { normal, .. } => normal,
        };
        pose_b.translation -= s * normal;
        match compare(&a, &pose_a, &b, &pose_b, 1e-3, &mut scratch) {
            Some((Axis::Edges { .. }, s)) => {
                edge_wins += 1;
                touching += usize::from(s.abs() < 1e-9);
            }
            Some((Axis::Face { .. }, s)) => {
                face_wins += 1;
                touching += usize::from(s.abs() < 1e-9);
            }
            None => {}
        }
    }
    assert!(
        edge_wins > 30 && face_wins > 30 && touching > 100 && overlapping > 30 && apart > 30,
        "too few informative cases: {edge_wins} {face_wins} {touching} {overlapping} {apart}"
    );
}

#[test]
fn pruned_search_matches_on_exact_box_contacts() {
    // Boxes: parallel edges, exact ties between faces of a and b, and
    // edge pairs of equal separation.
    let mut scratch = Scratch::default();
    let cube = ConvexPolytope::from_box(DVec3::splat(0.5)).expect("cube");
    let slab = ConvexPolytope::from_box(DVec3::new(1.0, 0.7, 0.25)).expect("slab");
    let diagonal = std::f64::consts::FRAC_1_SQRT_2;
    let cases = [
        // Face on face, aligned and turned about the normal.
        Pose::new(DVec3::new(0.0, 0.0, 0.75), DQuat::IDENTITY),
        Pose::new(DVec3::new(0.2, -0.1, 0.75), DQuat::from_rotation_z(0.3)),
        // Penetrating by 0.1.
        Pose::new(DVec3::new(0.1, 0.1, 0.65), DQuat::IDENTITY),
        // Edge on edge, crossed at right angles.
        Pose::new(
            DVec3::new(0.0, 0.0, 0.25 + diagonal),
            DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4),
        ),
        // Corner down on the face.
        Pose::new(
            DVec3::new(0.0, 0.0, 0.25 + 3f64.sqrt() * 0.5),
            DQuat::from_rotation_arc(DVec3::ONE.normalize(), -DVec3::Z),
        ),
    ];
    for pose in cases {
        for margin in [f64::INFINITY, 1e-3] {
            let found = compare(&slab, &Pose::IDENTITY, &cube, &pose, margin, &mut scratch);
            assert!(found.is_some(), "{pose:?} touches or overlaps");
            compare(&cube, &pose, &slab, &Pose::IDENTITY, margin, &mut scratch);
        }
    }
}
