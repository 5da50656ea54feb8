//! The box-friction problem of a wall pyramid of unit cubes: each cube on
//! two below it (4 contacts under each half), the bottom row on static
//! ground, a normal and two coupled friction rows per contact. Sparse:
//! rows couple only through a shared cube.

use super::Rng;
use super::contacts::{Contacts, block, box_inv_mass};
use contact_lcp::{BoxBounds, BoxLcp, Coupling, FactoredBoxLcp, Lcp};

/// Gap between neighbouring cubes of a row: they never touch sideways.
const SPACING: f64 = 1.1;

/// A wall pyramid with `base` cubes in its bottom row: its contacts and
/// bounds (rows: per contact a normal, then its x and y friction rows).
pub fn pyramid(rng: &mut Rng, base: usize, mu: f64) -> (Contacts, BoxBounds) {
    let mut c = Contacts::default();
    let (mut lo, mut hi, mut cp) = (vec![], vec![], vec![]);
    let mut centre = Vec::new();
    let mut ids = Vec::new();
    for level in 0..base {
        let mut row = Vec::new();
        for i in 0..base - level {
            let x = (i as f64 + 0.5 * level as f64) * SPACING;
            let z = 0.5 + level as f64;
            row.push(c.inv_mass.len());
            centre.push([x, 0.0, z]);
            c.inv_mass
                .push(box_inv_mass(rng.range(0.5, 2.0), [0.5, 0.5, 0.5]));
        }
        ids.push(row);
    }
    let mut contact = |c: &mut Contacts, upper: usize, lower: Option<usize>, p: [f64; 3]| {
        let normal = c.rows.len();
        let rel = |b: usize| {
            let q: &[f64; 3] = &centre[b];
            [p[0] - q[0], p[1] - q[1], p[2] - q[2]]
        };
        for d in [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
            let a = Some(block(upper, rel(upper), d, 1.0));
            let b = lower.map(|k| block(k, rel(k), d, -1.0));
            c.rows.push([a, b]);
        }
        lo.extend([0.0, f64::NEG_INFINITY, f64::NEG_INFINITY]);
        hi.extend([f64::INFINITY; 3]);
        for k in 1..3 {
            cp.push(Coupling {
                row: normal + k,
                normal_row: normal,
                mu,
            });
        }
    };
    for (level, row) in ids.iter().enumerate() {
        for (i, &body) in row.iter().enumerate() {
            let [x, _, z] = centre[body];
            let bottom = z - 0.5;
            if level == 0 {
                for (dx, dy) in [(0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5), (0.5, -0.5)] {
                    contact(&mut c, body, None, [x + dx, dy, bottom]);
                }
                continue;
            }
            let (left, right) = (ids[level - 1][i], ids[level - 1][i + 1]);
            let inner = 0.5 * SPACING - 0.5;
            for (below, x0, x1) in [(left, x - 0.5, x - inner), (right, x + inner, x + 0.5)] {
                for (px, py) in [(x0, 0.5), (x1, 0.5), (x1, -0.5), (x0, -0.5)] {
                    contact(&mut c, body, Some(below), [px, py, bottom]);
                }
            }
        }
    }
    (c, BoxBounds::new(lo, hi, cp).unwrap())
}

/// Body velocities (6 per cube): horizontal components and spin about z
/// uniform in `(-slide, slide)`, falling at `fall`.
pub fn velocities(rng: &mut Rng, bodies: usize, slide: f64, fall: f64) -> Vec<f64> {
    (0..bodies)
        .flat_map(|_| {
            [
                rng.range(-slide, slide),
                rng.range(-slide, slide),
                -fall,
                0.0,
                0.0,
                rng.range(-slide, slide),
            ]
        })
        .collect()
}

/// The pyramid's box LCP for body velocities `v`, dense and by its factors.
pub fn problems(c: &Contacts, bounds: &BoxBounds, v: &[f64]) -> (BoxLcp, FactoredBoxLcp) {
    let q = c.q_of(v);
    let dense =
        BoxLcp::with_bounds(Lcp::new(c.dense(), q.clone()).unwrap(), bounds.clone()).unwrap();
    let factored = FactoredBoxLcp::from_operator(c, q, bounds.clone()).unwrap();
    (dense, factored)
}
