// The guessed active set of block principal pivoting: which rows are free,
// which sit at a bound, and how a guess is checked and exchanged.
//
// A row is free (w_i = 0 is one equation of the guessed system), at its
// lower or at its upper bound. An uncoupled row at a bound takes the
// bound's value. A friction row coupled to normal row j at a bound takes
// z_i = sigma mu z_j (sigma = -1 lower, +1 upper): when j is free that is
// a linear relation folded into j's column of the system (Baraff 1994 sec.
// 5: the friction force along a sliding direction moves with the normal
// force), otherwise z_j = 0 and z_i = 0.
//
// After a solve, `scan` lists the rows that violate their guess (Judice &
// Pires 1994, sec. 2, the sets of infeasibilities of the free and the
// nonbasic variables): a free row outside its effective bounds, a row at
// its lower bound with w_i < 0, a row at its upper bound with w_i > 0,
// each beyond a threshold so that rounding never counts. A coupled row
// whose normal carries no force has both bounds at 0 and is complementary
// whatever its w; `scan` moves it, without counting it, to the bound its
// w points to, so that it takes the right side once the normal is loaded.

use super::RowState;
use crate::box_problem::BoxBounds;

/// Marks "not free" in `position`.
pub(super) const NONE: usize = usize::MAX;

/// A friction row at a bound whose normal row is free: `z_row = coef
/// z_normal`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Fold {
    pub(super) row: usize,
    pub(super) normal: usize,
    /// `sigma mu`: `-mu` at the lower bound, `+mu` at the upper.
    pub(super) coef: f64,
}

/// The guess and the system it defines.
#[derive(Clone, Debug, Default)]
pub(super) struct ActiveSet {
    pub(super) states: Vec<RowState>,
    /// The free rows, in increasing order.
    pub(super) free: Vec<usize>,
    /// Row -> its place in `free`, or `NONE`.
    pub(super) position: Vec<usize>,
    pub(super) folds: Vec<Fold>,
    /// The rows of the last scan that violate their guess, increasing.
    pub(super) violated: Vec<usize>,
    /// Whether the friction rows are held at 0 (the frictionless first
    /// pass of a cold start).
    pub(super) holding: bool,
}

impl ActiveSet {
    /// Starts from `guess`, or with every row at its lower bound. A row
    /// guessed at an infinite bound is free instead (a bilateral row of a
    /// joint is always free).
    pub(super) fn start(&mut self, bounds: &BoxBounds, guess: Option<&[RowState]>) {
        let n = bounds.len();
        self.states.clear();
        match guess {
            Some(guess) => self.states.extend_from_slice(guess),
            None => self.states.resize(n, RowState::Lower),
        }
        self.holding = guess.is_none() && !bounds.couplings().is_empty();
        for (i, state) in self.states.iter_mut().enumerate() {
            if bounds.coupling_of(i).is_some() {
                continue;
            }
            let infinite = match state {
                RowState::Lower => bounds.lo()[i] == f64::NEG_INFINITY,
                RowState::Upper => bounds.hi()[i] == f64::INFINITY,
                RowState::Free => false,
            };
            if infinite {
                *state = RowState::Free;
            }
        }
    }

    /// Lists the free rows and the folded friction rows of the guess.
    pub(super) fn plan(&mut self, bounds: &BoxBounds) {
        let n = self.states.len();
        self.free.clear();
        self.position.clear();
        self.position.resize(n, NONE);
        for (i, &state) in self.states.iter().enumerate() {
            if state == RowState::Free && !(self.holding && bounds.coupling_of(i).is_some()) {
                self.position[i] = self.free.len();
                self.free.push(i);
            }
        }
        self.folds.clear();
        if self.holding {
            return;
        }
        for c in bounds.couplings() {
            let sigma = match self.states[c.row] {
                RowState::Free => continue,
                RowState::Lower => -1.0,
                RowState::Upper => 1.0,
            };
            if self.position[c.normal_row] != NONE {
                self.folds.push(Fold {
                    row: c.row,
                    normal: c.normal_row,
                    coef: sigma * c.mu,
                });
            }
        }
    }

    /// `z` with every row outside the system set: an uncoupled row at a
    /// bound to that bound, every other row (free, or coupled) to 0.
    pub(super) fn fixed_values(&self, bounds: &BoxBounds, z: &mut [f64]) {
        let rows = self.states.iter().zip(bounds.coupled_rows());
        for (i, (state, coupled)) in rows.enumerate() {
            z[i] = match (state, coupled) {
                (RowState::Lower, None) => bounds.lo()[i],
                (RowState::Upper, None) => bounds.hi()[i],
                _ => 0.0,
            };
        }
    }

    /// Sets each folded friction row from its (solved) normal.
    pub(super) fn unfold(&self, z: &mut [f64]) {
        for f in &self.folds {
            z[f.row] = f.coef * z[f.normal];
        }
    }

    /// Collects in `violated` the rows that violate their guess at `(z,
    /// w)`, a bound by more than `z_tol` or a sign by more than `w_tol`,
    /// and moves unloaded friction rows to the side their `w` points to
    /// (see the module comment). Returns the number of violated rows.
    pub(super) fn scan(
        &mut self,
        bounds: &BoxBounds,
        z: &[f64],
        w: &[f64],
        z_tol: f64,
        w_tol: f64,
    ) -> usize {
        self.violated.clear();
        for i in 0..self.states.len() {
            if self.holding && bounds.coupling_of(i).is_some() {
                continue;
            }
            let (lo, hi) = bounds.effective(i, z);
            let state = self.states[i];
            let bad = match state {
                RowState::Free => z[i] < lo - z_tol || z[i] > hi + z_tol,
                _ if lo == hi => {
                    if bounds.coupling_of(i).is_some() {
                        self.states[i] = if w[i] < 0.0 {
                            RowState::Upper
                        } else {
                            RowState::Lower
                        };
                    }
                    false
                }
                RowState::Lower => w[i] < -w_tol,
                RowState::Upper => w[i] > w_tol,
            };
            if bad {
                self.violated.push(i);
            }
        }
        self.violated.len()
    }

    /// Ends the frictionless pass: every friction row free (sticking)
    /// when its normal is loaded, else at the bound its `w` points to.
    pub(super) fn release(&mut self, bounds: &BoxBounds, w: &[f64]) {
        self.holding = false;
        for c in bounds.couplings() {
            self.states[c.row] = if self.states[c.normal_row] == RowState::Free {
                RowState::Free
            } else if w[c.row] < 0.0 {
                RowState::Upper
            } else {
                RowState::Lower
            };
        }
    }

    /// Exchanges every violated row (a block pivot), or only the last one
    /// (`single`: Murty's rule as Judice & Pires 1994 use it, the largest
    /// violated index). A free row goes to the bound it crossed, a row at
    /// a bound becomes free. Returns the number of rows exchanged.
    pub(super) fn exchange(&mut self, bounds: &BoxBounds, z: &[f64], single: bool) -> usize {
        let first = if single {
            self.violated.len().saturating_sub(1)
        } else {
            0
        };
        for &i in &self.violated[first..] {
            self.states[i] = match self.states[i] {
                RowState::Free => {
                    let (lo, _) = bounds.effective(i, z);
                    if z[i] < lo {
                        RowState::Lower
                    } else {
                        RowState::Upper
                    }
                }
                RowState::Lower | RowState::Upper => RowState::Free,
            };
        }
        self.violated.len() - first
    }
}

/// The active set of a (claimed) solution `z` of a problem with `bounds`:
/// each row at its lower or upper bound (the effective bound of a coupled
/// row, within `1e-12 max(||z||_inf, 1)` for `z` that carries rounding),
/// else free. A row whose two bounds coincide (a friction row whose normal
/// is 0) is put at the bound its `w` points to: lower for `w >= 0`.
///
/// # Panics
///
/// If `z` or `w` is shorter than `bounds`.
pub fn active_set_of(bounds: &BoxBounds, z: &[f64], w: &[f64], states: &mut Vec<RowState>) {
    let n = bounds.len();
    let z_inf = z[..n].iter().fold(0.0_f64, |a, x| a.max(x.abs()));
    let tol = 1e-12 * z_inf.max(1.0);
    states.clear();
    states.extend((0..n).map(|i| {
        let (lo, hi) = bounds.effective(i, z);
        let at_lo = (z[i] - lo).abs() <= tol;
        let at_hi = (z[i] - hi).abs() <= tol;
        match (at_lo, at_hi) {
            (true, true) if w[i] < 0.0 => RowState::Upper,
            (true, _) => RowState::Lower,
            (false, true) => RowState::Upper,
            (false, false) => RowState::Free,
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::box_problem::Coupling;

    const INF: f64 = f64::INFINITY;

    fn bounds() -> BoxBounds {
        // 0: normal [0, inf]; 1: friction of 0 with mu 0.5; 2: [-1, 2];
        // 3: bilateral.
        BoxBounds::new(
            vec![0.0, -INF, -1.0, -INF],
            vec![INF, INF, 2.0, INF],
            vec![Coupling {
                row: 1,
                normal_row: 0,
                mu: 0.5,
            }],
        )
        .unwrap()
    }

    #[test]
    fn a_cold_start_puts_bilateral_rows_free_and_folds_friction() {
        let b = bounds();
        let mut set = ActiveSet::default();
        set.start(&b, None);
        use RowState::*;
        assert_eq!(set.states, [Lower, Lower, Lower, Free]);
        set.plan(&b);
        assert_eq!(set.free, [3]);
        // The normal is not free: nothing to fold, the friction row is 0.
        assert!(set.folds.is_empty());
        let mut z = [9.0; 4];
        set.fixed_values(&b, &mut z);
        assert_eq!(z, [0.0, 0.0, -1.0, 0.0]);
        // The friction rows are held at 0 until released.
        assert!(set.holding);
        set.states = vec![Free, Free, Lower, Free];
        set.plan(&b);
        assert_eq!(set.free, [0, 3]);
        set.release(&b, &[0.0, -1.0, 0.0, 0.0]);
        assert_eq!(set.states[1], Free, "a loaded contact sticks");
        set.states = vec![Free, Upper, Upper, Free];
        set.plan(&b);
        assert_eq!(set.free, [0, 3]);
        assert_eq!(set.position, [0, NONE, NONE, 1]);
        assert_eq!(
            set.folds,
            [Fold {
                row: 1,
                normal: 0,
                coef: 0.5
            }]
        );
        set.fixed_values(&b, &mut z);
        assert_eq!(z, [0.0, 0.0, 2.0, 0.0]);
        z[0] = 4.0;
        set.unfold(&mut z);
        assert_eq!(z[1], 2.0);
    }

    #[test]
    fn scan_and_exchange_follow_the_signs() {
        use RowState::*;
        let b = bounds();
        let mut set = ActiveSet::default();
        set.start(&b, Some(&[Free, Free, Lower, Free]));
        // Normal 1.0, friction 0.7 > 0.5: violated (upper); row 2 at its
        // lower bound with w < 0: violated; row 3 free: fine.
        let z = [1.0, 0.7, -1.0, 5.0];
        let w = [0.0, 0.0, -0.1, 0.0];
        assert_eq!(set.scan(&b, &z, &w, 1e-12, 1e-12), 2);
        assert_eq!(set.violated, [1, 2]);
        assert_eq!(set.exchange(&b, &z, true), 1);
        assert_eq!(set.states, [Free, Free, Free, Free]);
        set.states[2] = Lower;
        set.scan(&b, &z, &w, 1e-12, 1e-12);
        assert_eq!(set.exchange(&b, &z, false), 2);
        assert_eq!(set.states, [Free, Upper, Free, Free]);
        // Within the thresholds nothing counts.
        let w = [0.0, -1e-13, 0.0, 0.0];
        let z = [1.0, 0.5, 0.0, 0.0];
        set.states = vec![Free, Upper, Lower, Free];
        assert_eq!(set.scan(&b, &z, &w, 1e-12, 1e-12), 0);
        // An unloaded friction row follows its w, uncounted.
        set.states = vec![Lower, Lower, Lower, Free];
        let w = [1.0, -3.0, 0.0, 0.0];
        assert_eq!(set.scan(&b, &[0.0; 4], &w, 1e-12, 1e-12), 0);
        assert_eq!(set.states[1], Upper);
    }

    #[test]
    fn the_active_set_of_a_solution_reads_its_bounds() {
        use RowState::*;
        let b = bounds();
        let mut states = Vec::new();
        active_set_of(&b, &[2.0, -1.0, 2.0, 0.0], &[0.0; 4], &mut states);
        assert_eq!(states, [Free, Lower, Upper, Free]);
        active_set_of(
            &b,
            &[0.0, 0.0, 0.5, 1.0],
            &[1.0, -1.0, 0.0, 0.0],
            &mut states,
        );
        assert_eq!(states, [Lower, Upper, Free, Free]);
    }
}
