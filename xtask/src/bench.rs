//! `cargo xtask bench`: runs the criterion benches, then writes
//! `target/bench-report/report.md` and one log-log SVG plot per group.
//!
//! Absolute times on a shared two-core machine are noise; a ratio to a
//! yardstick measured in the same run is not. So every group that has a
//! yardstick (a function whose name starts with `faer_`) reports each other
//! function as a multiple of it at the same size.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use crate::bench_report::{Estimate, write_report};

const HELP: &str = "\
cargo xtask bench [GROUP...] [--quick] [--save NAME] [--baseline NAME]

Runs the criterion benches of the workspace (or only the named bench
targets: broad_phase, lcp, stack), then writes target/bench-report/report.md and plots.

  --quick          short measurements (a run takes a couple of minutes)
  --save NAME      keep this run as criterion baseline NAME
  --baseline NAME  compare with baseline NAME; slowdowns beyond criterion's
                   confidence interval are listed first in the report

cargo xtask bench peers [--quick]   peer LCP solvers (ODE, Bullet, Siconos,
                   Drake) beside ours: target/bench-report/peers.md
cargo xtask bench --install-peers   install them (apt, pip; see docs/benchmarks.md)
";

/// Bench targets of the `contact-benches` package.
const TARGETS: [&str; 3] = ["broad_phase", "lcp", "stack"];

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
    for (index, target) in targets.iter().enumerate() {
        println!("[{}/{}] bench target `{target}`", index + 1, targets.len());
        if let Err(message) = run_criterion(&root, target, &options) {
            eprintln!("xtask bench: {message}");
            return ExitCode::FAILURE;
        }
    }
    let estimates = match Estimate::collect(
        &root.join("target/criterion"),
        options.baseline.is_some(),
        started,
    ) {
        Ok(estimates) => estimates,
        Err(message) => {
            eprintln!("xtask bench: reading criterion results: {message}");
            return ExitCode::FAILURE;
        }
    };
    let out = root.join("target/bench-report");
    match write_report(&out, &estimates, options.baseline.as_deref()) {
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

/// One `cargo bench` run of a target, its output streamed.
fn run_criterion(root: &Path, target: &str, options: &Options) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(root)
        .args(["bench", "-p", "contact-benches", "--bench", target, "--"]);
    if options.quick {
        command.arg("--quick");
    }
    if let Some(name) = &options.save {
        command.args(["--save-baseline", name]);
    }
    if let Some(name) = &options.baseline {
        command.args(["--baseline", name]);
    }
    let status = command
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo bench --bench {target} failed ({status})"))
    }
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

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| (*s).to_string()).collect()
    }

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
