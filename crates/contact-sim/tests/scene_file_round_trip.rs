//! Scene files hold everything the API builds: a world saved to a file and
//! loaded back is the same world, field for field (`World: PartialEq`),
//! and steps the same to the bit; the hand-written scenes under `scenes/`
//! build the worlds their builders in code make.
#![cfg(feature = "serde")]

use std::f64::consts::FRAC_PI_2;
use std::path::Path;

use contact_sim::glam::{DQuat, DVec3};
use contact_sim::scene_file::{SceneFile, StepperSpec};
use contact_sim::scenes::{BoxStack, PlanarBlocks, box_stack, planar_blocks};
use contact_sim::{
    Attachment, FixedStepParams, FixedStepper, ForceElement, ForceFrame, Joint, JointKind,
    MassProperties, PointForce, Pose, Profile, RigidBody, Shape, Spring, World,
};

fn cube(half: f64, at: DVec3) -> RigidBody {
    let half = DVec3::splat(half);
    RigidBody::dynamic(
        Shape::cuboid(half).unwrap(),
        MassProperties::solid_box(1.0, half).unwrap(),
        Pose::from_translation(at),
    )
    .unwrap()
}

/// A world using every feature a scene file describes: every shape, fixed
/// and moving bodies, materials, damping, a planar body, every joint kind
/// with limits and motors, point forces with every profile, springs both
/// ways, pending loads; stepped a little so that velocities, poses and
/// planar locks are not the ones it was built with.
fn everything() -> World {
    let mut world = World::new(DVec3::new(0.3, -0.2, -9.81));
    let ground = world.add_body(
        RigidBody::fixed(
            Shape::half_space(DVec3::new(0.0, 0.1, 1.0)).unwrap(),
            Pose::IDENTITY,
        )
        .with_friction(0.8)
        .unwrap(),
    );
    let post = world.add_body(RigidBody::fixed(
        Shape::cuboid(DVec3::new(0.1, 0.1, 2.0)).unwrap(),
        Pose::new(DVec3::new(-3.0, 0.0, 2.0), DQuat::from_rotation_z(0.3)),
    ));
    let hexagon: Vec<DVec3> = (0..12)
        .map(|i| {
            let angle = f64::from(i % 6) * std::f64::consts::TAU / 6.0 + 0.1;
            DVec3::new(
                angle.cos() * 0.4,
                angle.sin() * 0.4,
                if i < 6 { -0.2 } else { 0.2 },
            )
        })
        .collect();
    let prism = Shape::polytope(contact_geometry::ConvexPolytope::from_points(&hexagon).unwrap());
    let prism_mass = prism.mass_properties(700.0).unwrap();
    let hull = world.add_body(
        RigidBody::dynamic(
            prism,
            prism_mass,
            Pose::new(DVec3::new(2.0, 0.0, 0.6), DQuat::from_rotation_x(0.2)),
        )
        .unwrap()
        .with_restitution(0.4)
        .unwrap(),
    );
    let ball = world.add_body(
        RigidBody::dynamic(
            Shape::sphere(0.3).unwrap(),
            MassProperties::solid_sphere(2.0, 0.3).unwrap(),
            Pose::from_translation(DVec3::new(0.0, 2.0, 1.0)),
        )
        .unwrap()
        .with_damping(0.1, 0.02)
        .unwrap()
        .with_restitution(0.9)
        .unwrap(),
    );
    world.body_mut(ball).twist.linear = DVec3::new(1.0, 0.0, 2.0);
    let slab = world.add_body(
        cube(0.3, DVec3::new(0.0, -2.0, 0.5))
            .with_planar(true)
            .with_friction(0.2)
            .unwrap(),
    );
    world.body_mut(slab).twist.angular = DVec3::new(0.0, 3.0, 0.0);
    // A chain hanging from the post: one link per joint kind.
    let links: Vec<_> = (0..5)
        .map(|i| world.add_body(cube(0.1, DVec3::new(-2.6 + 0.3 * f64::from(i), 0.0, 3.5))))
        .collect();
    let kinds = [
        JointKind::Ball,
        JointKind::Hinge,
        JointKind::Universal,
        JointKind::Prismatic,
        JointKind::Fixed,
    ];
    let mut previous = post;
    for (i, (&link, kind)) in links.iter().zip(kinds).enumerate() {
        let anchor = world.body(link).pose.translation - DVec3::new(0.15, 0.0, 0.0);
        let id = world
            .add_joint_at(kind, Some(previous), link, anchor, DVec3::Y)
            .unwrap();
        if i == 1 {
            *world.joint_mut(id) = world.joint(id).with_limit(-0.5, f64::INFINITY);
        }
        if i == 3 {
            *world.joint_mut(id) = world.joint(id).with_limit(-0.1, 0.1).with_motor(0.2, 5.0);
        }
        previous = link;
    }
    let spinner = world.add_body(cube(0.2, DVec3::new(4.0, 0.0, 3.0)));
    let hinge = Joint::with_frames(
        JointKind::Hinge,
        None,
        spinner.0,
        Pose::new(DVec3::new(4.0, 0.0, 3.0), DQuat::from_rotation_x(FRAC_PI_2)),
        Pose::from_rotation(DQuat::from_rotation_x(FRAC_PI_2)),
    )
    .with_motor(1.5, f64::INFINITY);
    world.add_joint(hinge).unwrap();
    let profiles = [
        Profile::Constant(2.0),
        Profile::Ramp {
            initial: 1.0,
            rate: -0.5,
        },
        Profile::Sine {
            offset: 0.1,
            amplitude: 2.0,
            frequency: 1.5,
            phase: 0.3,
        },
        Profile::Table(vec![(0.0, 1.0), (0.5, 3.0), (1.0, 0.0)]),
    ];
    for (i, magnitude) in profiles.into_iter().enumerate() {
        world
            .add_force(ForceElement::PointForce(PointForce {
                body: hull.0,
                point: DVec3::new(0.1, 0.0, 0.0),
                direction: DVec3::new(0.0, 1.0, 0.5),
                frame: if i % 2 == 0 {
                    ForceFrame::World
                } else {
                    ForceFrame::Body
                },
                magnitude,
                enabled: i != 2,
            }))
            .unwrap();
    }
    for implicit in [false, true] {
        world
            .add_force(ForceElement::Spring(Spring {
                a: Attachment::World(DVec3::new(0.0, 2.0, 3.0)),
                b: Attachment::Body {
                    body: ball.0,
                    point: DVec3::new(0.0, 0.0, 0.3),
                },
                stiffness: 50.0,
                damping: 0.5,
                rest_length: 1.0,
                implicit,
            }))
            .unwrap();
    }
    world
        .add_force(ForceElement::Spring(Spring {
            a: Attachment::Body {
                body: slab.0,
                point: DVec3::ZERO,
            },
            b: Attachment::Body {
                body: ball.0,
                point: DVec3::ZERO,
            },
            stiffness: 5.0,
            damping: 0.0,
            rest_length: 0.0,
            implicit: true,
        }))
        .unwrap();
    let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
    for _ in 0..20 {
        stepper.step(&mut world).unwrap();
    }
    world
        .body_mut(hull)
        .apply_force_at_point(DVec3::X, DVec3::new(2.0, 0.1, 0.7));
    world.body_mut(ball).apply_angular_impulse(DVec3::Z);
    assert_eq!(world.body(ground).friction(), 0.8);
    world
}

#[test]
fn a_world_saved_and_loaded_is_the_same_world_and_steps_the_same() {
    let world = everything();
    let file = SceneFile::of_world(&world);
    let text = file.to_json();
    // The file holds every kind of thing the test means to carry.
    for part in [
        "half_space",
        "\"box\"",
        "sphere",
        "convex_hull",
        "centre_of_mass",
        "inertia",
        "restitution",
        "linear_damping",
        "planar_lock",
        "applied_loads",
        "\"ball\"",
        "\"hinge\"",
        "universal",
        "prismatic",
        "\"fixed\": true",
        "limit",
        "motor",
        "constant",
        "ramp",
        "sine",
        "table",
        "\"frame\": \"body\"",
        "\"enabled\": false",
        "\"implicit\": true",
        "\"time\"",
    ] {
        assert!(text.contains(part), "{part} missing from\n{text}");
    }
    let parsed = SceneFile::parse(&text).unwrap();
    assert_eq!(parsed, file);
    let mut loaded = parsed.build().unwrap().world;
    assert_eq!(loaded, world);
    // Saving the loaded world writes the same text.
    assert_eq!(SceneFile::of_world(&loaded).to_json(), text);
    let mut original = world;
    let mut a = FixedStepper::new(FixedStepParams::default()).unwrap();
    let mut b = FixedStepper::new(FixedStepParams::default()).unwrap();
    for _ in 0..30 {
        a.step(&mut original).unwrap();
        b.step(&mut loaded).unwrap();
    }
    assert_eq!(loaded, original);
}

#[test]
fn a_planar_world_keeps_its_locks_through_a_file() {
    let mut world = planar_blocks(&PlanarBlocks::default()).unwrap();
    let mut stepper = FixedStepper::new(FixedStepParams::default()).unwrap();
    for _ in 0..50 {
        stepper.step(&mut world).unwrap();
    }
    let loaded = SceneFile::parse(&SceneFile::of_world(&world).to_json())
        .unwrap()
        .build()
        .unwrap()
        .world;
    assert!(loaded.is_planar());
    assert_eq!(loaded, world);
}

fn repository(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

#[test]
fn the_box_stack_file_builds_the_box_stack_scene() {
    let scene = SceneFile::load(&repository("scenes/box_stack.json"))
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(scene.world, box_stack(&BoxStack::default()).unwrap());
    assert_eq!(scene.stepper.nominal_step(), FixedStepParams::default().h);
}

#[test]
fn the_planar_blocks_file_builds_the_planar_blocks_scene() {
    let scene = SceneFile::load(&repository("scenes/planar_blocks.json"))
        .unwrap()
        .build()
        .unwrap();
    let built = planar_blocks(&PlanarBlocks::default()).unwrap();
    assert!(scene.world.is_planar());
    assert_eq!(scene.world.bodies().len(), built.bodies().len());
    // The file's centres and angles are decimal: the same to round-off.
    for (i, (file, code)) in scene.world.bodies().iter().zip(built.bodies()).enumerate() {
        assert_eq!(file.shape, code.shape, "body {i}");
        assert_eq!(file.friction(), code.friction(), "body {i}");
        assert_eq!(file.mass_properties(), code.mass_properties(), "body {i}");
        assert_eq!(file.is_planar(), code.is_planar(), "body {i}");
        let moved = (file.pose.translation - code.pose.translation).length();
        let (q, r) = (file.pose.rotation, code.pose.rotation);
        let turned = (q - r).length().min((q + r).length());
        assert!(
            moved < 1e-15 && turned < 1e-15,
            "body {i}: {moved:e} m, {turned:e}"
        );
    }
}

#[test]
fn a_file_without_a_stepper_takes_the_default_fixed_stepper() {
    let file = SceneFile::parse(r#"{"version": 1, "bodies": []}"#).unwrap();
    assert_eq!(file.stepper, StepperSpec::default());
    let scene = file.build().unwrap();
    assert_eq!(scene.stepper.spec(&scene.world), StepperSpec::default());
    assert_eq!(scene.world.gravity, DVec3::new(0.0, 0.0, -9.81));
}
