//! Our solvers on the peers' problems, timed like the peers: the median of
//! `K` solve calls after one warm-up, the solve call alone (the timing of
//! `cargo xtask solve-lcp --repeat K`, which this reuses).

use std::time::Instant;

use contact_benches::PyramidStep;
use contact_lcp::{BlockPivoting, LcpProblem, LcpSolution};

use contact_cli::solve_lcp::{Choice, Failure, solve_set};

use super::problem_set::Problem;

/// One of our solvers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ours {
    /// `contact_lcp::Dantzig` (symmetric `M`, plain or box).
    Dantzig,
    /// `contact_lcp::Lemke` (plain LCPs, box ones through their standard
    /// form, `Lemke::solve_box`).
    Lemke,
    /// `contact_lcp::ProjectedGaussSeidel` (any problem).
    Pgs,
    /// `contact_lcp::BlockPivoting` on the factored form, warm-started
    /// from the step before's answer (pyramid step problems).
    BlockPivoting,
}

/// Ours, in report order (Dantzig first: it is the yardstick).
pub const ALL: [Ours; 4] = [Ours::Dantzig, Ours::Lemke, Ours::Pgs, Ours::BlockPivoting];

impl Ours {
    /// Its name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Self::Dantzig => "ours_dantzig",
            Self::Lemke => "ours_lemke",
            Self::Pgs => "ours_pgs",
            Self::BlockPivoting => "ours_bpp_warm",
        }
    }

    /// Why it does not apply to a problem, if it does not (`factored`:
    /// whether the problem also comes by its factors).
    pub fn not_applicable(
        self,
        problem: &LcpProblem,
        symmetric: bool,
        factored: bool,
    ) -> Option<&'static str> {
        match (self, problem) {
            (Self::Dantzig, _) if !symmetric => Some("M is not symmetric"),
            (Self::BlockPivoting, _) if !factored => Some("no factored form"),
            _ => None,
        }
    }
}

/// Solves `step`'s factored problem with block pivoting from the step
/// before's answer, once to warm up and `repeat` timed times (each solve
/// from the same warm start, the symbolic analysis kept as in the
/// simulator): the answer and the median time of one solve.
fn time_factored(step: &PyramidStep, repeat: usize) -> Timed {
    let mut solver = BlockPivoting::default();
    let mut out = LcpSolution::default();
    let warm = Some((step.previous.as_slice(), step.previous_z.as_slice()));
    let mut times = Vec::with_capacity(repeat);
    let clock = Instant::now();
    let clock = clock.elapsed().as_secs_f64();
    for k in 0..=repeat {
        let start = Instant::now();
        if let Err(e) = solver.solve_into(&step.factored, warm, &mut out) {
            return Timed {
                z: Vec::new(),
                seconds: start.elapsed().as_secs_f64(),
                clock: None,
                failure: Some(e.to_string()),
            };
        }
        if k > 0 {
            times.push(start.elapsed().as_secs_f64());
        }
    }
    times.sort_by(f64::total_cmp);
    Timed {
        z: out.z,
        seconds: times[times.len() / 2],
        clock: Some(clock),
        failure: None,
    }
}

/// The result of timing one of ours: its answer and median time, or the
/// reason it failed (with its best iterate, if any).
pub struct Timed {
    /// The answer (or the best iterate of a failed solve; may be empty).
    pub z: Vec<f64>,
    /// The time of one solve: the median over the passes of a pass's
    /// time over its number of calls (`solve_set`; of the failing call on
    /// failure).
    pub seconds: f64,
    /// The clock reads' share of `seconds`, measured alike (`solve_set`);
    /// `None` on failure.
    pub clock: Option<f64>,
    /// `None` when solved; the solver's error otherwise.
    pub failure: Option<String>,
}

/// How many times a pass solves each problem of a set of `count` problems
/// of `n` rows: 64 solves a pass (at least one of each) up to 32 rows, one
/// above. Such a solve takes about a microsecond or less, and on some
/// hosts the clock ticks in steps of 10 ns: one call's time is then a
/// multiple of the tick, while the sum of many calls, which start at
/// unrelated phases of the tick, averages it out. The peers' C++ drivers
/// apply the same rule (`copies_for`, peers/common/lcp_text.hpp).
pub fn copies_for(n: usize, count: usize) -> usize {
    if n <= 32 {
        (64 / count.max(1)).max(1)
    } else {
        1
    }
}

/// Solves `problem` with `solver`: its dense instances ([`time_set`]), or
/// for block pivoting its factored form ([`time_factored`]).
pub fn time(solver: Ours, problem: &Problem, repeat: usize) -> Timed {
    let choice = match solver {
        Ours::Dantzig => Choice::Dantzig,
        Ours::Lemke => Choice::Lemke,
        Ours::Pgs => Choice::Pgs,
        Ours::BlockPivoting => {
            return match problem.factored.as_deref() {
                Some(step) => time_factored(step, repeat),
                None => Timed {
                    z: Vec::new(),
                    seconds: 0.0,
                    clock: None,
                    failure: Some("no factored form".into()),
                },
            };
        }
    };
    time_set(choice, &problem.instances, repeat)
}

/// Solves `set` (one problem, or several solved in turn) with `choice`, in
/// one pass to warm up and `repeat` timed passes (`solve_lcp::solve_set`,
/// each problem [`copies_for`] times a pass): the answers one after
/// another as one `z`, and the time of one solve.
fn time_set(choice: Choice, set: &[LcpProblem], repeat: usize) -> Timed {
    let n = set.first().map_or(0, LcpProblem::dim);
    match solve_set(set, choice, repeat, copies_for(n, set.len())) {
        Ok((lines, clock)) => Timed {
            seconds: lines.first().map_or(0.0, |line| line.seconds),
            clock: Some(clock),
            z: lines.into_iter().flat_map(|line| line.z).collect(),
            failure: None,
        },
        Err(Failure::Solver { line, reason }) => Timed {
            z: line.z,
            seconds: line.seconds,
            clock: None,
            failure: Some(reason),
        },
        Err(Failure::Input(reason)) => Timed {
            z: Vec::new(),
            seconds: 0.0,
            clock: None,
            failure: Some(reason),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contact_lcp::{Lcp, verify_z};

    /// 64 calls a pass for small problems, whatever the set's size; one
    /// call of each above 32 rows.
    #[test]
    fn small_problems_are_solved_many_times_a_pass() {
        assert_eq!(copies_for(4, 1), 64);
        assert_eq!(copies_for(24, 32), 2);
        assert_eq!(copies_for(16, 64), 1);
        assert_eq!(copies_for(12, 100), 1);
        assert_eq!(copies_for(64, 1), 1);
    }

    #[test]
    fn each_applicable_solver_solves_a_small_lcp() {
        // w = M z + q with the closed form z = (4/3, 7/3) of
        // examples/lcp/two_contacts.json.
        let lcp = Lcp::from_row_major(2, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]).unwrap();
        let problem = LcpProblem::Plain(lcp.clone());
        let dense = [
            (Ours::Dantzig, Choice::Dantzig),
            (Ours::Lemke, Choice::Lemke),
            (Ours::Pgs, Choice::Pgs),
        ];
        for (solver, choice) in dense {
            assert_eq!(solver.not_applicable(&problem, true, false), None);
            let timed = time_set(choice, std::slice::from_ref(&problem), 3);
            assert_eq!(timed.failure, None, "{}", solver.name());
            assert!(
                verify_z(&lcp, &timed.z).is_solution(1e-7),
                "{}",
                solver.name()
            );
            assert!((timed.z[0] - 4.0 / 3.0).abs() < 1e-7 && (timed.z[1] - 7.0 / 3.0).abs() < 1e-7);
            assert!(timed.seconds >= 0.0);
        }
        assert!(
            Ours::Dantzig
                .not_applicable(&problem, false, false)
                .is_some()
        );
    }

    /// Block pivoting applies only with a factored form, and its answer to
    /// a pyramid's step problem passes the dense problem's certificate.
    #[test]
    fn block_pivoting_solves_the_factored_pyramid_step() {
        let step = contact_benches::pyramid_step(3, 10);
        let dense = LcpProblem::Box(step.dense.clone());
        assert!(
            Ours::BlockPivoting
                .not_applicable(&dense, true, false)
                .is_some()
        );
        assert_eq!(Ours::BlockPivoting.not_applicable(&dense, true, true), None);
        let timed = time_factored(&step, 3);
        assert_eq!(timed.failure, None);
        let report = contact_lcp::verify_box_z(&step.dense, &timed.z);
        assert!(report.scaled_max() <= 1e-9, "{report:?}");
        assert!(timed.seconds > 0.0);
    }
}
