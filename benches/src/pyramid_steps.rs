//! The step problems of a wall pyramid of unit cubes: box-friction LCPs
//! with sliding and sticking contacts, dense and by their factors
//! (`M = J W J'`), and the answer of the step before (its active set and
//! impulses), for the warm-started step solves of block principal
//! pivoting (`lcp_pyramid_step`).
//!
//! Each cube rests on two cubes below it (4 contacts under each half of
//! its bottom face), the bottom row on static ground; neighbours in a row
//! are 0.1 apart, so they never touch sideways. Every contact has a normal
//! row and two friction rows coupled to it with `MU`. The geometry is held
//! fixed and the velocity-level problem of each step is solved (gravity,
//! then the contact impulses), so the problems follow one another as a
//! simulator's would once the contacts persist: the cubes start with small
//! random horizontal velocities, some contacts keep sliding (the pyramid
//! spreads), the others stick. Generated without the simulator, so the
//! bench depends on the contact-lcp API alone.

use contact_lcp::faer::Mat;
use contact_lcp::{
    BlockPivoting, BoxBounds, BoxLcp, ContactOperator, Coupling, Dantzig, FactoredBoxLcp,
    JacobianBlock, Lcp, LcpSolution, RowState, active_set_of,
};

use crate::Rng;

/// Friction coefficient of every contact.
const MU: f64 = 0.5;
/// Gap between neighbouring cubes of a row.
const SPACING: f64 = 1.1;
/// Time step (s) and gravity (m/s^2).
const STEP: f64 = 1.0 / 60.0;
const GRAVITY: f64 = 9.81;
/// Largest initial horizontal speed of a cube (m/s).
const SLIDE: f64 = 0.05;

/// One step's problem and the answer of the step before.
#[derive(Clone, Debug)]
pub struct PyramidStep {
    /// The box LCP, dense.
    pub dense: BoxLcp,
    /// The same problem by the factors of `M`.
    pub factored: FactoredBoxLcp,
    /// The active set of the answer of the step before (block pivoting's,
    /// or Dantzig's where block pivoting gave up).
    pub previous: Vec<RowState>,
    /// The impulses `z` of that answer with its friction rows at 0 (block
    /// pivoting's warm-start centre, as the simulator makes it).
    pub previous_z: Vec<f64>,
}

/// The problem of step `step` (from 0) of a pyramid with `base` cubes in
/// its bottom row: `12 base + 24 (base (base + 1) / 2 - base)` rows.
///
/// # Panics
/// If both block pivoting and Dantzig fail on a step before `step`, which
/// the bench's scenes do not.
#[must_use]
pub fn pyramid_step(base: usize, step: usize) -> PyramidStep {
    let mut rng = Rng::new(0x9E7A + base as u64);
    let pyramid = Pyramid::new(base);
    let mut v: Vec<[f64; 6]> = (0..pyramid.inverse_mass.len())
        .map(|_| {
            let h = rng.vector(-SLIDE, SLIDE);
            [h.x, h.y, 0.0, 0.0, 0.0, 0.0]
        })
        .collect();
    let mut solver = BlockPivoting::default();
    let mut dantzig = Dantzig::default();
    let mut out = LcpSolution::default();
    let (mut previous, mut previous_z) = (Vec::new(), Vec::new());
    for k in 0..=step {
        for body in &mut v {
            body[2] -= GRAVITY * STEP;
        }
        let factored = pyramid.problem(&v);
        if k == step {
            return PyramidStep {
                dense: pyramid.dense(&factored),
                factored,
                previous,
                previous_z,
            };
        }
        let warm = (k > 0).then_some((previous.as_slice(), previous_z.as_slice()));
        if solver.solve_into(&factored, warm, &mut out).is_err() {
            out = dantzig
                .solve(&pyramid.dense(&factored))
                .expect("Dantzig solves the step");
        }
        active_set_of(factored.bounds(), &out.z, &out.w, &mut previous)
            .expect("the answer has one entry per row");
        previous_z.clone_from(&out.z);
        // Friction centred at 0, as the simulator does (friction carries
        // no memory from step to step).
        for c in factored.bounds().couplings() {
            previous_z[c.row] = 0.0;
        }
        pyramid.apply(&out.z, &mut v);
    }
    unreachable!("the loop returns at its last step")
}

/// The contact rows of the pyramid: `M = J W J'` by its factors.
struct Pyramid {
    rows: Vec<[Option<JacobianBlock>; 2]>,
    inverse_mass: Vec<[f64; 6]>,
    bounds: BoxBounds,
}

impl ContactOperator for Pyramid {
    fn rows(&self) -> usize {
        self.rows.len()
    }

    fn bodies(&self) -> usize {
        self.inverse_mass.len()
    }

    fn jacobian(&self, row: usize) -> [Option<JacobianBlock>; 2] {
        self.rows[row]
    }

    fn inverse_mass(&self, body: usize) -> [[f64; 6]; 6] {
        let d = self.inverse_mass[body];
        std::array::from_fn(|r| std::array::from_fn(|c| if r == c { d[r] } else { 0.0 }))
    }
}

impl Pyramid {
    /// The contacts of a pyramid of unit cubes (1 kg) with `base` cubes in
    /// its bottom row.
    fn new(base: usize) -> Self {
        let mut centres = Vec::new();
        let mut levels: Vec<Vec<usize>> = Vec::new();
        for level in 0..base {
            levels.push(
                (0..base - level)
                    .map(|i| {
                        let x = (i as f64 + 0.5 * level as f64) * SPACING;
                        centres.push([x, 0.0, 0.5 + level as f64]);
                        centres.len() - 1
                    })
                    .collect(),
            );
        }
        // A solid unit cube of 1 kg: I = 1/6 kg m^2 about each axis.
        let inverse_mass = vec![[1.0, 1.0, 1.0, 6.0, 6.0, 6.0]; centres.len()];
        let (mut rows, mut lo, mut hi, mut couplings) = (vec![], vec![], vec![], vec![]);
        let mut contact = |upper: usize, lower: Option<usize>, p: [f64; 3]| {
            let normal = rows.len();
            for d in [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
                let a = Some(block(upper, &centres[upper], p, d, 1.0));
                let b = lower.map(|k| block(k, &centres[k], p, d, -1.0));
                rows.push([a, b]);
            }
            lo.extend([0.0, f64::NEG_INFINITY, f64::NEG_INFINITY]);
            hi.extend([f64::INFINITY; 3]);
            for row in [normal + 1, normal + 2] {
                couplings.push(Coupling {
                    row,
                    normal_row: normal,
                    mu: MU,
                });
            }
        };
        let inner = 0.5 * SPACING - 0.5;
        for (level, cubes) in levels.iter().enumerate() {
            for (i, &body) in cubes.iter().enumerate() {
                let [x, _, z] = centres[body];
                let bottom = z - 0.5;
                if level == 0 {
                    for (dx, dy) in [(0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5), (0.5, -0.5)] {
                        contact(body, None, [x + dx, dy, bottom]);
                    }
                    continue;
                }
                let (left, right) = (levels[level - 1][i], levels[level - 1][i + 1]);
                for (below, x0, x1) in [(left, x - 0.5, x - inner), (right, x + inner, x + 0.5)] {
                    for (px, py) in [(x0, 0.5), (x1, 0.5), (x1, -0.5), (x0, -0.5)] {
                        contact(body, Some(below), [px, py, bottom]);
                    }
                }
            }
        }
        let bounds = BoxBounds::new(lo, hi, couplings).expect("valid bounds");
        Self {
            rows,
            inverse_mass,
            bounds,
        }
    }

    /// The step problem for body velocities `v`: `q = J v`.
    fn problem(&self, v: &[[f64; 6]]) -> FactoredBoxLcp {
        let q = self
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .flatten()
                    .map(|b| (0..6).map(|k| b.j[k] * v[b.body][k]).sum::<f64>())
                    .sum()
            })
            .collect();
        FactoredBoxLcp::from_operator(self, q, self.bounds.clone()).expect("valid problem")
    }

    /// The dense form of `problem` (one of this pyramid's): `M = J W J'`,
    /// entry `(i, j)` summed over the bodies rows `i` and `j` share.
    fn dense(&self, problem: &FactoredBoxLcp) -> BoxLcp {
        let n = self.rows.len();
        let m = Mat::from_fn(n, n, |i, j| {
            let mut mij = 0.0;
            for a in self.rows[i].iter().flatten() {
                for b in self.rows[j].iter().flatten() {
                    if a.body == b.body {
                        let w = &self.inverse_mass[a.body];
                        mij += (0..6).map(|k| a.j[k] * w[k] * b.j[k]).sum::<f64>();
                    }
                }
            }
            mij
        });
        let lcp = Lcp::new(m, problem.q().to_vec()).expect("finite");
        BoxLcp::with_bounds(lcp, self.bounds.clone()).expect("valid bounds")
    }

    /// `v += W J' z`: the velocity change of the impulses `z`.
    fn apply(&self, z: &[f64], v: &mut [[f64; 6]]) {
        for (row, &zi) in self.rows.iter().zip(z) {
            for b in row.iter().flatten() {
                let inverse_mass = &self.inverse_mass[b.body];
                for ((vk, &w), &j) in v[b.body].iter_mut().zip(inverse_mass).zip(&b.j) {
                    *vk += w * j * zi;
                }
            }
        }
    }
}

/// The Jacobian block of direction `d` at point `p` for the body centred
/// at `centre`: linear `d`, angular `(p - centre) x d`, times `sign`.
fn block(body: usize, centre: &[f64; 3], p: [f64; 3], d: [f64; 3], sign: f64) -> JacobianBlock {
    let r = [p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]];
    let rd = [
        r[1] * d[2] - r[2] * d[1],
        r[2] * d[0] - r[0] * d[2],
        r[0] * d[1] - r[1] * d[0],
    ];
    JacobianBlock {
        body,
        j: [d[0], d[1], d[2], rd[0], rd[1], rd[2]].map(|x| sign * x),
    }
}
