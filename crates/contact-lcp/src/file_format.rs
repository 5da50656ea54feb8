//! The LCP file format (feature `serde`): problems in ([`ProblemFile`]),
//! solution lines out ([`SolutionLine`]). The format is documented on those
//! two types and in `docs/lcp-file-format.md`.

use faer::Mat;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::Serializer;

use crate::box_problem::{BoxLcp, Coupling};
use crate::error::LcpError;
use crate::problem::Lcp;
use crate::solution::{LcpSolution, Method};

/// A problem as stored in a file (feature `serde`): the plain data, not
/// yet validated beyond the types of its entries.
///
/// # Format
///
/// A problem is one object (shown as JSON; any self-describing serde format
/// works):
///
/// ```text
/// {"M": [[2, 1], [1, 2]],          n rows of n numbers, row-major
///  "q": [-1, 1],                   n numbers
///  "lo": [0, "-inf"],              optional: n bounds, default 0
///  "hi": ["inf", "inf"],           optional: n bounds, default "inf"
///  "coupling": [{"row": 1, "normal_row": 0, "mu": 0.5}]}   optional
/// ```
///
/// with `w = M z + q`. A bound is a number or one of the strings `"inf"` and
/// `"-inf"` (JSON has no infinity). When `lo`, `hi` and `coupling` are all
/// absent (or `null`) the file is a plain [`Lcp`] (`z >= 0`, `w >= 0`,
/// `z'w = 0`); when any is present it is a [`BoxLcp`], with the missing
/// bounds defaulting to those of a plain LCP (`lo = 0`, `hi = +inf`) and the
/// couplings to none. A coupling `{"row": i, "normal_row": j, "mu": m}` makes
/// the bounds of friction row `i` equal to `[-m z_j, m z_j]` (see
/// [`Coupling`]). Unknown fields are errors.
///
/// Reading is two steps, each error naming its field: deserialising checks
/// types (e.g. `lo[2] is "infinity": expected a number, "inf" or "-inf"`),
/// [`ProblemFile::into_problem`] shapes and values, through [`Lcp::new`] and
/// [`BoxLcp::new`] (e.g. `M[3] has 4 entries, expected 5`).
///
/// Writing ([`ProblemFile::from_lcp`], [`ProblemFile::from_box`], then
/// serialise) gives the same layout, with infinite bounds as strings; read
/// back, it is the same problem to the bit if the parser reads numbers
/// exactly (serde_json: enable its `float_roundtrip` feature).
///
/// ```
/// use contact_lcp::{LcpProblem, ProblemFile};
///
/// let file = ProblemFile {
///     m: vec![vec![2.0, 1.0], vec![1.0, 2.0]],
///     q: vec![-1.0, 1.0],
///     ..ProblemFile::default()
/// };
/// let LcpProblem::Plain(lcp) = file.into_problem()? else { unreachable!() };
/// assert_eq!(lcp.dim(), 2);
/// # Ok::<(), contact_lcp::LcpError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ProblemFile {
    /// `M`, row by row (field `"M"`): `n` rows of `n` entries.
    #[serde(rename = "M")]
    pub m: Vec<Vec<f64>>,
    /// `q`, `n` entries.
    pub q: Vec<f64>,
    /// Lower bounds (`"lo"`), each in `[-inf, 0]`; `None` means all 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "write_bounds")]
    pub lo: Option<Vec<f64>>,
    /// Upper bounds (`"hi"`), each in `[0, +inf]`; `None` means all `+inf`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "write_bounds")]
    pub hi: Option<Vec<f64>>,
    /// Friction couplings (`"coupling"`); `None` means none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coupling: Option<Vec<Coupling>>,
}

/// A validated problem read from a file: a plain LCP or a box LCP.
#[derive(Clone, Debug)]
pub enum LcpProblem {
    /// No bounds or couplings in the file: `z >= 0`, `w >= 0`, `z'w = 0`.
    Plain(Lcp),
    /// Bounds or couplings in the file.
    Box(BoxLcp),
}

impl LcpProblem {
    /// The dimension `n`.
    #[must_use]
    pub fn dim(&self) -> usize {
        match self {
            Self::Plain(lcp) => lcp.dim(),
            Self::Box(problem) => problem.dim(),
        }
    }
}

impl ProblemFile {
    /// The file form of a plain LCP (no `lo`, `hi` or `coupling`).
    #[must_use]
    pub fn from_lcp(lcp: &Lcp) -> Self {
        let (m, n) = (lcp.m(), lcp.dim());
        Self {
            m: (0..n)
                .map(|i| (0..n).map(|j| m[(i, j)]).collect())
                .collect(),
            q: lcp.q().to_vec(),
            ..Self::default()
        }
    }

    /// The file form of a box LCP (always with `lo` and `hi`; with
    /// `coupling` when there are couplings).
    #[must_use]
    pub fn from_box(problem: &BoxLcp) -> Self {
        let couplings = problem.couplings();
        Self {
            lo: Some(problem.lo().to_vec()),
            hi: Some(problem.hi().to_vec()),
            coupling: (!couplings.is_empty()).then(|| couplings.to_vec()),
            ..Self::from_lcp(problem.lcp())
        }
    }

    /// The file form of either kind of problem.
    #[must_use]
    pub fn from_problem(problem: &LcpProblem) -> Self {
        match problem {
            LcpProblem::Plain(lcp) => Self::from_lcp(lcp),
            LcpProblem::Box(problem) => Self::from_box(problem),
        }
    }

    /// Validates the data and builds the problem: an [`LcpProblem::Plain`]
    /// when `lo`, `hi` and `coupling` are all `None`, else an
    /// [`LcpProblem::Box`].
    ///
    /// # Errors
    ///
    /// [`LcpError::InvalidField`] naming the field, for: `M` without `n =
    /// q.len()` rows or a row `M[i]` without `n` entries; a NaN or infinite
    /// `M[i][j]` or `q[i]`; `lo` or `hi` without `n` entries; a bound
    /// `lo[i] > 0` or `hi[i] < 0` (or NaN); a coupling whose `row` or
    /// `normal_row` is out of range, or that is otherwise invalid (the
    /// reasons of [`BoxBounds::new`](crate::BoxBounds::new), naming
    /// `coupling[k]` or its field).
    pub fn into_problem(self) -> Result<LcpProblem, LcpError> {
        let n = self.q.len();
        if self.m.len() != n {
            let rows = self.m.len();
            return Err(field(
                "M",
                format!("has {rows} rows, expected {n} (the length of q)"),
            ));
        }
        if let Some((i, row)) = self.m.iter().enumerate().find(|(_, r)| r.len() != n) {
            let found = row.len();
            return Err(field(
                format!("M[{i}]"),
                format!("has {found} entries, expected {n}"),
            ));
        }
        let is_box = self.lo.is_some() || self.hi.is_some() || self.coupling.is_some();
        let m = Mat::from_fn(n, n, |i, j| self.m[i][j]);
        let lcp = Lcp::new(m, self.q).map_err(|e| match e {
            LcpError::NonFinite {
                what: "m",
                row,
                col,
            } => field(format!("M[{row}][{col}]"), "is not finite"),
            LcpError::NonFinite { row, .. } => field(format!("q[{row}]"), "is not finite"),
            other => other,
        })?;
        if !is_box {
            return Ok(LcpProblem::Plain(lcp));
        }
        let lo = self.lo.unwrap_or_else(|| vec![0.0; n]);
        let hi = self.hi.unwrap_or_else(|| vec![f64::INFINITY; n]);
        for (name, bounds) in [("lo", &lo), ("hi", &hi)] {
            if bounds.len() != n {
                let found = bounds.len();
                return Err(field(name, format!("has {found} entries, expected {n}")));
            }
        }
        let couplings = self.coupling.unwrap_or_default();
        let (m, q) = lcp.into_parts();
        // The bounds and couplings are kept to name the values behind an error.
        BoxLcp::new(m, q, lo.clone(), hi.clone(), couplings.clone())
            .map(LcpProblem::Box)
            .map_err(|e| match e {
                LcpError::InvalidBounds { row, lo: l, .. } if l.is_nan() || l > 0.0 => field(
                    format!("lo[{row}]"),
                    format!("is {l}: a lower bound must be <= 0 (a number or \"-inf\")"),
                ),
                LcpError::InvalidBounds { row, hi: h, .. } => field(
                    format!("hi[{row}]"),
                    format!("is {h}: an upper bound must be >= 0 (a number or \"inf\")"),
                ),
                LcpError::InvalidCoupling {
                    coupling: k,
                    row,
                    normal_row: j,
                    reason,
                } => {
                    let out_of_range = |r| format!("out of range: {r}, the problem has {n} rows");
                    let (name, why) = match reason {
                        "row out of range" => ("row", out_of_range(row)),
                        "normal row out of range" => ("normal_row", out_of_range(j)),
                        "mu must be finite and >= 0" => {
                            let mu = couplings[k].mu;
                            ("mu", format!("is {mu}: must be finite and >= 0"))
                        }
                        "normal row must have bounds [0, +inf]" => (
                            "normal_row",
                            format!(
                                "is row {j}, whose bounds are [{}, {}]: a normal row must have \
                                 bounds [0, \"inf\"]",
                                lo[j], hi[j]
                            ),
                        ),
                        "normal row is itself coupled" => (
                            "normal_row",
                            format!("is row {j}, which is itself a coupled friction row"),
                        ),
                        other => {
                            let why = format!("(row {row}, normal_row {j}) is invalid: {other}");
                            return field(format!("coupling[{k}]"), why);
                        }
                    };
                    field(format!("coupling[{k}].{name}"), why)
                }
                other => other,
            })
    }
}

fn field(name: impl Into<String>, reason: impl Into<String>) -> LcpError {
    LcpError::InvalidField {
        field: name.into(),
        reason: reason.into(),
    }
}

/// Writes bounds as numbers, infinite ones as `"inf"` / `"-inf"`.
fn write_bounds<S: Serializer>(bounds: &Option<Vec<f64>>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(serde::Serialize)]
    #[serde(untagged)]
    enum Bound {
        Number(f64),
        Text(&'static str),
    }
    s.collect_seq(bounds.iter().flatten().map(|&b| match b {
        f64::INFINITY => Bound::Text("inf"),
        f64::NEG_INFINITY => Bound::Text("-inf"),
        _ => Bound::Number(b),
    }))
}

// Reading: any value first, then checked with the path of each entry.

/// Any value of the data model, so a wrong type is reported with the path
/// of the entry rather than the deserialiser's position.
#[derive(Clone, Debug, PartialEq)]
enum Raw {
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
    List(Vec<Raw>),
    Map(Vec<(String, Raw)>),
}

impl Raw {
    /// The error for this value at `name`, which is not what was `expected`.
    fn wrong(&self, name: &dyn Fn() -> String, expected: &str) -> LcpError {
        let found = match self {
            Self::Null => "null".into(),
            Self::Bool(b) => b.to_string(),
            Self::Number(x) => x.to_string(),
            Self::Text(s) => format!("{s:?}"),
            Self::List(_) => "an array".into(),
            Self::Map(_) => "an object".into(),
        };
        field(name(), format!("is {found}: expected {expected}"))
    }

    /// The items of a list, each read by `read` with its path `name[i]`
    /// (paths are formatted only for an error).
    fn list<T>(
        &self,
        name: &str,
        read: impl Fn(&Raw, &dyn Fn() -> String) -> Result<T, LcpError>,
    ) -> Result<Vec<T>, LcpError> {
        let Self::List(items) = self else {
            return Err(self.wrong(&|| name.into(), "an array"));
        };
        (items.iter().enumerate())
            .map(|(i, x)| read(x, &|| format!("{name}[{i}]")))
            .collect()
    }

    fn number(&self, name: &dyn Fn() -> String) -> Result<f64, LcpError> {
        match self {
            Self::Number(x) => Ok(*x),
            other => Err(other.wrong(name, "a number")),
        }
    }

    fn bound(&self, name: &dyn Fn() -> String) -> Result<f64, LcpError> {
        match self {
            Self::Number(x) => Ok(*x),
            Self::Text(s) if s == "inf" => Ok(f64::INFINITY),
            Self::Text(s) if s == "-inf" => Ok(f64::NEG_INFINITY),
            other => Err(other.wrong(name, "a number, \"inf\" or \"-inf\"")),
        }
    }

    fn index(&self, name: &dyn Fn() -> String) -> Result<usize, LcpError> {
        match self {
            // Exact below 2^53; larger indices are out of range anyway.
            Self::Number(x) if *x >= 0.0 && x.fract() == 0.0 && *x < 9.0e15 => Ok(*x as usize),
            other => Err(other.wrong(name, "a non-negative integer")),
        }
    }

    /// A coupling `{"row": i, "normal_row": j, "mu": m}` at path `name`.
    fn coupling(&self, name: &dyn Fn() -> String) -> Result<Coupling, LcpError> {
        let Self::Map(entries) = self else {
            let expected = "an object {\"row\": i, \"normal_row\": j, \"mu\": m}";
            return Err(self.wrong(name, expected));
        };
        let (mut row, mut normal_row, mut mu) = (None, None, None);
        for (key, value) in entries {
            let path = || format!("{}.{key}", name());
            match key.as_str() {
                "row" => row = Some(value.index(&path)?),
                "normal_row" => normal_row = Some(value.index(&path)?),
                "mu" => mu = Some(value.number(&path)?),
                _ => {
                    return Err(field(
                        path(),
                        "is not a field of a coupling (row, normal_row, mu)",
                    ));
                }
            }
        }
        let missing = |what: &str| field(format!("{}.{what}", name()), "is missing");
        Ok(Coupling {
            row: row.ok_or_else(|| missing("row"))?,
            normal_row: normal_row.ok_or_else(|| missing("normal_row"))?,
            mu: mu.ok_or_else(|| missing("mu"))?,
        })
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Raw, E> {
        Ok(Raw::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw::Number(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Raw, E> {
        Ok(Raw::Number(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Raw, E> {
        Ok(Raw::Number(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw::Text(v.to_owned()))
    }
    fn visit_unit<E>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_none<E>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        Raw::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Raw::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry::<String, Raw>()? {
            entries.push(entry);
        }
        Ok(Raw::Map(entries))
    }
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

/// The top level of a file, each field still raw.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(rename = "M")]
    m: Raw,
    q: Raw,
    #[serde(default)]
    lo: Option<Raw>,
    #[serde(default)]
    hi: Option<Raw>,
    #[serde(default)]
    coupling: Option<Raw>,
}

impl<'de> Deserialize<'de> for ProblemFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawFile::deserialize(d)?;
        let read = || -> Result<Self, LcpError> {
            let bounds = |b: &Raw, name| b.list(name, Raw::bound);
            Ok(Self {
                m: raw
                    .m
                    .list("M", |row, name| row.list(&name(), Raw::number))?,
                q: raw.q.list("q", Raw::number)?,
                lo: raw.lo.as_ref().map(|b| bounds(b, "lo")).transpose()?,
                hi: raw.hi.as_ref().map(|b| bounds(b, "hi")).transpose()?,
                coupling: (raw.coupling.as_ref())
                    .map(|c| c.list("coupling", Raw::coupling))
                    .transpose()?,
            })
        };
        read().map_err(de::Error::custom)
    }
}

/// How a solve ended, as written in a [`SolutionLine`] (snake case:
/// `"solved"`, `"ray_termination"`, ...).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolveStatus {
    /// The solver returned a solution.
    Solved,
    /// Lemke's method ended on a secondary ray ([`LcpError::RayTermination`]):
    /// for a copositive-plus `M` the problem has no solution.
    RayTermination,
    /// The pivot budget ran out ([`LcpError::PivotLimit`]).
    PivotLimit,
    /// The sweep budget ran out before the tolerance
    /// ([`LcpError::IterationLimit`]).
    IterationLimit,
    /// Principal pivoting found no solution along its path
    /// ([`LcpError::NoSolutionOnPath`]): for a positive semidefinite `M` the
    /// problem has none.
    NoSolutionOnPath,
    /// The friction-coupling passes of [`Dantzig`](crate::Dantzig) did not
    /// settle ([`LcpError::CouplingLimit`]).
    CouplingLimit,
    /// The basis became singular ([`LcpError::SingularBasis`]).
    SingularBasis,
    /// The solver's answer did not certify ([`LcpError::NotCertified`]).
    NotCertified,
    /// The problem has no solution ([`LcpError::NoSolution`]).
    NoSolution,
    /// Any other error (bad input or parameters, a solver that does not
    /// apply to the problem).
    Failed,
}

impl SolveStatus {
    /// The status that a solver error stands for.
    #[must_use]
    pub fn of_error(error: &LcpError) -> Self {
        match error {
            LcpError::RayTermination { .. } => Self::RayTermination,
            LcpError::PivotLimit { .. } => Self::PivotLimit,
            LcpError::IterationLimit { .. } => Self::IterationLimit,
            LcpError::NoSolutionOnPath { .. } => Self::NoSolutionOnPath,
            LcpError::CouplingLimit { .. } => Self::CouplingLimit,
            LcpError::SingularBasis { .. } => Self::SingularBasis,
            LcpError::NotCertified { .. } => Self::NotCertified,
            LcpError::NoSolution { .. } => Self::NoSolution,
            _ => Self::Failed,
        }
    }
}

/// One solve as one line of output (feature `serde`): the solution (or the
/// best iterate of a failed solve), its statistics, and the time the caller
/// measured.
///
/// ```text
/// {"z": [...], "w": [...], "method": "Lemke", "pivots": 3, "iterations": 1,
///  "residual": 0.0, "complementarity": 0.0, "status": "solved", "seconds": 1.2e-6}
/// ```
///
/// `method` is the serde form of [`Method`] (`"Lemke"`, `"Dantzig"`,
/// `"ProjectedGaussSeidel"`, ...); `residual` and `complementarity` are
/// the scaled errors of the [`VerifyReport`](crate::VerifyReport)
/// (dimensionless, 0 at an exact solution); `status` is a [`SolveStatus`] in
/// snake case; `seconds` is whatever the caller timed.
/// When the solver failed, the line carries its best iterate (if it had one,
/// else empty `z` and `w` and `null` errors) and a `reason`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SolutionLine {
    /// The unknowns (empty when a failed solve had no iterate to report).
    pub z: Vec<f64>,
    /// `w = M z + q`.
    pub w: Vec<f64>,
    /// The algorithm that produced `z` (or that failed).
    pub method: Method,
    /// Basis exchanges of a pivoting method.
    pub pivots: usize,
    /// Sweeps of an iterative method; refactorisations for Lemke.
    pub iterations: usize,
    /// The scaled natural residual
    /// ([`VerifyReport::scaled_natural_residual`](crate::VerifyReport::scaled_natural_residual));
    /// NaN (`null` in JSON) when there is no iterate.
    #[serde(deserialize_with = "nullable")]
    pub residual: f64,
    /// The scaled complementarity error
    /// ([`VerifyReport::scaled_complementarity`](crate::VerifyReport::scaled_complementarity));
    /// NaN (`null`) when there is no iterate.
    #[serde(deserialize_with = "nullable")]
    pub complementarity: f64,
    /// How the solve ended.
    pub status: SolveStatus,
    /// Time of the solve call, as measured by the caller (s).
    pub seconds: f64,
    /// Why the solve failed (absent when solved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

fn nullable<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

impl SolutionLine {
    /// The line of a successful solve that took `seconds`.
    #[must_use]
    pub fn solved(solution: &LcpSolution, seconds: f64) -> Self {
        Self::of(solution, SolveStatus::Solved, seconds, None)
    }

    /// The line of a failed solve of `method`: the error's best iterate if it
    /// has one, the status of the error and its message as the reason.
    #[must_use]
    pub fn failed(error: &LcpError, method: Method, seconds: f64) -> Self {
        let (status, reason) = (SolveStatus::of_error(error), Some(error.to_string()));
        match error.best() {
            Some(best) => Self::of(best, status, seconds, reason),
            None => Self {
                residual: f64::NAN,
                complementarity: f64::NAN,
                ..Self::of(
                    &LcpSolution {
                        method,
                        ..LcpSolution::default()
                    },
                    status,
                    seconds,
                    reason,
                )
            },
        }
    }

    fn of(s: &LcpSolution, status: SolveStatus, seconds: f64, reason: Option<String>) -> Self {
        Self {
            z: s.z.clone(),
            w: s.w.clone(),
            method: s.method,
            pivots: s.pivots,
            iterations: s.iterations,
            residual: s.report.scaled_natural_residual(),
            complementarity: s.report.scaled_complementarity(),
            status,
            seconds,
            reason,
        }
    }
}
