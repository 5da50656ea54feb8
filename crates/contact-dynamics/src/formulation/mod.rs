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
//!   when the equality rows are consistent (Anitescu and Potra 1997).
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

pub(crate) mod delassus;

use contact_lcp::faer::{Mat, MatRef};
use contact_lcp::{BoxBounds, BoxLcp, Coupling, Lcp, LcpError, LcpSolution, Lemke, Solver};
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
    /// LCP solved by Lemke's method (Cline 2002, eq. 2.49). Always has a
    /// solution; the default.
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
}

impl VelocityProblem {
    pub(crate) fn new(params: &TimeSteppingParams) -> Self {
        Self {
            primary: Vec::new(),
            unknown_of_row: Vec::new(),
            pairs: Vec::new(),
            generators: Vec::new(),
            rows: Vec::new(),
            responses: Vec::new(),
            delassus: Delassus::default(),
            matrix: Mat::new(),
            offsets: Vec::new(),
            bounds: BoxBounds::unilateral(0),
            lemke: Lemke::new(params.lcp),
            box_solver: Solver::new(params.box_solver),
            solution: LcpSolution::default(),
        }
    }

    /// The LCP `(M, q)` of the last solve that had rows.
    pub(crate) fn last_problem(&self) -> (MatRef<'_, f64>, &[f64]) {
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

    /// Solves the step problem of `set` and adds `W J' lambda` to
    /// `velocities` (which hold `v*` on entry); writes each row's impulse
    /// into `row_impulses`, indexed like `set` (a friction row's impulse is
    /// along its tangent).
    pub(crate) fn solve(
        &mut self,
        params: &TimeSteppingParams,
        set: &RowSet,
        bodies: &[BodyState],
        h: f64,
        velocities: &mut [Twist],
        row_impulses: &mut Vec<f64>,
    ) -> Result<(), LcpError> {
        row_impulses.clear();
        row_impulses.resize(set.len(), 0.0);
        if set.is_empty() {
            return Ok(());
        }
        let cone = match params.formulation {
            Formulation::Complementarity => {
                friction_generators(params.friction_directions, &mut self.generators);
                true
            }
            Formulation::BoxFriction => false,
        };
        self.layout(set, cone);
        self.build_rows(set, bodies, cone);
        self.assemble(set, velocities, h, &params.stabilisation, cone)?;
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
        let solved = if cone && !self.pairs.is_empty() {
            self.lemke.solve_box_into(&problem, &mut self.solution)
        } else {
            self.box_solver.solve_into(&problem, &mut self.solution)
        };
        let (lcp, bounds) = problem.into_parts();
        (self.matrix, self.offsets) = lcp.into_parts();
        self.bounds = bounds;
        solved?;
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
        self.matrix.resize_with(n, n, |_, _| 0.0);
        self.matrix.as_mut().fill(0.0);
        self.delassus
            .fill(&self.rows, &self.responses, self.matrix.as_mut());
        self.offsets.clear();
        self.offsets.resize(n, 0.0);
        for (u, row) in self.rows.iter().enumerate() {
            self.offsets[u] = row.apply(|body| free_velocities[body]);
        }
        for (u, &i) in self.primary.iter().enumerate() {
            let row = &rows[i];
            if row.compliance != 0.0 {
                self.matrix[(u, u)] += row.compliance;
            }
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
                let (c1, c2) = if cone {
                    self.generators[j]
                } else if j == 0 {
                    (1.0, 0.0)
                } else {
                    (0.0, 1.0)
                };
                self.offsets[p + per_pair * c + j] -= c1 * v1 + c2 * v2;
            }
        }
        if cone {
            // E, -E' and mu (Cline eq. 2.47-2.49).
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
        let (primary, pairs) = (&self.primary, &self.pairs);
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
                            mu: pair.mu,
                        });
                    }
                }
            }
        })
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
            } else {
                (out[t1], out[t2]) = (z[first], z[first + 1]);
            }
        }
        debug_assert_eq!(out.len(), set.len());
    }
}
