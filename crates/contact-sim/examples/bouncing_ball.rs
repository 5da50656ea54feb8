//! A ball bouncing on the ground under the event-driven stepper: each
//! landing is located in time and resolved by Newton's restitution, so the
//! apexes follow `e^(2k) h0` until the bounces are slower than the resting
//! speed and the ball rests. Prints the impacts and the apexes against
//! their closed forms.
//!
//! ```sh
//! cargo run --release -p contact-sim --example bouncing_ball
//! ```

use contact_sim::glam::DVec3;
use contact_sim::{
    BodyId, EventDrivenParams, EventDrivenStepper, EventKind, MassProperties, Pose, RigidBody,
    Shape, World,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (radius, h0, e, g) = (0.1, 1.0, 0.8, 9.81);
    let mut world = World::new(DVec3::new(0.0, 0.0, -g));
    world.add_body(RigidBody::fixed(
        Shape::half_space(DVec3::Z)?,
        Pose::IDENTITY,
    ));
    let ball = world.add_body(
        RigidBody::dynamic(
            Shape::sphere(radius)?,
            MassProperties::solid_sphere(0.5, radius)?,
            Pose::from_translation(DVec3::new(0.0, 0.0, radius + h0)),
        )?
        .with_restitution(e)?,
    );
    let mut stepper = EventDrivenStepper::new(EventDrivenParams::default())?;

    // Sample the height every millisecond; a maximum between samples is
    // refined by the parabola through three of them (exact in flight).
    let dt = 1e-3;
    let height = |world: &World| world.body(ball).pose.translation.z - radius;
    let mut samples = vec![height(&world)];
    for _ in 0..4000 {
        stepper.advance(&mut world, dt)?;
        samples.push(height(&world));
    }
    println!("impacts (time, approach speed, closed form):");
    let mut k = 0;
    for event in stepper.events() {
        if let EventKind::Impact { approach_speed, .. } = event.kind {
            let expected = e.powi(k) * (2.0 * g * h0).sqrt();
            println!(
                "  t = {:.9} s  {approach_speed:.9} m/s  (e^{k} sqrt(2 g h0) = {expected:.9})",
                event.time
            );
            k += 1;
        }
    }
    println!("apexes (measured, e^(2k) h0):");
    let mut k = 1;
    for w in samples.windows(3) {
        if w[1] > w[0] && w[1] >= w[2] && w[1] > 1e-3 {
            let (curvature, slope) = (w[0] - 2.0 * w[1] + w[2], 0.5 * (w[2] - w[0]));
            let apex = w[1] - slope * slope / (2.0 * curvature);
            println!("  {k:2}: {apex:.9} m  ({:.9})", e.powi(2 * k) * h0);
            k += 1;
        }
    }
    let rest = world.body(BodyId(1));
    println!(
        "after {:.1} s: height {:.2e} m, speed {:.2e} m/s, {} resting contact(s)",
        world.time(),
        rest.pose.translation.z - radius,
        rest.twist.linear.length(),
        stepper.contacts().len()
    );
    Ok(())
}
