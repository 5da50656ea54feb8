//! Steps 3 and 4 of the event-driven stepper (see `mod.rs`): one ODE step
//! of the world's state, and the location of the first event in it.
//!
//! The state vector holds, per dynamic body, its centre of mass (3), its
//! rotation quaternion (4, `x y z w`), its linear and angular velocity (3
//! and 3): `x' = v`, `q' = (w, 0) q / 2`, `v' = a`, `w' = alpha`, with the
//! accelerations from the acceleration LCP at every stage. Quaternions are
//! normalised where a stage's rotation is used and when a step is kept.
//!
//! The event function of a step is `G(t) = min` over the pairs of the
//! watch value (the smallest gap no resting contact covers; less its start
//! value when that was negative, for a point that was leaving) divided by
//! `contact_tolerance`, and over the sliding contacts of the slip along its
//! direction at the step's start divided by `sticking_speed`. `G > 0`
//! before any event; the first root is located by the Illinois variant of
//! regula falsi (Dowell & Jarratt 1971), bisecting when the bracket stops
//! halving, each value from a state integrated afresh from the step's
//! start.

use contact_dynamics::{
    AccelerationInput, AccelerationProblem, AccelerationSolution, BodyState, DynamicsError,
    FrictionMode, TrackedContact,
};
use contact_math::{Pose, Twist};
use glam::{DQuat, DVec3};

use super::EventDrivenStepper;
use super::contacts::least_watch;
use crate::stepper::ode::{OdeMethod, next_step};
use crate::{SimError, World};

/// State components per dynamic body.
const SLOT: usize = 13;

/// A step ending with `G` below `-DETECTION` (in units of the tolerances)
/// has an event; a shallower dip is left to the next classification.
const DETECTION: f64 = 1e-6;

/// `G` at most this (in units of the tolerances: 1e-12 m by default) at a
/// step's start is a point touching there, not a positive margin.
const ROUND_OFF: f64 = 1e-6;

/// Steps in a row without progress in time (none longer than the event
/// tolerance) before giving up.
const MAX_STALLS: usize = 100;

impl EventDrivenStepper {
    /// One step towards `end`: classification, an ODE step, events.
    pub(super) fn step(&mut self, world: &mut World, end: f64) -> Result<(), SimError> {
        self.classify(world)?;
        let t0 = world.time();
        let remaining = end - t0;
        if remaining <= 0.0 {
            return Ok(());
        }
        self.pack(world);
        self.watch_start_values(world)?;
        let method = self.params.method;
        let mut h = match method {
            OdeMethod::Rk4 => self.params.max_step,
            OdeMethod::DormandPrince => self.next_step.min(self.params.max_step),
        }
        .min(remaining);
        loop {
            match self.attempt(world, t0, h) {
                Ok(error) if method == OdeMethod::DormandPrince && error > 1.0 => {
                    self.report.rejected_steps += 1;
                    h = next_step(h, error);
                    if h < self.params.min_step {
                        return Err(SimError::StepTooSmall {
                            time: t0,
                            step: h,
                            reason: "the error control asks for a step below min_step",
                        });
                    }
                }
                Ok(error) => {
                    if method == OdeMethod::DormandPrince {
                        self.next_step = next_step(h, error).min(self.params.max_step);
                    }
                    break;
                }
                Err(DynamicsError::Painleve { contact }) => {
                    self.report.rejected_steps += 1;
                    h *= 0.5;
                    if h < self.params.min_step {
                        // Consistent at the start, not an instant later.
                        self.load_states(world);
                        let _ = self.forces_at(world);
                        return self.impulsive_step(world, contact);
                    }
                }
                Err(other) => return Err(other.into()),
            }
        }
        let taken = self.locate(world, t0, h)?;
        self.commit(world, taken);
        // A step shorter than the event tolerance makes no progress: an
        // event that the next classification does not resolve would
        // otherwise repeat forever, each time a sliver later.
        self.stalls = if taken > self.params.event_tolerance {
            0
        } else {
            self.stalls + 1
        };
        if self.stalls > MAX_STALLS {
            return Err(SimError::StepTooSmall {
                time: t0,
                step: 0.0,
                reason: "events repeat without progress in time",
            });
        }
        self.report.steps += 1;
        self.report.shortest_step = self.report.shortest_step.min(taken);
        self.report.longest_step = self.report.longest_step.max(taken);
        Ok(())
    }

    /// One ODE step of `h` from `y0` into `y1`; the error norm for
    /// Dormand-Prince.
    fn attempt(&mut self, world: &World, t0: f64, h: f64) -> Result<f64, DynamicsError> {
        let tolerance =
            (self.params.method == OdeMethod::DormandPrince).then_some(self.params.tolerance);
        self.integrate(world, t0, h, tolerance, false)
    }

    /// Integrates from `y0` over `h` into `y1` (or `trial` when `trial`).
    fn integrate(
        &mut self,
        world: &World,
        t0: f64,
        h: f64,
        tolerance: Option<f64>,
        trial: bool,
    ) -> Result<f64, DynamicsError> {
        let Self {
            ode,
            params,
            slots,
            states,
            acceleration,
            resting,
            modes,
            solution,
            report,
            y0,
            y1,
            trial: trial_state,
            ..
        } = self;
        let slip_decay = 1.0 / params.max_step;
        let mut f = |t: f64, y: &[f64], dy: &mut [f64]| {
            report.evaluations += 1;
            let evaluation = Evaluation {
                world,
                slots,
                contacts: resting,
                modes,
                slip_decay,
            };
            evaluation.derivative(t, y, states, acceleration, solution, dy)
        };
        let out = if trial { trial_state } else { y1 };
        ode.step(&mut f, t0, y0, h, out, tolerance)
    }

    /// The step actually taken (`h`, or the time just before the first
    /// event), with its end state in `y1`.
    fn locate(&mut self, world: &World, t0: f64, h: f64) -> Result<f64, SimError> {
        let end_value = self.event_value(world, Which::End)?;
        if end_value >= -DETECTION {
            return Ok(h);
        }
        let start_value = self.event_value(world, Which::Start)?;
        // The bracket's lower end: the start, or, when a point touched
        // there (it was leaving, and G is round-off), the first of h / 2,
        // h / 4, ... where G is clearly positive (the point rose before it
        // came back).
        let (mut a, mut ga) = (0.0, start_value);
        self.before.clone_from(&self.y0);
        if ga <= ROUND_OFF {
            let mut tau = h;
            let found = loop {
                tau *= 0.5;
                if tau < self.params.event_tolerance {
                    break None;
                }
                let g = self.trial_value(world, t0, tau)?;
                if g > ROUND_OFF {
                    break Some((tau, g));
                }
            };
            let Some((tau, g)) = found else {
                // No positive point: the dip starts at once. Stop just
                // after the start; the next classification sees the point
                // approaching.
                self.report.location_iterations += 1;
                std::mem::swap(&mut self.y1, &mut self.trial);
                return Ok(tau);
            };
            (a, ga) = (tau, g);
            self.before.clone_from(&self.trial);
        }
        let (mut b, mut gb) = (h, end_value);
        let mut side = 0;
        let mut slow = 0;
        let mut iterations = 0;
        while b - a > self.params.event_tolerance && iterations < 200 {
            iterations += 1;
            let width = b - a;
            let mut c = (a * gb - b * ga) / (gb - ga);
            if slow >= 2 || !(c > a && c < b) {
                c = 0.5 * (a + b);
            }
            let gc = self.trial_value(world, t0, c)?;
            if gc > 0.0 {
                (a, ga) = (c, gc);
                self.before.clone_from(&self.trial);
                if side == 1 {
                    gb *= 0.5;
                }
                side = 1;
            } else {
                (b, gb) = (c, gc);
                if side == -1 {
                    ga *= 0.5;
                }
                side = -1;
            }
            slow = if b - a > 0.5 * width { slow + 1 } else { 0 };
        }
        self.report.location_iterations += iterations;
        std::mem::swap(&mut self.y1, &mut self.before);
        Ok(a)
    }

    /// `G` at the state integrated from `y0` over `tau` (an integration
    /// that meets no consistent forces counts as past an event).
    fn trial_value(&mut self, world: &World, t0: f64, tau: f64) -> Result<f64, SimError> {
        match self.integrate(world, t0, tau, None, true) {
            Ok(_) => self.event_value(world, Which::Trial),
            Err(DynamicsError::Painleve { .. }) => Ok(-1.0),
            Err(other) => Err(other.into()),
        }
    }

    /// The event function `G` (module comment) at a state.
    fn event_value(&mut self, world: &World, which: Which) -> Result<f64, SimError> {
        let y = match which {
            Which::Start => &self.y0,
            Which::End => &self.y1,
            Which::Trial => &self.trial,
        };
        unpack(world, &self.slots, y, &mut self.states);
        self.watch(world)?;
        let tolerance = self.params.contact_tolerance;
        let mut g = least_watch(
            world.bodies(),
            &self.watch_start,
            &self.watch_now,
            tolerance,
            tolerance,
        );
        for (contact, mode) in self.resting.iter().zip(&self.modes) {
            if let FrictionMode::Sliding { reference } = *mode {
                let slip = contact.kinematics(&self.states).slip;
                g = g.min(slip.dot(reference) / self.params.sticking_speed);
            }
        }
        Ok(g)
    }

    /// The watch values at `y0` into `watch_start`.
    fn watch_start_values(&mut self, world: &World) -> Result<(), SimError> {
        unpack(world, &self.slots, &self.y0, &mut self.states);
        self.watch(world)?;
        std::mem::swap(&mut self.watch_start, &mut self.watch_now);
        Ok(())
    }

    /// The watch values at `self.states` into `watch_now`.
    fn watch(&mut self, world: &World) -> Result<(), SimError> {
        self.covered.clear();
        for contact in &self.resting {
            let point = contact.kinematics(&self.states).point;
            self.covered.push(((contact.body_a, contact.body_b), point));
        }
        self.finder.watch(
            world.bodies(),
            &self.states,
            self.params.contact_tolerance,
            &self.covered,
            &mut self.watch_now,
        )
    }

    /// The dynamic bodies' states into `y0`.
    fn pack(&mut self, world: &World) {
        self.slots.clear();
        self.y0.clear();
        for (i, body) in world.bodies().iter().enumerate() {
            if !body.is_dynamic() {
                continue;
            }
            self.slots.push(i);
            let (x, q, t) = (body.pose.translation, body.pose.rotation, body.twist);
            self.y0.extend_from_slice(&[
                x.x,
                x.y,
                x.z,
                q.x,
                q.y,
                q.z,
                q.w,
                t.linear.x,
                t.linear.y,
                t.linear.z,
                t.angular.x,
                t.angular.y,
                t.angular.z,
            ]);
        }
    }

    /// `y1` into the world, `taken` seconds later.
    fn commit(&mut self, world: &mut World, taken: f64) {
        for (k, &i) in self.slots.iter().enumerate() {
            let (pose, twist) = slot(&self.y1[SLOT * k..SLOT * (k + 1)]);
            let body = &mut world.bodies_mut()[i];
            body.pose = pose;
            body.twist = twist;
        }
        world.advance_clock(taken);
    }
}

/// Which stored state an event value is taken at.
#[derive(Clone, Copy)]
enum Which {
    Start,
    End,
    Trial,
}

/// What the right-hand side reads.
struct Evaluation<'a> {
    world: &'a World,
    slots: &'a [usize],
    contacts: &'a [TrackedContact],
    modes: &'a [FrictionMode],
    slip_decay: f64,
}

impl Evaluation<'_> {
    /// `dy = f(t, y)` (module comment).
    fn derivative(
        &self,
        t: f64,
        y: &[f64],
        states: &mut Vec<BodyState>,
        problem: &mut AccelerationProblem,
        solution: &mut AccelerationSolution,
        dy: &mut [f64],
    ) -> Result<(), DynamicsError> {
        unpack(self.world, self.slots, y, states);
        let input = AccelerationInput {
            bodies: self.world.bodies(),
            states,
            contacts: self.contacts,
            modes: self.modes,
            forces: self.world.forces(),
            gravity: self.world.gravity,
            time: t,
            slip_decay: self.slip_decay,
        };
        problem.solve(&input, solution)?;
        for (k, &body) in self.slots.iter().enumerate() {
            let s = &y[SLOT * k..SLOT * (k + 1)];
            let q = DQuat::from_xyzw(s[3], s[4], s[5], s[6]);
            let w = DQuat::from_xyzw(s[10], s[11], s[12], 0.0);
            let rate = (w * q) * 0.5;
            let a = solution.accelerations[body];
            dy[SLOT * k..SLOT * (k + 1)].copy_from_slice(&[
                s[7],
                s[8],
                s[9],
                rate.x,
                rate.y,
                rate.z,
                rate.w,
                a.linear.x,
                a.linear.y,
                a.linear.z,
                a.angular.x,
                a.angular.y,
                a.angular.z,
            ]);
        }
        Ok(())
    }
}

/// Pose (rotation normalised) and twist of one slot.
fn slot(s: &[f64]) -> (Pose, Twist) {
    let rotation = DQuat::from_xyzw(s[3], s[4], s[5], s[6]).normalize();
    (
        Pose::new(DVec3::new(s[0], s[1], s[2]), rotation),
        Twist::new(
            DVec3::new(s[7], s[8], s[9]),
            DVec3::new(s[10], s[11], s[12]),
        ),
    )
}

/// Every body's state: the fixed ones as in the world, the dynamic ones
/// from `y`.
fn unpack(world: &World, slots: &[usize], y: &[f64], states: &mut Vec<BodyState>) {
    let bodies = world.bodies();
    states.clear();
    states.extend(
        bodies
            .iter()
            .map(|body| BodyState::at_pose(body, body.pose, 0.0)),
    );
    for (k, &i) in slots.iter().enumerate() {
        let (pose, twist) = slot(&y[SLOT * k..SLOT * (k + 1)]);
        states[i] = BodyState {
            twist,
            ..BodyState::at_pose(&bodies[i], pose, 0.0)
        };
    }
}
