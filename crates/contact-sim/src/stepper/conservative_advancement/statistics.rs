//! Step statistics of conservative advancement: what Drumwright 2016,
//! sec. 6, reports of each experiment (mean and minimum step, a histogram
//! of steps as in fig. 3, the number of contact-manifold changes and the
//! times between them).

use std::fmt;

/// Decades of the step histogram: `[1e-12, 1e-11)` up to `[1e-1, 1)`; a
/// step below the first goes to the first bin, one of 1 s or more to the
/// last.
pub const HISTOGRAM_DECADES: usize = 12;
/// Exponent of the lower edge of the first histogram bin.
const LOWEST_EXPONENT: i32 = -12;

/// What set the length of a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StepLimit {
    /// Mirtich's bound, Drumwright eq. 4 (separated free bodies).
    #[default]
    Mirtich,
    /// Eq. 4 with eq. 11-14's speeds (a link of a jointed chain).
    Chain,
    /// Eq. 7-8, or eq. 15 for a link (touching bodies).
    Touching,
    /// The second-order bound
    /// ([`second_order_bound`](contact_geometry::second_order_bound)),
    /// larger than the paper's bound of the pair.
    SecondOrder,
    /// The first-order arrival of a pair in the contact band but not yet
    /// touching (its gap rows stop it at contact; the step lands it there
    /// so the touch is logged on time).
    Arrival,
    /// The drift of turning contact points, measured over the last steps
    /// (see [`CaStepper`](crate::CaStepper)).
    Drift,
    /// The maximum step.
    MaxStep,
    /// The end of [`CaStepper::advance`](crate::CaStepper::advance).
    End,
}

impl StepLimit {
    /// Every limit, in the order of [`StepStatistics::limited_by`].
    pub const ALL: [Self; 8] = [
        Self::Mirtich,
        Self::Chain,
        Self::Touching,
        Self::SecondOrder,
        Self::Arrival,
        Self::Drift,
        Self::MaxStep,
        Self::End,
    ];
}

/// What a [`CaStepper`](crate::CaStepper) has done since it was made (or
/// since [`CaStepper::reset_statistics`](crate::CaStepper::reset_statistics)).
#[derive(Clone, Debug, PartialEq)]
pub struct StepStatistics {
    /// Steps taken.
    pub steps: usize,
    /// Simulated time they covered (s).
    pub simulated: f64,
    /// Shortest step (s; `+inf` before the first).
    pub min_step: f64,
    /// Longest step (s; 0 before the first).
    pub max_step: f64,
    /// Steps per decade of length: bin `i` counts steps in
    /// `[10^(i - 12), 10^(i - 11))` s.
    pub histogram: [usize; HISTOGRAM_DECADES],
    /// Contact-manifold changes logged (touch, separate, change).
    pub manifold_events: usize,
    /// Steps taken at the minimum step because a bound was shorter.
    pub minimum_steps: usize,
    /// Steps each limit set, indexed as [`StepLimit::ALL`].
    pub limited_by: [usize; 8],
    /// Trial steps rejected and retried shorter (a bound under the step's
    /// own velocities shorter than the trial, or a pair beyond the
    /// penetration tolerance at its end).
    pub retries: usize,
    /// The smallest signed distance of any pair after any step (m; `+inf`
    /// before the first).
    pub min_distance: f64,
    /// Shortest time between two successive manifold changes (s; `+inf`
    /// with fewer than two).
    pub min_time_between_events: f64,
    /// Time of the first and of the last manifold change (s).
    pub event_span: Option<(f64, f64)>,
}

impl Default for StepStatistics {
    fn default() -> Self {
        Self {
            steps: 0,
            simulated: 0.0,
            min_step: f64::INFINITY,
            max_step: 0.0,
            histogram: [0; HISTOGRAM_DECADES],
            manifold_events: 0,
            minimum_steps: 0,
            limited_by: [0; 8],
            retries: 0,
            min_distance: f64::INFINITY,
            min_time_between_events: f64::INFINITY,
            event_span: None,
        }
    }
}

impl StepStatistics {
    /// Mean step (s; 0 before the first).
    #[must_use]
    pub fn mean_step(&self) -> f64 {
        if self.steps == 0 {
            0.0
        } else {
            self.simulated / self.steps as f64
        }
    }

    /// Mean time between successive manifold changes (s; `None` with
    /// fewer than two).
    #[must_use]
    pub fn mean_time_between_events(&self) -> Option<f64> {
        let (first, last) = self.event_span?;
        (self.manifold_events > 1).then(|| (last - first) / (self.manifold_events - 1) as f64)
    }

    /// Counts one step of `h` seconds after which the least signed distance
    /// was `min_distance`.
    pub(super) fn record_step(
        &mut self,
        h: f64,
        limit: StepLimit,
        min_distance: f64,
        at_minimum: bool,
    ) {
        self.steps += 1;
        if let Some(i) = StepLimit::ALL.iter().position(|&l| l == limit) {
            self.limited_by[i] += 1;
        }
        self.simulated += h;
        self.min_step = self.min_step.min(h);
        self.max_step = self.max_step.max(h);
        let decade = h.log10().floor() as i32 - LOWEST_EXPONENT;
        let bin = decade.clamp(0, HISTOGRAM_DECADES as i32 - 1) as usize;
        self.histogram[bin] += 1;
        self.min_distance = self.min_distance.min(min_distance);
        if at_minimum {
            self.minimum_steps += 1;
        }
    }

    /// Counts `count` manifold changes observed at `time` (several at once
    /// are zero apart).
    pub(super) fn record_events(&mut self, time: f64, count: usize) {
        if count == 0 {
            return;
        }
        if let Some((_, last)) = self.event_span {
            self.min_time_between_events = self.min_time_between_events.min(time - last);
        }
        if count > 1 {
            self.min_time_between_events = 0.0;
        }
        self.event_span = Some((self.event_span.map_or(time, |span| span.0), time));
        self.manifold_events += count;
    }
}

impl fmt::Display for StepStatistics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "steps {} over {:.6} s: mean {:.3e} s, min {:.3e} s, max {:.3e} s",
            self.steps,
            self.simulated,
            self.mean_step(),
            self.min_step,
            self.max_step
        )?;
        writeln!(
            f,
            "manifold changes {}, minimum steps {}, retries {}, least distance {:.3e} m",
            self.manifold_events, self.minimum_steps, self.retries, self.min_distance
        )?;
        write!(f, "limited by:")?;
        for (limit, count) in StepLimit::ALL.iter().zip(self.limited_by) {
            if count > 0 {
                write!(f, " {limit:?} {count}")?;
            }
        }
        writeln!(f)?;
        if let Some(mean) = self.mean_time_between_events() {
            writeln!(
                f,
                "time between changes: mean {mean:.3e} s, min {:.3e} s",
                self.min_time_between_events
            )?;
        }
        let widest = self.histogram.iter().copied().max().unwrap_or(0).max(1);
        for (i, &count) in self.histogram.iter().enumerate() {
            if count == 0 {
                continue;
            }
            let exponent = i as i32 + LOWEST_EXPONENT;
            let bar = "#".repeat((40 * count).div_ceil(widest));
            writeln!(
                f,
                "  [1e{exponent:>3}, 1e{:>3}) s {count:>8} {bar}",
                exponent + 1
            )?;
        }
        Ok(())
    }
}
