// The minimum-ratio test of Lemke's method with lexicographic tie-breaking
// (Cline sec. 2.7.1) and tolerances for the numerical troubles of sec. 4.8.3.
//
// With entering column u = B^-1 c and basic values y = B^-1 q~, raising the
// entering variable by x changes y to y - u x. The leaving row is the first
// to reach zero: argmin y_p / u_p over rows with u_p > 0. In exact arithmetic
// ties are broken by the lexicographic rule: compare the rows
// [y_p, (B^-1)_p1, ..., (B^-1)_pn] / u_p column by column and take the
// smallest; this is the simplex method on q~ + (eps, eps^2, ..., eps^n), which
// keeps every row lexicographically positive, so no basis repeats and the
// method cannot cycle.
//
// Floating point changes this (all in the scaled problem, where every entry
// of [I, -M~, -d] and q~ is at most 1; |B^-1_p| below is max_j |(B^-1)_pj|):
//
// 1. Pivot candidates (Cline's "u_p < eps" test, made relative): row p is a
//    candidate only if u_p > pivot_tolerance * |B^-1_p| * |c|_max. Smaller
//    u_p are at the level of the rounding error of B^-1 c; dividing a tiny
//    y_p by such a u_p gives a meaningless small ratio.
// 2. Near-ties (Harris' two-pass test): with delta_p = zero_tolerance *
//    |B^-1_p|, let theta* = min (y_p+ + delta_p) / u_p (y_p+ = max(y_p, 0));
//    every candidate with y_p+ / u_p <= theta* is a tie. Whichever tie leaves,
//    no row drops below -delta_p. This answers Cline's open question on
//    near-ties by treating them as ties, and, more importantly, lets the
//    method step past a row whose pivot is tiny: with near-duplicate
//    contacts the exact path runs through nearly singular bases, and a
//    generous delta (default 1e-8) is what keeps the basis well conditioned.
// 3. Choice among ties: if z0 is among them, it leaves (that pivot ends the
//    method with a complementary basis). Otherwise keep the ties whose
//    relative pivot u_p / (|B^-1_p| |c|_max) is within TIE_PIVOT_RATIO of the
//    largest (stability first, as in Harris' rule), then break the remaining
//    ties lexicographically: compare (B^-1)_pj / u_p for j = 1, 2, ... and
//    keep the smallest, values within LEX_TOLERANCE * max_p(|B^-1_p| / u_p)
//    counting as equal. Exact degeneracy (duplicated contacts, many q_i = 0)
//    produces ties with equal pivots, which this resolves as the lexicographic
//    rule does, so such problems do not cycle; near-ties with unequal pivots
//    go to the larger pivot. If ties survive all n levels (rounding noise), the
//    row with the largest relative pivot leaves. The pivot limit bounds the
//    work whatever happens.

use super::tableau::{NONBASIC, Tableau};
use crate::tuning::LEX_TOLERANCE;
use crate::tuning::TIE_PIVOT_RATIO;

impl Tableau {
    /// The row whose variable leaves the basis, or `None` on a ray (no
    /// candidate: the entering variable can grow without bound).
    pub(super) fn leaving_row(
        &mut self,
        pivot_tolerance: f64,
        zero_tolerance: f64,
    ) -> Option<usize> {
        let n = self.n;
        let w = n + 1;
        let tab = &self.tab;
        let u = &self.u;
        let row_norm = &self.row_norm;
        let cand = &mut self.cand;
        let (slot_of, pos) = (&self.slot_of, &self.pos);
        // (B^-1)_p,j-1, see `Tableau::inverse_entry` (j counts from 1 here,
        // column 0 of the compared rows being y).
        let entry = |p: usize, j: usize| match slot_of[j - 1] {
            NONBASIC => f64::from(u8::from(pos[j - 1] == p)),
            s => tab[p * w + 1 + s],
        };

        cand.clear();
        let mut theta_star = f64::INFINITY;
        for p in 0..n {
            let up = u[p];
            if up > 0.0 && up.is_finite() && up > pivot_tolerance * row_norm[p] * self.c_norm {
                let yp = tab[p * w].max(0.0);
                let delta = zero_tolerance * row_norm[p];
                theta_star = theta_star.min((yp + delta) / up);
                cand.push(p);
            }
        }
        if cand.is_empty() || !theta_star.is_finite() {
            return None;
        }
        cand.retain(|&p| tab[p * w].max(0.0) / u[p] <= theta_star);

        let z0_row = self.pos[2 * n];
        if z0_row != NONBASIC && cand.contains(&z0_row) {
            return Some(z0_row);
        }
        let c_norm = self.c_norm;
        let rel = |p: usize| u[p] / (row_norm[p] * c_norm);
        let best_rel = cand.iter().map(|&p| rel(p)).fold(0.0_f64, f64::max);
        cand.retain(|&p| rel(p) >= TIE_PIVOT_RATIO * best_rel);

        for j in 1..w {
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
