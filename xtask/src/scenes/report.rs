//! The scenes report: time per step of every engine on every scene with
//! its ratio to the peer's, the growth exponent of time against bodies on
//! the pyramids, the top body's sink and the deepest interpenetration, as
//! markdown, CSV and a log-log plot.

use std::fmt::Write as _;

use serde::Deserialize;

use crate::loglog::{self, Series, format_time};

/// The binary's first line.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct PlanLine {
    /// The plan it ran.
    pub plan: Plan,
}

/// How long each run stepped (`contact_benches::scene_bench::Plan`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
pub struct Plan {
    /// Untimed steps first.
    pub warm_up: usize,
    /// Timed steps at least.
    pub min_steps: usize,
    /// Timed steps at most.
    pub max_steps: usize,
    /// Budget of one engine on one scene (s).
    pub budget_seconds: f64,
    /// Whether it was `--quick`.
    pub quick: bool,
}

/// One engine on one scene (`contact_benches::scene_bench::Run::to_json`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Row {
    /// `pyramid_10`, ...
    pub scene: String,
    /// `pyramid`, `stack` or `pile`.
    pub family: String,
    /// Moving bodies.
    pub bodies: usize,
    /// `ours (Complementarity)`, `ours (BoxFriction)`, `rapier3d-f64 ...`.
    pub engine: String,
    /// Step (s).
    pub h: f64,
    /// Untimed steps.
    pub warm_up: usize,
    /// Timed steps of a round.
    pub steps: usize,
    /// Rounds.
    pub rounds: usize,
    /// Time per step (s).
    pub seconds_per_step: Option<f64>,
    /// Slowest timed step (s).
    pub slowest_step: Option<f64>,
    /// How far the top body fell (m); `None` in the pile.
    pub sink: Option<f64>,
    /// Deepest interpenetration seen (m).
    pub penetration: f64,
    /// The error that ended the run.
    pub error: Option<String>,
}

/// What the report says above its tables.
#[derive(Clone, Debug)]
pub struct Header {
    /// When it ran.
    pub date: String,
    /// On what.
    pub machine: String,
    /// Wall time of the whole command, building included (s).
    pub wall_seconds: f64,
    /// The plan.
    pub plan: Plan,
}

/// Bodies of the smallest and largest pyramid the growth exponent fits.
const GROWTH_RANGE: (usize, usize) = (15, 210);

/// The engines in order of first appearance.
fn engines(rows: &[Row]) -> Vec<&str> {
    let mut engines: Vec<&str> = Vec::new();
    for row in rows {
        if !engines.contains(&row.engine.as_str()) {
            engines.push(&row.engine);
        }
    }
    engines
}

/// The scenes in order of first appearance.
fn scenes(rows: &[Row]) -> Vec<&Row> {
    let mut scenes: Vec<&Row> = Vec::new();
    for row in rows {
        if !scenes.iter().any(|s| s.scene == row.scene) {
            scenes.push(row);
        }
    }
    scenes
}

/// The peer engine: the one whose name starts with `rapier`.
fn peer(rows: &[Row]) -> Option<&str> {
    engines(rows).into_iter().find(|e| e.starts_with("rapier"))
}

fn find<'a>(rows: &'a [Row], scene: &str, engine: &str) -> Option<&'a Row> {
    rows.iter().find(|r| r.scene == scene && r.engine == engine)
}

/// `engine`'s time on `scene` over the peer's, both measured in the run.
fn ratio(rows: &[Row], scene: &str, engine: &str) -> Option<f64> {
    let time = find(rows, scene, engine)?.seconds_per_step?;
    let peer_time = find(rows, scene, peer(rows)?)?.seconds_per_step?;
    Some(time / peer_time)
}

/// The least-squares slope of log time against log bodies over the
/// pyramids of `engine` with `GROWTH_RANGE` bodies, and the bodies it
/// used; `None` with fewer than two sizes.
pub fn growth_exponent(rows: &[Row], engine: &str) -> Option<(f64, Vec<usize>)> {
    let points: Vec<(usize, f64)> = rows
        .iter()
        .filter(|r| {
            r.engine == engine
                && r.family == "pyramid"
                && (GROWTH_RANGE.0..=GROWTH_RANGE.1).contains(&r.bodies)
        })
        .filter_map(|r| Some((r.bodies, r.seconds_per_step.filter(|t| *t > 0.0)?)))
        .collect();
    let n = points.len() as f64;
    let logs: Vec<(f64, f64)> = points
        .iter()
        .map(|&(b, t)| ((b as f64).ln(), t.ln()))
        .collect();
    let mean_x = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = logs.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    (points.len() >= 2 && sxx > 0.0).then(|| (sxy / sxx, points.iter().map(|p| p.0).collect()))
}

/// A length for the tables: millimetres from 1 mm, metres in scientific
/// notation below, 0 for none.
fn length(m: f64) -> String {
    if m == 0.0 {
        "0".into()
    } else if m.abs() >= 1e-3 {
        format!("{:.1} mm", 1e3 * m)
    } else {
        format!("{m:.1e} m")
    }
}

/// A ratio to three significant digits or as a whole number.
fn ratio_text(r: f64) -> String {
    match r {
        r if r >= 100.0 => format!("{r:.0}"),
        r if r >= 10.0 => format!("{r:.1}"),
        r => format!("{r:.2}"),
    }
}

fn time_cell(row: Option<&Row>) -> String {
    match row {
        None => "-".into(),
        Some(row) => {
            let time = row
                .seconds_per_step
                .map_or("no step".into(), |s| format_time(1e9 * s));
            if row.error.is_some() {
                format!("{time} (failed)")
            } else {
                time
            }
        }
    }
}

/// The markdown report.
pub fn markdown(header: &Header, rows: &[Row]) -> String {
    let plan = &header.plan;
    let engines = engines(rows);
    let peer = peer(rows);
    let h = rows.first().map_or(1.0 / 60.0, |r| r.h);
    let mut md = String::from("# Scenes: whole steps of our stepper beside rapier3d-f64\n\n");
    let _ = writeln!(
        md,
        "{}, {}, {} run, {:.0} s wall time (building included). `cargo xtask bench scenes{}`.\n",
        header.date,
        header.machine,
        if plan.quick { "`--quick`" } else { "full" },
        header.wall_seconds,
        if plan.quick { " --quick" } else { "" }
    );
    let _ = writeln!(
        md,
        "Every scene at h = 1/{:.0} s: unit cubes of 1 kg, friction 0.5, gravity 9.81 m/s^2 on a ground half-space; \
         our `FixedStepper` with its defaults otherwise, rapier with its defaults (sleeping off). \
         Each run takes {} untimed warm-up step(s), then timed steps: ours as many as {:.0} s allows \
         ({} to {}); rapier the same window (the same warm-up and as many timed steps as our longer run, \
         so the same simulated time), repeated from a new world while {:.0} s lasts, its time the median of the rounds. \
         Time per step is the mean of a round's timed steps (`std::time::Instant`, release build).\n",
        1.0 / h,
        plan.warm_up,
        plan.budget_seconds,
        plan.min_steps,
        plan.max_steps,
        plan.budget_seconds
    );
    md.push_str(
        "Absolute times move with whatever else runs on this shared machine; the ratios to rapier \
         compare runs made minutes apart in one run and are the figures to quote.\n\n",
    );

    md.push_str("## Time per step\n\n| scene | bodies |");
    for engine in &engines {
        let _ = write!(md, " {engine} |");
        if Some(*engine) != peer && peer.is_some() {
            md.push_str(" / rapier |");
        }
    }
    md.push_str("\n| --- | ---: |");
    for engine in &engines {
        md.push_str(" ---: |");
        if Some(*engine) != peer && peer.is_some() {
            md.push_str(" ---: |");
        }
    }
    md.push('\n');
    for scene in scenes(rows) {
        let _ = write!(md, "| {} | {} |", scene.scene, scene.bodies);
        for engine in &engines {
            let _ = write!(md, " {} |", time_cell(find(rows, &scene.scene, engine)));
            if Some(*engine) != peer && peer.is_some() {
                let cell = ratio(rows, &scene.scene, engine).map_or("-".into(), ratio_text);
                let _ = write!(md, " {cell} |");
            }
        }
        md.push('\n');
    }

    let _ = writeln!(
        md,
        "\n## Growth with bodies\n\nLog-log slope of time per step against bodies, pyramids of {} to {} cubes (least squares):\n\n| engine | exponent | pyramids (bodies) |\n| --- | ---: | --- |",
        GROWTH_RANGE.0, GROWTH_RANGE.1
    );
    for engine in &engines {
        match growth_exponent(rows, engine) {
            Some((slope, bodies)) => {
                let used: Vec<String> = bodies.iter().map(ToString::to_string).collect();
                let _ = writeln!(md, "| {engine} | {slope:.2} | {} |", used.join(", "));
            }
            None => {
                let _ = writeln!(md, "| {engine} | - | fewer than two timed |");
            }
        }
    }
    md.push_str("\n![time per step against bodies](scenes.svg)\n\n");

    md.push_str(
        "## Accuracy\n\nThe top body's sink: how far the last body added (the top cube) fell from its start \
         over the run (warm-up and the first round's timed steps; not given for the pile, which falls). \
         Deepest penetration: ours from `StepReport::min_distance`, rapier from the deepest point of its \
         contact manifolds, both at the start of each step, over the same steps.\n\n\
         | scene | engine | steps (simulated time) | slowest step | top body's sink | deepest penetration |\n\
         | --- | --- | --- | ---: | ---: | ---: |\n",
    );
    for row in rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} + {} timed{} ({:.2} s) | {} | {} | {} |",
            row.scene,
            row.engine,
            row.warm_up,
            row.steps,
            if row.rounds > 1 {
                format!(" x {} rounds", row.rounds)
            } else {
                String::new()
            },
            (row.warm_up + row.steps) as f64 * row.h,
            row.slowest_step
                .map_or("-".into(), |s| format_time(1e9 * s)),
            row.sink.map_or("-".into(), length),
            length(row.penetration)
        );
    }
    let failed: Vec<&Row> = rows.iter().filter(|r| r.error.is_some()).collect();
    if !failed.is_empty() {
        md.push_str("\n## Errors\n\n");
        for row in failed {
            let _ = writeln!(
                md,
                "- {}, {}: {}",
                row.scene,
                row.engine,
                row.error.as_deref().unwrap_or_default()
            );
        }
    }
    md
}

/// One CSV line per engine and scene.
pub fn csv(rows: &[Row]) -> String {
    let mut text = String::from(
        "scene,family,bodies,engine,h,warm_up,steps,rounds,seconds_per_step,slowest_step,ratio_to_rapier,sink_m,penetration_m,error\n",
    );
    let number = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x:e}"));
    for row in rows {
        let ratio = if peer(rows) == Some(row.engine.as_str()) {
            None
        } else {
            ratio(rows, &row.scene, &row.engine)
        };
        let _ = writeln!(
            text,
            "{},{},{},{},{:e},{},{},{},{},{},{},{},{:e},{}",
            row.scene,
            row.family,
            row.bodies,
            quoted(&row.engine),
            row.h,
            row.warm_up,
            row.steps,
            row.rounds,
            number(row.seconds_per_step),
            number(row.slowest_step),
            number(ratio),
            number(row.sink),
            row.penetration,
            row.error.as_deref().map_or(String::new(), quoted)
        );
    }
    text
}

/// A CSV field in quotes, inner quotes doubled.
fn quoted(field: &str) -> String {
    format!("\"{}\"", field.replace('"', "\"\""))
}

/// Log-log plot of time per step against bodies on the pyramids, one line
/// per engine.
pub fn plot(rows: &[Row]) -> String {
    let series: Vec<Series<'_>> = engines(rows)
        .into_iter()
        .map(|engine| Series {
            name: engine,
            points: rows
                .iter()
                .filter(|r| r.engine == engine && r.family == "pyramid")
                .filter_map(|r| Some((r.bodies as f64, 1e9 * r.seconds_per_step?)))
                .collect(),
        })
        .collect();
    let h = rows.first().map_or(1.0 / 60.0, |r| r.h);
    loglog::svg(
        &format!(
            "Wall pyramids, h = 1/{:.0} s: time per step against bodies (log-log)",
            1.0 / h
        ),
        "bodies",
        &series,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const RAPIER: &str = "rapier3d-f64 0.36.1";

    fn row(scene: &str, bodies: usize, engine: &str, seconds: Option<f64>) -> Row {
        Row {
            scene: scene.into(),
            family: scene.split('_').next().unwrap().into(),
            bodies,
            engine: engine.into(),
            h: 1.0 / 60.0,
            warm_up: 1,
            steps: 3,
            rounds: 1,
            seconds_per_step: seconds,
            slowest_step: seconds,
            sink: Some(2.5e-3),
            penetration: 1e-9,
            error: None,
        }
    }

    /// Ours grows as bodies^3, rapier as bodies^1, exactly: the fit gives
    /// back the exponents; sizes outside 15..=210 and failed runs are left
    /// out.
    #[test]
    fn growth_exponents_are_the_log_log_slopes() {
        let mut rows = Vec::new();
        for (base, bodies) in [(3, 6), (5, 15), (10, 55), (20, 210)] {
            let b = bodies as f64;
            rows.push(row(
                &format!("pyramid_{base}"),
                bodies,
                "ours",
                Some(1e-6 * b.powi(3)),
            ));
            rows.push(row(
                &format!("pyramid_{base}"),
                bodies,
                RAPIER,
                Some(1e-5 * b),
            ));
        }
        rows.push(row("pyramid_15", 120, "ours", None));
        rows.push(row("stack_20", 20, "ours", Some(1.0)));
        let (slope, used) = growth_exponent(&rows, "ours").unwrap();
        assert!((slope - 3.0).abs() < 1e-12, "{slope}");
        assert_eq!(used, [15, 55, 210]);
        let (slope, _) = growth_exponent(&rows, RAPIER).unwrap();
        assert!((slope - 1.0).abs() < 1e-12, "{slope}");
        assert!(growth_exponent(&rows[..2], "ours").is_none(), "one size");
    }

    #[test]
    fn ratios_and_lengths_read_short() {
        assert_eq!(ratio_text(20318.171), "20318");
        assert_eq!(ratio_text(26.849), "26.8");
        assert_eq!(ratio_text(1.182), "1.18");
        assert_eq!(length(0.0), "0");
        assert_eq!(length(0.0184), "18.4 mm");
        assert_eq!(length(-2.5e-15), "-2.5e-15 m");
    }

    #[test]
    fn the_tables_give_ratios_to_rapier_and_name_errors() {
        let mut failed = row("pyramid_20", 210, "ours", Some(2.0));
        failed.error = Some("step 4: pivot limit".into());
        let rows = vec![
            row("pyramid_10", 55, "ours", Some(0.088)),
            row("pyramid_10", 55, RAPIER, Some(0.000_136)),
            failed,
            row("pyramid_20", 210, RAPIER, Some(0.000_58)),
        ];
        let header = Header {
            date: "today".into(),
            machine: "here".into(),
            wall_seconds: 10.0,
            plan: Plan {
                warm_up: 1,
                min_steps: 3,
                max_steps: 60,
                budget_seconds: 1.0,
                quick: true,
            },
        };
        let md = markdown(&header, &rows);
        // 0.088 / 0.000136 = 647.06
        assert!(
            md.contains("| pyramid_10 | 55 | 88.000 ms | 647 | 136.000 us |"),
            "{md}"
        );
        assert!(md.contains("2.000 s (failed) | 3448 |"), "{md}");
        assert!(md.contains("- pyramid_20, ours: step 4: pivot limit"));
        assert!(md.contains("| 2.5 mm | 1.0e-9 m |"));
        let csv = csv(&rows);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 5);
        let columns = lines[0].split(',').count();
        assert!(
            lines.iter().all(|l| l.split(',').count() == columns),
            "{csv}"
        );
        let ratio: f64 = lines[1].split(',').nth(10).unwrap().parse().unwrap();
        assert!((ratio - 0.088 / 0.000_136).abs() < 1e-9, "{}", lines[1]);
        assert!(lines[3].ends_with(",\"step 4: pivot limit\""));
        assert_eq!(plot(&rows).matches("<circle").count(), 4);
    }
}
