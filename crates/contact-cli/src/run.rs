//! `contact run SCENE.json [--duration S | --steps N] [--out TRAJ.json|.csv]
//! [--every K] [--save-state STATE.json]`: runs a scene file, shows its
//! progress, writes its trajectory and prints what happened, with a
//! verdict when the scene states expectations.
//!
//! Exit status: 0 when the run finished and every expectation holds (or
//! there is none); 1 when an expectation fails or a step fails; 2 for bad
//! arguments, a bad scene file or an output that cannot be written
//! ([`RunError::exit_status`]). Output files are written under temporary
//! names and renamed together when the run has finished, so a failed run
//! leaves none, not even a part.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use contact_sim::SimError;
use contact_sim::scene_file::{Scene, SceneError, SceneFile};
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
    /// bit for bit (it holds what the stepper carries into its next step).
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

/// Why `contact run` stopped before its summary.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The scene file could not be read or breaks a rule.
    #[error("{}: {source}", file.display())]
    Scene {
        /// The file.
        file: PathBuf,
        /// What is wrong, naming the field.
        source: SceneError,
    },
    /// Neither the command line nor the scene gives a usable run length.
    #[error("{0}")]
    Length(String),
    /// An output file could not be created or written.
    #[error("{argument} {}: {source}", path.display())]
    Output {
        /// The argument naming it: `--out` or `--save-state`.
        argument: &'static str,
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// A step failed; the run stopped there.
    #[error("step {step} (from t = {time:.6} s) failed: {source}; nothing was written")]
    Step {
        /// The step, counted from 1.
        step: u64,
        /// The simulated time at its start (s).
        time: f64,
        /// The stepper's error.
        source: SimError,
    },
}

impl RunError {
    /// The exit status: 1 for a failed step, 2 for bad input or output.
    #[must_use]
    pub fn exit_status(&self) -> u8 {
        match self {
            Self::Step { .. } => 1,
            Self::Scene { .. } | Self::Length(_) | Self::Output { .. } => 2,
        }
    }
}

/// Where the trajectory goes.
enum Recorder {
    None,
    Json(JsonTrajectoryWriter<AtomicFile>),
    Csv(CsvTrajectoryWriter<AtomicFile>),
}

/// An `--out` error about `path`.
fn out_error(path: &Path) -> impl Fn(io::Error) -> RunError + '_ {
    move |source| RunError::Output {
        argument: "--out",
        path: path.to_path_buf(),
        source,
    }
}

impl Recorder {
    fn open(
        out: Option<&Path>,
        header: &TrajectoryHeader,
        velocities: bool,
    ) -> Result<Self, RunError> {
        let Some(path) = out else {
            return Ok(Self::None);
        };
        let create = |path: &Path| AtomicFile::create(path).map_err(out_error(path));
        if path.extension().is_some_and(|e| e == "csv") {
            let beside = |suffix: &str| path.with_extension(format!("{suffix}.csv"));
            let writer = CsvTrajectoryWriter::new(
                create(path)?,
                create(&beside("contacts"))?,
                create(&beside("events"))?,
                header,
                velocities,
            )
            .map_err(out_error(path))?;
            Ok(Self::Csv(writer))
        } else {
            let writer =
                JsonTrajectoryWriter::new(create(path)?, header).map_err(out_error(path))?;
            Ok(Self::Json(writer))
        }
    }

    fn frame(&mut self, simulation: &Simulation) -> io::Result<()> {
        let record = &simulation.scene().record;
        match self {
            Self::None => Ok(()),
            Self::Json(writer) => writer.frame(&simulation.frame(record)),
            Self::Csv(writer) => writer.frame(&simulation.frame(record)),
        }
    }

    /// Closes the trajectory: its files, written in full, still under
    /// their temporary names.
    fn finish(self, simulation: &Simulation, summary: &RunSummary) -> io::Result<Vec<AtomicFile>> {
        Ok(match self {
            Self::None => Vec::new(),
            Self::Json(writer) => vec![writer.finish(simulation.events(), summary)?],
            Self::Csv(writer) => writer.finish(simulation.events())?.into(),
        })
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
fn run_length(options: &RunOptions, scene: &Scene) -> Result<Length, RunError> {
    if let Some(steps) = options.steps {
        return Ok(Length::Steps(steps));
    }
    let (duration, from) = match (options.duration, scene.run.duration, scene.run.steps) {
        (Some(duration), _, _) => (duration, "--duration"),
        (None, Some(duration), _) => (duration, "run.duration"),
        (None, None, Some(steps)) => return Ok(Length::Steps(steps)),
        (None, None, None) => {
            return Err(RunError::Length(
                "the scene states no run length (run.duration or run.steps): give --duration or \
                 --steps"
                    .into(),
            ));
        }
    };
    if !scene.stepper.has_fixed_steps() {
        return Ok(Length::Duration(duration));
    }
    let steps = (duration / scene.stepper.nominal_step()).round();
    if steps > 1e15 {
        return Err(RunError::Length(format!(
            "{from}: {duration} s is more than 1e15 steps"
        )));
    }
    Ok(Length::Steps((steps as u64).max(1)))
}

/// Runs the command (see the module comment for the exit status).
#[must_use]
pub fn run(options: &RunOptions) -> ExitCode {
    match execute(options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("contact run: {error}");
            ExitCode::from(error.exit_status())
        }
    }
}

/// Runs the scene and prints its summary; returns whether every
/// expectation holds.
///
/// # Errors
/// [`RunError`]: nothing is written then.
pub fn execute(options: &RunOptions) -> Result<bool, RunError> {
    let scene = SceneFile::load(&options.scene)
        .and_then(|file| file.build())
        .map_err(|source| RunError::Scene {
            file: options.scene.clone(),
            source,
        })?;
    let length = run_length(options, &scene)?;
    let every = options.every.unwrap_or(scene.record.every);
    let header = TrajectoryHeader::of(&scene, every);
    let out = options.out.as_deref().unwrap_or(Path::new(""));
    let mut recorder = Recorder::open(options.out.as_deref(), &header, scene.record.velocities)?;
    let state_error = |source| RunError::Output {
        argument: "--save-state",
        path: options.save_state.clone().unwrap_or_default(),
        source,
    };
    let state = options
        .save_state
        .as_deref()
        .map(AtomicFile::create)
        .transpose()
        .map_err(state_error)?;

    println!(
        "{}",
        summary::heading(&scene, &length.describe(scene.stepper.nominal_step()))
    );
    let mut simulation = Simulation::new(scene);
    recorder.frame(&simulation).map_err(out_error(out))?;
    let mut progress = Progress::new(length.total());
    let start = Instant::now();
    let mut frames = 1;
    let mut step = 0;
    while !length.reached(step, simulation.observations().elapsed) {
        step += 1;
        let time = simulation.scene().world.time();
        if let Err(source) = simulation.step() {
            progress.finish();
            let wall = start.elapsed().as_secs_f64();
            print!("{}", summary::render(&simulation, wall, &[], false));
            return Err(RunError::Step { step, time, source });
        }
        let elapsed = simulation.observations().elapsed;
        if step % every == 0 || length.reached(step, elapsed) {
            if let Err(error) = recorder.frame(&simulation) {
                progress.finish();
                return Err(out_error(out)(error));
            }
            frames += 1;
        }
        progress.update(
            length.done(step, elapsed),
            step,
            simulation.scene().world.time(),
        );
    }
    let wall = start.elapsed().as_secs_f64();
    progress.finish();

    let verdict = simulation.verdict();
    let observations = simulation.observations();
    let run_summary = RunSummary {
        observations: observations.clone(),
        events_left_out: observations.contacts_begun + observations.contacts_ended
            - simulation.events().len() as u64,
        verdict: verdict.clone(),
        wall_seconds: wall,
    };
    let trajectory = recorder
        .finish(&simulation, &run_summary)
        .map_err(out_error(out))?;
    let state = match state {
        Some(mut state) => {
            let text = simulation.scene().snapshot().to_json();
            state.write_all(text.as_bytes()).map_err(state_error)?;
            Some(state)
        }
        None => None,
    };
    // Every file is whole: now they take their names.
    for file in trajectory {
        file.commit().map_err(out_error(out))?;
    }
    if let Some(state) = state {
        state.commit().map_err(state_error)?;
    }

    let mut written = Vec::new();
    if let Some(out) = &options.out {
        written.push(format!("trajectory: {} ({frames} frames)", out.display()));
    }
    if let Some(path) = &options.save_state {
        written.push(format!(
            "state: {} (`contact run` continues it bit for bit)",
            path.display()
        ));
    }
    print!("{}", summary::render(&simulation, wall, &written, true));
    Ok(verdict.iter().all(|check| check.holds))
}
