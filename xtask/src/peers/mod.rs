//! `cargo xtask bench peers` and `cargo xtask bench --install-peers`
//! (issue 5): the same LCP files solved by established solvers installed on
//! the machine (ODE, Bullet, Siconos, Drake) and by ours, each answer
//! certified with our `verify`, times and residuals side by side in
//! `target/bench-report/peers.md`. A peer that is not installed is skipped
//! with one line saying so; CI needs none of them.

mod drivers;
mod ours;
mod problem_set;
mod report;
mod text_format;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use drivers::{LIBRARIES, Peer, Setup};
use problem_set::Problem;
use report::{Claim, Outcome, Row};

/// How long one driver may take on one problem (K solves) before it is
/// killed and reported as an error.
const DRIVER_TIMEOUT: Duration = Duration::from_secs(120);

/// The parsed arguments of the peers part of `cargo xtask bench`.
#[derive(Debug, Default, PartialEq)]
struct Options {
    run: bool,
    install: bool,
    quick: bool,
}

/// Handles `cargo xtask bench` when its arguments ask for the peers
/// (`peers` or `--install-peers`); `None` otherwise, for the criterion path.
pub fn hook(args: &[String]) -> Option<ExitCode> {
    let options = Options {
        run: args.iter().any(|a| a == "peers"),
        install: args.iter().any(|a| a == "--install-peers"),
        quick: args.iter().any(|a| a == "--quick"),
    };
    if !options.run && !options.install {
        return None;
    }
    if let Some(other) = args
        .iter()
        .find(|a| !matches!(a.as_str(), "peers" | "--install-peers" | "--quick"))
    {
        eprintln!(
            "xtask bench: `{other}` does not go with `peers` or `--install-peers` \
             (cargo xtask bench [peers] [--install-peers] [--quick])"
        );
        return Some(ExitCode::FAILURE);
    }
    Some(run(&options, args))
}

fn run(options: &Options, args: &[String]) -> ExitCode {
    let root = crate::bench::workspace_root();
    let work = crate::target_dir(&root).join("bench-peers");
    if options.install {
        if let Err(message) = install(&root, &work) {
            eprintln!("xtask bench --install-peers: {message}");
            return ExitCode::FAILURE;
        }
    }
    if !options.run {
        return ExitCode::SUCCESS;
    }
    if cfg!(debug_assertions) {
        // `cargo xtask` builds unoptimised; timing our solvers there would
        // compare a debug build with the peers' -O2 builds.
        return rerun_optimised(&root, args);
    }
    match compare(&Setup { root, work }, options.quick) {
        Ok(path) => {
            println!("report: {}", path.display());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("xtask bench peers: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `peers/install.sh` (apt packages, Drake's venv).
fn install(root: &Path, work: &Path) -> Result<(), String> {
    let status = Command::new("sh")
        .current_dir(root)
        .arg("peers/install.sh")
        .arg(work.join("drake-venv"))
        .status()
        .map_err(|e| format!("cannot run peers/install.sh: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("peers/install.sh failed ({status})"))
    }
}

/// `cargo run --release -p xtask -- bench peers ...`, without the install
/// step (already done).
fn rerun_optimised(root: &Path, args: &[String]) -> ExitCode {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let forwarded = args.iter().filter(|a| a.as_str() != "--install-peers");
    println!("building xtask optimised to time the solvers");
    match Command::new(cargo)
        .current_dir(root)
        .args([
            "run",
            "--quiet",
            "--release",
            "--package",
            "xtask",
            "--",
            "bench",
        ])
        .args(forwarded)
        .status()
    {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xtask bench peers: cannot run cargo: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Timed solves per solver and problem: enough to make a median of
/// sub-millisecond solves, few for the slow large ones.
fn repeats(n: usize, quick: bool) -> usize {
    let k = match n {
        0..=32 => 200,
        33..=128 => 50,
        129..=300 => 15,
        _ => 5,
    };
    if quick { (k / 4).max(3) } else { k }
}

/// Rounds of solves per problem: the solvers take turns, so that each
/// ratio compares times measured close together (see `compare`). One for
/// the large problems, whose peers can take seconds a solve.
fn rounds(n: usize, quick: bool) -> usize {
    match (n, quick) {
        (0..=128, false) => 7,
        (0..=128, true) => 3,
        _ => 1,
    }
}

/// `row` with the yardstick's time and clock reads (`ours::Timed`)
/// measured just before it (`None`: the row is the yardstick's own, its
/// own time).
fn paired(mut row: Row, before: Option<(f64, Option<f64>)>) -> Row {
    if let Outcome::Ran {
        seconds,
        clock,
        paired,
        paired_clock,
        ..
    } = &mut row.outcome
    {
        let (time, reads) = before.unwrap_or((seconds[0], clock.first().copied()));
        *paired = vec![time];
        *paired_clock = reads.into_iter().collect();
    }
    row
}

/// Adds a later round's outcome of the same solver to `row`: its time
/// joins the round times when its claim and verdict are the same; a
/// correct row that meets anything else (an error, a wrong answer) takes
/// that instead, and a row that already failed keeps its first failure, so
/// a failure in any round is what the report shows.
fn merge_round(row: &mut Row, next: Row) {
    let correct = |outcome: &Outcome| {
        matches!(outcome, Outcome::Ran { claim, report, .. }
            if report::verdict(claim, report) == "ok")
    };
    let was_correct = correct(&row.outcome);
    match (&mut row.outcome, next.outcome) {
        (
            Outcome::Ran {
                seconds,
                clock,
                paired,
                paired_clock,
                claim,
                report,
            },
            Outcome::Ran {
                seconds: more,
                clock: more_clock,
                paired: more_paired,
                paired_clock: more_paired_clock,
                claim: next_claim,
                report: next_report,
            },
        ) if *claim == next_claim
            && report::verdict(claim, report) == report::verdict(&next_claim, &next_report) =>
        {
            seconds.extend(more);
            clock.extend(more_clock);
            paired.extend(more_paired);
            paired_clock.extend(more_paired_clock);
        }
        (_, outcome) if was_correct => row.outcome = outcome,
        _ => {}
    }
}

/// Generates the problems, runs ours and every installed peer on each, and
/// writes the report; returns its path.
fn compare(setup: &Setup, quick: bool) -> Result<PathBuf, String> {
    let problems = problem_set::generate(quick)?;
    let dir = setup.work.join("problems");
    let mut skipped = Vec::new();
    let mut installed = Vec::new();
    for library in LIBRARIES {
        match setup.probe(library).and_then(|()| setup.build(library)) {
            Ok(()) => installed.push(library),
            Err(reason) => {
                let line = format!(
                    "skipped: {} not installed ({reason}; run cargo xtask bench --install-peers)",
                    library.name()
                );
                println!("{line}");
                skipped.push(line);
            }
        }
    }
    let mut rows = Vec::new();
    for problem in &problems {
        let files = problem_set::write(&dir, problem)?;
        let n = problem.problem().dim();
        // A pass over a set solves all of it: fewer passes.
        let repeat = if problem.is_set() {
            (repeats(n, quick) / 8).max(5)
        } else {
            repeats(n, quick)
        };
        let rounds = rounds(n, quick);
        println!("{} (n = {n}, K = {repeat}, {rounds} rounds)", problem.name);
        // Every solver once per round, each right after a run of the
        // yardstick (our Dantzig, or our Lemke where Dantzig does not
        // apply): the machine's speed moves between rounds and even within
        // one (docs/benchmarks.md, "Session 11": on this kind of host ODE
        // and ours both took twice as long for seconds at a time), so each
        // ratio compares two runs taken back to back.
        let yardstick = if ours::Ours::Dantzig
            .not_applicable(problem.problem(), problem.symmetric, false)
            .is_none()
        {
            ours::Ours::Dantzig
        } else {
            ours::Ours::Lemke
        };
        let yardstick_run = || {
            let timed = ours::time(yardstick, problem, repeat);
            (timed.seconds, timed.clock)
        };
        let mut merged: Vec<Row> = Vec::new();
        for round in 0..rounds {
            let mut this_round = Vec::new();
            for solver in ours::ALL {
                let before = (solver != yardstick).then(yardstick_run);
                this_round.push(paired(run_ours(solver, problem, repeat), before));
            }
            for peer in drivers::ALL {
                if installed.contains(&peer.library()) {
                    let before = Some(yardstick_run());
                    let row = run_peer(setup, peer, problem, &files, repeat);
                    this_round.push(paired(row, before));
                }
            }
            if round == 0 {
                merged = this_round;
            } else {
                for (row, next) in merged.iter_mut().zip(this_round) {
                    merge_round(row, next);
                }
            }
        }
        rows.extend(merged);
    }
    let out = crate::target_dir(&setup.root).join("bench-report");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let path = out.join("peers.md");
    let text = report::markdown(&header(&problems, quick), &skipped, &rows);
    std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
    print!("{text}");
    Ok(path)
}

fn run_ours(solver: ours::Ours, problem: &Problem, repeat: usize) -> Row {
    let factored = problem.factored.is_some();
    let outcome = match solver.not_applicable(problem.problem(), problem.symmetric, factored) {
        Some(reason) => Outcome::NotApplicable(reason.into()),
        None => {
            let timed = ours::time(solver, problem, repeat);
            Outcome::Ran {
                seconds: vec![timed.seconds],
                clock: timed.clock.into_iter().collect(),
                paired: Vec::new(),
                paired_clock: Vec::new(),
                report: problem.certify(&timed.z),
                claim: timed.failure.map_or(Claim::Solved, Claim::Failed),
            }
        }
    };
    Row {
        problem: problem.name.clone(),
        n: problem.problem().dim(),
        solver: solver.name().into(),
        outcome,
    }
}

fn run_peer(
    setup: &Setup,
    peer: Peer,
    problem: &Problem,
    files: &problem_set::ProblemFiles,
    repeat: usize,
) -> Row {
    let outcome = if peer.needs_symmetric() && !problem.symmetric {
        Outcome::NotApplicable("M is not symmetric".into())
    } else if problem.is_set() && !peer.takes_sets() {
        Outcome::NotApplicable("sets of problems (its driver reads one JSON problem)".into())
    } else {
        match setup.run(peer, files, repeat, DRIVER_TIMEOUT) {
            Err(message) => Outcome::Error(message),
            Ok(line) => match line.status.as_str() {
                "not_applicable" | "not_installed" => {
                    Outcome::NotApplicable(line.reason.unwrap_or(line.status))
                }
                status => Outcome::Ran {
                    seconds: vec![line.seconds],
                    clock: line.clock_seconds.into_iter().collect(),
                    paired: Vec::new(),
                    paired_clock: Vec::new(),
                    report: problem.certify(&line.z),
                    claim: match status {
                        "solved" => Claim::Solved,
                        "returned" => Claim::Silent,
                        _ => Claim::Failed(line.reason.unwrap_or_else(|| status.to_string())),
                    },
                },
            },
        }
    };
    Row {
        problem: problem.name.clone(),
        n: problem.problem().dim(),
        solver: peer.name().into(),
        outcome,
    }
}

/// Title, date, machine and the problem list.
fn header(problems: &[Problem], quick: bool) -> String {
    let date = crate::bench_report::utc_now();
    let machine = crate::bench_report::machine();
    let mut text = format!(
        "# Peer LCP solvers\n\n{date}, {machine}{}. Problems (JSON and text in \
         target/bench-peers/problems/):\n\n",
        if quick { ", --quick" } else { "" }
    );
    for problem in problems {
        text.push_str(&format!(
            "- `{}` (n = {}): {}{}\n",
            problem.name,
            problem.problem().dim(),
            problem.family.describe(),
            problem
                .note
                .as_ref()
                .map_or(String::new(), |note| format!("; {note}"))
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strings;

    #[test]
    fn the_hook_takes_only_peer_arguments() {
        assert!(hook(&strings(&["lcp", "--quick"])).is_none());
        assert!(hook(&strings(&[])).is_none());
        // A criterion group with `peers` is refused rather than ignored.
        assert_eq!(hook(&strings(&["peers", "lcp"])), Some(ExitCode::FAILURE));
    }

    /// Later rounds add their times; a round that fails replaces a correct
    /// row and a later success never replaces a failure, so a failure in
    /// any round is what the report shows.
    #[test]
    fn rounds_merge_times_and_keep_failures() {
        let lcp = contact_lcp::Lcp::from_row_major(1, &[1.0], &[-1.0]).unwrap();
        let problem = contact_lcp::LcpProblem::Plain(lcp);
        let row = |seconds: f64, z: f64| Row {
            problem: "p".into(),
            n: 1,
            solver: "s".into(),
            outcome: Outcome::Ran {
                seconds: vec![seconds],
                clock: vec![seconds / 10.0],
                paired: vec![seconds / 2.0],
                paired_clock: vec![seconds / 20.0],
                claim: Claim::Silent,
                report: report::certify(&problem, &[z]),
            },
        };
        let mut merged = row(1.0, 1.0);
        merge_round(&mut merged, row(2.0, 1.0));
        let Outcome::Ran {
            seconds,
            clock,
            paired,
            paired_clock,
            ..
        } = &merged.outcome
        else {
            panic!("still ran")
        };
        assert_eq!(seconds, &[1.0, 2.0]);
        assert_eq!(clock, &[0.1, 0.2]);
        assert_eq!(paired, &[0.5, 1.0]);
        assert_eq!(paired_clock, &[0.05, 0.1]);
        // z = 0 gives w = -1 < 0: a wrong answer in round 3.
        merge_round(&mut merged, row(3.0, 0.0));
        let Outcome::Ran {
            seconds,
            claim,
            report,
            ..
        } = &merged.outcome
        else {
            panic!("still ran")
        };
        assert_eq!(seconds, &[3.0]);
        assert_eq!(report::verdict(claim, report), "WRONG, no report");
        let mut failed = row(1.0, 1.0);
        merge_round(
            &mut failed,
            Row {
                outcome: Outcome::Error("crashed".into()),
                ..row(0.0, 0.0)
            },
        );
        assert!(matches!(failed.outcome, Outcome::Error(_)));
        merge_round(&mut failed, row(1.0, 1.0));
        assert!(matches!(failed.outcome, Outcome::Error(_)), "kept");
        let mut wrong = row(1.0, 0.0);
        merge_round(&mut wrong, row(1.0, 1.0));
        let Outcome::Ran { claim, report, .. } = &wrong.outcome else {
            panic!("still ran")
        };
        assert_eq!(report::verdict(claim, report), "WRONG, no report", "kept");
    }

    #[test]
    fn repeats_shrink_with_size_and_quick() {
        assert!(repeats(16, false) > repeats(256, false));
        assert!(repeats(1024, false) >= 3);
        assert!(repeats(16, true) < repeats(16, false));
        assert!(repeats(4000, true) >= 3);
    }
}
