//! A step problem's matrix in factored form, `J W J' + C`, as
//! `contact_lcp::FactoredParts`: the rows' Jacobian blocks (linear part
//! first) and each body's 6 x 6 inverse mass. The velocity step's box
//! problems and the position projection's gap problems of large islands
//! are solved this way (`contact_lcp::BlockPivoting`, in body space), never
//! forming `J W J'`.

use contact_lcp::{FactoredParts, JacobianBlock};

use crate::{BodyState, JacobianRow};

/// Fills the rows and inverse masses of `parts` from `rows` and `bodies`
/// (the rows' body indices index `bodies`); leaves the compliance, `q` and
/// the bounds to the caller.
pub(crate) fn fill_rows_and_masses(
    parts: &mut FactoredParts,
    rows: &[JacobianRow],
    bodies: &[BodyState],
) {
    parts.rows.clear();
    parts.rows.extend(rows.iter().map(|row| {
        [row.a, row.b].map(|block| {
            block.map(|b| JacobianBlock {
                body: b.body,
                j: [
                    b.linear.x,
                    b.linear.y,
                    b.linear.z,
                    b.angular.x,
                    b.angular.y,
                    b.angular.z,
                ],
            })
        })
    }));
    parts.inverse_mass.clear();
    parts.inverse_mass.extend(bodies.iter().map(|body| {
        let mut w = [[0.0; 6]; 6];
        if body.dynamic {
            for (r, row) in w.iter_mut().enumerate().take(3) {
                row[r] = body.inv_mass;
            }
            for c in 0..3 {
                for r in 0..3 {
                    w[3 + r][3 + c] = body.inv_inertia.col(c)[r];
                }
            }
        } else {
            // Never referenced by a row (a fixed body has no block): any
            // positive definite block.
            for (r, row) in w.iter_mut().enumerate() {
                row[r] = 1.0;
            }
        }
        w
    }));
}
