//! Judging every answer with our certificate and writing the table of
//! `target/bench-report/peers.md`.

use std::fmt::Write;

use contact_lcp::{LcpProblem, VerifyReport, verify_box_z, verify_z};

/// The largest scaled error (`VerifyReport::scaled_max`) of an answer
/// counted as correct. Looser than our solvers' own 1e-9 so that iterative
/// solvers stopping at a 1e-8 residual pass; a wrong active set is off by
/// orders of magnitude more.
pub const TOLERANCE: f64 = 1e-6;

/// What a solver said about its own answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Claim {
    /// It reported success.
    Solved,
    /// It returned without a verdict (ODE's `dxSolveLCP` has none).
    Silent,
    /// It reported failure, with its reason.
    Failed(String),
}

/// One solver on one problem.
#[derive(Clone, Debug)]
pub struct Row {
    /// Problem name.
    pub problem: String,
    /// Its size.
    pub n: usize,
    /// Solver name.
    pub solver: String,
    /// What happened.
    pub outcome: Outcome,
}

/// What happened when a solver met a problem.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// It ran: its times, its claim, and our certificate of its answer.
    Ran {
        /// Median seconds of the timed solve calls, one per round (the
        /// rounds alternate the solvers, see `peers::compare`).
        seconds: Vec<f64>,
        /// The clock reads' own share of each round's `seconds` (an
        /// empty timed region measured alike); empty when the driver does
        /// not report it.
        clock: Vec<f64>,
        /// The yardstick's time (our Dantzig's, or our Lemke's) measured
        /// just before this solver in each round: the ratios pair them.
        paired: Vec<f64>,
        /// The clock reads' share of each `paired` time.
        paired_clock: Vec<f64>,
        /// Its own verdict.
        claim: Claim,
        /// `verify` / `verify_box` of its `z` (with `w = M z + q`).
        report: VerifyReport,
    },
    /// The problem is outside what the solver handles.
    NotApplicable(String),
    /// The driver failed (crash, timeout, unreadable output).
    Error(String),
}

/// Certifies `z` for `problem` (our `verify` for plain LCPs, `verify_box`
/// for bounded and coupled ones); infinite errors for a wrong length or a
/// non-finite entry.
pub fn certify(problem: &LcpProblem, z: &[f64]) -> VerifyReport {
    match problem {
        LcpProblem::Plain(lcp) => verify_z(lcp, z),
        LcpProblem::Box(p) => verify_box_z(p, z),
    }
}

/// The verdict column.
pub fn verdict(claim: &Claim, report: &VerifyReport) -> &'static str {
    let correct = report.is_solution(TOLERANCE);
    match (claim, correct) {
        (Claim::Failed(_), _) => "failed (reported)",
        (_, true) => "ok",
        (Claim::Solved, false) => "WRONG, reported solved",
        (Claim::Silent, false) => "WRONG, no report",
    }
}

/// The ratio cells of a row: `times[r]` over the yardstick's `base[r]`
/// taken just before it, as the best times' ratio (`min times / min
/// base`: the machine at its fastest, which a shared host reaches in some
/// rounds and not others), and the median and range of the rounds' ratios
/// ("-" for the range of a single round).
fn ratio_columns(times: &[f64], base: &[f64], label: &str) -> [String; 3] {
    let ratios: Vec<f64> = times.iter().zip(base).map(|(t, b)| t / b).collect();
    let range = if ratios.len() > 1 {
        format!(
            "{:.2}-{:.2}",
            least(&ratios),
            ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        )
    } else {
        "-".into()
    };
    [
        format!("{:.2} {label}", least(times) / least(base)),
        format!("{:.2} {label}", median(&ratios)),
        range,
    ]
}

/// The net ratio cell: the best time less the median of its clock reads
/// over the yardstick's best time less the median of its own (`clock[r]`
/// is round r's; a median, as the best round's own reading would favour
/// whichever round read the clock slowest); "-" when a clock is missing
/// or a net time is not positive (clock reads as slow as the solve). A
/// timed call's two clock reads add the same few tens of nanoseconds to
/// every solver's time, which pulls the ratios of the smallest problems
/// towards 1.
fn net_ratio(
    times: &[f64],
    clock: &[f64],
    base: &[f64],
    base_clock: &[f64],
    label: &str,
) -> String {
    if clock.is_empty() || base_clock.is_empty() {
        return "-".into();
    }
    let (net, base_net) = (
        least(times) - median(clock),
        least(base) - median(base_clock),
    );
    if !(net > 0.0 && base_net > 0.0 && net.is_finite() && base_net.is_finite()) {
        return "-".into();
    }
    format!("{:.2} {label}", net / base_net)
}

/// The smallest of `values` (+inf for none).
fn least(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

/// A time with a unit that keeps three significant digits readable.
pub fn seconds(s: f64) -> String {
    if !s.is_finite() {
        "-".into()
    } else if s * 1e9 < 999.95 {
        format!("{:.1} ns", s * 1e9)
    } else if s < 1e-3 {
        format!("{:.2} us", s * 1e6)
    } else if s < 1.0 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

fn scientific(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1e}")
    } else {
        "inf".into()
    }
}

/// The median of `values` (0 for none).
pub fn median(values: &[f64]) -> f64 {
    contact_cli::solve_lcp::median(&mut values.to_vec())
}

/// The yardstick of a problem: "D" for our Dantzig, or "L" for our Lemke
/// where Dantzig does not apply (non-symmetric problems); `None` when
/// neither solved it correctly.
fn yardstick(rows: &[Row], problem: &str) -> Option<&'static str> {
    for (name, label) in [("ours_dantzig", "D"), ("ours_lemke", "L")] {
        let found = rows
            .iter()
            .find(|r| r.problem == problem && r.solver == name);
        if let Some(Row {
            outcome: Outcome::Ran { claim, report, .. },
            ..
        }) = found
        {
            if verdict(claim, report) == "ok" {
                return Some(label);
            }
        }
    }
    None
}

/// The Markdown report: a header, the skipped peers, one table row per
/// solver that ran, then the not-applicable pairs.
pub fn markdown(header: &str, skipped: &[String], rows: &[Row]) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{header}");
    for line in skipped {
        let _ = writeln!(out, "- {line}");
    }
    if !skipped.is_empty() {
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "Times are medians of K solve calls after one warm-up, measured in this run \
         in rounds that take every solver in turn: `median time` over the rounds, `best \
         time` the fastest round. Every solver runs right after our Dantzig (D), or our \
         Lemke where Dantzig does not apply (L), on the same problem. `/ ours, best` is \
         the best time over ours at its best (this host's speed halves for seconds at a \
         time when the core is shared: the best rounds are the machine unshared); \
         `/ ours, net` the same with each time net of its two clock reads (an empty \
         timed region measured alike in the same passes, by each driver: some 20 ns, \
         which weighs on the smallest problems; \"-\" where a driver does not measure \
         it); \
         `/ ours, paired` the median of each round's time over ours just before it, and \
         `paired range` those ratios' range. `residual` is the scaled natural \
         residual and `max error` the largest scaled error of our `verify` (plain) or \
         `verify_box` (bounded, coupled) on the solver's z; `ok` means max error <= {TOLERANCE:e}.\n"
    );
    let _ = writeln!(
        out,
        "| problem | n | solver | median time | best time | / ours, best | / ours, net | / ours, paired | paired range | residual | max error | verdict |"
    );
    let _ = writeln!(
        out,
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    let mut not_applicable: Vec<String> = Vec::new();
    for row in rows {
        match &row.outcome {
            Outcome::Ran {
                seconds: s,
                clock,
                paired,
                paired_clock,
                claim,
                report,
            } => {
                let [best, net, ratio, range] = yardstick(rows, &row.problem).map_or_else(
                    || ["-".into(), "-".into(), "-".into(), "-".into()],
                    |label| {
                        let [best, ratio, range] = ratio_columns(s, paired, label);
                        let net = net_ratio(s, clock, paired, paired_clock, label);
                        [best, net, ratio, range]
                    },
                );
                let mut verdict = verdict(claim, report).to_string();
                if let Claim::Failed(reason) = claim {
                    let _ = write!(verdict, ": {}", reason.replace('|', "/"));
                }
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    row.problem,
                    row.n,
                    row.solver,
                    seconds(median(s)),
                    seconds(least(s)),
                    best,
                    net,
                    ratio,
                    range,
                    scientific(report.scaled_natural_residual()),
                    scientific(report.scaled_max()),
                    verdict
                );
            }
            Outcome::Error(message) => {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | - | - | - | - | - | - | - | - | error: {} |",
                    row.problem,
                    row.n,
                    row.solver,
                    message.replace('|', "/")
                );
            }
            Outcome::NotApplicable(reason) => {
                let entry = format!("{}: {reason}", row.solver);
                if !not_applicable.contains(&entry) {
                    not_applicable.push(entry);
                }
            }
        }
    }
    if !not_applicable.is_empty() {
        let _ = writeln!(out, "\nNot run where not applicable:");
        for entry in not_applicable {
            let _ = writeln!(out, "- {entry}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use contact_lcp::Lcp;

    /// A row with our Dantzig's time `base[r]` just before each `seconds[r]`
    /// (no clock reads measured).
    fn ran_paired(
        problem: &str,
        solver: &str,
        seconds: &[f64],
        base: &[f64],
        claim: Claim,
        z: &[f64],
    ) -> Row {
        ran_clocked(problem, solver, (seconds, &[]), (base, &[]), claim, z)
    }

    /// [`ran_paired`] with each time's clock reads: `(times, clocks)`.
    fn ran_clocked(
        problem: &str,
        solver: &str,
        (seconds, clock): (&[f64], &[f64]),
        (base, base_clock): (&[f64], &[f64]),
        claim: Claim,
        z: &[f64],
    ) -> Row {
        let lcp = Lcp::from_row_major(2, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]).unwrap();
        let report = certify(&LcpProblem::Plain(lcp), z);
        Row {
            problem: problem.into(),
            n: 2,
            solver: solver.into(),
            outcome: Outcome::Ran {
                seconds: seconds.to_vec(),
                clock: clock.to_vec(),
                paired: base.to_vec(),
                paired_clock: base_clock.to_vec(),
                claim,
                report,
            },
        }
    }

    fn ran(problem: &str, solver: &str, seconds: &[f64], claim: Claim, z: &[f64]) -> Row {
        ran_paired(problem, solver, seconds, seconds, claim, z)
    }

    #[test]
    fn verdicts_follow_the_certificate_not_the_claim() {
        // z = (4/3, 7/3) solves it (w = 0); z = (0, 3) has w_0 = -2 < 0.
        let right = [4.0 / 3.0, 7.0 / 3.0];
        let wrong = [0.0, 3.0];
        let cases = [
            (Claim::Solved, &right, "ok"),
            (Claim::Silent, &right, "ok"),
            (Claim::Solved, &wrong, "WRONG, reported solved"),
            (Claim::Silent, &wrong, "WRONG, no report"),
            (Claim::Failed("x".into()), &wrong, "failed (reported)"),
        ];
        for (claim, z, expected) in cases {
            let Outcome::Ran { claim, report, .. } = ran("p", "s", &[1.0], claim, z).outcome else {
                unreachable!()
            };
            assert_eq!(verdict(&claim, &report), expected);
        }
        let lcp = Lcp::from_row_major(2, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]).unwrap();
        let short = certify(&LcpProblem::Plain(lcp), &[1.0]);
        assert!(!short.is_solution(TOLERANCE), "a wrong length never passes");
    }

    #[test]
    fn ratios_are_to_our_dantzig_and_skips_are_listed() {
        let right = [4.0 / 3.0, 7.0 / 3.0];
        let rows = vec![
            ran("p", "ours_dantzig", &[2e-6], Claim::Solved, &right),
            ran_paired("p", "ode_dantzig", &[1e-6], &[2e-6], Claim::Silent, &right),
            Row {
                problem: "p".into(),
                n: 2,
                solver: "siconos_enum".into(),
                outcome: Outcome::NotApplicable("n > 16".into()),
            },
        ];
        let text = markdown("# Peers", &["skipped: drake not installed".into()], &rows);
        assert!(text.contains("- skipped: drake not installed"));
        assert!(
            text.contains("| p | 2 | ode_dantzig | 1.00 us | 1.00 us | 0.50 D | - | 0.50 D | - |"),
            "{text}"
        );
        assert!(
            text.contains("| p | 2 | ours_dantzig | 2.00 us | 2.00 us | 1.00 D | - | 1.00 D | - |"),
            "{text}"
        );
        assert!(text.contains("- siconos_enum: n > 16"));
    }

    /// Each round's time is divided by our time just before it, so a
    /// machine twice as slow in one round leaves the paired ratio alone;
    /// the median of those ratios is not the ratio of the median times, and
    /// the best times' ratio takes each side at its fastest.
    #[test]
    fn ratios_pair_the_rounds_and_compare_the_best() {
        let right = [4.0 / 3.0, 7.0 / 3.0];
        let rows = vec![
            ran(
                "p",
                "ours_dantzig",
                &[1e-6, 1e-6, 1e-6],
                Claim::Solved,
                &right,
            ),
            ran_paired(
                "p",
                "ode_dantzig",
                &[2e-6, 4e-6, 3e-6],
                &[1e-6, 2e-6, 0.5e-6],
                Claim::Silent,
                &right,
            ),
        ];
        let text = markdown("# Peers", &[], &rows);
        // Paired ratios 2, 2, 6: median 2 (the median times give 3e-6 /
        // 1e-6 = 3); best: 2e-6 / 0.5e-6 = 4.
        assert!(
            text.contains(
                "| p | 2 | ode_dantzig | 3.00 us | 2.00 us | 4.00 D | - | 2.00 D | 2.00-6.00 |"
            ),
            "{text}"
        );
        assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), 2.5);
    }

    /// The net ratio takes the median clock reads off the best times
    /// before comparing them.
    #[test]
    fn the_net_ratio_takes_off_each_rounds_clock_reads() {
        let right = [4.0 / 3.0, 7.0 / 3.0];
        let rows = vec![
            ran_clocked(
                "p",
                "ours_dantzig",
                (&[100e-9, 110e-9, 105e-9], &[20e-9, 40e-9, 20e-9]),
                (&[100e-9, 110e-9, 105e-9], &[20e-9, 40e-9, 20e-9]),
                Claim::Solved,
                &right,
            ),
            ran_clocked(
                "p",
                "ode_dantzig",
                (&[180e-9, 200e-9, 190e-9], &[20e-9, 30e-9, 20e-9]),
                (&[100e-9, 110e-9, 105e-9], &[20e-9, 40e-9, 20e-9]),
                Claim::Silent,
                &right,
            ),
        ];
        let text = markdown("# Peers", &[], &rows);
        // Best raw 180 / 100 = 1.8; net (180 - 20) / (100 - 20) = 2 (the
        // round of ours that read the clock in 40 ns does not count).
        assert!(
            text.contains("| p | 2 | ode_dantzig | 190.0 ns | 180.0 ns | 1.80 D | 2.00 D |"),
            "{text}"
        );
        assert!(
            text.contains("| p | 2 | ours_dantzig | 105.0 ns | 100.0 ns | 1.00 D | 1.00 D |"),
            "{text}"
        );
    }

    /// No net ratio from a missing clock or a net time that is not
    /// positive.
    #[test]
    fn a_net_ratio_needs_positive_net_times() {
        assert_eq!(net_ratio(&[2e-7], &[2e-8], &[1e-7], &[2e-8], "D"), "2.25 D");
        assert_eq!(net_ratio(&[2e-7], &[], &[1e-7], &[2e-8], "D"), "-");
        assert_eq!(net_ratio(&[2e-7], &[2e-8], &[1e-7], &[], "D"), "-");
        assert_eq!(net_ratio(&[2e-7], &[2e-8], &[1e-7], &[1e-7], "D"), "-");
        assert_eq!(net_ratio(&[2e-8], &[3e-8], &[1e-7], &[2e-8], "D"), "-");
        assert_eq!(net_ratio(&[2e-7], &[f64::NAN], &[1e-7], &[2e-8], "D"), "-");
    }

    #[test]
    fn times_get_readable_units() {
        assert_eq!(seconds(9.85e-8), "98.5 ns");
        assert_eq!(seconds(9.9996e-7), "1.00 us");
        assert_eq!(seconds(1.8e-4), "180.00 us");
        assert_eq!(seconds(0.027), "27.000 ms");
        assert_eq!(seconds(1.5), "1.500 s");
    }
}
