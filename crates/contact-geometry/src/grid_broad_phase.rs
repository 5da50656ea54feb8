//! Broad phase on a uniform grid (spatial hashing by sorting; Ericson,
//! "Real-Time Collision Detection", 2005, sec. 7.1): `O(N log N)` for
//! scenes of bounded density whose boxes are of comparable sizes.
//!
//! The cell size is twice the mean box extent. A box no wider than a cell
//! on every axis overlaps at most 8 cells; it is entered once per cell as
//! `(cell, box)`, the entries are sorted, and the boxes sharing a cell are
//! tested pairwise. A pair overlapping in several cells is reported only
//! in the cell holding the lower corner of the boxes' intersection, so no
//! pair is reported twice. Boxes wider than a cell (and infinite ones,
//! such as a half-space's) are tested against every box, which is
//! `O(N L)` for `L` of them. Intervals are closed, as in
//! [`SweepAndPrune`](crate::SweepAndPrune), and the output is the same:
//! sorted pairs `(i, j)`, `i < j`. Buffers are owned, so nothing is
//! allocated once they have grown.

use glam::DVec3;

use crate::Aabb;
use crate::GeometryError;
use crate::broad_phase::check_boxes;

/// A uniform-grid broad phase owning its buffers.
#[derive(Debug, Default)]
pub struct GridBroadPhase {
    /// `(cell, box)` for every cell a small box overlaps.
    entries: Vec<([i64; 3], u32)>,
    /// Boxes wider than a cell on some axis, or infinite.
    large: Vec<u32>,
    /// The candidate pairs of the last call.
    pairs: Vec<(u32, u32)>,
}

impl GridBroadPhase {
    /// The pairs `(i, j)`, `i < j`, of `boxes` that overlap, sorted.
    ///
    /// # Errors
    /// [`GeometryError::TooManyBoxes`] beyond `u32::MAX` boxes,
    /// [`GeometryError::NanBoundingBox`] naming the first box with a NaN bound.
    pub fn pairs(&mut self, boxes: &[Aabb]) -> Result<&[(u32, u32)], GeometryError> {
        check_boxes(boxes)?;
        self.pairs.clear();
        self.entries.clear();
        self.large.clear();
        let (mut sum, mut count) = (0.0, 0.0);
        for b in boxes {
            let e = b.max - b.min;
            if e.is_finite() {
                sum += e.max_element();
                count += 1.0;
            }
        }
        let cell = if count > 0.0 && sum > 0.0 {
            2.0 * sum / count
        } else {
            1.0
        };
        // Cells beyond this index (or a box wider than a cell) go to the
        // large list, so the i64 cell coordinates cannot overflow.
        const LIMIT: f64 = 1e15;
        let index = |x: f64| (x / cell).floor();
        for (i, b) in boxes.iter().enumerate() {
            let (lo, hi) = (b.min / cell, b.max / cell);
            let small = (b.max - b.min).cmple(DVec3::splat(cell)).all()
                && lo.abs().max_element() < LIMIT
                && hi.abs().max_element() < LIMIT;
            if !small {
                self.large.push(i as u32);
                continue;
            }
            let (lo, hi) = (lo.floor(), hi.floor());
            for x in lo.x as i64..=hi.x as i64 {
                for y in lo.y as i64..=hi.y as i64 {
                    for z in lo.z as i64..=hi.z as i64 {
                        self.entries.push(([x, y, z], i as u32));
                    }
                }
            }
        }
        self.entries.sort_unstable();
        let mut start = 0;
        while start < self.entries.len() {
            let key = self.entries[start].0;
            let mut end = start + 1;
            while end < self.entries.len() && self.entries[end].0 == key {
                end += 1;
            }
            for s in start..end {
                let i = self.entries[s].1;
                let a = &boxes[i as usize];
                for t in s + 1..end {
                    let j = self.entries[t].1;
                    let b = &boxes[j as usize];
                    if !a.overlaps(b) {
                        continue;
                    }
                    // Report in the cell of the intersection's lower corner.
                    let corner = a.min.max(b.min);
                    let home = [index(corner.x), index(corner.y), index(corner.z)];
                    if home.map(|c| c as i64) == key {
                        self.pairs.push((i.min(j), i.max(j)));
                    }
                }
            }
            start = end;
        }
        for (k, &i) in self.large.iter().enumerate() {
            let a = &boxes[i as usize];
            for (j, b) in boxes.iter().enumerate() {
                let j = j as u32;
                // Large-large pairs once: from the earlier in `large`.
                let other_large = self.large[..=k].binary_search(&j).is_ok();
                if !other_large && a.overlaps(b) {
                    self.pairs.push((i.min(j), i.max(j)));
                }
            }
        }
        self.pairs.sort_unstable();
        Ok(&self.pairs)
    }
}
