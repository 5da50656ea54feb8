//! rapier3d-f64 as an [`Engine`], on the very scene of ours: a world of
//! ours translated body by body (pose, velocity, shape, mass, friction,
//! restitution, gravity), then stepped with rapier's default integration
//! parameters but `dt` = [`STEP`], and sleeping off.

use contact_sim::{Shape, World};
use rapier3d_f64::math::{Pose, Vector};
use rapier3d_f64::na::Unit;
use rapier3d_f64::prelude::{ColliderBuilder, PhysicsWorld, RigidBodyBuilder, RigidBodyHandle};

use super::{Engine, Scene};

/// The peer's name and version in the report.
pub const RAPIER: &str = "rapier3d-f64 0.36.1";

/// A rapier world and its top body.
pub struct Rapier {
    world: PhysicsWorld,
    top: RigidBodyHandle,
}

impl Rapier {
    /// `scene` built by ours, then translated.
    ///
    /// # Errors
    /// The scene's error, or a body the translation does not cover.
    pub fn new(scene: &Scene, h: f64) -> Result<Self, String> {
        Self::from_world(&scene.world().map_err(|e| e.to_string())?, h)
    }

    /// The translation of `world`. Cubes and half-spaces only, with solid-box
    /// inertia (rapier derives the inertia from the shape and the mass), no
    /// damping, and one friction coefficient for every body (ours combines
    /// two by their geometric mean, rapier by their average: equal for
    /// equal coefficients).
    ///
    /// # Errors
    /// Names the first body outside that.
    pub fn from_world(world: &World, h: f64) -> Result<Self, String> {
        let mut physics = PhysicsWorld::new();
        physics.gravity = world.gravity;
        physics.integration_parameters.dt = h;
        let friction = world.bodies().first().map_or(0.0, |b| b.friction());
        let mut top = None;
        for (index, body) in world.bodies().iter().enumerate() {
            if body.friction() != friction {
                return Err(format!("body {index}: friction differs from body 0's"));
            }
            if body.damping() != (0.0, 0.0) {
                return Err(format!("body {index}: damping is not translated"));
            }
            let pose = Pose::from_parts(body.pose.translation, body.pose.rotation);
            let collider = match &body.shape {
                Shape::Cuboid { half_extents: e } => ColliderBuilder::cuboid(e.x, e.y, e.z),
                Shape::HalfSpace { normal } if !body.is_dynamic() => {
                    ColliderBuilder::halfspace(Unit::new_unchecked(*normal))
                }
                other => {
                    return Err(format!(
                        "body {index}: a {} is not translated",
                        other.kind()
                    ));
                }
            }
            .friction(friction)
            .restitution(body.restitution());
            let handle = match body.mass_properties() {
                None => {
                    physics
                        .insert(RigidBodyBuilder::fixed().pose(pose), collider)
                        .0
                }
                Some(mass) => {
                    let Shape::Cuboid { half_extents } = body.shape else {
                        unreachable!("a dynamic half-space was refused above")
                    };
                    let solid = contact_sim::MassProperties::solid_box(mass.mass(), half_extents)
                        .map_err(|e| format!("body {index}: {e}"))?;
                    let inertia = solid.local_inertia();
                    let trace = inertia.x_axis.x + inertia.y_axis.y + inertia.z_axis.z;
                    if !inertia.abs_diff_eq(mass.local_inertia(), 1e-12 * trace)
                        || mass.local_com() != Vector::ZERO
                    {
                        return Err(format!("body {index}: not a solid box's inertia"));
                    }
                    let rigid = RigidBodyBuilder::dynamic()
                        .pose(pose)
                        .linvel(body.twist.linear)
                        .angvel(body.twist.angular)
                        .can_sleep(false);
                    physics.insert(rigid, collider.mass(mass.mass())).0
                }
            };
            top = Some(handle);
        }
        let top = top.ok_or("an empty world")?;
        Ok(Self {
            world: physics,
            top,
        })
    }
}

impl Engine for Rapier {
    /// The penetration is the deepest point of the contact manifolds rapier
    /// computed for the step (its narrow phase runs at the start of a step).
    fn step(&mut self) -> Result<f64, String> {
        self.world.step();
        let deepest = self
            .world
            .narrow_phase
            .contact_pairs()
            .filter_map(|pair| pair.find_deepest_contact())
            .map(|(_, contact)| -contact.dist)
            .fold(0.0, f64::max);
        Ok(deepest)
    }

    fn top_height(&self) -> f64 {
        self.world.bodies[self.top].translation().z
    }
}

#[cfg(test)]
mod tests {
    use contact_sim::glam::{DQuat, DVec3};
    use contact_sim::{MassProperties, Pose, RigidBody};

    use super::*;
    use crate::scene_bench::STEP;

    fn ground_and(cube: RigidBody) -> World {
        let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
        world.add_body(RigidBody::fixed(
            Shape::half_space(DVec3::Z).unwrap(),
            Pose::IDENTITY,
        ));
        world.add_body(cube);
        world
    }

    fn cube(z: f64) -> RigidBody {
        let half = DVec3::splat(0.5);
        RigidBody::dynamic(
            Shape::cuboid(half).unwrap(),
            MassProperties::solid_box(2.0, half).unwrap(),
            Pose::new(DVec3::new(0.0, 0.0, z), DQuat::from_rotation_x(0.3)),
        )
        .unwrap()
    }

    /// Gravity, step, pose and mass arrive: a cube high above the ground
    /// falls as semi-implicit Euler over rapier's `s` substeps of `h / s`
    /// each (`num_solver_iterations`) says, `z = z_0 - g (h / s)^2 m (m + 1)
    /// / 2` after `m = n s` substeps, keeps its rotation, and weighs 2 kg.
    #[test]
    fn a_free_fall_follows_the_step_and_gravity() {
        let mut rapier = Rapier::from_world(&ground_and(cube(10.0)), STEP).unwrap();
        let n = 10;
        for _ in 0..n {
            assert_eq!(rapier.step().unwrap(), 0.0, "no contact in the air");
        }
        let s = rapier.world.integration_parameters.num_solver_iterations;
        let (m, substep) = (n * s, STEP / s as f64);
        let expected = 10.0 - 9.81 * substep * substep * (m * (m + 1)) as f64 / 2.0;
        let z = rapier.top_height();
        assert!((z - expected).abs() < 1e-9, "{z} vs {expected}");
        let body = &rapier.world.bodies[rapier.top];
        assert!((body.mass() - 2.0).abs() < 1e-12);
        assert!(body.rotation().angle_between(DQuat::from_rotation_x(0.3)) < 1e-9);
    }

    /// A cube 1 mm into the ground (turned about x, so one edge down):
    /// rapier's first manifold is about 1 mm deep.
    #[test]
    fn the_penetration_is_the_deepest_manifold_point() {
        // The turned cube's lowest edge is 0.5 (cos 0.3 + sin 0.3) below
        // its centre.
        let reach = 0.5 * (0.3f64.cos() + 0.3f64.sin());
        let mut rapier = Rapier::from_world(&ground_and(cube(reach - 1e-3)), STEP).unwrap();
        let depth = rapier.step().unwrap();
        assert!((depth - 1e-3).abs() < 1e-9, "{depth}");
    }

    #[test]
    fn what_is_not_translated_is_named() {
        let ball = RigidBody::dynamic(
            Shape::sphere(0.5).unwrap(),
            MassProperties::solid_sphere(1.0, 0.5).unwrap(),
            Pose::IDENTITY,
        )
        .unwrap();
        let error = Rapier::from_world(&ground_and(ball), STEP).err().unwrap();
        assert_eq!(error, "body 1: a sphere is not translated");
        let damped = cube(1.0).with_damping(0.1, 0.0).unwrap();
        assert!(Rapier::from_world(&ground_and(damped), STEP).is_err());
        let slippery = cube(1.0).with_friction(0.1).unwrap();
        assert!(Rapier::from_world(&ground_and(slippery), STEP).is_err());
        let world = World::new(DVec3::ZERO);
        assert!(Rapier::from_world(&world, STEP).is_err());
        assert_eq!(Scene::ALL.len(), 8);
        for scene in Scene::ALL {
            let rapier = Rapier::new(&scene, STEP).unwrap();
            assert_eq!(rapier.world.bodies.len(), scene.bodies() + 1);
        }
    }
}
