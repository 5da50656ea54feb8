//! Overlaps carried from one round of the fixed stepper's arrival
//! projection to the next.
//!
//! A round detects the contacts where a step arrived and projects the
//! overlapping ones out (Cline 2002, eq. 3.7, on fresh geometry), but the
//! projection may turn a body, and a feature pair of the same two bodies
//! that no row held then crosses instead: two edges of a box alternately
//! cutting a neighbour's edge, round after round. A box-box manifold holds
//! one point for an edge-edge contact, so the next round sees only the new
//! crossing. Each round's overlaps are therefore kept as witness points
//! fixed to their bodies and a normal fixed to body `a`, measured again at
//! the next round's poses (exact for the points, first order for the
//! sliding of an edge-edge point), and projected beside what that round
//! detects: a later round cannot undo an earlier one.

use contact_dynamics::ContactConstraint;
use contact_math::Pose;
use glam::DVec3;

/// The overlaps of the rounds so far of one step's arrival projection.
#[derive(Debug, Default)]
pub(crate) struct CarriedContacts {
    kept: Vec<Carried>,
}

/// An overlap as it was detected, with its witness points in the frames
/// of its bodies and its normal in the frame of body `a`.
#[derive(Clone, Copy, Debug)]
struct Carried {
    contact: ContactConstraint,
    on_a: DVec3,
    on_b: DVec3,
    normal_in_a: DVec3,
}

impl CarriedContacts {
    /// Forgets every overlap (a new step).
    pub(crate) fn clear(&mut self) {
        self.kept.clear();
    }

    /// Appends to `contacts` (a round's detection at `poses`) every kept
    /// overlap whose contact it did not detect again (same bodies and
    /// features), measured at `poses`.
    pub(crate) fn add_to(&self, poses: &[Pose], contacts: &mut Vec<ContactConstraint>) {
        let detected = contacts.len();
        for carried in &self.kept {
            let key = carried.contact.key();
            if contacts[..detected].iter().any(|c| c.key() == key) {
                continue;
            }
            let c = &carried.contact;
            let (pose_a, pose_b) = (&poses[c.body_a], &poses[c.body_b]);
            let point_a = pose_a.transform_point(carried.on_a);
            let point_b = pose_b.transform_point(carried.on_b);
            let normal = pose_a.transform_vector(carried.normal_in_a);
            contacts.push(ContactConstraint {
                point: 0.5 * (point_a + point_b),
                normal,
                distance: normal.dot(point_b - point_a),
                ..*c
            });
        }
    }

    /// Keeps the contacts of `detected` (found at `poses`) that overlap by
    /// more than `tolerance`, replacing a kept one of the same contact.
    pub(crate) fn keep(&mut self, detected: &[ContactConstraint], poses: &[Pose], tolerance: f64) {
        for c in detected.iter().filter(|c| c.distance < -tolerance) {
            let half = 0.5 * c.distance * c.normal;
            let (pose_a, pose_b) = (&poses[c.body_a], &poses[c.body_b]);
            let carried = Carried {
                contact: *c,
                on_a: pose_a.inverse_transform_point(c.point - half),
                on_b: pose_b.inverse_transform_point(c.point + half),
                normal_in_a: pose_a.inverse_transform_vector(c.normal),
            };
            let key = c.key();
            match self.kept.iter_mut().find(|k| k.contact.key() == key) {
                Some(kept) => *kept = carried,
                None => self.kept.push(carried),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contact_geometry::Feature;
    use glam::DQuat;

    fn contact(features: [Feature; 2], distance: f64) -> ContactConstraint {
        ContactConstraint {
            body_a: 0,
            body_b: 1,
            point: DVec3::new(0.0, 0.0, 1.0),
            normal: DVec3::Z,
            distance,
            friction: 0.5,
            restitution: 0.0,
            features,
        }
    }

    /// A kept overlap follows its bodies: moved apart along the normal by
    /// its depth it measures 0, and body `a` turned a quarter turn about
    /// the normal's perpendicular carries the normal with it; a contact
    /// detected again is not added twice, and one within the tolerance is
    /// not kept.
    #[test]
    fn a_kept_overlap_is_measured_again_where_its_bodies_went() {
        let (edges, other) = (
            [Feature::Edge(0), Feature::Edge(6)],
            [Feature::Edge(5), Feature::Edge(3)],
        );
        let poses = [Pose::IDENTITY, Pose::IDENTITY];
        let mut carried = CarriedContacts::default();
        carried.keep(
            &[contact(edges, -0.01), contact(other, -1e-9)],
            &poses,
            1e-8,
        );

        let lifted = [
            Pose::IDENTITY,
            Pose::try_new(DVec3::new(0.3, 0.0, 0.01), DQuat::IDENTITY).unwrap(),
        ];
        let mut contacts = vec![contact(other, 0.0)];
        carried.add_to(&lifted, &mut contacts);
        assert_eq!(contacts.len(), 2, "the shallow one is not kept");
        assert!(
            contacts[1].distance.abs() < 1e-15,
            "{}",
            contacts[1].distance
        );
        assert_eq!(contacts[1].features, edges);

        let mut again = vec![contact(edges, 0.0)];
        carried.add_to(&lifted, &mut again);
        assert_eq!(again.len(), 1, "detected again: not added");

        let turned = [
            Pose::try_new(
                DVec3::ZERO,
                DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2),
            )
            .unwrap(),
            Pose::IDENTITY,
        ];
        let mut contacts = Vec::new();
        carried.add_to(&turned, &mut contacts);
        assert!((contacts[0].normal - DVec3::new(0.0, -1.0, 0.0)).length() < 1e-15);
    }
}
