//! Bodies in a scene file: shape, mass, pose, velocity, material, damping,
//! planar lock; built with [`RigidBody`]'s constructors and read back from
//! a body.

use contact_dynamics::RigidBody;
use contact_geometry::{ConvexPolytope, Shape};
use contact_math::{MassProperties, Pose, Twist};
use glam::{DMat3, DQuat, DVec3};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::{JsonPath, SceneError};
use super::{Vec3, is_false, is_zero, is_zero_vector};

/// A body of the scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BodySpec {
    /// A name other fields can refer to it by (unique in the scene; joints,
    /// forces and expectations may also use the body's index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its shape, in the body frame, whose origin is the centre of mass.
    pub shape: ShapeSpec,
    /// Whether it never moves (ground, walls). A fixed body has no mass or
    /// density; a half-space must be fixed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub fixed: bool,
    /// Mass (kg, > 0) of a moving body; with `inertia` absent, the shape
    /// filled uniformly. Give `mass` or `density`, not both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<f64>,
    /// Density (kg/m^3, > 0) of a moving body filled uniformly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f64>,
    /// Inertia tensor about the centre of mass in body axes (kg m^2, rows),
    /// with `mass`: symmetric, positive definite, its principal moments
    /// satisfying the triangle inequality. What a saved body holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inertia: Option<[Vec3; 3]>,
    /// Centre of mass in the body frame (m) with `inertia`: must be the
    /// origin to round-off (1e-12 of the shape's size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub centre_of_mass: Option<Vec3>,
    /// Position of the centre of mass in the world (m).
    #[serde(default, skip_serializing_if = "is_zero_vector")]
    pub position: Vec3,
    /// Orientation of the body frame in the world (default: the world's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<OrientationSpec>,
    /// Velocity of the centre of mass (m/s, world).
    #[serde(default, skip_serializing_if = "is_zero_vector")]
    pub linear_velocity: Vec3,
    /// Angular velocity (rad/s, world).
    #[serde(default, skip_serializing_if = "is_zero_vector")]
    pub angular_velocity: Vec3,
    /// Coulomb friction coefficient (>= 0); a contact takes the geometric
    /// mean of its bodies'.
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// Newton's coefficient of restitution (0..=1); a contact takes the
    /// larger of its bodies'.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub restitution: f64,
    /// Linear damping (N s/m, >= 0): a force `-c v`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub linear_damping: f64,
    /// Angular damping (N m s, >= 0): a torque `-c w`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub angular_damping: f64,
    /// Whether the body is held in the vertical x-z plane through its
    /// position, turning about y only (every moving body of a planar
    /// scene is).
    #[serde(default, skip_serializing_if = "is_false")]
    pub planar: bool,
    /// An explicit planar lock (what a saved planar body holds: the lock
    /// set at an earlier pose). Not with `planar`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planar_lock: Option<PlanarLockSpec>,
    /// Loads applied for the next step only (what a world saved between
    /// `apply_*` calls and a step holds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied_loads: Option<AppliedLoadsSpec>,
}

fn default_friction() -> f64 {
    RigidBody::fixed(Shape::Sphere { radius: 1.0 }, Pose::IDENTITY).friction()
}

/// A shape in the body frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum ShapeSpec {
    /// A box centred at the origin, along the body axes.
    Box {
        /// Half the edge lengths (m, each > 0).
        half_extents: Vec3,
    },
    /// A ball centred at the origin.
    Sphere {
        /// Radius (m, > 0).
        radius: f64,
    },
    /// The convex hull of points (m, body frame; at least four, not all in
    /// one plane). A moving hull's centre of mass must be the origin.
    ConvexHull {
        /// The points.
        points: Vec<Vec3>,
    },
    /// The half-space `normal . x <= 0`: its boundary plane through the
    /// origin, `normal` pointing out of the solid. Fixed bodies only.
    HalfSpace {
        /// Outward normal (nonzero; normalised on load).
        normal: Vec3,
    },
}

/// An orientation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum OrientationSpec {
    /// A unit quaternion `[x, y, z, w]` (within 1e-3 of unit length;
    /// renormalised).
    Quaternion([f64; 4]),
    /// A rotation by `angle` about `axis`.
    AxisAngle {
        /// The axis (nonzero; normalised).
        axis: Vec3,
        /// The angle (rad).
        angle: f64,
    },
}

impl OrientationSpec {
    /// The rotation; `path` names this field in an error.
    pub(crate) fn rotation(&self, path: &JsonPath) -> Result<DQuat, SceneError> {
        match self {
            Self::Quaternion(q) => {
                let path = path.field("quaternion");
                for (i, x) in q.iter().enumerate() {
                    path.index(i).finite(*x)?;
                }
                let rotation = DQuat::from_array(*q);
                Pose::try_new(DVec3::ZERO, rotation)
                    .map(|pose| pose.rotation)
                    .map_err(|_| {
                        path.error(format!(
                            "must have unit length (within 1e-3; it has {})",
                            rotation.length()
                        ))
                    })
            }
            Self::AxisAngle { axis, angle } => {
                let path = path.field("axis_angle");
                let axis = path.field("axis").direction(*axis)?;
                let angle = path.field("angle").finite(*angle)?;
                Ok(DQuat::from_axis_angle(axis.normalize(), angle))
            }
        }
    }

    /// The orientation of `rotation`, `None` for the identity.
    pub(crate) fn of(rotation: DQuat) -> Option<Self> {
        (rotation != DQuat::IDENTITY).then(|| Self::Quaternion(rotation.to_array()))
    }
}

/// An explicit planar lock (see `RigidBody::with_planar_lock`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanarLockSpec {
    /// The plane's `y` (m).
    pub plane_y: f64,
    /// The body-frame unit vector kept along world y.
    pub axis_in_body: Vec3,
}

/// Loads accumulated for the next step (world frame).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AppliedLoadsSpec {
    /// Force through the centre of mass (N).
    pub force: Vec3,
    /// Torque (N m).
    pub torque: Vec3,
    /// Linear impulse at the start of the step (N s).
    pub linear_impulse: Vec3,
    /// Angular impulse at the start of the step (N m s).
    pub angular_impulse: Vec3,
}

impl BodySpec {
    /// The body; `path` is this body's (`bodies[3]`).
    pub(crate) fn build(&self, path: &JsonPath) -> Result<RigidBody, SceneError> {
        let shape = self.shape.build(&path.field("shape"))?;
        let translation = path.field("position").finite_vector(self.position)?;
        let rotation = match &self.orientation {
            Some(orientation) => orientation.rotation(&path.field("orientation"))?,
            None => DQuat::IDENTITY,
        };
        let pose = Pose::new(translation, rotation);
        let mut body = match self.mass_properties(&shape, path)? {
            Some(mass) => RigidBody::dynamic(shape, mass, pose).map_err(|e| match e {
                contact_dynamics::DynamicsError::FrameNotAtCentreOfMass { local_com } => path
                    .field(if self.inertia.is_some() {
                        "centre_of_mass"
                    } else {
                        "shape"
                    })
                    .error(format!(
                        "the centre of mass is at {local_com:?} in the body frame, not at its \
                         origin: move the points by the opposite"
                    )),
                other => path.error(other.to_string()),
            })?,
            None => RigidBody::fixed(shape, pose),
        };
        let linear = path
            .field("linear_velocity")
            .finite_vector(self.linear_velocity)?;
        let angular = path
            .field("angular_velocity")
            .finite_vector(self.angular_velocity)?;
        if body.is_dynamic() {
            body.twist = Twist::new(linear, angular);
        } else if linear != DVec3::ZERO || angular != DVec3::ZERO {
            return Err(path
                .field("linear_velocity")
                .error("a fixed body cannot move: give it a mass to set a velocity"));
        }
        body = body
            .with_friction(path.field("friction").non_negative(self.friction)?)
            .map_err(|e| path.field("friction").error(e.to_string()))?;
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(path.field("restitution").error("must be in [0, 1]"));
        }
        body = body
            .with_restitution(self.restitution)
            .map_err(|e| path.field("restitution").error(e.to_string()))?;
        let linear_damping = path
            .field("linear_damping")
            .non_negative(self.linear_damping)?;
        let angular_damping = path
            .field("angular_damping")
            .non_negative(self.angular_damping)?;
        body = body
            .with_damping(linear_damping, angular_damping)
            .map_err(|e| path.error(e.to_string()))?;
        body = self.planar_lock(body, path)?;
        if let Some(loads) = &self.applied_loads {
            let path = path.field("applied_loads");
            body.apply_force(path.field("force").finite_vector(loads.force)?);
            body.apply_torque(path.field("torque").finite_vector(loads.torque)?);
            let impulse = path
                .field("linear_impulse")
                .finite_vector(loads.linear_impulse)?;
            body.apply_impulse_at_point(impulse, body.pose.translation);
            body.apply_angular_impulse(
                path.field("angular_impulse")
                    .finite_vector(loads.angular_impulse)?,
            );
        }
        Ok(body)
    }

    fn planar_lock(&self, body: RigidBody, path: &JsonPath) -> Result<RigidBody, SceneError> {
        match (self.planar, &self.planar_lock) {
            (true, Some(_)) => Err(path
                .field("planar_lock")
                .error("give planar or planar_lock, not both")),
            (_, Some(_)) | (true, _) if !body.is_dynamic() => Err(path
                .field(if self.planar { "planar" } else { "planar_lock" })
                .error("only a moving body can be held in a plane")),
            (true, None) => Ok(body.with_planar(true)),
            (false, Some(lock)) => {
                let path = path.field("planar_lock");
                let plane_y = path.field("plane_y").finite(lock.plane_y)?;
                let axis = path
                    .field("axis_in_body")
                    .finite_vector(lock.axis_in_body)?;
                body.with_planar_lock(plane_y, axis).map_err(|_| {
                    path.field("axis_in_body")
                        .error("must be a unit vector (within 1e-9)")
                })
            }
            (false, None) => Ok(body),
        }
    }

    /// The mass properties of a moving body, `None` for a fixed one.
    fn mass_properties(
        &self,
        shape: &Shape,
        path: &JsonPath,
    ) -> Result<Option<MassProperties>, SceneError> {
        if self.fixed {
            for (field, given) in [
                ("mass", self.mass.is_some()),
                ("density", self.density.is_some()),
                ("inertia", self.inertia.is_some()),
            ] {
                if given {
                    return Err(path
                        .field(field)
                        .error("a fixed body has no mass: drop it, or drop `fixed`"));
                }
            }
            return Ok(None);
        }
        if !shape.is_bounded() {
            return Err(path
                .field("fixed")
                .error("a half-space has no finite volume: it must be fixed (\"fixed\": true)"));
        }
        if self.centre_of_mass.is_some() && self.inertia.is_none() {
            return Err(path
                .field("centre_of_mass")
                .error("only with inertia (otherwise the shape's centre is used)"));
        }
        let mass = match (self.mass, self.density, &self.inertia) {
            (Some(_), Some(_), _) => {
                return Err(path
                    .field("density")
                    .error("give mass or density, not both"));
            }
            (None, None, _) => {
                return Err(path.error(
                    "a moving body needs a mass or a density (or \"fixed\": true for one that \
                     never moves)",
                ));
            }
            (None, Some(_), Some(_)) => {
                return Err(path
                    .field("inertia")
                    .error("only with mass, not with density"));
            }
            (Some(mass), None, Some(inertia)) => {
                let mass = path.field("mass").positive(mass)?;
                let inertia_path = path.field("inertia");
                for (r, row) in inertia.iter().enumerate() {
                    for (c, value) in row.iter().enumerate() {
                        inertia_path.index(r).index(c).finite(*value)?;
                    }
                }
                let com = match self.centre_of_mass {
                    Some(com) => path.field("centre_of_mass").finite_vector(com)?,
                    None => DVec3::ZERO,
                };
                // Rows given; glam takes columns.
                let inertia = DMat3::from_cols_array_2d(inertia).transpose();
                MassProperties::new(mass, com, inertia)
                    .map_err(|e| inertia_path.error(e.to_string()))?
            }
            (Some(mass), None, None) => {
                let path = path.field("mass");
                let mass = path.positive(mass)?;
                match *shape {
                    // The closed forms, as the scenes built in code use them.
                    Shape::Cuboid { half_extents } => MassProperties::solid_box(mass, half_extents),
                    Shape::Sphere { radius } => MassProperties::solid_sphere(mass, radius),
                    _ => {
                        // Unit density: the volume as mass, and the inertia
                        // per unit density, scaled to the mass asked for.
                        let unit = shape
                            .mass_properties(1.0)
                            .map_err(|e| path.error(e.to_string()))?;
                        let scale = mass / unit.mass();
                        MassProperties::new(mass, unit.local_com(), unit.local_inertia() * scale)
                    }
                }
                .map_err(|e| path.error(e.to_string()))?
            }
            (None, Some(density), None) => {
                let density = path.field("density").positive(density)?;
                shape
                    .mass_properties(density)
                    .map_err(|e| path.field("density").error(e.to_string()))?
            }
        };
        Ok(Some(mass))
    }

    /// The description of `body`, named `name`.
    pub(crate) fn of(body: &RigidBody, name: Option<String>) -> Self {
        let mass = body.mass_properties();
        let local_inertia = mass.map(|m| m.local_inertia().transpose().to_cols_array_2d());
        let loads = body.applied_loads();
        let (linear_damping, angular_damping) = body.damping();
        Self {
            name,
            shape: ShapeSpec::of(&body.shape),
            fixed: mass.is_none(),
            mass: mass.map(MassProperties::mass),
            density: None,
            inertia: local_inertia,
            centre_of_mass: mass
                .map(MassProperties::local_com)
                .filter(|com| *com != DVec3::ZERO)
                .map(|com| com.to_array()),
            position: body.pose.translation.to_array(),
            orientation: OrientationSpec::of(body.pose.rotation),
            linear_velocity: body.twist.linear.to_array(),
            angular_velocity: body.twist.angular.to_array(),
            friction: body.friction(),
            restitution: body.restitution(),
            linear_damping,
            angular_damping,
            planar: false,
            planar_lock: body.planar_lock(0).map(|lock| PlanarLockSpec {
                plane_y: lock.plane_y,
                axis_in_body: lock.axis_in_body.to_array(),
            }),
            applied_loads: (*loads != contact_dynamics::AppliedLoads::default()).then(|| {
                AppliedLoadsSpec {
                    force: loads.force.to_array(),
                    torque: loads.torque.to_array(),
                    linear_impulse: loads.linear_impulse.to_array(),
                    angular_impulse: loads.angular_impulse.to_array(),
                }
            }),
        }
    }
}

impl ShapeSpec {
    /// The shape; `path` is this field's.
    pub(crate) fn build(&self, path: &JsonPath) -> Result<Shape, SceneError> {
        match self {
            Self::Box { half_extents } => {
                let path = path.field("box").field("half_extents");
                for (i, x) in half_extents.iter().enumerate() {
                    path.index(i).positive(*x)?;
                }
                Shape::cuboid(DVec3::from_array(*half_extents))
                    .map_err(|e| path.error(e.to_string()))
            }
            Self::Sphere { radius } => {
                let path = path.field("sphere").field("radius");
                Shape::sphere(path.positive(*radius)?).map_err(|e| path.error(e.to_string()))
            }
            Self::ConvexHull { points } => {
                let path = path.field("convex_hull").field("points");
                if points.len() < 4 {
                    return Err(path.error(format!(
                        "a hull needs at least 4 points not in one plane; {} given",
                        points.len()
                    )));
                }
                let points = points
                    .iter()
                    .enumerate()
                    .map(|(i, p)| path.index(i).finite_vector(*p))
                    .collect::<Result<Vec<_>, _>>()?;
                ConvexPolytope::from_points(&points)
                    .map(Shape::polytope)
                    .map_err(|e| path.error(e.to_string()))
            }
            Self::HalfSpace { normal } => {
                let path = path.field("half_space").field("normal");
                Shape::half_space(path.direction(*normal)?).map_err(|e| path.error(e.to_string()))
            }
        }
    }

    /// The description of `shape` (a polytope by its vertices).
    pub(crate) fn of(shape: &Shape) -> Self {
        match shape {
            Shape::Cuboid { half_extents } => Self::Box {
                half_extents: half_extents.to_array(),
            },
            Shape::Sphere { radius } => Self::Sphere { radius: *radius },
            Shape::Polytope(polytope) => Self::ConvexHull {
                points: polytope.vertices().iter().map(|v| v.to_array()).collect(),
            },
            Shape::HalfSpace { normal } => Self::HalfSpace {
                normal: normal.to_array(),
            },
        }
    }
}
