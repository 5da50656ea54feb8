// A box LCP with friction coupling (box_problem.rs: lo <= z <= hi, and
// -mu z_j <= z_i <= mu z_j for a friction row i of normal j) rewritten as a
// standard LCP for Lemke's method: each row split into sign parts, each
// finite bound given a multiplier, as in the polyhedral-friction LCP of
// Stewart & Trinkle 1996 and Anitescu & Potra 1997 (Cline 2002 sec. 2.7.3,
// eq. 2.45-2.49, where the multiplier is the sliding speed):
//
//     z_i = x_i+ - x_i-              (x_i+ only if hi_i > 0, x_i- only if lo_i < 0)
//     w_i+ =  w_i + l_i  >= 0  _|_  x_i+ >= 0
//     w_i- = -w_i + l_i' >= 0  _|_  x_i- >= 0
//     hi_i - x_i+        >= 0  _|_  l_i  >= 0     (uncoupled, hi finite)
//     -lo_i - x_i-       >= 0  _|_  l_i' >= 0     (uncoupled, lo finite)
//     mu z_j - x_i+ - x_i- >= 0 _|_ l_i = l_i' >= 0 (coupled: one multiplier)
//
// If l > 0 the bound is reached and w_i = -l < 0 at the upper side (+l at the
// lower), as box complementarity asks; if l = 0, w_i+, w_i- >= 0 force
// w_i = 0 within the bounds. A coupled row's normal is unilateral
// (z_j = x_j+). For M positive semidefinite the lifted matrix is copositive
// and Lemke's method solves a feasible problem (Stewart & Trinkle) and ends
// on a ray otherwise.

use faer::Mat;

use crate::box_problem::BoxLcp;
use crate::problem::Lcp;
use crate::scaling::pow2_round;
use crate::tuning::AT_BOUND;

/// Marks "no variable".
const NONE: usize = usize::MAX;

/// A box problem's guess `z`, its `w = M z + q`, and the lifted basis to fill.
pub(crate) type Guess<'a> = (&'a [f64], &'a [f64], &'a mut Vec<bool>);

/// The lifted LCP of a box LCP and the map back, with buffers reused
/// between problems of the same shape.
#[derive(Clone, Debug, Default)]
pub(crate) struct PyramidLift {
    lcp: Option<Lcp>,
    /// Row -> its `x+` variable, or NONE.
    plus: Vec<usize>,
    /// Row -> its `x-` variable, or NONE.
    minus: Vec<usize>,
    /// Sign variables: (row, +1 or -1), in variable order.
    signs: Vec<(usize, f64)>,
}

impl PyramidLift {
    /// Builds the lifted problem of `p` (see the module source) and returns
    /// it, reusing the buffers of the last one: allocates only when the
    /// lifted dimension changes. With `warm = (z, w, basic)`, also the
    /// lifted basis that the box problem's `z` and `w = M z + q` suggest
    /// (`basic_of`), for a warm start.
    pub(crate) fn build(&mut self, p: &BoxLcp, warm: Option<Guess<'_>>) -> &Lcp {
        let n = p.dim();
        let bounds = p.bounds();
        let (lo, hi) = (bounds.lo(), bounds.hi());
        self.plus.clear();
        self.plus.resize(n, NONE);
        self.minus.clear();
        self.minus.resize(n, NONE);
        self.signs.clear();
        // Multipliers: one per coupled row, one per finite uncoupled side.
        let mut multipliers = 0;
        for i in 0..n {
            let coupled = bounds.coupling_of(i).is_some();
            if coupled || hi[i] > 0.0 {
                self.plus[i] = self.signs.len();
                self.signs.push((i, 1.0));
                multipliers += usize::from(!coupled && hi[i].is_finite());
            }
            if coupled || lo[i] < 0.0 {
                self.minus[i] = self.signs.len();
                self.signs.push((i, -1.0));
                multipliers += usize::from(!coupled && lo[i].is_finite());
            }
            multipliers += usize::from(coupled);
        }
        let ns = self.signs.len();
        let dim = ns + multipliers;
        let (mut m, mut q) = match self.lcp.take() {
            Some(l) if l.dim() == dim => {
                let (mut m, q) = l.into_parts();
                m.fill(0.0);
                (m, q)
            }
            _ => (Mat::zeros(dim, dim), vec![0.0; dim]),
        };
        // The sign block s_a s_b M[i_a, i_b] and q, and ||lifted M||_max.
        let src = p.lcp();
        let mut m_max = 0.0_f64;
        for (b, &(ib, sb)) in self.signs.iter().enumerate() {
            let col = src.col(ib);
            let dst = m.col_as_slice_mut(b);
            for (a, &(ia, sa)) in self.signs.iter().enumerate() {
                let x = sa * sb * col[ia];
                dst[a] = x;
                m_max = if x.abs() > m_max { x.abs() } else { m_max };
            }
        }
        for (a, &(ia, sa)) in self.signs.iter().enumerate() {
            q[a] = sa * src.q()[ia];
        }
        // Multiplier rows and columns, each weighted by its row's scale.
        let mut l = ns;
        for i in 0..n {
            let (pl, mi) = (self.plus[i], self.minus[i]);
            let s = weight(src, i, p.bounds());
            if let Some(c) = bounds.coupling_of(i) {
                m[(pl, l)] = s;
                m[(mi, l)] = s;
                m[(l, self.plus[c.normal_row])] = s * c.mu;
                m_max = m_max.max(s).max(s * c.mu);
                m[(l, pl)] = -s;
                m[(l, mi)] = -s;
                q[l] = 0.0;
                l += 1;
                continue;
            }
            for (v, sign, bound) in [(pl, 1.0, hi[i]), (mi, -1.0, lo[i])] {
                if v != NONE && bound.is_finite() {
                    m[(v, l)] = s;
                    m[(l, v)] = -s;
                    q[l] = sign * s * bound;
                    m_max = m_max.max(s);
                    l += 1;
                }
            }
        }
        debug_assert_eq!(l, dim);
        if let Some((z, w, basic)) = warm {
            self.basic_of(p, z, w, basic);
            debug_assert_eq!(basic.len(), dim);
        }
        // Every entry is a finite entry of the validated problem, its
        // negation, or a power of two (the weight) times a finite bound,
        // mu, 0 or 1; `weight` keeps the products finite.
        &*self.lcp.insert(Lcp::from_validated_parts(m, q, m_max))
    }

    /// The lifted basis that the box problem's `z` (with `w = M z + q`)
    /// suggests, as `basic[var]`, for a warm start of Lemke's method: a row
    /// at a bound (within a relative `AT_BOUND`; a friction row's bound is
    /// `mu z_j` at the same `z`) has that side's sign part and multiplier
    /// basic, any other row the sign part of its `z` (none at `z = 0`). A
    /// friction row whose normal is 0 is at the bound its `w` pushes
    /// against (`l = |w_i|`, its sign part basic at 0): with both sign
    /// parts nonbasic its multiplier's block would be singular.
    fn basic_of(&self, p: &BoxLcp, z: &[f64], w: &[f64], basic: &mut Vec<bool>) {
        let bounds = p.bounds();
        let (lo, hi) = (bounds.lo(), bounds.hi());
        let near = |x: f64, bound: f64| x >= bound * (1.0 - AT_BOUND);
        // (at the upper bound, at the lower bound) of row i.
        let side = |i: usize| match bounds.coupling_of(i) {
            Some(c) => {
                let r = c.mu * z[c.normal_row].max(0.0);
                if r > 0.0 {
                    (near(z[i], r), near(-z[i], r))
                } else {
                    (w[i] < 0.0, w[i] > 0.0)
                }
            }
            None => (
                hi[i] > 0.0 && hi[i].is_finite() && near(z[i], hi[i]),
                lo[i] < 0.0 && lo[i].is_finite() && near(-z[i], -lo[i]),
            ),
        };
        basic.clear();
        basic.extend(self.signs.iter().map(|&(i, s)| {
            let (upper, lower) = side(i);
            s * z[i] > 0.0 || if s > 0.0 { upper } else { lower }
        }));
        for i in 0..self.plus.len() {
            let (upper, lower) = side(i);
            if bounds.coupling_of(i).is_some() {
                basic.push(upper || lower);
                continue;
            }
            for (v, bound, at) in [(self.plus[i], hi[i], upper), (self.minus[i], lo[i], lower)] {
                if v != NONE && bound.is_finite() {
                    basic.push(at);
                }
            }
        }
    }

    /// The box problem's `z` (length `n`) from the lifted solution `x`.
    pub(crate) fn box_z(&self, x: &[f64], z: &mut Vec<f64>) {
        let n = self.plus.len();
        z.clear();
        z.resize(n, 0.0);
        for i in 0..n {
            if self.plus[i] != NONE {
                z[i] += x[self.plus[i]];
            }
            if self.minus[i] != NONE {
                z[i] -= x[self.minus[i]];
            }
        }
    }
}

/// The weight of row `i`'s multipliers in the lifted matrix: the power of
/// two nearest the largest entry of row and column `i` of `M` (1 where both
/// are 0), lowered where needed so that it times a finite bound of the row,
/// or its friction coefficient, stays finite. Weighted, the multipliers'
/// entries are of the size of their row of `M`: with 1s, a small `M`
/// (`1e-12`) falls below every tolerance of the equilibrated problem.
fn weight(m: &Lcp, i: usize, bounds: &crate::box_problem::BoxBounds) -> f64 {
    let mut largest = crate::linalg::lane_scan::max_abs(m.col(i));
    for j in 0..m.dim() {
        largest = largest.max(m.col(j)[i].abs());
    }
    let mut s = if largest > 0.0 {
        pow2_round(largest)
    } else {
        1.0
    };
    let mut factor = bounds.coupling_of(i).map_or(0.0, |c| c.mu);
    for b in [bounds.lo()[i], bounds.hi()[i]] {
        if b.is_finite() {
            factor = factor.max(b.abs());
        }
    }
    while s > f64::MIN_POSITIVE && !(s * factor * 4.0).is_finite() {
        s *= 0.5;
    }
    s
}
