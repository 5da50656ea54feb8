//! Contact forces at acceleration level (Baraff 1994; the myPhysicsLab
//! "Rigid Body Contact Forces" page): at one instant, with the bodies'
//! poses and velocities given, the forces `f` at the resting contacts such
//! that the gaps' accelerations
//!
//! ```text
//! a = A f + b,   a_n >= 0,  f_n >= 0,  a_n f_n = 0   (Baraff sec. 3, eq. 1-4)
//! ```
//!
//! where row `i` of `A f` is the part of `d_i''` the contact forces make
//! (the page's eq. 9, generalised to 3D by the rows `J W J'`) and `b` the
//! rest: the applied forces' accelerations (gravity, loads, force elements,
//! damping, the gyroscopic torque `-w x I w`) seen by the contact, plus
//! every velocity-product term of `d_i''` (the page's eq. 10-11:
//! `w x (w x r)`, `2 n' . (p_b' - p_a')`), computed exactly per feature
//! pair by `tracked_contact.rs`.
//!
//! Friction (Baraff 1994, sec. 5-6):
//! - a *static* contact (no slip) has two tangential force unknowns bounded
//!   by `|f_t| <= mu f_n` per direction, box-complementary to the slip's
//!   acceleration (a friction force at its bound lets the contact start to
//!   slide against it). The first tangent is aligned with the contact's
//!   free tangential acceleration, so a single contact pushed along any
//!   direction reaches its bound at exactly `mu f_n`;
//! - a *sliding* contact's friction is `-mu f_n` along its slip direction
//!   `s`: no unknown of its own, its column of `A` becomes
//!   `J W (J_n - mu J_s)'`, which makes `A` non-symmetric. The LCP is then
//!   solved by the `contact_lcp::Solver` policy, whose Dantzig pivots
//!   non-symmetric problems and whose Lemke is complete for the plain ones.
//!
//! Painleve's configurations: with sliding friction `A` need not be a
//! P-matrix, and then the LCP may have no solution (inconsistency: no
//! contact force keeps the contacts from penetrating; a rod sliding on its
//! tip with `mu` above `(1 + 3 cos^2 t) / (3 sin t cos t)`) or several
//! (indeterminacy). No certified solution with a sliding contact present is
//! reported as [`DynamicsError::Painleve`]; a solution found while a
//! sliding contact has `A_ii <= 0` (its normal force pulls its own gap
//! closed, so for some `b` the answer is not unique) is flagged in
//! [`AccelerationSolution::indeterminate`]. The event-driven stepper of
//! `contact-sim` resolves an inconsistency by an impulsive step and logs an
//! indeterminacy, keeping the solver's answer.
//!
//! Planar locks enter as bilateral rows (their directions are fixed in the
//! world, so they have no velocity-product term); joints are not modelled
//! at this level.

mod impact;
#[cfg(test)]
mod kinematics_tests;
#[cfg(test)]
mod problem_tests;
mod row_problem;
mod tracked_contact;

pub use impact::{ImpactProblem, ImpactSolution};
pub use tracked_contact::{ContactFeature, ContactKinematics, TrackedContact};

use contact_lcp::SolverParams;
use contact_math::{Twist, Wrench, gyroscopic_torque};
use glam::DVec3;

use self::row_problem::{RowProblem, UnknownBounds};
use crate::constraints::{EmitRows, RowSet};
use crate::friction_cone::tangent_pair;
use crate::{BodyState, DynamicsError, ForceElement, JacobianRow, RigidBody};

/// How a contact's friction acts in the acceleration problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FrictionMode {
    /// No slip: the friction force is an unknown within the cone.
    Static,
    /// Sliding: the friction force is `-mu f_n` along the slip. The
    /// direction used is the slip's own while it points within 90 degrees
    /// of `reference` (the slip when the contact was classified, unit), and
    /// `reference` beyond: so the force is continuous when the slip passes
    /// through zero, which the stepper locates as an event.
    Sliding {
        /// The slip direction when the contact was classified (unit).
        reference: DVec3,
    },
}

/// Everything the acceleration problem acts on at one instant.
#[derive(Clone, Copy, Debug)]
pub struct AccelerationInput<'a> {
    /// The bodies (mass properties, damping, loads, planar locks).
    pub bodies: &'a [RigidBody],
    /// The bodies' poses and twists at this instant (their inverse mass
    /// blocks undamped, as [`BodyState::at_pose`] with `h = 0` gives).
    pub states: &'a [BodyState],
    /// The resting contacts.
    pub contacts: &'a [TrackedContact],
    /// The friction mode of each contact.
    pub modes: &'a [FrictionMode],
    /// Force elements (springs are applied as forces, whether or not the
    /// velocity-level stepper would take them implicitly).
    pub forces: &'a [ForceElement],
    /// Gravitational acceleration (m/s^2).
    pub gravity: DVec3,
    /// Simulated time (s), for time-dependent forces.
    pub time: f64,
    /// Rate (1/s, >= 0) at which a static contact's residual slip decays:
    /// its rows ask for the slip acceleration `-slip_decay s` instead of 0
    /// (within the friction cone). A contact classified as sticking may
    /// keep a slip below the classification threshold, which no force
    /// would otherwise remove (an impulse cannot: friction needs a normal
    /// impulse); 0 keeps it. The decay stops where its acceleration falls
    /// below the LCP's certified accuracy (about 1e-9 of the problem's
    /// scale).
    pub slip_decay: f64,
}

/// The forces and accelerations at one instant.
#[derive(Clone, Debug, Default)]
pub struct AccelerationSolution {
    /// Linear and angular acceleration of every body at its centre of mass
    /// (m/s^2, rad/s^2, world); zero for fixed bodies.
    pub accelerations: Vec<Twist>,
    /// Normal force of every contact (N, >= 0), on body b along the normal.
    pub normal_forces: Vec<f64>,
    /// Friction force of every contact on body b (N, world).
    pub friction_forces: Vec<DVec3>,
    /// Every contact at this state.
    pub kinematics: Vec<ContactKinematics>,
    /// The first sliding contact whose normal force accelerates its own gap
    /// closed (`A_ii <= 0`): Painleve's indeterminacy is possible there.
    pub indeterminate: Option<usize>,
    /// Pivots the LCP solver took.
    pub pivots: usize,
}

/// Solves the acceleration-level contact problem; owns its workspace, so a
/// second solve of the same size allocates nothing.
#[derive(Debug)]
pub struct AccelerationProblem {
    rows: RowProblem,
    wrenches: Vec<Wrench>,
    /// Accelerations under the applied forces alone.
    free: Vec<Twist>,
    planar: RowSet,
    /// Per contact (whose normal unknown is its index): its friction rows.
    friction: Vec<FrictionRows>,
}

/// Where a contact's friction is in the rows.
#[derive(Clone, Copy, Debug)]
enum FrictionRows {
    /// Frictionless.
    None,
    /// Two tangent unknowns from `first`, along `t1` and `t2`.
    Static { first: usize, t1: DVec3, t2: DVec3 },
    /// The slip row `row` (not an unknown), along `direction`.
    Sliding { row: usize, direction: DVec3 },
}

impl AccelerationProblem {
    /// A problem whose LCPs are solved with `solver`.
    #[must_use]
    pub fn new(solver: SolverParams) -> Self {
        Self {
            rows: RowProblem::new(solver),
            wrenches: Vec::new(),
            free: Vec::new(),
            planar: RowSet::default(),
            friction: Vec::new(),
        }
    }

    /// The contact forces and the bodies' accelerations at `input`'s state.
    ///
    /// # Errors
    /// [`DynamicsError::Painleve`] when no contact forces satisfy the
    /// conditions and a contact slides; [`DynamicsError::Lcp`] when the
    /// solvers fail on a problem without sliding contacts;
    /// [`DynamicsError::InvalidContact`] for a contact without a friction
    /// mode, naming a body outside `bodies`, or the same body twice;
    /// [`DynamicsError::InvalidParameter`] when `states` are not one per
    /// body.
    pub fn solve(
        &mut self,
        input: &AccelerationInput<'_>,
        out: &mut AccelerationSolution,
    ) -> Result<(), DynamicsError> {
        check_input(input)?;
        self.applied_accelerations(input);
        out.kinematics.clear();
        out.kinematics
            .extend(input.contacts.iter().map(|c| c.kinematics(input.states)));
        self.build_rows(input, &out.kinematics);
        let states = input.states;
        self.rows.assemble(states);
        self.fold_sliding_friction(input.contacts);
        self.fill_offsets(input, &out.kinematics);

        out.accelerations.clear();
        out.accelerations.extend_from_slice(&self.free);
        out.normal_forces.clear();
        out.friction_forces.clear();
        out.indeterminate = None;
        out.pivots = 0;
        if self.rows.unknowns() > 0 {
            // Only sliding friction makes the answer's accelerations
            // non-unique (a symmetric problem is a convex program).
            let sliding = input
                .modes
                .iter()
                .any(|mode| matches!(mode, FrictionMode::Sliding { .. }));
            let solved = self.rows.solve(sliding);
            if let Err(error) = solved {
                return Err(self.failure(input, error));
            }
            out.pivots = self.rows.solution.pivots;
        }
        out.indeterminate = self.indeterminate(input);
        self.apply(input, out);
        Ok(())
    }

    /// Keeps the forces of the last successful [`solve`](Self::solve) as
    /// the reference the next solves start from (`false` forgets them):
    /// with sliding friction a problem may have several answers (Baraff
    /// 1994, sec. 6), and a solve warm-started from the reference (Lemke's
    /// method from its basis) keeps the same one while it stays feasible,
    /// so the forces are continuous over an ODE step instead of jumping
    /// between answers of states an instant apart. For use while the
    /// contacts and their modes are unchanged; a reference of another size
    /// is not used, nor one for a problem without sliding contacts (whose
    /// accelerations are unique). Every answer is certified either way.
    pub fn keep_reference(&mut self, keep: bool) {
        self.rows.keep_reference(keep);
    }

    /// The reference kept by [`keep_reference`](Self::keep_reference): the
    /// unknowns of the answer the next solves keep to (empty: none). Part
    /// of what a stepper carries from one solve to the next, so saved with
    /// it.
    #[must_use]
    pub fn reference(&self) -> &[f64] {
        self.rows.reference()
    }

    /// Replaces the kept reference by `reference` (from
    /// [`reference`](Self::reference) of a problem with the same settings;
    /// empty: none).
    ///
    /// # Errors
    /// [`DynamicsError::InvalidParameter`] when a value is not finite; the
    /// reference is then unchanged.
    pub fn restore_reference(&mut self, reference: &[f64]) -> Result<(), DynamicsError> {
        if let Some(&value) = reference.iter().find(|x| !x.is_finite()) {
            return Err(DynamicsError::InvalidParameter {
                name: "reference",
                value,
            });
        }
        self.rows.set_reference(reference);
        Ok(())
    }

    /// The bodies' accelerations under the applied forces alone at the
    /// state of the last [`solve`](Self::solve), whether or not it
    /// succeeded (the free flight of an impulsive step).
    #[must_use]
    pub fn free_accelerations(&self) -> &[Twist] {
        &self.free
    }

    /// `a = g + (f - c v) / m`, `alpha = I^-1 (tau - w x I w - c w)`.
    fn applied_accelerations(&mut self, input: &AccelerationInput<'_>) {
        self.wrenches.clear();
        self.wrenches.resize(input.bodies.len(), Wrench::ZERO);
        for element in input.forces {
            element.add_as_force(input.states, input.time, &mut self.wrenches);
        }
        self.free.clear();
        for ((body, state), wrench) in input.bodies.iter().zip(input.states).zip(&self.wrenches) {
            let Some(mass) = body.mass_properties() else {
                self.free.push(Twist::ZERO);
                continue;
            };
            let loads = body.applied_loads();
            let (linear_damping, angular_damping) = body.damping();
            let (v, w) = (state.twist.linear, state.twist.angular);
            let inertia = mass.world_inertia(state.pose.rotation);
            let force = loads.force + wrench.force - linear_damping * v;
            let torque =
                loads.torque + wrench.torque - gyroscopic_torque(inertia, w) - angular_damping * w;
            self.free.push(Twist::new(
                input.gravity + state.inv_mass * force,
                state.inv_inertia * torque,
            ));
        }
    }

    /// Unknowns: every normal, then two tangents per static contact, then
    /// the planar locks' rows; after them, one slip row per sliding contact.
    fn build_rows(&mut self, input: &AccelerationInput<'_>, kinematics: &[ContactKinematics]) {
        let states = input.states;
        let row = |contact: &TrackedContact, kin: &ContactKinematics, direction| {
            JacobianRow::relative_velocity(
                states,
                contact.body_a,
                contact.body_b,
                kin.point,
                direction,
            )
        };
        self.rows.clear();
        self.friction.clear();
        for (contact, kin) in input.contacts.iter().zip(kinematics) {
            self.rows
                .push_unknown(row(contact, kin, kin.normal), UnknownBounds::NonNegative);
        }
        for (i, ((contact, kin), mode)) in input
            .contacts
            .iter()
            .zip(kinematics)
            .zip(input.modes)
            .enumerate()
        {
            let friction = match *mode {
                _ if contact.friction == 0.0 => FrictionRows::None,
                FrictionMode::Static => {
                    let (t1, t2) = self.static_tangents(contact, kin, states);
                    let bounds = UnknownBounds::Friction {
                        normal: i,
                        mu: contact.friction,
                    };
                    let first = self.rows.push_unknown(row(contact, kin, t1), bounds);
                    self.rows.push_unknown(row(contact, kin, t2), bounds);
                    FrictionRows::Static { first, t1, t2 }
                }
                FrictionMode::Sliding { reference } => {
                    let slip = kin.slip;
                    let direction = if slip.dot(reference) > 0.0 {
                        slip.normalize()
                    } else {
                        reference
                    };
                    // The row is appended after every unknown, below.
                    FrictionRows::Sliding { row: 0, direction }
                }
            };
            self.friction.push(friction);
        }
        self.planar.clear();
        for (i, body) in input.bodies.iter().enumerate() {
            if let Some(lock) = body.planar_lock(i)
                && body.is_dynamic()
            {
                self.planar
                    .begin(crate::ConstraintRef::PlanarLock(i), i as u64);
                lock.emit_rows(states, 0.0, &mut self.planar);
            }
        }
        for planar in self.planar.rows() {
            self.rows.push_unknown(planar.jacobian, UnknownBounds::Free);
        }
        for ((contact, kin), friction) in input
            .contacts
            .iter()
            .zip(kinematics)
            .zip(&mut self.friction)
        {
            if let FrictionRows::Sliding {
                row: index,
                direction,
            } = friction
            {
                *index = self.rows.rows.len();
                self.rows.rows.push(row(contact, kin, *direction));
            }
        }
    }

    /// The tangent pair of a static contact: `t1` along the slip's free
    /// acceleration (applied forces and velocity products) when it has one.
    fn static_tangents(
        &self,
        contact: &TrackedContact,
        kin: &ContactKinematics,
        states: &[BodyState],
    ) -> (DVec3, DVec3) {
        let n = kin.normal;
        let at = |body: usize| {
            let free = self.free[body];
            free.linear + free.angular.cross(kin.point - states[body].centre())
        };
        let relative =
            at(contact.body_b) - at(contact.body_a) + contact.slip_curvature(kin, states);
        let tangential = relative - n * n.dot(relative);
        let scale = relative.length().max(1.0);
        if tangential.length() > 1e-9 * scale {
            let t1 = tangential.normalize();
            (t1, n.cross(t1))
        } else {
            tangent_pair(n)
        }
    }

    /// `A`'s columns of the sliding contacts: `J W (J_n - mu J_s)'`.
    fn fold_sliding_friction(&mut self, contacts: &[TrackedContact]) {
        let n = self.rows.unknowns();
        for (j, (contact, friction)) in contacts.iter().zip(&self.friction).enumerate() {
            if let FrictionRows::Sliding { row, .. } = *friction {
                for i in 0..n {
                    self.rows.matrix[(i, j)] -= contact.friction * self.rows.gram[(i, row)];
                }
            }
        }
    }

    /// `b`: each unknown's row applied to the free accelerations, plus its
    /// velocity-product term.
    fn fill_offsets(&mut self, input: &AccelerationInput<'_>, kinematics: &[ContactKinematics]) {
        let rows = &mut self.rows;
        for u in 0..rows.unknowns() {
            rows.offsets[u] = rows.rows[u].apply(|body| self.free[body]);
        }
        for (i, (contact, kin)) in input.contacts.iter().zip(kinematics).enumerate() {
            rows.offsets[i] += kin.normal_curvature;
            if let FrictionRows::Static { first, t1, t2 } = self.friction[i] {
                let term = contact.slip_curvature(kin, input.states) + input.slip_decay * kin.slip;
                rows.offsets[first] += t1.dot(term);
                rows.offsets[first + 1] += t2.dot(term);
            }
        }
    }

    /// The error of a failed solve: Painleve's inconsistency when a contact
    /// slides (naming the sliding contact with the smallest `A_ii`).
    fn failure(
        &self,
        input: &AccelerationInput<'_>,
        error: contact_lcp::LcpError,
    ) -> DynamicsError {
        let sliding = (0..input.contacts.len())
            .filter(|&i| matches!(self.friction[i], FrictionRows::Sliding { .. }))
            .min_by(|&i, &j| self.rows.matrix[(i, i)].total_cmp(&self.rows.matrix[(j, j)]));
        match sliding {
            Some(contact) => DynamicsError::Painleve { contact },
            None => DynamicsError::Lcp(error),
        }
    }

    /// The first sliding contact with `A_ii <= 0`.
    fn indeterminate(&self, input: &AccelerationInput<'_>) -> Option<usize> {
        (0..input.contacts.len()).find(|&i| {
            matches!(self.friction[i], FrictionRows::Sliding { .. })
                && self.rows.matrix[(i, i)] <= 0.0
        })
    }

    /// The bodies' accelerations and the contact forces from the LCP's answer.
    fn apply(&self, input: &AccelerationInput<'_>, out: &mut AccelerationSolution) {
        let z = &self.rows.solution.z;
        let n = self.rows.unknowns();
        for (u, &force) in z.iter().enumerate().take(n) {
            self.rows.apply(u, force, &mut out.accelerations);
        }
        for (i, contact) in input.contacts.iter().enumerate() {
            let normal = z[i];
            out.normal_forces.push(normal);
            let friction = match self.friction[i] {
                FrictionRows::None => DVec3::ZERO,
                FrictionRows::Static { first, t1, t2 } => z[first] * t1 + z[first + 1] * t2,
                FrictionRows::Sliding { row, direction } => {
                    let magnitude = -contact.friction * normal;
                    self.rows.apply(row, magnitude, &mut out.accelerations);
                    magnitude * direction
                }
            };
            out.friction_forces.push(friction);
        }
    }
}

/// The input's contacts against its bodies and modes (see
/// [`AccelerationProblem::solve`]).
fn check_input(input: &AccelerationInput<'_>) -> Result<(), DynamicsError> {
    let bodies = input.bodies.len();
    if input.modes.len() != input.contacts.len() {
        return Err(DynamicsError::InvalidContact {
            contact: input.modes.len().min(input.contacts.len()),
            reason: "every contact needs one friction mode",
        });
    }
    if input.states.len() != bodies {
        return Err(DynamicsError::InvalidParameter {
            name: "states (one per body)",
            value: input.states.len() as f64,
        });
    }
    for (contact, c) in input.contacts.iter().enumerate() {
        let reason = if c.body_a >= bodies || c.body_b >= bodies {
            "it names a body that does not exist"
        } else if c.body_a == c.body_b {
            "it names the same body twice"
        } else {
            continue;
        };
        return Err(DynamicsError::InvalidContact { contact, reason });
    }
    Ok(())
}
