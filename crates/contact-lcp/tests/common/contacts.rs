//! Contact problems given as `M = J W J'`: a [`ContactOperator`] built from
//! explicit rows, its dense form, and a box resting on a plane.

use super::Rng;
use contact_lcp::faer::Mat;
use contact_lcp::{BoxBounds, BoxLcp, ContactOperator, Coupling, JacobianBlock, Lcp};

pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Rows of J (at most two bodies each) and diagonal inverse masses.
#[derive(Clone, Debug, Default)]
pub struct Contacts {
    pub inv_mass: Vec<[f64; 6]>,
    pub rows: Vec<[Option<JacobianBlock>; 2]>,
}

impl ContactOperator for Contacts {
    fn rows(&self) -> usize {
        self.rows.len()
    }
    fn bodies(&self) -> usize {
        self.inv_mass.len()
    }
    fn jacobian(&self, row: usize) -> [Option<JacobianBlock>; 2] {
        self.rows[row]
    }
    fn inverse_mass(&self, body: usize) -> [[f64; 6]; 6] {
        let d = self.inv_mass[body];
        std::array::from_fn(|r| std::array::from_fn(|c| if r == c { d[r] } else { 0.0 }))
    }
}

/// The 6-block of direction `d` acting at `r` (relative to the centre of
/// mass): linear `d`, angular `r x d`, times `sign`.
pub fn block(body: usize, r: [f64; 3], d: [f64; 3], sign: f64) -> JacobianBlock {
    let rc = cross(r, d);
    JacobianBlock {
        body,
        j: [d[0], d[1], d[2], rc[0], rc[1], rc[2]].map(|x| sign * x),
    }
}

impl Contacts {
    /// Dense J (rows x 6 bodies).
    pub fn jacobian_dense(&self) -> Mat<f64> {
        let mut j = Mat::zeros(self.rows.len(), 6 * self.inv_mass.len());
        for (i, row) in self.rows.iter().enumerate() {
            for b in row.iter().flatten() {
                for k in 0..6 {
                    j[(i, 6 * b.body + k)] += b.j[k];
                }
            }
        }
        j
    }

    /// Dense `M = J W J'`.
    pub fn dense(&self) -> Mat<f64> {
        self.coupled_dense(self)
    }

    /// Dense `J W G'` with `G` the rows of `forces` (same bodies, same row
    /// count): the velocity change along these rows per unit impulse along
    /// the rows of `forces`, as dynamic friction makes it (`G = J` gives
    /// [`dense`](Self::dense)).
    pub fn coupled_dense(&self, forces: &Contacts) -> Mat<f64> {
        let j = self.jacobian_dense();
        let g = forces.jacobian_dense();
        let w = Mat::from_fn(j.ncols(), j.ncols(), |r, c| {
            if r == c {
                self.inv_mass[r / 6][r % 6]
            } else {
                0.0
            }
        });
        &j * &w * g.transpose()
    }

    /// `q = J v` for body velocities `v` (6 per body).
    pub fn q_of(&self, v: &[f64]) -> Vec<f64> {
        let j = self.jacobian_dense();
        (0..j.nrows())
            .map(|i| (0..j.ncols()).map(|k| j[(i, k)] * v[k]).sum())
            .collect()
    }

    /// `W J' z`: the velocity change the impulses `z` cause.
    pub fn velocity_change(&self, z: &[f64]) -> Vec<f64> {
        let j = self.jacobian_dense();
        (0..j.ncols())
            .map(|k| {
                self.inv_mass[k / 6][k % 6] * (0..j.nrows()).map(|i| j[(i, k)] * z[i]).sum::<f64>()
            })
            .collect()
    }
}

/// Contacts at the 4 bottom corners `(+-a, +-b, -c)` of box `body`, each
/// with a normal row (+z) and two friction rows (x, y) coupled to it with
/// `mu`; the other body is `below` (or static ground if `None`, whose
/// corners are then at `(+-a, +-b, +c)` of it). Appends to `contacts`,
/// `lo`, `hi`, `couplings`.
#[allow(clippy::too_many_arguments)]
pub fn add_box_contacts(
    contacts: &mut Contacts,
    lo: &mut Vec<f64>,
    hi: &mut Vec<f64>,
    couplings: &mut Vec<Coupling>,
    body: usize,
    below: Option<usize>,
    half: [f64; 3],
    mu: f64,
) {
    let [a, b, c] = half;
    for (x, y) in [(a, b), (-a, b), (-a, -b), (a, -b)] {
        let normal = contacts.rows.len();
        for d in [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
            let upper = Some(block(body, [x, y, -c], d, 1.0));
            let lower = below.map(|k| block(k, [x, y, c], d, -1.0));
            contacts.rows.push([upper, lower]);
        }
        lo.extend([0.0, f64::NEG_INFINITY, f64::NEG_INFINITY]);
        hi.extend([f64::INFINITY; 3]);
        couplings.push(Coupling {
            row: normal + 1,
            normal_row: normal,
            mu,
        });
        couplings.push(Coupling {
            row: normal + 2,
            normal_row: normal,
            mu,
        });
    }
}

/// Unit-density-ish box inverse mass: mass `m`, half extents `half`.
pub fn box_inv_mass(m: f64, half: [f64; 3]) -> [f64; 6] {
    let [a, b, c] = half;
    let i = [
        m * (b * b + c * c) / 3.0,
        m * (a * a + c * c) / 3.0,
        m * (a * a + b * b) / 3.0,
    ];
    [
        1.0 / m,
        1.0 / m,
        1.0 / m,
        1.0 / i[0],
        1.0 / i[1],
        1.0 / i[2],
    ]
}

/// Bounds for the rows built by [`add_box_contacts`].
pub fn bounds(lo: Vec<f64>, hi: Vec<f64>, couplings: Vec<Coupling>) -> BoxBounds {
    BoxBounds::new(lo, hi, couplings).unwrap()
}

/// A box of `mass` and half extents `half` resting on static ground at its
/// 4 bottom corners (body 0), each contact with a normal and two friction
/// rows coupled with `mu` ([`add_box_contacts`]).
pub fn resting_box(mass: f64, half: [f64; 3], mu: f64) -> (Contacts, BoxBounds) {
    let mut c = Contacts {
        inv_mass: vec![box_inv_mass(mass, half)],
        rows: vec![],
    };
    let (mut lo, mut hi, mut cp) = (vec![], vec![], vec![]);
    add_box_contacts(&mut c, &mut lo, &mut hi, &mut cp, 0, None, half, mu);
    (c, bounds(lo, hi, cp))
}

/// Keeps only the normal rows of contacts built by [`add_box_contacts`]
/// (every third row, starting with the first).
pub fn keep_normal_rows(c: &mut Contacts) {
    c.rows = c.rows.iter().step_by(3).copied().collect();
}

/// Half extents of the boxes of [`random_stack`].
pub const STACK_HALF: [f64; 3] = [0.5, 0.3, 0.2];

/// A stack of `boxes` boxes (half extents `STACK_HALF`) on static ground
/// with random masses, falling at 0.1 and sliding with random velocities;
/// friction-coupled with random mu when `friction`, else normal rows only
/// (a plain, singular LCP).
pub fn random_stack(rng: &mut Rng, boxes: usize, friction: bool) -> (Contacts, BoxLcp) {
    stack_with(rng, boxes, friction, STACK_HALF, (0.1, -0.1, 0.2), None)
}

/// A stack of `boxes` cubes of half extent `half`, each box moving with
/// horizontal velocity components and spin uniform in `(-h, h)`, `(-s, s)`
/// and vertical velocity `v_z`, from `(h, v_z, s)`; friction `mu` or, if
/// `None`, random in [0.2, 1).
pub fn stack_with(
    rng: &mut Rng,
    boxes: usize,
    friction: bool,
    half: [f64; 3],
    (h, v_z, s): (f64, f64, f64),
    mu: Option<f64>,
) -> (Contacts, BoxLcp) {
    let mut c = Contacts::default();
    let (mut lo, mut hi, mut cp) = (vec![], vec![], vec![]);
    let mut v = Vec::new();
    for body in 0..boxes {
        c.inv_mass.push(box_inv_mass(rng.range(0.5, 5.0), half));
        let mu = mu.unwrap_or_else(|| rng.range(0.2, 1.0));
        add_box_contacts(
            &mut c,
            &mut lo,
            &mut hi,
            &mut cp,
            body,
            body.checked_sub(1),
            half,
            mu,
        );
        v.extend([
            rng.range(-h, h),
            rng.range(-h, h),
            v_z,
            0.0,
            0.0,
            rng.range(-s, s),
        ]);
    }
    if !friction {
        keep_normal_rows(&mut c);
        lo = vec![0.0; c.rows.len()];
        hi = vec![f64::INFINITY; c.rows.len()];
        cp.clear();
    }
    let q = c.q_of(&v);
    let b: BoxBounds = bounds(lo, hi, cp);
    let p = BoxLcp::with_bounds(Lcp::new(c.dense(), q).unwrap(), b).unwrap();
    (c, p)
}
