//! The settings of the LCP solvers the event-driven stepper uses
//! (`stepper.event_driven.solver`): every field of `contact_lcp`'s
//! `SolverParams`, its Dantzig, Lemke and projected Gauss-Seidel settings
//! named with their solver's prefix (`dantzig_`, `lemke_`, `pgs_`). A
//! setting whose "automatic", "never" or "off" value is `usize::MAX` in
//! the API is optional here: left out (or `null`), it takes that value.

use contact_lcp::{DantzigParams, LemkeParams, PgsParams, SolverParams};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::{JsonPath, SceneError};
use crate::EventDrivenParams;

/// Settings of the LCP solvers the event-driven stepper uses (see
/// `SolverParams`, `DantzigParams`, `LemkeParams`, `PgsParams`); an absent
/// field takes the stepper's default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EventSolverSpec {
    /// A pivoting answer is accepted when its scaled residual is at most
    /// this (dimensionless, > 0).
    pub tolerance: f64,
    /// Box problems with friction coupling and at least this many rows try
    /// Lemke's method before Dantzig's (absent or null: never).
    pub lemke_coupled_from: Option<usize>,
    /// Pivots Dantzig may take when it goes first, before Lemke is tried
    /// (0: automatic, `n + 20`, or `10 n` with friction coupling).
    pub dantzig_first_pivots: usize,
    /// Dantzig's pivots per pass (>= 1; absent or null: automatic,
    /// `10 n + 100`).
    pub dantzig_max_pivots: Option<usize>,
    /// Dantzig's pivots over all its coupling passes (>= 1; absent or
    /// null: no limit of its own).
    pub dantzig_max_total_pivots: Option<usize>,
    /// A row joins Dantzig's clamped set only if its Schur complement
    /// exceeds this times the largest entry of `M` (dimensionless, >= 0).
    pub dantzig_pivot_tolerance: f64,
    /// `|w_i|` at most this times `max(|q|)` counts as zero (dimensionless,
    /// >= 0).
    pub dantzig_zero_tolerance: f64,
    /// Most pivoting passes for friction coupling (>= 1).
    pub dantzig_max_coupling_rounds: usize,
    /// The coupling passes stop when no friction radius changed by more
    /// than this times `max(|z|)` (dimensionless, >= 0).
    pub dantzig_coupling_tolerance: f64,
    /// Whether each coupling pass starts from the last one's final state.
    pub dantzig_warm_start_rounds: bool,
    /// Whether Dantzig records every step it takes (pivots and guesses).
    pub dantzig_record_trace: bool,
    /// Problems of at least this many rows first try a block principal
    /// pivoting guess (null: never).
    pub dantzig_block_guess_from: Option<usize>,
    /// Lemke's pivots (0: automatic, `50 n + 1000`).
    pub lemke_max_pivots: usize,
    /// A row may leave Lemke's basis only by a pivot element above this
    /// (relative, >= 0).
    pub lemke_pivot_tolerance: f64,
    /// Harris' tolerance in Lemke's ratio test (relative, >= 0).
    pub lemke_zero_tolerance: f64,
    /// Lemke refactorises its basis every this many pivots (0: only when
    /// needed).
    pub lemke_refactor_interval: usize,
    /// The zero tolerance of Lemke's retries after a failed attempt
    /// (>= 0; 0: no retries).
    pub lemke_fallback_zero_tolerance: f64,
    /// Whether Lemke records every pivot.
    pub lemke_record_trace: bool,
    /// Relaxation factor of projected Gauss-Seidel, the fail-safe (in
    /// `(0, 2)`).
    pub pgs_omega: f64,
    /// Projected Gauss-Seidel stops once its scaled residual is at most
    /// this (> 0).
    pub pgs_tolerance: f64,
    /// Most sweeps of projected Gauss-Seidel (>= 1).
    pub pgs_max_sweeps: usize,
}

impl Default for EventSolverSpec {
    fn default() -> Self {
        Self::of(&EventDrivenParams::default().solver)
    }
}

/// `value`, unless it is `usize::MAX` (the API's "automatic", "never" or
/// "off").
fn unless_max(value: usize) -> Option<usize> {
    (value != usize::MAX).then_some(value)
}

impl EventSolverSpec {
    /// Whether these are the stepper's default settings.
    pub(crate) fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// The description of `solver`.
    pub(crate) fn of(solver: &SolverParams) -> Self {
        let SolverParams {
            dantzig,
            lemke,
            pgs,
            tolerance,
            lemke_coupled_from,
            dantzig_first_pivots,
        } = *solver;
        Self {
            tolerance,
            lemke_coupled_from: unless_max(lemke_coupled_from),
            dantzig_first_pivots,
            dantzig_max_pivots: unless_max(dantzig.max_pivots),
            dantzig_max_total_pivots: unless_max(dantzig.max_total_pivots),
            dantzig_pivot_tolerance: dantzig.pivot_tolerance,
            dantzig_zero_tolerance: dantzig.zero_tolerance,
            dantzig_max_coupling_rounds: dantzig.max_coupling_rounds,
            dantzig_coupling_tolerance: dantzig.coupling_tolerance,
            dantzig_warm_start_rounds: dantzig.warm_start_rounds,
            dantzig_record_trace: dantzig.record_trace,
            dantzig_block_guess_from: unless_max(dantzig.block_guess_from),
            lemke_max_pivots: lemke.max_pivots,
            lemke_pivot_tolerance: lemke.pivot_tolerance,
            lemke_zero_tolerance: lemke.zero_tolerance,
            lemke_refactor_interval: lemke.refactor_interval,
            lemke_fallback_zero_tolerance: lemke.fallback_zero_tolerance,
            lemke_record_trace: lemke.record_trace,
            pgs_omega: pgs.omega,
            pgs_tolerance: pgs.tolerance,
            pgs_max_sweeps: pgs.max_sweeps,
        }
    }

    /// The solver settings, checked; `path` is this block's
    /// (`stepper.event_driven.solver`).
    pub(crate) fn params(&self, path: &JsonPath) -> Result<SolverParams, SceneError> {
        let non_negative = |name: &str, value: f64| path.field(name).non_negative(value);
        let at_least_one = |name: &str, value: usize| {
            if value >= 1 {
                Ok(value)
            } else {
                Err(path.field(name).error("must be >= 1"))
            }
        };
        let limit = |name: &str, value: Option<usize>| match value {
            Some(value) => at_least_one(name, value),
            None => Ok(usize::MAX),
        };
        let omega = self.pgs_omega;
        if !(omega.is_finite() && omega > 0.0 && omega < 2.0) {
            return Err(path.field("pgs_omega").error("must be > 0 and < 2"));
        }
        Ok(SolverParams {
            dantzig: DantzigParams {
                max_pivots: limit("dantzig_max_pivots", self.dantzig_max_pivots)?,
                max_total_pivots: limit("dantzig_max_total_pivots", self.dantzig_max_total_pivots)?,
                pivot_tolerance: non_negative(
                    "dantzig_pivot_tolerance",
                    self.dantzig_pivot_tolerance,
                )?,
                zero_tolerance: non_negative(
                    "dantzig_zero_tolerance",
                    self.dantzig_zero_tolerance,
                )?,
                max_coupling_rounds: at_least_one(
                    "dantzig_max_coupling_rounds",
                    self.dantzig_max_coupling_rounds,
                )?,
                coupling_tolerance: non_negative(
                    "dantzig_coupling_tolerance",
                    self.dantzig_coupling_tolerance,
                )?,
                warm_start_rounds: self.dantzig_warm_start_rounds,
                record_trace: self.dantzig_record_trace,
                block_guess_from: self.dantzig_block_guess_from.unwrap_or(usize::MAX),
            },
            lemke: LemkeParams {
                max_pivots: self.lemke_max_pivots,
                pivot_tolerance: non_negative("lemke_pivot_tolerance", self.lemke_pivot_tolerance)?,
                zero_tolerance: non_negative("lemke_zero_tolerance", self.lemke_zero_tolerance)?,
                refactor_interval: self.lemke_refactor_interval,
                fallback_zero_tolerance: non_negative(
                    "lemke_fallback_zero_tolerance",
                    self.lemke_fallback_zero_tolerance,
                )?,
                record_trace: self.lemke_record_trace,
            },
            pgs: PgsParams {
                omega,
                tolerance: path.field("pgs_tolerance").positive(self.pgs_tolerance)?,
                max_sweeps: at_least_one("pgs_max_sweeps", self.pgs_max_sweeps)?,
            },
            tolerance: path.field("tolerance").positive(self.tolerance)?,
            lemke_coupled_from: self.lemke_coupled_from.unwrap_or(usize::MAX),
            dantzig_first_pivots: self.dantzig_first_pivots,
        })
    }
}
