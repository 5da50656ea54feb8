//! `bench-scenes [--quick] [--steps N] [--hz F] [SCENE...]`: our stepper in
//! both formulations and rapier3d-f64 on the scenes of
//! `contact_benches::scene_bench` (all, or the named ones; `--steps N` times
//! exactly N steps after the warm-up, `--hz F` steps by 1/F s instead of
//! 1/60 s), one JSON object per engine and scene on stdout, after a
//! first line with the plan; progress on stderr. `cargo xtask bench scenes`
//! runs it optimised and writes the report.

use std::process::ExitCode;

use contact_benches::scene_bench::{Ours, Plan, RAPIER, Rapier, Run, Scene};
use contact_sim::Formulation;
use serde_json::json;

fn main() -> ExitCode {
    let mut quick = false;
    let mut steps = None;
    let mut h = None;
    let mut scenes = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--quick" {
            quick = true;
        } else if arg == "--steps" {
            match args.next().and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if n > 0 => steps = Some(n),
                _ => {
                    eprintln!("bench-scenes: `--steps` takes a number of steps >= 1");
                    return ExitCode::FAILURE;
                }
            }
        } else if arg == "--hz" {
            match args.next().and_then(|n| n.parse::<f64>().ok()) {
                Some(hz) if hz.is_finite() && hz > 0.0 => h = Some(1.0 / hz),
                _ => {
                    eprintln!("bench-scenes: `--hz` takes steps per second > 0");
                    return ExitCode::FAILURE;
                }
            }
        } else if let Some(scene) = Scene::named(&arg) {
            scenes.push(scene);
        } else {
            let names: Vec<String> = Scene::ALL.iter().map(Scene::name).collect();
            eprintln!(
                "bench-scenes: unknown argument `{arg}` (bench-scenes [--quick] [--steps N] [--hz F] [SCENE...]; scenes: {}, or any size of a family, e.g. pile_1000)",
                names.join(", ")
            );
            return ExitCode::FAILURE;
        }
    }
    if scenes.is_empty() {
        scenes = Scene::ALL.to_vec();
    }
    let mut plan = if quick { Plan::quick() } else { Plan::full() };
    if let Some(h) = h {
        plan.h = h;
    }
    if let Some(n) = steps {
        // Exactly `n` timed steps, whatever they take: a window through a
        // pile's landing, which the budget would cut short.
        plan = Plan {
            min_steps: n,
            max_steps: n,
            budget: std::time::Duration::ZERO,
            ..plan
        };
    }
    println!(
        "{}",
        json!({"plan": {
            "warm_up": plan.warm_up,
            "min_steps": plan.min_steps,
            "max_steps": plan.max_steps,
            "budget_seconds": plan.budget.as_secs_f64(),
            "h": plan.h,
            "quick": quick,
        }})
    );
    for scene in &scenes {
        // The peer steps the window of the longest of our runs.
        let mut window = plan.min_steps;
        for formulation in [Formulation::Complementarity, Formulation::BoxFriction] {
            let name = Ours::name(formulation);
            let run = Run::measure(|| Ours::new(scene, formulation, plan.h), &plan, None);
            window = window.max(run.steps);
            report(scene, &name, &plan, &run);
        }
        let run = Run::measure(|| Rapier::new(scene, plan.h), &plan, Some(window));
        report(scene, RAPIER, &plan, &run);
    }
    ExitCode::SUCCESS
}

/// The run's JSON line on stdout and a summary on stderr.
fn report(scene: &Scene, engine: &str, plan: &Plan, run: &Run) {
    let time = run
        .seconds_per_step
        .map_or("-".to_string(), |s| format!("{:.3} ms/step", 1e3 * s));
    eprintln!(
        "{} ({} bodies) {engine}: {time}, {} steps x {} rounds{}",
        scene.name(),
        scene.bodies(),
        run.steps,
        run.rounds,
        run.error
            .as_ref()
            .map_or(String::new(), |e| format!(", error: {e}"))
    );
    println!("{}", run.to_json(scene, engine, plan));
}
