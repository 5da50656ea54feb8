//! Conservative advancement (Drumwright 2016, Algorithm 1): steps as long
//! as the bodies' motion allows without missing a change of any contact
//! manifold, never shorter than a minimum, never longer than a maximum.
//!
//! One step from state `(q, v)` at time `t`:
//!
//! 1. **Pairs.** Every pair of bodies (not joined by a joint, one at least
//!    dynamic) that the broad phase finds within reach of each other is
//!    measured at `q` (`pairs.rs`): signed distance and closest direction,
//!    and for touching pairs (within the touch distance) the separating
//!    plane and the vertices. The broad phase (`broad_phase.rs`, the
//!    uniform grid, `O(N log N)`) leaves out only pairs too far apart to
//!    limit or join the step.
//! 2. **Bound.** Each pair's safe bound under a motion (`motion.rs`):
//!    Mirtich's eq. 4 for separated pairs, eq. 7-8 for touching ones, with
//!    the multibody speeds and tilt of eq. 11-15 for links of jointed
//!    chains. The trial step is the least bound under the predicted motion
//!    (`v` plus gravity over the longest step), clamped to the minimum and
//!    maximum steps.
//! 3. **Velocity step.** The dynamics layer's step of that length
//!    (`TimeStepping::step`: free flight, every contact's, joint's and force
//!    element's rows, the LCP, positions moved with the new twists,
//!    stabilisation), with the contacts of the touching pairs and of any pair
//!    whose bound is shorter than the step (speculative: their gap rows stop
//!    them at contact). A body no row touches moves along its exact flight
//!    under the step's constant loads: by the mean of its start and end
//!    twists, which the velocity step's first-order update (the end twist)
//!    is not; first contacts then match the closed-form flight.
//! 4. **Check.** The bounds again, under the motion the step actually took:
//!    a pair whose bound is shorter than the step and whose points were not
//!    in the step problem sends the step back, shorter. Then every pair is
//!    measured at the new state: one deeper than the penetration tolerance
//!    sends it back at half the length. So the guarantee (no signed distance
//!    below `-penetration_tolerance` after any step) holds by construction,
//!    and the bounds make the retries rare.
//! 5. **Commit and log.** The world takes the new state; every change of a
//!    manifold (a pair touching, separating, or touching by other features)
//!    is logged with its time, bodies, features and kind; the step enters
//!    the statistics.
//!
//! Drumwright's sec. 3.2 bounds how long contact points stay on the plane.
//! In a velocity-level step the twists are constant over the step, so a
//! contact point leaves the plane only where the step's impulses give it a
//! separating velocity, at the start of the step: the step's LCP decides
//! it, the change shows in the next measurement, and no bound is needed
//! within the step. The points that stay are held by their rows, up to the
//! second-order drift of a turning body, which the check of step 4 bounds.

mod broad_phase;
mod events;
mod memory;
mod motion;
mod pairs;
mod params;
mod statistics;

pub use events::{CaEvent, CaEventKind};
pub use memory::CaMemory;
pub use params::{CaError, CaParams};
pub use statistics::{HISTOGRAM_DECADES, StepLimit, StepStatistics};

use contact_dynamics::{ContactConstraint, RigidBody, StepInput, StepSolution, TimeStepping};
use contact_geometry::{ContactManifold, ManifoldGenerator, Shape};
use contact_math::{Pose, Twist, integrate_pose};

use crate::{SimError, World};
use motion::Motions;
use pairs::{Measure, PairGeometry};

/// The drift limit aims at this fraction of the penetration tolerance.
const DRIFT_TARGET: f64 = 0.5;
/// How many trials a step may take before giving up with
/// [`CaError::CannotAdvance`].
const MAX_TRIALS: usize = 64;
/// A retried step is this fraction of the bound that sent it back, so the
/// twists of the shorter step (a little different) still fit.
const RETRY_FRACTION: f64 = 0.98;
/// A pair taken into the step problem because its bound is shorter than
/// the step brings its points within this many times its reach over the
/// step, so the twists of the step itself (a little different from the
/// prediction) are still covered.
const SPECULATIVE_SLACK: f64 = 2.0;

/// What one step did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CaStepReport {
    /// The step taken (s).
    pub h: f64,
    /// The least safe bound under the step's motion over the pairs the
    /// broad phase found (s; `+inf` when nothing limits it); every pair it
    /// left out has a bound beyond the step.
    pub bound: f64,
    /// The pair with that bound, `(a, b)` with `a < b`.
    pub limiting_pair: Option<(usize, usize)>,
    /// What set the step's length.
    pub limit: StepLimit,
    /// Contact points in the step problem.
    pub contacts: usize,
    /// The least signed distance of any pair the broad phase found after
    /// the step, or the lower bound kept for a far one (m; `+inf` without
    /// pairs): every negative distance is among them.
    pub min_distance: f64,
    /// Trials sent back before this one was taken.
    pub retries: usize,
    /// Manifold changes this step logged.
    pub manifold_events: usize,
}

/// Advances a [`World`] by conservative advancement (see the module notes);
/// owns all per-step memory, the event log and the step statistics.
#[derive(Debug)]
pub struct CaStepper {
    params: CaParams,
    dynamics: TimeStepping,
    generator: ContactScratch,
    motions: Motions,
    start: PairGeometry,
    trial: PairGeometry,
    jointed: Vec<(usize, usize)>,
    /// Pairs touching at the end of the last step whose contact points did
    /// not separate (sorted): they stay touching within the contact band.
    held: Vec<(usize, usize)>,
    next_held: Vec<(usize, usize)>,
    contacts: Vec<ContactConstraint>,
    /// The broad phase, and the pairs touching at a step's start (scratch).
    broad: broad_phase::SpherePairs,
    touching: Vec<(usize, usize)>,
    solution: StepSolution,
    start_poses: Vec<Pose>,
    poses: Vec<Pose>,
    twists: Vec<Twist>,
    constrained: Vec<bool>,
    events: Vec<CaEvent>,
    statistics: StepStatistics,
    /// The poses and shapes the last step left, and its jointed pairs:
    /// while the world still has them, the last step's end measurement
    /// (now in `start`) is the next step's start.
    left: Vec<(Pose, Shape)>,
    left_jointed: Vec<(usize, usize)>,
    /// The second-order sinking of touching contact points per squared
    /// second (m/s^2), measured over the last steps (see `step_within`).
    drift: f64,
    /// The cull distance `start` was measured with (`None`: not measured).
    start_cull: Option<f64>,
}

/// The manifold generator and its output buffer.
#[derive(Debug, Default)]
struct ContactScratch {
    generator: ManifoldGenerator,
    manifold: ContactManifold,
}

impl CaStepper {
    /// A stepper with the given settings.
    ///
    /// # Errors
    /// As [`CaParams::validate`].
    pub fn new(params: CaParams) -> Result<Self, SimError> {
        params.validate()?;
        Ok(Self {
            params,
            dynamics: TimeStepping::new(params.dynamics),
            generator: ContactScratch::default(),
            motions: Motions::default(),
            start: PairGeometry::default(),
            trial: PairGeometry::default(),
            jointed: Vec::new(),
            held: Vec::new(),
            next_held: Vec::new(),
            contacts: Vec::new(),
            broad: broad_phase::SpherePairs::default(),
            touching: Vec::new(),
            solution: StepSolution::default(),
            start_poses: Vec::new(),
            poses: Vec::new(),
            twists: Vec::new(),
            constrained: Vec::new(),
            events: Vec::new(),
            statistics: StepStatistics::default(),
            left: Vec::new(),
            left_jointed: Vec::new(),
            drift: 0.0,
            start_cull: None,
        })
    }

    /// The settings in use.
    #[must_use]
    pub fn params(&self) -> &CaParams {
        &self.params
    }

    /// Every event logged so far, in time order.
    #[must_use]
    pub fn events(&self) -> &[CaEvent] {
        &self.events
    }

    /// Empties the event log (the statistics keep their counts).
    pub fn clear_events(&mut self) {
        self.events.clear();
    }

    /// The step statistics so far.
    #[must_use]
    pub fn statistics(&self) -> &StepStatistics {
        &self.statistics
    }

    /// Starts the statistics afresh.
    pub fn reset_statistics(&mut self) {
        self.statistics = StepStatistics::default();
    }

    /// The contact constraints of the last step's problem.
    #[must_use]
    pub fn contacts(&self) -> &[ContactConstraint] {
        &self.contacts
    }

    /// The velocities, poses, impulses and reactions of the last step (the
    /// poses before the exact flight of bodies no row touched).
    #[must_use]
    pub fn solution(&self) -> &StepSolution {
        &self.solution
    }

    /// Advances `world` by one step (see the module notes) and clears every
    /// body's applied loads.
    ///
    /// On error the world is left exactly as it was.
    ///
    /// # Errors
    /// [`CaError::InitialPenetration`] when two bodies already overlap
    /// deeper than the tolerance; [`CaError::CannotAdvance`] when even the
    /// minimum step breaks the guarantee; [`SimError::Geometry`] or
    /// [`SimError::Dynamics`] as [`FixedStepper::step`](crate::FixedStepper::step).
    pub fn step(&mut self, world: &mut World) -> Result<CaStepReport, SimError> {
        self.step_within(world, f64::INFINITY)
    }

    /// Steps `world` forward by `duration` seconds (finite, >= 0), the last
    /// step shortened to land on the end time (it may then be shorter than
    /// the minimum step). Returns the number of steps.
    ///
    /// # Errors
    /// [`SimError::InvalidParameter`] (`duration`); as [`CaStepper::step`].
    pub fn advance(&mut self, world: &mut World, duration: f64) -> Result<usize, SimError> {
        if !(duration.is_finite() && duration >= 0.0) {
            return Err(SimError::InvalidParameter {
                name: "duration",
                value: duration,
            });
        }
        let end = world.time() + duration;
        let slack = 4.0 * f64::EPSILON * end.abs().max(1.0);
        let mut steps = 0;
        while end - world.time() > slack {
            self.step_within(world, end - world.time())?;
            steps += 1;
        }
        Ok(steps)
    }

    /// One step no longer than `limit`.
    fn step_within(&mut self, world: &mut World, limit: f64) -> Result<CaStepReport, SimError> {
        let params = self.params;
        let time = world.time();
        let h_cap = params.max_step.min(limit);
        let limit_end = if limit < params.max_step {
            limit
        } else {
            f64::INFINITY
        };
        self.prepare(world, h_cap)?;
        let bodies = world.bodies();
        // The predicted motion: the start twists, plus gravity over the
        // longest step for a body nothing supports (no touching pair, no
        // joint); a supported body's weight is mostly carried.
        self.constrained.clear();
        self.constrained.resize(bodies.len(), false);
        for pair in self.start.pairs.iter().filter(|p| p.in_contact()) {
            self.constrained[pair.a] = true;
            self.constrained[pair.b] = true;
        }
        for joint in world.joints() {
            self.constrained[joint.body_b] = true;
            if let Some(a) = joint.body_a {
                self.constrained[a] = true;
            }
        }
        self.twists.clear();
        self.twists
            .extend(bodies.iter().zip(&self.constrained).map(|(b, &supported)| {
                match (b.is_dynamic(), supported) {
                    (false, _) => Twist::ZERO,
                    (true, true) => b.twist,
                    (true, false) => {
                        Twist::new(b.twist.linear + world.gravity * h_cap, b.twist.angular)
                    }
                }
            }));
        let (predicted, predicted_pair) = self.least_bound(world, h_cap)?;
        // The pair by its bodies: `fit_reach` may insert pairs before the
        // index is read.
        let predicted_pair = predicted_pair.map(|i| (self.start.pairs[i].a, self.start.pairs[i].b));
        let mut bound = predicted;
        // Contact points of a turning body sink at second order over a
        // velocity step (their rows hold them to first order); the last
        // steps' measure of it keeps the next within the tolerance.
        let drift_step = if self.drift > 0.0 {
            (DRIFT_TARGET * params.penetration_tolerance / self.drift).sqrt()
        } else {
            f64::INFINITY
        };
        let arrival = self
            .start
            .pairs
            .iter()
            .map(|p| p.arrival)
            .fold(f64::INFINITY, f64::min);
        let mut h = bound
            .min(drift_step)
            .max(params.min_step)
            .min(arrival)
            .min(h_cap);
        let mut retries = 0;
        let mut limiting;
        let mut trial_cull;
        loop {
            if retries >= MAX_TRIALS {
                return Err(self.cannot_advance(time, h, bound));
            }
            self.collect_contacts(world.bodies(), h)?;
            let input = StepInput {
                bodies: world.bodies(),
                contacts: &self.contacts,
                joints: world.joints(),
                forces: world.forces(),
                gravity: world.gravity,
                time,
            };
            self.dynamics.step(&input, h, &mut self.solution)?;
            self.exact_flight(world.bodies(), h);
            (bound, limiting) = self.least_bound(world, h)?;
            if let Some(shorter) = self.uncovered(h) {
                retries += 1;
                self.statistics.retries += 1;
                h = (RETRY_FRACTION * shorter).max(params.min_step).min(h);
                continue;
            }
            let measure = Measure {
                cull: self.cull_distance(world, h_cap),
                ..self.measure()
            };
            trial_cull = measure.cull;
            self.hold_contacts(world.bodies(), h);
            self.measure_trial(world, measure)?;
            let deepest = self
                .trial
                .pairs
                .iter()
                .filter(|p| p.exact)
                .map(|p| p.distance)
                .fold(f64::INFINITY, f64::min);
            if deepest < -params.penetration_tolerance {
                if h <= params.min_step {
                    return Err(self.cannot_advance(time, h, bound));
                }
                retries += 1;
                self.statistics.retries += 1;
                // The sinking grows with h^2: aim below the tolerance.
                self.drift = self.drift.max(self.sinking(h));
                let aim = (DRIFT_TARGET * params.penetration_tolerance / -deepest).sqrt();
                h = (aim.clamp(0.1, 0.7) * h).max(params.min_step);
                continue;
            }
            break;
        }
        self.drift = self.sinking(h).max(0.5 * self.drift);
        self.commit(world, h);
        std::mem::swap(&mut self.held, &mut self.next_held);
        let min_distance = self
            .trial
            .pairs
            .iter()
            .map(|p| p.distance)
            .fold(f64::INFINITY, f64::min);
        // A minimum step taken because a bound (predicted, or under the
        // step's own motion) was shorter.
        let limiting_key = limiting.map(|i| (self.start.pairs[i].a, self.start.pairs[i].b));
        let (short, short_pair) = if predicted < bound {
            (predicted, predicted_pair)
        } else {
            (bound, limiting_key)
        };
        let floored = h > short && h <= params.min_step;
        if floored && let Some(pair) = short_pair.and_then(|(a, b)| self.start.find(a, b)) {
            self.events.push(CaEvent {
                time,
                body_a: pair.a,
                body_b: pair.b,
                kind: CaEventKind::MinimumStep { bound: short },
                features: pair.features,
                contact: pair.contact.map(|t| t.kind),
                distance: pair.distance,
            });
        }
        let manifold_events =
            events::manifold_changes(&self.start, &self.trial, world.time(), &mut self.events);
        let limit = if h >= limit_end {
            StepLimit::End
        } else if h >= params.max_step {
            StepLimit::MaxStep
        } else if h >= arrival && arrival < bound {
            StepLimit::Arrival
        } else if h >= drift_step.min(h_cap) && drift_step < bound {
            StepLimit::Drift
        } else {
            limiting.map_or(StepLimit::MaxStep, |i| self.start.pairs[i].kind)
        };
        self.statistics.record_step(h, limit, min_distance, floored);
        self.statistics.record_events(world.time(), manifold_events);
        let report = CaStepReport {
            h,
            bound,
            limiting_pair: limiting_key,
            limit,
            contacts: self.contacts.len(),
            min_distance,
            retries,
            manifold_events,
        };
        // The end measurement is the next start while the world keeps
        // these poses, shapes and joints.
        std::mem::swap(&mut self.start, &mut self.trial);
        // The pairs kept only for the event log are beyond the broad
        // phase's reach: the next step finds its own.
        self.start.pairs.retain(|p| !p.forced);
        self.start_cull = Some(trial_cull);
        self.left.clear();
        self.left
            .extend(world.bodies().iter().map(|b| (b.pose, b.shape.clone())));
        self.left_jointed.clone_from(&self.jointed);
        Ok(report)
    }

    /// The joint graph, the jointed pairs and the pairs at the start state
    /// (the last step's end measurement if the world still has its poses,
    /// shapes and joints); refuses a start that already breaks the
    /// guarantee.
    fn prepare(&mut self, world: &World, h_cap: f64) -> Result<(), SimError> {
        let bodies = world.bodies();
        jointed_pairs(world, &mut self.jointed);
        self.motions.build(bodies, world.joints());
        self.start_poses.clear();
        self.start_poses.extend(bodies.iter().map(|b| b.pose));
        if self.start_matches(bodies, &self.jointed) {
            return Ok(());
        }
        let cull = self.cull_distance(world, h_cap);
        self.start_cull = Some(cull);
        self.measure_start(world, cull)
    }

    /// Refuses a start that already breaks the guarantee.
    fn check_start(&self) -> Result<(), SimError> {
        match self
            .start
            .pairs
            .iter()
            .find(|p| p.exact && p.distance < -self.params.penetration_tolerance)
        {
            Some(pair) => Err(CaError::InitialPenetration {
                body_a: pair.a,
                body_b: pair.b,
                distance: pair.distance,
                tolerance: self.params.penetration_tolerance,
            }
            .into()),
            None => Ok(()),
        }
    }

    /// Whether `start` is the measurement of `bodies` (poses, shapes) with
    /// these `jointed` pairs: what the last step left, unchanged since.
    fn start_matches(&self, bodies: &[RigidBody], jointed: &[(usize, usize)]) -> bool {
        self.left.len() == bodies.len()
            && self.left_jointed == jointed
            && self
                .left
                .iter()
                .zip(bodies)
                .all(|((pose, shape), body)| *pose == body.pose && *shape == body.shape)
    }

    /// Whether `start` is the measurement of `world` as it is.
    fn start_is_current(&self, world: &World) -> bool {
        let mut jointed = Vec::new();
        jointed_pairs(world, &mut jointed);
        self.start_matches(world.bodies(), &jointed)
    }

    /// How pairs are measured (cull distance unset).
    fn measure(&self) -> Measure {
        Measure {
            touch: self.params.touch_distance,
            band: self.params.contact_band,
            cull: f64::INFINITY,
        }
    }

    /// Bounding spheres farther apart than this (m) cannot meet within
    /// `h_cap` at the bodies' current speeds (twice over, for the speeds
    /// the step may add): such pairs keep the spheres' gap as their
    /// distance, which still gives a valid, if loose, bound.
    fn cull_distance(&self, world: &World, h_cap: f64) -> f64 {
        let gravity_reach = world.gravity.length() * h_cap;
        let fastest = world
            .bodies()
            .iter()
            .filter(|b| b.is_dynamic())
            .map(|b| {
                b.twist.linear.length()
                    + b.twist.angular.length() * b.shape.bounding_radius()
                    + gravity_reach
            })
            .fold(0.0, f64::max);
        self.params.touch_distance + 4.0 * fastest * h_cap + 1e-3
    }

    /// Evaluates every pair's bound under the motion `self.twists` (over a
    /// step of at most `horizon`), measuring exactly any pair whose loose
    /// bound would limit the step. Returns the least bound and its pair.
    fn least_bound(
        &mut self,
        world: &World,
        horizon: f64,
    ) -> Result<(f64, Option<usize>), SimError> {
        let bodies = world.bodies();
        self.motions
            .update(bodies, world.joints(), &self.twists, horizon);
        self.fit_reach(bodies)?;
        let measure = self.measure();
        loop {
            let least = self.start.evaluate(&self.motions, measure);
            let mut refined = false;
            for index in 0..self.start.pairs.len() {
                let pair = &self.start.pairs[index];
                if !pair.exact && pair.bound < horizon {
                    self.start.refine(
                        index,
                        &mut self.generator.generator,
                        bodies,
                        &self.start_poses,
                        measure,
                    )?;
                    refined = true;
                }
            }
            if !refined {
                return Ok(least.map_or((f64::INFINITY, None), |index| {
                    (self.start.pairs[index].bound, Some(index))
                }));
            }
        }
    }

    /// The contact constraints of a step of `h`: the points of every
    /// touching pair, and of every pair whose bound is shorter than `h`,
    /// within the distance they can close in the step.
    fn collect_contacts(&mut self, bodies: &[RigidBody], h: f64) -> Result<(), SimError> {
        self.contacts.clear();
        let band = self.params.contact_band;
        for pair in &mut self.start.pairs {
            let limits = pair.bound < h;
            if !(pair.in_contact() || limits) || !pair.exact {
                pair.covered = -1.0;
                continue;
            }
            let reach = if limits {
                SPECULATIVE_SLACK * pair.rate * h
            } else {
                0.0
            };
            // The points within the contact band of the deepest one (those
            // the bounds skip as the contact), and those the step may bring.
            let margin = (pair.distance + band + reach).max(0.0);
            pair.covered = margin;
            let (body_a, body_b) = (&bodies[pair.a], &bodies[pair.b]);
            let scratch = &mut self.generator;
            scratch
                .generator
                .compute(
                    &body_a.shape,
                    &self.start_poses[pair.a],
                    &body_b.shape,
                    &self.start_poses[pair.b],
                    margin,
                    &mut scratch.manifold,
                )
                .map_err(|source| SimError::Geometry {
                    body_a: pair.a,
                    body_b: pair.b,
                    source,
                })?;
            // The collision pass's rule: friction the geometric mean,
            // restitution the larger.
            let friction = (body_a.friction() * body_b.friction()).sqrt();
            let restitution = body_a.restitution().max(body_b.restitution());
            let normal = scratch.manifold.normal;
            self.contacts.extend(
                scratch
                    .manifold
                    .points
                    .iter()
                    .map(|point| ContactConstraint {
                        body_a: pair.a,
                        body_b: pair.b,
                        point: point.midpoint(),
                        normal,
                        distance: point.distance,
                        friction,
                        restitution,
                        features: [point.feature_a, point.feature_b],
                    }),
            );
        }
        Ok(())
    }

    /// The touching pairs that stay touching after a step of `h`: those
    /// with a contact point whose end-of-step normal velocity does not
    /// open the touch distance within the step (Drumwright sec. 3.2: a
    /// point leaves the plane by its velocity, not by the second-order
    /// drift a turning body's contact points have in a velocity step).
    fn hold_contacts(&mut self, bodies: &[RigidBody], h: f64) {
        self.next_held.clear();
        let leaving = self.params.touch_distance / h;
        let velocities = &self.solution.velocities;
        for contact in &self.contacts {
            let Some(pair) = self.start.find(contact.body_a, contact.body_b) else {
                continue;
            };
            if !pair.in_contact() || self.next_held.last() == Some(&(pair.a, pair.b)) {
                continue;
            }
            let at = |body: usize| {
                let twist = velocities[body];
                twist.linear
                    + twist
                        .angular
                        .cross(contact.point - bodies[body].pose.translation)
            };
            if contact.normal.dot(at(contact.body_b) - at(contact.body_a)) <= leaving {
                self.next_held.push((pair.a, pair.b));
            }
        }
    }

    /// The least bound of a pair that limits a step of `h` without its
    /// points in the step problem within the reach of the step's motion.
    fn uncovered(&self, h: f64) -> Option<f64> {
        let band = self.params.contact_band;
        self.start
            .pairs
            .iter()
            .filter(|pair| pair.bound < h && pair.covered < pair.distance + band + pair.rate * h)
            .map(|pair| pair.bound)
            .reduce(f64::min)
    }

    /// How fast (m/s^2, as a coefficient of `h^2`) the pairs touching at
    /// the start sank below contact over a step of `h` (a depth at the
    /// start is taken out by the step's stabilisation, so the depth at the
    /// end is the step's own).
    fn sinking(&self, h: f64) -> f64 {
        self.start
            .pairs
            .iter()
            .filter(|p| p.in_contact())
            .filter_map(|p| {
                let end = self.trial.find(p.a, p.b)?;
                let sunk = -end.distance;
                (end.exact && sunk > 0.0).then(|| sunk / (h * h))
            })
            .fold(0.0, f64::max)
    }

    /// The end poses and the step's motion twists: the velocity step's for
    /// every body a row touches (or an applied impulse kicks), the exact
    /// flight (mean twist) for the others.
    fn exact_flight(&mut self, bodies: &[RigidBody], h: f64) {
        self.constrained.clear();
        self.constrained.resize(bodies.len(), false);
        for row in self.solution.rows.rows() {
            for block in row.jacobian.blocks() {
                self.constrained[block.body] = true;
            }
        }
        self.poses.clear();
        self.twists.clear();
        for (i, body) in bodies.iter().enumerate() {
            let end = self.solution.velocities[i];
            let loads = body.applied_loads();
            let impulsive = loads.linear_impulse != glam::DVec3::ZERO
                || loads.angular_impulse != glam::DVec3::ZERO;
            if body.is_dynamic() && !self.constrained[i] && !impulsive {
                let mean = Twist::new(
                    0.5 * (body.twist.linear + end.linear),
                    0.5 * (body.twist.angular + end.angular),
                );
                self.poses.push(integrate_pose(&body.pose, &mean, h));
                self.twists.push(mean);
            } else {
                self.poses.push(self.solution.poses[i]);
                self.twists.push(end);
            }
        }
    }

    /// Takes the trial's state into the world.
    fn commit(&mut self, world: &mut World, h: f64) {
        for ((body, &pose), &twist) in world
            .bodies_mut()
            .iter_mut()
            .zip(&self.poses)
            .zip(&self.solution.velocities)
        {
            body.pose = pose;
            if body.is_dynamic() {
                body.twist = twist;
            }
            body.clear_applied_loads();
        }
        world.advance_clock(h);
    }

    /// The error for a step that cannot keep the guarantee.
    fn cannot_advance(&self, time: f64, h: f64, bound: f64) -> SimError {
        let deepest = self
            .trial
            .pairs
            .iter()
            .filter(|p| p.exact)
            .min_by(|p, q| p.distance.total_cmp(&q.distance));
        let (body_a, body_b, distance) =
            deepest.map_or((0, 0, f64::NAN), |p| (p.a, p.b, p.distance));
        CaError::CannotAdvance {
            time,
            body_a,
            body_b,
            distance,
            bound,
            min_step: h,
        }
        .into()
    }
}

/// The pairs `(a, b)`, `a < b`, a joint joins, sorted.
pub(super) fn jointed_pairs(world: &World, out: &mut Vec<(usize, usize)>) {
    out.clear();
    out.extend(world.joints().iter().filter_map(|joint| {
        joint
            .body_a
            .map(|a| (a.min(joint.body_b), a.max(joint.body_b)))
    }));
    out.sort_unstable();
}
