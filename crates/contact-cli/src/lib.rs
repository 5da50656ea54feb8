//! The `contact` program: runs scene files (`contact run`), solves LCP
//! files (`contact solve-lcp`), replays trajectories in a browser page
//! (`contact view`) and plots them (`contact plot`). Its commands live
//! here, so tests and `cargo xtask` can call them; `main.rs` only parses
//! the command line.
//!
//! Install it with `cargo install --path crates/contact-cli`; `contact
//! --help` lists the commands, `contact run --help` their arguments.

mod atomic_file;
pub mod plot;
mod progress;
pub mod run;
pub mod solve_lcp;
pub mod summary;
pub mod trajectory_file;
pub mod view;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "contact",
    version,
    about = "Rigid bodies in contact: run scene files, solve LCP files, view and plot trajectories.",
    after_help = "Scene files: docs/scene-format.md. Trajectories: docs/trajectory-format.md. \
                  LCP files: docs/lcp-file-format.md."
)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scene file: progress, a summary (speed, penetration, energy,
    /// events) and a verdict on the scene's expectations; optionally write
    /// its trajectory and its final state.
    Run(run::RunOptions),
    /// Solve an LCP or box LCP from a JSON file and print the solution as
    /// one line of JSON (z, w, method, pivots, iterations, residual,
    /// complementarity, status, seconds).
    SolveLcp(solve_lcp::Options),
    /// Write a self-contained HTML page replaying a trajectory in 3D
    /// (bodies, contact forces, joints, a timeline); it needs no network.
    View(view::ViewOptions),
    /// Plot a trajectory (energy, penetration, contact forces, step sizes,
    /// events against time) as PNG and SVG.
    Plot(plot::PlotOptions),
}

/// Parses `args` (the program name first) and runs the command. Bad
/// arguments print clap's message, naming the argument, with exit status 2.
#[must_use]
pub fn main_with(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let code = if error.use_stderr() { 2 } else { 0 };
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    match &cli.command {
        Command::Run(options) => run::run(options),
        Command::SolveLcp(options) => solve_lcp::run(options),
        Command::View(options) => view::run(options),
        Command::Plot(options) => plot::run(options),
    }
}
