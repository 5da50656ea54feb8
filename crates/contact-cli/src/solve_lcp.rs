//! `contact solve-lcp FILE.json [--method dantzig|lemke|pgs|auto]
//! [--repeat K]`: solves one problem file (the format of
//! `contact_lcp::ProblemFile`, see `docs/lcp-file-format.md`) and prints the
//! solution as one line of JSON (`contact_lcp::SolutionLine`).
//!
//! `seconds` is the median time of the solve call alone (no reading,
//! validation or printing) over K timed repeats after one warm-up solve, with
//! the solver's workspace and the output vectors reused, so it is the time of
//! a warmed-up solve that allocates nothing. Build the program in release
//! (`cargo install --path crates/contact-cli`, or `cargo xtask solve-lcp`,
//! which does) when the time matters.
//!
//! Exit status: 0 when solved; 1 when the solver found no solution or gave
//! up (the line, with the best iterate if the solver had one, still goes to
//! stdout, the reason to stderr); 2 for bad arguments or a bad file (the
//! error names the field).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use contact_sim::contact_lcp::{
    BoxLcp, Dantzig, LcpError, LcpProblem, LcpSolution, Lemke, Method, ProblemFile,
    ProjectedGaussSeidel, SolutionLine, Solver,
};

/// The solver asked for with `--method`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Choice {
    /// The crate's policy, `contact_lcp::Solver`: Dantzig and Lemke in the
    /// order the problem suits, projected Gauss-Seidel as the fail-safe;
    /// the line's `method` is the solver that answered.
    Auto,
    /// `contact_lcp::Dantzig`.
    Dantzig,
    /// `contact_lcp::Lemke` (a box problem through `Lemke::solve_box`).
    Lemke,
    /// `contact_lcp::ProjectedGaussSeidel`.
    Pgs,
}

/// The command line of `contact solve-lcp`.
#[derive(Clone, Debug, PartialEq, clap::Args)]
pub struct Options {
    /// The problem: {"M": [[...]], "q": [...]} and optionally "lo", "hi"
    /// (numbers, "inf", "-inf") and "coupling": [{"row": i, "normal_row": j,
    /// "mu": m}] (docs/lcp-file-format.md).
    #[arg(value_name = "FILE.json")]
    pub file: PathBuf,
    /// dantzig: principal pivoting (symmetric M; plain or box); lemke:
    /// Lemke's method (plain, or box through its standard form); pgs:
    /// projected Gauss-Seidel; auto: the crate's policy (dantzig and lemke
    /// in the order the problem suits, then pgs); the line's "method" says
    /// which answered.
    #[arg(long, value_enum, default_value_t = Choice::Auto)]
    pub method: Choice,
    /// Time K solves after one warm-up and report the median.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = at_least_one)]
    pub repeat: usize,
}

fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(k) if k >= 1 => Ok(k),
        _ => Err("needs an integer >= 1".into()),
    }
}

/// Why the command did not print a solution.
#[derive(Debug)]
pub enum Failure {
    /// Bad arguments or a bad file: nothing was solved.
    Input(String),
    /// The solver ran and failed: the line of the failed solve and the reason.
    Solver {
        /// The line of the failed solve.
        line: Box<SolutionLine>,
        /// Why it failed.
        reason: String,
    },
}

impl Failure {
    /// The reason, for the error line.
    #[must_use]
    pub fn message(&self) -> &str {
        match self {
            Self::Input(message)
            | Self::Solver {
                reason: message, ..
            } => message,
        }
    }
}

/// Reads and validates a problem file; the error names the field (the
/// caller names the file).
///
/// # Errors
/// The reason, naming the field.
pub fn load(path: &Path) -> Result<LcpProblem, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let file: ProblemFile = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    file.into_problem().map_err(|e| e.to_string())
}

/// Loads `options.file` and solves it: the core of the command.
///
/// # Errors
/// [`Failure::Input`] for a bad file, [`Failure::Solver`] when the solver fails.
pub fn solve_file(options: &Options) -> Result<SolutionLine, Failure> {
    let problem = load(&options.file).map_err(Failure::Input)?;
    solve(&problem, options.method, options.repeat)
}

/// Solves `problem` with the chosen method, once to warm up and `repeat`
/// more times, timing each solve call alone; returns the last solution with
/// the median of the timed calls.
///
/// # Errors
/// [`Failure::Solver`] with the failed solve's line and reason.
pub fn solve(problem: &LcpProblem, choice: Choice, repeat: usize) -> Result<SolutionLine, Failure> {
    let (mut lines, _) = solve_set(std::slice::from_ref(problem), choice, repeat, 1)?;
    Ok(lines.remove(0))
}

/// Solves every problem of `set` in turn with one solver of the chosen
/// method (its workspace reused from one to the next, as a simulation's
/// solver meets one island after another), the whole set `copies` times a
/// pass, in one pass to warm up and `repeat` more; a pass's time is the
/// sum of its timed solve calls. Returns each problem's solution from the
/// last pass, each line's `seconds` the median pass time over its number
/// of calls (the time of one solve). With one problem and one copy: the
/// median of `repeat` timed calls. Also returns the clock reads' own
/// time, measured alike on an empty timed region right after each call
/// (what each `seconds` holds besides the solve; `cargo xtask bench
/// peers` reports times net of it). On a failed solve, its line and the
/// reason (prefixed with the problem's index in a set of more than one).
///
/// # Errors
/// [`Failure::Solver`] with the failed solve's line and reason.
pub fn solve_set(
    set: &[LcpProblem],
    choice: Choice,
    repeat: usize,
    copies: usize,
) -> Result<(Vec<SolutionLine>, f64), Failure> {
    // The box forms of plain LCPs, for the solvers that take only box LCPs
    // (built here, outside the timed calls).
    let boxes: Vec<Cow<'_, BoxLcp>> = set
        .iter()
        .map(|problem| match problem {
            LcpProblem::Plain(lcp) => Cow::Owned(BoxLcp::from_lcp(lcp)),
            LcpProblem::Box(p) => Cow::Borrowed(p),
        })
        .collect();
    let mut runner = Runner::new(choice);
    let mut outs = vec![LcpSolution::default(); set.len()];
    let mut times = Vec::with_capacity(repeat.min(1 << 16));
    let mut clocks = Vec::with_capacity(repeat.min(1 << 16));
    let copies = copies.max(1);
    let calls = (set.len() * copies) as f64;
    for k in 0..=repeat {
        let (mut pass, mut pass_clock) = (0.0, 0.0);
        let every_copy = set
            .iter()
            .zip(&boxes)
            .enumerate()
            .cycle()
            .take(set.len() * copies);
        for (i, (problem, as_box)) in every_copy {
            let out = &mut outs[i];
            let start = Instant::now();
            let result = runner.call(problem, as_box, out);
            let seconds = start.elapsed().as_secs_f64();
            if let Err(error) = result {
                let method = runner.method();
                let at = if set.len() > 1 {
                    format!("problem {i}: ")
                } else {
                    String::new()
                };
                return Err(Failure::Solver {
                    line: Box::new(SolutionLine::failed(&error, method, seconds)),
                    reason: format!("{at}{method:?}: {error}"),
                });
            }
            pass += seconds;
            let empty = Instant::now();
            pass_clock += empty.elapsed().as_secs_f64();
        }
        if k > 0 {
            times.push(pass / calls);
            clocks.push(pass_clock / calls);
        }
    }
    let seconds = median(&mut times);
    let lines = outs
        .iter()
        .map(|out| SolutionLine::solved(out, seconds))
        .collect();
    Ok((lines, median(&mut clocks)))
}

/// One solver of each method, with its workspace (boxed: the workspaces
/// differ in size by kilobytes).
enum Runner {
    /// The policy.
    Auto(Box<Solver>),
    /// Lemke's method.
    Lemke(Box<Lemke>),
    /// Projected Gauss-Seidel.
    Pgs(Box<ProjectedGaussSeidel>),
    /// Dantzig's principal pivoting.
    Dantzig(Box<Dantzig>),
}

impl Runner {
    fn new(choice: Choice) -> Self {
        match choice {
            Choice::Auto => Self::Auto(Box::default()),
            Choice::Lemke => Self::Lemke(Box::default()),
            Choice::Pgs => Self::Pgs(Box::default()),
            Choice::Dantzig => Self::Dantzig(Box::default()),
        }
    }

    /// The solver named in the line of a failed solve; a successful line
    /// takes it from the solution (the policy reports which answered, and
    /// returns only its fail-safe's errors).
    fn method(&self) -> Method {
        match self {
            Self::Auto(_) | Self::Pgs(_) => Method::ProjectedGaussSeidel,
            Self::Lemke(_) => Method::Lemke,
            Self::Dantzig(_) => Method::Dantzig,
        }
    }

    /// One solve call of `problem` (`as_box`: its box form) into `out`.
    fn call(
        &mut self,
        problem: &LcpProblem,
        as_box: &BoxLcp,
        out: &mut LcpSolution,
    ) -> Result<(), LcpError> {
        match (self, problem) {
            // `solve_lcp` picks Dantzig or Lemke from the symmetry of M (and
            // copies M into a box form when symmetric: one copy per call).
            (Self::Auto(solver), LcpProblem::Plain(lcp)) => {
                *out = solver.solve_lcp(lcp)?;
                Ok(())
            }
            (Self::Auto(solver), LcpProblem::Box(p)) => solver.solve_into(p, out),
            (Self::Lemke(solver), LcpProblem::Plain(lcp)) => solver.solve_into(lcp, out),
            (Self::Lemke(solver), LcpProblem::Box(p)) => solver.solve_box_into(p, out),
            (Self::Pgs(solver), _) => solver.solve_into(as_box, None, out),
            (Self::Dantzig(solver), _) => solver.solve_into(as_box, out),
        }
    }
}

/// The median (the mean of the middle two for an even count; 0 when empty).
pub fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    match times.len() {
        0 => 0.0,
        n if n % 2 == 1 => times[n / 2],
        n => 0.5 * (times[n / 2 - 1] + times[n / 2]),
    }
}

fn print(line: &SolutionLine) {
    match serde_json::to_string(line) {
        Ok(text) => println!("{text}"),
        Err(e) => eprintln!("contact solve-lcp: cannot write the solution: {e}"),
    }
}

/// Runs the command; the exit status as the module comment says.
#[must_use]
pub fn run(options: &Options) -> ExitCode {
    match solve_file(options) {
        Ok(line) => {
            print(&line);
            ExitCode::SUCCESS
        }
        Err(failure) => {
            let code = match &failure {
                Failure::Input(_) => 2,
                Failure::Solver { line, .. } => {
                    print(line);
                    1
                }
            };
            eprintln!(
                "contact solve-lcp: {}: {}",
                options.file.display(),
                failure.message()
            );
            ExitCode::from(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contact_sim::contact_lcp::SolveStatus;

    /// Writes `text` to a fresh file in a per-test temporary folder.
    fn write(test: &str, text: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("contact-solve-lcp-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("problem.json");
        std::fs::write(&path, text).unwrap();
        path
    }

    fn options(file: PathBuf, method: Choice, repeat: usize) -> Options {
        Options {
            file,
            method,
            repeat,
        }
    }

    #[test]
    fn a_two_by_two_lcp_has_its_closed_form_solution_with_every_method() {
        // Both rows active: 2 z0 + z1 = 5, z0 + 2 z1 = 6, so z = (4/3, 7/3)
        // > 0 and w = 0 (M is positive definite: the solution is unique).
        let file = write("closed_form", r#"{"M": [[2, 1], [1, 2]], "q": [-5, -6]}"#);
        for method in [Choice::Auto, Choice::Lemke, Choice::Pgs, Choice::Dantzig] {
            let line = solve_file(&options(file.clone(), method, 3))
                .unwrap_or_else(|f| panic!("{method:?}: {}", f.message()));
            assert_eq!(line.status, SolveStatus::Solved);
            // Pivoting is exact up to rounding; projected Gauss-Seidel stops
            // at a scaled natural residual of 1e-8.
            let tol = if method == Choice::Pgs { 1e-6 } else { 1e-12 };
            let expected = [4.0 / 3.0, 7.0 / 3.0];
            for ((z, w), e) in line.z.iter().zip(&line.w).zip(expected) {
                assert!((z - e).abs() < tol, "{method:?} {line:?}");
                assert!(w.abs() < tol * 10.0, "{method:?} {line:?}");
            }
            assert!(line.residual <= 1e-8 && line.seconds >= 0.0, "{line:?}");
            let json = serde_json::to_string(&line).unwrap();
            assert!(!json.contains('\n') && json.contains("\"status\":\"solved\""));
        }
        // M is symmetric: the policy answers with Dantzig.
        let auto = solve_file(&options(file.clone(), Choice::Auto, 1)).unwrap();
        assert_eq!(auto.method, Method::Dantzig);
        // A non-symmetric M goes to Lemke: both rows active, 2 z0 + 2 z1 =
        // 22 and z0 + 2 z1 = 18 give z = (4, 7) > 0 (M is a P-matrix: the
        // solution is unique).
        let skew = write(
            "closed_form_skew",
            r#"{"M": [[2, 2], [1, 2]], "q": [-22, -18]}"#,
        );
        let auto = solve_file(&options(skew, Choice::Auto, 1)).unwrap();
        assert_eq!(auto.method, Method::Lemke);
        assert!((auto.z[0] - 4.0).abs() < 1e-12, "{auto:?}");
        assert!((auto.z[1] - 7.0).abs() < 1e-12, "{auto:?}");
    }

    #[test]
    fn a_box_lcp_is_solved_by_the_policy_and_lemke_refuses_it() {
        // The doc example of ProjectedGaussSeidel: a normal row and a friction
        // row coupled to it that slides; closed form z_0 = 8/9, z_1 = z_0 / 2.
        let file = write(
            "box",
            r#"{"M": [[2, 0.5], [0.5, 1]], "q": [-2, -3], "lo": [0, "-inf"],
                "coupling": [{"row": 1, "normal_row": 0, "mu": 0.5}]}"#,
        );
        // M is symmetric positive definite: Dantzig answers, exactly.
        let line = solve_file(&options(file.clone(), Choice::Auto, 1)).unwrap();
        assert_eq!(line.method, Method::Dantzig);
        assert!((line.z[0] - 8.0 / 9.0).abs() < 1e-12, "{:?}", line.z);
        assert!((line.z[1] - 4.0 / 9.0).abs() < 1e-12, "{:?}", line.z);
        let line = solve_file(&options(file.clone(), Choice::Pgs, 1)).unwrap();
        assert_eq!(line.method, Method::ProjectedGaussSeidel);
        assert!((line.z[0] - 8.0 / 9.0).abs() < 1e-7, "{:?}", line.z);
        // Lemke on the standard form of the box problem: the same answer.
        let line = solve_file(&options(file, Choice::Lemke, 1)).unwrap();
        assert_eq!(line.method, Method::Lemke);
        assert!((line.z[0] - 8.0 / 9.0).abs() < 1e-12, "{:?}", line.z);
        assert!((line.z[1] - 4.0 / 9.0).abs() < 1e-12, "{:?}", line.z);
    }

    #[test]
    fn an_infeasible_lcp_fails_with_the_reason() {
        // Row 0: w_0 = -z_0 - 1 < 0 for every z_0 >= 0, so there is no
        // solution; Lemke ends on a secondary ray.
        let file = write("infeasible", r#"{"M": [[-1, 0], [0, 1]], "q": [-1, 1]}"#);
        match solve_file(&options(file.clone(), Choice::Lemke, 1)) {
            Err(Failure::Solver { line, reason }) => {
                assert_eq!(line.status, SolveStatus::RayTermination);
                assert!(reason.contains("secondary ray"), "{reason}");
                assert!(line.reason.is_some());
            }
            other => panic!("expected a solver failure, got {other:?}"),
        }
        // The policy's Dantzig fails (M is not PSD) and so does its
        // fail-safe (M_00 < 0): the failure names projected Gauss-Seidel.
        match solve_file(&options(file.clone(), Choice::Auto, 1)) {
            Err(Failure::Solver { line, .. }) => {
                assert_eq!(line.method, Method::ProjectedGaussSeidel);
                assert_ne!(line.status, SolveStatus::Solved);
            }
            other => panic!("expected a solver failure, got {other:?}"),
        }
        // M = 0 is positive semidefinite and w = q has a negative entry.
        let file = write("infeasible_psd", r#"{"M": [[0, 0], [0, 1]], "q": [-1, 1]}"#);
        for method in [Choice::Lemke, Choice::Dantzig, Choice::Pgs, Choice::Auto] {
            assert!(
                matches!(
                    solve_file(&options(file.clone(), method, 1)),
                    Err(Failure::Solver { .. }) | Err(Failure::Input(_))
                ),
                "{method:?} solved an infeasible problem"
            );
        }
    }

    /// Problems solved in turn by one solver keep their own answers, and a
    /// failure names the problem of the set that failed.
    #[test]
    fn a_set_is_solved_in_turn_and_a_failure_names_its_problem() {
        let lcp = |m: &[f64], q: &[f64]| {
            LcpProblem::Plain(contact_sim::contact_lcp::Lcp::from_row_major(2, m, q).unwrap())
        };
        // Closed forms: z = (4/3, 7/3) as above; z = (1, 0) with w_1 =
        // 1 + 2 > 0 (M = I, q = (-1, 2)); z = (0, 3) for q = (1, -3).
        let set = [
            lcp(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]),
            lcp(&[1.0, 0.0, 0.0, 1.0], &[-1.0, 2.0]),
            lcp(&[1.0, 0.0, 0.0, 1.0], &[1.0, -3.0]),
        ];
        let expected = [[4.0 / 3.0, 7.0 / 3.0], [1.0, 0.0], [0.0, 3.0]];
        for method in [Choice::Auto, Choice::Lemke, Choice::Dantzig] {
            let (lines, clock) = solve_set(&set, method, 2, 3).unwrap();
            assert!((0.0..1e-3).contains(&clock), "{clock}");
            assert_eq!(lines.len(), 3);
            for (line, e) in lines.iter().zip(expected) {
                assert!((line.z[0] - e[0]).abs() < 1e-12, "{method:?} {line:?}");
                assert!((line.z[1] - e[1]).abs() < 1e-12, "{method:?} {line:?}");
                assert_eq!(line.seconds, lines[0].seconds);
            }
        }
        // The second problem has no solution (w_0 = -z_0 - 1 < 0).
        let bad = [set[0].clone(), lcp(&[-1.0, 0.0, 0.0, 1.0], &[-1.0, 1.0])];
        match solve_set(&bad, Choice::Lemke, 1, 1) {
            Err(Failure::Solver { reason, .. }) => {
                assert!(reason.starts_with("problem 1: Lemke"), "{reason}");
            }
            other => panic!("expected a solver failure, got {other:?}"),
        }
    }

    #[test]
    fn a_bad_file_names_the_field() {
        let cases = [
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "lo": [0, "infinity"]}"#,
                r#"lo[1] is "infinity": expected a number, "inf" or "-inf""#,
            ),
            (
                r#"{"M": [[1, 0], [0, 1, 3]], "q": [1, 1]}"#,
                "M[1] has 3 entries, expected 2",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "lo": [0, "-inf"],
                    "coupling": [{"row": 1, "normal_row": 5, "mu": 0.5}]}"#,
                "coupling[0].normal_row out of range",
            ),
            (r#"{"M": [[1]], "q": [1], "h": [1]}"#, "unknown field `h`"),
            (r#"{"M": [[1]], "q": [1"#, "EOF"),
        ];
        for (k, (text, expected)) in cases.into_iter().enumerate() {
            let file = write(&format!("bad_{k}"), text);
            match solve_file(&options(file.clone(), Choice::Auto, 1)) {
                Err(Failure::Input(message)) => {
                    assert!(message.contains(expected), "{message}");
                }
                other => panic!("{text}: expected an input error, got {other:?}"),
            }
        }
        let missing = PathBuf::from("/nonexistent/problem.json");
        assert!(matches!(
            solve_file(&options(missing, Choice::Auto, 1)),
            Err(Failure::Input(_))
        ));
    }

    #[test]
    fn the_median_is_the_middle_time() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }

    #[test]
    fn every_example_problem_solves() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/lcp");
        let mut count = 0;
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "json") {
                let line = solve_file(&options(path.clone(), Choice::Auto, 1))
                    .unwrap_or_else(|f| panic!("{}: {}", path.display(), f.message()));
                assert!(line.residual <= 1e-8, "{}: {line:?}", path.display());
                count += 1;
            }
        }
        assert!(count >= 2, "examples/lcp holds {count} problems");
    }
}
