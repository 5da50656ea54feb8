//! The box-friction contact problem of the default box stack after a few
//! steps, and its frictionless normal block: what the peers' comparison
//! (`cargo xtask bench peers`) and the `lcp_normal_stack` bench solve.

use contact_lcp::faer::Mat;
use contact_lcp::{BoxLcp, Lcp};
use contact_sim::scenes::{BoxStack, box_stack};
use contact_sim::{FixedStepParams, FixedStepper, Formulation, TimeSteppingParams, World};

/// The problems of one settled stack.
#[derive(Clone, Debug)]
pub struct SettledStack {
    /// The frictionless part: the normal rows and columns of `M` and `q`
    /// (symmetric positive semidefinite, singular: 4 contacts per face).
    pub normal: Lcp,
    /// The box-friction LCP with the stepper's own bounds and couplings.
    pub friction: BoxLcp,
    /// The step whose problem this is, when the stepper failed on it
    /// before `steps` (a problem our solvers find hard is worth keeping).
    pub failed_step: Option<String>,
}

/// A stack of `boxes` default cubes (`contact_sim::scenes::box_stack`)
/// stepped `steps` times with `Formulation::BoxFriction` (normal rows first,
/// then two friction rows per contact); the last step's problem.
///
/// # Errors
/// If the scene does not build, or the problem has not 3 rows per contact.
pub fn settled_stack(boxes: usize, steps: usize) -> Result<SettledStack, String> {
    let (mut world, mut stepper) = box_friction_stack(boxes)?;
    let mut failed_step = None;
    for step in 1..=steps {
        // A step whose solve fails still leaves its assembled problem.
        if let Err(e) = stepper.step(&mut world) {
            failed_step = Some(format!(
                "the problem of step {step}, where our stepper failed: {e}"
            ));
            break;
        }
    }
    let (m, q) = stepper.last_problem();
    let n = q.len();
    let contacts = n / 3;
    if contacts == 0 || n != 3 * contacts {
        return Err(format!(
            "stack of {boxes}: box-friction problem has {n} rows, expected 3 per contact"
        ));
    }
    let normal_m = Mat::from_fn(contacts, contacts, |i, j| m[(i, j)]);
    let normal = Lcp::new(normal_m, q[..contacts].to_vec())
        .map_err(|e| format!("stack of {boxes}, normal rows: {e}"))?;
    let lcp = Lcp::new(m.to_owned(), q.to_vec()).map_err(|e| format!("stack of {boxes}: {e}"))?;
    // The stepper's own bounds of this problem (its row layout and each
    // contact's friction coefficient), not a second copy of the layout.
    let bounds = stepper.last_box_bounds().clone();
    let friction =
        BoxLcp::with_bounds(lcp, bounds).map_err(|e| format!("stack of {boxes}: {e}"))?;
    Ok(SettledStack {
        normal,
        friction,
        failed_step,
    })
}

/// The default box stack of `boxes` cubes (`contact_sim::scenes::box_stack`)
/// and a stepper with `Formulation::BoxFriction`, not yet stepped.
///
/// # Errors
/// If the scene or the stepper does not build.
pub(crate) fn box_friction_stack(boxes: usize) -> Result<(World, FixedStepper), String> {
    let stack = BoxStack {
        count: boxes,
        ..BoxStack::default()
    };
    let world = box_stack(&stack).map_err(|e| e.to_string())?;
    let stepper = FixedStepper::new(FixedStepParams {
        dynamics: TimeSteppingParams {
            formulation: Formulation::BoxFriction,
            ..TimeSteppingParams::default()
        },
        ..FixedStepParams::default()
    })
    .map_err(|e| e.to_string())?;
    Ok((world, stepper))
}
