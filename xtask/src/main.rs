//! Project automation, run as `cargo xtask <command>` (alias in
//! `.cargo/config.toml`). `cargo xtask --help` lists the commands.

mod bench;
mod bench_progress;
mod bench_report;
mod check_layers;
mod fuzz;
mod loglog;
mod peers;
mod regress;
mod scenes;
mod viewer_check;

use std::process::ExitCode;

const HELP: &str = "\
cargo xtask <command> [args]

Commands:
  check-layers   check that the workspace's crates depend only downward
                 (contact-math -> contact-lcp -> contact-geometry ->
                 contact-dynamics -> contact-sim; contact-lcp stands alone)
  bench          run the criterion benches and write target/bench-report/
                 (report.md and plots; `cargo xtask bench --help` for options)
  regress        run the regression cases under regress/ and compare each
                 observable with its expected value (--quick: CI's subset)
  fuzz           solve random LCPs with every solver and re-certify each
                 answer independently (`cargo xtask fuzz --help`)
  solve-lcp      `contact solve-lcp`, built in release: solve an LCP or box
                 LCP from a JSON file and print the solution as one JSON
                 line (`cargo xtask solve-lcp --help`)
  viewer-check   render a `contact view` page in headless Chromium and check
                 that it drew each body where the camera puts it, with no
                 script error (`cargo xtask viewer-check --help`)
  help           print this text
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        eprint!("{HELP}");
        return ExitCode::FAILURE;
    };
    match command.as_str() {
        "help" | "--help" | "-h" => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        "check-layers" => check_layers::run(),
        "bench" => bench::run(&args[1..]),
        "regress" => regress::run(&args[1..]),
        "solve-lcp" => solve_lcp(&args[1..]),
        "fuzz" => fuzz::run(&args[1..]),
        "viewer-check" => viewer_check::run(&args[1..]),
        other => {
            eprintln!("xtask: unknown command `{other}`\n\n{HELP}");
            ExitCode::FAILURE
        }
    }
}

/// `contact solve-lcp ARGS`, the program built in release (the line's
/// `seconds` is a timing), from the workspace's `contact-cli`.
fn solve_lcp(args: &[String]) -> ExitCode {
    let status = std::process::Command::new(std::env::var_os("CARGO").unwrap_or("cargo".into()))
        .args([
            "run",
            "--quiet",
            "--release",
            "--package",
            "contact-cli",
            "--",
            "solve-lcp",
        ])
        .args(args)
        .status();
    match status {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::FAILURE,
        },
        Err(error) => {
            eprintln!("xtask solve-lcp: cannot run cargo: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Where cargo builds: `CARGO_TARGET_DIR` (relative to the workspace root
/// when relative), or the workspace's `target/`. Criterion's results and
/// the reports go there.
fn target_dir(root: &std::path::Path) -> std::path::PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => root.join(dir),
        _ => root.join("target"),
    }
}

/// Owned arguments from literals, as `main` hands them to the commands:
/// the argument parsers' tests share it.
#[cfg(test)]
fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_string()).collect()
}
