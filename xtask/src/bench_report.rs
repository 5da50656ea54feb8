//! Reads criterion's results and writes the benchmark report: a table per
//! group with every function's median time and its ratio to the group's
//! yardstick, slowdowns against a baseline first, and a log-log SVG plot of
//! time against problem size per group.
//!
//! A group's yardstick is its function named `faer_*` or `*_yardstick`; a
//! group without one (e.g. the geometry queries) gets absolute times only,
//! one row per function when it has no sizes. The residuals the solvers
//! achieved, which criterion cannot record, come from the notes the benches
//! write to `notes/<group>.json` beside the report (see
//! `contact_benches::Notes`) and become one column per solver.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::loglog::{self, Series, format_time};

/// One benchmark's result as criterion stored it.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Criterion group, e.g. `lcp_box_stack`.
    pub group: String,
    /// Function within the group, e.g. `lemke` or `faer_lu`.
    pub function: String,
    /// Parameter as criterion printed it (a problem size here), or empty.
    pub parameter: String,
    /// Median time (ns) with its 95 % confidence interval.
    pub median: [f64; 3],
    /// Relative change of the median against the baseline (fraction, with
    /// its confidence interval), when compared with one.
    pub change: Option<[f64; 3]>,
}

impl Estimate {
    /// Every benchmark under criterion's output folder measured at or
    /// after `since` (older folders are other runs' leftovers).
    pub fn collect(
        criterion: &Path,
        with_change: bool,
        since: SystemTime,
    ) -> Result<Vec<Self>, String> {
        let mut found = Vec::new();
        visit(criterion, &mut |dir| {
            let new = dir.join("new");
            let written = std::fs::metadata(new.join("estimates.json")).and_then(|m| m.modified());
            if !new.join("benchmark.json").is_file() || written.map_or(true, |t| t < since) {
                return Ok(());
            }
            let id = read_json(&new.join("benchmark.json"))?;
            let estimates = read_json(&new.join("estimates.json"))?;
            let change = if with_change && dir.join("change/estimates.json").is_file() {
                Some(interval(
                    &read_json(&dir.join("change/estimates.json"))?["median"],
                )?)
            } else {
                None
            };
            found.push(Self {
                group: id["group_id"].as_str().unwrap_or_default().to_string(),
                function: id["function_id"].as_str().unwrap_or_default().to_string(),
                parameter: id["value_str"].as_str().unwrap_or_default().to_string(),
                median: interval(&estimates["median"])?,
                change,
            });
            Ok(())
        })?;
        found.sort_by(|a, b| {
            (&a.group, &a.function, size(&a.parameter))
                .partial_cmp(&(&b.group, &b.function, size(&b.parameter)))
                .expect("sizes are finite")
        });
        Ok(found)
    }

    /// Whether the change against the baseline is a slowdown beyond noise:
    /// the whole confidence interval of the change is above zero.
    #[must_use]
    pub fn is_slowdown(&self) -> bool {
        self.change.is_some_and(|[low, _, _]| low > 0.0)
    }
}

/// What a bench recorded about one solve besides its time (one entry of a
/// `notes/<group>.json` file).
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// Criterion group.
    pub group: String,
    /// Function within the group.
    pub function: String,
    /// Parameter (size) as criterion prints it.
    pub parameter: String,
    /// Scaled natural residual of the answer (or of the best iterate when
    /// the solver gave up); `None` without an iterate.
    pub residual: Option<f64>,
    /// Pivots or sweeps.
    pub iterations: u64,
    /// `"pivots"` or `"sweeps"`.
    pub unit: String,
    /// Whether the solver returned an answer (rather than giving up).
    pub solved: bool,
}

impl Note {
    /// Every note in the `notes/*.json` files under `out` (none if the
    /// folder does not exist).
    pub fn collect(out: &Path) -> Result<Vec<Self>, String> {
        let dir = out.join("notes");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Ok(Vec::new());
        };
        let mut found = Vec::new();
        for path in entries.flatten().map(|e| e.path()) {
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let file = read_json(&path)?;
            let group = file["group"].as_str().unwrap_or_default();
            for note in file["notes"].as_array().into_iter().flatten() {
                found.push(Self {
                    group: group.to_string(),
                    function: note["function"].as_str().unwrap_or_default().to_string(),
                    parameter: note["parameter"].as_str().unwrap_or_default().to_string(),
                    residual: note["residual"].as_f64(),
                    iterations: note["iterations"].as_u64().unwrap_or(0),
                    unit: note["unit"].as_str().unwrap_or_default().to_string(),
                    solved: note["solved"].as_bool().unwrap_or(false),
                });
            }
        }
        Ok(found)
    }

    /// The table cell: residual, work, and whether the solver gave up.
    fn cell(&self) -> String {
        let residual = self
            .residual
            .map_or_else(|| "none".to_string(), |r| format!("{r:.1e}"));
        let gave_up = if self.solved { "" } else { ", gave up" };
        format!("{residual} ({} {}{gave_up})", self.iterations, self.unit)
    }
}

/// Whether `function` is a yardstick: `faer_*` or `*_yardstick`.
fn is_yardstick(function: &str) -> bool {
    function.starts_with("faer_") || function.ends_with("_yardstick")
}

/// How long a `cargo xtask bench` run took, for its budget (issue 5: a
/// `--quick` run under two minutes, a full one under fifteen, on 2 cores).
/// The budget is for measuring; building the bench targets first is
/// reported beside it (minutes from cold, a second when warm).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunTime {
    /// Wall time of building (and listing) the bench targets.
    pub build: Duration,
    /// Wall time of running them, from the first benchmark to the last.
    pub measure: Duration,
    /// Whether criterion ran with `--quick`.
    pub quick: bool,
    /// Whether every bench target ran (the budget is for the whole run).
    pub all_targets: bool,
}

impl RunTime {
    /// The budget of this kind of run.
    #[must_use]
    pub fn budget(&self) -> Duration {
        Duration::from_secs(if self.quick { 120 } else { 900 })
    }

    /// One line for the report: the wall time against its budget.
    #[must_use]
    pub fn describe(&self) -> String {
        let seconds = self.measure.as_secs_f64();
        let build = self.build.as_secs_f64();
        let kind = if self.quick { "`--quick`" } else { "full" };
        let budget = self.budget().as_secs_f64();
        if !self.all_targets {
            return format!(
                "Wall time: {seconds:.0} s measuring some targets only (a whole {kind} run has a budget of {budget:.0} s), after {build:.0} s building."
            );
        }
        let verdict = if seconds <= budget { "within" } else { "OVER" };
        format!(
            "Wall time: {seconds:.0} s measuring a whole {kind} run, {verdict} its budget of {budget:.0} s on 2 cores, after {build:.0} s building."
        )
    }
}

/// The parameter as a number for sorting and plotting (0 if not numeric).
fn size(parameter: &str) -> f64 {
    parameter.parse().unwrap_or(0.0)
}

fn visit(dir: &Path, f: &mut dyn FnMut(&Path) -> Result<(), String>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    f(dir)?;
    for entry in entries.flatten() {
        let path = entry.path();
        // Criterion keeps named baselines and reports beside `new`; only
        // benchmark folders hold a `new/benchmark.json`.
        if path.is_dir()
            && !matches!(
                path.file_name().and_then(|n| n.to_str()),
                Some("new" | "base" | "change" | "report")
            )
        {
            visit(&path, f)?;
        }
    }
    Ok(())
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `[lower, point, upper]` of a criterion estimate.
fn interval(estimate: &Value) -> Result<[f64; 3], String> {
    let number = |v: &Value| {
        v.as_f64()
            .ok_or_else(|| format!("not a number in {estimate}"))
    };
    Ok([
        number(&estimate["confidence_interval"]["lower_bound"])?,
        number(&estimate["point_estimate"])?,
        number(&estimate["confidence_interval"]["upper_bound"])?,
    ])
}

/// Whether a group times random problems (or single sweeps on them): the
/// report lists the contact problems the simulator sends first.
fn is_random(group: &str) -> bool {
    group.contains("random") || group.contains("sweep")
}

/// Writes `report.md` and one `<group>.svg` per group with sizes into `out`,
/// the groups of contact problems first.
pub fn write_report(
    out: &Path,
    estimates: &[Estimate],
    baseline: Option<&str>,
    run_time: Option<&RunTime>,
) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut md = String::from("# Benchmark report\n\n");
    let _ = writeln!(
        md,
        "Machine: {}. Times are criterion medians; ratios are to the group's yardstick (`faer_*` or `*_yardstick`) at the same size, measured in the same run; residuals are the scaled natural residuals the solvers reached (with their pivots or sweeps). Contact problems come first, random ones last; ratios to ODE and the other peer solvers, in the same run: `cargo xtask bench peers`.\n",
        machine()
    );
    if let Some(run_time) = run_time {
        let _ = writeln!(md, "{}\n", run_time.describe());
    }

    if let Some(name) = baseline {
        let slow: Vec<&Estimate> = estimates.iter().filter(|e| e.is_slowdown()).collect();
        let _ = writeln!(md, "## Slowdowns against baseline `{name}`\n");
        if slow.is_empty() {
            md.push_str("None beyond criterion's confidence intervals.\n\n");
        } else {
            md.push_str("| benchmark | change of median (95 % CI) |\n| --- | --- |\n");
            for e in slow {
                let [lo, mid, hi] = e.change.unwrap_or_default();
                let _ = writeln!(
                    md,
                    "| {}/{}/{} | {:+.1} % ({:+.1} .. {:+.1}) |",
                    e.group,
                    e.function,
                    e.parameter,
                    100.0 * mid,
                    100.0 * lo,
                    100.0 * hi
                );
            }
            md.push('\n');
        }
    }

    // Notes of groups not measured in this run are other runs' leftovers.
    let notes = Note::collect(out)?;
    let mut groups: BTreeMap<(bool, &str), Vec<&Estimate>> = BTreeMap::new();
    for e in estimates {
        groups
            .entry((is_random(&e.group), &e.group))
            .or_default()
            .push(e);
    }
    for ((_, group), members) in &groups {
        let _ = writeln!(md, "## {group}\n");
        let functions: Vec<&str> = {
            let mut f: Vec<&str> = members.iter().map(|e| e.function.as_str()).collect();
            f.sort_unstable();
            f.dedup();
            f
        };
        let yardstick = functions.iter().copied().find(|f| is_yardstick(f));
        let mut parameters: Vec<&str> = members.iter().map(|e| e.parameter.as_str()).collect();
        parameters.sort_by(|a, b| size(a).total_cmp(&size(b)));
        parameters.dedup();
        if yardstick.is_none() && parameters.iter().all(|p| p.is_empty()) {
            // Absolute times of unsized queries: one row per function.
            md.push_str("| function | median (95 % CI) |\n| --- | --- |\n");
            for e in members {
                let [lo, mid, hi] = e.median;
                let _ = writeln!(
                    md,
                    "| {} | {} ({} .. {}) |",
                    e.function,
                    format_time(mid),
                    format_time(lo),
                    format_time(hi)
                );
            }
            md.push('\n');
            continue;
        }
        let group_notes: Vec<&Note> = notes.iter().filter(|n| n.group == *group).collect();
        let noted: Vec<&str> = functions
            .iter()
            .copied()
            .filter(|f| group_notes.iter().any(|n| n.function == *f))
            .collect();
        let note = |function: &str, parameter: &str| {
            group_notes
                .iter()
                .find(|n| n.function == function && n.parameter == parameter)
                .map(|n| n.cell())
        };
        let lookup = |function: &str, parameter: &str| {
            members
                .iter()
                .find(|e| e.function == function && e.parameter == parameter)
                .map(|e| e.median[1])
        };
        md.push_str("| n |");
        for f in &functions {
            let _ = write!(md, " {f} |");
        }
        let ratios: Vec<&str> = functions
            .iter()
            .copied()
            .filter(|f| Some(*f) != yardstick)
            .collect();
        if let Some(y) = yardstick {
            for f in &ratios {
                let _ = write!(md, " {f} / {y} |");
            }
        }
        for f in &noted {
            let _ = write!(md, " {f} residual |");
        }
        md.push_str("\n|");
        let columns =
            1 + functions.len() + if yardstick.is_some() { ratios.len() } else { 0 } + noted.len();
        md.push_str(&" --- |".repeat(columns));
        md.push('\n');
        for p in &parameters {
            let _ = write!(md, "| {p} |");
            for f in &functions {
                let _ = write!(
                    md,
                    " {} |",
                    lookup(f, p).map(format_time).unwrap_or_default()
                );
            }
            if let Some(y) = yardstick {
                for f in &ratios {
                    let cell = match (lookup(f, p), lookup(y, p)) {
                        (Some(t), Some(base)) => format!("{:.2}", t / base),
                        _ => String::new(),
                    };
                    let _ = write!(md, " {cell} |");
                }
            }
            for f in &noted {
                let _ = write!(md, " {} |", note(f, p).unwrap_or_default());
            }
            md.push('\n');
        }
        md.push('\n');
        if parameters.len() > 1 && parameters.iter().all(|p| size(p) > 0.0) {
            let file = format!("{group}.svg");
            let series: Vec<Series<'_>> = functions
                .iter()
                .map(|function| Series {
                    name: function,
                    points: members
                        .iter()
                        .filter(|e| e.function == *function)
                        .map(|e| (size(&e.parameter), e.median[1]))
                        .collect(),
                })
                .collect();
            let title = format!("{group}: median time against n (log-log)");
            std::fs::write(out.join(&file), loglog::svg(&title, "n", &series))
                .map_err(|e| format!("{file}: {e}"))?;
            let _ = writeln!(md, "![{group}]({file})\n");
        }
    }
    std::fs::write(out.join("report.md"), md).map_err(|e| format!("report.md: {e}"))
}

/// The date and time now, `YYYY-MM-DD HH:MM UTC` (empty where `date` is
/// missing): the reports' headers.
pub fn utc_now() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// The CPU model and core count, from /proc where available (also the
/// peer report's header, so both reports name the machine alike).
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    format!("{cpu}, {cores} cores")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_times_are_judged_against_their_budget() {
        let full = RunTime {
            build: Duration::from_secs(1000),
            measure: Duration::from_secs(899),
            quick: false,
            all_targets: true,
        };
        assert!(full.describe().contains("within its budget of 900 s"));
        let part = RunTime {
            all_targets: false,
            ..full
        };
        assert!(part.describe().contains("some targets only"));
    }

    fn estimate(function: &str, n: &str, ns: f64, change: Option<[f64; 3]>) -> Estimate {
        Estimate {
            group: "g".into(),
            function: function.into(),
            parameter: n.into(),
            median: [ns, ns, ns],
            change,
        }
    }

    #[test]
    fn ratios_are_to_the_yardstick_and_slowdowns_come_first() {
        let dir = std::env::temp_dir().join(format!("xtask-report-{}", std::process::id()));
        let estimates = [
            estimate("faer_lu", "10", 100.0, None),
            estimate("lemke", "10", 250.0, Some([0.10, 0.2, 0.3])),
            estimate("faer_lu", "100", 1000.0, None),
            estimate("lemke", "100", 5000.0, Some([-0.01, 0.01, 0.03])),
        ];
        let run_time = RunTime {
            build: Duration::from_secs(600),
            measure: Duration::from_secs(130),
            quick: true,
            all_targets: true,
        };
        write_report(&dir, &estimates, Some("main"), Some(&run_time)).unwrap();
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert!(md.contains("| 10 | 100.0 ns | 250.0 ns | 2.50 |"), "{md}");
        assert!(md.contains("| 100 | 1.000 us | 5.000 us | 5.00 |"), "{md}");
        // Only the change whose whole interval is positive is a slowdown.
        assert!(md.contains("| g/lemke/10 | +20.0 %"), "{md}");
        assert!(!md.contains("g/lemke/100 |"), "{md}");
        assert!(md.find("Slowdowns").unwrap() < md.find("## g").unwrap());
        assert!(
            md.contains("130 s measuring a whole `--quick` run, OVER its budget of 120 s"),
            "{md}"
        );
        let svg = std::fs::read_to_string(dir.join("g.svg")).unwrap();
        assert_eq!(svg.matches("<polyline").count(), 2);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn notes_become_residual_columns_and_unsized_groups_list_functions() {
        let dir = std::env::temp_dir().join(format!("xtask-notes-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("notes")).unwrap();
        std::fs::write(
            dir.join("notes/g.json"),
            r#"{"group": "g", "notes": [
                {"function": "pgs", "parameter": "10", "residual": 3e-9,
                 "iterations": 40, "unit": "sweeps", "solved": true},
                {"function": "pgs", "parameter": "100", "residual": 2.5e-4,
                 "iterations": 1000, "unit": "sweeps", "solved": false}]}"#,
        )
        .unwrap();
        let mut unsized_query = estimate("face_face", "", 50.0, None);
        unsized_query.group = "manifold".into();
        let estimates = [
            estimate("sort_yardstick", "10", 100.0, None),
            estimate("pgs", "10", 300.0, None),
            estimate("sort_yardstick", "100", 1000.0, None),
            estimate("pgs", "100", 500.0, None),
            unsized_query,
        ];
        write_report(&dir, &estimates, None, None).unwrap();
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert!(
            md.contains("| n | pgs | sort_yardstick | pgs / sort_yardstick | pgs residual |"),
            "{md}"
        );
        assert!(
            md.contains("| 10 | 300.0 ns | 100.0 ns | 3.00 | 3.0e-9 (40 sweeps) |"),
            "{md}"
        );
        assert!(
            md.contains("| 100 | 500.0 ns | 1.000 us | 0.50 | 2.5e-4 (1000 sweeps, gave up) |"),
            "{md}"
        );
        assert!(
            md.contains("| face_face | 50.0 ns (50.0 ns .. 50.0 ns) |"),
            "{md}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn contact_groups_come_before_random_ones() {
        let dir = std::env::temp_dir().join(format!("xtask-order-{}", std::process::id()));
        let estimates: Vec<Estimate> = ["lcp_random_pd", "pgs_sweep", "lcp_box_stack"]
            .into_iter()
            .map(|group| {
                let mut e = estimate("dantzig", "", 10.0, None);
                e.group = group.into();
                e
            })
            .collect();
        write_report(&dir, &estimates, None, None).unwrap();
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        let at = |group: &str| md.find(&format!("## {group}\n")).unwrap();
        assert!(at("lcp_box_stack") < at("lcp_random_pd"), "{md}");
        assert!(at("lcp_random_pd") < at("pgs_sweep"), "{md}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
