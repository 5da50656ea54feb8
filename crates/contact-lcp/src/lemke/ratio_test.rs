// The minimum-ratio test of Lemke's method with lexicographic tie-breaking
// (Cline sec. 2.7.1) and tolerances for the numerical troubles of sec. 4.8.3.
//
// Raising the entering variable by x changes the basic values y = B^-1 q~ to
// y - u x (u = B^-1 c): the leaving row is argmin y_p / u_p over u_p > 0.
// Exact ties are broken lexicographically on the rows [y_p, (B^-1)_p] / u_p,
// i.e. the method runs on q~ + (eps, ..., eps^n): no basis repeats, so it
// cannot cycle. In floating point (scaled problem, |B^-1_p| = max_j
// |(B^-1)_pj|):
// 1. Row p is a candidate only if u_p > pivot_tolerance |B^-1_p| |c|_max
//    (Cline's "u_p < eps" made relative): smaller u_p are rounding noise.
// 2. Harris' two-pass test: with delta_p = zero_tolerance |B^-1_p| and
//    theta* = min (y_p+ + delta_p) / u_p (y_p+ = max(y_p, 0)), every candidate
//    with y_p+ / u_p <= theta* ties, and no row drops below -delta_p. This
//    steps past tiny pivots: near-duplicate contacts put the exact path
//    through nearly singular bases.
// 3. Among ties z0 leaves if it can (ending the method). Otherwise the ties
//    whose relative pivot u_p / (|B^-1_p| |c|_max) is within TIE_PIVOT_RATIO
//    of the largest stay (stability first), then the lexicographic rule on
//    (B^-1)_pj / u_p, j = 1, 2, ..., values within LEX_TOLERANCE max_p
//    (|B^-1_p| / u_p) counting as equal: exact degeneracy (duplicated
//    contacts, q_i = 0) is resolved as the rule does. Ties that survive all
//    n levels (noise) go to the largest relative pivot. The pivot limit
//    bounds the work whatever happens.

use super::tableau::{NONBASIC, Tableau};
use crate::tuning::{LEX_TOLERANCE, TIE_PIVOT_RATIO};

impl Tableau {
    /// The row whose variable leaves the basis, or `None` on a ray (no
    /// candidate: the entering variable can grow without bound).
    pub(super) fn leaving_row(
        &mut self,
        pivot_tolerance: f64,
        zero_tolerance: f64,
    ) -> Option<usize> {
        let (n, w, c_norm) = (self.n, self.n + 1, self.c_norm);
        let (tab, u, row_norm, cand) = (&self.tab, &self.u, &self.row_norm, &mut self.cand);
        let (slot_of, pos) = (&self.slot_of, &self.pos);
        // (B^-1)_pj, as `Tableau::inverse_entry` reads it.
        let entry = |p: usize, j: usize| match slot_of[j] {
            NONBASIC => f64::from(u8::from(pos[j] == p)),
            s => tab[p * w + 1 + s],
        };
        let value = |p: usize| tab[p * w].max(0.0);

        cand.clear();
        let mut theta_star = f64::INFINITY;
        for p in 0..n {
            let up = u[p];
            if up > 0.0 && up.is_finite() && up > pivot_tolerance * row_norm[p] * c_norm {
                theta_star = theta_star.min((value(p) + zero_tolerance * row_norm[p]) / up);
                cand.push(p);
            }
        }
        if cand.is_empty() || !theta_star.is_finite() {
            return None;
        }
        cand.retain(|&p| value(p) / u[p] <= theta_star);
        if cand.contains(&pos[2 * n]) {
            return Some(pos[2 * n]);
        }
        let rel = |p: usize| u[p] / (row_norm[p] * c_norm);
        let best_rel = cand.iter().map(|&p| rel(p)).fold(0.0_f64, f64::max);
        cand.retain(|&p| rel(p) >= TIE_PIVOT_RATIO * best_rel);
        for j in 0..n {
            if cand.len() <= 1 {
                break;
            }
            let mut v_min = f64::INFINITY;
            let mut lex_scale = 0.0_f64;
            for &p in cand.iter() {
                v_min = v_min.min(entry(p, j) / u[p]);
                lex_scale = lex_scale.max(row_norm[p] / u[p]);
            }
            let tol = LEX_TOLERANCE * lex_scale;
            cand.retain(|&p| entry(p, j) / u[p] <= v_min + tol);
        }
        cand.iter()
            .copied()
            .max_by(|&a, &b| (u[a] / row_norm[a]).total_cmp(&(u[b] / row_norm[b])))
    }
}
