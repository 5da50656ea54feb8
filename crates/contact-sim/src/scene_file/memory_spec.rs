//! What a stepper carries from one step into the next, as a snapshot
//! writes it (`memory` in each stepper's block): with it a restored run
//! continues bit for bit. Written by `Scene::snapshot`; leave it out of
//! scenes written by hand. Each is checked on load like every other field
//! (finite numbers, ranges, order, bodies that exist), with its JSON path.

use contact_dynamics::{ContactFeature, StepMemory, TrackedContact};
use contact_lcp::RowState;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Vec3;
use super::error::{JsonPath, SceneError};
use crate::{CaMemory, EventDrivenMemory};

/// What a fixed stepper carries between steps (see `StepMemory`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct StepMemorySpec {
    /// Impacts to resolve in the next step: `[contact key, separating
    /// speed (m/s)]`, keys increasing.
    pub pending_bounces: Vec<(u64, f64)>,
    /// The last step's active sets: `[constraint key, row offset, state]`,
    /// increasing.
    pub active_sets: Vec<(u64, usize, RowStateSpec)>,
    /// The impulse (N s) of each row of `active_sets`, in its order: the
    /// centre of the next factored solve (empty in files of earlier
    /// versions: zeros).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub impulses: Vec<f64>,
}

/// Where a row of a box problem sat in the last answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RowStateSpec {
    /// At its lower bound.
    Lower,
    /// At its upper bound.
    Upper,
    /// Between its bounds.
    Free,
}

impl StepMemorySpec {
    /// The memory described; `path` names this field in an error (the
    /// lists' order and values are checked by `StepMemory::validate` when
    /// a stepper takes it).
    pub(crate) fn memory(&self, path: &JsonPath) -> Result<StepMemory, SceneError> {
        let (rows, impulses) = (self.active_sets.len(), self.impulses.len());
        if impulses != 0 && impulses != rows {
            return Err(path.field("impulses").error(format!(
                "has {impulses} entries, expected one per active_sets row ({rows}) or none"
            )));
        }
        Ok(StepMemory {
            pending_bounces: self.pending_bounces.clone(),
            active_sets: self
                .active_sets
                .iter()
                .enumerate()
                .map(|(k, &(key, offset, state))| {
                    let state = match state {
                        RowStateSpec::Lower => RowState::Lower,
                        RowStateSpec::Upper => RowState::Upper,
                        RowStateSpec::Free => RowState::Free,
                    };
                    let impulse = self.impulses.get(k).copied().unwrap_or(0.0);
                    (key, offset, state, impulse)
                })
                .collect(),
        })
    }

    pub(crate) fn of(memory: &StepMemory) -> Self {
        Self {
            pending_bounces: memory.pending_bounces.clone(),
            active_sets: memory
                .active_sets
                .iter()
                .map(|&(key, offset, state, _)| {
                    let state = match state {
                        RowState::Lower => RowStateSpec::Lower,
                        RowState::Upper => RowStateSpec::Upper,
                        RowState::Free => RowStateSpec::Free,
                    };
                    (key, offset, state)
                })
                .collect(),
            impulses: memory.active_sets.iter().map(|e| e.3).collect(),
        }
    }
}

/// What the conservative-advancement stepper carries between steps (see
/// `CaMemory`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CaMemorySpec {
    /// The pairs of bodies held touching: `[a, b]`, indices in `bodies`,
    /// `a < b`, increasing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<(usize, usize)>,
    /// The measured sinking of turning contact points (m/s^2, >= 0).
    #[serde(skip_serializing_if = "super::is_zero")]
    pub drift: f64,
    /// The cull distance the pairs at this state were measured with (m,
    /// > 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cull_distance: Option<f64>,
    /// The velocity step's memory (pending bounces, warm starts).
    #[serde(skip_serializing_if = "is_empty_step_memory")]
    pub dynamics: StepMemorySpec,
}

fn is_empty_step_memory(memory: &StepMemorySpec) -> bool {
    *memory == StepMemorySpec::default()
}

impl CaMemorySpec {
    /// The description of `memory`.
    pub(crate) fn of(memory: &CaMemory) -> Self {
        Self {
            held: memory.held.clone(),
            drift: memory.drift,
            cull_distance: memory.cull_distance,
            dynamics: StepMemorySpec::of(&memory.dynamics),
        }
    }

    /// The memory, checked; `path` is this block's, `bodies` the number of
    /// bodies.
    pub(crate) fn memory(&self, path: &JsonPath, bodies: usize) -> Result<CaMemory, SceneError> {
        let held = path.field("held");
        for (i, &(a, b)) in self.held.iter().enumerate() {
            let entry = held.index(i);
            if a >= b {
                return Err(entry.error("a pair is [a, b] with a < b"));
            }
            if b >= bodies {
                return Err(entry.index(1).error(format!(
                    "no body {b}: the scene has {bodies} (indices from 0)"
                )));
            }
            if i > 0 && self.held[i - 1] >= (a, b) {
                return Err(entry.error("pairs must increase"));
            }
        }
        let drift = path.field("drift").non_negative(self.drift)?;
        let cull_distance = match self.cull_distance {
            Some(cull) => Some(path.field("cull_distance").positive(cull)?),
            None => None,
        };
        let dynamics = self.dynamics.memory(&path.field("dynamics"))?;
        dynamics
            .validate()
            .map_err(|e| path.field("dynamics").error(e.to_string()))?;
        Ok(CaMemory {
            held: self.held.clone(),
            drift,
            cull_distance,
            dynamics,
        })
    }
}

/// What the event-driven stepper carries between steps (see
/// `EventDrivenMemory`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventDrivenMemorySpec {
    /// The step Dormand-Prince tries next (s, > 0).
    pub next_step: f64,
    /// Steps in a row that made no progress in time.
    #[serde(default, skip_serializing_if = "is_zero_count")]
    pub stalls: usize,
    /// The resting contacts that slid at the last classification.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sliding: Vec<TrackedContactSpec>,
    /// The sliding contact flagged as indeterminate, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indeterminate: Option<TrackedContactSpec>,
    /// The unknowns of the last contact forces, which the next solves keep
    /// to where the forces are not unique.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_forces: Vec<f64>,
}

fn is_zero_count(count: &usize) -> bool {
    *count == 0
}

impl EventDrivenMemorySpec {
    /// The description of `memory`.
    pub(crate) fn of(memory: &EventDrivenMemory) -> Self {
        Self {
            next_step: memory.next_step,
            stalls: memory.stalls,
            sliding: memory.sliding.iter().map(TrackedContactSpec::of).collect(),
            indeterminate: memory.indeterminate.as_ref().map(TrackedContactSpec::of),
            reference_forces: memory.reference_forces.clone(),
        }
    }

    /// The memory, checked; `path` is this block's, `bodies` the number of
    /// bodies.
    pub(crate) fn memory(
        &self,
        path: &JsonPath,
        bodies: usize,
    ) -> Result<EventDrivenMemory, SceneError> {
        let next_step = path.field("next_step").positive(self.next_step)?;
        let sliding = path.field("sliding");
        let sliding = (self.sliding.iter().enumerate())
            .map(|(i, contact)| contact.contact(&sliding.index(i), bodies))
            .collect::<Result<_, _>>()?;
        let indeterminate = match &self.indeterminate {
            Some(contact) => Some(contact.contact(&path.field("indeterminate"), bodies)?),
            None => None,
        };
        let forces = path.field("reference_forces");
        for (i, &force) in self.reference_forces.iter().enumerate() {
            forces.index(i).finite(force)?;
        }
        Ok(EventDrivenMemory {
            next_step,
            stalls: self.stalls,
            sliding,
            indeterminate,
            reference_forces: self.reference_forces.clone(),
        })
    }
}

/// A contact followed by its features (see `TrackedContact`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrackedContactSpec {
    /// The two bodies `[a, b]`: indices in `bodies`, different.
    pub bodies: (usize, usize),
    /// The feature of each body, in its own frame.
    pub features: (ContactFeatureSpec, ContactFeatureSpec),
    /// Coulomb friction coefficient of the pair (>= 0).
    pub friction: f64,
    /// Newton's coefficient of restitution of the pair (0 to 1).
    #[serde(default, skip_serializing_if = "super::is_zero")]
    pub restitution: f64,
    /// Which way two edges' normal `e_a x e_b` is turned to point from a
    /// to b: 1 or -1.
    #[serde(default = "positive_sign", skip_serializing_if = "is_positive_sign")]
    pub edge_sign: i8,
}

fn positive_sign() -> i8 {
    1
}

fn is_positive_sign(sign: &i8) -> bool {
    *sign == 1
}

/// What a contact follows on one body, in the body's frame (origin at the
/// centre of mass; see `ContactFeature`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum ContactFeatureSpec {
    /// A point of the body (m), with the radius of a sphere around it (m,
    /// >= 0).
    Point {
        /// The point (m, body frame).
        local: Vec3,
        /// Radius of the sphere around it (m, >= 0).
        radius: f64,
    },
    /// A straight edge: the line through `local` along the unit
    /// `direction`.
    Edge {
        /// A point of the line (m, body frame).
        local: Vec3,
        /// Unit direction (body frame).
        direction: Vec3,
    },
    /// A flat face: the plane through `local` with unit outward `normal`.
    Face {
        /// A point of the plane (m, body frame).
        local: Vec3,
        /// Unit outward normal (body frame).
        normal: Vec3,
    },
}

impl ContactFeatureSpec {
    fn of(feature: &ContactFeature) -> Self {
        match *feature {
            ContactFeature::Point { local, radius } => Self::Point {
                local: local.to_array(),
                radius,
            },
            ContactFeature::Edge { local, direction } => Self::Edge {
                local: local.to_array(),
                direction: direction.to_array(),
            },
            ContactFeature::Face { local, normal } => Self::Face {
                local: local.to_array(),
                normal: normal.to_array(),
            },
        }
    }

    /// The feature, every number finite; `path` is this feature's.
    fn feature(&self, path: &JsonPath) -> Result<ContactFeature, SceneError> {
        Ok(match *self {
            Self::Point { local, radius } => {
                let path = path.field("point");
                ContactFeature::Point {
                    local: path.field("local").finite_vector(local)?,
                    radius: path.field("radius").non_negative(radius)?,
                }
            }
            Self::Edge { local, direction } => {
                let path = path.field("edge");
                ContactFeature::Edge {
                    local: path.field("local").finite_vector(local)?,
                    direction: path.field("direction").finite_vector(direction)?,
                }
            }
            Self::Face { local, normal } => {
                let path = path.field("face");
                ContactFeature::Face {
                    local: path.field("local").finite_vector(local)?,
                    normal: path.field("normal").finite_vector(normal)?,
                }
            }
        })
    }
}

impl TrackedContactSpec {
    fn of(contact: &TrackedContact) -> Self {
        Self {
            bodies: (contact.body_a, contact.body_b),
            features: (
                ContactFeatureSpec::of(&contact.feature_a),
                ContactFeatureSpec::of(&contact.feature_b),
            ),
            friction: contact.friction,
            restitution: contact.restitution,
            edge_sign: if contact.edge_sign() < 0.0 { -1 } else { 1 },
        }
    }

    /// The contact, checked; `path` is this contact's.
    fn contact(&self, path: &JsonPath, bodies: usize) -> Result<TrackedContact, SceneError> {
        let (a, b) = self.bodies;
        for (i, body) in [a, b].into_iter().enumerate() {
            if body >= bodies {
                return Err(path.field("bodies").index(i).error(format!(
                    "no body {body}: the scene has {bodies} (indices from 0)"
                )));
            }
        }
        if a == b {
            return Err(path.field("bodies").error("two different bodies"));
        }
        let features = path.field("features");
        let feature_a = self.features.0.feature(&features.index(0))?;
        let feature_b = self.features.1.feature(&features.index(1))?;
        let friction = path.field("friction").non_negative(self.friction)?;
        let restitution = path.field("restitution").non_negative(self.restitution)?;
        if restitution > 1.0 {
            return Err(path.field("restitution").error("must be <= 1"));
        }
        let edge_sign = match self.edge_sign {
            1 => 1.0,
            -1 => -1.0,
            _ => return Err(path.field("edge_sign").error("must be 1 or -1")),
        };
        let contact = TrackedContact::from_parts((a, feature_a), (b, feature_b), edge_sign)
            .map_err(|reason| features.error(reason))?;
        Ok(contact.with_material(friction, restitution))
    }
}
