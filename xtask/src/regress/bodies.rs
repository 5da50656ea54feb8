//! The general scene of a regression case: boxes with a pose, velocity,
//! mass and friction on an optional ground, under gravity that may be
//! tilted to stand for an incline. Enough to state the textbook cases
//! (resting, sliding to a stop, an incline above and below the friction
//! angle) in JSON with their closed forms beside them, instead of one Rust
//! scene per case.

use contact_sim::{FixedStepper, MassProperties, Pose, RigidBody, Shape, SimError, Twist, World};
use glam::DVec3;
use serde::Deserialize;

use super::{Kind, Observables};

/// Bodies on the ground.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodiesScene {
    /// Magnitude of gravity (m/s^2).
    gravity: f64,
    /// Slope of the ground (degrees, default 0). The ground stays the plane
    /// z = 0 and gravity tilts instead, `g (sin a, 0, -cos a)`, so "down the
    /// slope" is +x and the friction directions stay exactly x and y.
    #[serde(default)]
    slope_degrees: f64,
    /// Friction coefficient of the ground, the half-space z <= 0 (body 0);
    /// no ground when absent.
    ground_friction: Option<f64>,
    /// The moving bodies, in order (body 1 on with a ground). The first is
    /// the subject whose motion the observables report.
    bodies: Vec<BodySpec>,
}

/// One moving body: an axis-aligned box.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BodySpec {
    /// Half edge lengths (m).
    half_extents: [f64; 3],
    /// Mass (kg), uniform density.
    mass: f64,
    /// Friction coefficient; a contact uses the geometric mean of its two.
    friction: f64,
    /// Centre of mass (m).
    position: [f64; 3],
    /// Initial linear velocity (m/s, default 0).
    #[serde(default)]
    velocity: [f64; 3],
    /// Initial angular velocity (rad/s, world frame, default 0).
    #[serde(default)]
    angular_velocity: [f64; 3],
}

impl BodiesScene {
    /// The world, ground first. Every number is checked here or by the
    /// constructors, so bad input is an error naming the field.
    fn build(&self) -> Result<World, String> {
        if !(self.gravity.is_finite() && self.slope_degrees.is_finite()) {
            return Err("gravity and slope_degrees must be finite".into());
        }
        if self.bodies.is_empty() {
            return Err("bodies: a scene needs at least one".into());
        }
        let (sin, cos) = self.slope_degrees.to_radians().sin_cos();
        let mut world = World::new(self.gravity * DVec3::new(sin, 0.0, -cos));
        if let Some(friction) = self.ground_friction {
            let plane = Shape::half_space(DVec3::Z).map_err(|e| e.to_string())?;
            let ground = RigidBody::fixed(plane, Pose::IDENTITY)
                .with_friction(friction)
                .map_err(|e| format!("ground_friction: {e}"))?;
            world.add_body(ground);
        }
        for (index, spec) in self.bodies.iter().enumerate() {
            let body = spec.build().map_err(|e| format!("bodies[{index}]: {e}"))?;
            world.add_body(body);
        }
        Ok(world)
    }

    /// Index of the subject body in the world.
    fn subject(&self) -> usize {
        usize::from(self.ground_friction.is_some())
    }
}

impl BodySpec {
    fn build(&self) -> Result<RigidBody, SimError> {
        let vectors = [
            &self.half_extents,
            &self.position,
            &self.velocity,
            &self.angular_velocity,
        ];
        if vectors.iter().any(|v| v.iter().any(|x| !x.is_finite())) {
            return Err(SimError::Scene {
                reason: "a vector holds a non-finite number",
            });
        }
        let half = DVec3::from_array(self.half_extents);
        let shape = Shape::cuboid(half).map_err(SimError::Shape)?;
        let mass = MassProperties::solid_box(self.mass, half)?;
        let pose = Pose::from_translation(DVec3::from_array(self.position));
        let mut body = RigidBody::dynamic(shape, mass, pose)?.with_friction(self.friction)?;
        body.twist = Twist::new(
            DVec3::from_array(self.velocity),
            DVec3::from_array(self.angular_velocity),
        );
        Ok(body)
    }
}

/// Speed (m/s) below which the subject counts as at rest.
const REST_SPEED: f64 = 1e-9;

/// Simulates the scene for `seconds` and measures it. The subject's
/// observables: `x`, `y`, `z` (final centre), `vx`, `speed` (final),
/// `drift` (distance from the start), `rest_time` (end of the first step
/// after which its speed stays below 1e-9 m/s; infinite if it never rests).
/// The ground's, averaged over the settled window (the last second, or the
/// second half of a shorter run): `ground_normal_force` and
/// `ground_friction_force` (the magnitude of the summed friction impulses),
/// both impulses over h. And the run's `steps`, `max_penetration`,
/// `max_complementarity`, `max_pivots`, `all_finite`.
pub fn measure(
    scene: &BodiesScene,
    stepper: &mut FixedStepper,
    seconds: f64,
) -> Result<Observables, String> {
    let mut world = scene.build()?;
    let h = stepper.params().h;
    let steps = (seconds / h).round() as usize;
    if steps == 0 {
        return Err("`seconds` is shorter than half a step".into());
    }
    let subject = scene.subject();
    let start = world.bodies()[subject].pose.translation;
    let window = ((1.0 / h).round() as usize).min(steps / 2).max(1);
    let (mut normal_sum, mut friction_sum) = (0.0, 0.0);
    let (mut max_penetration, mut max_complementarity, mut max_pivots) = (0.0_f64, 0.0_f64, 0);
    let mut all_finite = true;
    let mut rest_time = f64::INFINITY;
    for step in 0..steps {
        let report = stepper.step(&mut world).map_err(|e| e.to_string())?;
        max_penetration = max_penetration.max(-report.min_distance);
        max_complementarity = max_complementarity.max(report.complementarity);
        max_pivots = max_pivots.max(report.pivots);
        all_finite &= world.bodies().iter().all(RigidBody::is_finite);
        if step >= steps - window {
            let (normal, friction) = ground_impulses(stepper, scene.ground_friction.is_some());
            normal_sum += normal / h;
            friction_sum += friction.length() / h;
        }
        let speed = world.bodies()[subject].twist.linear.length();
        if speed > REST_SPEED {
            rest_time = f64::INFINITY;
        } else if rest_time.is_infinite() {
            rest_time = (step + 1) as f64 * h;
        }
    }
    let body = &world.bodies()[subject];
    let position = body.pose.translation;
    Ok(Observables::from([
        ("steps", (steps as f64, Kind::Count)),
        ("x", (position.x, Kind::Value)),
        ("y", (position.y, Kind::Value)),
        ("z", (position.z, Kind::Value)),
        ("vx", (body.twist.linear.x, Kind::Value)),
        ("speed", (body.twist.linear.length(), Kind::Value)),
        ("drift", ((position - start).length(), Kind::Value)),
        ("rest_time", (rest_time, Kind::Value)),
        (
            "ground_normal_force",
            (normal_sum / window as f64, Kind::Value),
        ),
        (
            "ground_friction_force",
            (friction_sum / window as f64, Kind::Value),
        ),
        ("max_penetration", (max_penetration, Kind::ErrorMeasure)),
        (
            "max_complementarity",
            (max_complementarity, Kind::ErrorMeasure),
        ),
        ("max_pivots", (max_pivots as f64, Kind::Count)),
        (
            "all_finite",
            (if all_finite { 1.0 } else { 0.0 }, Kind::Count),
        ),
    ]))
}

/// The summed normal impulse and friction impulse of the ground's contacts
/// in the last step (zero without a ground).
fn ground_impulses(stepper: &FixedStepper, has_ground: bool) -> (f64, DVec3) {
    if !has_ground {
        return (0.0, DVec3::ZERO);
    }
    let solution = stepper.solution();
    stepper
        .contacts()
        .iter()
        .zip(
            solution
                .normal_impulses
                .iter()
                .zip(&solution.friction_impulses),
        )
        .filter(|(contact, _)| contact.body_a == 0 || contact.body_b == 0)
        .fold((0.0, DVec3::ZERO), |(n, f), (_, (normal, friction))| {
            (n + normal, f + *friction)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use contact_sim::FixedStepParams;

    fn scene(text: &str) -> BodiesScene {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn bad_numbers_are_errors_naming_the_body() {
        let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
        let bad_mass = scene(
            r#"{"gravity": 9.81, "ground_friction": 0.5, "bodies": [
                {"half_extents": [0.5, 0.5, 0.5], "mass": 1, "friction": 0.5, "position": [0, 0, 0.5]},
                {"half_extents": [0.5, 0.5, 0.5], "mass": -1, "friction": 0.5, "position": [0, 0, 2]}]}"#,
        );
        let error = measure(&bad_mass, &mut stepper, 0.1).unwrap_err();
        assert!(error.starts_with("bodies[1]: invalid mass"), "{error}");
        let empty = scene(r#"{"gravity": 9.81, "bodies": []}"#);
        assert!(
            measure(&empty, &mut stepper, 0.1)
                .unwrap_err()
                .contains("bodies")
        );
    }

    #[test]
    fn a_free_fall_without_ground_is_exact_semi_implicit_euler() {
        // v_n = -g n h and z_n = z_0 - g h^2 n (n + 1) / 2 exactly (positions
        // use the new velocity), so the only error is round-off.
        let fall = scene(
            r#"{"gravity": 10, "bodies": [{"half_extents": [0.5, 0.5, 0.5],
                "mass": 2, "friction": 0.5, "position": [0, 0, 100]}]}"#,
        );
        let h = 0.01;
        let mut stepper = FixedStepper::new(FixedStepParams {
            h,
            ..FixedStepParams::default()
        })
        .unwrap();
        let observed = measure(&fall, &mut stepper, 1.0).unwrap();
        let n = 100.0;
        assert!((observed["speed"].0 - 10.0 * n * h).abs() < 1e-12);
        let z = 100.0 - 10.0 * h * h * n * (n + 1.0) / 2.0;
        assert!((observed["z"].0 - z).abs() < 1e-12, "{}", observed["z"].0);
        assert_eq!(observed["ground_normal_force"].0, 0.0);
        assert!(observed["rest_time"].0.is_infinite());
    }
}
