//! Guards Lemke's method on the problems it exists for: Anitescu-Potra
//! time-stepping LCPs of stacks of boxes with redundant and nearly coincident
//! contacts (the near-singular bases that made earlier versions fail).

mod common;

use common::Rng;
use contact_lcp::faer::Mat;
use contact_lcp::{Lcp, Lemke, LemkeParams};

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// A stack of `boxes` unit-mass boxes (half extents 0.5, 0.3, 0.2), each
/// touching the one below (or the ground) at `per_box` points on its bottom
/// face: the corners, then corners shrunk by 0.8, ..., each moved by up to
/// `jitter` (1e-6 gives nearly dependent contact rows). Velocities: falling at
/// h g = 0.0981 plus random small twists. Friction: a pyramid of 4
/// directions, one random mu per problem. The Anitescu-Potra LCP in
/// z = (c_n, beta, lambda), which always has a solution:
///
/// ```text
/// M = [ N W N'   N W D'   0  ]      q = [ N v ]
///     [ D W N'   D W D'   E  ]          [ D v ]
///     [ mu       -E'      0  ]          [ 0   ]
/// ```
fn stack(rng: &mut Rng, boxes: usize, per_box: usize, jitter: f64) -> Lcp {
    let (a, b, c) = (0.5, 0.3, 0.2);
    let inertia = [
        (b * b + c * c) / 3.0,
        (a * a + c * c) / 3.0,
        (a * a + b * b) / 3.0,
    ];
    let w_inv: Vec<f64> = (0..boxes)
        .flat_map(|_| {
            [
                1.0,
                1.0,
                1.0,
                1.0 / inertia[0],
                1.0 / inertia[1],
                1.0 / inertia[2],
            ]
        })
        .collect();
    let dof = 6 * boxes;
    let mut contacts = Vec::new();
    for body in 0..boxes {
        for k in 0..per_box {
            let corner = [[a, b], [-a, b], [-a, -b], [a, -b]][k % 4];
            let s = 1.0 - 0.2 * (k / 4) as f64;
            let r = [
                corner[0] * s + rng.range(-jitter, jitter),
                corner[1] * s + rng.range(-jitter, jitter),
                -c,
            ];
            contacts.push((body, r));
        }
    }
    // Jacobian row of direction d at point r of `body` (relative to its
    // centre), minus the same for the box below, if any (linear then angular).
    let jrow = |body: usize, r: [f64; 3], d: [f64; 3]| {
        let mut row = vec![0.0; dof];
        let rc = cross(r, d);
        for s in 0..3 {
            row[6 * body + s] += d[s];
            row[6 * body + 3 + s] += rc[s];
        }
        if body > 0 {
            let rc2 = cross([r[0], r[1], r[2] + 2.0 * c], d);
            for s in 0..3 {
                row[6 * (body - 1) + s] -= d[s];
                row[6 * (body - 1) + 3 + s] -= rc2[s];
            }
        }
        row
    };
    let mut rows: Vec<Vec<f64>> = contacts
        .iter()
        .map(|&(bd, r)| jrow(bd, r, [0.0, 0.0, 1.0]))
        .collect();
    for &(bd, r) in &contacts {
        for d in [
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, -1.0, 0.0],
        ] {
            rows.push(jrow(bd, r, d));
        }
    }
    let p = contacts.len();
    let nj = rows.len();
    let n = nj + p;
    let mut v = vec![0.0; dof];
    for body in 0..boxes {
        v[6 * body + 2] = -0.0981;
        for s in [0, 1, 3, 4, 5] {
            v[6 * body + s] = rng.range(-0.05, 0.05);
        }
    }
    let mu = rng.range(0.05, 1.2);
    let mut m = Mat::<f64>::zeros(n, n);
    for i in 0..nj {
        for j in 0..nj {
            m[(i, j)] = (0..dof).map(|s| rows[i][s] * w_inv[s] * rows[j][s]).sum();
        }
    }
    for i in 0..p {
        for d in 0..4 {
            m[(p + 4 * i + d, nj + i)] = 1.0;
            m[(nj + i, p + 4 * i + d)] = -1.0;
        }
        m[(nj + i, i)] = mu;
    }
    let q = (0..n)
        .map(|i| {
            if i < nj {
                (0..dof).map(|s| rows[i][s] * v[s]).sum()
            } else {
                0.0
            }
        })
        .collect();
    Lcp::new(m, q).unwrap()
}

#[test]
fn box_stacks_are_solved_accurately() {
    let mut rng = Rng::new(2024);
    let mut solvers = [0, 100, 7].map(|refactor_interval| {
        Lemke::new(LemkeParams {
            refactor_interval,
            ..LemkeParams::default()
        })
    });
    let mut largest = 0;
    for rep in 0..60 {
        let boxes = 1 + rng.below(4);
        let per_box = 1 + rng.below(6);
        let jitter = [0.0, 1e-9, 1e-6, 0.01][rng.below(4)];
        let lcp = stack(&mut rng, boxes, per_box, jitter);
        largest = largest.max(lcp.dim());
        for lemke in &mut solvers {
            let sol = lemke.solve(&lcp).unwrap_or_else(|e| {
                panic!("rep={rep} boxes={boxes} per_box={per_box} jitter={jitter}: {e}")
            });
            assert!(
                sol.report.is_solution(1e-10),
                "rep={rep} boxes={boxes} per_box={per_box} jitter={jitter}: {:?}",
                sol.report
            );
        }
    }
    assert!(
        largest >= 120,
        "covers problems of the size the stepper sends ({largest})"
    );
}

#[test]
fn box_on_box_resting_contact_carries_both_weights() {
    // Two boxes, four exact corners each, no jitter, no spin: the ground
    // impulses sum to 2 m h g (both boxes stop), the upper ones to m h g.
    let mut rng = Rng::new(1);
    let mut lcp = stack(&mut rng, 2, 4, 0.0);
    let (m, mut q) = lcp.into_parts();
    // Recompute q for v = (0, 0, -h g) on both boxes: normal rows hold the
    // relative normal velocity (0 between the boxes, -h g at the ground);
    // friction rows 0.
    for (i, qi) in q.iter_mut().enumerate() {
        *qi = if i < 4 { -0.0981 } else { 0.0 };
    }
    lcp = Lcp::new(m, q).unwrap();
    let sol = Lemke::default().solve(&lcp).unwrap();
    let ground: f64 = sol.z[..4].iter().sum();
    let upper: f64 = sol.z[4..8].iter().sum();
    assert!((ground - 2.0 * 0.0981).abs() < 1e-12, "ground {ground}");
    assert!((upper - 0.0981).abs() < 1e-12, "upper {upper}");
    assert!(sol.report.is_solution(1e-12));
}
