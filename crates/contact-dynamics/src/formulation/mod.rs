//! The velocity-level step problem built from constraint rows, in the two
//! formulations a step can solve. Neither asks what made a row: joints,
//! limits, motors, planar locks and springs are rows with bounds like any
//! contact normal.
//!
//! With `W` the inverse of the step's mass matrix, the free-flight twists
//! `v*` and the row impulses `lambda`, the end-of-step twists are
//! `u+ = v* + W J' lambda`, and each row asks for a relation on
//! `w = J u+ + C lambda + b` (`C` the rows' compliances, `b` the
//! velocity target and stabilisation terms of `constraints/mod.rs`):
//!
//! - [`Formulation::Complementarity`], Anitescu and Potra's LCP (Cline 2002,
//!   sec. 2.7.3, eq. 2.45-2.49): each contact's tangent pair becomes `k`
//!   generators `d_j` of a polyhedral cone with multipliers `beta_j >= 0`
//!   and a sliding speed `sigma` (eq. 2.47-2.48):
//!
//!   ```text
//!   [ A W A' + C   A W D'   0 ] [lambda]   [ A v* + b ]
//!   [ D W A'       D W D'   E ] [beta  ] + [ D v*     ] = w
//!   [ mu_n         -E'      0 ] [sigma ]   [ 0        ]
//!   ```
//!
//!   where `A` holds every other row, with its own bounds (free, `>= 0`,
//!   an interval), `E` a column of ones per contact and `mu_n` picks the
//!   contact's normal row. Solved by Lemke's method on the problem's standard
//!   form (`contact_lcp::Lemke::solve_box_into`); it always has a solution
//!   when the equality rows are consistent (Anitescu and Potra 1997). With
//!   four directions (the default) it is solved as a box problem instead
//!   (below).
//!   With no contact it is the symmetric problem `J W J' + C` of the box
//!   formulation and is solved as such.
//! - [`Formulation::BoxFriction`]: every row is an unknown, `M = J W J' + C`
//!   (symmetric, positive semidefinite), and the two tangent rows of a
//!   contact are bounded by `mu` times its normal impulse (the square cone
//!   of ODE and Bullet). Solved by the `contact_lcp::Solver` policy:
//!   Dantzig / Baraff pivoting (Baraff 1994, sec. 4), Lemke on the standard
//!   form, projected Gauss-Seidel as the fail-safe (Preda & Florian 2005).
//!
//! Unknowns are ordered: the rows that are not friction rows in emission
//! order, then the friction unknowns per contact (the generators, then for
//! the LCP the sliding speeds), so for contacts alone the layout is normals
//! first, as in Cline eq. 2.49.
//!
//! Islands of at least `TimeSteppingParams::sparse_from` rows are solved
//! in factored form: `J W J' + C` is never formed, and
//! `contact_lcp::BlockPivoting` solves the box problem in body space by
//! block principal pivoting on proximal subproblems, warm-started from the
//! step before's active set and impulses, matched row by row through the
//! constraints' keys (a contact's bodies and features); a settled pile
//! takes one or two factorisations of a sparse system of 6 unknowns per
//! body. If it gives up, the dense route answers. Every answer is
//! certified either way.
//!
//! The complementarity formulation with four friction directions
//! (`t1, t2, -t1, -t2`) bounds a contact's friction by the square
//! `|f_1| + |f_2| <= mu lambda_n`, which is the box `|f_u|, |f_v| <= mu
//! lambda_n / sqrt 2` on the tangents `u, v = (t1 +- t2) / sqrt 2`; both
//! problems state maximal dissipation over that one set with the same
//! normal complementarity, so their answers are the same impulses. It is
//! solved as that turned box problem (dense or factored like
//! `BoxFriction`); Lemke's method answers the other direction counts.

pub(crate) mod delassus;
pub(crate) mod factored;

use contact_lcp::faer::{Mat, MatRef};
use contact_lcp::{
    BlockPivoting, BoxBounds, BoxLcp, Coupling, FactoredBoxLcp, FactoredParts, Lcp, LcpError,
    LcpSolution, Lemke, Method, RowState, Solver, active_set_of,
};
use std::f64::consts::FRAC_1_SQRT_2;

use contact_math::Twist;

use self::delassus::Delassus;
use crate::constraints::{RowBounds, RowSet};
use crate::friction_cone::friction_generators;
use crate::stabilisation::StabilisationParams;
use crate::{BodyState, JacobianRow, TimeSteppingParams};

/// Which complementarity problem a step solves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Formulation {
    /// Anitescu-Potra with a `k`-direction polyhedral friction cone, as an
    /// LCP solved by Lemke's method (Cline 2002, eq. 2.49); with four
    /// directions (the default) as the equivalent box problem on tangents
    /// turned by 45 degrees. Always has a solution; the default.
    #[default]
    Complementarity,
    /// Every row an unknown with box bounds, friction bounded by `mu`
    /// times the normal impulse per tangent (a square friction cone), as a
    /// bounded LCP solved by the `contact_lcp::Solver` policy: Dantzig
    /// pivoting and Lemke's method on the problem's standard form, with
    /// projected Gauss-Seidel as the fail-safe (Baraff 1994; Stewart &
    /// Trinkle 1996; Preda & Florian 2005). `friction_directions` is ignored.
    BoxFriction,
}

/// A row's state and impulse in an answer, by its constraint's key and its
/// offset among the constraint's rows: what a later step's guess and
/// proximal centre are made of.
pub(crate) type WarmEntry = (u64, usize, RowState, f64);

/// A contact's friction rows: two tangent rows sharing one normal.
#[derive(Clone, Copy, Debug)]
struct FrictionPair {
    /// Row-set indices of the two tangent rows.
    tangents: [usize; 2],
    /// Unknown index of the normal row.
    normal_unknown: usize,
    mu: f64,
}

/// Builds and solves the step problem of a row set; owns every buffer, so
/// a second solve of the same shape allocates nothing.
#[derive(Debug)]
pub(crate) struct VelocityProblem {
    /// Row-set index of each primary (non-friction) unknown.
    primary: Vec<usize>,
    /// Unknown index of each row-set row (friction rows: their first
    /// generator or tangent unknown).
    unknown_of_row: Vec<usize>,
    pairs: Vec<FrictionPair>,
    /// Cone coefficients `(c_j, s_j)` of the complementarity formulation.
    generators: Vec<(f64, f64)>,
    /// Compliance of each primary unknown.
    compliance: Vec<f64>,
    /// The Jacobian row of each unknown that has one.
    rows: Vec<JacobianRow>,
    /// `W J'` per block of each of `rows`.
    responses: Vec<[Twist; 2]>,
    delassus: Delassus,
    matrix: Mat<f64>,
    offsets: Vec<f64>,
    bounds: BoxBounds,
    lemke: Lemke,
    box_solver: Solver,
    solution: LcpSolution,
    /// Whether `matrix` holds the last problem (false after a sparse solve
    /// until [`VelocityProblem::last_problem`] fills it).
    dense_current: bool,
    block_pivoting: BlockPivoting,
    /// The buffers of the factored problem, kept between steps.
    factored: FactoredParts,
    /// The active set of this problem's answer per constraint key and row
    /// offset (filled after a sparse solve): the caller's store for the
    /// next step's guess.
    pub(crate) remembered: Vec<WarmEntry>,
    /// Scratch: the active set of an answer, and a guess and its centre.
    states: Vec<RowState>,
    guess: Vec<RowState>,
    centre: Vec<f64>,
    /// Whether the last problem is the four-direction cone solved as the
    /// square box turned by 45 degrees.
    turned: bool,
    /// The solver whose error ended the last solve (`None` when it
    /// succeeded or failed before any solver ran).
    failed_solver: Option<Method>,
}

impl VelocityProblem {
    pub(crate) fn new(params: &TimeSteppingParams) -> Self {
        Self {
            primary: Vec::new(),
            unknown_of_row: Vec::new(),
            pairs: Vec::new(),
            generators: Vec::new(),
            compliance: Vec::new(),
            rows: Vec::new(),
            responses: Vec::new(),
            delassus: Delassus::default(),
            matrix: Mat::new(),
            offsets: Vec::new(),
            bounds: BoxBounds::unilateral(0),
            lemke: Lemke::new(params.lcp),
            box_solver: Solver::new(params.box_solver),
            solution: LcpSolution::default(),
            dense_current: true,
            block_pivoting: BlockPivoting::default(),
            factored: FactoredParts::default(),
            remembered: Vec::new(),
            states: Vec::new(),
            guess: Vec::new(),
            centre: Vec::new(),
            turned: false,
            failed_solver: None,
        }
    }

    /// The LCP `(M, q)` of the last solve that had rows (its dense `M` is
    /// formed here after a sparse solve).
    pub(crate) fn last_problem(&mut self) -> (MatRef<'_, f64>, &[f64]) {
        if !self.dense_current {
            self.fill_matrix();
        }
        (self.matrix.as_ref(), &self.offsets)
    }

    /// The bounds of the last solve.
    pub(crate) fn last_bounds(&self) -> &BoxBounds {
        &self.bounds
    }

    /// The solver's answer of the last solve.
    pub(crate) fn last_solution(&self) -> &LcpSolution {
        &self.solution
    }

    /// The solver whose error ended the last solve, if one did.
    pub(crate) fn failed_solver(&self) -> Option<Method> {
        self.failed_solver
    }

    /// Solves the step problem of `set` and adds `W J' lambda` to
    /// `velocities` (which hold `v*` on entry); writes each row's impulse
    /// into `row_impulses`, indexed like `set` (a friction row's impulse is
    /// along its tangent).
    #[allow(clippy::too_many_arguments)] // the step's inputs, each distinct
    pub(crate) fn solve(
        &mut self,
        params: &TimeSteppingParams,
        set: &RowSet,
        bodies: &[BodyState],
        h: f64,
        warm: &[WarmEntry],
        velocities: &mut [Twist],
        row_impulses: &mut Vec<f64>,
    ) -> Result<(), LcpError> {
        self.remembered.clear();
        self.failed_solver = None;
        row_impulses.clear();
        row_impulses.resize(set.len(), 0.0);
        if set.is_empty() {
            return Ok(());
        }
        let large = set.len() >= params.sparse_from;
        // A four-direction cone is the square box turned by 45 degrees
        // (see the module comment): solved as such.
        self.turned =
            params.formulation == Formulation::Complementarity && params.friction_directions == 4;
        let cone = match params.formulation {
            Formulation::Complementarity if !self.turned => {
                friction_generators(params.friction_directions, &mut self.generators);
                true
            }
            _ => false,
        };
        self.layout(set, cone);
        self.build_rows(set, bodies, cone);
        self.assemble(set, velocities, h, &params.stabilisation, cone)?;
        let sparse = !cone && large;
        let n = self.offsets.len();
        // The last step's active set, the first guess of either route.
        let guessed = !cone && self.guess_from_warm(set, warm);
        let solved_sparse = sparse && self.solve_sparse(bodies, guessed).is_ok();
        if !solved_sparse {
            if self.offsets.len() != n {
                self.assemble(set, velocities, h, &params.stabilisation, cone)?;
            }
            self.fill_matrix();
            let lcp = Lcp::new(
                std::mem::replace(&mut self.matrix, Mat::new()),
                std::mem::take(&mut self.offsets),
            )?;
            let problem = BoxLcp::with_bounds(
                lcp,
                std::mem::replace(&mut self.bounds, BoxBounds::unilateral(0)),
            )?;
            // Without a friction cone the complementarity problem is the
            // symmetric box problem (J W J' + C, free rows native), which the
            // policy's Dantzig solves without lifting the free rows.
            let lemke = cone && !self.pairs.is_empty();
            let solved = if lemke {
                self.lemke.solve_box_into(&problem, &mut self.solution)
            } else if guessed {
                self.box_solver
                    .solve_from_into(&problem, &self.guess, &mut self.solution)
            } else {
                self.box_solver.solve_into(&problem, &mut self.solution)
            };
            let (lcp, bounds) = problem.into_parts();
            (self.matrix, self.offsets) = lcp.into_parts();
            self.bounds = bounds;
            if solved.is_err() {
                // Lemke's method alone for the friction cone; the policy
                // says which of its solvers failed.
                self.failed_solver = match lemke {
                    true => Some(Method::Lemke),
                    false => self.box_solver.failed_method(),
                };
            }
            solved?;
        }
        if !cone {
            self.remember_active_set(set)?;
        }
        self.apply(velocities);
        self.row_impulses(set, cone, row_impulses);
        Ok(())
    }

    /// Orders the unknowns (see the module comment).
    fn layout(&mut self, set: &RowSet, cone: bool) {
        self.primary.clear();
        self.pairs.clear();
        self.unknown_of_row.clear();
        self.unknown_of_row.resize(set.len(), usize::MAX);
        for (i, row) in set.rows().iter().enumerate() {
            if !matches!(row.bounds, RowBounds::Friction { .. }) {
                self.unknown_of_row[i] = self.primary.len();
                self.primary.push(i);
            }
        }
        let p = self.primary.len();
        let per_pair = if cone { self.generators.len() } else { 2 };
        let rows = set.rows();
        let mut i = 0;
        while i < rows.len() {
            if let RowBounds::Friction { normal, mu } = rows[i].bounds {
                debug_assert!(
                    matches!(rows.get(i + 1).map(|r| r.bounds),
                        Some(RowBounds::Friction { normal: n, .. }) if n == normal),
                    "friction rows come in pairs on one normal"
                );
                let first = p + per_pair * self.pairs.len();
                self.unknown_of_row[i] = first;
                self.unknown_of_row[i + 1] = first + 1;
                self.pairs.push(FrictionPair {
                    tangents: [i, i + 1],
                    normal_unknown: self.unknown_of_row[normal],
                    mu,
                });
                i += 2;
            } else {
                i += 1;
            }
        }
    }

    /// The Jacobian rows of the unknowns and their responses `W J'`.
    fn build_rows(&mut self, set: &RowSet, bodies: &[BodyState], cone: bool) {
        let rows = set.rows();
        self.rows.clear();
        self.rows
            .extend(self.primary.iter().map(|&i| rows[i].jacobian));
        for pair in &self.pairs {
            let [t1, t2] = pair.tangents.map(|i| rows[i].jacobian);
            if cone {
                for &(c, s) in &self.generators {
                    self.rows.push(t1.combine(c, &t2, s));
                }
            } else if self.turned {
                self.rows
                    .push(t1.combine(FRAC_1_SQRT_2, &t2, FRAC_1_SQRT_2));
                self.rows
                    .push(t1.combine(FRAC_1_SQRT_2, &t2, -FRAC_1_SQRT_2));
            } else {
                self.rows.push(t1);
                self.rows.push(t2);
            }
        }
        self.responses.clear();
        self.responses
            .extend(self.rows.iter().map(|row| row.responses(bodies)));
    }

    /// Fills `M`, `q` and the bounds.
    fn assemble(
        &mut self,
        set: &RowSet,
        free_velocities: &[Twist],
        h: f64,
        stabilisation: &StabilisationParams,
        cone: bool,
    ) -> Result<(), LcpError> {
        let rows = set.rows();
        let p = self.primary.len();
        let jacobian_unknowns = self.rows.len();
        let n = jacobian_unknowns + if cone { self.pairs.len() } else { 0 };
        self.compliance.clear();
        self.compliance
            .extend(self.primary.iter().map(|&i| rows[i].compliance));
        self.dense_current = false;
        self.offsets.clear();
        self.offsets.resize(n, 0.0);
        for (u, row) in self.rows.iter().enumerate() {
            self.offsets[u] = row.apply(|body| free_velocities[body]);
        }
        for (u, &i) in self.primary.iter().enumerate() {
            let row = &rows[i];
            let target = stabilisation.velocity_term(row.condition, h) - row.velocity_target;
            if target != 0.0 {
                self.offsets[u] += target;
            }
        }
        let per_pair = if cone { self.generators.len() } else { 2 };
        for (c, pair) in self.pairs.iter().enumerate() {
            let [v1, v2] = pair.tangents.map(|i| rows[i].velocity_target);
            if v1 == 0.0 && v2 == 0.0 {
                continue;
            }
            for j in 0..per_pair {
                let (c1, c2) = match (cone, self.turned, j) {
                    (true, _, _) => self.generators[j],
                    (false, true, 0) => (FRAC_1_SQRT_2, FRAC_1_SQRT_2),
                    (false, true, _) => (FRAC_1_SQRT_2, -FRAC_1_SQRT_2),
                    (false, false, 0) => (1.0, 0.0),
                    (false, false, _) => (0.0, 1.0),
                };
                self.offsets[p + per_pair * c + j] -= c1 * v1 + c2 * v2;
            }
        }
        let (primary, pairs) = (&self.primary, &self.pairs);
        let mu_scale = if self.turned { FRAC_1_SQRT_2 } else { 1.0 };
        self.bounds.rebuild(|lo, hi, couplings| {
            lo.clear();
            hi.clear();
            couplings.clear();
            lo.resize(n, 0.0);
            hi.resize(n, f64::INFINITY);
            for (u, &i) in primary.iter().enumerate() {
                (lo[u], hi[u]) = match rows[i].bounds {
                    RowBounds::Free => (f64::NEG_INFINITY, f64::INFINITY),
                    RowBounds::Interval { lo, hi } => (lo, hi),
                    RowBounds::NonNegative | RowBounds::Friction { .. } => (0.0, f64::INFINITY),
                };
            }
            if !cone {
                for (c, pair) in pairs.iter().enumerate() {
                    for d in 0..2 {
                        let row = p + 2 * c + d;
                        // Placeholders: a coupled row's bounds follow mu * lambda_n.
                        (lo[row], hi[row]) = (f64::NEG_INFINITY, f64::INFINITY);
                        couplings.push(Coupling {
                            row,
                            normal_row: pair.normal_unknown,
                            mu: mu_scale * pair.mu,
                        });
                    }
                }
            }
        })
    }

    /// Forms the dense `M`: `J W J' + C`, and for the LCP `E`, `-E'` and
    /// `mu` (Cline eq. 2.47-2.49).
    fn fill_matrix(&mut self) {
        let n = self.offsets.len();
        self.matrix.resize_with(n, n, |_, _| 0.0);
        self.matrix.as_mut().fill(0.0);
        self.delassus
            .fill(&self.rows, &self.responses, self.matrix.as_mut());
        for (u, &c) in self.compliance.iter().enumerate() {
            if c != 0.0 {
                self.matrix[(u, u)] += c;
            }
        }
        let (p, jacobian_unknowns) = (self.primary.len(), self.rows.len());
        if n > jacobian_unknowns {
            let per_pair = self.generators.len();
            for (c, pair) in self.pairs.iter().enumerate() {
                let sigma = jacobian_unknowns + c;
                self.matrix[(sigma, pair.normal_unknown)] = pair.mu;
                for j in 0..per_pair {
                    let beta = p + per_pair * c + j;
                    self.matrix[(beta, sigma)] = 1.0;
                    self.matrix[(sigma, beta)] = -1.0;
                }
            }
        }
        self.dense_current = true;
    }

    /// The box problem solved in factored form by block pivoting on
    /// proximal subproblems (`contact_lcp::BlockPivoting`), warm-started
    /// from the last step's answer when `guess` (`self.guess` and
    /// `self.centre` filled by `guess_from_warm`), else cold: every row of a constraint seen before
    /// takes its old state and (a normal or other non-friction row) its
    /// impulse as the centre; new rows are guessed free with no
    /// impulse (a contact found within the margin usually carries load, and
    /// sticks).
    fn solve_sparse(&mut self, bodies: &[BodyState], guess: bool) -> Result<(), LcpError> {
        let mut parts = std::mem::take(&mut self.factored);
        factored::fill_rows_and_masses(&mut parts, &self.rows, bodies);
        parts.compliance.clone_from(&self.compliance);
        parts.compliance.resize(self.offsets.len(), 0.0);
        parts.q = std::mem::take(&mut self.offsets);
        parts.bounds = std::mem::replace(&mut self.bounds, BoxBounds::unilateral(0));
        // An error (an overflowing entry of M) drops q and the bounds with
        // the parts; `solve` assembles them again for the dense route.
        let problem = FactoredBoxLcp::new(parts)?;
        let solved = self.block_pivoting.solve_into(
            &problem,
            guess.then_some((self.guess.as_slice(), self.centre.as_slice())),
            &mut self.solution,
        );
        let mut parts = problem.into_parts();
        self.offsets = std::mem::take(&mut parts.q);
        self.bounds = std::mem::replace(&mut parts.bounds, BoxBounds::unilateral(0));
        self.factored = parts;
        solved
    }

    /// Fills `self.guess` and `self.centre` from `warm` (sorted); false when
    /// nothing of this problem was seen before (a cold start is better
    /// then).
    fn guess_from_warm(&mut self, set: &RowSet, warm: &[WarmEntry]) -> bool {
        let n = self.offsets.len();
        self.guess.clear();
        self.guess.resize(n, RowState::Free);
        self.centre.clear();
        self.centre.resize(n, 0.0);
        let mut found = false;
        for owner in set.owners() {
            // The owner's entries are consecutive, by row offset.
            let first = warm.partition_point(|entry| entry.0 < owner.key);
            let entries = warm[first..]
                .iter()
                .take_while(|entry| entry.0 == owner.key);
            for &(_, offset, state, impulse) in entries {
                let Some(i) = owner.rows.clone().nth(offset) else {
                    break;
                };
                let u = self.unknown_of_row[i];
                self.guess[u] = state;
                // Friction carries no memory: among the equally valid
                // friction distributions of redundant contacts the solver
                // then picks the one nearest 0, where the last step's would
                // carry internal friction forward, step after step, until
                // rows reach their cone's edge.
                if self.bounds.coupling_of(u).is_none() {
                    self.centre[u] = impulse;
                }
                found = true;
            }
        }
        found
    }

    /// Keeps the active set of the last answer, by constraint key and row.
    fn remember_active_set(&mut self, set: &RowSet) -> Result<(), LcpError> {
        let z = &self.solution.z;
        let w = &self.solution.w;
        active_set_of(&self.bounds, z, w, &mut self.states)?;
        for owner in set.owners() {
            for (offset, i) in owner.rows.clone().enumerate() {
                let u = self.unknown_of_row[i];
                self.remembered
                    .push((owner.key, offset, self.states[u], z[u]));
            }
        }
        Ok(())
    }

    /// `u+ = v* + W J' z` over the unknowns with a Jacobian row.
    fn apply(&self, velocities: &mut [Twist]) {
        let z = &self.solution.z;
        for ((row, response), &impulse) in self.rows.iter().zip(&self.responses).zip(z) {
            if impulse == 0.0 {
                continue;
            }
            for (block, change) in [row.a, row.b].iter().zip(response) {
                if let Some(block) = block {
                    velocities[block.body] += *change * impulse;
                }
            }
        }
    }

    /// Each row's impulse: its unknown, or for a friction row the impulse
    /// along its tangent (the cone's generators summed).
    fn row_impulses(&self, set: &RowSet, cone: bool, out: &mut [f64]) {
        let z = &self.solution.z;
        for (u, &i) in self.primary.iter().enumerate() {
            out[i] = z[u];
        }
        let p = self.primary.len();
        let per_pair = if cone { self.generators.len() } else { 2 };
        for (c, pair) in self.pairs.iter().enumerate() {
            let first = p + per_pair * c;
            let [t1, t2] = pair.tangents;
            if cone {
                let (mut f1, mut f2) = (0.0, 0.0);
                for (j, &(c1, c2)) in self.generators.iter().enumerate() {
                    f1 += c1 * z[first + j];
                    f2 += c2 * z[first + j];
                }
                (out[t1], out[t2]) = (f1, f2);
            } else if self.turned {
                let (u, v) = (z[first], z[first + 1]);
                (out[t1], out[t2]) = (FRAC_1_SQRT_2 * (u + v), FRAC_1_SQRT_2 * (u - v));
            } else {
                (out[t1], out[t2]) = (z[first], z[first + 1]);
            }
        }
        debug_assert_eq!(out.len(), set.len());
    }
}
