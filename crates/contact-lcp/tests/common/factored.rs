//! Factored box LCPs (`M = J W J' + C`) for the block pivoting tests: random
//! ones with full inverse masses, and the dense problem of any, formed here
//! from the factors.

use super::Rng;
use super::contacts::{block, cross};
use contact_lcp::faer::Mat;
use contact_lcp::{BoxBounds, BoxLcp, Coupling, FactoredParts, JacobianBlock, Lcp};

/// The dense box LCP of `parts`: `M = J W J' + C` formed here from the
/// factors as given (dense `J`, block diagonal `W`), independently of the
/// solver's own products.
pub fn dense_of(parts: &FactoredParts) -> BoxLcp {
    let (n, bodies) = (parts.rows.len(), parts.inverse_mass.len());
    let mut j = Mat::<f64>::zeros(n, 6 * bodies);
    for (i, blocks) in parts.rows.iter().enumerate() {
        for block in blocks.iter().flatten() {
            for k in 0..6 {
                j[(i, 6 * block.body + k)] += block.j[k];
            }
        }
    }
    let mut w = Mat::<f64>::zeros(6 * bodies, 6 * bodies);
    for (b, wb) in parts.inverse_mass.iter().enumerate() {
        for r in 0..6 {
            for c in 0..6 {
                w[(6 * b + r, 6 * b + c)] = wb[r][c];
            }
        }
    }
    let mut m = &j * &w * j.transpose();
    for i in 0..n {
        m[(i, i)] += parts.compliance[i];
    }
    BoxLcp::with_bounds(Lcp::new(m, parts.q.clone()).unwrap(), parts.bounds.clone()).unwrap()
}

/// The shape of a [`random_parts`] problem.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub bodies: usize,
    pub contacts: usize,
    pub bilateral: usize,
    pub interval: usize,
    pub friction: bool,
    /// Probability that a row has a compliance.
    pub compliant: f64,
}

/// A random symmetric positive definite 6 x 6 matrix, `(A A' + 0.1 I) s`
/// with `A` uniform in `[-1, 1]` and `s` log-uniform in `[0.1, 10]`.
pub fn random_spd6(rng: &mut Rng) -> [[f64; 6]; 6] {
    let a: [[f64; 6]; 6] = std::array::from_fn(|_| std::array::from_fn(|_| rng.range(-1.0, 1.0)));
    let s = 10f64.powf(rng.range(-1.0, 1.0));
    std::array::from_fn(|r| {
        std::array::from_fn(|c| {
            let aa: f64 = (0..6).map(|k| a[r][k] * a[c][k]).sum();
            s * (aa + if r == c { 0.1 } else { 0.0 })
        })
    })
}

fn random_unit(rng: &mut Rng) -> [f64; 3] {
    loop {
        let v = [(); 3].map(|()| rng.range(-1.0, 1.0));
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if (0.2..=1.0).contains(&norm) {
            return v.map(|x| x / norm);
        }
    }
}

/// Two distinct bodies, or one and the static ground (`None`).
fn random_pair(rng: &mut Rng, bodies: usize) -> (usize, Option<usize>) {
    let a = rng.below(bodies);
    if bodies == 1 || rng.unit() < 0.3 {
        return (a, None);
    }
    let b = (a + 1 + rng.below(bodies - 1)) % bodies;
    (a, Some(b))
}

pub fn random_block(rng: &mut Rng, body: usize) -> JacobianBlock {
    JacobianBlock {
        body,
        j: [(); 6].map(|()| rng.range(-1.0, 1.0)),
    }
}

/// A random factored problem of `shape`: random SPD inverse masses; each
/// contact a normal row `[0, inf)` along a random direction at random
/// lever arms on a random pair of bodies (or one body and the ground),
/// and with `friction` two friction rows along its tangents coupled with a
/// random `mu`; bilateral rows `(-inf, inf)` and interval rows `[-a, b]`
/// with random blocks. `q = J v` for random body velocities `v`, plus a
/// nonnegative offset on normal rows and any offset on interval and
/// compliant rows: the frictionless problem's QP is then bounded below, so
/// it has a solution.
pub fn random_parts(rng: &mut Rng, shape: Shape) -> FactoredParts {
    let inverse_mass: Vec<_> = (0..shape.bodies).map(|_| random_spd6(rng)).collect();
    let (mut rows, mut lo, mut hi, mut couplings) = (vec![], vec![], vec![], vec![]);
    let mut offset = Vec::new();
    for _ in 0..shape.contacts {
        let (a, b) = random_pair(rng, shape.bodies);
        let n = random_unit(rng);
        let e = if n[0].abs() < 0.5 {
            [1.0, 0.0, 0.0]
        } else {
            [0.0, 1.0, 0.0]
        };
        let t1 = cross(n, e);
        let norm = t1.iter().map(|x| x * x).sum::<f64>().sqrt();
        let t1 = t1.map(|x| x / norm);
        let t2 = cross(n, t1);
        let (ra, rb) = (
            [(); 3].map(|()| rng.range(-1.0, 1.0)),
            [(); 3].map(|()| rng.range(-1.0, 1.0)),
        );
        let normal = rows.len();
        let mu = rng.range(0.1, 1.0);
        let directions: &[[f64; 3]] = if shape.friction { &[n, t1, t2] } else { &[n] };
        for (k, &d) in directions.iter().enumerate() {
            rows.push([Some(block(a, ra, d, 1.0)), b.map(|b| block(b, rb, d, -1.0))]);
            if k == 0 {
                lo.push(0.0);
                hi.push(f64::INFINITY);
                offset.push(if rng.unit() < 0.5 {
                    0.0
                } else {
                    rng.range(0.0, 0.5)
                });
            } else {
                lo.push(f64::NEG_INFINITY);
                hi.push(f64::INFINITY);
                offset.push(0.0);
                couplings.push(Coupling {
                    row: normal + k,
                    normal_row: normal,
                    mu,
                });
            }
        }
    }
    for _ in 0..shape.bilateral {
        let (a, b) = random_pair(rng, shape.bodies);
        rows.push([Some(random_block(rng, a)), b.map(|b| random_block(rng, b))]);
        lo.push(f64::NEG_INFINITY);
        hi.push(f64::INFINITY);
        offset.push(0.0);
    }
    for _ in 0..shape.interval {
        let (a, b) = random_pair(rng, shape.bodies);
        rows.push([Some(random_block(rng, a)), b.map(|b| random_block(rng, b))]);
        lo.push(-rng.range(0.05, 1.0));
        hi.push(rng.range(0.05, 1.0));
        offset.push(rng.range(-1.0, 1.0));
    }
    let n = rows.len();
    let compliance: Vec<f64> = (0..n)
        .map(|_| {
            if rng.unit() < shape.compliant {
                rng.range(1e-3, 0.1)
            } else {
                0.0
            }
        })
        .collect();
    let v: Vec<[f64; 6]> = (0..shape.bodies)
        .map(|_| [(); 6].map(|()| rng.range(-1.0, 1.0)))
        .collect();
    let q = rows
        .iter()
        .enumerate()
        .map(|(i, blocks): (usize, &[Option<JacobianBlock>; 2])| {
            let jv: f64 = blocks
                .iter()
                .flatten()
                .map(|b| (0..6).map(|k| b.j[k] * v[b.body][k]).sum::<f64>())
                .sum();
            let free = if compliance[i] > 0.0 {
                rng.range(-0.5, 0.5)
            } else {
                0.0
            };
            jv + offset[i] + free
        })
        .collect();
    FactoredParts {
        rows,
        inverse_mass,
        compliance,
        q,
        bounds: BoxBounds::new(lo, hi, couplings).unwrap(),
    }
}
