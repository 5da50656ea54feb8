//! `contact run SCENE.json [--duration S | --steps N] [--out TRAJ.json|.csv]
//! [--every K] [--save-state STATE.json]`: runs a scene file, shows its
//! progress, writes its trajectory and prints what happened, with a
//! verdict when the scene states expectations.
//!
//! Exit status: 0 when the run finished and every expectation holds (or
//! there is none); 1 when an expectation fails or a step fails; 2 for bad
//! arguments, a bad scene file or an output that cannot be written.
//! Output files are written under temporary names and renamed when the run
//! has finished, so a failed run leaves none, not even a part.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use contact_sim::scene_file::{Scene, SceneFile};
use contact_sim::simulation::Simulation;
use contact_sim::trajectory::{
    CsvTrajectoryWriter, JsonTrajectoryWriter, RunSummary, TrajectoryHeader,
};

use crate::atomic_file::AtomicFile;
use crate::progress::Progress;
use crate::summary;

/// The command line of `contact run`.
#[derive(Clone, Debug, PartialEq, clap::Args)]
pub struct RunOptions {
    /// The scene file (docs/scene-format.md).
    #[arg(value_name = "SCENE.json")]
    pub scene: PathBuf,
    /// Simulated time to run (s, > 0), instead of the scene's `run`.
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = positive_seconds,
        conflicts_with = "steps",
        allow_negative_numbers = true
    )]
    pub duration: Option<f64>,
    /// Steps to run (>= 1), instead of the scene's `run`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub steps: Option<u64>,
    /// Write the trajectory (docs/trajectory-format.md): NAME.json, one
    /// document; or NAME.csv, a row per recorded step, with
    /// NAME.contacts.csv and NAME.events.csv beside it.
    #[arg(long, value_name = "TRAJ", value_parser = trajectory_path)]
    pub out: Option<PathBuf>,
    /// Record every K-th step (K >= 1), instead of the scene's
    /// `record.every`; the first and last states are always recorded.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub every: Option<u64>,
    /// Write the state at the end as a scene file that continues the run
    /// (bit for bit with the fixed stepper, whose memory it holds).
    #[arg(long, value_name = "STATE.json", value_parser = json_path)]
    pub save_state: Option<PathBuf>,
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 => Ok(seconds),
        Ok(_) => Err("must be a finite number of seconds > 0".into()),
        Err(_) => Err("not a number".into()),
    }
}

fn trajectory_path(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    match path.extension().and_then(|e| e.to_str()) {
        Some("json" | "csv") => Ok(path),
        _ => Err("the trajectory file must end in .json or .csv".into()),
    }
}

fn json_path(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => Ok(path),
        _ => Err("the state file must end in .json".into()),
    }
}

/// Where the trajectory goes.
enum Recorder {
    None,
    Json(JsonTrajectoryWriter<AtomicFile>),
    Csv(CsvTrajectoryWriter<AtomicFile>),
}

impl Recorder {
    fn open(
        out: Option<&Path>,
        header: &TrajectoryHeader,
        velocities: bool,
    ) -> Result<Self, String> {
        let Some(path) = out else {
            return Ok(Self::None);
        };
        let create = |path: &Path| {
            AtomicFile::create(path).map_err(|e| format!("--out {}: {e}", path.display()))
        };
        let written = |e: std::io::Error| format!("--out {}: {e}", path.display());
        if path.extension().is_some_and(|e| e == "csv") {
            let beside = |suffix: &str| path.with_extension(format!("{suffix}.csv"));
            let writer = CsvTrajectoryWriter::new(
                create(path)?,
                create(&beside("contacts"))?,
                create(&beside("events"))?,
                header,
                velocities,
            )
            .map_err(written)?;
            Ok(Self::Csv(writer))
        } else {
            let writer = JsonTrajectoryWriter::new(create(path)?, header).map_err(written)?;
            Ok(Self::Json(writer))
        }
    }

    fn frame(&mut self, simulation: &Simulation) -> std::io::Result<()> {
        let record = &simulation.scene().record;
        match self {
            Self::None => Ok(()),
            Self::Json(writer) => writer.frame(&simulation.frame(record)),
            Self::Csv(writer) => writer.frame(&simulation.frame(record)),
        }
    }

    /// Closes the trajectory and renames its files into place.
    fn finish(self, simulation: &Simulation, summary: &RunSummary) -> std::io::Result<()> {
        match self {
            Self::None => Ok(()),
            Self::Json(writer) => writer.finish(simulation.events(), summary)?.commit(),
            Self::Csv(writer) => {
                for file in writer.finish(simulation.events())? {
                    file.commit()?;
                }
                Ok(())
            }
        }
    }
}

/// How long a run lasts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Length {
    /// This many steps.
    Steps(u64),
    /// Until this much simulated time has passed (s): steps of varying
    /// length, the last ending at or just past it.
    Duration(f64),
}

impl Length {
    /// The length in the units of [`Progress`]: steps, or thousandths of
    /// the duration.
    fn total(self) -> u64 {
        match self {
            Self::Steps(steps) => steps,
            Self::Duration(_) => 1000,
        }
    }

    /// How far a run is, in the units of [`total`](Self::total).
    fn done(self, steps: u64, elapsed: f64) -> u64 {
        match self {
            Self::Steps(_) => steps,
            Self::Duration(duration) => ((elapsed / duration).clamp(0.0, 1.0) * 1000.0) as u64,
        }
    }

    /// Whether a run that took `steps` steps over `elapsed` seconds is done.
    fn reached(self, steps: u64, elapsed: f64) -> bool {
        match self {
            Self::Steps(total) => steps >= total,
            // Round-off of the summed step lengths must not add a step.
            Self::Duration(duration) => elapsed >= duration * (1.0 - 1e-12),
        }
    }

    /// In words, for the heading.
    fn describe(self, h: f64) -> String {
        match self {
            Self::Steps(steps) => format!(
                "{steps} steps of {} s ({} s)",
                summary::number(h),
                summary::number(steps as f64 * h)
            ),
            Self::Duration(duration) => format!(
                "{} s in steps of at most {} s",
                summary::number(duration),
                summary::number(h)
            ),
        }
    }
}

/// The length of the run: the command line's, else the scene's. A fixed
/// stepper's duration is rounded to whole steps.
fn run_length(options: &RunOptions, scene: &Scene) -> Result<Length, String> {
    if let Some(steps) = options.steps {
        return Ok(Length::Steps(steps));
    }
    let (duration, from) = match (options.duration, scene.run.duration, scene.run.steps) {
        (Some(duration), _, _) => (duration, "--duration"),
        (None, Some(duration), _) => (duration, "run.duration"),
        (None, None, Some(steps)) => return Ok(Length::Steps(steps)),
        (None, None, None) => {
            return Err(
                "the scene states no run length (run.duration or run.steps): give --duration or --steps"
                    .into(),
            );
        }
    };
    if !scene.stepper.has_fixed_steps() {
        return Ok(Length::Duration(duration));
    }
    let steps = (duration / scene.stepper.nominal_step()).round();
    if steps > 1e15 {
        return Err(format!("{from}: {duration} s is more than 1e15 steps"));
    }
    Ok(Length::Steps((steps as u64).max(1)))
}

/// Runs the command (see the module comment for the exit status).
#[must_use]
pub fn run(options: &RunOptions) -> ExitCode {
    let fail = |code: u8, message: String| {
        eprintln!("contact run: {message}");
        ExitCode::from(code)
    };
    let scene = match SceneFile::load(&options.scene).and_then(|file| file.build()) {
        Ok(scene) => scene,
        Err(error) => return fail(2, format!("{}: {error}", options.scene.display())),
    };
    let length = match run_length(options, &scene) {
        Ok(length) => length,
        Err(message) => return fail(2, message),
    };
    let every = options.every.unwrap_or(scene.record.every);
    let header = TrajectoryHeader::of(&scene, every);
    let mut recorder =
        match Recorder::open(options.out.as_deref(), &header, scene.record.velocities) {
            Ok(recorder) => recorder,
            Err(message) => return fail(2, message),
        };
    let state = match options
        .save_state
        .as_deref()
        .map(AtomicFile::create)
        .transpose()
    {
        Ok(state) => state,
        Err(error) => {
            let path = options.save_state.as_deref().unwrap_or(Path::new(""));
            return fail(2, format!("--save-state {}: {error}", path.display()));
        }
    };

    println!(
        "{}",
        summary::heading(&scene, &length.describe(scene.stepper.nominal_step()))
    );
    let mut simulation = Simulation::new(scene);
    let io_error = |e: std::io::Error| {
        let path = options.out.as_deref().unwrap_or(Path::new(""));
        format!("--out {}: {e}", path.display())
    };
    if let Err(e) = recorder.frame(&simulation) {
        return fail(2, io_error(e));
    }
    let mut progress = Progress::new(length.total());
    let start = Instant::now();
    let mut frames = 1;
    let mut step = 0;
    while !length.reached(step, simulation.observations().elapsed) {
        step += 1;
        if let Err(error) = simulation.step() {
            progress.finish();
            let time = simulation.scene().world.time();
            print!(
                "{}",
                summary::render(&simulation, start.elapsed().as_secs_f64(), &[], false)
            );
            return fail(
                1,
                format!("step {step} (from t = {time:.6} s) failed: {error}; nothing was written"),
            );
        }
        let last = length.reached(step, simulation.observations().elapsed);
        if step % every == 0 || last {
            if let Err(e) = recorder.frame(&simulation) {
                progress.finish();
                return fail(2, io_error(e));
            }
            frames += 1;
        }
        let elapsed = simulation.observations().elapsed;
        progress.update(
            length.done(step, elapsed),
            step,
            simulation.scene().world.time(),
        );
    }
    let wall = start.elapsed().as_secs_f64();
    progress.finish();

    let verdict = simulation.verdict();
    let run_summary = RunSummary {
        observations: simulation.observations().clone(),
        events_left_out: simulation.observations().contacts_begun
            + simulation.observations().contacts_ended
            - simulation.events().len() as u64,
        verdict: verdict.clone(),
        wall_seconds: wall,
    };
    if let Err(e) = recorder.finish(&simulation, &run_summary) {
        return fail(2, io_error(e));
    }
    if let Some(mut state) = state {
        let text = simulation.scene().snapshot().to_json();
        if let Err(e) =
            std::io::Write::write_all(&mut state, text.as_bytes()).and_then(|()| state.commit())
        {
            let path = options.save_state.as_deref().unwrap_or(Path::new(""));
            return fail(2, format!("--save-state {}: {e}", path.display()));
        }
    }
    let mut written = Vec::new();
    if let Some(out) = &options.out {
        written.push(format!("trajectory: {} ({frames} frames)", out.display()));
    }
    if let Some(path) = &options.save_state {
        let exactly = if simulation.scene().stepper.restores_exactly() {
            "bit for bit"
        } else {
            "from this state, not bit for bit"
        };
        written.push(format!(
            "state: {} (`contact run` continues it {exactly})",
            path.display()
        ));
    }
    print!("{}", summary::render(&simulation, wall, &written, true));
    if verdict.iter().all(|check| check.holds) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
