// The principal pivoting core: one box LCP with fixed bounds.
//
// Problem and signs: w = M z + q, fixed bounds lo_i <= 0 <= hi_i;
// z_i = lo_i => w_i >= 0, z_i = hi_i => w_i <= 0, strictly between =>
// w_i = 0. M symmetric PSD (a non-symmetric M takes the same path on an
// explicit inverse of M_CC, linalg/inverse.rs, without the termination
// argument).
//
// Method (Baraff 1994 sec. 4, "drive-to-zero", generalised to bounds):
// from z = 0, take the rows d in the given order. A row already
// complementary is done; otherwise z_d moves by s = -sign(w_d) with
//     dz_d = s,  dz_C = -M_CC^-1 M_Cd s     (Baraff's fdirection)
// which keeps w_C = 0 on the clamped set C. The step (maxstep) is the
// smallest of: w_d reaching 0 (d joins C); z_d reaching its bound; a
// clamped z_i reaching a bound (i leaves C); a row at a bound whose w_i
// reaches 0 and would change sign (i joins C; never a fixed row,
// lo_i = hi_i); a parked row whose w_i starts to move (i joins C). Ties:
// the driven row's own events first, then the lowest row index. Every
// exchange updates the factor of M_CC (linalg/cholesky.rs).
//
// Singular (PSD) M: a row whose Schur complement is at most pivot_tol is
// not added (Baraff sec. 6): its w_i moves in lock step with w_C, so it
// never blocks a step. A row refused while interior with w_i = 0 is parked
// and re-enters C as soon as a removal makes its w_i move; a refused row is
// not offered again until C loses a row. When no event bounds a step the
// problem has no solution along this path; the pivot limit stops cycling.
//
// Work per pivot: w is kept only on the rows that can stop a step
// (active_block.rs); a row's w is recomputed when its turn comes. When the
// driven row joins C, the forward solve of its last direction is its new
// factor row, so that append costs O(k). At the end z_C is re-solved from
// the true q and w = M z + q recomputed (`polish`).

use super::active_block::ActiveBlock;
use super::{DantzigEvent, DantzigStep};
use crate::linalg::cholesky::Factor;
use crate::problem::Lcp;
use crate::tuning::RERUN_Z_ROUNDING;

/// Where a row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Not driven yet (z fixed where it is, unconstrained).
    Unprocessed,
    /// In C: w = 0, z between the bounds.
    Clamped,
    /// At its lower bound, w >= 0.
    AtLo,
    /// At its upper bound, w <= 0.
    AtHi,
    /// w = 0 with z strictly inside, but kept out of C (singular).
    Parked,
}

/// Why a pivoting run stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The pivot budget ran out while driving this row.
    Limit,
    /// No event bounds the step while driving this row, or (non-symmetric
    /// M) the clamped block would be singular without the row that must
    /// leave it: the path cannot go on from this row.
    Unbounded(usize),
}

/// The event that ends a step.
#[derive(Clone, Copy, Debug)]
enum Event {
    DrivenSolved,
    DrivenBound,
    Leave(usize),
    Enter(usize),
}

/// Workspace and state of one run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Core {
    pub(crate) factor: Factor,
    block: ActiveBlock,
    pub(crate) state: Vec<State>,
    pub(crate) z: Vec<f64>,
    pub(crate) w: Vec<f64>,
    /// `dz_C` in the factor's order.
    dz: Vec<f64>,
    /// `L^-1 M_Cd` of the last direction (the factor row of `d`).
    y: Vec<f64>,
    /// `dw_A` in slot order.
    dw: Vec<f64>,
    rejected: Vec<bool>,
    pub(crate) pivots: usize,
    pub(crate) appends: usize,
    pub(crate) removals: usize,
    pub(crate) rejections: usize,
}

/// Tolerances and limits of one run.
pub(crate) struct Settings<'a> {
    pub(crate) lo: &'a [f64],
    pub(crate) hi: &'a [f64],
    pub(crate) order: &'a [usize],
    /// Schur complements at most this are singular (absolute).
    pub(crate) pivot_tol: f64,
    /// |w| at most this counts as 0 (absolute).
    pub(crate) w_tol: f64,
    pub(crate) max_pivots: usize,
    /// Whether M is symmetric (Cholesky factor); otherwise the clamped
    /// block is kept as an explicit inverse (linalg/inverse.rs).
    pub(crate) symmetric: bool,
}

/// Whether row `i` has fixed bounds (lo = hi): complementary whatever its
/// w, so it never takes part in the pivoting.
fn is_fixed(set: &Settings<'_>, i: usize) -> bool {
    set.lo[i] >= set.hi[i]
}

impl Core {
    /// Runs the pivoting on `m` with the given bounds, from z = 0.
    pub(crate) fn run(
        &mut self,
        m: &Lcp,
        set: &Settings<'_>,
        trace: Option<&mut Vec<DantzigStep>>,
    ) -> Result<(), Stop> {
        self.reset(m.dim(), set.symmetric);
        self.drive_unprocessed(m, set, trace)
    }

    /// Drives the unprocessed rows in `set.order`, then polishes.
    fn drive_unprocessed(
        &mut self,
        m: &Lcp,
        set: &Settings<'_>,
        mut trace: Option<&mut Vec<DantzigStep>>,
    ) -> Result<(), Stop> {
        for &d in set.order {
            if self.state[d] == State::Unprocessed {
                self.drive(m, set, d, trace.as_deref_mut())?;
            }
        }
        self.polish(m);
        Ok(())
    }

    /// Zeroes the counters of a run.
    pub(crate) fn clear_counts(&mut self) {
        self.pivots = 0;
        self.appends = 0;
        self.removals = 0;
        self.rejections = 0;
    }

    /// Empties the state for a problem of dimension `n`: z = w = 0, every row
    /// unprocessed.
    pub(crate) fn reset(&mut self, n: usize, symmetric: bool) {
        self.factor.reset(n, symmetric);
        self.block.reset(n, symmetric);
        self.state.clear();
        self.state.resize(n, State::Unprocessed);
        for v in [
            &mut self.z,
            &mut self.w,
            &mut self.dz,
            &mut self.y,
            &mut self.dw,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.rejected.clear();
        self.rejected.resize(n, false);
        self.clear_counts();
    }

    /// Runs the pivoting again after the bounds changed, from the final state
    /// of the previous run (same `m`): rows at a bound move to the new bound,
    /// clamped rows that the re-solved `z_C` puts outside their bounds and
    /// rows whose `w` now has the wrong sign are released, and only the
    /// released rows are driven again, in `set.order`.
    pub(crate) fn rerun(
        &mut self,
        m: &Lcp,
        set: &Settings<'_>,
        trace: Option<&mut Vec<DantzigStep>>,
    ) -> Result<(), Stop> {
        self.clear_counts();
        let n = m.dim();
        for i in 0..n {
            let (lo, hi) = (set.lo[i], set.hi[i]);
            match self.state[i] {
                State::AtLo => self.z[i] = lo,
                State::AtHi => self.z[i] = hi,
                State::Parked if !(self.z[i] > lo && self.z[i] < hi) => {
                    self.z[i] = self.z[i].max(lo).min(hi);
                    self.state[i] = State::Unprocessed;
                }
                _ => {}
            }
        }
        loop {
            self.polish(m);
            let z_tol = RERUN_Z_ROUNDING * self.z.iter().fold(0.0_f64, |a, x| a.max(x.abs()));
            let mut released = false;
            let mut r = 0;
            while r < self.factor.len() {
                let i = self.factor.idx[r];
                if self.z[i] < set.lo[i] - z_tol || self.z[i] > set.hi[i] + z_tol {
                    if !self.factor.remove(r) {
                        return Err(Stop::Unbounded(i));
                    }
                    self.z[i] = self.z[i].max(set.lo[i]).min(set.hi[i]);
                    self.state[i] = State::Unprocessed;
                    self.removals += 1;
                    released = true;
                } else {
                    r += 1;
                }
            }
            if !released {
                break;
            }
        }
        for i in 0..n {
            let w = self.w[i];
            let wrong = match self.state[i] {
                _ if is_fixed(set, i) => false,
                State::AtLo => w < -set.w_tol,
                State::AtHi => w > set.w_tol,
                State::Parked => w.abs() > set.w_tol,
                _ => false,
            };
            if wrong {
                self.state[i] = State::Unprocessed;
            }
        }
        // Rebuild A for the new states (C is the factor's).
        self.block.reset_rows(&self.factor.idx);
        for i in 0..n {
            let watched = matches!(self.state[i], State::AtLo | State::AtHi | State::Parked);
            if watched && !is_fixed(set, i) {
                self.block.insert_row(m, i, &self.factor.idx);
            }
        }
        self.drive_unprocessed(m, set, trace)
    }

    /// Puts row `i` in A (its w is watched from now on).
    fn watch(&mut self, m: &Lcp, i: usize) {
        self.block.insert_row(m, i, &self.factor.idx);
    }

    /// Tries to add row `i` to C; on success it leaves A. With
    /// `reuse_direction`, `self.y` holds `L^-1 M_Ci` for the current C.
    fn clamp(&mut self, m: &Lcp, i: usize, tol: f64, reuse_direction: bool) -> bool {
        let k = self.factor.len();
        let ok = if reuse_direction && self.factor.is_symmetric() {
            self.factor
                .try_append_solved(i, m.col(i)[i], &self.y[..k], tol)
        } else {
            self.factor.try_append(m, i, tol)
        };
        if ok {
            self.appends += 1;
            self.block.remove_row(i);
            self.block.push_col(m, i);
        } else {
            self.rejections += 1;
        }
        ok
    }

    /// Row `d` joins C, or is parked (watched) when it would make `M_CC`
    /// singular.
    fn clamp_or_park(&mut self, m: &Lcp, d: usize, tol: f64, reuse_direction: bool) {
        self.w[d] = 0.0;
        self.state[d] = if self.clamp(m, d, tol, reuse_direction) {
            State::Clamped
        } else {
            self.watch(m, d);
            State::Parked
        };
    }

    /// Drives row `d` to complementarity.
    fn drive(
        &mut self,
        m: &Lcp,
        set: &Settings<'_>,
        d: usize,
        mut trace: Option<&mut Vec<DantzigStep>>,
    ) -> Result<(), Stop> {
        let (lo_d, hi_d) = (set.lo[d], set.hi[d]);
        if is_fixed(set, d) {
            // Fixed row (lo = hi): complementary whatever w_d is.
            self.z[d] = lo_d;
            self.state[d] = State::AtLo;
            return Ok(());
        }
        // w_d was not followed while d waited for its turn.
        let col_d = m.col(d);
        self.w[d] = m.affine_row(d, &self.z, set.symmetric);
        let wd = self.w[d];
        // Already complementary where z_d is (0 on a fresh run)?
        let (at_lo, at_hi) = (self.z[d] <= lo_d, self.z[d] >= hi_d);
        let zero = wd.abs() <= set.w_tol;
        if zero && !at_lo && !at_hi {
            self.clamp_or_park(m, d, set.pivot_tol, false);
            return Ok(());
        }
        self.watch(m, d);
        if at_lo && (zero || wd > 0.0) {
            self.state[d] = State::AtLo;
            return Ok(());
        }
        if at_hi && (zero || wd < 0.0) {
            self.state[d] = State::AtHi;
            return Ok(());
        }
        let s = if wd < 0.0 { 1.0 } else { -1.0 };
        self.rejected.iter_mut().for_each(|r| *r = false);
        loop {
            // A step that ended on another row's event may have solved d too.
            if self.w[d] * s >= -set.w_tol {
                self.clamp_or_park(m, d, set.pivot_tol, false);
                return Ok(());
            }
            if self.pivots >= set.max_pivots {
                return Err(Stop::Limit);
            }
            // fdirection: dz_C = -M_CC^-1 M_Cd s (keeping y = L^-1 M_Cd).
            let k = self.factor.len();
            for (y, &i) in self.y[..k].iter_mut().zip(&self.factor.idx) {
                *y = col_d[i];
            }
            self.factor
                .direction(&mut self.y[..k], s, &mut self.dz[..k]);
            // dw_A = M_AC dz_C + s M_Ad.
            self.block.product(&self.dz[..k], &mut self.dw);
            for (dw, &i) in self.dw.iter_mut().zip(&self.block.rows) {
                *dw += s * col_d[i];
            }
            // maxstep; tie key: the driven row's events 0, row i's i + 1.
            let mut best = (f64::INFINITY, usize::MAX, Event::DrivenSolved);
            let mut offer = |t: f64, key: usize, e: Event| {
                let t = t.max(0.0);
                if t < best.0 || (t == best.0 && key < best.1) {
                    best = (t, key, e);
                }
            };
            let bound_d = if s > 0.0 { hi_d } else { lo_d };
            if bound_d.is_finite() {
                offer((bound_d - self.z[d]) * s, 0, Event::DrivenBound);
            }
            for r in 0..k {
                let i = self.factor.idx[r];
                let dzi = self.dz[r];
                if dzi < 0.0 && set.lo[i].is_finite() {
                    offer((set.lo[i] - self.z[i]) / dzi, i + 1, Event::Leave(r));
                } else if dzi > 0.0 && set.hi[i].is_finite() {
                    offer((set.hi[i] - self.z[i]) / dzi, i + 1, Event::Leave(r));
                }
            }
            for (&i, &dwi) in self.block.rows.iter().zip(&self.dw) {
                if i == d {
                    if s * dwi > set.pivot_tol {
                        offer(-self.w[d] / dwi, 0, Event::DrivenSolved);
                    }
                    continue;
                }
                if self.rejected[i] || is_fixed(set, i) {
                    continue;
                }
                match self.state[i] {
                    State::AtLo if dwi < -set.pivot_tol => {
                        offer(self.w[i].max(0.0) / -dwi, i + 1, Event::Enter(i));
                    }
                    State::AtHi if dwi > set.pivot_tol => {
                        offer((-self.w[i]).max(0.0) / dwi, i + 1, Event::Enter(i));
                    }
                    // A parked row's w must stay 0: it joins C once it moves.
                    State::Parked if dwi.abs() > set.pivot_tol => {
                        offer(0.0, i + 1, Event::Enter(i));
                    }
                    _ => {}
                }
            }
            let (t, _, event) = best;
            if !t.is_finite() {
                return Err(Stop::Unbounded(d));
            }
            // Step.
            self.z[d] += s * t;
            for r in 0..k {
                self.z[self.factor.idx[r]] += t * self.dz[r];
            }
            for (&i, &dw) in self.block.rows.iter().zip(&self.dw) {
                self.w[i] += t * dw;
            }
            self.pivots += 1;
            let record = match event {
                Event::DrivenSolved => {
                    // C is unchanged since the direction: y is d's factor row.
                    self.clamp_or_park(m, d, set.pivot_tol, true);
                    DantzigEvent::Solved
                }
                Event::DrivenBound => {
                    self.z[d] = bound_d;
                    self.state[d] = if s > 0.0 { State::AtHi } else { State::AtLo };
                    DantzigEvent::AtBound
                }
                Event::Leave(r) => {
                    let i = self.factor.idx[r];
                    if !self.factor.remove(r) {
                        return Err(Stop::Unbounded(d));
                    }
                    let up = self.dz[r] > 0.0;
                    self.z[i] = if up { set.hi[i] } else { set.lo[i] };
                    self.w[i] = 0.0;
                    self.state[i] = if up { State::AtHi } else { State::AtLo };
                    self.block.remove_col(r);
                    self.removals += 1;
                    self.watch(m, i);
                    // Rows refused as dependent on the old C may not be now.
                    self.rejected.iter_mut().for_each(|x| *x = false);
                    DantzigEvent::Leaves { row: i, upper: up }
                }
                Event::Enter(i) => {
                    self.w[i] = 0.0;
                    if self.clamp(m, i, set.pivot_tol, false) {
                        self.state[i] = State::Clamped;
                        DantzigEvent::Enters { row: i }
                    } else {
                        // Stays at its bound (or parked) until C loses a row.
                        self.rejected[i] = true;
                        DantzigEvent::Refused { row: i }
                    }
                }
            };
            if let Some(tr) = trace.as_deref_mut() {
                tr.push(DantzigStep {
                    driven: d,
                    event: record,
                    step: t,
                });
            }
            if matches!(event, Event::DrivenSolved | Event::DrivenBound) {
                return Ok(());
            }
        }
    }

    /// Solves `M_CC z_C = -(q_C + M_CN z_N)` with the current factor (so that
    /// `w_C = 0`; callers project onto the bounds), keeping the old `z_i`
    /// where the new one is not finite (then false), and recomputes
    /// `w = M z + q`.
    pub(super) fn polish(&mut self, m: &Lcp) -> bool {
        let k = self.factor.len();
        let rhs = &mut self.dz[..k];
        for (r, &i) in self.factor.idx.iter().enumerate() {
            rhs[r] = -m.q()[i];
        }
        for (j, &zj) in self.z.iter().enumerate() {
            if self.state[j] != State::Clamped && zj != 0.0 {
                let col = m.col(j);
                for (r, &i) in self.factor.idx.iter().enumerate() {
                    rhs[r] -= col[i] * zj;
                }
            }
        }
        self.factor.solve_in_place(rhs);
        let mut finite = true;
        for (r, &i) in self.factor.idx.iter().enumerate() {
            if rhs[r].is_finite() {
                self.z[i] = rhs[r];
            } else {
                finite = false;
            }
        }
        m.affine(&self.z, &mut self.w);
        finite
    }
}
