//! `cargo xtask bench scenes [--quick] [--steps N] [--hz F] [SCENE...]` (issue 26): whole
//! simulation steps of our stepper (both formulations) beside rapier3d-f64
//! on wall pyramids, box stacks and a box pile. The `bench-scenes` binary
//! of contact-benches (built optimised, with its `rapier` feature, so that
//! neither xtask nor any library crate depends on rapier) steps the scenes
//! and prints one JSON line per engine and scene; this command writes
//! `scenes.md`, `scenes.csv` and `scenes.svg` under `bench-report/` in the
//! target directory (`CARGO_TARGET_DIR` when set).

mod report;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use report::{Plan, Row};

/// Handles `cargo xtask bench` when its arguments ask for the scenes;
/// `None` otherwise. Arguments besides `scenes`, `--quick`, `--steps N` and
/// `--hz F` are scene names, which the binary checks.
pub fn hook(args: &[String]) -> Option<ExitCode> {
    if !args.iter().any(|a| a == "scenes") {
        return None;
    }
    if let Some(other) = args
        .iter()
        .find(|a| a.starts_with('-') && !matches!(a.as_str(), "--quick" | "--steps" | "--hz"))
    {
        eprintln!(
            "xtask bench: `{other}` does not go with `scenes` (cargo xtask bench scenes [--quick] [--steps N] [--hz F] [SCENE...])"
        );
        return Some(ExitCode::FAILURE);
    }
    let forwarded: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| *a != "scenes")
        .collect();
    Some(match run(&forwarded) {
        Ok(path) => {
            println!("report: {}", path.display());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("xtask bench scenes: {message}");
            ExitCode::FAILURE
        }
    })
}

/// Runs the binary, reads its lines, writes the report; returns the
/// markdown's path.
fn run(args: &[&str]) -> Result<PathBuf, String> {
    let root = crate::bench::workspace_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let started = Instant::now();
    println!("building and running bench-scenes (release, with rapier)");
    let mut child = Command::new(cargo)
        .current_dir(&root)
        .args([
            "run",
            "--quiet",
            "--release",
            "--package",
            "contact-benches",
            "--features",
            "rapier",
            "--bin",
            "bench-scenes",
            "--",
        ])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let mut lines = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            lines.push(line.map_err(|e| format!("reading bench-scenes: {e}"))?);
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for bench-scenes: {e}"))?;
    if !status.success() {
        return Err(format!("bench-scenes failed ({status})"));
    }
    let (plan, rows) = parse(&lines)?;
    let out = crate::target_dir(&root).join("bench-report");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let header = report::Header {
        date: crate::bench_report::utc_now(),
        machine: crate::bench_report::machine(),
        wall_seconds: started.elapsed().as_secs_f64(),
        plan,
    };
    let markdown = report::markdown(&header, &rows);
    let files = [
        ("scenes.md", markdown.clone()),
        ("scenes.csv", report::csv(&rows)),
        ("scenes.svg", report::plot(&rows)),
    ];
    for (name, text) in files {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    print!("{markdown}");
    Ok(out.join("scenes.md"))
}

/// The plan (first line) and the rows of the binary's output.
fn parse(lines: &[String]) -> Result<(Plan, Vec<Row>), String> {
    let (first, rest) = lines.split_first().ok_or("bench-scenes printed nothing")?;
    let plan = serde_json::from_str::<report::PlanLine>(first)
        .map_err(|e| format!("plan line `{first}`: {e}"))?
        .plan;
    let rows = rest
        .iter()
        .map(|line| serde_json::from_str(line).map_err(|e| format!("line `{line}`: {e}")))
        .collect::<Result<_, _>>()?;
    Ok((plan, rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strings;

    #[test]
    fn the_hook_takes_scenes_quick_and_scene_names() {
        assert!(hook(&strings(&["lcp", "--quick"])).is_none());
        assert!(hook(&strings(&["peers"])).is_none());
        assert_eq!(
            hook(&strings(&["scenes", "--save", "x"])),
            Some(ExitCode::FAILURE)
        );
    }

    #[test]
    fn the_output_is_a_plan_then_rows() {
        let lines = strings(&[
            r#"{"plan":{"warm_up":1,"min_steps":3,"max_steps":60,"budget_seconds":1.0,"quick":true}}"#,
            r#"{"scene":"stack_5","family":"stack","bodies":5,"engine":"ours (BoxFriction)","h":0.0166,"warm_up":1,"steps":60,"rounds":1,"seconds_per_step":2e-5,"slowest_step":3e-5,"sink":1e-14,"penetration":2e-14,"error":null}"#,
        ]);
        let (plan, rows) = parse(&lines).unwrap();
        assert!(plan.quick);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].seconds_per_step, Some(2e-5));
        assert!(parse(&[]).is_err());
        assert!(parse(&strings(&["{}"])).is_err());
    }
}
