//! The box LCP of a contact problem with its matrix given by its factors,
//! `M = J W J' + C`: `J` with at most two nonzero 6-blocks per row (the two
//! bodies of a contact or joint row, [`JacobianBlock`]s), `W` block diagonal
//! with one symmetric positive definite 6 x 6 inverse mass per body, `C` a
//! nonnegative diagonal (compliances). `M` is never formed: `n` rows on `b`
//! bodies take `O(n + b)` memory, and `BlockPivoting` works in body space.

use crate::box_problem::BoxBounds;
use crate::box_verify::box_report;
use crate::error::LcpError;
use crate::pgs::{ContactOperator, JacobianBlock};
use crate::problem::{SYMMETRY_TOLERANCE, check_finite, check_len};
use crate::verify::VerifyReport;

/// A box LCP (`w = M z + q`, bounds and friction couplings as in
/// [`BoxBounds`]) with `M = J W J' + C` given by its factors.
///
/// Validated on construction: every entry finite, every block naming a body
/// that exists, every inverse mass symmetric (to
/// [`SYMMETRY_TOLERANCE`](crate::SYMMETRY_TOLERANCE) of its largest entry,
/// then averaged) and positive definite, every compliance `>= 0`. `M` is
/// positive semidefinite, so `||M||_max` is its largest diagonal entry.
#[derive(Clone, Debug, Default)]
pub struct FactoredBoxLcp {
    rows: Vec<[Option<JacobianBlock>; 2]>,
    inverse_mass: Vec<[[f64; 6]; 6]>,
    compliance: Vec<f64>,
    q: Vec<f64>,
    bounds: BoxBounds,
    /// `M_ii`.
    diagonal: Vec<f64>,
    m_max_abs: f64,
    q_max_abs: f64,
}

/// The parts of a [`FactoredBoxLcp`], handed back by
/// [`FactoredBoxLcp::into_parts`] so that a caller building a problem every
/// time step reuses their storage.
#[derive(Clone, Debug, Default)]
pub struct FactoredParts {
    /// The rows of `J`: at most two blocks each (`None` for a static body).
    pub rows: Vec<[Option<JacobianBlock>; 2]>,
    /// `W_b` per body, `W_b[r][c]` the entry of row `r`, column `c`.
    pub inverse_mass: Vec<[[f64; 6]; 6]>,
    /// `C_ii` per row.
    pub compliance: Vec<f64>,
    /// The vector `q`.
    pub q: Vec<f64>,
    /// The bounds and couplings.
    pub bounds: BoxBounds,
}

fn dot(a: &[f64; 6], b: &[f64; 6]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub(crate) fn mat_vec(m: &[[f64; 6]; 6], x: &[f64; 6]) -> [f64; 6] {
    m.map(|row| dot(&row, x))
}

impl FactoredBoxLcp {
    /// Builds and validates the problem from its parts.
    ///
    /// # Errors
    ///
    /// - [`LcpError::BadLength`] if `compliance`, `q` or the bounds do not
    ///   have one entry per row (`what` names which);
    /// - [`LcpError::BodyOutOfRange`] for a block naming a missing body;
    /// - [`LcpError::NonFinite`] for the first NaN or infinite entry
    ///   (`what` = `"jacobian"` with `row` the row and `col` the block's
    ///   body, `"inverse_mass"` with `row` the body and `col` = 6 r + c,
    ///   `"compliance"`, or `"q"`);
    /// - [`LcpError::InvalidField`] for an inverse mass that is not
    ///   symmetric positive definite, or a negative compliance.
    pub fn new(parts: FactoredParts) -> Result<Self, LcpError> {
        let FactoredParts {
            rows,
            inverse_mass,
            compliance,
            q,
            bounds,
        } = parts;
        let n = rows.len();
        check_len("compliance", n, compliance.len())?;
        check_len("q", n, q.len())?;
        check_len("bounds", n, bounds.len())?;
        let bodies = inverse_mass.len();
        let mut inverse_mass = inverse_mass;
        for (body, w) in inverse_mass.iter_mut().enumerate() {
            if let Some(k) = w.iter().flatten().position(|x| !x.is_finite()) {
                return Err(LcpError::NonFinite {
                    what: "inverse_mass",
                    row: body,
                    col: k,
                });
            }
            let largest = w.iter().flatten().fold(0.0_f64, |a, x| a.max(x.abs()));
            let tol = SYMMETRY_TOLERANCE * largest;
            let symmetric = (0..6).all(|r| (0..r).all(|c| (w[r][c] - w[c][r]).abs() <= tol));
            // Rounding-level asymmetry (a rotated inertia) is averaged out.
            symmetrize6(w);
            if !symmetric || cholesky6(w).is_none() {
                return Err(LcpError::InvalidField {
                    field: format!("inverse_mass[{body}]"),
                    reason: "must be symmetric positive definite".to_owned(),
                });
            }
        }
        for (row, blocks) in rows.iter().enumerate() {
            for block in blocks.iter().flatten() {
                if block.body >= bodies {
                    return Err(LcpError::BodyOutOfRange {
                        row,
                        body: block.body,
                        bodies,
                    });
                }
                if block.j.iter().any(|x| !x.is_finite()) {
                    return Err(LcpError::NonFinite {
                        what: "jacobian",
                        row,
                        col: block.body,
                    });
                }
            }
        }
        for (row, &c) in compliance.iter().enumerate() {
            if !c.is_finite() {
                return Err(LcpError::NonFinite {
                    what: "compliance",
                    row,
                    col: 0,
                });
            }
            if c < 0.0 {
                return Err(LcpError::InvalidField {
                    field: format!("compliance[{row}]"),
                    reason: "must be >= 0".to_owned(),
                });
            }
        }
        check_finite("q", &q, 0)?;
        let diagonal: Vec<f64> = rows
            .iter()
            .zip(&compliance)
            .map(|(blocks, &c)| {
                let mut d = c;
                for block in blocks.iter().flatten() {
                    d += dot(&block.j, &mat_vec(&inverse_mass[block.body], &block.j));
                }
                d
            })
            .collect();
        if let Some(row) = diagonal.iter().position(|x| !x.is_finite()) {
            return Err(LcpError::NonFinite {
                what: "m",
                row,
                col: row,
            });
        }
        Ok(Self {
            m_max_abs: diagonal.iter().fold(0.0, |a: f64, &d| a.max(d)),
            q_max_abs: q.iter().fold(0.0, |a: f64, &x| a.max(x.abs())),
            rows,
            inverse_mass,
            compliance,
            q,
            bounds,
            diagonal,
        })
    }

    /// The problem of a contact operator's `J` and `W`, with no
    /// compliance.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    pub fn from_operator<O: ContactOperator + ?Sized>(
        operator: &O,
        q: Vec<f64>,
        bounds: BoxBounds,
    ) -> Result<Self, LcpError> {
        Self::new(FactoredParts {
            rows: (0..operator.rows()).map(|r| operator.jacobian(r)).collect(),
            inverse_mass: (0..operator.bodies())
                .map(|b| operator.inverse_mass(b))
                .collect(),
            compliance: vec![0.0; operator.rows()],
            q,
            bounds,
        })
    }

    /// The parts, for reuse of their storage.
    #[must_use]
    pub fn into_parts(self) -> FactoredParts {
        FactoredParts {
            rows: self.rows,
            inverse_mass: self.inverse_mass,
            compliance: self.compliance,
            q: self.q,
            bounds: self.bounds,
        }
    }

    /// The number of rows `n`.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.q.len()
    }

    /// The number of bodies.
    #[must_use]
    pub fn bodies(&self) -> usize {
        self.inverse_mass.len()
    }

    /// The rows of `J`.
    #[must_use]
    pub fn rows(&self) -> &[[Option<JacobianBlock>; 2]] {
        &self.rows
    }

    /// `W_b` of each body.
    #[must_use]
    pub fn inverse_mass(&self) -> &[[[f64; 6]; 6]] {
        &self.inverse_mass
    }

    /// `C_ii` of each row.
    #[must_use]
    pub fn compliance(&self) -> &[f64] {
        &self.compliance
    }

    /// The vector `q`.
    #[must_use]
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// The bounds and couplings.
    #[must_use]
    pub fn bounds(&self) -> &BoxBounds {
        &self.bounds
    }

    /// `M_ii` of each row.
    #[must_use]
    pub fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    /// `||M||_max` (the largest diagonal entry).
    #[must_use]
    pub fn m_max_abs(&self) -> f64 {
        self.m_max_abs
    }

    /// `||q||_inf`.
    #[must_use]
    pub fn q_max_abs(&self) -> f64 {
        self.q_max_abs
    }

    /// `out = M z + q`, through the body velocity change `v = W J' z`
    /// (`v` is scratch of one 6-vector per body).
    ///
    /// Preconditions: `z.len() == out.len() == self.dim()`.
    pub(crate) fn affine(&self, z: &[f64], v: &mut Vec<[f64; 6]>, out: &mut [f64]) {
        v.clear();
        v.resize(self.bodies(), [0.0; 6]);
        // v holds J' z first, then W J' z.
        for (blocks, &zi) in self.rows.iter().zip(z) {
            if zi == 0.0 {
                continue;
            }
            for block in blocks.iter().flatten() {
                for (p, j) in v[block.body].iter_mut().zip(&block.j) {
                    *p += j * zi;
                }
            }
        }
        for (vb, w) in v.iter_mut().zip(&self.inverse_mass) {
            *vb = mat_vec(w, vb);
        }
        for (i, blocks) in self.rows.iter().enumerate() {
            let mut wi = self.q[i] + self.compliance[i] * z[i];
            for block in blocks.iter().flatten() {
                wi += dot(&block.j, &v[block.body]);
            }
            out[i] = wi;
        }
    }

    /// Certifies a claimed solution `(z, w)` as
    /// [`verify_box`](crate::verify_box) does for a dense problem (`residual`
    /// compares `w` with `M z + q` computed here). Never panics: a length
    /// mismatch or a non-finite entry gives infinite errors.
    #[must_use]
    pub fn verify(&self, z: &[f64], w: &[f64]) -> VerifyReport {
        let n = self.dim();
        if z.len() != n || w.len() != n || z.iter().any(|x| !x.is_finite()) {
            return VerifyReport::infinite();
        }
        let mut exact = vec![0.0; n];
        self.affine(z, &mut Vec::new(), &mut exact);
        self.report(z, w, Some(&exact))
    }

    /// The report of `(z, w)` with `exact = M z + q` if known.
    pub(crate) fn report(&self, z: &[f64], w: &[f64], exact: Option<&[f64]>) -> VerifyReport {
        box_report(&self.bounds, self.q_max_abs, self.m_max_abs, z, w, exact)
    }
}

/// `a` made exactly symmetric: each pair of off-diagonal entries replaced
/// by their mean.
#[allow(clippy::needless_range_loop)] // (r, c) and (c, r): both indices needed
fn symmetrize6(a: &mut [[f64; 6]; 6]) {
    for r in 0..6 {
        for c in 0..r {
            let mean = 0.5 * (a[r][c] + a[c][r]);
            (a[r][c], a[c][r]) = (mean, mean);
        }
    }
}

/// The lower Cholesky factor of a symmetric 6 x 6 matrix, or `None` when it
/// is not positive definite.
#[allow(clippy::needless_range_loop)] // the textbook recurrence, by index
pub(crate) fn cholesky6(a: &[[f64; 6]; 6]) -> Option<[[f64; 6]; 6]> {
    let mut l = [[0.0; 6]; 6];
    for j in 0..6 {
        let mut d = a[j][j];
        for k in 0..j {
            d -= l[j][k] * l[j][k];
        }
        if !d.is_finite() || d <= 0.0 {
            return None;
        }
        let d = d.sqrt();
        l[j][j] = d;
        for i in j + 1..6 {
            let mut s = a[i][j];
            for k in 0..j {
                s -= l[i][k] * l[j][k];
            }
            l[i][j] = s / d;
        }
    }
    Some(l)
}

/// The inverse of a symmetric positive definite 6 x 6 matrix from its lower
/// Cholesky factor.
#[allow(clippy::needless_range_loop)] // the textbook substitutions, by index
pub(crate) fn inverse_from_cholesky6(l: &[[f64; 6]; 6]) -> [[f64; 6]; 6] {
    let mut inv = [[0.0; 6]; 6];
    for c in 0..6 {
        // Solve L y = e_c, then L' x = y.
        let mut y = [0.0; 6];
        for i in 0..6 {
            let mut s = if i == c { 1.0 } else { 0.0 };
            for k in 0..i {
                s -= l[i][k] * y[k];
            }
            y[i] = s / l[i][i];
        }
        for i in (0..6).rev() {
            let mut s = y[i];
            for k in i + 1..6 {
                s -= l[k][i] * inv[k][c];
            }
            inv[i][c] = s / l[i][i];
        }
    }
    // Exactly symmetric (the two triangles agree up to rounding).
    symmetrize6(&mut inv);
    inv
}

impl ContactOperator for FactoredBoxLcp {
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
        self.inverse_mass[body]
    }
}
