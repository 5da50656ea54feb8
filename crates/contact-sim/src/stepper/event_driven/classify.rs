//! Steps 1 and 2 of the event-driven stepper (see `mod.rs`): impacts,
//! resting contacts and their friction modes, the contact forces at the
//! step's start and the impulsive step that resolves Painleve's
//! inconsistency.

use super::contacts::SAME_CONTACT;
use super::{EventDrivenStepper, EventKind, PainleveKind};
use crate::{SimError, World};
use contact_dynamics::{AccelerationInput, BodyState, DynamicsError, FrictionMode, TrackedContact};
use contact_math::{Twist, integrate_rotation};

/// A resting contact approaching faster than this (m/s) has its velocity
/// projected.
const PROJECTED_SPEED: f64 = 1e-12;

/// A touching point separating faster than this fraction of
/// `resting_speed` leaves: a resting contact asks `d'' >= 0`, which for a
/// point already moving away would hold its body moving away (lifting it
/// at constant speed against gravity) instead of letting it fall back.
const SEPARATING: f64 = 1e-2;

/// Impacts and impulsive steps one classification may take before it
/// reports that it cannot settle.
const MAX_ROUNDS: usize = 64;

impl EventDrivenStepper {
    /// Classifies the touching points at the world's state, resolving
    /// collisions and Painleve's inconsistency on the way, and solves the
    /// contact forces there (`self.solution`).
    pub(super) fn classify(&mut self, world: &mut World) -> Result<(), SimError> {
        let mut projected = false;
        for _ in 0..MAX_ROUNDS {
            self.load_states(world);
            self.finder.touching(
                world.bodies(),
                &self.states,
                self.params.contact_tolerance,
                &mut self.touching,
            )?;
            if self.collide(world)? {
                continue;
            }
            self.rest();
            if !projected && self.project(world)? {
                projected = true;
                continue;
            }
            self.log_sticking(world.time());
            match self.forces_at(world) {
                Ok(()) => {
                    self.log_indeterminacy(world.time());
                    return Ok(());
                }
                Err(DynamicsError::Painleve { contact }) => {
                    self.impulsive_step(world, contact)?;
                }
                Err(other) => return Err(other.into()),
            }
        }
        Err(SimError::StepTooSmall {
            time: world.time(),
            step: 0.0,
            reason: "impacts or impulsive steps did not settle at one instant",
        })
    }

    /// The body states of the world's bodies (undamped inverse masses).
    pub(super) fn load_states(&mut self, world: &World) {
        self.states.clear();
        self.states.extend(
            world
                .bodies()
                .iter()
                .map(|body| BodyState::at_pose(body, body.pose, 0.0)),
        );
    }

    /// If a touching point approaches faster than `resting_speed`, one
    /// Newton impact over every touching point; true when it happened.
    fn collide(&mut self, world: &mut World) -> Result<bool, SimError> {
        let Some(fastest) = self
            .touching
            .iter()
            .min_by(|x, y| x.normal_speed.total_cmp(&y.normal_speed))
        else {
            return Ok(false);
        };
        if fastest.normal_speed >= -self.params.resting_speed {
            return Ok(false);
        }
        let bodies = (fastest.constraint.body_a, fastest.constraint.body_b);
        let approach_speed = -fastest.normal_speed;
        self.impact_contacts.clear();
        self.impact_contacts
            .extend(self.touching.iter().map(|t| t.constraint));
        let normal_impulse = self.impulse(world)?;
        let contacts = self.touching.len();
        self.log(
            world.time(),
            EventKind::Impact {
                bodies,
                contacts,
                approach_speed,
                normal_impulse,
            },
        );
        Ok(true)
    }

    /// Whether a touching point that does not collide rests (else it
    /// leaves).
    fn rests(&self, normal_speed: f64) -> bool {
        normal_speed <= SEPARATING * self.params.resting_speed
    }

    /// The resting contacts and their friction modes.
    fn rest(&mut self) {
        self.resting.clear();
        self.modes.clear();
        for touching in &self.touching {
            if !self.rests(touching.normal_speed) {
                continue;
            }
            self.resting.push(touching.tracked);
            let slip = touching.slip.length();
            self.modes.push(if slip > self.params.sticking_speed {
                FrictionMode::Sliding {
                    reference: touching.slip / slip,
                }
            } else {
                FrictionMode::Static
            });
        }
    }

    /// Removes the resting contacts' residual approach by an impulse with
    /// `e = 0` (friction on the sticking ones); true when one was applied.
    /// A residual slip alone cannot be removed so (friction needs a normal
    /// impulse): the static-friction rows let it decay instead.
    fn project(&mut self, world: &mut World) -> Result<bool, SimError> {
        self.impact_contacts.clear();
        let mut needed = false;
        for touching in &self.touching {
            if !self.rests(touching.normal_speed) {
                continue;
            }
            needed |= touching.normal_speed < -PROJECTED_SPEED;
            let mut contact = touching.constraint;
            contact.restitution = 0.0;
            if touching.slip.length() > self.params.sticking_speed {
                contact.friction = 0.0;
            }
            self.impact_contacts.push(contact);
        }
        if !needed {
            return Ok(false);
        }
        self.impulse(world)?;
        self.report.projections += 1;
        Ok(true)
    }

    /// Solves the impact of `impact_contacts` on the world's twists and
    /// writes the twists after back; returns the sum of the normal impulses.
    fn impulse(&mut self, world: &mut World) -> Result<f64, SimError> {
        self.velocities.clear();
        self.velocities
            .extend(world.bodies().iter().map(|body| body.twist));
        self.solve_impact(world)
    }

    /// Solves the impact of `impact_contacts` from `velocities` and writes
    /// the twists after into the world.
    fn solve_impact(&mut self, world: &mut World) -> Result<f64, SimError> {
        self.impact.solve(
            &self.states,
            &self.impact_contacts,
            &mut self.velocities,
            &mut self.impulses,
        )?;
        for (body, twist) in world.bodies_mut().iter_mut().zip(&self.velocities) {
            if body.is_dynamic() {
                body.twist = *twist;
            }
        }
        Ok(self.impulses.normal_impulses.iter().sum())
    }

    /// The contact forces of the resting contacts at the world's state,
    /// kept as the reference the step's evaluations start from (see
    /// `AccelerationProblem::keep_reference`: where the forces are not
    /// unique, the step follows this answer).
    pub(super) fn forces_at(&mut self, world: &World) -> Result<(), DynamicsError> {
        self.report.evaluations += 1;
        let input = AccelerationInput {
            bodies: world.bodies(),
            states: &self.states,
            contacts: &self.resting,
            modes: &self.modes,
            forces: world.forces(),
            gravity: world.gravity,
            time: world.time(),
            slip_decay: 1.0 / self.params.max_step,
        };
        self.acceleration.solve(&input, &mut self.solution)?;
        self.acceleration.keep_reference(true);
        Ok(())
    }

    /// Painleve's inconsistency at the world's state, `contact` the sliding
    /// contact named by the solver: one velocity-level step of
    /// `painleve_step` (free flight, then the impact law with `e = 0` and
    /// friction on every resting contact, positions moved with the new
    /// velocities), which jams the sliding contacts: with no consistent
    /// force, keeping the tip out of the ground takes an impulse, and the
    /// only one the impact law admits stops the slip (Stewart's
    /// time-stepping has this limit as the step goes to zero). The free
    /// accelerations are those of the failed solve.
    pub(super) fn impulsive_step(
        &mut self,
        world: &mut World,
        contact: usize,
    ) -> Result<(), SimError> {
        let h = self.params.painleve_step;
        let pair = (self.resting[contact].body_a, self.resting[contact].body_b);
        self.velocities.clear();
        let free = self.acceleration.free_accelerations();
        self.velocities.extend(
            world
                .bodies()
                .iter()
                .zip(free)
                .map(|(body, a)| body.twist + *a * h),
        );
        self.impact_contacts.clear();
        for touching in &self.touching {
            if self.rests(touching.normal_speed) {
                let mut contact = touching.constraint;
                contact.restitution = 0.0;
                self.impact_contacts.push(contact);
            }
        }
        let normal_impulse = self.solve_impact(world)?;
        for body in world.bodies_mut().iter_mut().filter(|b| b.is_dynamic()) {
            let Twist { linear, angular } = body.twist;
            body.pose.translation += h * linear;
            body.pose.rotation = integrate_rotation(body.pose.rotation, angular, h);
        }
        self.log(
            world.time(),
            EventKind::Painleve {
                bodies: pair,
                kind: PainleveKind::Inconsistent,
                normal_impulse,
            },
        );
        world.advance_clock(h);
        Ok(())
    }

    /// Logs a stick for every static contact that slid in the last step,
    /// and remembers the contacts that slide now.
    fn log_sticking(&mut self, time: f64) {
        for i in 0..self.resting.len() {
            if self.modes[i] == FrictionMode::Static
                && let Some(bodies) = self.find(&self.sliding_before, i)
            {
                self.log(time, EventKind::Stick { bodies });
            }
        }
        self.sliding_before.clear();
        for (contact, mode) in self.resting.iter().zip(&self.modes) {
            if let FrictionMode::Sliding { .. } = mode {
                self.sliding_before.push(*contact);
            }
        }
    }

    /// Logs a newly indeterminate sliding contact, once while it lasts.
    fn log_indeterminacy(&mut self, time: f64) {
        if let Some(i) = self.solution.indeterminate
            && self.find(&self.flagged, i).is_none()
        {
            let contact = &self.resting[i];
            let bodies = (contact.body_a, contact.body_b);
            self.log(
                time,
                EventKind::Painleve {
                    bodies,
                    kind: PainleveKind::Indeterminate,
                    normal_impulse: 0.0,
                },
            );
        }
        self.flagged.clear();
        if let Some(i) = self.solution.indeterminate {
            self.flagged.push(self.resting[i]);
        }
    }

    /// The pair of resting contact `i` if one of `earlier` is the same
    /// contact: same pair, and at the current states their points within
    /// [`SAME_CONTACT`].
    fn find(&self, earlier: &[TrackedContact], i: usize) -> Option<(usize, usize)> {
        let contact = &self.resting[i];
        let pair = (contact.body_a, contact.body_b);
        let point = contact.kinematics(&self.states).point;
        earlier
            .iter()
            .any(|e| {
                (e.body_a, e.body_b) == pair
                    && e.kinematics(&self.states).point.distance(point) <= SAME_CONTACT
            })
            .then_some(pair)
    }
}
