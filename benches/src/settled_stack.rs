//! The box-friction contact problem of the default box stack after a few
//! steps, and its frictionless normal block: what the peers' comparison
//! (`cargo xtask bench peers`) and the `lcp_normal_stack` bench solve.

use contact_lcp::faer::Mat;
use contact_lcp::{BoxLcp, Lcp};
use contact_sim::scenes::{BoxStack, box_stack};
use contact_sim::{
    BodyId, FixedStepParams, FixedStepper, Formulation, TimeSteppingParams, Twist, World,
};
use glam::{DQuat, DVec3};

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
/// then two friction rows per contact); the last step's problem, assembled
/// from a state rounded by `quantize_state` so that it does not move
/// with the last bits of our own solver's answers in the steps before.
///
/// # Errors
/// If the scene does not build, or the problem has not 3 rows per contact.
pub fn settled_stack(boxes: usize, steps: usize) -> Result<SettledStack, String> {
    let (mut world, mut stepper) = box_friction_stack(boxes)?;
    let mut failed_step = None;
    for step in 1..=steps {
        if step == steps {
            quantize_state(&mut world);
        }
        // A step whose solve fails still leaves its assembled problem.
        if let Err(e) = stepper.step(&mut world) {
            failed_step = Some(format!(
                "the problem of step {step}, where our stepper failed: {e}"
            ));
            break;
        }
    }
    let (m, q) = stepper.last_problem(0);
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
    let bounds = stepper.last_box_bounds(0).clone();
    let friction =
        BoxLcp::with_bounds(lcp, bounds).map_err(|e| format!("stack of {boxes}: {e}"))?;
    Ok(SettledStack {
        normal,
        friction,
        failed_step,
    })
}

/// Quantum of `quantize_state`: 2^-30, about 9.3e-10 (m, m/s, rad/s
/// and quaternion components).
const STATE_QUANTUM: f64 = 1.0 / (1u64 << 30) as f64;

/// Rounds the pose and twist of every dynamic body of `world` to a
/// multiple of [`STATE_QUANTUM`] (the rotation renormalised after), so
/// that a problem assembled from the state depends on the scene and the
/// step count, not on the last bits of the solver that stepped it there.
///
/// Why: the peers' settled stacks and sliding sets are stepped by our own
/// solver, and a change of its last bits moved their `q` by an ulp, which
/// moved ODE's pivoting path with it (the box at rest: ODE 0.12 -> 0.18
/// us for the same problem up to one ulp of `q`, session 15). A state
/// one ulp from a rounding boundary still flips, about once in 2^22.
/// Rounding by 2^30 and back is exact (powers of two), and the change of
/// state (under 5e-10) is far below the stacks' resting penetrations.
pub(crate) fn quantize_state(world: &mut World) {
    let round = |x: f64| (x * (1u64 << 30) as f64).round() * STATE_QUANTUM;
    let round3 = |v: DVec3| DVec3::new(round(v.x), round(v.y), round(v.z));
    for id in (0..world.bodies().len()).map(BodyId) {
        let body = world.body_mut(id);
        if !body.is_dynamic() {
            continue;
        }
        body.pose.translation = round3(body.pose.translation);
        let r = body.pose.rotation;
        body.pose.rotation =
            DQuat::from_xyzw(round(r.x), round(r.y), round(r.z), round(r.w)).normalize();
        body.twist = Twist::new(round3(body.twist.linear), round3(body.twist.angular));
    }
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
            // The benches take the whole scene's problem.
            islands: false,
            ..TimeSteppingParams::default()
        },
        ..FixedStepParams::default()
    })
    .map_err(|e| e.to_string())?;
    Ok((world, stepper))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One ulp more in every coordinate of a settled stack's state (what a
    /// change of the solver's last bits does to it) is rounded away: the
    /// quantized states, and so the problems assembled from them, agree to
    /// the bit.
    #[test]
    fn an_ulp_of_state_is_rounded_away() {
        let (mut world, mut stepper) = box_friction_stack(3).unwrap();
        for _ in 0..10 {
            stepper.step(&mut world).unwrap();
        }
        let mut nudged = world.clone();
        for id in (0..nudged.bodies().len()).map(BodyId) {
            let body = nudged.body_mut(id);
            if !body.is_dynamic() {
                continue;
            }
            let up = |v: DVec3| DVec3::new(v.x.next_up(), v.y.next_up(), v.z.next_up());
            body.pose.translation = up(body.pose.translation);
            let r = body.pose.rotation;
            body.pose.rotation = DQuat::from_xyzw(r.x.next_up(), r.y, r.z, r.w.next_down());
            body.twist = Twist::new(up(body.twist.linear), up(body.twist.angular));
        }
        assert_ne!(world, nudged, "the nudge changes the state");
        quantize_state(&mut world);
        quantize_state(&mut nudged);
        assert_eq!(world, nudged);
        let problem = |mut world: World| {
            let (_, mut stepper) = box_friction_stack(3).unwrap();
            stepper.step(&mut world).unwrap();
            let (m, q) = stepper.last_problem(0);
            (m.to_owned(), q.to_vec())
        };
        let (a, b) = (problem(world), problem(nudged));
        assert_eq!(a.1, b.1, "q agrees to the bit");
        assert_eq!(a.0, b.0, "M agrees to the bit");
    }
}
