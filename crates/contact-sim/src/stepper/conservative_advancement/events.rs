//! The event log of conservative advancement: every change of a contact
//! manifold (Drumwright 2016, sec. 3: the events whose times CA locates),
//! and every step the minimum step had to take.

use std::fmt;

use contact_geometry::{ContactKind, Feature};

use super::pairs::{Pair, PairGeometry};

/// What happened to a pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CaEventKind {
    /// The pair came within the touch distance: a manifold appeared.
    Touch,
    /// The pair moved beyond the touch distance: its manifold vanished.
    Separate,
    /// The pair still touches by other features (a vertex contact became
    /// an edge or a face contact, or the reverse).
    Change,
    /// The pair's safe bound (s) was below the minimum step, which was
    /// taken instead with the pair's nearby points in the step problem:
    /// Drumwright's bounds could not certify a longer step (a pair closing
    /// in or tilting towards contact faster than the minimum step resolves).
    /// The guarantee still held after the step.
    MinimumStep {
        /// The pair's safe bound (s).
        bound: f64,
    },
}

/// One event of the log.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CaEvent {
    /// When it was observed (s): the end of the step that made it, the
    /// start for [`CaEventKind::MinimumStep`].
    pub time: f64,
    /// First body of the pair (the lower index).
    pub body_a: usize,
    /// Second body of the pair.
    pub body_b: usize,
    /// What happened.
    pub kind: CaEventKind,
    /// The closest features of `body_a` and `body_b` (each shape's own
    /// numbering) after the event; before it for [`CaEventKind::Separate`].
    pub features: [Feature; 2],
    /// How the bodies touch (the separating plane's kind, sec. 3.0.2:
    /// vertex-face, edge-face, face-face are unique, the others are
    /// reported but not treated by the paper), `None` once separated.
    pub contact: Option<ContactKind>,
    /// Signed distance (m) of the pair when observed.
    pub distance: f64,
}

impl fmt::Display for CaEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            CaEventKind::Touch => "touch".to_string(),
            CaEventKind::Separate => "separate".to_string(),
            CaEventKind::Change => "change".to_string(),
            CaEventKind::MinimumStep { bound } => format!("minimum step (bound {bound:.3e} s)"),
        };
        write!(
            f,
            "t = {:.9} s  bodies {}-{}  {kind}  features {:?} / {:?}",
            self.time, self.body_a, self.body_b, self.features[0], self.features[1]
        )?;
        if let Some(contact) = self.contact {
            write!(f, "  {contact:?}")?;
        }
        write!(f, "  distance {:.3e} m", self.distance)
    }
}

/// Appends to `log` the manifold changes from `before` to `after` (pairs
/// in the same order, as `PairGeometry::measure` lists them, though a pair
/// may be missing from either side), observed at `time`; returns how many.
pub(super) fn manifold_changes(
    before: &PairGeometry,
    after: &PairGeometry,
    time: f64,
    log: &mut Vec<CaEvent>,
) -> usize {
    let start = log.len();
    for pair in &after.pairs {
        let old = before.find(pair.a, pair.b);
        let was = old.is_some_and(Pair::is_touching);
        let kind = match (was, pair.is_touching()) {
            (false, true) => CaEventKind::Touch,
            (true, false) => CaEventKind::Separate,
            (true, true) if old.is_some_and(|o| o.features != pair.features) => CaEventKind::Change,
            _ => continue,
        };
        let source = if kind == CaEventKind::Separate {
            old.unwrap_or(pair)
        } else {
            pair
        };
        log.push(CaEvent {
            time,
            body_a: pair.a,
            body_b: pair.b,
            kind,
            features: source.features,
            contact: pair.contact.filter(|_| pair.touches).map(|t| t.kind),
            distance: pair.distance,
        });
    }
    log.len() - start
}
