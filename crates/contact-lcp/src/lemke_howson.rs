// Lemke-Howson's method for the LCP of a bimatrix game: a resort of the
// policy (policy.rs) for problems Lemke's covering vector does not solve.
//
// Problem: w = M z + q, z >= 0, w >= 0, z'w = 0 with M = [[0, A], [B', 0]]
// (A, B of n1 x n2 with positive entries) and q < 0. It always has a solution
// (an equilibrium of the game with costs A and B), but M is copositive, not
// copositive-plus: Lemke's method may end on a secondary ray.
//
// Method: Lemke & Howson 1964 (SIAM J. Appl. Math. 12), as complementary
// pivoting on the LCP (von Stengel 2002, Handbook of Game Theory 3, ch. 45),
// on the tableau w - M z = q with row i divided by -q_i. From z = 0 and a
// label k, raise z_k until the other player's w are all >= 0 (w_r leaves),
// then z_r until k's player's are (w_s leaves): a feasible basis in which
// only pair k may be doubly basic. Then the complement of the variable that
// left enters and the lexicographic minimum-ratio test picks the one that
// leaves, until a variable of pair k leaves (the basis is complementary). The
// final basis is solved afresh (z_F = -M_FF^-1 q_F) and certified; a path that
// fails (a degenerate game, rounding) is retried from the next label.

use crate::box_problem::BoxLcp;
use crate::box_verify::finish_box_answer;
use crate::linalg::lu::BlockLu;
use crate::solution::{LcpSolution, Method};
use crate::tuning::{LEMKE_HOWSON_LEX, LEMKE_HOWSON_PIVOT};
use crate::verify::ACCEPT;

/// The split `n1` of a bimatrix problem (`M = [[0, A], [B', 0]]` with
/// `A, B > 0` entrywise, `q < 0`, no bounds but `z >= 0`), if `problem`
/// is one.
pub(crate) fn bimatrix_split(problem: &BoxLcp) -> Option<usize> {
    let n = problem.dim();
    if n < 2 || !problem.bounds().is_plain() || problem.q().iter().any(|&x| x >= 0.0) {
        return None;
    }
    let lcp = problem.lcp();
    // The first nonzero of row 0 ends the first player's block.
    let n1 = (1..n).find(|&j| lcp.col(j)[0] != 0.0)?;
    let structured = (0..n).all(|j| {
        let col = lcp.col(j);
        (0..n).all(|i| {
            let same_player = (i < n1) == (j < n1);
            if same_player {
                col[i] == 0.0
            } else {
                col[i] > 0.0
            }
        })
    });
    structured.then_some(n1)
}

/// The method's workspace.
#[derive(Clone, Debug, Default)]
pub(crate) struct LemkeHowson {
    /// Row-major n x (2n + 1): columns w_0..w_n-1, z_0..z_n-1, rhs.
    tab: Vec<f64>,
    /// The variable basic in each row (w_i = i, z_i = n + i).
    basis: Vec<usize>,
    lu: BlockLu,
    /// The rows whose z is basic (`finish`).
    rows: Vec<usize>,
    /// The ratio test's candidate rows, each with its tolerance.
    cand: Vec<(usize, f64)>,
    rhs: Vec<f64>,
    /// Pivots of the last solve (all labels).
    pub(crate) pivots: usize,
}

impl LemkeHowson {
    /// Solves the bimatrix problem `problem` (first player's block of
    /// `n1` rows, see [`bimatrix_split`]) into `out`: true when a path
    /// ended on an answer the certificate accepts. At most `max_pivots`
    /// pivots over all the labels tried.
    pub(crate) fn solve(
        &mut self,
        problem: &BoxLcp,
        n1: usize,
        max_pivots: usize,
        out: &mut LcpSolution,
    ) -> bool {
        self.pivots = 0;
        let n = problem.dim();
        for k in 0..n {
            if self.pivots >= max_pivots {
                return false;
            }
            if self.path(problem, n1, k, max_pivots) && self.finish(problem, out) {
                return true;
            }
        }
        false
    }

    /// Loads the tableau `[I, -D M E, -1]` with `D = diag(-1 / q)` and `E`
    /// the diagonal that makes each column of `D M` of largest entry 1:
    /// the rows divided by `-q_i`, each `w_i` and `z_j` scaled alike (which
    /// changes no complementary basis), so that the tolerances of the
    /// ratio test mean the same in every row and column (the two players'
    /// blocks may differ in size by many orders).
    fn load(&mut self, problem: &BoxLcp) {
        let n = problem.dim();
        let width = 2 * n + 1;
        let lcp = problem.lcp();
        self.tab.clear();
        self.tab.resize(n * width, 0.0);
        for i in 0..n {
            let d = -1.0 / lcp.q()[i];
            let row = &mut self.tab[i * width..(i + 1) * width];
            row[i] = 1.0;
            for j in 0..n {
                row[n + j] = -d * lcp.col(j)[i];
            }
            row[2 * n] = -1.0;
        }
        for j in n..2 * n {
            let largest = (0..n).fold(0.0_f64, |m, i| m.max(self.tab[i * width + j].abs()));
            if largest > 0.0 {
                for i in 0..n {
                    self.tab[i * width + j] /= largest;
                }
            }
        }
        self.basis.clear();
        self.basis.extend(0..n);
    }

    /// Exchanges the variable basic in row `r` for `col` (Gauss-Jordan).
    fn pivot(&mut self, n: usize, r: usize, col: usize) -> usize {
        let width = 2 * n + 1;
        let p = self.tab[r * width + col];
        for x in &mut self.tab[r * width..(r + 1) * width] {
            *x /= p;
        }
        for i in 0..n {
            if i == r {
                continue;
            }
            let f = self.tab[i * width + col];
            if f != 0.0 {
                for j in 0..width {
                    let v = self.tab[r * width + j];
                    self.tab[i * width + j] -= f * v;
                }
            }
        }
        self.pivots += 1;
        std::mem::replace(&mut self.basis[r], col)
    }

    /// Lemke-Howson's path from label `k`; true when it ended on a
    /// complementary basis.
    fn path(&mut self, problem: &BoxLcp, n1: usize, k: usize, max_pivots: usize) -> bool {
        let n = problem.dim();
        let width = 2 * n + 1;
        self.load(problem);
        let own = |i: usize| (i < n1) == (k < n1);
        // Raise z_k until the other player's w are all >= 0: the row with
        // the largest rhs / a (both negative) leaves; then likewise z_r
        // against k's player's rows.
        let mut entering = n + k;
        let mut leaving = 0;
        for other in [true, false] {
            let col = entering;
            let r = (0..n).filter(|&i| own(i) != other).max_by(|&a, &b| {
                let ra = self.tab[a * width + 2 * n] / self.tab[a * width + col];
                let rb = self.tab[b * width + 2 * n] / self.tab[b * width + col];
                ra.total_cmp(&rb)
            });
            let Some(r) = r else { return false };
            leaving = self.pivot(n, r, col);
            entering = complement(leaving, n);
        }
        loop {
            if leaving == k || leaving == n + k {
                return true;
            }
            if self.pivots >= max_pivots {
                return false;
            }
            let Some(r) = self.leaving_row(n, entering) else {
                return false;
            };
            leaving = self.pivot(n, r, entering);
            entering = complement(leaving, n);
        }
    }

    /// The minimum ratio test on column `col`, ties broken
    /// lexicographically on the columns of w (B^-1); `None` on a ray. Two
    /// values of rows p and p' tie when they differ by less than
    /// `LEMKE_HOWSON_LEX` times |row p| / a_p plus the same for p' (the
    /// rounding of a row is relative to its largest entry).
    fn leaving_row(&mut self, n: usize, col: usize) -> Option<usize> {
        let width = 2 * n + 1;
        let at = |p: usize, j: usize| self.tab[p * width + j];
        let col_max = (0..n).fold(0.0_f64, |m, p| m.max(at(p, col).abs()));
        self.cand.clear();
        for p in (0..n).filter(|&p| at(p, col) > LEMKE_HOWSON_PIVOT * col_max) {
            let row = &self.tab[p * width..(p + 1) * width];
            let norm = row.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
            self.cand.push((p, LEMKE_HOWSON_LEX * norm / at(p, col)));
        }
        // Column 2n (the rhs) first, then the columns of w.
        for j in std::iter::once(2 * n).chain(0..n) {
            if self.cand.len() <= 1 {
                break;
            }
            let value = |p: usize| at(p, j) / at(p, col);
            let (mut best, mut best_slack) = (f64::INFINITY, 0.0);
            for &(p, slack) in &self.cand {
                if value(p) < best {
                    (best, best_slack) = (value(p), slack);
                }
            }
            self.cand
                .retain(|&(p, slack)| value(p) <= best + best_slack + slack);
        }
        self.cand.first().map(|&(p, _)| p)
    }

    /// Solves the final basis afresh and certifies it into `out`.
    fn finish(&mut self, problem: &BoxLcp, out: &mut LcpSolution) -> bool {
        let n = problem.dim();
        let lcp = problem.lcp();
        // F: the rows whose z is basic.
        self.rows.clear();
        self.rows
            .extend(self.basis.iter().filter(|&&v| v >= n).map(|&v| v - n));
        let k = self.rows.len();
        self.lu.set_plain_up_to(usize::MAX);
        // Each row divided by its largest entry: the two players' blocks
        // may differ in size by many orders, which the LU's singularity
        // test, relative to the largest entry, must not see.
        self.rhs.clear();
        let a = self.lu.reset(k);
        for (r, &i) in self.rows.iter().enumerate() {
            let largest = self
                .rows
                .iter()
                .fold(0.0_f64, |m, &j| m.max(lcp.col(j)[i].abs()));
            if largest == 0.0 {
                return false;
            }
            for (c, &j) in self.rows.iter().enumerate() {
                a[r + k * c] = lcp.col(j)[i] / largest;
            }
            self.rhs.push(-lcp.q()[i] / largest);
        }
        if self.lu.factor().is_err() {
            return false;
        }
        self.lu.solve(&mut self.rhs);
        out.z.clear();
        out.z.resize(n, 0.0);
        for (&i, &x) in self.rows.iter().zip(&self.rhs) {
            out.z[i] = x;
        }
        finish_box_answer(problem, out);
        out.method = Method::LemkeHowson;
        out.pivots = self.pivots;
        out.iterations = 1;
        out.report.is_solution(ACCEPT)
    }
}

/// The complement of variable `v` (w_i <-> z_i).
fn complement(v: usize, n: usize) -> usize {
    if v < n { v + n } else { v - n }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Lcp;

    fn problem(m: &[f64], q: &[f64]) -> BoxLcp {
        BoxLcp::from_lcp(&Lcp::from_row_major(q.len(), m, q).unwrap())
    }

    /// The block structure is recognised, and nothing else: a nonzero in
    /// a diagonal block, a zero off it, a non-negative q or bounds other
    /// than `z >= 0` rule it out.
    #[test]
    fn bimatrix_problems_are_recognised() {
        // n1 = 1, n2 = 2.
        let m = [0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 4.0, 0.0, 0.0];
        assert_eq!(bimatrix_split(&problem(&m, &[-1.0; 3])), Some(1));
        let mut diagonal = m;
        diagonal[4] = 0.5;
        assert_eq!(bimatrix_split(&problem(&diagonal, &[-1.0; 3])), None);
        let mut zero = m;
        zero[6] = 0.0;
        assert_eq!(bimatrix_split(&problem(&zero, &[-1.0; 3])), None);
        assert_eq!(bimatrix_split(&problem(&m, &[-1.0, 0.0, -1.0])), None);
        let lcp = Lcp::from_row_major(3, &m, &[-1.0; 3]).unwrap();
        let (mat, q) = lcp.into_parts();
        let boxed = BoxLcp::new(mat, q, vec![-1.0, 0.0, 0.0], vec![f64::INFINITY; 3], vec![]);
        assert_eq!(bimatrix_split(&boxed.unwrap()), None);
    }

    /// Matching pennies with costs: the unique equilibrium mixes both
    /// strategies, A = [[1, 2], [2, 1]], B = [[2, 1], [1, 2]]: z = (1/3,
    /// 1/3, 1/3, 1/3) (each w row: 1 z_a + 2 z_b - 1 = 0).
    #[test]
    fn a_mixed_equilibrium_is_found() {
        let m = [
            0.0, 0.0, 1.0, 2.0, //
            0.0, 0.0, 2.0, 1.0, //
            2.0, 1.0, 0.0, 0.0, //
            1.0, 2.0, 0.0, 0.0,
        ];
        let p = problem(&m, &[-1.0; 4]);
        let mut out = LcpSolution::default();
        assert!(LemkeHowson::default().solve(&p, 2, 100, &mut out));
        for z in &out.z {
            assert!((z - 1.0 / 3.0).abs() < 1e-15, "{:?}", out.z);
        }
        assert_eq!(out.method, Method::LemkeHowson);
    }
}
