//! Test support: a seeded random generator, problem generators whose
//! properties are known by construction, and a brute-force LCP solver.

#![allow(dead_code)]

use contact_lcp::Lcp;
use contact_lcp::faer::Mat;
use contact_lcp::faer::linalg::solvers::Solve;

pub mod contacts;
pub mod factored;
pub mod pyramid;

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, seeded, reproducible across
/// platforms and dependency versions.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform integer in [0, k).
    pub fn below(&mut self, k: usize) -> usize {
        (self.next_u64() % k as u64) as usize
    }

    pub fn mat(&mut self, rows: usize, cols: usize, lo: f64, hi: f64) -> Mat<f64> {
        Mat::from_fn(rows, cols, |_, _| self.range(lo, hi))
    }
}

/// `A A'`.
pub fn gram(a: &Mat<f64>) -> Mat<f64> {
    a * a.transpose()
}

/// Random symmetric positive definite: `A A' + 0.1 I`, A uniform in [-1, 1].
pub fn random_pd(rng: &mut Rng, n: usize) -> Mat<f64> {
    let a = rng.mat(n, n, -1.0, 1.0);
    let mut m = gram(&a);
    for i in 0..n {
        m[(i, i)] += 0.1;
    }
    m
}

/// The box form of a plain LCP with [`random_pd`] `M` and `q` uniform in
/// `[-q_half_width, q_half_width]` (drawn after `M`, in row order).
pub fn random_pd_box(rng: &mut Rng, n: usize, q_half_width: f64) -> contact_lcp::BoxLcp {
    let m = random_pd(rng, n);
    let q = (0..n)
        .map(|_| rng.range(-q_half_width, q_half_width))
        .collect();
    contact_lcp::BoxLcp::from_lcp(&Lcp::new(m, q).unwrap())
}

/// Random non-symmetric P-matrix: strictly row diagonally dominant with a
/// positive diagonal (every principal submatrix is too, so by Gershgorin every
/// principal minor is positive).
pub fn random_p_matrix(rng: &mut Rng, n: usize) -> Mat<f64> {
    let mut m = rng.mat(n, n, -1.0, 1.0);
    for i in 0..n {
        let off: f64 = (0..n).filter(|&j| j != i).map(|j| m[(i, j)].abs()).sum();
        m[(i, i)] = off + rng.range(0.1, 1.0);
    }
    m
}

/// Random rank-deficient PSD: `A A'` with A n x k.
pub fn random_psd(rng: &mut Rng, n: usize, k: usize) -> Mat<f64> {
    gram(&rng.mat(n, k, -1.0, 1.0))
}

/// Copositive-plus, non-symmetric, friction-shaped: `[[P, E], [-E', 0]]`
/// with P = B B' (a x a, rank at most k) PSD and E (a x b) with entries in
/// {0, 1} like the friction-cone blocks. z'Mz = x'Px >= 0, and z'Mz = 0
/// implies Px = 0, i.e. (M + M')z = 0.
pub fn random_friction_form(rng: &mut Rng, a: usize, b: usize, k: usize) -> Mat<f64> {
    let p = gram(&rng.mat(a, k, -1.0, 1.0));
    let n = a + b;
    Mat::from_fn(n, n, |i, j| match (i < a, j < a) {
        (true, true) => p[(i, j)],
        (true, false) => f64::from(u8::from((i + j) % 2 == 0)),
        (false, true) => -f64::from(u8::from((i + j) % 2 == 0)),
        (false, false) => 0.0,
    })
}

/// `q = w* - M z*` for a random complementary pair (z*, w*) >= 0, with a
/// fraction of degenerate indices (z*_i = w*_i = 0): the problem then has at
/// least the solution z*.
pub fn feasible_q(rng: &mut Rng, m: &Mat<f64>) -> (Vec<f64>, Vec<f64>) {
    let n = m.nrows();
    let mut z = vec![0.0; n];
    let mut w = vec![0.0; n];
    for i in 0..n {
        match rng.below(5) {
            0 | 1 => z[i] = rng.range(0.1, 2.0),
            2 | 3 => w[i] = rng.range(0.1, 2.0),
            _ => {}
        }
    }
    let q = (0..n)
        .map(|i| w[i] - (0..n).map(|j| m[(i, j)] * z[j]).sum::<f64>())
        .collect();
    (q, z)
}

/// Every solution of a small LCP by enumerating all 2^n complementary index
/// sets: for each set S, solve `M_SS z_S = -q_S` (full-pivot LU; singular or
/// inconsistent subsystems are skipped), and keep `z` if `z >= 0` and
/// `w = M z + q >= 0` within `1e-9` relative. Near-duplicates (degenerate
/// solutions found from several sets) are merged.
///
/// For a singular principal block only the basic solutions are found; that
/// is enough here (a solvable LCP has a solution whose support block is
/// nonsingular when M is a P-matrix; for other classes the test only checks
/// Lemke against `verify`).
pub fn brute_force(lcp: &Lcp) -> Vec<Vec<f64>> {
    let n = lcp.dim();
    assert!(n <= 16, "brute force is for small problems");
    let m = lcp.m();
    let q = lcp.q();
    let scale = q.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
    let mut found: Vec<Vec<f64>> = Vec::new();
    for mask in 0u32..(1 << n) {
        let s: Vec<usize> = (0..n).filter(|&i| mask & (1 << i) != 0).collect();
        let k = s.len();
        let mut z = vec![0.0; n];
        if k > 0 {
            let mss = Mat::from_fn(k, k, |a, b| m[(s[a], s[b])]);
            let rhs = Mat::from_fn(k, 1, |a, _| -q[s[a]]);
            let sol = mss.full_piv_lu().solve(&rhs);
            let res = &mss * &sol - &rhs;
            let ok = (0..k).all(|a| sol[(a, 0)].is_finite() && res[(a, 0)].abs() <= 1e-10 * scale);
            if !ok {
                continue;
            }
            for (a, &i) in s.iter().enumerate() {
                z[i] = sol[(a, 0)];
            }
        }
        let zmax = z.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
        let tol = 1e-9 * scale.max(zmax);
        if z.iter().any(|&x| x < -tol) {
            continue;
        }
        let w_ok = (0..n).all(|i| {
            let wi = q[i] + (0..n).map(|j| m[(i, j)] * z[j]).sum::<f64>();
            wi >= -tol
        });
        if !w_ok {
            continue;
        }
        let dup = found
            .iter()
            .any(|f| f.iter().zip(&z).all(|(a, b)| (a - b).abs() <= 1e-8 * zmax));
        if !dup {
            found.push(z);
        }
    }
    found
}

/// Max-norm distance between two vectors.
pub fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0, |m, (x, y)| f64::max(m, (x - y).abs()))
}

/// Checks `z` against `all`, the brute-force solutions of a problem that
/// has exactly one (a P-matrix, or SPD with boxes): one solution, and `z`
/// within 1e-9 of it relative to the larger of 1 and its largest entry.
/// `case` names the failing case.
pub fn assert_is_the_unique_solution(z: &[f64], all: &[Vec<f64>], case: usize) {
    assert_eq!(all.len(), 1, "case {case}: {all:?}");
    let scale = all[0].iter().fold(1.0_f64, |a, x| a.max(x.abs()));
    assert!(
        dist(z, &all[0]) <= 1e-9 * scale,
        "case {case}: {z:?} vs {:?}",
        all[0]
    );
}

/// Every solution of a small box LCP without couplings, by enumerating the
/// 3^n assignments of each row to its lower bound, its upper bound or the
/// free set F (an infinite bound is never assigned): solve
/// `M_FF z_F = -(q_F + M_FB z_B)` (full-pivot LU; singular or inconsistent
/// subsystems are skipped), and keep `z` if `z_F` is within its bounds, `w >= 0`
/// on rows at lo and `w <= 0` on rows at hi, within `1e-9` relative.
/// Near-duplicates are merged. For symmetric positive definite M the result
/// is the unique solution.
pub fn brute_force_box(p: &contact_lcp::BoxLcp) -> Vec<Vec<f64>> {
    let n = p.dim();
    assert!(
        n <= 7 && p.couplings().is_empty(),
        "small uncoupled problems only"
    );
    let (m, q, lo, hi) = (p.m(), p.q(), p.lo(), p.hi());
    let fin = |x: f64| if x.is_finite() { x.abs() } else { 0.0 };
    let scale = q
        .iter()
        .chain(lo.iter())
        .chain(hi.iter())
        .fold(1.0_f64, |a, &x| a.max(fin(x)));
    let mut found: Vec<Vec<f64>> = Vec::new();
    'sets: for code in 0..3usize.pow(n as u32) {
        let mut state = vec![0u8; n];
        let mut c = code;
        for s in state.iter_mut() {
            *s = (c % 3) as u8;
            c /= 3;
        }
        let mut z = vec![0.0; n];
        for i in 0..n {
            match state[i] {
                0 if lo[i].is_finite() => z[i] = lo[i],
                1 if hi[i].is_finite() => z[i] = hi[i],
                2 => {}
                _ => continue 'sets,
            }
        }
        let f: Vec<usize> = (0..n).filter(|&i| state[i] == 2).collect();
        let k = f.len();
        if k > 0 {
            let mff = Mat::from_fn(k, k, |a, b| m[(f[a], f[b])]);
            let rhs = Mat::from_fn(k, 1, |a, _| {
                -q[f[a]] - (0..n).map(|j| m[(f[a], j)] * z[j]).sum::<f64>()
            });
            let sol = mff.full_piv_lu().solve(&rhs);
            let res = &mff * &sol - &rhs;
            let ok = (0..k).all(|a| sol[(a, 0)].is_finite() && res[(a, 0)].abs() <= 1e-10 * scale);
            if !ok {
                continue;
            }
            for (a, &i) in f.iter().enumerate() {
                z[i] = sol[(a, 0)];
            }
        }
        let zmax = z.iter().fold(scale, |a, x| a.max(x.abs()));
        let tol = 1e-9 * zmax;
        for i in 0..n {
            let wi = q[i] + (0..n).map(|j| m[(i, j)] * z[j]).sum::<f64>();
            let ok = match state[i] {
                0 => wi >= -tol,
                1 => wi <= tol,
                _ => z[i] >= lo[i] - tol && z[i] <= hi[i] + tol,
            };
            if !ok {
                continue 'sets;
            }
        }
        let dup = found
            .iter()
            .any(|g| g.iter().zip(&z).all(|(a, b)| (a - b).abs() <= 1e-8 * zmax));
        if !dup {
            found.push(z);
        }
    }
    found
}

/// A 2 kg box, half extents (0.5, 0.3, 0.2), resting on the plane z = 0 at its
/// 4 bottom corners, frictionless, one time step h = 0.01 s under g = 9.81:
/// M = J W J' (4 x 4, rank 3), q = J v with v = (0, 0, -h g, 0, 0, 0) (linear
/// then angular). The impulses must stop the box: their sum is m h g.
pub fn box_on_plane() -> (Lcp, f64) {
    let (mass, h, g) = (2.0, 0.01, 9.81);
    let (a, b, c) = (0.5, 0.3, 0.2);
    let inertia = [
        mass / 3.0 * (b * b + c * c),
        mass / 3.0 * (a * a + c * c),
        mass / 3.0 * (a * a + b * b),
    ];
    let w_inv = [
        1.0 / mass,
        1.0 / mass,
        1.0 / mass,
        1.0 / inertia[0],
        1.0 / inertia[1],
        1.0 / inertia[2],
    ];
    let corners = [[a, b, -c], [-a, b, -c], [-a, -b, -c], [a, -b, -c]];
    // Row i: [n', (r x n)'] with n = (0, 0, 1): r x n = (r_y, -r_x, 0).
    let j: Vec<[f64; 6]> = corners
        .iter()
        .map(|r| [0.0, 0.0, 1.0, r[1], -r[0], 0.0])
        .collect();
    let v = [0.0, 0.0, -h * g, 0.0, 0.0, 0.0];
    let m = Mat::from_fn(4, 4, |i, k| {
        (0..6).map(|s| j[i][s] * w_inv[s] * j[k][s]).sum()
    });
    let q = (0..4)
        .map(|i| (0..6).map(|s| j[i][s] * v[s]).sum())
        .collect();
    (Lcp::new(m, q).unwrap(), mass * h * g)
}

/// An LCP built around a planted solution: `m` row-major `n x n`, `q = w*
/// - M z*`, each row of `(z*, w*)` one of `(x, 0)`, `(0, x)`, `(0, 0)`
/// with `x` in `1..=2.75` by quarters (so `q` is exact for dyadic `m`).
pub fn planted_lcp(rng: &mut Rng, n: usize, m: &[f64]) -> Lcp {
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    for i in 0..n {
        let x = 1.0 + rng.below(8) as f64 / 4.0;
        match rng.below(3) {
            0 => z[i] = x,
            1 => w[i] = x,
            _ => {}
        }
    }
    let q: Vec<f64> = (0..n)
        .map(|i| w[i] - (0..n).map(|j| m[i * n + j] * z[j]).sum::<f64>())
        .collect();
    Lcp::from_row_major(n, m, &q).unwrap()
}

/// The largest scaled error of `z` as an answer of the box problem `p`,
/// computed here from the definitions documented on `verify` and
/// `verify_box` (not by the crate's code): `w = M z + q` with compensated
/// sums, scales `max(||M|| ||z||, ||q||)` and `max(||z||, scale / ||M||)`,
/// the bound violation, the sign violation of `w` on unbounded sides, and
/// the complementarity `w+ d(z, lo)`, `w- d(hi, z)` with distances counted
/// up to the scale of `z`. For problems at ordinary scales (1e-150..1e150:
/// no product underflows).
pub fn independent_error(p: &contact_lcp::BoxLcp, z: &[f64]) -> f64 {
    let n = p.dim();
    let (m, q) = (p.m(), p.q());
    let max_abs = |v: &mut dyn Iterator<Item = f64>| v.fold(0.0_f64, |a, x| a.max(x.abs()));
    let m_norm = max_abs(&mut (0..n * n).map(|k| m[(k / n, k % n)]));
    let z_norm = max_abs(&mut z.iter().copied());
    let scale = (m_norm * z_norm).max(max_abs(&mut q.iter().copied()));
    let scale = if scale > 0.0 { scale } else { 1.0 };
    let z_scale = if m_norm > 0.0 {
        z_norm.max(scale / m_norm)
    } else {
        z_norm
    };
    let z_scale = if z_scale > 0.0 { z_scale } else { 1.0 };
    let mut worst = 0.0_f64;
    for i in 0..n {
        // Neumaier's compensated sum of q_i + sum_j M_ij z_j.
        let (mut s, mut c) = (q[i], 0.0);
        for (j, &zj) in z.iter().enumerate() {
            let x = m[(i, j)] * zj;
            let t = s + x;
            c += if s.abs() >= x.abs() {
                (s - t) + x
            } else {
                (x - t) + s
            };
            s = t;
        }
        let wi = s + c;
        let (lo, hi) = match p.couplings().iter().find(|c| c.row == i) {
            Some(c) => {
                let r = c.mu * z[c.normal_row].max(0.0);
                (-r, r)
            }
            None => (p.lo()[i], p.hi()[i]),
        };
        let zi = z[i];
        worst = worst.max((lo - zi).max(zi - hi).max(0.0) / z_scale);
        let (wp, wm) = (wi.max(0.0), (-wi).max(0.0));
        let d = |x: f64| x.abs().min(z_scale);
        let term = |w: f64, bound: f64, side: f64| {
            if bound.is_finite() {
                w * d(side) / (z_scale * scale)
            } else {
                w / scale
            }
        };
        worst = worst.max(term(wm, hi, hi - zi)).max(term(wp, lo, zi - lo));
    }
    worst
}

/// A box problem from `M` (row-major `n x n`), `q`, bounds and couplings.
pub fn box_problem(
    n: usize,
    m: &[f64],
    q: &[f64],
    (lo, hi): (&[f64], &[f64]),
    couplings: Vec<contact_lcp::Coupling>,
) -> contact_lcp::BoxLcp {
    let mat = Mat::from_fn(n, n, |i, j| m[i * n + j]);
    contact_lcp::BoxLcp::new(mat, q.to_vec(), lo.to_vec(), hi.to_vec(), couplings).unwrap()
}

/// A problem stored under `tests/data/` in the problem file format
/// (docs/lcp-file-format.md), read with serde_json alone (so without the
/// crate's `serde` feature): `M`, `q`, and optionally `lo`, `hi` (numbers
/// or "inf" / "-inf"); couplings are not read.
pub fn data_problem(name: &str) -> contact_lcp::BoxLcp {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let number = |x: &serde_json::Value| match x {
        serde_json::Value::String(s) if s == "inf" => f64::INFINITY,
        serde_json::Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        other => other.as_f64().unwrap(),
    };
    let q: Vec<f64> = v["q"].as_array().unwrap().iter().map(number).collect();
    let n = q.len();
    let m: Vec<f64> = v["M"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|row| row.as_array().unwrap().iter().map(number))
        .collect();
    let list = |key: &str, default: f64| -> Vec<f64> {
        v.get(key)
            .and_then(|x| x.as_array())
            .map_or(vec![default; n], |a| a.iter().map(number).collect())
    };
    let (lo, hi) = (list("lo", 0.0), list("hi", f64::INFINITY));
    box_problem(n, &m, &q, (&lo, &hi), vec![])
}

/// Solves `p` once (sizing the workspace), then asserts that three more
/// solves of it touch no allocator and that the answer certifies to `tol`.
pub fn assert_repeated_solves_allocate_nothing(
    d: &mut contact_lcp::Dantzig,
    p: &contact_lcp::BoxLcp,
    tol: f64,
) {
    let mut out = contact_lcp::LcpSolution::default();
    d.solve_into(p, &mut out).unwrap();
    let info = allocation_counter::measure(|| {
        for _ in 0..3 {
            d.solve_into(p, &mut out).unwrap();
        }
    });
    assert_eq!(info.count_total, 0, "{info:?}");
    assert!(out.report.is_solution(tol), "{:?}", out.report);
}
