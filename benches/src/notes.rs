//! What criterion cannot print: the residual each solver achieved on each
//! benchmark problem. A bench records one line per (function, size) while
//! setting up, and writes them to `target/bench-report/notes/<group>.json`,
//! where `cargo xtask bench` picks them up and adds them to the group's
//! table; each line also goes to stderr as it is recorded.
//!
//! The file is `{"group": G, "notes": [{"function", "parameter",
//! "residual", "iterations", "unit", "solved"}]}`, with `residual` the
//! scaled natural residual of the solver's answer (or, when it gave up, of
//! its best iterate), `iterations` its pivots, sweeps or (block pivoting)
//! linear solves (named by `unit`).

use std::path::PathBuf;

use contact_lcp::{LcpError, LcpSolution, Method};
use serde_json::{Value, json};

/// The notes of one criterion group.
#[derive(Debug)]
pub struct Notes {
    group: String,
    notes: Vec<Value>,
}

impl Notes {
    /// Empty notes for `group` (the criterion group name).
    #[must_use]
    pub fn new(group: &str) -> Self {
        Self {
            group: group.to_string(),
            notes: Vec::new(),
        }
    }

    /// Records the outcome of one solve of `function` at size `parameter`:
    /// the answer, or the best iterate the error carries.
    pub fn record(
        &mut self,
        function: &str,
        parameter: usize,
        outcome: Result<&LcpSolution, &LcpError>,
    ) {
        let (solution, solved) = match outcome {
            Ok(solution) => (Some(solution), true),
            Err(error) => (error.best(), false),
        };
        let residual = solution.map_or(f64::INFINITY, |s| s.report.scaled_natural_residual());
        let (iterations, unit) = match solution {
            Some(s) if s.method == Method::ProjectedGaussSeidel => (s.iterations, "sweeps"),
            Some(s) if s.method == Method::BlockPivoting => (s.iterations, "linear solves"),
            Some(s) => (s.pivots, "pivots"),
            None => (0, "none"),
        };
        eprintln!(
            "{}/{function}/{parameter}: scaled natural residual {residual:.2e} after {iterations} {unit}{}",
            self.group,
            if solved { "" } else { " (gave up)" }
        );
        self.notes.push(json!({
            "function": function,
            "parameter": parameter.to_string(),
            // JSON has no infinity: a missing iterate is null.
            "residual": residual.is_finite().then_some(residual),
            "iterations": iterations,
            "unit": unit,
            "solved": solved,
        }));
    }

    /// Writes the notes file (a failure to write is reported on stderr and
    /// otherwise ignored: the timings do not depend on it).
    pub fn write(&self) {
        let dir = notes_dir();
        let path = dir.join(format!("{}.json", self.group));
        let text = json!({ "group": self.group, "notes": self.notes }).to_string();
        if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, text)) {
            eprintln!("cannot write {}: {e}", path.display());
        }
    }
}

/// `target/bench-report/notes` of the workspace, where `cargo xtask bench`
/// reads criterion's results too.
fn notes_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-report/notes")
}
