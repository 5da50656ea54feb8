//! Block pivoting on the step problems of a landing pile: islands where
//! it ran out of its budget (100 solves) before frozen subproblems were
//! solved by Newton's method on their dual (not Murty's one-row rule) and
//! the outer loop extrapolated along a guess that holds. Each problem
//! (tests/data/landing_island_*.json) is one island of
//! `scenes::box_pile` (200 cubes, 5 x 5 columns, h = 1/60), with the warm
//! start the simulator gave it; the answer is certified independently by
//! the dense certificate on `M` formed here from the factors.

mod common;

use common::factored::dense_of;
use contact_lcp::{
    BlockPivoting, BlockPivotingParams, BlockPivotingStats, BoxBounds, Coupling, FactoredBoxLcp,
    FactoredParts, JacobianBlock, LcpSolution, RowState, verify_box,
};
use serde_json::Value;

/// A stored island: the problem's parts, the warm guess and centre.
fn load(name: &str) -> (FactoredParts, Vec<RowState>, Vec<f64>) {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let number = |v: &Value| match v {
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        v => v.as_f64().unwrap(),
    };
    let numbers = |v: &Value| -> Vec<f64> { v.as_array().unwrap().iter().map(number).collect() };
    let inverse_mass = file["inverse_mass"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let m = numbers(m);
            std::array::from_fn(|r| std::array::from_fn(|c| m[6 * r + c]))
        })
        .collect();
    let (mut parts, mut guess, mut centre) = (
        FactoredParts {
            inverse_mass,
            ..FactoredParts::default()
        },
        Vec::new(),
        Vec::new(),
    );
    let (mut lo, mut hi, mut couplings) = (Vec::new(), Vec::new(), Vec::new());
    for (i, row) in file["rows"].as_array().unwrap().iter().enumerate() {
        let mut blocks = [None, None];
        for (k, block) in row["blocks"].as_array().unwrap().iter().enumerate() {
            let j = numbers(&block["j"]);
            blocks[k] = Some(JacobianBlock {
                body: block["body"].as_u64().unwrap() as usize,
                j: std::array::from_fn(|c| j[c]),
            });
        }
        parts.rows.push(blocks);
        parts.compliance.push(number(&row["compliance"]));
        parts.q.push(number(&row["q"]));
        lo.push(number(&row["lo"]));
        hi.push(number(&row["hi"]));
        if let Some(c) = row["coupling"].as_object() {
            couplings.push(Coupling {
                row: i,
                normal_row: c["normal_row"].as_u64().unwrap() as usize,
                mu: number(&c["mu"]),
            });
        }
        guess.push(match row["guess"].as_str().unwrap() {
            "lower" => RowState::Lower,
            "upper" => RowState::Upper,
            _ => RowState::Free,
        });
        centre.push(number(&row["centre"]));
    }
    parts.bounds = BoxBounds::new(lo, hi, couplings).unwrap();
    (parts, guess, centre)
}

/// Solves a stored island warm within the default budget; the answer
/// certified by the dense certificate. Returns the solver's statistics.
fn solve(name: &str) -> BlockPivotingStats {
    let (parts, guess, centre) = load(name);
    let dense = dense_of(&parts);
    let problem = FactoredBoxLcp::new(parts).unwrap();
    let mut solver = BlockPivoting::new(BlockPivotingParams::default());
    let mut out = LcpSolution::default();
    solver
        .solve_into(&problem, Some((&guess, &centre)), &mut out)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let stats = *solver.last_stats();
    assert!(stats.solves <= 100, "{name}: {stats:?}");
    let report = verify_box(&dense, &out.z, &out.w);
    assert!(report.is_solution(1e-9), "{name}: {report:?}");
    stats
}

/// Two islands whose frozen subproblems took Murty's rule past the budget.
#[test]
fn landing_islands_are_solved_through_frozen_subproblems() {
    for name in ["landing_island_n69.json", "landing_island_n72.json"] {
        let stats = solve(name);
        assert!(stats.frozen_subproblems > 0, "{name}: {stats:?}");
    }
}

/// An island whose outer loop drifted: a friction row moving a constant
/// step a subproblem on a guess that held, the error falling 2 % a step.
#[test]
fn a_drifting_outer_loop_is_extrapolated() {
    let stats = solve("landing_island_n120.json");
    assert!(stats.extrapolations > 0, "{stats:?}");
}
