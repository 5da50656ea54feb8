//! The bounded-friction contact problem of settled box towers, in the three
//! forms the solvers take: the dense box LCP `M = J W J'` with friction
//! coupling, its frictionless normal block as a plain LCP, and the factors
//! `J`, `W` for matrix-free projected Gauss-Seidel.
//!
//! The dense problem is the one `contact-dynamics` assembles for
//! `Formulation::BoxFriction` (taken with `last_problem()`, so the bench
//! solves exactly what the stepper solves): per contact a normal row
//! `cn >= 0` and two tangent rows with `|f| <= mu cn`; rows ordered all
//! normals, then the tangents contact by contact. A cube resting on a face
//! has 4 contacts and only 3 independent normal directions of support, so
//! `M` is symmetric positive semidefinite and singular.

use contact_dynamics::{BodyState, JacobianRow, friction_directions};
use contact_lcp::faer::Mat;
use contact_lcp::{BoxLcp, ContactOperator, JacobianBlock, Lcp};
use contact_sim::{
    FixedStepParams, FixedStepper, Formulation, MassProperties, Pose, RigidBody, Shape,
    TimeSteppingParams, World,
};
use glam::DVec3;

/// Rows per box of a tower: 4 contacts below it, a normal and two tangent
/// rows each.
pub const ROWS_PER_BOX: usize = 12;

/// A contact problem in every form the benches solve.
#[derive(Clone, Debug)]
pub struct ContactProblem {
    /// The box LCP `(J W J', q)` with the friction couplings.
    pub dense: BoxLcp,
    /// The frictionless part: the normal rows and columns of `M` and `q`.
    pub normal: Lcp,
    /// `J` and `W` of the same `M`, for the matrix-free solver.
    pub operator: StackOperator,
}

/// `M = J W J'` by its factors: one [`JacobianBlock`] pair per row and the
/// 6 x 6 inverse mass of every body (zero for the ground).
#[derive(Clone, Debug)]
pub struct StackOperator {
    rows: Vec<[Option<JacobianBlock>; 2]>,
    inverse_masses: Vec<[[f64; 6]; 6]>,
}

impl ContactOperator for StackOperator {
    fn rows(&self) -> usize {
        self.rows.len()
    }

    fn bodies(&self) -> usize {
        self.inverse_masses.len()
    }

    fn jacobian(&self, row: usize) -> [Option<JacobianBlock>; 2] {
        self.rows[row]
    }

    fn inverse_mass(&self, body: usize) -> [[f64; 6]; 6] {
        self.inverse_masses[body]
    }
}

impl StackOperator {
    /// `J W J'` formed densely (for checking the operator against the
    /// stepper's matrix).
    #[must_use]
    pub fn dense(&self) -> Mat<f64> {
        let n = self.rows.len();
        Mat::from_fn(n, n, |i, j| {
            let mut sum = 0.0;
            for a in self.rows[i].iter().flatten() {
                for b in self.rows[j].iter().flatten() {
                    if a.body == b.body {
                        let w = &self.inverse_masses[a.body];
                        for (r, w_row) in w.iter().enumerate() {
                            for (c, w_rc) in w_row.iter().enumerate() {
                                sum += a.j[r] * w_rc * b.j[c];
                            }
                        }
                    }
                }
            }
            sum
        })
    }
}

/// `towers` towers of `height` unit cubes (1 kg, friction 0.5) on the
/// ground, 3 m apart in a row, each cube resting exactly on the one below:
/// the five-box stack of `contact_sim::scenes::box_stack`, repeated side by
/// side so the problem grows without making the tower taller (a single
/// tower of 21 already defeats Dantzig's pivot limit, see docs/benchmarks.md).
fn towers_world(towers: usize, height: usize) -> World {
    let mut world = World::new(DVec3::new(0.0, 0.0, -9.81));
    let ground = RigidBody::fixed(
        Shape::half_space(DVec3::Z).expect("unit normal"),
        Pose::IDENTITY,
    )
    .with_friction(0.5)
    .expect("valid friction");
    world.add_body(ground);
    let half = DVec3::splat(0.5);
    let shape = Shape::cuboid(half).expect("valid cube");
    let mass = MassProperties::solid_box(1.0, half).expect("valid mass");
    for tower in 0..towers {
        for level in 0..height {
            let centre = DVec3::new(3.0 * tower as f64, 0.0, level as f64 + 0.5);
            let cube = RigidBody::dynamic(shape.clone(), mass, Pose::from_translation(centre))
                .and_then(|body| body.with_friction(0.5))
                .expect("valid cube");
            world.add_body(cube);
        }
    }
    world
}

/// The box-friction problem of `towers` towers of `height` unit cubes after
/// `steps` steps of 1/240 s from rest (the last step's problem):
/// `12 towers height` unknowns.
///
/// # Panics
/// If the towers fail to step or the assembled problem is invalid, which the
/// stack tests of `contact-sim` rule out for towers of five.
#[must_use]
pub fn box_towers_problem(towers: usize, height: usize, steps: usize) -> ContactProblem {
    let mut world = towers_world(towers, height);
    let params = FixedStepParams {
        dynamics: TimeSteppingParams {
            formulation: Formulation::BoxFriction,
            // The benches take the whole scene's problem.
            islands: false,
            ..TimeSteppingParams::default()
        },
        ..FixedStepParams::default()
    };
    let mut stepper = FixedStepper::new(params).expect("valid params");
    for _ in 1..steps.max(1) {
        stepper.step(&mut world).expect("tower steps");
    }
    // The last step's problem belongs to the bodies as they were before it.
    let bodies: Vec<BodyState> = world
        .bodies()
        .iter()
        .enumerate()
        .map(|(i, body)| BodyState::of(body, i, 0.0).expect("finite bodies"))
        .collect();
    stepper.step(&mut world).expect("tower steps");
    let contacts = stepper.contacts();
    let nc = contacts.len();
    let friction_rows = params.dynamics.friction_directions;

    let mut rows: Vec<JacobianRow> = contacts
        .iter()
        .map(|c| JacobianRow::relative_velocity(&bodies, c.body_a, c.body_b, c.point, c.normal))
        .collect();
    let mut directions = Vec::new();
    for c in contacts {
        // The stepper's tangents: the first two of its friction cone.
        friction_directions(c.normal, friction_rows, &mut directions);
        for &t in &directions[..2] {
            rows.push(JacobianRow::relative_velocity(
                &bodies, c.body_a, c.body_b, c.point, t,
            ));
        }
    }
    let n = rows.len();
    let operator = StackOperator {
        rows: rows.iter().map(blocks).collect(),
        inverse_masses: bodies.iter().map(inverse_mass).collect(),
    };

    // The stepper's own bounds: its row layout and couplings.
    let bounds = stepper.last_box_bounds(0).clone();
    let (m, q) = stepper.last_problem(0);
    assert_eq!(
        m.nrows(),
        n,
        "the stepper's rows are normals then 2 tangents"
    );
    let dense = BoxLcp::with_bounds(Lcp::new(m.to_owned(), q.to_vec()).expect("finite"), bounds)
        .expect("matching sizes");
    let normal = Lcp::new(m.get(..nc, ..nc).to_owned(), q[..nc].to_vec()).expect("finite");
    ContactProblem {
        dense,
        normal,
        operator,
    }
}

fn blocks(row: &JacobianRow) -> [Option<JacobianBlock>; 2] {
    [row.a, row.b].map(|block| {
        block.map(|b| JacobianBlock {
            body: b.body,
            j: [
                b.linear.x,
                b.linear.y,
                b.linear.z,
                b.angular.x,
                b.angular.y,
                b.angular.z,
            ],
        })
    })
}

/// `W_b = diag(I / m, I^-1)` as 6 x 6 rows (linear first, as the rows).
fn inverse_mass(body: &BodyState) -> [[f64; 6]; 6] {
    let (inv_mass, inv_inertia) = (body.inv_mass, body.inv_inertia);
    let mut w = [[0.0; 6]; 6];
    for r in 0..3 {
        w[r][r] = inv_mass;
        for c in 0..3 {
            // glam matrices are column-major: col(c)[r] is row r, column c.
            w[3 + r][3 + c] = inv_inertia.col(c)[r];
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The operator's `J W J'`, formed from the bodies and contacts here,
    /// equals the matrix the stepper assembled on its own, and the problem is
    /// the contact-shaped one described: 12 rows per box, symmetric, with a
    /// singular normal block (4 contacts per face).
    #[test]
    fn operator_matches_the_steppers_matrix() {
        let p = box_towers_problem(1, 3, 3);
        let m = p.dense.m();
        assert_eq!(m.nrows(), 3 * ROWS_PER_BOX);
        let mine = p.operator.dense();
        let scale = (0..m.nrows()).map(|i| m[(i, i)]).fold(0.0, f64::max);
        for i in 0..m.nrows() {
            for j in 0..m.ncols() {
                assert!(
                    (mine[(i, j)] - m[(i, j)]).abs() <= 1e-12 * scale,
                    "({i}, {j}): {} vs {}",
                    mine[(i, j)],
                    m[(i, j)]
                );
                assert_eq!(m[(i, j)], m[(j, i)]);
            }
        }
        // The 4 normal rows under the top box span only 3 dimensions: the
        // normal block has a null vector, so its smallest eigenvalue is ~0.
        let nc = p.normal.dim();
        let eig = p
            .normal
            .m()
            .self_adjoint_eigenvalues(contact_lcp::faer::Side::Lower)
            .unwrap();
        let (min, max) = eig.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), &e| {
            (lo.min(e), hi.max(e))
        });
        assert_eq!(nc, 12);
        assert!(min.abs() <= 1e-12 * max, "eigenvalues {eig:?}");
    }
}
