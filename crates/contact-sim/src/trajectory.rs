//! Trajectories: the recorded states of a run, for a viewer and for plots
//! (`docs/trajectory-format.md`). Written as they are made, so a long run
//! holds one frame in memory: as one JSON document ([`JsonTrajectoryWriter`])
//! or as CSV tables ([`CsvTrajectoryWriter`]).

use std::io::{self, Write};

use contact_geometry::Shape;
use serde::{Deserialize, Serialize};

use crate::scene_file::{Scene, Vec3};
use crate::simulation::{Check, Event, EventKind, Observations};

/// The `format` field of a trajectory file.
pub const TRAJECTORY_FORMAT: &str = "contact-trajectory";
/// The version of the trajectory format.
pub const TRAJECTORY_VERSION: u32 = 1;

/// What a trajectory says about the scene before its frames.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrajectoryHeader {
    /// [`TRAJECTORY_FORMAT`].
    pub format: String,
    /// [`TRAJECTORY_VERSION`].
    pub version: u32,
    /// The scene's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene: Option<String>,
    /// What it shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Gravity (m/s^2, world).
    pub gravity: Vec3,
    /// The bodies, indexed like each frame's poses.
    pub bodies: Vec<BodyGeometry>,
    /// The joints.
    pub joints: Vec<JointGeometry>,
    /// Steps between recorded frames.
    pub every: u64,
}

/// A body as a viewer draws it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyGeometry {
    /// Its name, if the scene gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Whether it never moves.
    pub fixed: bool,
    /// Its shape in the body frame.
    pub shape: ShapeGeometry,
}

/// A shape with what drawing it needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeGeometry {
    /// A box centred at the origin.
    Box {
        /// Half edge lengths (m).
        half_extents: Vec3,
    },
    /// A ball centred at the origin.
    Sphere {
        /// Radius (m).
        radius: f64,
    },
    /// A convex polytope.
    ConvexHull {
        /// Its vertices (m, body frame).
        vertices: Vec<Vec3>,
        /// Its faces, each its vertex indices counter-clockwise seen from
        /// outside.
        faces: Vec<Vec<u32>>,
    },
    /// The half-space `normal . x <= 0`.
    HalfSpace {
        /// Outward unit normal.
        normal: Vec3,
    },
}

/// A joint as a viewer draws it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointGeometry {
    /// `ball`, `hinge`, `universal`, `prismatic` or `fixed`.
    pub kind: String,
    /// The first body, `null` for the world.
    pub body_a: Option<usize>,
    /// The second body.
    pub body_b: usize,
    /// The joint frame in body a's frame (the world's for the world):
    /// `[x, y, z, qx, qy, qz, qw]`; a hinge turns about its z axis.
    pub frame_a: [f64; 7],
    /// The joint frame in body b's frame.
    pub frame_b: [f64; 7],
}

/// One recorded state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// Steps taken since the start of the run (0: the start).
    pub step: u64,
    /// Simulated time (s).
    pub time: f64,
    /// The last step's length (s; 0 at the start).
    pub h: f64,
    /// Each body's pose: `[x, y, z, qx, qy, qz, qw]`, centre of mass and
    /// unit quaternion.
    pub poses: Vec<[f64; 7]>,
    /// Each body's twist `[vx, vy, vz, wx, wy, wz]` (m/s, rad/s, world),
    /// when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocities: Option<Vec<[f64; 6]>>,
    /// The last step's contacts and their forces, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contacts: Option<Vec<ContactRecord>>,
    /// Kinetic energy (J).
    pub kinetic_energy: f64,
    /// Gravitational and spring energy (J; gravity's is zero at the origin).
    pub potential_energy: f64,
    /// Their sum (J).
    pub energy: f64,
    /// The largest interpenetration at the start of the last step (m).
    pub penetration: f64,
}

/// A contact and the force it carried over the last step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContactRecord {
    /// The two bodies; the normal points from the first to the second.
    pub bodies: [usize; 2],
    /// The contact point (m, world) at the start of the step.
    pub point: Vec3,
    /// The unit normal.
    pub normal: Vec3,
    /// The force on the second body (N, world): the step's impulse over
    /// its length; the first body received the opposite.
    pub force: Vec3,
    /// The signed distance at the start of the step (m; negative:
    /// interpenetration).
    pub distance: f64,
}

/// How a run ended, as the trajectory's last field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// What the run measured.
    pub observations: Observations,
    /// Contact events seen after the first 100 000, which the list leaves out.
    pub events_left_out: u64,
    /// The scene's expectations checked (empty when it has none).
    pub verdict: Vec<Check>,
    /// Wall-clock seconds the steps took (0 when not measured).
    pub wall_seconds: f64,
}

/// A whole trajectory file as read back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// The header fields.
    #[serde(flatten)]
    pub header: TrajectoryHeader,
    /// The recorded states, in time order.
    pub frames: Vec<Frame>,
    /// The contact events.
    pub events: Vec<Event>,
    /// How the run ended.
    pub summary: RunSummary,
}

impl TrajectoryHeader {
    /// The header of a run of `scene` recording every `every` steps.
    #[must_use]
    pub fn of(scene: &Scene, every: u64) -> Self {
        let world = &scene.world;
        let pose = |p: &contact_math::Pose| {
            let (t, q) = (p.translation, p.rotation);
            [t.x, t.y, t.z, q.x, q.y, q.z, q.w]
        };
        Self {
            format: TRAJECTORY_FORMAT.into(),
            version: TRAJECTORY_VERSION,
            scene: scene.name.clone(),
            description: scene.description.clone(),
            gravity: world.gravity.to_array(),
            bodies: world
                .bodies()
                .iter()
                .zip(&scene.body_names)
                .map(|(body, name)| BodyGeometry {
                    name: name.clone(),
                    fixed: !body.is_dynamic(),
                    shape: ShapeGeometry::of(&body.shape),
                })
                .collect(),
            joints: world
                .joints()
                .iter()
                .map(|joint| JointGeometry {
                    kind: format!("{:?}", joint.kind).to_lowercase(),
                    body_a: joint.body_a,
                    body_b: joint.body_b,
                    frame_a: pose(&joint.frame_a),
                    frame_b: pose(&joint.frame_b),
                })
                .collect(),
            every,
        }
    }
}

impl ShapeGeometry {
    fn of(shape: &Shape) -> Self {
        match shape {
            Shape::Cuboid { half_extents } => Self::Box {
                half_extents: half_extents.to_array(),
            },
            Shape::Sphere { radius } => Self::Sphere { radius: *radius },
            Shape::Polytope(polytope) => Self::ConvexHull {
                vertices: polytope.vertices().iter().map(|v| v.to_array()).collect(),
                faces: (0..polytope.faces().len())
                    .map(|face| polytope.face_vertices(face).to_vec())
                    .collect(),
            },
            Shape::HalfSpace { normal } => Self::HalfSpace {
                normal: normal.to_array(),
            },
        }
    }
}

/// Writes a trajectory as one JSON document, frame by frame.
#[derive(Debug)]
pub struct JsonTrajectoryWriter<W: Write> {
    out: W,
    frames: u64,
}

impl<W: Write> JsonTrajectoryWriter<W> {
    /// Starts the document with `header`.
    ///
    /// # Errors
    /// The writer's.
    pub fn new(mut out: W, header: &TrajectoryHeader) -> io::Result<Self> {
        let text = serde_json::to_string(header)?;
        // The header's fields, then the frames' list opened in the same object.
        let fields = text.strip_suffix('}').unwrap_or(&text);
        write!(out, "{fields},\"frames\":[")?;
        Ok(Self { out, frames: 0 })
    }

    /// Appends a frame.
    ///
    /// # Errors
    /// The writer's.
    pub fn frame(&mut self, frame: &Frame) -> io::Result<()> {
        if self.frames > 0 {
            self.out.write_all(b",")?;
        }
        self.out.write_all(b"\n")?;
        serde_json::to_writer(&mut self.out, frame)?;
        self.frames += 1;
        Ok(())
    }

    /// Closes the document with the events and the summary, and returns
    /// the writer, flushed.
    ///
    /// # Errors
    /// The writer's.
    pub fn finish(mut self, events: &[Event], summary: &RunSummary) -> io::Result<W> {
        self.out.write_all(b"\n],\"events\":")?;
        serde_json::to_writer(&mut self.out, events)?;
        self.out.write_all(b",\"summary\":")?;
        serde_json::to_writer(&mut self.out, summary)?;
        self.out.write_all(b"}\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Writes a trajectory as three CSV tables: one row per recorded step
/// (time, energies, penetration, every body's pose), one per contact of a
/// recorded step, one per event.
#[derive(Debug)]
pub struct CsvTrajectoryWriter<W: Write> {
    steps: W,
    contacts: W,
    events: W,
}

impl<W: Write> CsvTrajectoryWriter<W> {
    /// Writes the tables' header lines; `steps`, `contacts` and `events`
    /// receive the three tables.
    ///
    /// # Errors
    /// The writers'.
    pub fn new(
        mut steps: W,
        mut contacts: W,
        mut events: W,
        header: &TrajectoryHeader,
        velocities: bool,
    ) -> io::Result<Self> {
        write!(
            steps,
            "step,time,h,kinetic_energy,potential_energy,energy,penetration,contacts"
        )?;
        for (i, body) in header.bodies.iter().enumerate() {
            let name = body.name.clone().unwrap_or_else(|| format!("body{i}"));
            let mut columns = vec!["x", "y", "z", "qx", "qy", "qz", "qw"];
            if velocities {
                columns.extend(["vx", "vy", "vz", "wx", "wy", "wz"]);
            }
            for column in columns {
                write!(steps, ",{}", csv_field(&format!("{name}.{column}")))?;
            }
        }
        writeln!(steps)?;
        writeln!(
            contacts,
            "step,time,body_a,body_b,x,y,z,nx,ny,nz,fx,fy,fz,distance"
        )?;
        writeln!(events, "step,time,kind,body_a,body_b")?;
        Ok(Self {
            steps,
            contacts,
            events,
        })
    }

    /// Appends a frame: its row, and its contacts' rows.
    ///
    /// # Errors
    /// The writers'.
    pub fn frame(&mut self, frame: &Frame) -> io::Result<()> {
        let contacts = frame.contacts.as_deref().unwrap_or_default();
        write!(
            self.steps,
            "{},{},{},{},{},{},{},{}",
            frame.step,
            frame.time,
            frame.h,
            frame.kinetic_energy,
            frame.potential_energy,
            frame.energy,
            frame.penetration,
            contacts.len()
        )?;
        for (i, pose) in frame.poses.iter().enumerate() {
            for x in pose {
                write!(self.steps, ",{x}")?;
            }
            if let Some(velocities) = &frame.velocities {
                for x in &velocities[i] {
                    write!(self.steps, ",{x}")?;
                }
            }
        }
        writeln!(self.steps)?;
        for c in contacts {
            let [p, n, f] = [c.point, c.normal, c.force];
            writeln!(
                self.contacts,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                frame.step,
                frame.time,
                c.bodies[0],
                c.bodies[1],
                p[0],
                p[1],
                p[2],
                n[0],
                n[1],
                n[2],
                f[0],
                f[1],
                f[2],
                c.distance
            )?;
        }
        Ok(())
    }

    /// Writes the events and returns the three writers, flushed.
    ///
    /// # Errors
    /// The writers'.
    pub fn finish(mut self, events: &[Event]) -> io::Result<[W; 3]> {
        for event in events {
            let kind = match event.kind {
                EventKind::ContactBegins => "contact_begins",
                EventKind::ContactEnds => "contact_ends",
            };
            writeln!(
                self.events,
                "{},{},{kind},{},{}",
                event.step, event.time, event.bodies[0], event.bodies[1]
            )?;
        }
        for out in [&mut self.steps, &mut self.contacts, &mut self.events] {
            out.flush()?;
        }
        Ok([self.steps, self.contacts, self.events])
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}
