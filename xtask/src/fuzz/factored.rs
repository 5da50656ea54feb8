//! The `factored` family of `cargo xtask fuzz`: contact problems given by
//! their factors, `M = J W J' + C` (`contact_lcp::FactoredBoxLcp`), the
//! only problems block principal pivoting takes. Each contact joins a
//! random body to another or to the static ground: a normal row
//! `[0, inf)` and 0 to 2 friction rows coupled to it, on the same two
//! bodies; each body has a full symmetric positive definite inverse mass
//! `W_b = L L'`; some rows have a compliance. `q = J u` plus gaps `>= 0`
//! on the normal rows: the contact problem of a time step, solvable.
//!
//! Every entry is a small dyadic number times a power of two (the scales
//! of `M` and `z`, as in the other families), so the dense `M` that the
//! fuzz's certificate reads is exactly the product of the factors.

use contact_lcp::{BoxBounds, Coupling, FactoredParts, JacobianBlock};

use super::generate::{Bounds, Family, Problem, Rng, SCALE_EXP};

/// A random factored contact problem.
pub(crate) fn factored(rng: &mut Rng) -> Problem {
    let bodies = 1 + rng.below(5);
    let contacts = 1 + rng.below(8);
    let tangents = rng.below(3);
    let sm = rng.pow2(-SCALE_EXP, SCALE_EXP);
    let sz = rng.pow2(-SCALE_EXP, SCALE_EXP);
    let inverse_mass: Vec<[[f64; 6]; 6]> = (0..bodies)
        .map(|_| {
            // Lower triangular with a positive diagonal: L L' is SPD.
            let l: [[f64; 6]; 6] = std::array::from_fn(|r| {
                std::array::from_fn(|c| match c.cmp(&r) {
                    std::cmp::Ordering::Less => rng.dyadic(1),
                    std::cmp::Ordering::Equal => rng.int(1, 8) as f64 / 8.0,
                    std::cmp::Ordering::Greater => 0.0,
                })
            });
            std::array::from_fn(|r| {
                std::array::from_fn(|c| sm * (0..6).map(|k| l[r][k] * l[c][k]).sum::<f64>())
            })
        })
        .collect();
    let inf = f64::INFINITY;
    let (mut rows, mut lo, mut hi, mut couplings) = (vec![], vec![], vec![], vec![]);
    for _ in 0..contacts {
        let a = rng.below(bodies);
        let b = (bodies > 1 && rng.chance(0.7)).then(|| (a + 1 + rng.below(bodies - 1)) % bodies);
        let normal = rows.len();
        let mu = rng.pick(&[0.0, 0.125, 0.25, 0.5, 1.0, 2.0]);
        for t in 0..=tangents {
            let mut block = |body| JacobianBlock {
                body,
                j: [(); 6].map(|()| rng.dyadic(1)),
            };
            rows.push([Some(block(a)), b.map(&mut block)]);
            if t == 0 {
                lo.push(0.0);
            } else {
                lo.push(-inf);
                couplings.push(Coupling {
                    row: normal + t,
                    normal_row: normal,
                    mu,
                });
            }
            hi.push(inf);
        }
    }
    let n = rows.len();
    let compliance: Vec<f64> = (0..n)
        .map(|_| {
            if rng.chance(0.3) {
                sm * rng.int(1, 8) as f64 / 64.0
            } else {
                0.0
            }
        })
        .collect();
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for k in 0..n {
            let mut mik = if i == k { compliance[i] } else { 0.0 };
            for bi in rows[i].iter().flatten() {
                for bk in rows[k].iter().flatten().filter(|bk| bk.body == bi.body) {
                    let w = &inverse_mass[bi.body];
                    for (r, wr) in w.iter().enumerate() {
                        for (c, wrc) in wr.iter().enumerate() {
                            mik += bi.j[r] * wrc * bk.j[c];
                        }
                    }
                }
            }
            m[i * n + k] = mik;
        }
    }
    let u: Vec<[f64; 6]> = (0..bodies)
        .map(|_| [(); 6].map(|()| rng.dyadic(2)))
        .collect();
    let q: Vec<f64> = rows
        .iter()
        .zip(&lo)
        .map(|(blocks, &l)| {
            let ju: f64 = blocks
                .iter()
                .flatten()
                .map(|b| (0..6).map(|k| b.j[k] * u[b.body][k]).sum::<f64>())
                .sum();
            let gap = if l == 0.0 {
                rng.int(0, 4) as f64 / 4.0
            } else {
                0.0
            };
            sm * sz * (ju + gap)
        })
        .collect();
    let bounds = BoxBounds::new(lo.clone(), hi.clone(), couplings.clone())
        .expect("valid bounds by construction");
    Problem {
        family: Family::Factored,
        n,
        m,
        q: q.clone(),
        bounds: Some(Bounds { lo, hi, couplings }),
        solvable: true,
        guaranteed: false,
        witness: None,
        factors: Some(FactoredParts {
            rows,
            inverse_mass,
            compliance,
            q,
            bounds,
        }),
    }
}
