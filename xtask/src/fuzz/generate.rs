//! The random problems of `cargo xtask fuzz`: problem `i` of seed `s` is a
//! function of `(s, i)` alone, so a run's results do not depend on the
//! number of threads, and a failure is reproduced from its index.
//!
//! Each problem belongs to a family and says what is known about it:
//! `solvable` when it has a solution (by theory, or because it was built
//! around one), `guaranteed` when the crate's policy must find it: the
//! problem is of a class one of its methods is proven on (Lemke's method:
//! P-matrix, PSD or monotone and feasible, strictly copositive, the
//! contact LCP of Anitescu & Potra; Lemke-Howson: bimatrix games), or it
//! is small enough for the policy's exhaustive search
//! (`contact_lcp::EXHAUSTIVE_MAX_BASES` complementary bases).
//!
//! Problems built around a solution `z*` take `q = w* - M z*` with `w*`
//! complementary to `z*`. Their entries are small dyadic numbers times a
//! power of two, so `q` is exact and the problem really has `z*` as a
//! solution (a rounded `q` can lose a degenerate solution).

use contact_lcp::{BoxLcp, Coupling, FactoredParts, Lcp, LcpProblem, ProblemFile};

/// The families, in the order the summary prints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Family {
    /// `M = A A' + delta I`, random `q`: a unique solution.
    Spd,
    /// `M = A A'` of rank below `n`: random `q` (maybe infeasible) or
    /// built around a solution.
    PsdRankDeficient,
    /// Random `M`: random `q` (maybe no solution) or built around one.
    NonSymmetric,
    /// `M = A A' + S` with `S` skew (monotone, copositive-plus).
    Monotone,
    /// Diagonally dominant or triangular with a positive diagonal: a unique
    /// solution for every `q`.
    PMatrix,
    /// Non-negative `M`: strictly copositive (positive diagonal, always
    /// solvable) or with zero diagonal (maybe not).
    Copositive,
    /// `M = [[0, A], [B', 0]]`, `A, B > 0`, `q < 0`: a bimatrix game,
    /// always solvable.
    Bimatrix,
    /// Redundant rows, ties `z_i = w_i = 0`, zeros in `q`.
    Degenerate,
    /// Bounds `lo <= z <= hi`, finite or not, on symmetric or general `M`.
    Box,
    /// Contact-like `M = J W J'` with friction rows coupled to normals.
    Friction,
    /// Contact problems given by their factors, `M = J W J' + C` (rows on
    /// at most two bodies, full inverse masses, compliance): factored.rs.
    Factored,
    /// Known to have no solution.
    Infeasible,
    /// Tiny problems at scales far outside 1e-12..1e12: 1e-300..1e300 and
    /// subnormal entries.
    Extreme,
}

impl Family {
    pub(crate) const ALL: [Family; 13] = [
        Family::Spd,
        Family::PsdRankDeficient,
        Family::NonSymmetric,
        Family::Monotone,
        Family::PMatrix,
        Family::Copositive,
        Family::Bimatrix,
        Family::Degenerate,
        Family::Box,
        Family::Friction,
        Family::Factored,
        Family::Infeasible,
        Family::Extreme,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Family::Spd => "spd",
            Family::PsdRankDeficient => "psd-rank-deficient",
            Family::NonSymmetric => "non-symmetric",
            Family::Monotone => "monotone",
            Family::PMatrix => "p-matrix",
            Family::Copositive => "copositive",
            Family::Bimatrix => "bimatrix",
            Family::Degenerate => "degenerate",
            Family::Box => "box",
            Family::Friction => "friction",
            Family::Factored => "factored",
            Family::Infeasible => "infeasible",
            Family::Extreme => "extreme",
        }
    }
}

/// A problem in plain data (row-major `M`), with what is known about it.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    pub(crate) family: Family,
    pub(crate) n: usize,
    /// `M`, row-major.
    pub(crate) m: Vec<f64>,
    pub(crate) q: Vec<f64>,
    /// `None` for a plain LCP.
    pub(crate) bounds: Option<Bounds>,
    pub(crate) solvable: bool,
    pub(crate) guaranteed: bool,
    /// The solution the problem was built around, if it was (read by the
    /// tests, which check the generator with it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) witness: Option<Vec<f64>>,
    /// The factors of `M = J W J' + C` of a factored problem
    /// (factored.rs), which block principal pivoting takes.
    pub(crate) factors: Option<FactoredParts>,
}

/// Box bounds and friction couplings.
#[derive(Clone, Debug)]
pub(crate) struct Bounds {
    pub(crate) lo: Vec<f64>,
    pub(crate) hi: Vec<f64>,
    pub(crate) couplings: Vec<Coupling>,
}

impl Problem {
    /// The problem as the crate takes it (plain or box).
    pub(crate) fn to_crate(&self) -> LcpProblem {
        let lcp = Lcp::from_row_major(self.n, &self.m, &self.q).expect("finite by construction");
        match &self.bounds {
            None => LcpProblem::Plain(lcp),
            Some(b) => {
                let (m, q) = lcp.into_parts();
                LcpProblem::Box(
                    BoxLcp::new(m, q, b.lo.clone(), b.hi.clone(), b.couplings.clone())
                        .expect("valid bounds by construction"),
                )
            }
        }
    }

    /// A problem read from a file (family and knowledge unknown).
    pub(crate) fn from_crate(problem: &LcpProblem) -> Self {
        let (lcp, bounds) = match problem {
            LcpProblem::Plain(lcp) => (lcp, None),
            LcpProblem::Box(b) => (
                b.lcp(),
                Some(Bounds {
                    lo: b.lo().to_vec(),
                    hi: b.hi().to_vec(),
                    couplings: b.couplings().to_vec(),
                }),
            ),
        };
        let n = lcp.dim();
        let m = lcp.m();
        Problem {
            family: Family::Box,
            n,
            m: (0..n * n).map(|k| m[(k / n, k % n)]).collect(),
            q: lcp.q().to_vec(),
            bounds,
            solvable: false,
            guaranteed: false,
            witness: None,
            factors: None,
        }
    }

    /// The problem in the file format (docs/lcp-file-format.md).
    pub(crate) fn to_file(&self) -> ProblemFile {
        ProblemFile::from_problem(&self.to_crate())
    }

    /// `M_ij`.
    pub(crate) fn at(&self, i: usize, j: usize) -> f64 {
        self.m[i * self.n + j]
    }

    /// Effective bounds of row `i` at `z` (a coupled row's from its normal).
    pub(crate) fn effective(&self, i: usize, z: &[f64]) -> (f64, f64) {
        match &self.bounds {
            None => (0.0, f64::INFINITY),
            Some(b) => match b.couplings.iter().find(|c| c.row == i) {
                Some(c) => {
                    let r = if z[c.normal_row] > 0.0 {
                        c.mu * z[c.normal_row]
                    } else {
                        0.0
                    };
                    (-r, r)
                }
                None => (b.lo[i], b.hi[i]),
            },
        }
    }
}

/// SplitMix64 (Steele, Lea & Flood 2014).
pub(crate) struct Rng(u64);

impl Rng {
    /// The generator of problem `index` of `seed`.
    pub(crate) fn for_problem(seed: u64, index: u64) -> Self {
        let mut r = Rng(seed ^ 0x6A09_E667_F3BC_C909);
        let a = r.next();
        let mut r = Rng(a ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next();
        r
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub(crate) fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.unit()
    }

    /// Uniform in `0..k`.
    pub(crate) fn below(&mut self, k: usize) -> usize {
        (self.next() % k as u64) as usize
    }

    /// Uniform in `a..=b`.
    pub(crate) fn int(&mut self, a: i64, b: i64) -> i64 {
        a + (self.next() % (b - a + 1) as u64) as i64
    }

    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Standard normal (Box-Muller).
    pub(crate) fn normal(&mut self) -> f64 {
        let u = 1.0 - self.unit();
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// `10^x` with `x` uniform in `[a, b]`.
    pub(crate) fn decades(&mut self, a: f64, b: f64) -> f64 {
        10f64.powf(self.uniform(a, b))
    }

    /// `2^k`, `k` uniform in `a..=b`.
    pub(crate) fn pow2(&mut self, a: i64, b: i64) -> f64 {
        2f64.powi(self.int(a, b) as i32)
    }

    /// A small dyadic number `k / 8`, `|k| <= 8 * max`.
    pub(crate) fn dyadic(&mut self, max: i64) -> f64 {
        self.int(-8 * max, 8 * max) as f64 / 8.0
    }

    pub(crate) fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Exponent range of the power-of-two scales: 2^40 is about 1e12.
pub(crate) const SCALE_EXP: i64 = 40;

/// The size of a problem: mostly small, some up to 40 rows.
pub(super) fn size(rng: &mut Rng) -> usize {
    match rng.below(10) {
        0..=3 => 1 + rng.below(4),
        4..=7 => 5 + rng.below(8),
        _ => 13 + rng.below(28),
    }
}

/// Problem `index` of `seed`.
pub(crate) fn problem(seed: u64, index: u64) -> Problem {
    let mut rng = Rng::for_problem(seed, index);
    // Weights out of 100.
    let family = match rng.below(100) {
        0..=9 => Family::Spd,
        10..=17 => Family::PsdRankDeficient,
        18..=25 => Family::NonSymmetric,
        26..=31 => Family::Monotone,
        32..=39 => Family::PMatrix,
        40..=45 => Family::Copositive,
        46..=51 => Family::Bimatrix,
        52..=59 => Family::Degenerate,
        60..=74 => Family::Box,
        75..=85 => Family::Friction,
        86..=91 => Family::Factored,
        92..=95 => Family::Infeasible,
        _ => Family::Extreme,
    };
    let mut p = match family {
        Family::Spd => spd(&mut rng),
        Family::PsdRankDeficient => psd_rank_deficient(&mut rng),
        Family::NonSymmetric => non_symmetric(&mut rng),
        Family::Monotone => monotone(&mut rng),
        Family::PMatrix => p_matrix(&mut rng),
        Family::Copositive => copositive(&mut rng),
        Family::Bimatrix => bimatrix(&mut rng),
        Family::Degenerate => degenerate(&mut rng),
        Family::Box => super::box_families::box_problem(&mut rng),
        Family::Friction => super::box_families::friction(&mut rng),
        Family::Factored => super::factored::factored(&mut rng),
        Family::Infeasible => infeasible(&mut rng),
        Family::Extreme => extreme(&mut rng),
    };
    p.family = family;
    // A q that rounded (z* spanning more binary orders than a double
    // holds, as a friction row at 2^34 z_n does) may have lost z* as a
    // solution, and with it the knowledge that there is one.
    if let Some(z) = p.witness.take() {
        if witness_holds(&p, &z) {
            p.witness = Some(z);
        } else {
            (p.solvable, p.guaranteed) = (false, false);
        }
    }
    // A problem with a solution and few enough complementary bases is
    // the policy's to solve, whatever its class (its exhaustive search).
    if p.solvable && !p.guaranteed && bases(&p) <= contact_lcp::EXHAUSTIVE_MAX_BASES {
        p.guaranteed = true;
    }
    p
}

/// Whether `z` solves `p` exactly: `w = M z + q`, summed with compensated
/// products and sums (Ogita, Rump & Oishi 2005: error below about eps^2
/// of the terms' magnitudes, far below the rounding of a q), is 0 where
/// `z` is strictly inside its bounds, of the bound's sign where it is at
/// one, and `z` is within its bounds.
fn witness_holds(p: &Problem, z: &[f64]) -> bool {
    (0..p.n).all(|i| {
        let (mut s, mut c, mut size) = (p.q[i], 0.0, p.q[i].abs());
        for (j, &zj) in z.iter().enumerate() {
            let (prod, e) = super::certify::two_product(p.at(i, j), zj);
            let (t, f) = super::certify::two_sum(s, prod);
            (s, c, size) = (t, c + e + f, size + prod.abs());
        }
        let (w, noise) = (s + c, 4.0 * f64::EPSILON * f64::EPSILON * size);
        let (lo, hi) = p.effective(i, z);
        let inside = z[i] > lo && z[i] < hi;
        z[i] >= lo
            && z[i] <= hi
            && (!inside || w.abs() <= noise)
            && (z[i] != lo || lo == hi || w >= -noise)
            && (z[i] != hi || lo == hi || w <= noise)
    })
}

/// The number of complementary bases of `p` (saturating): per row, 1 if
/// its bounds are equal or both infinite, 2 with one finite bound, 3 with
/// two, 3 for a row coupled with `mu > 0` (at either bound, or free).
pub(crate) fn bases(p: &Problem) -> usize {
    (0..p.n)
        .map(|i| match &p.bounds {
            None => 2,
            Some(b) => match b.couplings.iter().find(|c| c.row == i) {
                Some(c) if c.mu > 0.0 => 3,
                Some(_) => 1,
                None if b.lo[i] == b.hi[i] => 1,
                None => 1 + usize::from(b.lo[i].is_finite()) + usize::from(b.hi[i].is_finite()),
            },
        })
        .fold(1usize, usize::saturating_mul)
}

fn plain(n: usize, m: Vec<f64>, q: Vec<f64>, solvable: bool, guaranteed: bool) -> Problem {
    Problem {
        family: Family::Spd,
        n,
        m,
        q,
        bounds: None,
        solvable,
        guaranteed,
        witness: None,
        factors: None,
    }
}

/// `A A'` for `A` of `n` rows and `r` columns, row-major `n x n`.
pub(super) fn gram(n: usize, r: usize, a: &[f64]) -> Vec<f64> {
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            m[i * n + j] = (0..r).map(|k| a[i * r + k] * a[j * r + k]).sum();
        }
    }
    m
}

/// Multiplies every entry by `s`.
pub(super) fn scaled(mut v: Vec<f64>, s: f64) -> Vec<f64> {
    for x in &mut v {
        *x *= s;
    }
    v
}

/// `w* - M z*` (exact for dyadic data).
pub(super) fn q_of(n: usize, m: &[f64], z: &[f64], w: &[f64]) -> Vec<f64> {
    (0..n)
        .map(|i| w[i] - (0..n).map(|j| m[i * n + j] * z[j]).sum::<f64>())
        .collect()
}

/// A complementary pair `(z*, w*)` of a plain LCP with dyadic entries:
/// each row `z > 0 = w`, `z = 0 < w` or, one time in `ties`, both 0.
fn plain_pair(rng: &mut Rng, n: usize, ties: f64) -> (Vec<f64>, Vec<f64>) {
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    for i in 0..n {
        if rng.chance(ties) {
            continue;
        }
        let v = rng.int(1, 32) as f64 / 8.0;
        if rng.chance(0.5) {
            z[i] = v;
        } else {
            w[i] = v;
        }
    }
    (z, w)
}

/// A problem built around a complementary pair, `M` dyadic and scaled by
/// `sm`, `z*` by `sz` (so `q` by `sm sz`), all powers of two.
fn around_solution(rng: &mut Rng, n: usize, m: Vec<f64>, ties: f64, guaranteed: bool) -> Problem {
    let (sm, sz) = (
        rng.pow2(-SCALE_EXP, SCALE_EXP),
        rng.pow2(-SCALE_EXP, SCALE_EXP),
    );
    let (z, w) = plain_pair(rng, n, ties);
    let m = scaled(m, sm);
    let z = scaled(z, sz);
    let w = scaled(w, sm * sz);
    let q = q_of(n, &m, &z, &w);
    Problem {
        witness: Some(z),
        factors: None,
        ..plain(n, m, q, true, guaranteed)
    }
}

/// Random `q` at a random scale in 1e-12..1e12.
fn any_scale_q(rng: &mut Rng, n: usize) -> Vec<f64> {
    let scale = rng.decades(-12.0, 12.0);
    random_q(rng, n, scale)
}

/// Random `q` at a scale.
pub(super) fn random_q(rng: &mut Rng, n: usize, scale: f64) -> Vec<f64> {
    (0..n).map(|_| scale * rng.normal()).collect()
}

fn spd(rng: &mut Rng) -> Problem {
    let n = size(rng);
    let a: Vec<f64> = (0..n * n).map(|_| rng.normal()).collect();
    let mut m = gram(n, n, &a);
    let delta = rng.decades(-8.0, 0.0) * n as f64;
    for i in 0..n {
        m[i * n + i] += delta;
    }
    let sm = rng.decades(-12.0, 12.0);
    let q = any_scale_q(rng, n);
    plain(n, scaled(m, sm), q, true, true)
}

fn psd_rank_deficient(rng: &mut Rng) -> Problem {
    let n = 2 + size(rng);
    let r = 1 + rng.below(n - 1);
    if rng.chance(0.5) {
        let a: Vec<f64> = (0..n * r).map(|_| rng.dyadic(2)).collect();
        // PSD and feasible: Lemke's method is complete here.
        return around_solution(rng, n, gram(n, r, &a), 0.1, true);
    }
    let a: Vec<f64> = (0..n * r).map(|_| rng.normal()).collect();
    let m = scaled(gram(n, r, &a), rng.decades(-12.0, 12.0));
    let q = any_scale_q(rng, n);
    plain(n, m, q, false, false)
}

fn non_symmetric(rng: &mut Rng) -> Problem {
    let n = size(rng);
    if rng.chance(0.5) {
        let m: Vec<f64> = (0..n * n).map(|_| rng.dyadic(2)).collect();
        return around_solution(rng, n, m, 0.1, false);
    }
    let m: Vec<f64> = (0..n * n).map(|_| rng.normal()).collect();
    let m = scaled(m, rng.decades(-12.0, 12.0));
    let q = any_scale_q(rng, n);
    plain(n, m, q, false, false)
}

fn monotone(rng: &mut Rng) -> Problem {
    let n = size(rng);
    let r = 1 + rng.below(n);
    let a: Vec<f64> = (0..n * r).map(|_| rng.dyadic(2)).collect();
    let mut m = gram(n, r, &a);
    for i in 0..n {
        for j in 0..i {
            let s = rng.dyadic(2);
            m[i * n + j] += s;
            m[j * n + i] -= s;
        }
    }
    if rng.chance(0.5) {
        return around_solution(rng, n, m, 0.1, true);
    }
    let m = scaled(m, rng.pow2(-SCALE_EXP, SCALE_EXP));
    let q = any_scale_q(rng, n);
    plain(n, m, q, false, false)
}

fn p_matrix(rng: &mut Rng) -> Problem {
    let n = size(rng);
    let mut m = vec![0.0; n * n];
    if rng.chance(0.5) {
        // Strictly row diagonally dominant, positive diagonal.
        for i in 0..n {
            let mut off = 0.0;
            for j in 0..n {
                if i != j {
                    m[i * n + j] = rng.normal();
                    off += m[i * n + j].abs();
                }
            }
            m[i * n + i] = off + rng.uniform(0.1, 2.0);
        }
    } else {
        // Upper triangular, positive diagonal, large off-diagonal entries.
        for i in 0..n {
            m[i * n + i] = rng.decades(-2.0, 1.0);
            for j in i + 1..n {
                m[i * n + j] = 10.0 * rng.normal();
            }
        }
    }
    let m = scaled(m, rng.decades(-12.0, 12.0));
    let q = any_scale_q(rng, n);
    plain(n, m, q, true, true)
}

fn copositive(rng: &mut Rng) -> Problem {
    let n = size(rng);
    let strict = rng.chance(0.6);
    let mut m: Vec<f64> = (0..n * n).map(|_| rng.uniform(0.0, 1.0)).collect();
    for i in 0..n {
        m[i * n + i] = if strict { rng.uniform(0.1, 1.0) } else { 0.0 };
    }
    let m = scaled(m, rng.decades(-12.0, 12.0));
    let q = any_scale_q(rng, n);
    plain(n, m, q, strict, strict)
}

fn bimatrix(rng: &mut Rng) -> Problem {
    let (n1, n2) = (1 + rng.below(8), 1 + rng.below(8));
    let n = n1 + n2;
    let mut m = vec![0.0; n * n];
    let (sa, sb) = (rng.decades(-12.0, 12.0), rng.decades(-12.0, 12.0));
    for i in 0..n1 {
        for j in 0..n2 {
            // Row i of A, and column i of B' (B is n1 x n2).
            m[i * n + n1 + j] = sa * rng.uniform(0.05, 1.0);
            m[(n1 + j) * n + i] = sb * rng.uniform(0.05, 1.0);
        }
    }
    let sq = rng.decades(-12.0, 12.0);
    let q = (0..n)
        .map(|_| {
            if rng.chance(0.5) {
                -sq
            } else {
                -sq * rng.uniform(0.1, 1.0)
            }
        })
        .collect();
    plain(n, m, q, true, true)
}

fn degenerate(rng: &mut Rng) -> Problem {
    let n = 2 + size(rng);
    // Redundant contacts: rows of J repeated (or scaled copies).
    let r = 1 + rng.below(n);
    let mut j: Vec<f64> = (0..n * r).map(|_| rng.dyadic(1)).collect();
    for i in 1..n {
        if rng.chance(0.4) {
            let src = rng.below(i);
            let f = rng.pick(&[1.0, 2.0, 0.5, -1.0]);
            for k in 0..r {
                j[i * r + k] = f * j[src * r + k];
            }
        }
    }
    let m = gram(n, r, &j);
    let mut p = around_solution(rng, n, m, 0.4, true);
    // Zeros of q: a tie row with nothing on it.
    for i in 0..n {
        if rng.chance(0.1) && (0..n).all(|k| p.at(i, k) == 0.0) {
            p.q[i] = 0.0;
        }
    }
    p
}

fn infeasible(rng: &mut Rng) -> Problem {
    let n = size(rng);
    let s = rng.decades(-12.0, 12.0);
    if rng.chance(0.5) || n == 1 {
        // A row with w_i = M_ii z_i + q_i, M_ii <= 0 < -q_i, M_ij <= 0.
        let mut m: Vec<f64> = (0..n * n).map(|_| s * rng.normal()).collect();
        let i = rng.below(n);
        for k in 0..n {
            m[i * n + k] = -s * rng.uniform(0.0, 1.0);
        }
        let mut q = random_q(rng, n, s);
        q[i] = -s * rng.uniform(0.1, 1.0);
        return plain(n, m, q, false, false);
    }
    // PSD M = A A' with y > 0, A'y = 0, and y'q < 0: y'(M z + q) < 0.
    let r = 1 + rng.below(n - 1);
    let mut a: Vec<f64> = (0..n * r).map(|_| rng.normal()).collect();
    let y: Vec<f64> = (0..n).map(|_| rng.uniform(0.5, 2.0)).collect();
    // Make the last row of A cancel the others: sum_i y_i a_i = 0.
    for k in 0..r {
        let s: f64 = (0..n - 1).map(|i| y[i] * a[i * r + k]).sum();
        a[(n - 1) * r + k] = -s / y[n - 1];
    }
    let m = scaled(gram(n, r, &a), s);
    let mut q = random_q(rng, n, s);
    // Shift q along y so that y'q = -s.
    let yq: f64 = y.iter().zip(&q).map(|(a, b)| a * b).sum();
    let yy: f64 = y.iter().map(|a| a * a).sum();
    for i in 0..n {
        q[i] -= (yq + s) / yy * y[i];
    }
    plain(n, m, q, false, false)
}

fn extreme(rng: &mut Rng) -> Problem {
    let n = 1 + rng.below(3);
    let scale = match rng.below(3) {
        0 => rng.decades(-300.0, -100.0),
        1 => rng.decades(100.0, 300.0),
        // Subnormal: a few units of the smallest step.
        _ => 5e-324 * rng.int(1, 1 << 20) as f64,
    };
    // Diagonal (or SPD) with q = -M 1 (or a dyadic multiple).
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        m[i * n + i] = scale * rng.int(1, 4) as f64;
    }
    if rng.chance(0.3) && n > 1 {
        m[1] = scale;
        m[n] = scale;
        m[0] = 2.0 * scale * rng.int(1, 2) as f64;
        m[n + 1] = 2.0 * scale * rng.int(1, 2) as f64;
    }
    let z: Vec<f64> = (0..n).map(|_| rng.int(0, 4) as f64).collect();
    let w: Vec<f64> = z
        .iter()
        .map(|&x| if x > 0.0 { 0.0 } else { scale })
        .collect();
    let q = q_of(n, &m, &z, &w);
    if q.iter().any(|x| !x.is_finite()) {
        return plain(1, vec![1.0], vec![-1.0], true, true);
    }
    // (Rounded q when the scale is subnormal: a diagonal positive M keeps
    // it solvable.)
    let diagonal_positive = (0..n).all(|i| m[i * n + i] > 0.0);
    plain(n, m, q, diagonal_positive, diagonal_positive)
}
