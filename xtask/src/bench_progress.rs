//! Progress of `cargo xtask bench`: how many benchmarks of the whole run
//! are done, read from criterion's own output.
//!
//! Criterion prints `<id>: benchmark` per benchmark under `--list`, and
//! `Benchmarking <id>` on stderr when it starts one (with its stdout piped
//! it never overwrites lines, so every message is a line); the caller
//! merges stdout and stderr into [`Progress::line`]. On a terminal the
//! `Benchmarking ...` status lines are replaced by one redrawn bar below the
//! results; elsewhere (CI logs) every line is kept and each start line gets
//! its count appended, so a log shows progress without control characters.

use std::io::Write;
use std::time::{Duration, Instant};

/// The benchmark ids of `--list` output (criterion's terse list format).
pub fn parse_list(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|line| line.strip_suffix(": benchmark"))
        .map(str::to_string)
        .collect()
}

/// The id of the benchmark a line of criterion's output starts, if it is a
/// start line: `Benchmarking <id>` and nothing after (later status lines of
/// the same benchmark are `Benchmarking <id>: Warming up ...`).
fn started_benchmark(line: &str) -> Option<&str> {
    let id = line.strip_prefix("Benchmarking ")?;
    (!id.contains(": ")).then_some(id)
}

/// Progress over every benchmark of the run, across bench targets.
#[derive(Debug)]
pub struct Progress {
    total: usize,
    done: usize,
    current: Option<String>,
    target: String,
    terminal: bool,
    started: Instant,
}

impl Progress {
    /// Progress over `total` benchmarks; `terminal` chooses the redrawn bar
    /// over plain lines.
    pub fn new(total: usize, terminal: bool) -> Self {
        Self {
            total,
            done: 0,
            current: None,
            target: String::new(),
            terminal,
            started: Instant::now(),
        }
    }

    /// Benchmarks finished so far.
    pub fn done(&self) -> usize {
        self.done
    }

    /// A bench target starts (its name labels the bar).
    pub fn start_target(&mut self, target: &str) {
        self.target = target.to_string();
    }

    /// The current target's process ended: its last benchmark is done.
    pub fn end_target(&mut self, out: &mut impl Write) {
        if self.current.take().is_some() {
            self.done += 1;
        }
        if self.terminal {
            // Leave the bar of the finished target on screen.
            let _ = writeln!(out, "\r\x1b[K{}", self.bar_line());
        }
    }

    /// One line of criterion's stdout: counts starts and passes the line on
    /// (a terminal gets results only, under a redrawn bar).
    pub fn line(&mut self, line: &str, out: &mut impl Write) {
        let started = started_benchmark(line);
        if let Some(id) = started {
            if self.current.replace(id.to_string()).is_some() {
                self.done += 1;
            }
        }
        if self.terminal {
            if line.starts_with("Benchmarking ") {
                let _ = write!(out, "\r\x1b[K{}", self.bar_line());
            } else {
                let _ = write!(out, "\r\x1b[K{line}\n{}", self.bar_line());
            }
        } else if started.is_some() {
            let _ = writeln!(
                out,
                "{line}    [{}/{}, {}]",
                self.done + 1,
                self.total,
                clock(self.started.elapsed())
            );
        } else {
            let _ = writeln!(out, "{line}");
        }
        let _ = out.flush();
    }

    fn bar_line(&self) -> String {
        bar(
            self.done,
            self.total,
            &self.target,
            self.current.as_deref().unwrap_or(""),
            self.started.elapsed(),
        )
    }
}

/// `[#####-----] 5/10 target 1:23 now-running-id`, 30 cells wide.
fn bar(done: usize, total: usize, target: &str, current: &str, elapsed: Duration) -> String {
    const CELLS: usize = 30;
    let filled = (CELLS * done).checked_div(total).unwrap_or(0).min(CELLS);
    format!(
        "[{}{}] {done}/{total} {target} {} {current}",
        "#".repeat(filled),
        "-".repeat(CELLS - filled),
        clock(elapsed)
    )
}

/// Minutes and seconds, `m:ss`.
pub fn clock(elapsed: Duration) -> String {
    let seconds = elapsed.as_secs();
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_output_gives_the_ids() {
        let stdout = "lcp_random_pd/lemke/16: benchmark\nWarning: x\nscene/step: benchmark\n";
        assert_eq!(parse_list(stdout), ["lcp_random_pd/lemke/16", "scene/step"]);
    }

    #[test]
    fn only_start_lines_count_and_the_last_counts_at_the_end() {
        let mut progress = Progress::new(2, false);
        progress.start_target("lcp");
        let mut out = Vec::new();
        for line in [
            "Benchmarking g/a/16",
            "Benchmarking g/a/16: Warming up for 3.0000 s",
            "g/a/16   time:   [1.0 us 1.1 us 1.2 us]",
        ] {
            progress.line(line, &mut out);
        }
        assert_eq!(progress.done(), 0);
        progress.line("Benchmarking g/b/16", &mut out);
        assert_eq!(progress.done(), 1);
        progress.end_target(&mut out);
        assert_eq!(progress.done(), 2);
        let text = String::from_utf8(out).unwrap();
        // Plain lines: every line kept, start lines with their count.
        assert!(
            text.contains("Benchmarking g/a/16    [1/2, 0:00]\n"),
            "{text}"
        );
        assert!(
            text.contains("Benchmarking g/b/16    [2/2, 0:00]\n"),
            "{text}"
        );
        assert!(text.contains("time:   [1.0 us"), "{text}");
        assert!(!text.contains('\r'), "{text}");
    }

    #[test]
    fn a_terminal_sees_results_under_one_bar() {
        let mut progress = Progress::new(4, true);
        progress.start_target("lcp");
        let mut out = Vec::new();
        progress.line("Benchmarking g/a/16", &mut out);
        progress.line("Benchmarking g/a/16: Analyzing", &mut out);
        progress.line("g/a/16   time:   [1.0 us 1.1 us 1.2 us]", &mut out);
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains("Analyzing"), "{text}");
        assert!(text.ends_with("[------------------------------] 0/4 lcp 0:00 g/a/16"));
    }

    #[test]
    fn the_bar_fills_in_proportion() {
        let half = bar(5, 10, "t", "x", Duration::from_secs(83));
        assert_eq!(
            half,
            format!("[{}{}] 5/10 t 1:23 x", "#".repeat(15), "-".repeat(15))
        );
        assert!(bar(0, 0, "t", "", Duration::ZERO).starts_with(&format!("[{}]", "-".repeat(30))));
        assert!(bar(12, 10, "t", "", Duration::ZERO).starts_with(&format!("[{}]", "#".repeat(30))));
    }
}
