//! The pairs conservative advancement watches, their geometry at a state,
//! and each pair's safe bound (Drumwright 2016, sec. 2.4 and 3.1).
//!
//! A pair is two bodies with at least one dynamic, not joined by a joint
//! (as the collision pass), that the broad phase finds: their bounding
//! spheres within twice the contact band plus the distances each body can
//! move over the step (`broad_phase.rs`). A pair farther apart cannot
//! touch within the step, so its bound exceeds any step the stepper takes
//! and it is left out. Its geometry at a state:
//!
//! - far apart (bounding spheres farther than `cull`): the spheres' gap
//!   along the line of centres, a lower bound of the separation along that
//!   line, which eq. 4 accepts as well as the true distance;
//! - otherwise the signed distance, closest direction and closest features
//!   (`ManifoldGenerator::proximity`);
//! - in contact (distance at most the contact band): also the separating
//!   plane (sec. 3.0.1-3.0.2); touching if within the touch distance, or
//!   held from the last step (see `CaStepper`).
//!
//! The safe bound for a separated pair is Mirtich's (eq. 4, with eq. 11's
//! speeds for a link): the time before the gap can shrink to half the
//! touch distance, so a pair approaching lands touching. For a pair in
//! contact it is eq. 7-8 (eq. 15 for a link): the time before a vertex off
//! the plane can reach it. Each body's vertices are measured from its own
//! support level along the plane normal, not from the plane midway between
//! the bodies: the contact points may close the remaining gap within the
//! step (their gap rows allow it), and a vertex must not reach the other
//! body even then. Either way the second-order bound
//! (`contact_geometry::second_order_bound`) is also valid for the
//! constant-twist motion of a velocity step, and the larger of the two is
//! the pair's bound. A pair in contact but not yet touching also has an
//! arrival time: when its closest points' approach says it touches, where
//! a step should end so the touch is logged on time (its gap rows, not this
//! time, keep it from penetrating).

use contact_dynamics::RigidBody;
use contact_geometry::{
    ContactKind, Feature, ManifoldGenerator, MovingSupport, SeparatingPlane, Shape,
    second_order_bound, touching_bound,
};
use contact_math::Pose;
use glam::DVec3;

use super::motion::Motions;
use super::statistics::StepLimit as BoundKind;
use crate::SimError;

/// Two bodies in contact (within the contact band): their separating
/// plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Contact {
    /// How they touch (sec. 3.0.2); `is_unique` says whether the plane is
    /// determined.
    pub kind: ContactKind,
    /// Largest projection of body a's support points on the normal (m).
    pub level_a: f64,
    /// Smallest projection of body b's support points on the normal (m).
    pub level_b: f64,
}

/// The points of a body whose support bounds it (see `MovingSupport`): a
/// range of the geometry's point buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Support {
    start: usize,
    end: usize,
    /// A sphere's radius, else 0.
    radius: f64,
    /// Whether the points are a polytope's vertices (eq. 7-8 use only
    /// those; a sphere or a half-space adds no term there).
    vertices: bool,
}

/// One pair at one state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Pair {
    pub a: usize,
    pub b: usize,
    /// Signed distance (m), or a lower bound of the separation along
    /// `normal` when not `exact`.
    pub distance: f64,
    /// Unit direction from a to b along which the separation is at least
    /// `distance` (the separating plane's normal when touching).
    pub normal: DVec3,
    /// Whether `distance` is the signed distance.
    pub exact: bool,
    /// Closest (support) features of a and b; `Unknown` when not exact.
    pub features: [Feature; 2],
    /// The plane when in contact (within the contact band).
    pub contact: Option<Contact>,
    /// Whether the pair touches (within the touch distance, or held and in
    /// contact): what
    /// the event log reports.
    pub touches: bool,
    /// The closest points of a and b (exact pairs only).
    closest: [DVec3; 2],
    /// Support points of a and b (exact pairs only).
    supports: Option<[Support; 2]>,
    /// Which bound gave `bound`.
    pub kind: BoundKind,
    /// The safe bound (s) under the last motion evaluated.
    pub bound: f64,
    /// The approach speed bound along the normal (m/s) under that motion:
    /// eq. 4's denominator.
    pub rate: f64,
    /// When the pair, in contact but not yet touching, arrives by the
    /// first-order approach of its closest points under that motion (s;
    /// `+inf` otherwise): where a step should end, not a safe bound.
    pub arrival: f64,
    /// The distance (m) up to which its points are in the step problem
    /// (negative: none).
    pub covered: f64,
    /// Whether it is measured only for the event log: touching at the
    /// start of a step, beyond the broad phase's reach at its end.
    pub forced: bool,
}

impl Pair {
    /// Whether the pair touches (for the event log).
    pub(super) fn is_touching(&self) -> bool {
        self.touches
    }

    /// Whether the pair is in contact: its near points are in the step
    /// problem and the bounds leave them out.
    pub(super) fn in_contact(&self) -> bool {
        self.contact.is_some()
    }
}

/// The geometry of every pair at one state, and the scratch memory that
/// computes it.
#[derive(Debug, Default)]
pub(super) struct PairGeometry {
    /// The pairs, sorted by `(a, b)`.
    pub pairs: Vec<Pair>,
    /// Per body, the distance (m) its bounding sphere was grown by, beyond
    /// the contact band, when the pairs were found.
    pub reach: Vec<f64>,
    points: Vec<DVec3>,
}

/// How pairs are measured.
#[derive(Clone, Copy, Debug)]
pub(super) struct Measure {
    /// Within this distance (m) a pair touches.
    pub touch: f64,
    /// Within this distance (m) of the deepest one, a touching pair's
    /// points are its contact (features are named with it too).
    pub band: f64,
    /// Pairs whose bounding spheres are farther apart than this (m) keep
    /// the spheres' gap as their lower-bound distance.
    pub cull: f64,
}

impl PairGeometry {
    /// Measures the `candidates` (sorted `(a, b)`, `a < b`) of `bodies` at
    /// `poses`, skipping those with no dynamic body and the `jointed` pairs
    /// (sorted); the `held` pairs (sorted) touch anywhere within the contact
    /// band.
    #[allow(clippy::too_many_arguments)] // the state, the pairs, the rules
    pub(super) fn measure(
        &mut self,
        generator: &mut ManifoldGenerator,
        bodies: &[RigidBody],
        poses: &[Pose],
        candidates: &[(usize, usize)],
        jointed: &[(usize, usize)],
        held: &[(usize, usize)],
        measure: Measure,
    ) -> Result<(), SimError> {
        self.pairs.clear();
        self.points.clear();
        self.add(
            generator, bodies, poses, candidates, jointed, held, measure, false,
        )
    }

    /// Measures the `candidates` (sorted) not yet among the pairs, as
    /// [`measure`](Self::measure) does, marked `forced` as asked, and keeps
    /// the pairs sorted.
    #[allow(clippy::too_many_arguments)] // measure's, and the mark
    pub(super) fn add(
        &mut self,
        generator: &mut ManifoldGenerator,
        bodies: &[RigidBody],
        poses: &[Pose],
        candidates: &[(usize, usize)],
        jointed: &[(usize, usize)],
        held: &[(usize, usize)],
        measure: Measure,
        forced: bool,
    ) -> Result<(), SimError> {
        let known = self.pairs.len();
        for &(a, b) in candidates {
            if !bodies[a].is_dynamic() && !bodies[b].is_dynamic()
                || jointed.binary_search(&(a, b)).is_ok()
                || self.pairs[..known]
                    .binary_search_by(|p| (p.a, p.b).cmp(&(a, b)))
                    .is_ok()
            {
                continue;
            }
            let holds = held.binary_search(&(a, b)).is_ok();
            let mut pair = self.pair(generator, bodies, poses, (a, b), holds, measure)?;
            pair.forced = forced;
            self.pairs.push(pair);
        }
        if known > 0 && self.pairs.len() > known {
            self.pairs.sort_unstable_by_key(|p| (p.a, p.b));
        }
        Ok(())
    }

    /// Replaces pair `index`'s lower-bound distance by the exact one.
    pub(super) fn refine(
        &mut self,
        index: usize,
        generator: &mut ManifoldGenerator,
        bodies: &[RigidBody],
        poses: &[Pose],
        measure: Measure,
    ) -> Result<(), SimError> {
        let Pair {
            a,
            b,
            covered,
            forced,
            ..
        } = self.pairs[index];
        let measure = Measure {
            cull: f64::INFINITY,
            ..measure
        };
        self.pairs[index] = Pair {
            covered,
            forced,
            ..self.pair(generator, bodies, poses, (a, b), false, measure)?
        };
        Ok(())
    }

    fn pair(
        &mut self,
        generator: &mut ManifoldGenerator,
        bodies: &[RigidBody],
        poses: &[Pose],
        (a, b): (usize, usize),
        held: bool,
        measure: Measure,
    ) -> Result<Pair, SimError> {
        let (shape_a, shape_b) = (&bodies[a].shape, &bodies[b].shape);
        let (pose_a, pose_b) = (&poses[a], &poses[b]);
        let geometry = |source| SimError::Geometry {
            body_a: a,
            body_b: b,
            source,
        };
        let mut pair = Pair {
            a,
            b,
            distance: 0.0,
            normal: DVec3::Z,
            exact: false,
            features: [Feature::Unknown; 2],
            contact: None,
            touches: false,
            closest: [DVec3::ZERO; 2],
            supports: None,
            kind: BoundKind::Mirtich,
            bound: f64::INFINITY,
            rate: 0.0,
            arrival: f64::INFINITY,
            covered: -1.0,
            forced: false,
        };
        if let Some((gap, normal)) = sphere_gap(shape_a, pose_a, shape_b, pose_b)
            && gap > measure.cull
        {
            pair.distance = gap;
            pair.normal = normal;
            return Ok(pair);
        }
        let proximity = generator
            .proximity(shape_a, pose_a, shape_b, pose_b, measure.band)
            .map_err(geometry)?;
        pair.distance = proximity.distance;
        pair.normal = proximity.normal;
        pair.exact = true;
        pair.features = [proximity.feature_a, proximity.feature_b];
        pair.closest = [proximity.point_a, proximity.point_b];
        let supports = [
            self.push_support(shape_a, pose_a),
            self.push_support(shape_b, pose_b),
        ];
        pair.supports = Some(supports);
        // Two polytopes near contact are measured by the separating-axis
        // test instead: GJK can report a hair apart a pair that overlaps by
        // a nanometre, while the test's separation is exact when they
        // overlap and never above the distance when they do not (a valid
        // distance for eq. 4 along its axis).
        let mut plane = None;
        if is_polytope(shape_a) && is_polytope(shape_b) {
            plane = generator
                .separating_plane(shape_a, pose_a, shape_b, pose_b, NEAR)
                .map_err(geometry)?;
            if let Some(near) = plane {
                pair.distance = near.separation;
                pair.normal = near.normal;
            }
        }
        pair.touches = pair.distance <= measure.touch || held && pair.distance <= measure.band;
        if pair.distance > measure.band {
            return Ok(pair);
        }
        if plane.is_none() {
            let tolerance = measure.band + pair.distance.abs();
            plane = generator
                .separating_plane(shape_a, pose_a, shape_b, pose_b, tolerance)
                .map_err(geometry)?;
        }
        let Some(plane) = plane else {
            // Within the touch distance the best axis is within it of zero:
            // the plane exists. Kept as a separated pair if not.
            return Ok(pair);
        };
        pair.normal = plane.normal;
        let n = plane.normal;
        let points = |support: Support| &self.points[support.start..support.end];
        let level_a = points(supports[0])
            .iter()
            .map(|&x| n.dot(x))
            .fold(f64::NEG_INFINITY, f64::max)
            + supports[0].radius;
        let level_b = points(supports[1])
            .iter()
            .map(|&x| n.dot(x))
            .fold(f64::INFINITY, f64::min)
            - supports[1].radius;
        pair.contact = Some(Contact {
            kind: plane.kind,
            level_a,
            level_b,
        });
        Ok(pair)
    }

    /// Appends the support points of a shape at `pose` (see `Support`).
    fn push_support(&mut self, shape: &Shape, pose: &Pose) -> Support {
        let start = self.points.len();
        let (radius, vertices) = match shape {
            Shape::Cuboid { half_extents } => {
                for id in 0..8 {
                    let sign = |bit: u32| if id & (1 << bit) == 0 { 1.0 } else { -1.0 };
                    let local = DVec3::new(sign(0), sign(1), sign(2)) * *half_extents;
                    self.points.push(pose.transform_point(local));
                }
                (0.0, true)
            }
            Shape::Polytope(p) => {
                self.points
                    .extend(p.vertices().iter().map(|&v| pose.transform_point(v)));
                (0.0, true)
            }
            Shape::Sphere { radius } => {
                self.points.push(pose.translation);
                (*radius, false)
            }
            Shape::HalfSpace { .. } => {
                self.points.push(pose.translation);
                (0.0, false)
            }
        };
        Support {
            start,
            end: self.points.len(),
            radius,
            vertices,
        }
    }

    /// Evaluates every pair's safe bound and approach rate under `motions`
    /// (see the module notes). Returns the index of the pair with the least
    /// bound.
    pub(super) fn evaluate(&mut self, motions: &Motions, measure: Measure) -> Option<usize> {
        let Measure { touch, band, .. } = measure;
        let mut least: Option<usize> = None;
        for index in 0..self.pairs.len() {
            let pair = &self.pairs[index];
            let (a, b, n) = (pair.a, pair.b, pair.normal);
            let rate = motions.speed_along(a, n) + motions.speed_along(b, -n);
            // The paper's bound: eq. 7-8 (eq. 15) touching, eq. 4 (with
            // eq. 11's speeds) apart.
            let (paper, paper_kind) = match (pair.contact, pair.supports) {
                (Some(t), Some([sa, sb])) => {
                    let (tilt_a, tilt_b) = (motions.tilt(a, n), motions.tilt(b, n));
                    let plane = |offset| SeparatingPlane {
                        normal: n,
                        offset,
                        separation: 0.0,
                        kind: t.kind,
                    };
                    let vertices = |s: Support| {
                        if s.vertices {
                            &self.points[s.start..s.end]
                        } else {
                            &[]
                        }
                    };
                    let bound =
                        touching_bound(&plane(t.level_a), vertices(sa), &[], tilt_a, tilt_b, band)
                            .min(touching_bound(
                                &plane(t.level_b),
                                &[],
                                vertices(sb),
                                tilt_a,
                                tilt_b,
                                band,
                            ));
                    (bound, BoundKind::Touching)
                }
                _ => {
                    let kind = if motions.is_link(a) || motions.is_link(b) {
                        BoundKind::Chain
                    } else {
                        BoundKind::Mirtich
                    };
                    let gap = (pair.distance - 0.5 * touch).max(0.0);
                    (
                        if rate > 0.0 {
                            gap / rate
                        } else {
                            f64::INFINITY
                        },
                        kind,
                    )
                }
            };
            // The second-order bound, for the constant-twist motion itself.
            let second = pair.supports.map_or(0.0, |[sa, sb]| {
                let side = |s: Support, body| MovingSupport {
                    points: &self.points[s.start..s.end],
                    radius: s.radius,
                    motion: motions.twist_motion(body),
                };
                let (side_a, side_b) = (side(sa, a), side(sb, b));
                let horizon = motions.horizon();
                if pair.in_contact() {
                    second_order_bound(n, &side_a, &side_b, Some(band), horizon)
                } else {
                    // Aim to land half the touch distance apart: the gap
                    // the bound closes is shrunk by that much.
                    let aim = MovingSupport {
                        radius: side_b.radius + 0.5 * touch,
                        ..side_b
                    };
                    second_order_bound(n, &side_a, &aim, None, horizon)
                }
            });
            let (bound, kind) = if second > paper {
                (second, BoundKind::SecondOrder)
            } else {
                (paper, paper_kind)
            };
            // In contact but not yet touching: the gap rows stop the pair at
            // contact, and a step should end when the closest points' own
            // approach says it arrives, so the touch is logged on time.
            let mut arrival = f64::INFINITY;
            if pair.in_contact() && !pair.touches {
                let [pa, pb] = pair.closest;
                let closing = motions.twist_motion(a).normal_speed(pa, n)
                    - motions.twist_motion(b).normal_speed(pb, n);
                if closing > 0.0 {
                    arrival = (pair.distance - 0.5 * touch).max(0.0) / closing;
                }
            }
            let pair = &mut self.pairs[index];
            pair.rate = rate;
            pair.bound = bound;
            pair.kind = kind;
            pair.arrival = arrival;
            if least.is_none_or(|l| bound < self.pairs[l].bound) {
                least = Some(index);
            }
        }
        least
    }

    /// The pair of bodies `(a, b)`, if watched.
    pub(super) fn find(&self, a: usize, b: usize) -> Option<&Pair> {
        self.pairs
            .binary_search_by(|p| (p.a, p.b).cmp(&(a, b)))
            .ok()
            .map(|i| &self.pairs[i])
    }
}

/// A pair with its support points, and each side's radius and kind.
#[cfg(test)]
type Resolved = (Pair, Vec<DVec3>, Vec<(f64, bool)>);

#[cfg(test)]
impl PairGeometry {
    /// Pair `(a, b)`, if watched, with its support points (and each
    /// side's radius and kind) in place of their range of the point
    /// buffer: comparable between measurements that took pairs in other
    /// orders.
    pub(super) fn resolved(&self, a: usize, b: usize) -> Option<Resolved> {
        let pair = *self.find(a, b)?;
        let mut points = Vec::new();
        let mut sides = Vec::new();
        for support in pair.supports.into_iter().flatten() {
            points.extend_from_slice(&self.points[support.start..support.end]);
            sides.push((support.radius, support.vertices));
        }
        Some((
            Pair {
                supports: None,
                ..pair
            },
            points,
            sides,
        ))
    }
}

/// Below this separation (m) two polytopes are measured by the
/// separating-axis test (see `PairGeometry::pair`).
const NEAR: f64 = 1e-6;

/// Whether a shape is a cuboid or a polytope.
fn is_polytope(shape: &Shape) -> bool {
    matches!(shape, Shape::Cuboid { .. } | Shape::Polytope(_))
}

/// The gap (m) between the bounding spheres of two bounded shapes, or
/// between a bounded shape's sphere and a half-space, with the unit
/// direction from a to b along which the separation is at least that gap.
/// `None` for two half-spaces.
fn sphere_gap(a: &Shape, pose_a: &Pose, b: &Shape, pose_b: &Pose) -> Option<(f64, DVec3)> {
    let half_space = |shape: &Shape, pose: &Pose| match shape {
        Shape::HalfSpace { normal } => Some(pose.transform_vector(*normal)),
        _ => None,
    };
    match (half_space(a, pose_a), half_space(b, pose_b)) {
        (None, None) => {
            let between = pose_b.translation - pose_a.translation;
            let length = between.length();
            let gap = length - a.bounding_radius() - b.bounding_radius();
            (length > 0.0).then(|| (gap, between / length))
        }
        (Some(n), None) => Some((
            n.dot(pose_b.translation - pose_a.translation) - b.bounding_radius(),
            n,
        )),
        (None, Some(n)) => Some((
            n.dot(pose_a.translation - pose_b.translation) - a.bounding_radius(),
            -n,
        )),
        (Some(_), Some(_)) => None,
    }
}
