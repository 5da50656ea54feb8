//! `cargo xtask bench scenes` (issue 26): whole simulation steps of our
//! stepper on wall pyramids, box stacks and a loose box pile, beside a peer
//! engine (rapier3d-f64, in the `bench-scenes` binary) on the same scenes.
//!
//! A step of ours on the large pyramids takes seconds, so nothing here is
//! criterion: each engine takes a few untimed warm-up steps, then timed
//! steps as long as a time budget lasts (at least [`Plan::min_steps`]).
//! The peer, much faster, steps the same window (the same warm-up and the
//! same number of timed steps, so the same simulated time) over and over
//! from a new world while its budget lasts, and its time per step is the
//! median of those rounds. Every run also records how far the top body sank
//! and the deepest interpenetration seen; a step that fails ends its run
//! with the error, which the report shows.

mod ours;
#[cfg(feature = "rapier")]
mod rapier;

use std::time::{Duration, Instant};

use contact_sim::scenes::{BoxPile, BoxStack, WallPyramid, box_pile, box_stack, wall_pyramid};
use contact_sim::{SimError, World};
use serde_json::{Value, json};

pub use ours::Ours;
#[cfg(feature = "rapier")]
pub use rapier::{RAPIER, Rapier};

/// The step of every scene (s): the 1/60 s of the pyramid figures of
/// issue 26.
pub const STEP: f64 = 1.0 / 60.0;

/// One engine stepping one world.
pub trait Engine {
    /// Advances one step; returns the deepest interpenetration (m, >= 0)
    /// among the contacts that step used, or the step's error.
    ///
    /// # Errors
    /// The engine's step error, as text.
    fn step(&mut self) -> Result<f64, String>;

    /// Height (m) of the scene's top body, the last one added.
    fn top_height(&self) -> f64;
}

/// The scenes of the benchmark.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scene {
    /// A wall pyramid with this many cubes in its base.
    Pyramid(usize),
    /// A stack of this many cubes.
    Stack(usize),
    /// A loose pile of this many cubes.
    Pile(usize),
}

impl Scene {
    /// Pyramids of base 3, 5, 10, 15, 20 (6 to 210 cubes), stacks of 5 and
    /// 20, a pile of 200.
    pub const ALL: [Scene; 8] = [
        Scene::Pyramid(3),
        Scene::Pyramid(5),
        Scene::Pyramid(10),
        Scene::Pyramid(15),
        Scene::Pyramid(20),
        Scene::Stack(5),
        Scene::Stack(20),
        Scene::Pile(200),
    ];

    /// `pyramid_<base>`, `stack_<count>`, `pile_<count>`.
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Scene::Pyramid(base) => format!("pyramid_{base}"),
            Scene::Stack(count) => format!("stack_{count}"),
            Scene::Pile(count) => format!("pile_{count}"),
        }
    }

    /// The family: `pyramid`, `stack` or `pile`.
    #[must_use]
    pub fn family(&self) -> &'static str {
        match self {
            Scene::Pyramid(_) => "pyramid",
            Scene::Stack(_) => "stack",
            Scene::Pile(_) => "pile",
        }
    }

    /// The number of moving bodies.
    #[must_use]
    pub fn bodies(&self) -> usize {
        match *self {
            Scene::Pyramid(base) => self.pyramid(base).cubes(),
            Scene::Stack(count) | Scene::Pile(count) => count,
        }
    }

    /// Whether the top body's sink means something: it starts at rest in
    /// the pyramids and stacks, and falls in the pile.
    #[must_use]
    pub fn at_rest(&self) -> bool {
        !matches!(self, Scene::Pile(_))
    }

    /// The scene as a world of ours (unit cubes of 1 kg, friction 0.5,
    /// gravity 9.81 m/s^2: the scenes' defaults).
    ///
    /// # Errors
    /// The scene builder's, for a count of zero.
    pub fn world(&self) -> Result<World, SimError> {
        match *self {
            Scene::Pyramid(base) => wall_pyramid(&self.pyramid(base)),
            Scene::Stack(count) => box_stack(&BoxStack {
                count,
                ..BoxStack::default()
            }),
            Scene::Pile(count) => box_pile(&BoxPile {
                count,
                columns: pile_columns(count),
                ..BoxPile::default()
            }),
        }
    }

    fn pyramid(&self, base: usize) -> WallPyramid {
        WallPyramid {
            base,
            ..WallPyramid::default()
        }
    }

    /// The scene named `name` (see [`name`](Self::name)): those of
    /// [`ALL`](Self::ALL) and any other size of the three families, e.g.
    /// `pile_1000`.
    #[must_use]
    pub fn named(name: &str) -> Option<Scene> {
        let (family, size) = name.split_once('_')?;
        let size: usize = size.parse().ok().filter(|&n| n > 0)?;
        match family {
            "pyramid" => Some(Scene::Pyramid(size)),
            "stack" => Some(Scene::Stack(size)),
            "pile" => Some(Scene::Pile(size)),
            _ => None,
        }
    }
}

/// Columns of a pile's layers: the default 5 (8 layers for 200 cubes), more
/// for a larger pile so that it stays about ten layers high (10 x 10 for
/// 1 000 cubes) instead of a tower that topples.
fn pile_columns(count: usize) -> usize {
    let per_side = (count as f64 / 10.0).sqrt().round() as usize;
    per_side.max(BoxPile::default().columns)
}

/// How long each run steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Untimed steps first (the first step of either engine sets up its
    /// caches).
    pub warm_up: usize,
    /// Timed steps at least, whatever the budget.
    pub min_steps: usize,
    /// Timed steps at most.
    pub max_steps: usize,
    /// Time of one engine on one scene after which no further timed step
    /// (or round) starts.
    pub budget: Duration,
    /// The step of both engines (s; [`STEP`] unless chosen).
    pub h: f64,
}

impl Plan {
    /// `--quick`: one warm-up step, 3 to 60 timed steps within 1 s.
    #[must_use]
    pub fn quick() -> Self {
        Self {
            warm_up: 1,
            min_steps: 3,
            max_steps: 60,
            budget: Duration::from_secs(1),
            h: STEP,
        }
    }

    /// The full run: three warm-up steps, 3 to 300 timed steps within 8 s.
    #[must_use]
    pub fn full() -> Self {
        Self {
            warm_up: 3,
            min_steps: 3,
            max_steps: 300,
            budget: Duration::from_secs(8),
            h: STEP,
        }
    }

    /// Whether a run that has timed `steps` steps in `elapsed` takes
    /// another.
    #[must_use]
    pub fn another_step(&self, steps: usize, elapsed: Duration) -> bool {
        steps < self.min_steps || (steps < self.max_steps && elapsed < self.budget)
    }
}

/// What one engine did on one scene.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run {
    /// Timed steps of a round (warm-up not counted).
    pub steps: usize,
    /// Rounds of the window (1 for a budget-driven run).
    pub rounds: usize,
    /// Time per timed step (s): the mean over a round's timed steps, the
    /// median over rounds; `None` when no step was timed.
    pub seconds_per_step: Option<f64>,
    /// The slowest timed step of the first round (s).
    pub slowest_step: Option<f64>,
    /// How far the top body fell from its start over the first round (m;
    /// negative if it rose).
    pub sink: f64,
    /// The deepest interpenetration seen in any step of the first round (m).
    pub penetration: f64,
    /// The error of the step that ended the run early, if one did
    /// (`warm-up: ...`, or `step k: ...` with steps counted from 0, the
    /// warm-up included).
    pub error: Option<String>,
}

impl Run {
    /// Steps a new engine from `make` through the plan's warm-up, then
    /// times steps: as many as `plan` allows in one round when `window` is
    /// `None`; otherwise exactly `window` steps per round, in rounds while
    /// the budget lasts (at least one). A failed step (or a failed `make`)
    /// ends the run with its error.
    pub fn measure<E: Engine>(
        mut make: impl FnMut() -> Result<E, String>,
        plan: &Plan,
        window: Option<usize>,
    ) -> Run {
        let mut run = Run::default();
        let mut round_means = Vec::new();
        let started = Instant::now();
        for round in 0usize.. {
            let first = (round == 0).then_some(&mut run);
            match Self::round(&mut make, plan, window, first) {
                Ok(Some(mean)) => round_means.push(mean),
                Ok(None) => {}
                Err(error) => {
                    if round == 0 {
                        run.error = Some(error);
                    }
                    break;
                }
            }
            if window.is_none() || run.error.is_some() || started.elapsed() >= plan.budget {
                break;
            }
        }
        run.rounds = round_means.len();
        run.seconds_per_step = median(&mut round_means);
        run
    }

    /// One round; fills `first` (steps, sink, penetration, slowest step,
    /// error) when given. Returns the mean time of its timed steps, `None`
    /// when none was timed.
    fn round<E: Engine>(
        make: &mut impl FnMut() -> Result<E, String>,
        plan: &Plan,
        window: Option<usize>,
        first: Option<&mut Run>,
    ) -> Result<Option<f64>, String> {
        let mut engine = make()?;
        let start = engine.top_height();
        let mut penetration: f64 = 0.0;
        let mut slowest: f64 = 0.0;
        let mut timed = Duration::ZERO;
        let mut steps = 0;
        let mut error = None;
        for _ in 0..plan.warm_up {
            match engine.step() {
                Ok(depth) => penetration = penetration.max(depth),
                Err(e) => {
                    error = Some(format!("warm-up: {e}"));
                    break;
                }
            }
        }
        while error.is_none()
            && window.map_or_else(|| plan.another_step(steps, timed), |n| steps < n)
        {
            let clock = Instant::now();
            let result = engine.step();
            let seconds = clock.elapsed();
            match result {
                Ok(depth) => {
                    penetration = penetration.max(depth);
                    timed += seconds;
                    slowest = slowest.max(seconds.as_secs_f64());
                    steps += 1;
                }
                Err(e) => error = Some(format!("step {}: {e}", plan.warm_up + steps)),
            }
        }
        if let Some(run) = first {
            run.steps = steps;
            run.sink = start - engine.top_height();
            run.penetration = penetration;
            run.slowest_step = (steps > 0).then_some(slowest);
            run.error = error.clone();
        } else if let Some(e) = error {
            return Err(e);
        }
        Ok((steps > 0).then(|| timed.as_secs_f64() / steps as f64))
    }

    /// The run as a JSON object, with the scene and engine named.
    #[must_use]
    pub fn to_json(&self, scene: &Scene, engine: &str, plan: &Plan) -> Value {
        json!({
            "scene": scene.name(),
            "family": scene.family(),
            "bodies": scene.bodies(),
            "engine": engine,
            "h": plan.h,
            "warm_up": plan.warm_up,
            "steps": self.steps,
            "rounds": self.rounds,
            "seconds_per_step": self.seconds_per_step,
            "slowest_step": self.slowest_step,
            "sink": scene.at_rest().then_some(self.sink),
            "penetration": self.penetration,
            "error": self.error,
        })
    }
}

/// The median of `values` (the mean of the middle two for an even count);
/// `None` for none.
fn median(values: &mut [f64]) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some(0.5 * (values[n / 2 - 1] + values[n / 2])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake engine: sinks 1 mm a step, fails at step `fail_at`.
    struct Sinking {
        height: f64,
        step: usize,
        fail_at: usize,
    }

    impl Engine for Sinking {
        fn step(&mut self) -> Result<f64, String> {
            if self.step == self.fail_at {
                return Err("gave up".into());
            }
            self.step += 1;
            self.height -= 1e-3;
            Ok(1e-4 * self.step as f64)
        }

        fn top_height(&self) -> f64 {
            self.height
        }
    }

    fn sinking(fail_at: usize) -> impl FnMut() -> Result<Sinking, String> {
        move || {
            Ok(Sinking {
                height: 1.0,
                step: 0,
                fail_at,
            })
        }
    }

    #[test]
    fn a_budget_run_takes_at_least_the_minimum_and_at_most_the_maximum() {
        let plan = Plan {
            warm_up: 2,
            min_steps: 3,
            max_steps: 7,
            budget: Duration::ZERO,
            h: STEP,
        };
        let run = Run::measure(sinking(usize::MAX), &plan, None);
        assert_eq!((run.steps, run.rounds), (3, 1));
        // 5 steps of 1 mm, the deepest penetration at the 5th.
        assert!((run.sink - 5e-3).abs() < 1e-12, "{}", run.sink);
        assert!((run.penetration - 5e-4).abs() < 1e-12);
        assert!(run.seconds_per_step.is_some() && run.error.is_none());
        let generous = Plan {
            budget: Duration::from_secs(3600),
            ..plan
        };
        assert_eq!(Run::measure(sinking(usize::MAX), &generous, None).steps, 7);
    }

    #[test]
    fn a_failed_step_ends_the_run_with_its_error() {
        let plan = Plan::quick();
        let run = Run::measure(sinking(3), &plan, None);
        assert_eq!(run.steps, 2, "one warm-up step, two timed");
        assert_eq!(run.error.as_deref(), Some("step 3: gave up"));
        assert!(run.seconds_per_step.is_some());
        let early = Run::measure(sinking(0), &plan, None);
        assert_eq!(early.error.as_deref(), Some("warm-up: gave up"));
        assert_eq!((early.steps, early.seconds_per_step), (0, None));
        let unbuilt = Run::measure(|| Err::<Sinking, _>("no world".to_string()), &plan, None);
        assert_eq!(unbuilt.error.as_deref(), Some("no world"));
    }

    #[test]
    fn a_window_is_repeated_in_rounds_of_the_same_steps() {
        let plan = Plan {
            budget: Duration::from_millis(20),
            ..Plan::quick()
        };
        let run = Run::measure(sinking(usize::MAX), &plan, Some(5));
        assert_eq!(run.steps, 5);
        assert!(run.rounds > 1, "{} rounds", run.rounds);
        assert!((run.sink - 6e-3).abs() < 1e-12);
    }

    #[test]
    fn medians_and_scenes() {
        assert_eq!(median(&mut []), None);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), Some(2.5));
        let bodies: Vec<usize> = Scene::ALL.iter().map(Scene::bodies).collect();
        assert_eq!(bodies, [6, 15, 55, 120, 210, 5, 20, 200]);
        assert_eq!(Scene::named("pile_1000"), Some(Scene::Pile(1000)));
        assert_eq!(Scene::named("pyramid_0"), None);
        assert_eq!(Scene::named("heap_3"), None);
        assert_eq!((pile_columns(200), pile_columns(1000)), (5, 10));
        for scene in Scene::ALL {
            assert_eq!(Scene::named(&scene.name()), Some(scene));
            let world = scene.world().unwrap();
            assert_eq!(world.bodies().len(), scene.bodies() + 1, "and the ground");
        }
    }
}
