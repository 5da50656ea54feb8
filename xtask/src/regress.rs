//! `cargo xtask regress`: the regression suite. Every `*.json` file under
//! `regress/` is a case: a scene or an LCP, and the observables it must
//! reproduce, each with a bound or a value and tolerance. Prints one table
//! row per observable with the measured value beside the expected one, and
//! exits non-zero when any fails.
//!
//! Each case also has a snapshot, `regress/snapshots/<case>.snap`: all its
//! observables rounded to what is stable across machines (see
//! [`snapshot`]). The insta test at the end of this file writes them, so an
//! intended change is accepted with `cargo insta review`; this command
//! compares with them and fails on any difference.

mod bodies;
mod snapshot;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use contact_lcp::{LcpProblem, Lemke, LemkeParams, ProblemFile, ProjectedGaussSeidel};
use contact_sim::scenes::{BoxHeap, BoxStack, box_heap, run_box_stack};
use contact_sim::{FixedStepParams, FixedStepper, Formulation, TimeSteppingParams};
use serde::Deserialize;

const HELP: &str = "\
cargo xtask regress [--quick] [CASE...]

Runs every case under regress/ (or the named ones, by file stem) and prints
expected against measured values, then compares all observables with the
case's snapshot regress/snapshots/<case>.snap. --quick runs only cases
marked quick.

An intended change of a snapshot: `cargo insta test -p xtask
--include-ignored --review` (quick cases; add REGRESS_SNAPSHOT_ALL=1 and
--release for all of them).
";

/// One case file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// What the case guards and why (shown nowhere but the file).
    #[allow(dead_code)]
    description: String,
    /// Whether `--quick` (CI) runs it: cases that take seconds.
    quick: bool,
    /// A scene to simulate...
    scene: Option<Scene>,
    /// ...with this step (s)...
    h: Option<f64>,
    /// ...for this long (s)...
    seconds: Option<f64>,
    /// ...solving this step problem (default: complementarity)...
    formulation: Option<FormulationName>,
    /// ...with islands of at least this many rows in factored form
    /// (`TimeSteppingParams::sparse_from`; default its default; a large
    /// number keeps every island on the dense route).
    sparse_from: Option<usize>,
    /// ...and this many friction directions of the complementarity
    /// formulation (`TimeSteppingParams::friction_directions`; default its
    /// default, 4, which is solved as a box problem; other counts go to
    /// Lemke's method).
    friction_directions: Option<usize>,
    /// Or an LCP in the shared file format (`contact_lcp::ProblemFile`), to
    /// solve with Lemke's method (plain) or projected Gauss-Seidel (box)...
    lcp: Option<ProblemFile>,
    /// ...or the path of such a problem file, relative to the repository
    /// root (e.g. `examples/lcp/sliding_friction.json`).
    lcp_file: Option<String>,
    /// Observable name -> what it must be.
    expect: BTreeMap<String, Expectation>,
}

/// The step formulations a scene case can ask for.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum FormulationName {
    Complementarity,
    BoxFriction,
}

/// The scenes a case can name.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
enum Scene {
    /// `contact_sim::scenes::box_stack`.
    BoxStack {
        count: usize,
        size: f64,
        mass: f64,
        friction: f64,
        gravity: f64,
    },
    /// Boxes given one by one (see [`bodies`]).
    Bodies(bodies::BodiesScene),
    /// `contact_sim::scenes::box_heap`: boxes dropped loosely.
    BoxHeap { count: usize, seed: u64 },
}

/// How an observable is rounded for its snapshot.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// A count (steps, pivots, a 0/1 flag): exact.
    Count,
    /// A physical value or solution: to [`snapshot::DIGITS`] digits.
    Value,
    /// An error that should be round-off small (penetration,
    /// complementarity): only its order of magnitude is stable.
    ErrorMeasure,
}

/// Every observable a case measured: name -> (value, kind).
type Observables = BTreeMap<&'static str, (f64, Kind)>;

/// A bound on an observable, or a value with a tolerance.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Expectation {
    at_most: Option<f64>,
    at_least: Option<f64>,
    value: Option<f64>,
    rel_tol: Option<f64>,
    abs_tol: Option<f64>,
}

impl Expectation {
    /// Whether `measured` meets it; `Err` when the expectation says nothing.
    fn check(&self, measured: f64) -> Result<bool, String> {
        let mut checked = false;
        let mut ok = measured.is_finite();
        if let Some(max) = self.at_most {
            checked = true;
            ok &= measured <= max;
        }
        if let Some(min) = self.at_least {
            checked = true;
            ok &= measured >= min;
        }
        if let Some(value) = self.value {
            checked = true;
            let tol = self
                .abs_tol
                .unwrap_or(0.0)
                .max(self.rel_tol.unwrap_or(0.0) * value.abs());
            ok &= (measured - value).abs() <= tol;
        }
        if checked {
            Ok(ok)
        } else {
            Err("needs at_most, at_least or value".into())
        }
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(max) = self.at_most {
            parts.push(format!("<= {max:.3e}"));
        }
        if let Some(min) = self.at_least {
            parts.push(format!(">= {min:.3e}"));
        }
        if let Some(value) = self.value {
            let tol = match (self.rel_tol, self.abs_tol) {
                (Some(r), _) if r >= 1e-3 => format!(" +- {:.1} %", 100.0 * r),
                (Some(r), _) => format!(" +- {r:.0e} rel"),
                (None, Some(a)) => format!(" +- {a:.1e}"),
                (None, None) => " exactly".into(),
            };
            parts.push(format!("{value}{tol}"));
        }
        parts.join(", ")
    }
}

/// Runs the command.
pub fn run(args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../regress");
    let mut files = match case_files(&folder) {
        Ok(files) => files,
        Err(message) => {
            eprintln!("xtask regress: {message}");
            return ExitCode::FAILURE;
        }
    };
    files.retain(|f| {
        names.is_empty()
            || names
                .iter()
                .any(|n| f.file_stem().is_some_and(|s| s == n.as_str()))
    });
    if files.is_empty() {
        eprintln!("xtask regress: no case matched in {}", folder.display());
        return ExitCode::FAILURE;
    }

    println!(
        "{:<32} {:<24} {:<22} {:<12} result",
        "case", "observable", "expected", "measured"
    );
    let (mut passed, mut failed, mut skipped, mut snapshot_failures) = (0, 0, 0, 0);
    for file in &files {
        let name = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let outcome = load(file).and_then(|case| {
            if quick && !case.quick {
                return Ok(None);
            }
            measure(&case).map(|values| Some((case, values)))
        });
        match outcome {
            Ok(None) => skipped += 1,
            Ok(Some((case, values))) => {
                for (observable, expectation) in &case.expect {
                    let (measured, ok) = match values.get(observable.as_str()) {
                        Some(&(value, _)) => match expectation.check(value) {
                            Ok(ok) => (format!("{value:.4e}"), ok),
                            Err(why) => (why, false),
                        },
                        None => ("unknown observable".to_string(), false),
                    };
                    let verdict = if ok { "pass" } else { "FAIL" };
                    println!(
                        "{name:<32} {observable:<24} {:<22} {measured:<12} {verdict}",
                        expectation.describe()
                    );
                    if ok { passed += 1 } else { failed += 1 }
                }
                let (verdict, differences) = compare_snapshot(&folder, &name, &values);
                let ok = differences.is_empty();
                println!(
                    "{name:<32} {:<24} {:<22} {verdict:<12} {}",
                    "(snapshot)",
                    "unchanged",
                    if ok { "pass" } else { "FAIL" }
                );
                for line in &differences {
                    println!("    {line}");
                }
                if ok {
                    passed += 1;
                } else {
                    failed += 1;
                    snapshot_failures += 1;
                }
            }
            Err(message) => {
                println!(
                    "{name:<32} {:<24} {:<22} {:<12} FAIL",
                    "(case)", "runs", message
                );
                failed += 1;
            }
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    if snapshot_failures > 0 {
        println!(
            "{snapshot_failures} snapshot(s) differ or are missing: if intended, `cargo insta test -p xtask --include-ignored --review` (docs/benchmarks.md)"
        );
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Compares a case's observables with its snapshot: a verdict word, and
/// the differing lines (empty when it matches).
fn compare_snapshot(folder: &Path, name: &str, values: &Observables) -> (String, Vec<String>) {
    let path = folder.join("snapshots").join(format!("{name}.snap"));
    match snapshot::read(&path) {
        Ok(Some(expected)) => {
            let differences = snapshot::differences(&expected, &snapshot::render(values));
            let verdict = if differences.is_empty() {
                "same"
            } else {
                "differs"
            };
            (verdict.into(), differences)
        }
        Ok(None) => ("missing".into(), vec![format!("no {}", path.display())]),
        Err(message) => ("unreadable".into(), vec![message]),
    }
}

fn case_files(folder: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

fn load(path: &Path) -> Result<Case, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs a case and returns every observable it can measure.
fn measure(case: &Case) -> Result<Observables, String> {
    match (&case.scene, &case.lcp, &case.lcp_file) {
        (Some(scene), None, None) => measure_scene(
            scene,
            case.h,
            case.seconds,
            case.formulation,
            case.sparse_from,
            case.friction_directions,
        ),
        (None, Some(lcp), None) => measure_lcp(lcp.clone()),
        (None, None, Some(path)) => {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let file =
                serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            measure_lcp(file)
        }
        _ => Err("a case has exactly one of `scene`, `lcp` and `lcp_file`".into()),
    }
}

fn measure_scene(
    scene: &Scene,
    h: Option<f64>,
    seconds: Option<f64>,
    formulation: Option<FormulationName>,
    sparse_from: Option<usize>,
    friction_directions: Option<usize>,
) -> Result<Observables, String> {
    let h = h.ok_or("a scene case needs `h`")?;
    let seconds = seconds.ok_or("a scene case needs `seconds`")?;
    let formulation = match formulation {
        None | Some(FormulationName::Complementarity) => Formulation::Complementarity,
        Some(FormulationName::BoxFriction) => Formulation::BoxFriction,
    };
    let mut stepper = FixedStepper::new(FixedStepParams {
        h,
        dynamics: TimeSteppingParams {
            formulation,
            sparse_from: sparse_from.unwrap_or(TimeSteppingParams::default().sparse_from),
            friction_directions: friction_directions
                .unwrap_or(TimeSteppingParams::default().friction_directions),
            ..TimeSteppingParams::default()
        },
        ..FixedStepParams::default()
    })
    .map_err(|e| e.to_string())?;
    let stack = match *scene {
        Scene::BoxStack {
            count,
            size,
            mass,
            friction,
            gravity,
        } => BoxStack {
            count,
            size,
            mass,
            friction,
            gravity,
        },
        Scene::Bodies(ref bodies) => return bodies::measure(bodies, &mut stepper, seconds),
        Scene::BoxHeap { count, seed } => return measure_heap(count, seed, &mut stepper, seconds),
    };
    let run = run_box_stack(&stack, &mut stepper, seconds).map_err(|e| e.to_string())?;
    // "Settled": the last second, or the second half of a shorter run.
    let window = ((1.0 / h).round() as usize).min(run.steps / 2).max(1);
    let settled = &run.support_force[run.steps - window..];
    Ok(Observables::from([
        ("steps", (run.steps as f64, Kind::Count)),
        ("max_penetration", (run.max_penetration, Kind::ErrorMeasure)),
        ("top_drift", (run.top_drift, Kind::ErrorMeasure)),
        (
            "settled_support_force",
            (
                settled.iter().sum::<f64>() / settled.len() as f64,
                Kind::Value,
            ),
        ),
        ("weight", (run.weight, Kind::Value)),
        (
            "max_complementarity",
            (run.max_complementarity, Kind::ErrorMeasure),
        ),
        ("max_pivots", (run.max_pivots as f64, Kind::Count)),
        (
            "all_finite",
            (if run.all_finite { 1.0 } else { 0.0 }, Kind::Count),
        ),
    ]))
}

/// A dropped heap: every step must succeed; the deepest penetration seen
/// at the start of any step, the kinetic energy at the end, the largest
/// complementarity error.
fn measure_heap(
    count: usize,
    seed: u64,
    stepper: &mut FixedStepper,
    seconds: f64,
) -> Result<Observables, String> {
    let mut world = box_heap(&BoxHeap {
        count,
        seed,
        ..BoxHeap::default()
    })
    .map_err(|e| e.to_string())?;
    let steps = (seconds / stepper.params().h).round() as usize;
    let (mut penetration, mut complementarity) = (0.0_f64, 0.0_f64);
    for step in 0..steps {
        let report = stepper
            .step(&mut world)
            .map_err(|e| format!("step {step}: {e}"))?;
        penetration = penetration.max(-report.min_distance);
        complementarity = complementarity.max(report.complementarity);
    }
    let finite = world.bodies().iter().all(|b| b.is_finite());
    Ok(Observables::from([
        ("steps", (steps as f64, Kind::Count)),
        ("max_penetration", (penetration, Kind::ErrorMeasure)),
        (
            "final_kinetic_energy",
            (world.kinetic_energy(), Kind::ErrorMeasure),
        ),
        ("max_complementarity", (complementarity, Kind::ErrorMeasure)),
        ("all_finite", (if finite { 1.0 } else { 0.0 }, Kind::Count)),
    ]))
}

fn measure_lcp(file: ProblemFile) -> Result<Observables, String> {
    let solution = match file.into_problem().map_err(|e| e.to_string())? {
        LcpProblem::Plain(lcp) => Lemke::new(LemkeParams {
            max_pivots: 1 << 20,
            ..LemkeParams::default()
        })
        .solve(&lcp),
        LcpProblem::Box(problem) => ProjectedGaussSeidel::default().solve(&problem, None),
    }
    .map_err(|e| e.to_string())?;
    Ok(Observables::from([
        ("pivots", (solution.pivots as f64, Kind::Count)),
        (
            "complementarity",
            (solution.report.complementarity, Kind::ErrorMeasure),
        ),
        (
            "scaled_error",
            (solution.report.scaled_max(), Kind::ErrorMeasure),
        ),
        ("z_sum", (solution.z.iter().sum(), Kind::Value)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectations_check_bounds_and_tolerances() {
        let at_most = Expectation {
            at_most: Some(1.0),
            ..Default::default()
        };
        assert_eq!(at_most.check(0.5), Ok(true));
        assert_eq!(at_most.check(1.5), Ok(false));
        assert_eq!(at_most.check(f64::NAN), Ok(false));
        let value = Expectation {
            value: Some(100.0),
            rel_tol: Some(0.01),
            ..Default::default()
        };
        assert_eq!(value.check(100.9), Ok(true));
        assert_eq!(value.check(101.1), Ok(false));
        let exact = Expectation {
            value: Some(256.0),
            ..Default::default()
        };
        assert_eq!(exact.check(256.0), Ok(true));
        assert_eq!(exact.check(257.0), Ok(false));
        assert!(Expectation::default().check(1.0).is_err());
    }

    #[test]
    fn unknown_fields_in_a_case_are_errors_naming_them() {
        let text = r#"{"description": "", "quick": true, "h": 0.01, "secnds": 1, "expect": {}}"#;
        let error = serde_json::from_str::<Case>(text).unwrap_err().to_string();
        assert!(error.contains("secnds"), "{error}");
    }

    #[test]
    fn a_bad_problem_in_a_case_names_its_field() {
        let text = r#"{"description": "", "quick": true, "expect": {},
            "lcp": {"M": [[1, 0], [0, 1]], "q": [1, 1], "hi": [1, "infinity"]}}"#;
        let error = serde_json::from_str::<Case>(text).unwrap_err().to_string();
        assert!(error.contains(r#"hi[1] is "infinity""#), "{error}");
        let text = r#"{"description": "", "quick": true, "expect": {},
            "lcp": {"M": [[1, 0], [0]], "q": [1, 1]}}"#;
        let case = serde_json::from_str::<Case>(text).unwrap();
        let error = measure(&case).unwrap_err();
        assert_eq!(error, "M[1] has 1 entries, expected 2");
    }

    /// The snapshots' writer: `cargo insta test -p xtask --include-ignored
    /// --review` shows every change and accepts it. Quick cases always;
    /// every case with REGRESS_SNAPSHOT_ALL set (then add --release: the
    /// slow cases take minutes unoptimised). Ignored by plain `cargo test`
    /// because CI's `cargo xtask regress --quick` already compares every
    /// quick case with its snapshot, and running the five-box stack twice
    /// unoptimised would cost CI another 50 s.
    #[test]
    #[ignore = "writes snapshots; run by `cargo insta test -p xtask --include-ignored`"]
    fn cases_match_their_snapshots() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../regress");
        let all = std::env::var_os("REGRESS_SNAPSHOT_ALL").is_some();
        for file in case_files(&folder).unwrap() {
            let case = load(&file).unwrap();
            if !(case.quick || all) {
                continue;
            }
            let name = file.file_stem().and_then(|s| s.to_str()).unwrap();
            let values = measure(&case).unwrap();
            insta::with_settings!({
                snapshot_path => folder.join("snapshots"),
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!(name, snapshot::render(&values));
            });
        }
    }

    #[test]
    fn every_case_in_the_repository_parses() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../regress");
        let files = case_files(&folder).unwrap();
        assert!(!files.is_empty());
        for file in files {
            let case = load(&file).unwrap();
            let sources = [
                case.scene.is_some(),
                case.lcp.is_some(),
                case.lcp_file.is_some(),
            ];
            assert_eq!(
                sources.iter().filter(|&&s| s).count(),
                1,
                "{}",
                file.display()
            );
            assert!(!case.expect.is_empty(), "{}", file.display());
            // A new case needs its snapshot committed with it.
            let name = file.file_stem().and_then(|s| s.to_str()).unwrap();
            let snap = folder.join("snapshots").join(format!("{name}.snap"));
            assert!(
                matches!(snapshot::read(&snap), Ok(Some(_))),
                "{} has no snapshot {}",
                file.display(),
                snap.display()
            );
        }
    }
}
