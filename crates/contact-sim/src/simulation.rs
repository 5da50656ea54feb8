//! Running a scene: steps, what they measure (penetration, joint error,
//! energy, contact events), the recorded states, and the verdict on the
//! scene's expectations.

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::scene_file::{ContactForce, Expectation, Observable, RecordSpec, Scene};
use crate::trajectory::{ContactRecord, Frame};
use crate::{Attachment, ForceElement, SimError, World};

/// Events kept in full; later ones are only counted.
const KEPT_EVENTS: usize = 100_000;

/// What happened between two bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// They began to push on each other (a contact with a positive normal
    /// force, where the step before had none).
    ContactBegins,
    /// They stopped pushing on each other.
    ContactEnds,
}

/// A contact event.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The step (counted from 1 in the run) at whose end it was seen.
    pub step: u64,
    /// The simulated time at the end of that step (s).
    pub time: f64,
    /// What happened.
    pub kind: EventKind,
    /// The two bodies (indices, the smaller first).
    pub bodies: [usize; 2],
}

/// What a run has measured so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Observations {
    /// Steps taken.
    pub steps: u64,
    /// Simulated time since the start (s).
    pub elapsed: f64,
    /// The largest interpenetration at the start of any step (m, >= 0).
    pub max_penetration: f64,
    /// The simulated time of the step that saw it (s).
    pub max_penetration_time: f64,
    /// The largest joint error after any step (m or rad).
    pub max_joint_error: f64,
    /// Total energy at the start (J): kinetic, gravitational, springs.
    pub initial_energy: f64,
    /// Total energy now (J).
    pub energy: f64,
    /// Kinetic energy now (J).
    pub kinetic_energy: f64,
    /// The largest rise of the total energy above its start (J, >= 0).
    pub max_energy_gain: f64,
    /// Contact events seen (`ContactBegins`).
    pub contacts_begun: u64,
    /// Contact events seen (`ContactEnds`).
    pub contacts_ended: u64,
}

/// One expectation checked: what was measured and whether it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// The observable (`max_penetration`, `displacement(top)`).
    pub observable: String,
    /// The bound (`<= 1e-6`).
    pub bound: String,
    /// The measured value.
    pub measured: f64,
    /// Whether it holds.
    pub holds: bool,
    /// Why the bound is what it is, as the scene says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// A scene being run (see the module comment).
#[derive(Debug)]
pub struct Simulation {
    scene: Scene,
    observations: Observations,
    start_time: f64,
    start_positions: Vec<DVec3>,
    last_step: f64,
    last_penetration: f64,
    contacts: Vec<ContactForce>,
    /// Pairs pushing on each other after the last step, sorted.
    touching: Vec<[usize; 2]>,
    pairs: Vec<[usize; 2]>,
    events: Vec<Event>,
    new_events: usize,
}

impl Simulation {
    /// A run of `scene` from its current state.
    #[must_use]
    pub fn new(scene: Scene) -> Self {
        let energy = total_energy(&scene.world);
        let observations = Observations {
            initial_energy: energy,
            energy,
            kinetic_energy: scene.world.kinetic_energy(),
            max_joint_error: scene.world.largest_joint_error(),
            ..Observations::default()
        };
        Self {
            start_time: scene.world.time(),
            start_positions: scene
                .world
                .bodies()
                .iter()
                .map(|body| body.pose.translation)
                .collect(),
            scene,
            observations,
            last_step: 0.0,
            last_penetration: 0.0,
            contacts: Vec::new(),
            touching: Vec::new(),
            pairs: Vec::new(),
            events: Vec::new(),
            new_events: 0,
        }
    }

    /// The scene, at its current state.
    #[must_use]
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The scene, ending the run.
    #[must_use]
    pub fn into_scene(self) -> Scene {
        self.scene
    }

    /// What the run has measured.
    #[must_use]
    pub fn observations(&self) -> &Observations {
        &self.observations
    }

    /// The contact events so far (at most the first 100 000).
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The events of the last step.
    #[must_use]
    pub fn last_events(&self) -> &[Event] {
        &self.events[self.events.len() - self.new_events..]
    }

    /// The contacts of the last step and their forces.
    #[must_use]
    pub fn contacts(&self) -> &[ContactForce] {
        &self.contacts
    }

    /// Takes one step and measures it.
    ///
    /// # Errors
    /// The stepper's; the scene is then as before the step.
    pub fn step(&mut self) -> Result<(), SimError> {
        let Scene { world, stepper, .. } = &mut self.scene;
        let step = stepper.step(world)?;
        self.contacts.clear();
        stepper.visit_contacts(&step, |contact| self.contacts.push(contact));
        let world = &self.scene.world;
        let observations = &mut self.observations;
        observations.steps += 1;
        observations.elapsed = world.time() - self.start_time;
        self.last_step = step.duration;
        self.last_penetration = (-step.min_distance).max(0.0);
        if self.last_penetration > observations.max_penetration {
            observations.max_penetration = self.last_penetration;
            observations.max_penetration_time = world.time() - step.duration;
        }
        if !world.joints().is_empty() {
            observations.max_joint_error = observations
                .max_joint_error
                .max(world.largest_joint_error());
        }
        observations.kinetic_energy = world.kinetic_energy();
        observations.energy = total_energy(world);
        observations.max_energy_gain = observations
            .max_energy_gain
            .max(observations.energy - observations.initial_energy);
        self.contact_events();
        Ok(())
    }

    /// Compares the pairs pushing on each other with the step before's.
    fn contact_events(&mut self) {
        self.pairs.clear();
        self.pairs.extend(
            self.contacts
                .iter()
                .filter(|c| c.force.dot(c.normal) > 0.0)
                .map(|c| [c.body_a.min(c.body_b), c.body_a.max(c.body_b)]),
        );
        self.pairs.sort_unstable();
        self.pairs.dedup();
        let (step, time) = (self.observations.steps, self.scene.world.time());
        let before = self.events.len();
        let (mut i, mut j) = (0, 0);
        while i < self.touching.len() || j < self.pairs.len() {
            let (kind, bodies) = match (self.touching.get(i), self.pairs.get(j)) {
                (Some(old), Some(new)) if old == new => {
                    (i, j) = (i + 1, j + 1);
                    continue;
                }
                (Some(old), Some(new)) if old < new => {
                    i += 1;
                    (EventKind::ContactEnds, *old)
                }
                (Some(old), None) => {
                    i += 1;
                    (EventKind::ContactEnds, *old)
                }
                (_, Some(new)) => {
                    j += 1;
                    (EventKind::ContactBegins, *new)
                }
                (None, None) => break,
            };
            match kind {
                EventKind::ContactBegins => self.observations.contacts_begun += 1,
                EventKind::ContactEnds => self.observations.contacts_ended += 1,
            }
            if self.events.len() < KEPT_EVENTS {
                self.events.push(Event {
                    step,
                    time,
                    kind,
                    bodies,
                });
            }
        }
        self.new_events = self.events.len() - before;
        std::mem::swap(&mut self.touching, &mut self.pairs);
    }

    /// The state now, as a trajectory records it.
    #[must_use]
    pub fn frame(&self, record: &RecordSpec) -> Frame {
        let world = &self.scene.world;
        let kinetic_energy = world.kinetic_energy();
        let energy = total_energy(world);
        Frame {
            step: self.observations.steps,
            time: world.time(),
            h: self.last_step,
            poses: world
                .bodies()
                .iter()
                .map(|body| {
                    let (t, q) = (body.pose.translation, body.pose.rotation);
                    [t.x, t.y, t.z, q.x, q.y, q.z, q.w]
                })
                .collect(),
            velocities: record.velocities.then(|| {
                world
                    .bodies()
                    .iter()
                    .map(|body| body.twist.to_array())
                    .collect()
            }),
            contacts: record.contacts.then(|| {
                self.contacts
                    .iter()
                    .map(|c| ContactRecord {
                        bodies: [c.body_a, c.body_b],
                        point: c.point.to_array(),
                        normal: c.normal.to_array(),
                        force: c.force.to_array(),
                        distance: c.distance,
                    })
                    .collect()
            }),
            kinetic_energy,
            potential_energy: energy - kinetic_energy,
            energy,
            penetration: self.last_penetration,
        }
    }

    /// The value of `observable` now (`body`: the body it names, resolved).
    #[must_use]
    pub fn measure(&self, observable: &Observable, body: Option<usize>) -> f64 {
        let world = &self.scene.world;
        let o = &self.observations;
        let position = |b: Option<usize>| {
            b.and_then(|b| world.bodies().get(b))
                .map_or(DVec3::NAN, |body| body.pose.translation)
        };
        match observable {
            Observable::MaxPenetration => o.max_penetration,
            Observable::MaxJointError => o.max_joint_error,
            Observable::FinalKineticEnergy => o.kinetic_energy,
            Observable::EnergyChange => o.energy - o.initial_energy,
            Observable::MaxEnergyGain => o.max_energy_gain,
            Observable::Displacement { .. } => {
                let start = body
                    .and_then(|b| self.start_positions.get(b))
                    .copied()
                    .unwrap_or(DVec3::NAN);
                (position(body) - start).length()
            }
            Observable::FinalPosition { axis, .. } => position(body)[axis.index()],
            Observable::FinalMaxSpeed => world
                .bodies()
                .iter()
                .map(|body| body.twist.linear.length())
                .fold(0.0, f64::max),
            Observable::ContactsBegun => o.contacts_begun as f64,
        }
    }

    /// Each of the scene's expectations checked against the run so far.
    #[must_use]
    pub fn verdict(&self) -> Vec<Check> {
        self.scene
            .expectations
            .iter()
            .map(|expectation: &Expectation| {
                let measured = self.measure(&expectation.spec.observable, expectation.body);
                Check {
                    observable: expectation.spec.observable.label(),
                    bound: expectation.describe_bound(),
                    measured,
                    holds: expectation.holds(measured),
                    why: expectation.spec.why.clone(),
                }
            })
            .collect()
    }
}

/// Kinetic, gravitational and spring energy (J).
fn total_energy(world: &World) -> f64 {
    let position = |end: &Attachment| match *end {
        Attachment::World(point) => point,
        Attachment::Body { body, point } => world.bodies()[body].pose.transform_point(point),
    };
    let springs: f64 = world
        .forces()
        .iter()
        .map(|force| match force {
            ForceElement::Spring(spring) => {
                let stretch =
                    (position(&spring.b) - position(&spring.a)).length() - spring.rest_length;
                0.5 * spring.stiffness * stretch * stretch
            }
            ForceElement::PointForce(_) => 0.0,
        })
        .sum();
    world.kinetic_energy() + world.potential_energy() + springs
}
