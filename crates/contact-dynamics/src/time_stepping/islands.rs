//! Islands: the connected components of the graph whose nodes are the
//! moving bodies and whose edges are the constraint rows joining two of
//! them (fixed bodies and the world join nothing: a pile on the ground is
//! as many islands as it has separate heaps). Each island's problem is
//! independent of the others', so each is solved on its own, in parallel.
//!
//! Union-find with path halving; islands are numbered in the order their
//! first row appears and list their rows and bodies in increasing order,
//! so the partition, and everything solved from it, depends on nothing but
//! the rows: not on the number of threads.

use crate::JacobianRow;

/// No island: a body that no row touches, a row with no moving body.
pub(crate) const NONE: usize = usize::MAX;

/// The islands of one set of rows; buffers reused from step to step.
#[derive(Clone, Debug, Default)]
pub(crate) struct Islands {
    parent: Vec<usize>,
    /// Island of each body (`NONE` if no row touches it).
    island_of_body: Vec<usize>,
    /// Position of each body in its island's body list.
    local_of_body: Vec<usize>,
    /// Island of each row (`NONE` if it has no moving body).
    island_of_row: Vec<usize>,
    /// Rows and bodies of island `k`: `rows[row_start[k]..row_start[k + 1]]`.
    row_start: Vec<usize>,
    rows: Vec<usize>,
    body_start: Vec<usize>,
    bodies: Vec<usize>,
    cursor: Vec<usize>,
}

impl Islands {
    /// Partitions `rows` over `body_count` bodies; with `one` every row
    /// with a moving body goes to a single island (the whole scene as one
    /// problem).
    pub(crate) fn build(&mut self, body_count: usize, rows: &[JacobianRow], one: bool) {
        self.parent.clear();
        self.parent.extend(0..body_count);
        let mut anchor = None;
        for row in rows {
            let mut blocks = row.blocks().map(|b| b.body);
            let Some(first) = blocks.next() else {
                continue;
            };
            let second = blocks.next();
            if one {
                let anchor = *anchor.get_or_insert(first);
                self.union(anchor, first);
                if let Some(second) = second {
                    self.union(anchor, second);
                }
            } else if let Some(second) = second {
                self.union(first, second);
            }
        }
        // Number the islands in the order of their first row.
        self.island_of_body.clear();
        self.island_of_body.resize(body_count, NONE);
        let mut root_island = std::mem::take(&mut self.cursor);
        root_island.clear();
        root_island.resize(body_count, NONE);
        let mut count = 0;
        self.island_of_row.clear();
        for row in rows {
            let island = match row.blocks().next() {
                Some(block) => {
                    let root = self.root(block.body);
                    if root_island[root] == NONE {
                        root_island[root] = count;
                        count += 1;
                    }
                    root_island[root]
                }
                None => NONE,
            };
            self.island_of_row.push(island);
        }
        for body in 0..body_count {
            let root = self.root(body);
            self.island_of_body[body] = root_island[root];
        }
        self.cursor = root_island;
        // Rows and bodies of each island, by counting sort.
        fill_lists(
            &self.island_of_row,
            count,
            &mut self.row_start,
            &mut self.rows,
            &mut self.cursor,
        );
        fill_lists(
            &self.island_of_body,
            count,
            &mut self.body_start,
            &mut self.bodies,
            &mut self.cursor,
        );
        self.local_of_body.clear();
        self.local_of_body.resize(body_count, NONE);
        for k in 0..count {
            for (local, &body) in self.bodies[self.body_start[k]..self.body_start[k + 1]]
                .iter()
                .enumerate()
            {
                self.local_of_body[body] = local;
            }
        }
    }

    /// Joins the sets of `a` and `b`; the smaller root wins (deterministic).
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.root(a), self.root(b));
        self.parent[ra.max(rb)] = ra.min(rb);
    }

    fn root(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Number of islands.
    pub(crate) fn count(&self) -> usize {
        self.row_start.len().saturating_sub(1)
    }

    /// The rows of island `k`, increasing.
    pub(crate) fn rows(&self, k: usize) -> &[usize] {
        &self.rows[self.row_start[k]..self.row_start[k + 1]]
    }

    /// The bodies of island `k`, increasing.
    pub(crate) fn bodies(&self, k: usize) -> &[usize] {
        &self.bodies[self.body_start[k]..self.body_start[k + 1]]
    }

    /// The island of row `i` (`NONE` for a row with no moving body).
    pub(crate) fn island_of_row(&self, i: usize) -> usize {
        self.island_of_row[i]
    }

    /// A body's position in its island's body list.
    pub(crate) fn local_of_body(&self, body: usize) -> usize {
        self.local_of_body[body]
    }
}

/// `start`/`items`: the indices `i` with `label[i] == k` for each `k <
/// count`, increasing (labels `NONE` left out).
fn fill_lists(
    label: &[usize],
    count: usize,
    start: &mut Vec<usize>,
    items: &mut Vec<usize>,
    cursor: &mut Vec<usize>,
) {
    start.clear();
    start.resize(count + 1, 0);
    for &k in label.iter().filter(|&&k| k != NONE) {
        start[k + 1] += 1;
    }
    for k in 0..count {
        start[k + 1] += start[k];
    }
    items.clear();
    items.resize(start[count], 0);
    cursor.clear();
    cursor.extend_from_slice(&start[..count]);
    for (i, &k) in label.iter().enumerate() {
        if k != NONE {
            items[cursor[k]] = i;
            cursor[k] += 1;
        }
    }
}

/// `row` with its body indices mapped to island-local ones.
pub(crate) fn localised(row: &JacobianRow, islands: &Islands) -> JacobianRow {
    let map = |block: Option<crate::BodyJacobian>| {
        block.map(|b| crate::BodyJacobian {
            body: islands.local_of_body(b.body),
            ..b
        })
    };
    JacobianRow {
        a: map(row.a),
        b: map(row.b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BodyJacobian;
    use glam::DVec3;

    fn row(a: Option<usize>, b: Option<usize>) -> JacobianRow {
        let block = |body| BodyJacobian {
            body,
            linear: DVec3::X,
            angular: DVec3::ZERO,
        };
        JacobianRow {
            a: a.map(block),
            b: b.map(block),
        }
    }

    /// Two heaps joined only through a fixed body (which has no block) are
    /// two islands; a body no row touches is in none; a row with no moving
    /// body is in none. Checked against the components by hand.
    #[test]
    fn components_by_hand() {
        let rows = [
            row(None, Some(3)),    // 0: ground - 3
            row(Some(3), Some(1)), // 1: 3 - 1
            row(None, Some(5)),    // 2: ground - 5
            row(Some(5), Some(6)), // 3: 5 - 6
            row(Some(1), Some(4)), // 4: 1 - 4
            row(None, None),       // 5: nothing moves
            row(Some(6), None),    // 6: 6 - ground
        ];
        let mut islands = Islands::default();
        islands.build(8, &rows, false);
        assert_eq!(islands.count(), 2);
        assert_eq!(islands.rows(0), &[0, 1, 4]);
        assert_eq!(islands.bodies(0), &[1, 3, 4]);
        assert_eq!(islands.rows(1), &[2, 3, 6]);
        assert_eq!(islands.bodies(1), &[5, 6]);
        assert_eq!(islands.island_of_row(5), NONE);
        assert_eq!(islands.local_of_body(4), 2);
        assert_eq!(islands.local_of_body(0), NONE);
        // All in one island on request, in the same row order.
        islands.build(8, &rows, true);
        assert_eq!(islands.count(), 1);
        assert_eq!(islands.rows(0), &[0, 1, 2, 3, 4, 6]);
        assert_eq!(islands.bodies(0), &[1, 3, 4, 5, 6]);
    }
}
