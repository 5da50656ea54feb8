//! `cargo xtask bench`: runs the criterion benches, then writes
//! `target/bench-report/report.md` and one log-log SVG plot per group.
//!
//! Absolute times on a shared two-core machine are noise; a ratio to a
//! yardstick measured in the same run is not. So every group that has a
//! yardstick (a function whose name starts with `faer_`) reports each other
//! function as a multiple of it at the same size.

use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Instant;

use crate::bench_progress::{Progress, clock, parse_list};
use crate::bench_report::{Estimate, RunTime, write_report};

const HELP: &str = "\
cargo xtask bench [GROUP...] [--quick] [--save NAME] [--baseline NAME]

Runs the criterion benches of the workspace (or only the named bench
targets: broad_phase, geometry, lcp, mechanisms, stack, steppers), then writes target/bench-report/report.md and plots.

  --quick          short measurements (a run takes a couple of minutes)
  --save NAME      keep this run as criterion baseline NAME
  --baseline NAME  compare with baseline NAME; slowdowns beyond criterion's
                   confidence interval are listed first in the report

cargo xtask bench peers [--quick]   peer LCP solvers (ODE, Bullet, Siconos,
                   Drake) beside ours: target/bench-report/peers.md
cargo xtask bench --install-peers   install them (apt, pip; see docs/benchmarks.md)
cargo xtask bench scenes [--quick] [--steps N] [--hz F] [SCENE...]   whole steps of our stepper
                   beside rapier3d-f64 on pyramids, stacks and a box pile:
                   scenes.md, .csv, .svg in target/bench-report/
";

/// Bench targets of the `contact-benches` package.
const TARGETS: [&str; 6] = [
    "broad_phase",
    "geometry",
    "lcp",
    "mechanisms",
    "stack",
    "steppers",
];

/// Parsed command line.
#[derive(Debug, Default, PartialEq)]
struct Options {
    targets: Vec<String>,
    quick: bool,
    save: Option<String>,
    baseline: Option<String>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => options.quick = true,
            "--save" => options.save = Some(args.next().ok_or("--save needs a NAME")?.clone()),
            "--baseline" => {
                options.baseline = Some(args.next().ok_or("--baseline needs a NAME")?.clone());
            }
            target if TARGETS.contains(&target) => options.targets.push(target.to_string()),
            other => {
                return Err(format!(
                    "unknown argument `{other}` (groups: {})",
                    TARGETS.join(", ")
                ));
            }
        }
    }
    Ok(options)
}

/// Runs the command.
pub fn run(args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    if let Some(code) = crate::scenes::hook(args) {
        return code;
    }
    if let Some(code) = crate::peers::hook(args) {
        return code;
    }
    let options = match parse(args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("xtask bench: {message}\n\n{HELP}");
            return ExitCode::FAILURE;
        }
    };
    let root = workspace_root();
    let targets: Vec<&str> = if options.targets.is_empty() {
        TARGETS.to_vec()
    } else {
        options.targets.iter().map(String::as_str).collect()
    };
    let started = std::time::SystemTime::now();
    let wall_clock = Instant::now();
    // Listing builds every target first, so the bar counts benchmarks only.
    let mut total = 0;
    for target in &targets {
        match list_benchmarks(&root, target) {
            Ok(ids) => total += ids.len(),
            Err(message) => {
                eprintln!("xtask bench: {message}");
                return ExitCode::FAILURE;
            }
        }
    }
    let build = wall_clock.elapsed();
    let mut progress = Progress::new(total, std::io::stdout().is_terminal());
    for (index, target) in targets.iter().enumerate() {
        println!("[{}/{}] bench target `{target}`", index + 1, targets.len());
        progress.start_target(target);
        if let Err(message) = run_criterion(&root, target, &options, &mut progress) {
            eprintln!("xtask bench: {message}");
            return ExitCode::FAILURE;
        }
    }
    let run_time = RunTime {
        build,
        measure: wall_clock.elapsed() - build,
        quick: options.quick,
        all_targets: targets.len() == TARGETS.len(),
    };
    println!(
        "{} of {total} benchmarks in {} (wall time; building took {})",
        progress.done(),
        clock(run_time.measure),
        clock(run_time.build)
    );
    let estimates = match Estimate::collect(
        &crate::target_dir(&root).join("criterion"),
        options.baseline.is_some(),
        started,
    ) {
        Ok(estimates) => estimates,
        Err(message) => {
            eprintln!("xtask bench: reading criterion results: {message}");
            return ExitCode::FAILURE;
        }
    };
    let out = crate::target_dir(&root).join("bench-report");
    match write_report(
        &out,
        &estimates,
        options.baseline.as_deref(),
        Some(&run_time),
    ) {
        Ok(()) => {
            println!("report: {}", out.join("report.md").display());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("xtask bench: writing the report: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo bench` of one target with criterion's arguments to follow.
fn cargo_bench(root: &Path, target: &str) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(root)
        .args(["bench", "-p", "contact-benches", "--bench", target, "--"]);
    command
}

/// The benchmark ids of a target (building it if needed; cargo's own
/// messages go to the terminal).
fn list_benchmarks(root: &Path, target: &str) -> Result<Vec<String>, String> {
    let output = cargo_bench(root, target)
        .args(["--list", "--format", "terse"])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo bench --bench {target} -- --list failed ({})",
            output.status
        ));
    }
    Ok(parse_list(&String::from_utf8_lossy(&output.stdout)))
}

/// One `cargo bench` run of a target; criterion's stdout goes through
/// `progress`, cargo's stderr straight to the terminal.
fn run_criterion(
    root: &Path,
    target: &str,
    options: &Options,
    progress: &mut Progress,
) -> Result<(), String> {
    let mut command = cargo_bench(root, target);
    if options.quick {
        command.arg("--quick");
    }
    if let Some(name) = &options.save {
        command.args(["--save-baseline", name]);
    }
    if let Some(name) = &options.baseline {
        command.args(["--baseline", name]);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    // Criterion prints results on stdout and its `Benchmarking` status on
    // stderr (with cargo's messages): one reader thread each, merged here
    // in arrival order.
    let (sender, lines) = mpsc::channel();
    let stdout = child
        .stdout
        .take()
        .map(|s| forward_lines(s, sender.clone()));
    let stderr = child.stderr.take().map(|s| forward_lines(s, sender));
    let mut out = std::io::stdout();
    for line in lines {
        progress.line(&line, &mut out);
    }
    for reader in [stdout, stderr].into_iter().flatten() {
        let _ = reader.join();
    }
    progress.end_target(&mut out);
    let status = child
        .wait()
        .map_err(|e| format!("waiting for cargo bench: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo bench --bench {target} failed ({status})"))
    }
}

/// Sends every line of `stream` to `sender` from a new thread, until the
/// stream ends.
fn forward_lines(
    stream: impl Read + Send + 'static,
    sender: mpsc::Sender<String>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    })
}

/// The workspace root: xtask's manifest directory's parent.
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strings;

    #[test]
    fn parses_groups_and_flags() {
        let options = parse(&strings(&["lcp", "--quick", "--baseline", "main"])).unwrap();
        assert_eq!(options.targets, vec!["lcp"]);
        assert!(options.quick);
        assert_eq!(options.baseline.as_deref(), Some("main"));
        assert!(parse(&strings(&["--save"])).is_err());
        assert!(parse(&strings(&["nonsense"])).is_err());
    }
}
