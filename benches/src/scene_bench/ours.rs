//! Our stepper as an [`Engine`]: `FixedStepper` with its defaults but the
//! step (the plan's, [`STEP`](super::STEP) by default) and the formulation.

use contact_sim::{FixedStepParams, FixedStepper, Formulation, World};

use super::{Engine, Scene};

/// A world of ours and the stepper that advances it.
#[derive(Debug)]
pub struct Ours {
    world: World,
    stepper: FixedStepper,
}

impl Ours {
    /// `scene` built anew, stepped with `formulation` by steps of `h`.
    ///
    /// # Errors
    /// The scene's or the stepper's error, as text.
    pub fn new(scene: &Scene, formulation: Formulation, h: f64) -> Result<Self, String> {
        Self::from_world(scene.world().map_err(|e| e.to_string())?, formulation, h)
    }

    /// `world`, stepped with `formulation` by steps of `h`.
    ///
    /// # Errors
    /// The stepper's error, as text.
    pub fn from_world(world: World, formulation: Formulation, h: f64) -> Result<Self, String> {
        let mut params = FixedStepParams {
            h,
            ..FixedStepParams::default()
        };
        params.dynamics.formulation = formulation;
        Ok(Self {
            world,
            stepper: FixedStepper::new(params).map_err(|e| e.to_string())?,
        })
    }

    /// The engine's name in the report: `ours (Complementarity)`, ...
    #[must_use]
    pub fn name(formulation: Formulation) -> String {
        format!("ours ({formulation:?})")
    }
}

impl Engine for Ours {
    /// The penetration is `-StepReport::min_distance`: the contacts' signed
    /// distances at the start of the step.
    fn step(&mut self) -> Result<f64, String> {
        let report = self
            .stepper
            .step(&mut self.world)
            .map_err(|e| e.to_string())?;
        Ok((-report.min_distance).max(0.0))
    }

    fn top_height(&self) -> f64 {
        self.world
            .bodies()
            .last()
            .map_or(0.0, |body| body.pose.translation.z)
    }
}

#[cfg(test)]
mod tests {
    use contact_sim::glam::DVec3;
    use contact_sim::{MassProperties, Pose, RigidBody, Shape};

    use super::*;
    use crate::scene_bench::STEP;

    /// A cube pushed 1 mm into the ground: the first step's contacts are
    /// 1 mm deep, and it rests with its top body (the cube) where post-
    /// stabilisation puts it, on the ground.
    #[test]
    fn the_penetration_is_the_deepest_contact_at_the_step_start() {
        let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
        world.add_body(RigidBody::fixed(
            Shape::half_space(DVec3::Z).unwrap(),
            Pose::IDENTITY,
        ));
        let half = DVec3::splat(0.5);
        world.add_body(
            RigidBody::dynamic(
                Shape::cuboid(half).unwrap(),
                MassProperties::solid_box(1.0, half).unwrap(),
                Pose::from_translation(DVec3::new(0.0, 0.0, 0.499)),
            )
            .unwrap(),
        );
        for formulation in [Formulation::Complementarity, Formulation::BoxFriction] {
            let mut ours = Ours::from_world(world.clone(), formulation, STEP).unwrap();
            assert!((ours.top_height() - 0.499).abs() < 1e-15);
            let depth = ours.step().unwrap();
            assert!((depth - 1e-3).abs() < 1e-12, "{formulation:?}: {depth}");
        }
    }
}
