//! Guards Drumwright's die under conservative advancement (2016, sec. 6.1):
//! a cube thrown with a random pose and spin never penetrates the ground
//! beyond the 1e-9 m tolerance, never gains energy, comes to rest on a face,
//! and takes a mean step at least twice the paper's 2.7e-5 s; prints the
//! event log and the step statistics.

mod ca_support;

use ca_support::{energy, height_above_ground};
use contact_sim::glam::DVec3;
use contact_sim::scenes::{ThrownDie, thrown_die};
use contact_sim::{CaEventKind, CaParams, CaStepper, ContactKind, World};

/// The paper's mean step on its die (s).
const PAPER_MEAN_STEP: f64 = 2.7e-5;

struct Throw {
    world: World,
    stepper: CaStepper,
    /// Simulated time when the die came to rest (s).
    rest: f64,
    /// Steps taken until then.
    steps_until_rest: usize,
}

/// Throws the die of `seed` and steps until it has been still (every
/// point slower than 1 um/s) for 0.05 s, checking every step.
fn throw(seed: u64) -> Throw {
    let die = ThrownDie::random(seed);
    let mut world = thrown_die(&die).unwrap();
    let params = CaParams::default();
    let mut stepper = CaStepper::new(params).unwrap();
    let weight = die.mass * die.gravity;
    let mut still_since: Option<(f64, usize)> = None;
    let mut depth = 0.0_f64;
    let start = energy(&world);
    while world.time() < 5.0 {
        let before = energy(&world);
        stepper.step(&mut world).unwrap();
        let height = height_above_ground(&world.bodies()[1]);
        assert!(
            height >= -params.penetration_tolerance,
            "seed {seed}: die {height:e} m into the ground at t = {}",
            world.time()
        );
        // The step may lift a contact point the last step left sunk
        // within the tolerance (post-stabilisation moves positions only):
        // the energy may rise by that lift's potential energy, no more.
        let after = energy(&world);
        let allowed = weight * depth + 1e-15 * before.abs();
        assert!(
            after <= before + allowed,
            "seed {seed}: energy rose by {:e} J (allowed {allowed:e}) at t = {}",
            after - before,
            world.time()
        );
        assert!(
            after <= start + 1e-15,
            "seed {seed}: energy above its start"
        );
        depth = (-height).max(0.0);
        let body = &world.bodies()[1];
        let fastest =
            body.twist.linear.length() + body.twist.angular.length() * 0.5 * die.size * 3f64.sqrt();
        match still_since {
            _ if fastest > 1e-6 => still_since = None,
            None => still_since = Some((world.time(), stepper.statistics().steps)),
            Some((since, _)) if world.time() - since > 0.05 => break,
            Some(_) => {}
        }
    }
    let (rest, steps_until_rest) = still_since.expect("the die comes to rest within 5 s");
    Throw {
        world,
        stepper,
        rest,
        steps_until_rest,
    }
}

#[test]
fn a_thrown_die_lands_on_a_face_without_penetrating_and_with_long_steps() {
    for seed in 1..=6 {
        let Throw {
            world,
            stepper,
            rest,
            steps_until_rest,
        } = throw(seed);
        let die = &world.bodies()[1];
        // On a face: four corners on the ground, the other four a die's
        // size above it.
        let mut heights: Vec<f64> = ca_support::corners(DVec3::splat(0.05), &die.pose)
            .iter()
            .map(|c| c.z)
            .collect();
        heights.sort_by(f64::total_cmp);
        assert!(
            heights[..4].iter().all(|z| z.abs() <= 1e-9),
            "seed {seed}: {heights:?}"
        );
        assert!(
            heights[4..].iter().all(|z| (z - 0.1).abs() <= 1e-9),
            "seed {seed}: {heights:?}"
        );
        let last = stepper
            .events()
            .iter()
            .rev()
            .find(|e| matches!(e.kind, CaEventKind::Touch | CaEventKind::Change))
            .expect("the die touched the ground");
        assert_eq!(last.contact, Some(ContactKind::FaceFace), "seed {seed}");
        let statistics = stepper.statistics();
        assert!(statistics.min_distance >= -1e-9);
        // Counted until the die comes to rest, as the paper ran its die
        // "until [it] became motionless".
        let mean = rest / steps_until_rest as f64;
        println!("seed {seed}: at rest at t = {rest:.4} s, mean step until then {mean:.3e} s");
        for event in stepper.events() {
            println!("  {event}");
        }
        println!("{statistics}");
        assert!(
            mean >= 2.0 * PAPER_MEAN_STEP,
            "seed {seed}: mean step {mean:e} s"
        );
    }
}
