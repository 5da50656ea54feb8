// Extrapolation of the proximal iteration along a guess that holds.
//
// While the guess stays, each subproblem's answer is an affine function of
// its centre, so the answers z_k move along a line or converge
// geometrically. Two cases stall the outer loop on a landing pile:
// - r < 1 (the ratio of successive steps): the iterates converge as r^k, slowly
//   when r is near 1 (a near-redundant contact); Aitken's delta-squared
//   extrapolation, z + r / (1 - r) (z - z_prev), is their limit when one
//   direction dominates;
// - r = 1: a drift at constant speed along a direction M does not see
//   (redundant friction, the proximal term alone moving it), until a row
//   reaches a bound and the guess changes; the jump goes straight to that
//   first bound.
// Either point is projected on the bounds and kept only when its
// certificate beats the answer's; the outer loop then goes on from it.

use crate::factored_problem::FactoredBoxLcp;
use crate::tuning::EXTRAPOLATION_AT_BOUND;
use crate::verify::VerifyReport;

/// The last answers of a run of subproblems on one guess.
#[derive(Clone, Debug, Default)]
pub(super) struct Extrapolation {
    previous: Vec<f64>,
    step: Vec<f64>,
    /// Answers in the run (0: no run).
    run: usize,
    trial: Vec<f64>,
    trial_w: Vec<f64>,
}

impl Extrapolation {
    /// Forgets the run (a new solve).
    pub(super) fn reset(&mut self) {
        self.run = 0;
    }

    /// Starts a run at the answer `z`.
    pub(super) fn restart(&mut self, z: &[f64]) {
        self.previous.clear();
        self.previous.extend_from_slice(z);
        self.step.clear();
        self.step.resize(z.len(), 0.0);
        self.run = 1;
    }

    /// Takes the answer `z` of a subproblem whose guess held; when the run
    /// is long enough and the extrapolated point certifies better than
    /// `error`, swaps it into `z` and `w` (`v` scratch) and returns its
    /// report (a new run starts there).
    pub(super) fn advance(
        &mut self,
        problem: &FactoredBoxLcp,
        z: &mut Vec<f64>,
        w: &mut Vec<f64>,
        v: &mut Vec<[f64; 6]>,
        error: f64,
    ) -> Option<VerifyReport> {
        if self.run == 0 {
            self.restart(z);
            return None;
        }
        let jump = if self.run >= 2 {
            self.jump(problem, z, v, error)
        } else {
            None
        };
        match jump {
            Some(report) => {
                std::mem::swap(z, &mut self.trial);
                std::mem::swap(w, &mut self.trial_w);
                self.restart(z);
                Some(report)
            }
            None => {
                for ((step, previous), zi) in self.step.iter_mut().zip(&mut self.previous).zip(&*z)
                {
                    *step = zi - *previous;
                    *previous = *zi;
                }
                self.run += 1;
                None
            }
        }
    }

    /// The extrapolated point in `trial` (its `w` in `trial_w`) and its
    /// report, if it beats `error`.
    fn jump(
        &mut self,
        problem: &FactoredBoxLcp,
        z: &[f64],
        v: &mut Vec<[f64; 6]>,
        error: f64,
    ) -> Option<VerifyReport> {
        let (mut along, mut norm) = (0.0, 0.0);
        for ((zi, previous), step) in z.iter().zip(&self.previous).zip(&self.step) {
            along += (zi - previous) * step;
            norm += step * step;
        }
        // NaN (no step before) compares false.
        let r = along / norm;
        if r.is_nan() || r <= 0.0 {
            return None;
        }
        // The first bound on the way; rows already at theirs (to rounding)
        // slide along them.
        let bounds = problem.bounds();
        let at_bound = EXTRAPOLATION_AT_BOUND * z.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
        let mut reach = f64::INFINITY;
        for (i, (zi, previous)) in z.iter().zip(&self.previous).enumerate() {
            let step = zi - previous;
            let (lo, hi) = bounds.effective(i, z);
            let room = if step > 0.0 { hi - zi } else { lo - zi };
            if step != 0.0 && room.abs() > at_bound && room / step > 0.0 {
                reach = reach.min(room / step);
            }
        }
        let factor = if r < 1.0 {
            (r / (1.0 - r)).min(reach)
        } else {
            reach
        };
        if !(factor.is_finite() && factor > 0.0) {
            return None;
        }
        self.trial.clear();
        self.trial.extend(
            z.iter()
                .zip(&self.previous)
                .map(|(zi, previous)| zi + factor * (zi - previous)),
        );
        bounds.project(&mut self.trial);
        self.trial_w.resize(self.trial.len(), 0.0);
        problem.affine(&self.trial, v, &mut self.trial_w);
        let report = problem.report(&self.trial, &self.trial_w, None);
        (report.scaled_max() < error).then_some(report)
    }
}
