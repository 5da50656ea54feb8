//! `cargo xtask fuzz [--seed S] [--count N] [--out DIR] [--keep K]
//! [--threads T]`: solves N random problems (generate.rs) with every
//! solver of contact-lcp (block principal pivoting, which takes only
//! problems given by the factors of `M = J W J' + C`, on the factored
//! family alone: factored.rs) and checks each answer with the fuzz's own
//! certificate (certify.rs) on the dense `M`.
//!
//! A failure is an `Ok` answer that the certificate rejects (for Lemke,
//! Dantzig and the exact methods of the policy: a scaled error above the
//! policy's tolerance 1e-9; for projected Gauss-Seidel: a scaled natural
//! residual above its tolerance 1e-8 or a `w` that is not `M z + q`), a
//! panic, or an error of the policy (`Solver`) on a problem it must solve
//! (generate.rs: `guaranteed`). Errors on problems without a known
//! solution are counted by kind, not failures. Failures are written to
//! DIR (default `target/fuzz`) in the problem file format
//! (docs/lcp-file-format.md), at most K (default 10) per solver, class and
//! family, smallest first, named `<solver>-<class>-<family>-s<seed>-<index>.json`.
//!
//! Problem `i` depends only on `(S, i)`, and each is solved by fresh
//! solvers, so the counts do not depend on the number of threads.

mod box_families;
mod certify;
mod factored;
mod generate;

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use contact_lcp::{
    BlockPivoting, BoxLcp, Dantzig, FactoredBoxLcp, FactoredParts, LcpError, LcpProblem,
    LcpSolution, Lemke, Method, ProjectedGaussSeidel, Solver, SolverParams,
};

use certify::measure;
use generate::{Family, Problem};

const HELP: &str = "\
cargo xtask fuzz [--seed S] [--count N] [--out DIR] [--keep K] [--threads T]
                 [--verbose]
cargo xtask fuzz --replay FILE.json...

Solves N (default 100000) random LCPs and box LCPs of seed S (default 1):
SPD, PSD rank-deficient, non-symmetric, monotone, P-matrix, copositive,
bimatrix games, degenerate, box and friction-coupled problems at scales
1e-12..1e12, plus known-infeasible ones and a few at extreme scales, with
Lemke (solve / solve_box), Dantzig, block principal pivoting (on the
factored family, contact problems given by J, W and C), projected
Gauss-Seidel and the policy (Solver), and re-certifies every Ok answer
independently of the crate.
Failures (uncertified Ok, panic, the policy failing a problem it must
solve) go to DIR (default target/fuzz) as problem files, at most K
(default 10) per solver, class and family. Exit status 1 on any failure.
Results do not depend on T (default: the machine's cores). --verbose also
lists each solver's errors on problems with a known solution, by family.

--replay solves the given problem files with every solver and prints each
outcome with the fuzz's own measures of the answer.
";

/// Slack of the re-certification over a solver's own tolerance: the two
/// certificates round differently (the crate's in f64, this one nearly
/// exactly), by far less than this.
const SLACK: f64 = 1e-12;

/// The policy's tolerance for exact answers (`SolverParams::tolerance`).
fn exact_tolerance() -> f64 {
    SolverParams::default().tolerance
}

/// Projected Gauss-Seidel's tolerance on the scaled natural residual.
fn pgs_tolerance() -> f64 {
    SolverParams::default().pgs.tolerance
}

/// The solvers run on every problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum SolverKind {
    Lemke,
    Dantzig,
    BlockPivoting,
    Pgs,
    Policy,
}

impl SolverKind {
    const ALL: [SolverKind; 5] = [
        Self::Lemke,
        Self::Dantzig,
        Self::BlockPivoting,
        Self::Pgs,
        Self::Policy,
    ];

    fn name(self) -> &'static str {
        match self {
            Self::Lemke => "lemke",
            Self::Dantzig => "dantzig",
            Self::BlockPivoting => "bpp",
            Self::Pgs => "pgs",
            Self::Policy => "policy",
        }
    }
}

/// A failure's class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    /// `Ok` with an answer the certificate rejects.
    Uncertified,
    /// The solver panicked.
    Panic,
    /// The policy returned an error on a problem it must solve.
    Unsolved,
    /// A solver claimed that a problem with a known solution has none.
    Refused,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Self::Uncertified => "uncertified",
            Self::Panic => "panic",
            Self::Unsolved => "unsolved",
            Self::Refused => "refused",
        }
    }
}

/// One failure: enough to regenerate and name the problem.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Failure {
    solver: SolverKind,
    class: Class,
    family: Family,
    n: usize,
    index: u64,
}

/// Counts of a run (or of a part of it), merged by adding.
#[derive(Default)]
struct Tally {
    problems: BTreeMap<Family, u64>,
    /// (solver, outcome) -> count; outcomes "ok", "uncertified", "panic",
    /// or the error's kind.
    outcomes: BTreeMap<(SolverKind, String), u64>,
    /// The policy's answers by the method that gave them.
    policy_methods: BTreeMap<String, u64>,
    /// The policy's errors on problems with a known solution, by
    /// whether they had to be solved.
    policy_unsolved: [u64; 2],
    /// The policy's errors on problems with a known solution that it need
    /// not solve, by family.
    beyond: BTreeMap<Family, u64>,
    /// Errors on problems with a known solution: (solver, family, kind).
    solvable_errors: BTreeMap<(SolverKind, Family, String), u64>,
    /// Certified answers to problems known to have no solution (exact
    /// data), by solver: the certificate allows a perturbation of the
    /// tolerance's size, and a huge z along a near-null direction of M
    /// can use it.
    infeasible_answers: BTreeMap<SolverKind, u64>,
    /// The worst re-certified measure of an accepted answer, per solver.
    worst: BTreeMap<SolverKind, f64>,
    failures: Vec<Failure>,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        for (k, v) in other.problems {
            *self.problems.entry(k).or_default() += v;
        }
        for (k, v) in other.outcomes {
            *self.outcomes.entry(k).or_default() += v;
        }
        for (k, v) in other.infeasible_answers {
            *self.infeasible_answers.entry(k).or_default() += v;
        }
        for (k, v) in other.solvable_errors {
            *self.solvable_errors.entry(k).or_default() += v;
        }
        for (k, v) in other.policy_methods {
            *self.policy_methods.entry(k).or_default() += v;
        }
        for i in 0..2 {
            self.policy_unsolved[i] += other.policy_unsolved[i];
        }
        for (k, v) in other.beyond {
            *self.beyond.entry(k).or_default() += v;
        }
        for (k, v) in other.worst {
            let e = self.worst.entry(k).or_insert(0.0);
            *e = e.max(v);
        }
        self.failures.extend(other.failures);
    }
}

/// The parsed command line.
#[derive(Clone, Debug, PartialEq)]
struct Options {
    seed: u64,
    count: u64,
    out: PathBuf,
    keep: usize,
    threads: usize,
    verbose: bool,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        seed: 1,
        count: 100_000,
        out: PathBuf::from("target/fuzz"),
        keep: 10,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        verbose: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        let number = |name: &str, v: &String| {
            v.parse::<u64>()
                .map_err(|_| format!("{name} needs a non-negative integer, got `{v}`"))
        };
        match arg.as_str() {
            "--seed" => o.seed = number("--seed", value("--seed")?)?,
            "--count" => o.count = number("--count", value("--count")?)?,
            "--keep" => o.keep = number("--keep", value("--keep")?)? as usize,
            "--threads" => {
                o.threads = (number("--threads", value("--threads")?)? as usize).max(1);
            }
            "--out" => o.out = PathBuf::from(value("--out")?),
            "--verbose" => o.verbose = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(o)
}

pub fn run(args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    }
    if let [flag, files @ ..] = args
        && flag == "--replay"
    {
        return replay(files);
    }
    let options = match parse_args(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("xtask fuzz: {e}\n\n{HELP}");
            return ExitCode::from(2);
        }
    };
    // Panics are counted, not printed as they happen.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let tally = run_all(&options);
    let seconds = start.elapsed().as_secs_f64();
    std::panic::set_hook(hook);
    report(&options, &tally, seconds);
    if tally.failures.is_empty() {
        return ExitCode::SUCCESS;
    }
    match write_failures(&options, &tally.failures) {
        Ok(written) => println!(
            "{} failures; {written} problem files in {}",
            tally.failures.len(),
            options.out.display()
        ),
        Err(e) => eprintln!("xtask fuzz: could not write failures: {e}"),
    }
    ExitCode::FAILURE
}

/// Runs every problem on `threads` threads, each taking the next chunk of
/// indices, and merges their tallies.
fn run_all(o: &Options) -> Tally {
    const CHUNK: u64 = 64;
    let next = AtomicU64::new(0);
    let mut total = Tally::default();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..o.threads)
            .map(|_| {
                s.spawn(|| {
                    let mut tally = Tally::default();
                    loop {
                        let first = next.fetch_add(CHUNK, Ordering::Relaxed);
                        if first >= o.count {
                            break;
                        }
                        for index in first..(first + CHUNK).min(o.count) {
                            run_one(o.seed, index, &mut tally);
                        }
                    }
                    tally
                })
            })
            .collect();
        for w in workers {
            total.merge(w.join().expect("a worker panicked outside a solve"));
        }
    });
    total.failures.sort();
    total
}

/// Solves each problem file with every solver and prints what each did,
/// with the fuzz's own measures of every answer (to study a failure).
fn replay(files: &[String]) -> ExitCode {
    let mut code = ExitCode::SUCCESS;
    for file in files {
        let problem = match contact_cli::solve_lcp::load(std::path::Path::new(file)) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{file}: {e}");
                code = ExitCode::from(2);
                continue;
            }
        };
        let p = Problem::from_crate(&problem);
        println!("{file}: n = {}", p.n);
        for kind in SolverKind::ALL {
            match solve_with(kind, &problem, None) {
                Outcome::Answer(s) => {
                    let m = measure(&p, &s.z, &s.w);
                    println!(
                        "  {:8} {:?}: scaled error {:.3e}, natural residual {:.3e}, z = {:?}",
                        kind.name(),
                        s.method,
                        m.scaled_max,
                        m.natural,
                        s.z
                    );
                }
                Outcome::Error(e) => println!("  {:8} error: {e}", kind.name()),
                Outcome::Panic => println!("  {:8} panicked", kind.name()),
                Outcome::NotApplicable => {
                    println!("  {:8} not applicable (no factors)", kind.name());
                }
            }
        }
    }
    code
}

/// What one solver did with one problem.
enum Outcome {
    Answer(LcpSolution),
    Error(LcpError),
    Panic,
    /// The solver does not take this kind of problem.
    NotApplicable,
}

/// Runs `f`, catching a panic.
fn guarded(f: impl FnOnce() -> Result<LcpSolution, LcpError>) -> Outcome {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(s)) => Outcome::Answer(s),
        Ok(Err(e)) => Outcome::Error(e),
        Err(_) => Outcome::Panic,
    }
}

/// The error's variant name (`RayTermination`, ...).
fn error_kind(e: &LcpError) -> String {
    let debug = format!("{e:?}");
    debug
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("error")
        .to_string()
}

/// Solves problem `index` with every solver and tallies the outcomes.
fn run_one(seed: u64, index: u64, tally: &mut Tally) {
    let p = generate::problem(seed, index);
    *tally.problems.entry(p.family).or_default() += 1;
    let problem = p.to_crate();
    let factors = p.factors.as_ref();
    let outcomes = SolverKind::ALL.map(|kind| solve_with(kind, &problem, factors));
    // A certified answer from any solver contradicts a claim that there is
    // none (a certified answer solves the problem up to a perturbation of
    // the tolerance's size, which the search's proof, on nonsingular
    // bases, would have seen).
    let answered = outcomes.iter().any(|o| match o {
        Outcome::Answer(s) => measure(&p, &s.z, &s.w).scaled_max <= exact_tolerance(),
        _ => false,
    });
    for (kind, outcome) in SolverKind::ALL.into_iter().zip(outcomes) {
        tally_outcome(&p, index, (kind, answered), outcome, tally);
    }
}

/// Solves `problem` (with `factors`, those of its `M` if known) with a
/// fresh solver of `kind`.
fn solve_with(kind: SolverKind, problem: &LcpProblem, factors: Option<&FactoredParts>) -> Outcome {
    let boxed = || match problem {
        LcpProblem::Plain(lcp) => BoxLcp::from_lcp(lcp),
        LcpProblem::Box(b) => b.clone(),
    };
    match kind {
        SolverKind::Lemke => guarded(|| match problem {
            LcpProblem::Plain(lcp) => Lemke::default().solve(lcp),
            LcpProblem::Box(b) => Lemke::default().solve_box(b),
        }),
        SolverKind::Dantzig => guarded(|| Dantzig::default().solve(&boxed())),
        SolverKind::BlockPivoting => match factors {
            None => Outcome::NotApplicable,
            Some(parts) => guarded(|| {
                let factored = FactoredBoxLcp::new(parts.clone())?;
                let mut out = LcpSolution::default();
                BlockPivoting::default().solve_into(&factored, None, &mut out)?;
                Ok(out)
            }),
        },
        SolverKind::Pgs => guarded(|| ProjectedGaussSeidel::default().solve(&boxed(), None)),
        SolverKind::Policy => guarded(|| match problem {
            LcpProblem::Plain(lcp) => Solver::default().solve_lcp(lcp),
            LcpProblem::Box(b) => Solver::default().solve(b),
        }),
    }
}

/// Tallies what solver `kind` did with problem `index`; `answered` is
/// whether some solver returned a certified answer.
fn tally_outcome(
    p: &Problem,
    index: u64,
    (kind, answered): (SolverKind, bool),
    outcome: Outcome,
    tally: &mut Tally,
) {
    let mut fail = |class| {
        tally.failures.push(Failure {
            solver: kind,
            class,
            family: p.family,
            n: p.n,
            index,
        });
    };
    let label = match outcome {
        Outcome::Answer(s) => {
            let m = measure(p, &s.z, &s.w);
            // Projected Gauss-Seidel (alone or as the policy's fail-safe)
            // certifies by its natural residual; the others by the four
            // measures.
            let (value, limit) = if s.method == Method::ProjectedGaussSeidel {
                let residual_ok = m.residual <= exact_tolerance() + SLACK;
                let value = if residual_ok {
                    m.natural
                } else {
                    f64::INFINITY
                };
                (value, pgs_tolerance())
            } else {
                (m.scaled_max, exact_tolerance())
            };
            if kind == SolverKind::Policy {
                *tally
                    .policy_methods
                    .entry(format!("{:?}", s.method))
                    .or_default() += 1;
            }
            if value <= limit + SLACK {
                if p.family == Family::Infeasible {
                    *tally.infeasible_answers.entry(kind).or_default() += 1;
                }
                let worst = tally.worst.entry(kind).or_insert(0.0);
                *worst = worst.max(value / limit);
                "ok".to_string()
            } else {
                fail(Class::Uncertified);
                "uncertified".to_string()
            }
        }
        Outcome::Error(e) => {
            if p.solvable {
                *tally
                    .solvable_errors
                    .entry((kind, p.family, error_kind(&e)))
                    .or_default() += 1;
            }
            if (p.solvable || answered) && matches!(e, LcpError::NoSolution { .. }) {
                fail(Class::Refused);
            } else if kind == SolverKind::Policy && p.solvable {
                tally.policy_unsolved[usize::from(p.guaranteed)] += 1;
                if p.guaranteed {
                    fail(Class::Unsolved);
                } else {
                    *tally.beyond.entry(p.family).or_default() += 1;
                }
            }
            error_kind(&e)
        }
        Outcome::Panic => {
            fail(Class::Panic);
            "panic".to_string()
        }
        Outcome::NotApplicable => return,
    };
    *tally.outcomes.entry((kind, label)).or_default() += 1;
}

fn report(o: &Options, t: &Tally, seconds: f64) {
    let total: u64 = t.problems.values().sum();
    println!(
        "fuzz: seed {}, {total} problems in {seconds:.1} s ({:.0} problems/s, {} threads)",
        o.seed,
        total as f64 / seconds,
        o.threads
    );
    let families: Vec<String> = Family::ALL
        .iter()
        .map(|f| format!("{} {}", f.name(), t.problems.get(f).copied().unwrap_or(0)))
        .collect();
    println!("families: {}", families.join(", "));
    for kind in SolverKind::ALL {
        let parts: Vec<String> = t
            .outcomes
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .map(|((_, label), v)| format!("{label} {v}"))
            .collect();
        let worst = t.worst.get(&kind).copied().unwrap_or(0.0);
        println!(
            "{:8} {} (worst accepted answer at {worst:.2} of its tolerance)",
            kind.name(),
            parts.join(", ")
        );
    }
    let methods: Vec<String> = t
        .policy_methods
        .iter()
        .map(|(m, v)| format!("{m} {v}"))
        .collect();
    println!("policy answers by method: {}", methods.join(", "));
    let beyond: Vec<String> = t
        .beyond
        .iter()
        .map(|(f, v)| format!("{} {v}", f.name()))
        .collect();
    println!(
        "policy errors on problems with a solution: {} it must solve, {} beyond its guarantees ({})",
        t.policy_unsolved[1],
        t.policy_unsolved[0],
        beyond.join(", ")
    );
    if o.verbose {
        let answers: Vec<String> = t
            .infeasible_answers
            .iter()
            .map(|(k, v)| format!("{} {v}", k.name()))
            .collect();
        println!(
            "certified answers to problems without solution (exact data): {}",
            answers.join(", ")
        );
        println!("errors on problems with a known solution:");
        for ((kind, family, error), v) in &t.solvable_errors {
            println!("  {:8} {:20} {error} {v}", kind.name(), family.name());
        }
    }
    let mut classes: BTreeMap<(SolverKind, Class, Family), u64> = BTreeMap::new();
    for f in &t.failures {
        *classes.entry((f.solver, f.class, f.family)).or_default() += 1;
    }
    for ((solver, class, family), v) in classes {
        println!(
            "FAIL {} {} {}: {v}",
            solver.name(),
            class.name(),
            family.name()
        );
    }
}

/// Writes the first `keep` failures of each (solver, class, family), smallest
/// problems first; returns how many files were written.
fn write_failures(o: &Options, failures: &[Failure]) -> std::io::Result<usize> {
    std::fs::create_dir_all(&o.out)?;
    let mut by_class: BTreeMap<(SolverKind, Class, Family), Vec<&Failure>> = BTreeMap::new();
    for f in failures {
        by_class
            .entry((f.solver, f.class, f.family))
            .or_default()
            .push(f);
    }
    let mut written = 0;
    for list in by_class.values_mut() {
        list.sort_by_key(|f| (f.n, f.index));
        for f in list.iter().take(o.keep) {
            let p = generate::problem(o.seed, f.index);
            let name = format!(
                "{}-{}-{}-s{}-{}.json",
                f.solver.name(),
                f.class.name(),
                f.family.name(),
                o.seed,
                f.index
            );
            let text = serde_json::to_string(&p.to_file()).map_err(std::io::Error::other)?;
            std::fs::write(o.out.join(name), text + "\n")?;
            written += 1;
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        let o = parse_args(&crate::strings(&[
            "--seed", "7", "--count", "10", "--out", "x",
        ]))
        .unwrap();
        assert_eq!((o.seed, o.count, o.out), (7, 10, PathBuf::from("x")));
        assert!(parse_args(&crate::strings(&["--count"])).is_err());
        assert!(parse_args(&crate::strings(&["--count", "-1"])).is_err());
        assert!(parse_args(&crate::strings(&["--bogus"])).is_err());
    }

    /// The same problems whatever the order: problem i is a function of
    /// (seed, i).
    #[test]
    fn problems_depend_on_seed_and_index_only() {
        let a = generate::problem(3, 17);
        let _ = generate::problem(3, 16);
        let b = generate::problem(3, 17);
        assert_eq!(a.m, b.m);
        assert_eq!(a.q, b.q);
        assert_ne!(generate::problem(4, 17).q, a.q);
    }

    /// Problems built around a solution have it, by the fuzz's own
    /// certificate (exactly but for the rounding of `q` where `z*` spans
    /// many binary orders, as a friction row at `2^34 z_n` does); every
    /// family is drawn.
    #[test]
    fn built_solutions_certify() {
        let mut built = BTreeMap::<Family, usize>::new();
        let mut seen = std::collections::BTreeSet::new();
        for index in 0..4000 {
            let p = generate::problem(11, index);
            seen.insert(p.family);
            let Some(z) = &p.witness else { continue };
            let w: Vec<f64> = (0..p.n)
                .map(|i| p.q[i] + (0..p.n).map(|j| p.at(i, j) * z[j]).sum::<f64>())
                .collect();
            let m = measure(&p, z, &w);
            assert!(m.scaled_max <= 1e-15, "{index} {:?}: {m:?} {p:?}", p.family);
            *built.entry(p.family).or_default() += 1;
        }
        assert_eq!(seen.len(), Family::ALL.len());
        for family in [
            Family::Box,
            Family::Friction,
            Family::Degenerate,
            Family::NonSymmetric,
        ] {
            assert!(
                built.get(&family).copied().unwrap_or(0) > 50,
                "{family:?}: {built:?}"
            );
        }
    }
}
