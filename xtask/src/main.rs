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
mod solve_lcp;

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
  solve-lcp      solve an LCP or box LCP from a JSON file and print the
                 solution as one JSON line (`cargo xtask solve-lcp --help`)
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
        "solve-lcp" => solve_lcp::run(&args[1..]),
        "fuzz" => fuzz::run(&args[1..]),
        other => {
            eprintln!("xtask: unknown command `{other}`\n\n{HELP}");
            ExitCode::FAILURE
        }
    }
}

/// Owned arguments from literals, as `main` hands them to the commands:
/// the argument parsers' tests share it.
#[cfg(test)]
fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_string()).collect()
}
