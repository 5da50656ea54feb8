//! Trajectory files (docs/trajectory-format.md) read back as written: the
//! JSON document parses as a `Trajectory` holding the frames, events and
//! summary of the run; the CSV tables have one row per frame, contact and
//! event, each with as many fields as its header.
#![cfg(feature = "serde")]

use contact_sim::scene_file::SceneFile;
use contact_sim::simulation::Simulation;
use contact_sim::trajectory::{
    CsvTrajectoryWriter, JsonTrajectoryWriter, RunSummary, TRAJECTORY_FORMAT, Trajectory,
    TrajectoryHeader,
};
use serde_json::json;

/// A ball bouncing beside a box, recording velocities every 3 steps; the
/// run, its frames and their rows.
fn run(steps: u64) -> (Simulation, Vec<contact_sim::trajectory::Frame>) {
    let text = json!({
        "version": 1, "name": "bounce, box",
        "bodies": [
            { "name": "ground", "fixed": true, "shape": { "half_space": { "normal": [0, 0, 1] } } },
            { "name": "ball", "shape": { "sphere": { "radius": 0.1 } }, "mass": 1.0,
              "position": [0, 0, 0.15], "restitution": 0.5 },
            { "name": "box, small", "shape": { "box": { "half_extents": [0.1, 0.1, 0.1] } }, "mass": 1.0,
              "position": [1, 0, 0.1] }
        ],
        "joints": [ { "kind": "prismatic", "body_b": "box, small", "anchor": [1, 0, 0.1], "axis": [0, 0, 1] } ],
        "record": { "every": 3, "velocities": true }
    })
    .to_string();
    let scene = SceneFile::parse(&text).unwrap().build().unwrap();
    let mut simulation = Simulation::new(scene);
    let record = simulation.scene().record;
    let mut frames = vec![simulation.frame(&record)];
    for step in 1..=steps {
        simulation.step().unwrap();
        if step % record.every == 0 || step == steps {
            frames.push(simulation.frame(&record));
        }
    }
    (simulation, frames)
}

fn summary(simulation: &Simulation) -> RunSummary {
    RunSummary {
        observations: simulation.observations().clone(),
        events_left_out: 0,
        verdict: simulation.verdict(),
        wall_seconds: 0.0,
    }
}

#[test]
fn a_json_trajectory_reads_back_as_written() {
    let (simulation, frames) = run(40);
    let header = TrajectoryHeader::of(simulation.scene(), 3);
    let mut writer = JsonTrajectoryWriter::new(Vec::new(), &header).unwrap();
    for frame in &frames {
        writer.frame(frame).unwrap();
    }
    let bytes = writer
        .finish(simulation.events(), &summary(&simulation))
        .unwrap();
    let trajectory: Trajectory = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(trajectory.header, header);
    assert_eq!(trajectory.header.format, TRAJECTORY_FORMAT);
    assert_eq!(trajectory.frames, frames);
    assert_eq!(trajectory.frames.len(), 1 + 40 / 3 + 1);
    assert_eq!(trajectory.frames[0].step, 0);
    assert_eq!(trajectory.frames.last().unwrap().step, 40);
    assert_eq!(trajectory.events, simulation.events());
    assert!(
        !trajectory.events.is_empty(),
        "the ball lands: an event to write"
    );
    assert_eq!(trajectory.summary, summary(&simulation));
    assert_eq!(trajectory.header.joints.len(), 1);
    assert_eq!(trajectory.header.joints[0].kind, "prismatic");
    let last = trajectory.frames.last().unwrap();
    assert_eq!(last.time, simulation.scene().world.time());
    assert_eq!(last.velocities.as_ref().map(Vec::len), Some(3));
}

/// The fields of a CSV line (quoted fields may hold commas).
fn fields(line: &str) -> usize {
    let mut count = 1;
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => count += 1,
            _ => {}
        }
    }
    count
}

#[test]
fn csv_tables_have_a_row_per_frame_contact_and_event() {
    let (simulation, frames) = run(40);
    let header = TrajectoryHeader::of(simulation.scene(), 3);
    let mut writer =
        CsvTrajectoryWriter::new(Vec::new(), Vec::new(), Vec::new(), &header, true).unwrap();
    for frame in &frames {
        writer.frame(frame).unwrap();
    }
    let [steps, contacts, events] = writer.finish(simulation.events()).unwrap();
    let [steps, contacts, events] =
        [steps, contacts, events].map(|bytes| String::from_utf8(bytes).unwrap());
    let steps: Vec<&str> = steps.lines().collect();
    assert_eq!(steps.len(), 1 + frames.len());
    // 8 columns, then 7 of pose and 6 of velocity per body.
    assert_eq!(fields(steps[0]), 8 + 3 * 13);
    assert!(steps[0].contains("\"box, small.qw\""), "{}", steps[0]);
    assert!(steps.iter().all(|line| fields(line) == fields(steps[0])));
    let contact_rows: usize = frames
        .iter()
        .map(|f| f.contacts.as_ref().map_or(0, Vec::len))
        .sum();
    assert!(contact_rows > 0);
    assert_eq!(contacts.lines().count(), 1 + contact_rows);
    assert!(contacts.lines().all(|line| fields(line) == 14));
    assert_eq!(events.lines().count(), 1 + simulation.events().len());
    assert!(events.lines().all(|line| fields(line) == 5));
}
