//! The problems every solver of `cargo xtask bench peers` solves: generated
//! deterministically (same seeds and scenes in every run), written as JSON in
//! our file format (`docs/lcp-file-format.md`) and, for the C++ drivers, in
//! the plain-text form of [`text_format`] beside it.

use std::path::{Path, PathBuf};

use contact_benches::{
    PyramidStep, SLIDING_SEED, SLIDING_STACK_CUBES, SLIDING_STACK_SET_SIZE, box_stack_lcp,
    pyramid_step, random_positive_definite, random_positive_definite_set, settled_stack,
    sliding_box_set, sliding_stack_sets,
};
use contact_lcp::faer::Mat;
use contact_lcp::{Lcp, LcpProblem, ProblemFile, VerifyReport};

use super::text_format;

/// One generated problem.
pub struct Problem {
    /// File stem, e.g. `spd_64`.
    pub name: String,
    /// What it is, for the report.
    pub family: Family,
    /// The problem itself, or a set of problems of one size solved in turn
    /// (never empty).
    pub instances: Vec<LcpProblem>,
    /// Whether `M` is symmetric to Dantzig's tolerance (the Dantzig solvers,
    /// ours and the peers', need it).
    pub symmetric: bool,
    /// Anything unusual about how it was made, for the report.
    pub note: Option<String>,
    /// The problem by the factors of `M` with the answer of the step
    /// before, for our block pivoting (pyramid step problems only).
    pub factored: Option<Box<PyramidStep>>,
}

/// The kinds of problem in the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `M = A A'/n + I/10` (the criterion benches' generator).
    RandomSpd,
    /// Anitescu-Potra LCP of a settled box stack: non-symmetric, singular.
    AnitescuPotra,
    /// The normal rows of the box-friction problem of a settled stack:
    /// frictionless contact, symmetric positive semidefinite, singular
    /// (four contacts per face, three independent normal directions).
    NormalContact,
    /// The box-friction problem of a settled stack: friction rows in
    /// `[-mu z_n, mu z_n]` (ODE's and Bullet's model), symmetric PSD.
    FrictionBox,
    /// A set of different `RandomSpd` problems of one size, solved in turn:
    /// one problem solved over and over lets the branch predictors learn
    /// its pivoting path, which a simulation never gives them.
    RandomSpdSet,
    /// `FrictionBox` problems of one cube sliding and spinning on the
    /// ground (`contact_benches::sliding_box_set`), solved in turn: the
    /// friction coupling decides the answer.
    SlidingBoxSet,
    /// `FrictionBox` problems of stacks of cubes each sliding and spinning
    /// on the one below (`contact_benches::sliding_stack_set`), in turn.
    SlidingStackSet,
    /// The box-friction step problem of a wall pyramid with sliding and
    /// sticking contacts (`contact_benches::pyramid_step`), also by its
    /// factors with the step before's answer: our block pivoting's
    /// warm-started solve, the simulator's own.
    PyramidStep,
}

impl Family {
    /// A short description for the report.
    pub fn describe(self) -> &'static str {
        match self {
            Self::RandomSpd => "random SPD, M = A A'/n + I/10",
            Self::AnitescuPotra => "Anitescu-Potra LCP of a box stack (non-symmetric, singular)",
            Self::NormalContact => "frictionless contact LCP of a box stack (PSD, singular)",
            Self::FrictionBox => "box-friction LCP of a box stack (PSD, singular, coupled bounds)",
            Self::RandomSpdSet => "different random SPD problems of one size, solved in turn",
            Self::SlidingBoxSet => "box-friction LCPs of one cube sliding and spinning, in turn",
            Self::SlidingStackSet => "box-friction LCPs of sliding, spinning cube stacks, in turn",
            Self::PyramidStep => {
                "box-friction step problem of a wall pyramid (PSD, singular, coupled bounds)"
            }
        }
    }
}

/// The sets of different random SPD problems: (n, how many), those of the
/// `lcp_random_pd_set` criterion group
/// (`contact_benches::random_positive_definite_set`).
const SETS: [(usize, usize); 2] = [(16, 64), (64, 16)];

/// The step of the pyramids whose problem is taken (some contacts slide,
/// the others stick).
const PYRAMID_STEP: usize = 10;

/// Problems in the sliding-box set (n = 12 each).
const SLIDING_BOXES: usize = 64;

/// Steps a stack takes before its problem is taken (the stack has landed
/// and carries its weight).
const SETTLE_STEPS: usize = 10;

/// The problem set; `quick` keeps the small problems only.
///
/// # Errors
/// If a scene fails to build or step (a bug, reported rather than panicking).
pub fn generate(quick: bool) -> Result<Vec<Problem>, String> {
    let spd_sizes: &[usize] = if quick {
        &[16, 64]
    } else {
        &[16, 64, 256, 1024]
    };
    let ap_boxes: &[usize] = if quick { &[1, 3] } else { &[1, 3, 11] };
    let stack_boxes: &[usize] = if quick { &[1, 5] } else { &[1, 5, 20, 50] };
    let pyramid_bases: &[usize] = if quick { &[6] } else { &[6, 10, 15] };
    let mut set = Vec::new();
    // Contact families first (what the simulator sends), random problems
    // last.
    for &base in pyramid_bases {
        let step = pyramid_step(base, PYRAMID_STEP);
        let symmetric = step.dense.lcp().is_symmetric();
        set.push(Problem {
            name: format!("pyramid_step_{base}"),
            family: Family::PyramidStep,
            instances: vec![LcpProblem::Box(step.dense.clone())],
            symmetric,
            note: Some(format!("step {PYRAMID_STEP} of a base-{base} pyramid")),
            factored: Some(Box::new(step)),
        });
    }
    for &boxes in stack_boxes {
        let (normal, friction) = friction_stack(boxes)?;
        set.push(normal);
        set.push(friction);
    }
    let sliding = sliding_box_set(SLIDING_BOXES, SLIDING_SEED)?;
    let symmetric = sliding.iter().all(|p| p.lcp().is_symmetric());
    set.push(Problem {
        name: "sliding_box_set".to_owned(),
        family: Family::SlidingBoxSet,
        instances: sliding.into_iter().map(LcpProblem::Box).collect(),
        symmetric,
        note: Some(format!("{SLIDING_BOXES} problems")),
        factored: None,
    });
    for (boxes, stacks) in SLIDING_STACK_CUBES.into_iter().zip(sliding_stack_sets()?) {
        let symmetric = stacks.iter().all(|p| p.lcp().is_symmetric());
        set.push(Problem {
            name: format!("sliding_stack_{boxes}_set"),
            family: Family::SlidingStackSet,
            instances: stacks.into_iter().map(LcpProblem::Box).collect(),
            symmetric,
            note: Some(format!("{SLIDING_STACK_SET_SIZE} problems")),
            factored: None,
        });
    }
    for &boxes in ap_boxes {
        let (m, q) = box_stack_lcp(boxes);
        set.push(plain(
            format!("ap_stack_{boxes}"),
            Family::AnitescuPotra,
            m,
            q,
        )?);
    }
    for &n in spd_sizes {
        // The seed of benches/benches/lcp.rs, so the sizes match its groups.
        let (m, q) = random_positive_definite(n, 0x5EED + n as u64);
        set.push(plain(format!("spd_{n}"), Family::RandomSpd, m, q)?);
    }
    for (n, count) in SETS {
        let lcps = random_positive_definite_set(n, count)
            .into_iter()
            .map(|(m, q)| Lcp::new(m, q).map_err(|e| format!("spd_{n}_set: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let symmetric = lcps.iter().all(Lcp::is_symmetric);
        set.push(Problem {
            name: format!("spd_{n}_set"),
            family: Family::RandomSpdSet,
            instances: lcps.into_iter().map(LcpProblem::Plain).collect(),
            symmetric,
            note: Some(format!("{count} problems")),
            factored: None,
        });
    }
    Ok(set)
}

fn plain(name: String, family: Family, m: Mat<f64>, q: Vec<f64>) -> Result<Problem, String> {
    let lcp = Lcp::new(m, q).map_err(|e| format!("{name}: {e}"))?;
    let symmetric = lcp.is_symmetric();
    Ok(Problem {
        name,
        family,
        instances: vec![LcpProblem::Plain(lcp)],
        symmetric,
        note: None,
        factored: None,
    })
}

impl Problem {
    /// The problem (a set's first).
    pub fn problem(&self) -> &LcpProblem {
        &self.instances[0]
    }

    /// Whether this is a set of problems.
    pub fn is_set(&self) -> bool {
        self.instances.len() > 1
    }

    /// Certifies answers given one after another as one `z` (our `verify`
    /// or `verify_box`, see `report::certify`): the report of the worst
    /// (largest scaled error); a `z` of the wrong length gets infinite
    /// errors.
    pub fn certify(&self, z: &[f64]) -> VerifyReport {
        let n = self.problem().dim();
        if z.len() != n * self.instances.len() {
            // An empty z is the wrong length for any problem (n >= 1).
            return super::report::certify(self.problem(), &[]);
        }
        self.instances
            .iter()
            .zip(z.chunks(n))
            .map(|(problem, z)| super::report::certify(problem, z))
            .max_by(|a, b| a.scaled_max().total_cmp(&b.scaled_max()))
            .expect("at least one problem")
    }
}

/// The frictionless and the box-friction problem of a stack of `boxes`
/// default cubes after [`SETTLE_STEPS`] steps of the box-friction stepper
/// (`contact_dynamics::Formulation::BoxFriction`: normal rows first, then
/// two friction rows per contact).
fn friction_stack(boxes: usize) -> Result<(Problem, Problem), String> {
    let stack = settled_stack(boxes, SETTLE_STEPS)?;
    let normal_m = stack.normal.m().to_owned();
    let mut normal = plain(
        format!("normal_stack_{boxes}"),
        Family::NormalContact,
        normal_m,
        stack.normal.q().to_vec(),
    )?;
    normal.note.clone_from(&stack.failed_step);
    let symmetric = stack.friction.lcp().is_symmetric();
    let friction = Problem {
        name: format!("friction_stack_{boxes}"),
        family: Family::FrictionBox,
        instances: vec![LcpProblem::Box(stack.friction)],
        symmetric,
        note: stack.failed_step,
        factored: None,
    };
    Ok((normal, friction))
}

/// The paths of one problem's files.
pub struct ProblemFiles {
    /// Our JSON format (Siconos, Drake and our own solvers read it); a
    /// set's first problem only (our format holds one).
    pub json: PathBuf,
    /// The plain-text form the C++ drivers read; a set's problems one
    /// after another.
    pub text: PathBuf,
}

/// Writes `problem` as `<dir>/<name>.json` and `<dir>/<name>.txt`.
///
/// # Errors
/// An I/O or serialisation error, naming the file.
pub fn write(dir: &Path, problem: &Problem) -> Result<ProblemFiles, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let json = dir.join(format!("{}.json", problem.name));
    let text = dir.join(format!("{}.txt", problem.name));
    let file = ProblemFile::from_problem(problem.problem());
    let encoded = serde_json::to_string(&file).map_err(|e| format!("{}: {e}", json.display()))?;
    std::fs::write(&json, encoded).map_err(|e| format!("{}: {e}", json.display()))?;
    let plain_text: String = problem.instances.iter().map(text_format::write).collect();
    std::fs::write(&text, plain_text).map_err(|e| format!("{}: {e}", text.display()))?;
    Ok(ProblemFiles { json, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_files_read_back_as_the_written_problem() {
        let dir = std::env::temp_dir().join(format!("xtask-peers-{}", std::process::id()));
        let (m, q) = random_positive_definite(5, 7);
        let problem = plain("spd_5".into(), Family::RandomSpd, m, q).unwrap();
        assert!(problem.symmetric, "A A'/n + I/10 is symmetric");
        let files = write(&dir, &problem).unwrap();
        let back = contact_cli::solve_lcp::load(&files.json).unwrap();
        let (LcpProblem::Plain(a), LcpProblem::Plain(b)) = (problem.problem(), &back) else {
            panic!("a plain LCP reads back as a plain LCP");
        };
        // serde_json writes the shortest round-trip form but, without its
        // `float_roundtrip` feature, may read it back one ulp off; Python's
        // json (Siconos, Drake) and the text form (C++) read it exactly.
        let close = |x: f64, y: f64| (x - y).abs() <= 2.0 * f64::EPSILON * x.abs().max(y.abs());
        for i in 0..5 {
            assert!(close(a.q()[i], b.q()[i]), "q[{i}]");
            for j in 0..5 {
                assert!(close(a.m()[(i, j)], b.m()[(i, j)]), "M[{i}][{j}]");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A set's text file holds its problems one after another (what the
    /// C++ drivers read in turn), its problems differ, and its certificate
    /// is the worst of its problems'.
    #[test]
    fn a_set_is_written_in_order_and_certified_by_its_worst_problem() {
        let problems = generate(true).unwrap();
        // The contact families come first in the report, random ones last.
        let random = |p: &Problem| matches!(p.family, Family::RandomSpd | Family::RandomSpdSet);
        let first_random = problems.iter().position(random).unwrap();
        assert!(
            problems[..first_random]
                .iter()
                .any(|p| p.family == Family::FrictionBox)
        );
        assert!(problems[first_random..].iter().all(random));
        let set = problems.iter().find(|p| p.name == "spd_16_set").unwrap();
        assert_eq!(set.instances.len(), 64);
        assert!(set.is_set() && set.symmetric);
        let dir = std::env::temp_dir().join(format!("xtask-peers-set-{}", std::process::id()));
        let files = write(&dir, set).unwrap();
        let text = std::fs::read_to_string(&files.text).unwrap();
        // Each problem's text is 1 + 16 * 16 + 16 + 3 * 16 tokens.
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let per = 1 + 16 * 16 + 16 + 3 * 16;
        assert_eq!(tokens.len(), 64 * per);
        for (k, instance) in set.instances.iter().enumerate() {
            let read = text_format::parse(&tokens[k * per..(k + 1) * per].join(" ")).unwrap();
            let (LcpProblem::Plain(a), LcpProblem::Plain(b)) = (instance, &read) else {
                panic!("plain problems");
            };
            assert_eq!(a.q(), b.q(), "problem {k}");
        }
        let (LcpProblem::Plain(first), LcpProblem::Plain(second)) =
            (&set.instances[0], &set.instances[1])
        else {
            panic!("plain problems");
        };
        assert_ne!(first.q(), second.q(), "the problems differ");
        std::fs::remove_dir_all(&dir).unwrap();

        // Every answer right: a passing certificate; one wrong (z = 0 where
        // some q_i < 0 gives w_i < 0): the set fails; a short z fails.
        let mut dantzig = contact_lcp::Dantzig::default();
        let mut z = Vec::new();
        for instance in &set.instances {
            let LcpProblem::Plain(lcp) = instance else {
                panic!("plain problems");
            };
            let out = dantzig.solve(&contact_lcp::BoxLcp::from_lcp(lcp)).unwrap();
            z.extend_from_slice(&out.z);
        }
        assert!(set.certify(&z).is_solution(1e-9));
        let mut wrong = z.clone();
        wrong[40 * 16..41 * 16].fill(0.0);
        let worst = set.certify(&wrong);
        assert!(!worst.is_solution(1e-6), "{worst:?}");
        assert!(!set.certify(&z[..16]).is_solution(1e-6));
    }

    #[test]
    fn the_friction_stack_couples_every_tangent_row_with_the_stack_friction() {
        // The bounds come from the stepper: check them against the scene
        // (default stack friction) and the row layout the family promises.
        let (normal, friction) = friction_stack(2).unwrap();
        let contacts = normal.problem().dim();
        let LcpProblem::Box(problem) = friction.problem() else {
            panic!("the friction problem is a box LCP");
        };
        assert_eq!(problem.dim(), 3 * contacts);
        assert!(problem.lo()[..contacts].iter().all(|&lo| lo == 0.0));
        let couplings = problem.couplings();
        assert_eq!(couplings.len(), 2 * contacts);
        let mu = contact_sim::scenes::BoxStack::default().friction;
        for c in couplings {
            assert_eq!(c.normal_row, (c.row - contacts) / 2, "{c:?}");
            assert_eq!(c.mu, mu, "{c:?}");
        }
    }
}
