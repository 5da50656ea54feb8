//! The conservative-advancement stepper's broad phase (see the module
//! notes of `mod.rs`, step 1): which pairs are measured at a step's start
//! and end, and how the search grows when a motion reaches farther than it
//! was made for.
//!
//! Each body's bounding sphere is grown by the contact band and by its
//! reach: twice the distance its points can move over the longest step
//! (`|v| + h |g| + |w| r` times `h`). A pair the search leaves out is then
//! farther apart than twice the band plus both reaches. Before any bound
//! is read, [`CaStepper::fit_reach`] checks each body's reach against the
//! motion being bounded (its speed bound over the horizon, eq. 4 or
//! eq. 11-14) and grows it where it falls short, measuring the pairs then
//! found: a pair still left out has a bound beyond the horizon, so it
//! would neither limit a step, nor be measured exactly, nor join the step
//! problem, and the steps are those of the all-pairs search. Only the
//! report's least bound, its pair and what it says limited a step, and
//! its least distance, which may be a far pair's, can differ.

use contact_dynamics::RigidBody;
use contact_math::Twist;

pub(super) use crate::stepper::sphere_pairs::SpherePairs;

use super::pairs::Measure;
use super::{CaParams, CaStepper};
use crate::{SimError, World};

/// The broad phase grows each body's sphere by this many times the
/// distance it can move over the step, so the next steps' motions, a little
/// different, usually fit without growing it again.
const REACH_SLACK: f64 = 2.0;
/// A body's sphere fits a motion when its growth exceeds the distance the
/// motion moves it by this relative margin (round-off of the bounds).
const REACH_MARGIN: f64 = 1e-6;

impl CaStepper {
    /// Measures the pairs at `start_poses` (the world's) with cull
    /// distance `cull`, and refuses a start that already breaks the
    /// guarantee.
    pub(super) fn measure_start(&mut self, world: &World, cull: f64) -> Result<(), SimError> {
        let bodies = world.bodies();
        let measure = Measure {
            cull,
            ..self.measure()
        };
        let twists = bodies.iter().map(|b| b.twist);
        estimate_reach(bodies, twists, world, &self.params, &mut self.start.reach);
        self.measure_candidates(bodies, measure, true)?;
        self.check_start()
    }

    /// Measures the pairs at the trial poses: those the broad phase finds
    /// for the next step (the bodies moving with their end twists), and
    /// those touching at the start, for the event log.
    pub(super) fn measure_trial(
        &mut self,
        world: &World,
        measure: Measure,
    ) -> Result<(), SimError> {
        let bodies = world.bodies();
        let twists = self.solution.velocities.iter().copied();
        estimate_reach(bodies, twists, world, &self.params, &mut self.trial.reach);
        let band = self.params.contact_band;
        let reach = &self.trial.reach;
        let candidates = self
            .broad
            .find(bodies, self.poses.iter().map(|p| p.translation), |i| {
                band + reach[i]
            });
        let generator = &mut self.generator.generator;
        self.trial.measure(
            generator,
            bodies,
            &self.poses,
            candidates,
            &self.jointed,
            &self.next_held,
            measure,
        )?;
        self.touching.clear();
        self.touching.extend(
            self.start
                .pairs
                .iter()
                .filter(|p| p.touches || p.in_contact())
                .map(|p| (p.a, p.b)),
        );
        self.trial.add(
            generator,
            bodies,
            &self.poses,
            &self.touching,
            &self.jointed,
            &self.next_held,
            measure,
            true,
        )
    }

    /// Grows the broad phase's spheres of `start` to fit the motion last
    /// evaluated (`motions`, over its horizon) and measures the pairs then
    /// found, so that every pair left out has a bound beyond the horizon:
    /// its bodies are farther apart than the contact band plus the
    /// distance each can move.
    pub(super) fn fit_reach(&mut self, bodies: &[RigidBody]) -> Result<(), SimError> {
        let horizon = self.motions.horizon();
        let mut grown = false;
        for (body, reach) in self.start.reach.iter_mut().enumerate() {
            let moves = self.motions.max_speed(body) * horizon;
            if moves * (1.0 + REACH_MARGIN) <= *reach {
                continue;
            }
            // NaN: every pair with the body (its bounds then say so).
            let wanted = REACH_SLACK * moves;
            *reach = if wanted.is_nan() {
                f64::INFINITY
            } else {
                reach.max(wanted)
            };
            grown = true;
        }
        if !grown {
            return Ok(());
        }
        let measure = Measure {
            cull: self.start_cull.unwrap_or(f64::INFINITY),
            ..self.measure()
        };
        self.measure_candidates(bodies, measure, false)
    }

    /// Measures the pairs the grid finds within each body's contact band
    /// and reach at the start poses: all of them anew when `fresh`, else
    /// only those not yet measured.
    fn measure_candidates(
        &mut self,
        bodies: &[RigidBody],
        measure: Measure,
        fresh: bool,
    ) -> Result<(), SimError> {
        let band = self.params.contact_band;
        let reach = &self.start.reach;
        let candidates = self.broad.find(
            bodies,
            self.start_poses.iter().map(|p| p.translation),
            |i| band + reach[i],
        );
        let generator = &mut self.generator.generator;
        let poses = &self.start_poses;
        let (jointed, held) = (&self.jointed, &self.held);
        if fresh {
            self.start
                .measure(generator, bodies, poses, candidates, jointed, held, measure)
        } else {
            self.start.add(
                generator, bodies, poses, candidates, jointed, held, measure, false,
            )
        }
    }
}

/// Per body, the distance (m) its points can move over the longest step
/// moving with `twists` under `world`'s gravity (`|v| + h |g| + |w| r`, `r`
/// its motion radius, as the collision pass), times [`REACH_SLACK`]; zero
/// for a body that is not dynamic.
fn estimate_reach(
    bodies: &[RigidBody],
    twists: impl Iterator<Item = Twist>,
    world: &World,
    params: &CaParams,
    out: &mut Vec<f64>,
) {
    let h = params.max_step;
    let fall = h * world.gravity.length();
    out.clear();
    out.extend(bodies.iter().zip(twists).map(|(body, twist)| {
        if !body.is_dynamic() {
            return 0.0;
        }
        let turn = twist.angular.length();
        let sweep = if turn == 0.0 {
            0.0
        } else {
            turn * body.shape.motion_radius(glam::DVec3::ZERO)
        };
        REACH_SLACK * h * (twist.linear.length() + fall + sweep)
    }));
}

#[cfg(test)]
mod tests {
    use glam::{DQuat, DVec3};

    use super::*;
    use crate::{BodyId, JointKind, MassProperties, Pose, Shape};

    fn ball(at: DVec3, speed: DVec3, radius: f64, mass: f64) -> RigidBody {
        let mut body = RigidBody::dynamic(
            Shape::sphere(radius).unwrap(),
            MassProperties::solid_sphere(mass, radius).unwrap(),
            Pose::from_translation(at),
        )
        .and_then(|b| b.with_restitution(0.5))
        .unwrap();
        body.twist = Twist::new(speed, DVec3::new(0.3, -0.2, 0.1));
        body
    }

    fn cube(at: DVec3, half: f64, turn: f64) -> RigidBody {
        let half = DVec3::splat(half);
        RigidBody::dynamic(
            Shape::cuboid(half).unwrap(),
            MassProperties::solid_box(1.0, half).unwrap(),
            Pose::new(at, DQuat::from_rotation_z(turn)),
        )
        .unwrap()
    }

    /// Many bodies far apart (a lattice of cubes falling onto the ground),
    /// and a few that meet: a heavy ball driven into a row of light ones
    /// (struck, they move faster than their start predicts), two balls
    /// head on, and a hinged chain (its links' eq. 11-14 speeds exceed
    /// their own twists').
    fn scene() -> World {
        let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
        world.add_body(RigidBody::fixed(
            Shape::half_space(DVec3::Z).unwrap(),
            Pose::IDENTITY,
        ));
        for k in 0..24 {
            let at = DVec3::new(
                4.0 + 3.0 * (k % 6) as f64,
                3.0 * (k / 6) as f64,
                0.6 + 0.05 * k as f64,
            );
            world.add_body(cube(at, 0.2, 0.1 * k as f64));
        }
        world.add_body(ball(DVec3::new(-1.0, 0.0, 0.5), DVec3::X * 8.0, 0.1, 10.0));
        for k in 0..4 {
            let at = DVec3::new(0.25 * k as f64, 0.0, 0.5);
            world.add_body(ball(at, DVec3::ZERO, 0.1, 0.1));
        }
        world.add_body(ball(DVec3::new(-5.0, -5.0, 1.0), DVec3::Y, 0.2, 1.0));
        world.add_body(ball(DVec3::new(-5.0, -4.0, 1.0), -DVec3::Y, 0.2, 1.0));
        let half = DVec3::new(0.05, 0.01, 0.01);
        let mut previous: Option<BodyId> = None;
        for k in 0..4 {
            let x = -8.0 + 0.1 * k as f64;
            let link = world.add_body(
                RigidBody::dynamic(
                    Shape::cuboid(half).unwrap(),
                    MassProperties::solid_box(0.1, half).unwrap(),
                    Pose::from_translation(DVec3::new(x + 0.05, 0.0, 0.5)),
                )
                .unwrap(),
            );
            let anchor = DVec3::new(x, 0.0, 0.5);
            world
                .add_joint_at(JointKind::Hinge, previous, link, anchor, DVec3::Y)
                .unwrap();
            previous = Some(link);
        }
        world
    }

    fn bits(world: &World) -> Vec<u64> {
        world
            .bodies()
            .iter()
            .flat_map(|b| {
                let (p, q, t) = (b.pose.translation, b.pose.rotation, b.twist);
                [p.x, p.y, p.z, q.x, q.y, q.z, q.w]
                    .into_iter()
                    .chain(t.linear.to_array())
                    .chain(t.angular.to_array())
            })
            .chain([world.time()])
            .map(f64::to_bits)
            .collect()
    }

    #[test]
    fn the_broad_phase_steps_as_every_pair_does() {
        let params = CaParams::default();
        let (mut world, mut reference_world) = (scene(), scene());
        let mut stepper = CaStepper::new(params).unwrap();
        let mut reference = CaStepper::new(params).unwrap();
        reference.broad.everything = true;
        let every_pair = {
            let n = world.bodies().len();
            n * (n - 1) / 2
        };
        let mut fewest = usize::MAX;
        for step in 0..150 {
            let report = stepper.step(&mut world).unwrap();
            let expected = reference.step(&mut reference_world).unwrap();
            assert_eq!(report.h.to_bits(), expected.h.to_bits(), "step {step}");
            assert_eq!(report.contacts, expected.contacts, "step {step}");
            assert_eq!(report.retries, expected.retries, "step {step}");
            assert_eq!(bits(&world), bits(&reference_world), "step {step}");
            // The pairs kept are measured as the all-pairs search measures
            // them; those left out neither touch nor are in contact.
            for pair in &reference.start.pairs {
                match stepper.start.resolved(pair.a, pair.b) {
                    Some(kept) => {
                        let expected = reference.start.resolved(pair.a, pair.b);
                        assert_eq!(Some(kept), expected, "step {step}");
                    }
                    None => assert!(!pair.touches && !pair.in_contact(), "step {step}"),
                }
            }
            fewest = fewest.min(stepper.start.pairs.len());
        }
        assert_eq!(stepper.events(), reference.events());
        assert!(stepper.events().len() > 10, "{:?}", stepper.events());
        assert!(4 * fewest < every_pair, "{fewest} of {every_pair}");
        // A stepper restored from the memory finds the same pairs.
        let memory = stepper.memory(&world);
        let mut restored = CaStepper::new(params).unwrap();
        restored.restore_memory(&memory, &world).unwrap();
        let mut copy = world.clone();
        for _ in 0..20 {
            let report = stepper.step(&mut world).unwrap();
            assert_eq!(restored.step(&mut copy).unwrap(), report);
            assert_eq!(bits(&world), bits(&copy));
        }
    }
}
