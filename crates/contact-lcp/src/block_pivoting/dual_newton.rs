// A frozen subproblem by Newton's method on its dual, with an exact line
// search.
//
// With its friction bounds held at the centre's normals (mod.rs) a
// subproblem is the strictly convex quadratic program
//     min 1/2 z' (J W J' + D) z + o' z,   l <= z <= h,
// D = diag(d_i), d_i = C_i + rho_i > 0, o = q - P c. Its dual over the body
// velocity change v,
//     Phi(v) = 1/2 v' W^-1 v - sum_i m_i(o_i + J_i v),
//     m_i(s) = min over l_i <= z <= h_i of 1/2 d_i z^2 + s z,
// is strongly convex, piecewise quadratic and continuously differentiable,
// with gradient W^-1 v - J' z(v), z_i(v) = clamp(-(o_i + J_i v) / d_i, l_i,
// h_i); at its minimiser z(v) is the subproblem's answer. On one piece its
// Hessian is the body-space matrix K of the guess that frees the rows whose
// z_i(v) lies inside its bounds (body_system.rs), and the piece's Newton
// point is that guess's solve: block principal pivoting is Newton's method
// on Phi with full steps, which can cycle. With an exact line search every
// step lowers Phi, so no guess comes back, and Newton's method reaches the
// answer's piece and there the answer itself: the method of MuJoCo's Newton
// solver (Todorov 2014, "Convex and analytically-invertible dynamics with
// contacts and constraints", ICRA), here on a proximal subproblem. It
// replaces Murty's one-row rule, finite too but one factorisation per row
// exchanged, thousands of them when a pile lands.

use crate::factored_problem::FactoredBoxLcp;

use super::BlockPivoting;
use super::row_state::RowState;

impl BlockPivoting {
    /// Solves the frozen subproblem from the last solve's `v` (see the
    /// module comment); leaves its answer in `z` and its guess in
    /// `states`.
    pub(super) fn descend(&mut self, problem: &FactoredBoxLcp) -> Result<(), &'static str> {
        let n = problem.dim();
        let bounds = problem.bounds();
        self.lo.clear();
        self.lo.extend_from_slice(bounds.lo());
        self.hi.clear();
        self.hi.extend_from_slice(bounds.hi());
        for c in bounds.couplings() {
            let r = c.mu * self.centre[c.normal_row].max(0.0);
            (self.lo[c.row], self.hi[c.row]) = (-r, r);
        }
        // The iterate v, from the last solve.
        self.x.clear();
        self.x.extend_from_slice(self.system.velocity());
        self.s.resize(n, 0.0);
        self.update_s(problem);
        loop {
            if self.stats.solves >= self.params.solve_budget(n) {
                return Err("solve limit reached");
            }
            for i in 0..n {
                let z = -self.s[i] / self.d[i];
                self.states[i] = if z <= self.lo[i] {
                    RowState::Lower
                } else if z >= self.hi[i] {
                    RowState::Upper
                } else {
                    RowState::Free
                };
            }
            self.solve_guess(problem)?;
            if self.find_violations(problem) == 0 {
                return Ok(());
            }
            // The step towards the piece's Newton point, in v and in s.
            self.step.clear();
            let target = self.system.velocity();
            self.step
                .extend(target.iter().zip(&self.x).map(|(t, x)| t - x));
            self.delta.clear();
            for i in 0..n {
                let s_newton = self.offset(problem, i) + self.jv[i];
                self.delta.push(s_newton - self.s[i]);
            }
            let t = self.line_search();
            if t <= 0.0 {
                // No descent: v minimises Phi to rounding, and z(v) is the
                // subproblem's answer as closely as this iteration can
                // give it (the outer loop certifies it against the LCP).
                for i in 0..n {
                    self.z[i] = (-self.s[i] / self.d[i]).clamp(self.lo[i], self.hi[i]);
                }
                return Ok(());
            }
            for (x, dx) in self.x.iter_mut().zip(&self.step) {
                *x += t * dx;
            }
            self.update_s(problem);
        }
    }

    /// `s = o + J v` from the iterate `v` itself, not updated by each
    /// step: drifted rounding would classify a row at its bound on the
    /// other side from the solve's answer, and the iteration would stall.
    fn update_s(&mut self, problem: &FactoredBoxLcp) {
        self.system.row_products(&self.x, &mut self.s);
        for i in 0..self.s.len() {
            self.s[i] += self.offset(problem, i);
        }
    }

    /// `o_i = q_i - rho_i c_i`.
    fn offset(&self, problem: &FactoredBoxLcp, i: usize) -> f64 {
        problem.q()[i] - self.rho[i] * self.centre[i]
    }

    /// The minimiser of `Phi(v + t step)` over `t >= 0`. Its derivative
    /// `start + t along - sum_i z_i(t) delta_i` is piecewise linear and
    /// nondecreasing: each `z_i` is linear in `t` between the two kinks
    /// where it meets its bounds, and the curvature gains `delta_i^2 / d_i`
    /// at the first and loses it at the second. The kinks after 0 are
    /// sorted and walked to the piece that holds the root, found there by
    /// one Newton step from the derivative recomputed at the piece's start
    /// (the walk's own running slope and curvature only pick the piece).
    fn line_search(&mut self) -> f64 {
        let along = self.system.mass_product(&self.step, &self.step);
        let start = self.system.mass_product(&self.step, &self.x);
        // The curvature just after 0, and the kinks after 0.
        let mut curvature = along;
        self.kinks.clear();
        for i in 0..self.s.len() {
            let delta = self.delta[i];
            if delta == 0.0 {
                continue;
            }
            let (s, d) = (self.s[i], self.d[i]);
            let at = |bound: f64| -(bound * d + s) / delta;
            let (x, y) = (at(self.lo[i]), at(self.hi[i]));
            let (enter, leave) = if x <= y { (x, y) } else { (y, x) };
            if leave <= 0.0 {
                continue;
            }
            let weight = delta * delta / d;
            if enter <= 0.0 {
                curvature += weight;
            } else {
                self.kinks.push((enter, weight));
            }
            if leave.is_finite() {
                self.kinks.push((leave, -weight));
            }
        }
        let mut t = 0.0;
        let mut slope = self.derivative(t, along, start);
        if slope >= 0.0 {
            return 0.0;
        }
        self.kinks.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        for &(kink, change) in &self.kinks {
            if curvature > 0.0 && t - slope / curvature <= kink {
                break;
            }
            slope += curvature * (kink - t);
            t = kink;
            curvature += change;
        }
        let slope = self.derivative(t, along, start);
        if curvature > 0.0 {
            t - slope.min(0.0) / curvature
        } else {
            t
        }
    }

    /// `d/dt Phi(v + t step)`.
    fn derivative(&self, t: f64, along: f64, start: f64) -> f64 {
        let mut slope = start + t * along;
        for i in 0..self.s.len() {
            let delta = self.delta[i];
            if delta == 0.0 {
                continue;
            }
            let z = -(self.s[i] + t * delta) / self.d[i];
            slope -= if z <= self.lo[i] {
                self.lo[i]
            } else if z >= self.hi[i] {
                self.hi[i]
            } else {
                z
            } * delta;
        }
        slope
    }
}
