//! The `box` and `friction` families of `cargo xtask fuzz`: bounded
//! problems `lo <= z <= hi` on symmetric or general `M`, and contact-like
//! problems `M = J W J'` whose friction rows are bounded by `mu` times
//! their normal's `z`. Entries are dyadic, as in generate.rs.

use contact_lcp::Coupling;

use super::generate::{
    Bounds, Family, Problem, Rng, SCALE_EXP, gram, q_of, random_q, scaled, size,
};

/// Random bounds for row `i` in z units `sz`, dyadic.
fn random_bounds(rng: &mut Rng, sz: f64) -> (f64, f64) {
    let inf = f64::INFINITY;
    let (a, b) = (
        -sz * rng.int(0, 16) as f64 / 4.0,
        sz * rng.int(0, 16) as f64 / 4.0,
    );
    match rng.below(8) {
        0 => (0.0, inf),
        1 => (-inf, inf),
        2 => (-inf, b),
        3 => (a, inf),
        4 => (0.0, 0.0),
        _ => (a, b),
    }
}

/// A box problem: bounds finite or not, on a symmetric positive definite,
/// rank-deficient or general `M`; random `q` or built around a solution.
pub(super) fn box_problem(rng: &mut Rng) -> Problem {
    let n = size(rng);
    let sz = rng.pow2(-SCALE_EXP, SCALE_EXP);
    let sm = rng.pow2(-SCALE_EXP, SCALE_EXP);
    let (lo, hi): (Vec<f64>, Vec<f64>) = (0..n).map(|_| random_bounds(rng, sz)).unzip();
    let kind = rng.below(3);
    let m = match kind {
        // Symmetric positive definite (dyadic): solvable for any q.
        0 => {
            let a: Vec<f64> = (0..n * n).map(|_| rng.dyadic(1)).collect();
            let mut m = gram(n, n, &a);
            for i in 0..n {
                m[i * n + i] += 0.25;
            }
            m
        }
        // Positive semidefinite, rank deficient.
        1 => {
            let r = 1 + rng.below(n);
            let a: Vec<f64> = (0..n * r).map(|_| rng.dyadic(1)).collect();
            gram(n, r, &a)
        }
        _ => (0..n * n).map(|_| rng.dyadic(2)).collect(),
    };
    let m = scaled(m, sm);
    let bounds = Bounds {
        lo,
        hi,
        couplings: vec![],
    };
    if kind == 0 && rng.chance(0.5) {
        let q = random_q(rng, n, sm * sz);
        return Problem {
            family: Family::Box,
            n,
            m,
            q,
            bounds: Some(bounds),
            solvable: true,
            guaranteed: true,
            witness: None,
            factors: None,
        };
    }
    // Built around a solution: each row at a bound with the matching sign
    // of w, or strictly inside with w = 0.
    let (z, w) = box_pair(rng, &bounds, (sz, sm * sz), |_, _| None);
    let q = q_of(n, &m, &z, &w);
    Problem {
        family: Family::Box,
        n,
        m,
        q,
        bounds: Some(bounds),
        solvable: true,
        // Monotone with a solution: Lemke on the standard form is complete.
        guaranteed: kind < 2,
        witness: Some(z),
        factors: None,
    }
}

/// A box-complementary pair for `bounds` (`z*` in units `sz`, `w*` in
/// units `sw`, dyadic): each row at a finite bound with `w` of the
/// matching sign, or strictly inside with `w = 0`. `coupled(i, z)` gives a
/// coupled row's bounds from the `z` built so far (normals come first).
fn box_pair(
    rng: &mut Rng,
    bounds: &Bounds,
    (sz, sw): (f64, f64),
    coupled: impl Fn(usize, &[f64]) -> Option<(f64, f64)>,
) -> (Vec<f64>, Vec<f64>) {
    let n = bounds.lo.len();
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    for i in 0..n {
        let (lo, hi) = coupled(i, &z).unwrap_or((bounds.lo[i], bounds.hi[i]));
        let push = sw * rng.int(0, 16) as f64 / 4.0;
        let step = sz * rng.int(1, 16) as f64 / 4.0;
        match rng.below(3) {
            _ if lo == hi => {
                z[i] = lo;
                w[i] = if rng.chance(0.5) { push } else { -push };
            }
            0 if lo.is_finite() => (z[i], w[i]) = (lo, push),
            1 if hi.is_finite() => (z[i], w[i]) = (hi, -push),
            _ => {
                z[i] = match (lo.is_finite(), hi.is_finite()) {
                    (true, true) => lo + (hi - lo) * rng.int(1, 7) as f64 / 8.0,
                    (true, false) => lo + step,
                    (false, true) => hi - step,
                    (false, false) => sz * rng.dyadic(2),
                };
            }
        }
    }
    (z, w)
}

/// A contact-like problem `M = J W J'` with friction rows coupled to their
/// normals: a time step's `q`, or one built around a solution.
pub(super) fn friction(rng: &mut Rng) -> Problem {
    let contacts = 1 + rng.below(8);
    let tangents = 1 + rng.below(2);
    let n = contacts * (1 + tangents);
    let bodies = 1 + rng.below(3);
    let dof = 6 * bodies;
    // Rows: each contact's normal, then its tangents.
    let j: Vec<f64> = (0..n * dof).map(|_| rng.dyadic(1)).collect();
    let weights: Vec<f64> = (0..dof).map(|_| rng.pow2(-3, 3)).collect();
    let mut m = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            m[a * n + b] = (0..dof)
                .map(|k| j[a * dof + k] * weights[k] * j[b * dof + k])
                .sum();
        }
    }
    let sm = rng.pow2(-SCALE_EXP, SCALE_EXP);
    let sz = rng.pow2(-SCALE_EXP, SCALE_EXP);
    let m = scaled(m, sm);
    let inf = f64::INFINITY;
    let (mut lo, hi) = (vec![-inf; n], vec![inf; n]);
    let mut couplings = vec![];
    for c in 0..contacts {
        let normal = c * (1 + tangents);
        lo[normal] = 0.0;
        let mu = rng.pick(&[0.0, 0.125, 0.25, 0.5, 0.75, 1.0, 2.0, 1024.0, 2f64.powi(34)]);
        for t in 1..=tangents {
            couplings.push(Coupling {
                row: normal + t,
                normal_row: normal,
                mu,
            });
        }
    }
    let bounds = Bounds { lo, hi, couplings };
    if rng.chance(0.4) {
        // The contact problem of a time step: q = J v plus gaps >= 0 on
        // the normal rows, for any velocity v. Solvable, and Lemke's
        // method on the standard form (the LCP of Anitescu & Potra 1997)
        // is proven to solve it in exact arithmetic. A known gap: with mu
        // = 2^34 the standard form has rows whose entries differ by mu,
        // beyond what Lemke's tolerances resolve, and the policy fails on
        // some of them beyond its exhaustive search (listed apart in the
        // summary, not counted as failures).
        let huge_mu = bounds.couplings.iter().any(|c| c.mu > 1e9);
        let v: Vec<f64> = (0..dof).map(|_| rng.dyadic(2)).collect();
        let normals: Vec<usize> = bounds.couplings.iter().map(|c| c.normal_row).collect();
        let q = (0..n)
            .map(|a| {
                let jv: f64 = (0..dof).map(|k| j[a * dof + k] * v[k]).sum();
                let gap = if normals.contains(&a) || lo_is_normal(&bounds, a) {
                    rng.int(0, 4) as f64 / 4.0
                } else {
                    0.0
                };
                sm * sz * (jv + gap)
            })
            .collect();
        return Problem {
            family: Family::Friction,
            n,
            m,
            q,
            bounds: Some(bounds),
            solvable: true,
            guaranteed: !huge_mu,
            witness: None,
            factors: None,
        };
    }
    let couplings = bounds.couplings.clone();
    let (z, w) = box_pair(rng, &bounds, (sz, sm * sz), |i, z| {
        couplings.iter().find(|c| c.row == i).map(|c| {
            let r = c.mu * z[c.normal_row].max(0.0);
            (-r, r)
        })
    });
    let q = q_of(n, &m, &z, &w);
    // Any q with a solution: only the exhaustive search is complete here.
    Problem {
        family: Family::Friction,
        n,
        m,
        q,
        bounds: Some(bounds),
        solvable: true,
        guaranteed: false,
        witness: Some(z),
        factors: None,
    }
}

/// Whether row `a` is a contact's normal (bounds `[0, inf)`).
fn lo_is_normal(bounds: &Bounds, a: usize) -> bool {
    bounds.lo[a] == 0.0 && bounds.hi[a] == f64::INFINITY
}
