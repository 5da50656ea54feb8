//! The Delassus matrix `J W J'` of the step's Jacobian rows (Cline 2002,
//! eq. 2.49, its `N W N'`, `N W D'`, `D W D'` blocks).
//!
//! Entry `(i, j)` is the sum, over the dynamic bodies rows `i` and `j` share,
//! of `J_ib W_b J_jb'`; rows that share no body give 0. A stack or a pile
//! has a few dozen rows per body, so only a small fraction of the pairs
//! share one: the rows are bucketed by body (a counting sort) and each row
//! visits only the rows of its own bodies, instead of every pair testing
//! its blocks (measured in the commits that introduced this: the assembly
//! went from about a fifth of a 50-box step to a few per cent). Every
//! entry is the same sum, in the same order, as in the every-pair
//! definition, so the matrix is the same to the bit, and it is symmetric to
//! the bit (the upper triangle is computed and mirrored, which Dantzig's
//! symmetry test relies on).

use contact_lcp::faer::MatMut;
use contact_math::Twist;

use crate::{BodyJacobian, JacobianRow};

/// Rows bucketed by body; reused across steps, so assembling a problem of a
/// size seen before allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct Delassus {
    /// `start[b]..start[b + 1]` is body `b`'s range of `blocks_of_body`.
    start: Vec<usize>,
    /// (row, block slot: 0 for a, 1 for b) per body, rows increasing.
    blocks_of_body: Vec<(usize, usize)>,
    /// Fill cursor per body while bucketing.
    cursor: Vec<usize>,
}

impl Delassus {
    /// Writes `J W J'` of `rows` into the top-left `rows.len()` square of
    /// `matrix`, whose entries there must be zero on entry (only pairs
    /// sharing a body are written). `responses[j]` is `W J_j'` per block
    /// (a, b) of row `j`.
    pub(crate) fn fill(
        &mut self,
        rows: &[JacobianRow],
        responses: &[[Twist; 2]],
        mut matrix: MatMut<'_, f64>,
    ) {
        self.for_each_entry(rows, responses, |i, j, c| matrix[(i, j)] += c);
    }

    /// Calls `add(i, j, c)` for each term `c` of every entry of `J W J'`
    /// (both triangles), in the order of the module comment.
    fn for_each_entry(
        &mut self,
        rows: &[JacobianRow],
        responses: &[[Twist; 2]],
        mut add: impl FnMut(usize, usize, f64),
    ) {
        let bodies = rows
            .iter()
            .flat_map(JacobianRow::blocks)
            .map(|block| block.body + 1)
            .max()
            .unwrap_or(0);
        // Counting sort of the blocks by body: counts, prefix sums, scatter.
        self.start.clear();
        self.start.resize(bodies + 1, 0);
        for block in rows.iter().flat_map(JacobianRow::blocks) {
            self.start[block.body + 1] += 1;
        }
        for b in 0..bodies {
            self.start[b + 1] += self.start[b];
        }
        self.blocks_of_body.clear();
        self.blocks_of_body.resize(self.start[bodies], (0, 0));
        self.cursor.clear();
        self.cursor.extend_from_slice(&self.start[..bodies]);
        for (i, row) in rows.iter().enumerate() {
            for (slot, block) in slots(row) {
                let cursor = &mut self.cursor[block.body];
                self.blocks_of_body[*cursor] = (i, slot);
                *cursor += 1;
            }
        }

        // Entry (i, j), j >= i, is the sum over row i's blocks in the order
        // a, b of the block times row j's response on the same body: the
        // first bucket visited writes 0 + c, the second adds. The mirror
        // entry receives the same sums in the same order.
        for (i, row_i) in rows.iter().enumerate() {
            for (_, block_i) in slots(row_i) {
                let bucket =
                    &self.blocks_of_body[self.start[block_i.body]..self.start[block_i.body + 1]];
                // Upper triangle only: j >= i (the bucket is increasing).
                let first = bucket.partition_point(|&(j, _)| j < i);
                for &(j, slot_j) in &bucket[first..] {
                    let c = block_i.dot(&responses[j][slot_j]);
                    add(i, j, c);
                    if j != i {
                        add(j, i, c);
                    }
                }
            }
        }
    }
}

/// The blocks of `row` with their slot (0 for a, 1 for b), in that order.
fn slots(row: &JacobianRow) -> impl Iterator<Item = (usize, &BodyJacobian)> {
    [row.a.as_ref(), row.b.as_ref()]
        .into_iter()
        .enumerate()
        .filter_map(|(slot, block)| block.map(|b| (slot, b)))
}

/// `J_i W J_j'`: the blocks of row `i` against the responses of row `j`,
/// for the bodies they share (row i's blocks in order a, b): the
/// definition the bucketed sum is tested against.
#[cfg(test)]
fn shared_body_sum(row_i: &JacobianRow, row_j: &JacobianRow, response_j: &[Twist; 2]) -> f64 {
    let mut entry = 0.0;
    for block_i in row_i.blocks() {
        for (block_j, response) in [row_j.a, row_j.b].iter().zip(response_j) {
            if let Some(block_j) = block_j
                && block_j.body == block_i.body
            {
                entry += block_i.dot(response);
            }
        }
    }
    entry
}

#[cfg(test)]
mod tests {
    use super::*;
    use contact_lcp::faer::Mat;
    use glam::DVec3;

    /// The bucketed assembly equals the every-pair definition to the bit,
    /// on rows between random bodies (some rows against a fixed body, some
    /// pairs sharing both bodies), and writes nothing where no body is
    /// shared.
    #[test]
    fn equals_every_pair_sum_to_the_bit() {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut unit = || (next() >> 11) as f64 / (1_u64 << 53) as f64 - 0.5;
        let mut vec3 = || DVec3::new(unit(), unit(), unit());
        let bodies = 7;
        let mut rows = Vec::new();
        let mut responses = Vec::new();
        for r in 0..60 {
            let a = (r * 5 + 3) % bodies;
            let b = (r * 3 + 1) % bodies;
            let block = |body: usize, vec3: &mut dyn FnMut() -> DVec3| BodyJacobian {
                body,
                linear: vec3(),
                angular: vec3(),
            };
            // Every fourth row is against a fixed body (no block a).
            let row = JacobianRow {
                a: (r % 4 != 0 && a != b).then(|| block(a, &mut vec3)),
                b: Some(block(b, &mut vec3)),
            };
            responses.push([Twist::new(vec3(), vec3()), Twist::new(vec3(), vec3())]);
            rows.push(row);
        }
        let n = rows.len();
        let mut fast = Mat::<f64>::zeros(n + 2, n + 2);
        Delassus::default().fill(&rows, &responses, fast.as_mut());
        let mut shared_pairs = 0;
        for i in 0..n {
            for j in 0..n {
                let (lo, hi) = (i.min(j), i.max(j));
                let expected = shared_body_sum(&rows[lo], &rows[hi], &responses[hi]);
                assert_eq!(fast[(i, j)].to_bits(), expected.to_bits(), "({i}, {j})");
                let shares = rows[i]
                    .blocks()
                    .any(|x| rows[j].blocks().any(|y| x.body == y.body));
                shared_pairs += usize::from(shares);
                if !shares {
                    assert_eq!(expected, 0.0);
                }
            }
        }
        assert!(shared_pairs > n && shared_pairs < n * n, "{shared_pairs}");
        for k in 0..n + 2 {
            assert_eq!(fast[(n, k)], 0.0);
            assert_eq!(fast[(k, n + 1)], 0.0);
        }
    }
}
