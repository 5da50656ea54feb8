//! What a run prints: a heading before, a summary a person can read after
//! (speed, penetration, energy, events, the verdict).

use std::fmt::Write;

use contact_sim::scene_file::Scene;
use contact_sim::simulation::{EventKind, Simulation};

/// A number to four significant digits, in scientific notation when very
/// small or large.
#[must_use]
pub fn number(x: f64) -> String {
    let magnitude = x.abs();
    if x == 0.0 {
        "0".into()
    } else if !x.is_finite() || !(1e-3..1e5).contains(&magnitude) {
        format!("{x:.3e}")
    } else {
        let decimals = (3 - magnitude.log10().floor() as i32).max(0) as usize;
        format!("{x:.decimals$}")
    }
}

/// The line printed before a run: the scene and how long it runs
/// (`length`, in words).
#[must_use]
pub fn heading(scene: &Scene, length: &str) -> String {
    let name = scene.name.as_deref().unwrap_or("scene");
    let mut text = format!(
        "{name}: {} bodies, {} joints, {} force elements; {length}",
        scene.world.bodies().len(),
        scene.world.joints().len(),
        scene.world.forces().len(),
    );
    if let Some(description) = &scene.description {
        let _ = write!(text, "\n  {description}");
    }
    text
}

/// The summary after a run (`finished`) or after the step that failed,
/// `written` lines naming the files written.
#[must_use]
pub fn render(
    simulation: &Simulation,
    wall_seconds: f64,
    written: &[String],
    finished: bool,
) -> String {
    let scene = simulation.scene();
    let o = simulation.observations();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "ran {} steps ({} s simulated) in {} s: {} steps per second",
        o.steps,
        number(o.elapsed),
        number(wall_seconds),
        number(o.steps as f64 / wall_seconds.max(1e-9))
    );
    if !scene.stepper.has_fixed_steps() && o.steps > 0 {
        let _ = writeln!(
            text,
            "steps of varying length: {} s on average, at most {} s",
            number(o.elapsed / o.steps as f64),
            number(scene.stepper.nominal_step())
        );
    }
    if o.max_penetration > 0.0 {
        let _ = writeln!(
            text,
            "largest interpenetration: {} m (in the step from t = {} s)",
            number(o.max_penetration),
            number(o.max_penetration_time)
        );
    } else {
        let _ = writeln!(text, "largest interpenetration: none");
    }
    let _ = writeln!(
        text,
        "energy: {} J at the start, {} J at the end: change {} J, largest rise {} J",
        number(o.initial_energy),
        number(o.energy),
        number(o.energy - o.initial_energy),
        number(o.max_energy_gain)
    );
    if !scene.world.joints().is_empty() {
        let _ = writeln!(
            text,
            "largest joint error: {} (m or rad)",
            number(o.max_joint_error)
        );
    }
    let _ = write!(
        text,
        "contact events: {} began, {} ended",
        o.contacts_begun, o.contacts_ended
    );
    let shown: Vec<String> = simulation
        .events()
        .iter()
        .take(3)
        .map(|event| {
            let verb = match event.kind {
                EventKind::ContactBegins => "touches",
                EventKind::ContactEnds => "leaves",
            };
            format!(
                "{} {verb} {} at t = {} s",
                scene.body_label(event.bodies[1]),
                scene.body_label(event.bodies[0]),
                number(event.time)
            )
        })
        .collect();
    if !shown.is_empty() {
        let more = if simulation.events().len() > shown.len() {
            ", ..."
        } else {
            ""
        };
        let _ = write!(text, " ({}{more})", shown.join("; "));
    }
    text.push('\n');
    for line in written {
        let _ = writeln!(text, "{line}");
    }
    let checks = simulation.verdict();
    if !finished {
        let _ = writeln!(text, "verdict: none, the run stopped early");
    } else if !checks.is_empty() {
        let holding = checks.iter().filter(|c| c.holds).count();
        let verdict = if holding == checks.len() {
            "PASS"
        } else {
            "FAIL"
        };
        let _ = writeln!(
            text,
            "verdict: {verdict} ({holding} of {} expectations hold)",
            checks.len()
        );
        for check in &checks {
            let _ = writeln!(
                text,
                "  {}  {} = {} (expected {})",
                if check.holds { "pass" } else { "FAIL" },
                check.observable,
                number(check.measured),
                check.bound
            );
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn numbers_keep_four_significant_digits() {
        assert_eq!(number(0.0), "0");
        assert_eq!(number(1234.5678), "1235");
        assert_eq!(number(1.23456), "1.235");
        assert_eq!(number(0.0123456), "0.01235");
        assert_eq!(number(2.5e-9), "2.500e-9");
        assert_eq!(number(-3.0e7), "-3.000e7");
        assert_eq!(number(f64::NAN), "NaN");
    }
}
