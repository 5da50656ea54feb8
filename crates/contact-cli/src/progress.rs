//! Progress of a run: a bar on a terminal (indicatif), plain lines every
//! tenth of the run in a log.

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Shows how far a run has got: in steps, or in thousandths of its
/// simulated time when its steps vary in length.
#[derive(Debug)]
pub enum Progress {
    /// A bar redrawn in place (stdout is a terminal).
    Bar(ProgressBar),
    /// A line at each tenth of the run (stdout is a file or a pipe).
    Lines {
        /// The run's length in the units of `update`.
        total: u64,
        /// The next tenth to report.
        next_tenth: u64,
        /// When the run started.
        start: Instant,
    },
}

impl Progress {
    /// A bar when stdout is a terminal, else lines; `total` is the run's
    /// length in the units of [`update`](Self::update).
    #[must_use]
    pub fn new(total: u64) -> Self {
        if std::io::stdout().is_terminal() {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stdout());
            let style =
                ProgressStyle::with_template("{bar:32.cyan/blue} {percent:>3}%  {msg}  eta {eta}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            Self::Bar(bar)
        } else {
            Self::Lines {
                total,
                next_tenth: 1,
                start: Instant::now(),
            }
        }
    }

    /// Reports the run at `done` (of `total`), after `steps` steps, the
    /// simulated time at `time` (s).
    pub fn update(&mut self, done: u64, steps: u64, time: f64) {
        match self {
            Self::Bar(bar) => {
                bar.set_position(done);
                if steps % 64 == 0 {
                    bar.set_message(format!("step {steps}, t = {time:.3} s"));
                }
            }
            Self::Lines {
                total,
                next_tenth,
                start,
            } => {
                while *next_tenth <= 10 && done * 10 >= *next_tenth * *total {
                    let seconds = start.elapsed().as_secs_f64();
                    println!(
                        "[{:>3}%] step {steps}, t = {time:.3} s, {:.0} steps/s",
                        *next_tenth * 10,
                        steps as f64 / seconds.max(1e-9)
                    );
                    *next_tenth += 1;
                }
            }
        }
    }

    /// Removes the bar (lines stay).
    pub fn finish(&self) {
        if let Self::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}
