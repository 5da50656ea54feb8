//! The constraint-row design: every constraint (contacts with their friction,
//! joints with their limits and motors, planar locks, implicitly taken
//! springs) emits rows, and the formulations consume rows without asking what
//! made them.
//!
//! A row `i` holds a Jacobian row `J_i` (at most two body blocks), the
//! bounds of its impulse `lambda_i`, its position-level condition and its
//! velocity-level right-hand side. In a velocity-level step (Cline 2002,
//! sec. 2.7.3) it asks, with `u+` the end-of-step twists,
//!
//! ```text
//! w_i = J_i u+ + compliance_i lambda_i - velocity_target_i + stabilisation_i
//! ```
//!
//! to be zero for a free (bilateral) row, `>= 0` and complementary to
//! `lambda_i >= 0` for a unilateral one, and box-complementary to
//! `lambda_i` within its bounds otherwise (Cline sec. 2.7.2: bilateral rows are
//! the free variables of the mixed LCP). The stabilisation term comes from
//! the row's [`PositionCondition`] and the step's settings: a gap `g >= 0`
//! adds `g / h` (the bodies may close it within the step but not overshoot,
//! Stewart and Trinkle's distance term); an error is removed by Baumgarte's
//! term `alpha g` or left to post-stabilisation (Cline ch. 3).
//!
//! Each constraint owns a contiguous range of rows ([`RowOwner`]), so the
//! solution maps back to per-constraint impulses and forces. Adding a
//! constraint kind means adding one file that implements `EmitRows`.

pub(crate) mod contact;
pub(crate) mod joints;
pub(crate) mod planar;

use std::ops::Range;

use crate::{BodyState, JacobianRow};

/// How a row's impulse is bounded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RowBounds {
    /// Free (bilateral): an equality row of a joint, a planar lock or a
    /// spring.
    Free,
    /// `lambda >= 0`: a contact normal or a limit.
    NonNegative,
    /// One of a contact's two orthonormal tangent rows, bounded by `mu`
    /// times the impulse of row `normal` (an index into the same
    /// [`RowSet`]). The two rows of a contact follow each other and name the
    /// same normal; each formulation turns the pair into its friction cone
    /// (a `k`-sided pyramid, or the box `|lambda| <= mu lambda_n` per row).
    Friction {
        /// Index of the normal row in the row set.
        normal: usize,
        /// Coulomb coefficient (>= 0).
        mu: f64,
    },
    /// `lo <= lambda <= hi` (N s): a motor's bounded impulse.
    Interval {
        /// Lower bound (N s, may be `-inf`).
        lo: f64,
        /// Upper bound (N s, may be `+inf`).
        hi: f64,
    },
}

/// Which stabilisation setting applies to a row's position error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StabilisationGroup {
    /// Contact gaps.
    Contact,
    /// Joints, limits and planar locks.
    Joint,
}

/// The position-level condition of a row, `g(p)` in Cline's ch. 3.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PositionCondition {
    /// No position-level condition: friction, motors, springs.
    None,
    /// `g = 0` (m or rad): a joint's or a planar lock's equality.
    Equality {
        /// The current error `g`.
        error: f64,
    },
    /// `g >= 0` (m or rad): a contact's gap or a limit's margin.
    Gap {
        /// The current value of `g`; negative when violated.
        gap: f64,
        /// Which setting removes a violation.
        group: StabilisationGroup,
    },
}

/// One row of the step problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstraintRow {
    /// The Jacobian row.
    pub jacobian: JacobianRow,
    /// Bounds of the row's impulse.
    pub bounds: RowBounds,
    /// Position-level condition, for stabilisation.
    pub condition: PositionCondition,
    /// The value `J u+` should take (m/s or rad/s) before stabilisation: a
    /// motor's speed, a spring's implicit term.
    pub velocity_target: f64,
    /// Compliance added to the row's diagonal (s/kg for a linear row): zero
    /// for a hard row, `1 / (h (h k + c))` for a spring taken implicitly.
    pub compliance: f64,
}

impl ConstraintRow {
    /// A hard row with no target and no compliance.
    #[must_use]
    pub fn new(jacobian: JacobianRow, bounds: RowBounds, condition: PositionCondition) -> Self {
        Self {
            jacobian,
            bounds,
            condition,
            velocity_target: 0.0,
            compliance: 0.0,
        }
    }
}

/// What emitted a range of rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstraintRef {
    /// Contact number `n` of the step's contact list.
    Contact(usize),
    /// Joint number `n` of the step's joint list.
    Joint(usize),
    /// The planar lock of body `n`.
    PlanarLock(usize),
    /// Force element number `n` (a spring taken implicitly).
    ForceElement(usize),
}

/// A constraint and the range of rows it owns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowOwner {
    /// The constraint.
    pub constraint: ConstraintRef,
    /// A key identifying the constraint from one step to the next (a
    /// contact's bodies and features, a joint's index), for warm starts.
    pub key: u64,
    /// Its rows in the [`RowSet`].
    pub rows: Range<usize>,
}

/// The rows of one step and who owns them; reused from step to step.
#[derive(Clone, Debug, Default)]
pub struct RowSet {
    rows: Vec<ConstraintRow>,
    owners: Vec<RowOwner>,
}

impl RowSet {
    /// Removes every row.
    pub fn clear(&mut self) {
        self.rows.clear();
        self.owners.clear();
    }

    /// Starts the rows of `constraint`, identified across steps by `key`:
    /// they run from here to the next call (or the end).
    pub fn begin(&mut self, constraint: ConstraintRef, key: u64) {
        let start = self.rows.len();
        self.owners.push(RowOwner {
            constraint,
            key,
            rows: start..start,
        });
    }

    /// Appends a row to the current constraint and returns its index.
    ///
    /// # Panics
    /// Before any [`RowSet::begin`] (a programming error).
    #[track_caller]
    pub fn push(&mut self, row: ConstraintRow) -> usize {
        let owner = self
            .owners
            .last_mut()
            .expect("RowSet::begin precedes the rows of a constraint");
        self.rows.push(row);
        owner.rows.end = self.rows.len();
        self.rows.len() - 1
    }

    /// Row `i`, mutably (a stepper's late adjustment of a target).
    pub(crate) fn row_mut(&mut self, i: usize) -> &mut ConstraintRow {
        &mut self.rows[i]
    }

    /// Every row, in emission order.
    #[must_use]
    pub fn rows(&self) -> &[ConstraintRow] {
        &self.rows
    }

    /// Every constraint with its rows, in emission order.
    #[must_use]
    pub fn owners(&self) -> &[RowOwner] {
        &self.owners
    }

    /// Number of rows.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there is no row.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// A constraint kind: emits its rows for the bodies' current states.
pub(crate) trait EmitRows {
    /// Appends this constraint's rows to `out` (after `out.begin(..)` by the
    /// caller). `h` is the step length, for terms that depend on it.
    fn emit_rows(&self, bodies: &[BodyState], h: f64, out: &mut RowSet);
}
