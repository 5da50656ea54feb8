// Exhaustive search over the complementary bases of a small box LCP (the
// box LCP of box_problem.rs): the policy's last resort.
//
// In a solution every row is at its lower bound with w_i >= 0, at its upper
// bound with w_i <= 0, or free (w_i = 0) within its bounds (a friction
// row's bounds are -mu z_j and mu z_j). Fixing a state per row (a
// complementary basis) leaves n linear equations A x = b in the unknown z
// (free rows, and friction rows coupled to a normal) and the basis's
// inequalities G x >= h (the free rows' bounds, the signs of the other
// rows' w). The basis holds a solution exactly when the polyhedron
// P = {x : A x = b, G x >= h} is not empty: the complementary cones of
// Murty 1988 (Linear Complementarity, Linear and Nonlinear Programming,
// ch. 1), one of which holds q when the problem has a solution. The search
// tries every basis in lexicographic order and returns the first candidate
// its certificate accepts.
//
// Where A is nonsingular, P is one point or empty: the LU's candidate
// rules the basis in or out. Where A is singular, P may be an affine set
// cut by the inequalities that the least-norm solution of A x = b misses
// (the plain LCP M = [[0, 0], [14336, -5120]], q = [0, -32.5]: its solution
// z = (32.5 / 14336, 0) lies in no nonsingular basis). Then the search
// walks P's minimal faces: a nonempty polyhedron has one, and every
// minimal face is the whole affine set {A x = b, G_S x = h_S} of a set S of
// its inequalities whose rows are independent of each other and of A's,
// |S| = rank [A; G] - rank A (Schrijver 1986, Theory of Linear and Integer
// Programming, sec. 8.5; for a pointed P these are its vertices, the basic
// feasible solutions of Murty 1988, sec. 2.1). The least-norm point of
// each such system is a candidate; when every one misses P, P is empty.
//
// So finding none proves there is no solution (`LcpError::NoSolution`) when
// every basis was ruled out: nonsingular ones by their candidate, singular
// ones by all their faces' candidates, with ranks clear of rounding (no
// singular value between `ZERO_SINGULAR` and `SINGULAR` of the largest)
// and within `EXHAUSTIVE_MAX_FACES`. Otherwise the search proves nothing.
// Cost: at most `EXHAUSTIVE_MAX_BASES` solves of at most
// `EXHAUSTIVE_MAX_ROWS` rows, and `EXHAUSTIVE_MAX_FACES` small SVDs.

use crate::block_pivoting::RowState;
use crate::box_problem::{BoxLcp, clamp};
use crate::box_verify::finish_box_answer;
use crate::linalg::lane_scan::max_abs;
use crate::linalg::lu::BlockLu;
use crate::solution::{LcpSolution, Method};
use crate::tuning::{
    CONSISTENT, DEPENDENT_ROW, EXHAUSTIVE_MAX_FACES, INDEPENDENT_ROW, RULED_OUT, SINGULAR,
    ZERO_SINGULAR,
};
use crate::verify::ACCEPT;

/// The most complementary bases the exhaustive search tries (a product of 2
/// per one-sided row, 3 per two-sided or friction row, 1 per fixed or free
/// row): a plain LCP of 12 rows, a box LCP of 7 two-sided rows. Each basis
/// costs one LU of at most n x n.
pub const EXHAUSTIVE_MAX_BASES: usize = 4096;

/// The most rows a problem searched exhaustively may have, whatever its
/// number of bases: free and fixed rows add no bases but an unknown or an
/// equation each, and a basis's solve (and a singular basis's SVDs) grows as
/// the cube of them; a few contacts among thousands of joint rows are not
/// a small problem.
pub const EXHAUSTIVE_MAX_ROWS: usize = 64;

/// How a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A certified solution is in `out`.
    Solved,
    /// Every basis was ruled out, singular ones on all their faces: there
    /// is no solution.
    NoSolution,
    /// Nothing found, but a basis could not be ruled out (a near miss, an
    /// unclear rank, or the face budget spent).
    Inconclusive,
    /// More than `EXHAUSTIVE_MAX_BASES` bases or `EXHAUSTIVE_MAX_ROWS` rows:
    /// not searched.
    TooLarge,
}

/// The search's workspace.
#[derive(Clone, Debug, Default)]
pub(crate) struct ExhaustiveSearch {
    /// The states each row may take (and how many), the choice per row.
    options: Vec<([RowState; 3], usize)>,
    choice: Vec<usize>,
    lu: BlockLu,
    /// The current basis's scaled equations (column-major).
    system: Vec<f64>,
    rhs: Vec<f64>,
    /// The rows whose z the basis's equations determine, and their values.
    unknown: Vec<usize>,
    x: Vec<f64>,
    /// A refinement step's residual, then correction.
    correction: Vec<f64>,
    z: Vec<f64>,
    w: Vec<f64>,
    small: Vec<usize>,
    /// A singular basis's inequalities `G x >= h` (row-major, one row of
    /// `unknown.len()` per inequality, each scaled to a largest entry of 1).
    ineq: Vec<f64>,
    ineq_rhs: Vec<f64>,
    /// An orthonormal basis (row-major) of the span of A's rows and of the
    /// chosen inequalities' rows; the chosen inequalities.
    ortho: Vec<f64>,
    chosen: Vec<usize>,
    /// A face's system `[A; G_S] x = [b; h_S]` (column-major).
    face: Vec<f64>,
    face_rhs: Vec<f64>,
    /// Faces walked by the last search (`EXHAUSTIVE_MAX_FACES`).
    faces: usize,
    /// Bases tried by the last search.
    pub(crate) bases: usize,
}

impl ExhaustiveSearch {
    /// The number of complementary bases of `problem` (saturating).
    pub(crate) fn count(problem: &BoxLcp) -> usize {
        (0..problem.dim())
            .map(|i| options(problem, i).1)
            .fold(1usize, usize::saturating_mul)
    }

    /// Searches every complementary basis of `problem` (module comment);
    /// on `Solved`, `out` holds the certified answer.
    pub(crate) fn solve(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Outcome {
        self.bases = 0;
        self.faces = 0;
        if problem.dim() > EXHAUSTIVE_MAX_ROWS || Self::count(problem) > EXHAUSTIVE_MAX_BASES {
            return Outcome::TooLarge;
        }
        let n = problem.dim();
        self.options.clear();
        self.options.extend((0..n).map(|i| options(problem, i)));
        self.choice.clear();
        self.choice.resize(n, 0);
        self.lu.set_plain_up_to(usize::MAX);
        let mut proof = true;
        loop {
            self.bases += 1;
            match self.try_basis(problem, out) {
                Candidate::Solution => return Outcome::Solved,
                Candidate::RuledOut => {}
                Candidate::Unsure => proof = false,
            }
            // The next basis, odometer order (row 0 fastest).
            let mut i = 0;
            while i < n && self.choice[i] + 1 == self.options[i].1 {
                self.choice[i] = 0;
                i += 1;
            }
            if i == n {
                return match proof {
                    true => Outcome::NoSolution,
                    false => Outcome::Inconclusive,
                };
            }
            self.choice[i] += 1;
        }
    }

    /// The state of row `i` in the current basis.
    fn state(&self, i: usize) -> RowState {
        self.options[i].0[self.choice[i]]
    }

    /// Solves the current basis's equations and checks its candidate.
    fn try_basis(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Candidate {
        let n = problem.dim();
        let lcp = problem.lcp();
        let bounds = problem.bounds();
        // Rows at an uncoupled bound have their z; the others (free, or
        // coupled to a normal) are the unknowns, in `self.unknown`.
        self.z.clear();
        self.z.resize(n, 0.0);
        self.unknown.clear();
        for i in 0..n {
            match (self.state(i), bounds.coupling_of(i)) {
                (RowState::Free, _) | (_, Some(_)) => self.unknown.push(i),
                (side, None) => {
                    let (lo, hi) = (bounds.lo()[i], bounds.hi()[i]);
                    self.z[i] = if side == RowState::Upper { hi } else { lo };
                }
            }
        }
        let k = self.unknown.len();
        let a = self.lu.reset(k);
        self.rhs.clear();
        for (r, &i) in self.unknown.iter().enumerate() {
            // Row r of the column-major k x k matrix: a[r + k c].
            let b = match (self.options[i].0[self.choice[i]], bounds.coupling_of(i)) {
                (RowState::Free, _) => {
                    let mut b = -lcp.q()[i];
                    for j in 0..n {
                        b -= lcp.col(j)[i] * self.z[j];
                    }
                    for (c, &j) in self.unknown.iter().enumerate() {
                        a[r + k * c] = lcp.col(j)[i];
                    }
                    b
                }
                (side, Some(c)) => {
                    // z_i = mu z_j at the upper bound, -mu z_j at the lower.
                    let sign = if side == RowState::Upper { -1.0 } else { 1.0 };
                    a[r + k * r] = 1.0;
                    match self.unknown.iter().position(|&j| j == c.normal_row) {
                        Some(col) => {
                            a[r + k * col] = sign * c.mu;
                            0.0
                        }
                        None => -sign * c.mu * self.z[c.normal_row],
                    }
                }
                (_, None) => unreachable!("a row at an uncoupled bound is known"),
            };
            // Each row divided by its largest entry: rows of M and the unit
            // rows of the bounds may differ by many orders, which the LU's
            // singularity test (relative to the largest entry) must not see.
            let largest = (0..k).fold(0.0_f64, |m, c| m.max(a[r + k * c].abs()));
            let d = if largest > 0.0 { largest } else { 1.0 };
            for c in 0..k {
                a[r + k * c] /= d;
            }
            self.rhs.push(b / d);
        }
        // Kept for the refinement and a singular basis (the LU overwrites
        // `a`).
        self.system.clear();
        self.system.extend_from_slice(a);
        if !self.lu.factor_listing_small(SINGULAR, &mut self.small) {
            return Candidate::Unsure;
        }
        // A small pivot: singular, or nearly so (the SVD tells).
        if !self.small.is_empty() {
            return self.singular_basis(problem, out);
        }
        self.lu_candidate(problem, out)
    }

    /// The LU's solution of the basis's equations, refined, judged.
    fn lu_candidate(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Candidate {
        self.x.clone_from(&self.rhs);
        self.lu.solve(&mut self.x);
        self.refine(self.unknown.len());
        self.place();
        self.judge(problem, out)
    }

    /// A singular basis (module comment): the least-norm solution of its
    /// equations, then the search of its feasible set's minimal faces.
    fn singular_basis(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Candidate {
        let k = self.unknown.len();
        let Some(a) = least_squares(
            k,
            &self.system,
            &self.rhs,
            &mut self.x,
            Some(&mut self.ortho),
        ) else {
            return Candidate::Unsure;
        };
        let miss = residual_miss(k, &self.system, &self.rhs, &self.x);
        // Of full numerical rank (a small pivot from columns of very
        // different sizes: a friction row at mu z_n, mu = 2^34), the LU's
        // refined candidate is the one point, more accurate than the SVD's.
        // Of lower rank it is an arbitrary point of the set, huge along a
        // null direction, which the scaled certificate can accept on a
        // problem without solution (fuzz, seed 1: 1946 such answers in
        // 200000 problems, 15 without): not offered.
        if a.rank == k {
            let least_norm = self.x.clone();
            if self.lu_candidate(problem, out) == Candidate::Solution {
                return Candidate::Solution;
            }
            self.x = least_norm;
        }
        if miss <= CONSISTENT {
            self.place();
            if self.judge(problem, out) == Candidate::Solution {
                return Candidate::Solution;
            }
        }
        if !a.clear {
            return Candidate::Unsure;
        }
        // An overflowed least-squares solution proves nothing.
        if miss.is_nan() {
            return Candidate::Unsure;
        }
        // No x solves the equations (the least-squares one misses most
        // closely): no face does either.
        if miss > RULED_OUT {
            return Candidate::RuledOut;
        }
        self.inequalities(problem);
        // rank [A; G]: the rank of every minimal face's system.
        let m = self.ineq_rhs.len();
        self.face.clear();
        self.face.resize((k + m) * k, 0.0);
        for c in 0..k {
            let col = &mut self.face[(k + m) * c..(k + m) * (c + 1)];
            col[..k].copy_from_slice(&self.system[k * c..k * (c + 1)]);
            for (l, x) in col[k..].iter_mut().enumerate() {
                *x = self.ineq[l * k + c];
            }
        }
        self.face_rhs.clear();
        self.face_rhs.resize(k + m, 0.0);
        let mut scratch = Vec::new();
        let all = least_squares(k, &self.face, &self.face_rhs, &mut scratch, None);
        let Some(all) = all.filter(|all| all.clear && all.rank >= a.rank) else {
            return Candidate::Unsure;
        };
        self.chosen.clear();
        let mut walk = Walk {
            rank: all.rank,
            leaves: 0,
            unsure: false,
        };
        if self.walk_faces(problem, out, 0, all.rank - a.rank, &mut walk) {
            return Candidate::Solution;
        }
        match walk.unsure || walk.leaves == 0 {
            true => Candidate::Unsure,
            false => Candidate::RuledOut,
        }
    }

    /// The basis's inequalities `G x >= h` in the unknowns (see `ineq`):
    /// the bounds of its free rows (a friction row's `-mu z_j <= z_i <= mu
    /// z_j`), the sign of `w` of its rows at a bound. A row at a bound whose
    /// bounds meet (fixed, a friction row of mu = 0 or of a known normal
    /// z_j = 0) has none; a friction row's sign of `w` is kept where z_j is
    /// unknown: its solutions with z_j = 0 lie in the basis with the normal
    /// at its bound, searched in turn. A row without unknowns is left out
    /// (a constant, which `judge` checks on every candidate).
    fn inequalities(&mut self, problem: &BoxLcp) {
        let (lcp, bounds) = (problem.lcp(), problem.bounds());
        let k = self.unknown.len();
        self.ineq.clear();
        self.ineq_rhs.clear();
        let mut row = vec![0.0; k];
        for i in 0..problem.dim() {
            let col = |j: usize| self.unknown.binary_search(&j).ok();
            let state = self.state(i);
            // Bounds: `e_i (+ mu e_j) >= h_0` and `-e_i (+ mu e_j) >= h_1`.
            let mut rows: [Option<f64>; 2] = [None, None];
            row.fill(0.0);
            match (state, bounds.coupling_of(i)) {
                (RowState::Free, None) => {
                    let (lo, hi) = (bounds.lo()[i], bounds.hi()[i]);
                    rows = [lo.is_finite().then_some(lo), hi.is_finite().then_some(-hi)];
                }
                (RowState::Free, Some(c)) => {
                    // z_i + mu z_j >= 0 and mu z_j - z_i >= 0.
                    match col(c.normal_row) {
                        Some(_) => rows = [Some(0.0), Some(0.0)],
                        None => {
                            let r = -c.mu * self.z[c.normal_row];
                            rows = [Some(r), Some(r)];
                        }
                    }
                }
                (_, None) if bounds.lo()[i] == bounds.hi()[i] => {}
                (_, Some(c)) if c.mu == 0.0 => {}
                (_, Some(c)) if col(c.normal_row).is_none() && self.z[c.normal_row] <= 0.0 => {}
                (side, _) => {
                    // w_i = M_iU x + q_i + M_iK z_K: >= 0 at the lower bound.
                    let mut known = lcp.q()[i];
                    for j in 0..problem.dim() {
                        match col(j) {
                            Some(c) => row[c] = lcp.col(j)[i],
                            None => known += lcp.col(j)[i] * self.z[j],
                        }
                    }
                    let sign = if side == RowState::Upper { -1.0 } else { 1.0 };
                    row.iter_mut().for_each(|x| *x *= sign);
                    push_inequality(&mut self.ineq, &mut self.ineq_rhs, &row, -sign * known);
                    continue;
                }
            }
            for (h, s) in rows.into_iter().zip([1.0, -1.0]) {
                let Some(h) = h else { continue };
                row.fill(0.0);
                row[col(i).expect("a free or coupled row is an unknown")] = s;
                if let Some(c) = bounds.coupling_of(i)
                    && let Some(cj) = col(c.normal_row)
                {
                    row[cj] = c.mu;
                }
                push_inequality(&mut self.ineq, &mut self.ineq_rhs, &row, h);
            }
        }
    }

    /// Chooses `need` more inequalities, from `start` on, each independent
    /// of A's rows and of those chosen (`ortho`); at a full set, tries its
    /// face. True when a face held a certified solution (in `out`).
    fn walk_faces(
        &mut self,
        problem: &BoxLcp,
        out: &mut LcpSolution,
        start: usize,
        need: usize,
        walk: &mut Walk,
    ) -> bool {
        if need == 0 {
            walk.leaves += 1;
            return self.try_face(problem, out, walk);
        }
        let k = self.unknown.len();
        let m = self.ineq_rhs.len();
        for l in start..m {
            if m - l < need {
                break;
            }
            if self.faces >= EXHAUSTIVE_MAX_FACES {
                walk.unsure = true;
                return false;
            }
            self.faces += 1;
            // Row l minus its projection on the span (twice: rounding).
            let g = &self.ineq[l * k..(l + 1) * k];
            let mut r = g.to_vec();
            for _ in 0..2 {
                for q in self.ortho.chunks_exact(k) {
                    let d: f64 = r.iter().zip(q).map(|(a, b)| a * b).sum();
                    r.iter_mut().zip(q).for_each(|(a, b)| *a -= d * b);
                }
            }
            let norm = r.iter().map(|x| x * x).sum::<f64>().sqrt();
            let g_norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm <= INDEPENDENT_ROW * g_norm {
                if norm > DEPENDENT_ROW * g_norm {
                    walk.unsure = true;
                }
                continue;
            }
            let t = self.ortho.len();
            self.ortho.extend(r.iter().map(|x| x / norm));
            self.chosen.push(l);
            if self.walk_faces(problem, out, l + 1, need - 1, walk) {
                return true;
            }
            self.chosen.pop();
            self.ortho.truncate(t);
        }
        false
    }

    /// The face of the chosen inequalities: the least-norm solution of
    /// `[A; G_S] x = [b; h_S]`, judged. A face whose system has the rank of
    /// a minimal face, clear of rounding, and whose candidate misses its
    /// equations or the basis's inequalities by more than `RULED_OUT` holds
    /// no point of P; any other miss leaves `walk.unsure`.
    fn try_face(&mut self, problem: &BoxLcp, out: &mut LcpSolution, walk: &mut Walk) -> bool {
        let k = self.unknown.len();
        let rows = k + self.chosen.len();
        self.face.clear();
        self.face.resize(rows * k, 0.0);
        for c in 0..k {
            let col = &mut self.face[rows * c..rows * (c + 1)];
            col[..k].copy_from_slice(&self.system[k * c..k * (c + 1)]);
            for (x, &l) in col[k..].iter_mut().zip(&self.chosen) {
                *x = self.ineq[l * k + c];
            }
        }
        self.face_rhs.clone_from(&self.rhs);
        self.face_rhs
            .extend(self.chosen.iter().map(|&l| self.ineq_rhs[l]));
        let Some(ls) = least_squares(k, &self.face, &self.face_rhs, &mut self.x, None) else {
            walk.unsure = true;
            return false;
        };
        if !ls.clear || ls.rank != walk.rank {
            walk.unsure = true;
        }
        let miss = residual_miss(k, &self.face, &self.face_rhs, &self.x);
        if miss.is_nan() {
            walk.unsure = true;
            return false;
        }
        if miss > RULED_OUT {
            return false;
        }
        self.place();
        match self.judge(problem, out) {
            Candidate::Solution => true,
            Candidate::RuledOut => false,
            Candidate::Unsure => {
                walk.unsure = true;
                false
            }
        }
    }

    /// Two steps of iterative refinement of `self.x` against the kept system
    /// (`x += A^-1 (b - A x)`): where the unknowns differ by many orders (a
    /// friction row at `mu z_n` with mu = 2^34) the LU's answer alone fails
    /// the certificate.
    fn refine(&mut self, k: usize) {
        for _ in 0..2 {
            self.correction.clear();
            self.correction.extend((0..k).map(|r| {
                let ax: f64 = (0..k).map(|c| self.system[r + k * c] * self.x[c]).sum();
                self.rhs[r] - ax
            }));
            self.lu.solve(&mut self.correction);
            for (x, d) in self.x.iter_mut().zip(&self.correction) {
                *x += d;
            }
        }
    }

    /// Copies the unknowns `self.x` into their rows of `self.z`.
    fn place(&mut self) {
        for (&i, &x) in self.unknown.iter().zip(&self.x) {
            self.z[i] = x;
        }
    }

    /// Checks the candidate `self.z` of the current basis against the
    /// basis's inequalities, then the certificate (into `out`).
    fn judge(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> Candidate {
        let n = problem.dim();
        let (lcp, bounds) = (problem.lcp(), problem.bounds());
        if self.z.iter().any(|x| !x.is_finite()) {
            return Candidate::Unsure;
        }
        // The basis's inequalities, scaled as the certificate scales.
        self.w.clear();
        self.w.resize(n, 0.0);
        lcp.affine(&self.z, &mut self.w);
        let m_norm = lcp.m_max_abs();
        let z_inf = max_abs(&self.z);
        let scale = (m_norm * z_inf).max(lcp.q_max_abs());
        let z_scale = z_inf.max(if m_norm > 0.0 { scale / m_norm } else { 0.0 });
        let (scale, z_scale) = (positive_or_one(scale), positive_or_one(z_scale));
        let mut miss = 0.0_f64;
        for i in 0..n {
            let (lo, hi) = bounds.effective(i, &self.z);
            let (zi, wi) = (self.z[i], self.w[i]);
            // A row whose bounds meet (fixed, or a friction row of a zero
            // normal) takes w of either sign.
            let m = match self.state(i) {
                RowState::Free => (zi - clamp(zi, lo, hi)).abs() / z_scale,
                _ if lo == hi => 0.0,
                RowState::Lower => (-wi).max(0.0) / scale,
                RowState::Upper => wi.max(0.0) / scale,
            };
            miss = miss.max(m);
        }
        // (miss is finite: z and w are.)
        if miss > RULED_OUT {
            return Candidate::RuledOut;
        }
        out.z.clone_from(&self.z);
        finish_box_answer(problem, out);
        out.method = Method::ExhaustiveSearch;
        out.pivots = 0;
        out.iterations = self.bases;
        if out.report.is_solution(ACCEPT) {
            Candidate::Solution
        } else {
            Candidate::Unsure
        }
    }
}

/// A least-squares solve: the numerical rank, and whether it is clear of
/// rounding (no singular value between `ZERO_SINGULAR` and `SINGULAR` of
/// the largest).
#[derive(Clone, Copy, Debug)]
struct Rank {
    rank: usize,
    clear: bool,
}

/// The least-squares solution of least norm of the column-major system
/// `a x = b` of `b.len() >= n` rows and `n` columns, into `x`, by the SVD
/// (singular values at most `ZERO_SINGULAR` of the largest count as 0);
/// with `row_space`, an orthonormal basis of `a`'s rows (row-major). `None`
/// when the SVD fails.
fn least_squares(
    n: usize,
    a: &[f64],
    b: &[f64],
    x: &mut Vec<f64>,
    row_space: Option<&mut Vec<f64>>,
) -> Option<Rank> {
    let rows = b.len();
    x.clear();
    x.resize(n, 0.0);
    if n == 0 {
        return Some(Rank {
            rank: 0,
            clear: true,
        });
    }
    let svd = faer::MatRef::from_column_major_slice(a, rows, n)
        .thin_svd()
        .ok()?;
    let (u, s, v) = (svd.U(), svd.S().column_vector(), svd.V());
    // (rows >= n here; with fewer, the SVD has `rows` values.)
    let values = rows.min(n);
    let s_max = (0..values).fold(0.0_f64, |m, k| m.max(s[k]));
    let kept: Vec<usize> = (0..values)
        .filter(|&k| s[k] > ZERO_SINGULAR * s_max)
        .collect();
    let clear = (0..values).all(|k| s[k] <= ZERO_SINGULAR * s_max || s[k] >= SINGULAR * s_max);
    for &k in &kept {
        let y = (0..rows).map(|i| u[(i, k)] * b[i]).sum::<f64>() / s[k];
        for (i, xi) in x.iter_mut().enumerate() {
            *xi += v[(i, k)] * y;
        }
    }
    if let Some(basis) = row_space {
        basis.clear();
        for &k in &kept {
            basis.extend((0..n).map(|i| v[(i, k)]));
        }
    }
    Some(Rank {
        rank: kept.len(),
        clear,
    })
}

/// How far `x` is from solving the column-major system `a x = b` (`n`
/// columns): `max |a x - b| / (|x| + |b|)`; NaN when it overflowed, which
/// proves nothing either way.
fn residual_miss(n: usize, a: &[f64], b: &[f64], x: &[f64]) -> f64 {
    let rows = b.len();
    let worst = (0..rows).fold(0.0_f64, |m, i| {
        let ax: f64 = (0..n).map(|j| a[i + rows * j] * x[j]).sum();
        m.max((ax - b[i]).abs())
    });
    worst / positive_or_one(max_abs(x) + max_abs(b))
}

/// Appends `row x >= h` to `ineq`, `ineq_rhs`, both divided by the row's
/// largest entry (the rank tests compare rows of one size); a zero row is
/// left out.
fn push_inequality(ineq: &mut Vec<f64>, ineq_rhs: &mut Vec<f64>, row: &[f64], h: f64) {
    let largest = max_abs(row);
    if largest > 0.0 && largest.is_finite() {
        ineq.extend(row.iter().map(|x| x / largest));
        ineq_rhs.push(h / largest);
    }
}

/// The state of a walk over a singular basis's faces.
struct Walk {
    /// rank [A; G]: that of a minimal face's system.
    rank: usize,
    /// Faces tried.
    leaves: usize,
    /// Whether a face could not be ruled out.
    unsure: bool,
}

/// What one basis gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Candidate {
    Solution,
    RuledOut,
    Unsure,
}

/// `x` if positive and finite, else 1 (the certificate's convention).
fn positive_or_one(x: f64) -> f64 {
    if x > 0.0 && x.is_finite() { x } else { 1.0 }
}

/// The states row `i` may take, and how many.
fn options(problem: &BoxLcp, i: usize) -> ([RowState; 3], usize) {
    use RowState::{Free, Lower, Upper};
    let bounds = problem.bounds();
    let (lo, hi) = (bounds.lo()[i], bounds.hi()[i]);
    match bounds.coupling_of(i) {
        Some(c) if c.mu > 0.0 => ([Lower, Upper, Free], 3),
        Some(_) => ([Lower; 3], 1),
        None if lo == hi => ([Lower; 3], 1),
        None => match (lo.is_finite(), hi.is_finite()) {
            (true, true) => ([Lower, Upper, Free], 3),
            (true, false) => ([Lower, Free, Free], 2),
            (false, true) => ([Upper, Free, Free], 2),
            (false, false) => ([Free; 3], 1),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::box_problem::Coupling;
    use faer::Mat;

    const INF: f64 = f64::INFINITY;

    fn problem(
        m: Mat<f64>,
        q: Vec<f64>,
        lo: Vec<f64>,
        hi: Vec<f64>,
        c: Option<Coupling>,
    ) -> BoxLcp {
        BoxLcp::new(m, q, lo, hi, c.into_iter().collect()).unwrap()
    }

    /// One row of each kind: plain (2 states), fixed (1), free (1), upper
    /// bound only (2), two-sided (3), a normal (2) and its friction row (3,
    /// or 1 with mu = 0); more than the limit is not searched.
    #[test]
    fn bases_are_counted_per_row() {
        let bounds = |mu: f64| {
            let lo = vec![0.0, 0.0, -INF, -INF, -1.0, 0.0, -INF];
            let hi = vec![INF, 0.0, INF, 2.0, 1.0, INF, INF];
            let c = Coupling {
                row: 6,
                normal_row: 5,
                mu,
            };
            problem(Mat::identity(7, 7), vec![0.0; 7], lo, hi, Some(c))
        };
        assert_eq!(ExhaustiveSearch::count(&bounds(0.5)), 2 * 2 * 3 * 2 * 3);
        assert_eq!(ExhaustiveSearch::count(&bounds(0.0)), 2 * 2 * 3 * 2);
        let plain = problem(
            Mat::identity(13, 13),
            vec![-1.0; 13],
            vec![0.0; 13],
            vec![INF; 13],
            None,
        );
        let mut out = LcpSolution::default();
        let outcome = ExhaustiveSearch::default().solve(&plain, &mut out);
        assert_eq!(outcome, Outcome::TooLarge);
        // One basis, but more rows than a small problem has: not searched,
        // though its answer (z = 1) is one solve away.
        let free = EXHAUSTIVE_MAX_ROWS + 1;
        let joints = problem(
            Mat::identity(free, free),
            vec![-1.0; free],
            vec![-INF; free],
            vec![INF; free],
            None,
        );
        assert_eq!(ExhaustiveSearch::count(&joints), 1);
        let outcome = ExhaustiveSearch::default().solve(&joints, &mut out);
        assert_eq!(outcome, Outcome::TooLarge);
    }

    /// Every row kind in one problem with a unique solution (M = 2 I): the
    /// search finds it, whatever row is at which bound.
    #[test]
    fn the_unique_solution_of_a_mixed_problem_is_found() {
        // w = 2 z + q. Row 0 plain (z = 1), row 1 at its upper bound 0.5
        // (w < 0), row 2 at its lower bound -1 (w > 0), row 3 free (z = -2),
        // row 4 a normal (z = 1.5) whose friction row 5 sticks at its bound
        // mu z_4 = 0.75 (w < 0).
        let c = Coupling {
            row: 5,
            normal_row: 4,
            mu: 0.5,
        };
        let p = problem(
            Mat::from_fn(6, 6, |i, j| if i == j { 2.0 } else { 0.0 }),
            vec![-2.0, -3.0, 4.0, 4.0, -3.0, -5.0],
            vec![0.0, -1.0, -1.0, -INF, 0.0, -INF],
            vec![INF, 0.5, 1.0, INF, INF, INF],
            Some(c),
        );
        let mut out = LcpSolution::default();
        assert_eq!(
            ExhaustiveSearch::default().solve(&p, &mut out),
            Outcome::Solved
        );
        assert_eq!(out.z, vec![1.0, 0.5, -1.0, -2.0, 1.5, 0.75]);
        assert_eq!(out.method, Method::ExhaustiveSearch);
        assert!(out.report.is_solution(1e-15), "{:?}", out.report);
    }
}
