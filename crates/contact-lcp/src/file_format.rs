//! The LCP file format (feature `serde`): problems in ([`ProblemFile`]),
//! solution lines out ([`SolutionLine`]). The format is documented on those
//! two types and in `docs/lcp-file-format.md`.

use faer::Mat;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeSeq, SerializeStruct, Serializer};

use crate::box_problem::{BoxLcp, Coupling};
use crate::error::LcpError;
use crate::problem::Lcp;
use crate::solution::{LcpSolution, Method};
use crate::verify::VerifyReport;

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
/// Reading is two steps, and each error names the field it is about:
///
/// 1. deserialising a [`ProblemFile`] checks types: every entry of `M`,
///    `q` and `mu` a number, every bound a number, `"inf"` or `"-inf"`,
///    `row` and `normal_row` non-negative integers (e.g. `lo[2] is
///    "infinity": expected a number, "inf" or "-inf"`);
/// 2. [`ProblemFile::into_problem`] checks shapes and values through the
///    validating constructors [`Lcp::new`] and [`BoxLcp::new`], and reports
///    [`LcpError::InvalidField`] (e.g. `M[3] has 4 entries, expected 5`,
///    `coupling[1].normal_row out of range: 7, the problem has 4 rows`).
///
/// Writing ([`ProblemFile::from_lcp`], [`ProblemFile::from_box`], then
/// serialise) gives back the same layout, with infinite bounds as strings.
/// Read back, it is the same problem to the bit if the parser reads
/// numbers exactly: with serde_json, enable its `float_roundtrip` feature
/// (its default parser can be an ulp off).
///
/// # Use
///
/// Build one by deserialising, or from a problem with
/// [`ProblemFile::from_lcp`] / [`ProblemFile::from_box`]; turn it into a
/// solvable problem with [`ProblemFile::into_problem`].
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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProblemFile {
    /// `M`, row by row (field `"M"`): `n` rows of `n` entries.
    pub m: Vec<Vec<f64>>,
    /// `q`, `n` entries.
    pub q: Vec<f64>,
    /// Lower bounds (`"lo"`), each in `[-inf, 0]`; `None` means all 0.
    pub lo: Option<Vec<f64>>,
    /// Upper bounds (`"hi"`), each in `[0, +inf]`; `None` means all `+inf`.
    pub hi: Option<Vec<f64>>,
    /// Friction couplings (`"coupling"`); `None` means none.
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
        let m = lcp.m();
        Self {
            m: (0..lcp.dim())
                .map(|i| (0..lcp.dim()).map(|j| m[(i, j)]).collect())
                .collect(),
            q: lcp.q().to_vec(),
            lo: None,
            hi: None,
            coupling: None,
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

    /// Whether the file describes a box LCP (any of `lo`, `hi`, `coupling`
    /// present).
    #[must_use]
    pub fn is_box(&self) -> bool {
        self.lo.is_some() || self.hi.is_some() || self.coupling.is_some()
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
            return Err(field(
                "M",
                format!("has {} rows, expected {n} (the length of q)", self.m.len()),
            ));
        }
        if let Some((i, row)) = self.m.iter().enumerate().find(|(_, r)| r.len() != n) {
            return Err(field(
                format!("M[{i}]"),
                format!("has {} entries, expected {n}", row.len()),
            ));
        }
        let is_box = self.is_box();
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
                return Err(field(
                    name,
                    format!("has {} entries, expected {n}", bounds.len()),
                ));
            }
        }
        let couplings = self.coupling.unwrap_or_default();
        let (lo_copy, hi_copy) = (lo.clone(), hi.clone());
        let (m, q) = lcp.into_parts();
        BoxLcp::new(m, q, lo, hi, couplings.clone())
            .map(LcpProblem::Box)
            .map_err(|e| match e {
                LcpError::InvalidBounds { row, lo, .. } if lo.is_nan() || lo > 0.0 => field(
                    format!("lo[{row}]"),
                    format!("is {lo}: a lower bound must be <= 0 (a number or \"-inf\")"),
                ),
                LcpError::InvalidBounds { row, hi, .. } => field(
                    format!("hi[{row}]"),
                    format!("is {hi}: an upper bound must be >= 0 (a number or \"inf\")"),
                ),
                LcpError::InvalidCoupling {
                    coupling: k,
                    row,
                    normal_row,
                    reason,
                } => coupling_error(
                    k, row, normal_row, reason, n, &couplings, &lo_copy, &hi_copy,
                ),
                other => other,
            })
    }
}

/// Names the field behind a coupling error of [`BoxBounds::new`](crate::BoxBounds::new).
#[allow(clippy::too_many_arguments)]
fn coupling_error(
    k: usize,
    row: usize,
    normal_row: usize,
    reason: &str,
    n: usize,
    couplings: &[Coupling],
    lo: &[f64],
    hi: &[f64],
) -> LcpError {
    match reason {
        "row out of range" => field(
            format!("coupling[{k}].row"),
            format!("out of range: {row}, the problem has {n} rows"),
        ),
        "normal row out of range" => field(
            format!("coupling[{k}].normal_row"),
            format!("out of range: {normal_row}, the problem has {n} rows"),
        ),
        "mu must be finite and >= 0" => field(
            format!("coupling[{k}].mu"),
            format!("is {}: must be finite and >= 0", couplings[k].mu),
        ),
        "normal row must have bounds [0, +inf]" => field(
            format!("coupling[{k}].normal_row"),
            format!(
                "is row {normal_row}, whose bounds are [{}, {}]: a normal row must have \
                 bounds [0, \"inf\"]",
                lo[normal_row], hi[normal_row]
            ),
        ),
        "normal row is itself coupled" => field(
            format!("coupling[{k}].normal_row"),
            format!("is row {normal_row}, which is itself a coupled friction row"),
        ),
        other => field(
            format!("coupling[{k}]"),
            format!("(row {row}, normal_row {normal_row}) is invalid: {other}"),
        ),
    }
}

fn field(name: impl Into<String>, reason: impl Into<String>) -> LcpError {
    LcpError::InvalidField {
        field: name.into(),
        reason: reason.into(),
    }
}

// ---------------------------------------------------------------------------
// Writing.

/// A bound as written: a number, or `"inf"` / `"-inf"`.
struct BoundOut(f64);

impl Serialize for BoundOut {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 == f64::INFINITY {
            s.serialize_str("inf")
        } else if self.0 == f64::NEG_INFINITY {
            s.serialize_str("-inf")
        } else {
            s.serialize_f64(self.0)
        }
    }
}

struct BoundsOut<'a>(&'a [f64]);

impl Serialize for BoundsOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for &b in self.0 {
            seq.serialize_element(&BoundOut(b))?;
        }
        seq.end()
    }
}

impl Serialize for ProblemFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = 2
            + usize::from(self.lo.is_some())
            + usize::from(self.hi.is_some())
            + usize::from(self.coupling.is_some());
        let mut out = s.serialize_struct("ProblemFile", len)?;
        out.serialize_field("M", &self.m)?;
        out.serialize_field("q", &self.q)?;
        if let Some(lo) = &self.lo {
            out.serialize_field("lo", &BoundsOut(lo))?;
        } else {
            out.skip_field("lo")?;
        }
        if let Some(hi) = &self.hi {
            out.serialize_field("hi", &BoundsOut(hi))?;
        } else {
            out.skip_field("hi")?;
        }
        if let Some(coupling) = &self.coupling {
            out.serialize_field("coupling", coupling)?;
        } else {
            out.skip_field("coupling")?;
        }
        out.end()
    }
}

// ---------------------------------------------------------------------------
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
    /// How the value reads in an error message.
    fn describe(&self) -> String {
        match self {
            Self::Null => "null".into(),
            Self::Bool(b) => b.to_string(),
            Self::Number(x) => x.to_string(),
            Self::Text(s) => format!("{s:?}"),
            Self::List(_) => "an array".into(),
            Self::Map(_) => "an object".into(),
        }
    }

    fn list(&self, name: &str) -> Result<&[Raw], LcpError> {
        match self {
            Self::List(items) => Ok(items),
            other => Err(field(
                name,
                format!("is {}: expected an array", other.describe()),
            )),
        }
    }

    fn number(&self, name: impl FnOnce() -> String) -> Result<f64, LcpError> {
        match self {
            Self::Number(x) => Ok(*x),
            other => Err(field(
                name(),
                format!("is {}: expected a number", other.describe()),
            )),
        }
    }

    fn bound(&self, name: impl FnOnce() -> String) -> Result<f64, LcpError> {
        match self {
            Self::Number(x) => Ok(*x),
            Self::Text(s) if s == "inf" => Ok(f64::INFINITY),
            Self::Text(s) if s == "-inf" => Ok(f64::NEG_INFINITY),
            other => Err(field(
                name(),
                format!(
                    "is {}: expected a number, \"inf\" or \"-inf\"",
                    other.describe()
                ),
            )),
        }
    }

    fn index(&self, name: impl FnOnce() -> String) -> Result<usize, LcpError> {
        match self {
            // Exact below 2^53; larger indices are out of range anyway.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Self::Number(x) if *x >= 0.0 && x.fract() == 0.0 && *x < 9.0e15 => Ok(*x as usize),
            other => Err(field(
                name(),
                format!("is {}: expected a non-negative integer", other.describe()),
            )),
        }
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
    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw::Number(v as f64))
    }
    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E>(self, v: u64) -> Result<Raw, E> {
        Ok(Raw::Number(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Raw, E> {
        Ok(Raw::Number(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw::Text(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Raw, E> {
        Ok(Raw::Text(v))
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
        while let Some((key, value)) = map.next_entry::<String, Raw>()? {
            entries.push((key, value));
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

impl TryFrom<RawFile> for ProblemFile {
    type Error = LcpError;

    fn try_from(raw: RawFile) -> Result<Self, LcpError> {
        let m = raw
            .m
            .list("M")?
            .iter()
            .enumerate()
            .map(|(i, row)| {
                row.list(&format!("M[{i}]"))?
                    .iter()
                    .enumerate()
                    .map(|(j, x)| x.number(|| format!("M[{i}][{j}]")))
                    .collect()
            })
            .collect::<Result<_, _>>()?;
        let q = numbers(&raw.q, "q")?;
        let lo = raw.lo.as_ref().map(|b| bounds(b, "lo")).transpose()?;
        let hi = raw.hi.as_ref().map(|b| bounds(b, "hi")).transpose()?;
        let coupling = raw
            .coupling
            .as_ref()
            .map(|c| {
                c.list("coupling")?
                    .iter()
                    .enumerate()
                    .map(|(k, c)| raw_coupling(k, c))
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        Ok(Self {
            m,
            q,
            lo,
            hi,
            coupling,
        })
    }
}

fn numbers(raw: &Raw, name: &str) -> Result<Vec<f64>, LcpError> {
    raw.list(name)?
        .iter()
        .enumerate()
        .map(|(i, x)| x.number(|| format!("{name}[{i}]")))
        .collect()
}

fn bounds(raw: &Raw, name: &str) -> Result<Vec<f64>, LcpError> {
    raw.list(name)?
        .iter()
        .enumerate()
        .map(|(i, x)| x.bound(|| format!("{name}[{i}]")))
        .collect()
}

fn raw_coupling(k: usize, raw: &Raw) -> Result<Coupling, LcpError> {
    let Raw::Map(entries) = raw else {
        return Err(field(
            format!("coupling[{k}]"),
            format!(
                "is {}: expected an object {{\"row\": i, \"normal_row\": j, \"mu\": m}}",
                raw.describe()
            ),
        ));
    };
    let (mut row, mut normal_row, mut mu) = (None, None, None);
    for (key, value) in entries {
        let name = || format!("coupling[{k}].{key}");
        match key.as_str() {
            "row" => row = Some(value.index(name)?),
            "normal_row" => normal_row = Some(value.index(name)?),
            "mu" => mu = Some(value.number(name)?),
            _ => {
                return Err(field(
                    name(),
                    "is not a field of a coupling (row, normal_row, mu)",
                ));
            }
        }
    }
    let missing = |what: &str| field(format!("coupling[{k}].{what}"), "is missing");
    Ok(Coupling {
        row: row.ok_or_else(|| missing("row"))?,
        normal_row: normal_row.ok_or_else(|| missing("normal_row"))?,
        mu: mu.ok_or_else(|| missing("mu"))?,
    })
}

impl<'de> Deserialize<'de> for ProblemFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawFile::deserialize(d)?;
        Self::try_from(raw).map_err(de::Error::custom)
    }
}

// ---------------------------------------------------------------------------
// Solution lines.

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
/// `"ProjectedGaussSeidel"`, ...); `residual` is the scaled natural residual
/// and `complementarity` the scaled complementarity error of the
/// [`VerifyReport`] (dimensionless, 0 at an exact solution); `status` is a
/// [`SolveStatus`] in snake case; `seconds` is whatever the caller timed.
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
    /// ([`VerifyReport::scaled_natural_residual`]): dimensionless, 0 at an
    /// exact solution; NaN (`null` in JSON) when there is no iterate.
    #[serde(deserialize_with = "nullable")]
    pub residual: f64,
    /// The scaled complementarity error
    /// ([`VerifyReport::scaled_complementarity`]); NaN (`null`) when there
    /// is no iterate.
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
        let status = SolveStatus::of_error(error);
        let reason = Some(error.to_string());
        match error.best() {
            Some(best) => Self::of(best, status, seconds, reason),
            None => Self {
                z: Vec::new(),
                w: Vec::new(),
                method,
                pivots: 0,
                iterations: 0,
                residual: f64::NAN,
                complementarity: f64::NAN,
                status,
                seconds,
                reason,
            },
        }
    }

    fn of(s: &LcpSolution, status: SolveStatus, seconds: f64, reason: Option<String>) -> Self {
        let report: &VerifyReport = &s.report;
        Self {
            z: s.z.clone(),
            w: s.w.clone(),
            method: s.method,
            pivots: s.pivots,
            iterations: s.iterations,
            residual: report.scaled_natural_residual(),
            complementarity: report.scaled_complementarity(),
            status,
            seconds,
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Lemke, ProjectedGaussSeidel};

    fn parse(text: &str) -> Result<ProblemFile, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    fn load(text: &str) -> Result<LcpProblem, String> {
        parse(text)?.into_problem().map_err(|e| e.to_string())
    }

    #[track_caller]
    fn assert_error(text: &str, expected: &str) {
        match load(text) {
            Ok(p) => panic!("{text} was accepted as {p:?}"),
            Err(message) => assert!(
                message.contains(expected),
                "{text}: error `{message}` does not contain `{expected}`"
            ),
        }
    }

    const BOX: &str = r#"{"M": [[2, 0.5, 0], [0.5, 1, 0], [0, 0, 1]], "q": [-2, -3, 1],
        "lo": [0, "-inf", "-inf"], "hi": ["inf", "inf", 4],
        "coupling": [{"row": 1, "normal_row": 0, "mu": 0.5}]}"#;

    #[test]
    fn plain_file_round_trips_and_solves() {
        // w = M z + q with z = (1/2, 0): w_0 = 2/2 - 1 = 0, w_1 = 1/2 + 1.
        let text = r#"{"M": [[2, 1], [1, 2]], "q": [-1, 1]}"#;
        let file = parse(text).unwrap();
        assert!(!file.is_box());
        let LcpProblem::Plain(lcp) = file.clone().into_problem().unwrap() else {
            panic!("a file without bounds is a plain LCP");
        };
        let sol = Lemke::default().solve(&lcp).unwrap();
        assert_eq!(sol.z, [0.5, 0.0]);
        let again = ProblemFile::from_lcp(&lcp);
        assert_eq!(again, file);
        let written = serde_json::to_string(&again).unwrap();
        assert_eq!(written, r#"{"M":[[2.0,1.0],[1.0,2.0]],"q":[-1.0,1.0]}"#);
        assert_eq!(parse(&written).unwrap(), file);
    }

    /// Every number comes back with its bits: a problem written and read
    /// again is the same problem, not one an ulp away (serde_json's
    /// default float parser rounds some 17-digit numbers wrongly; the
    /// workspace enables its `float_roundtrip`). Numbers from random bit
    /// patterns cover every exponent, subnormals included.
    #[test]
    fn numbers_round_trip_to_the_bit() {
        let mut state = 0x5EED_F10A_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            f64::from_bits(state)
        };
        let n = 32;
        let values: Vec<f64> = std::iter::repeat_with(&mut next)
            .filter(|x| x.is_finite())
            .take(n * n + n)
            .collect();
        let file = ProblemFile {
            m: values[..n * n].chunks(n).map(<[f64]>::to_vec).collect(),
            q: values[n * n..].to_vec(),
            lo: None,
            hi: None,
            coupling: None,
        };
        let back = parse(&serde_json::to_string(&file).unwrap()).unwrap();
        let numbers = |f: &ProblemFile| {
            f.m.iter()
                .flatten()
                .chain(&f.q)
                .copied()
                .collect::<Vec<_>>()
        };
        let changed: Vec<(f64, f64)> = numbers(&file)
            .into_iter()
            .zip(numbers(&back))
            .filter(|(a, b)| a.to_bits() != b.to_bits())
            .collect();
        assert!(
            changed.is_empty(),
            "{} of {} numbers changed, e.g. {:?}",
            changed.len(),
            values.len(),
            changed.first()
        );
    }

    #[test]
    fn box_file_round_trips_with_infinite_bounds_as_strings() {
        let file = parse(BOX).unwrap();
        assert_eq!(
            file.lo.as_deref(),
            Some(&[0.0, f64::NEG_INFINITY, f64::NEG_INFINITY][..])
        );
        assert_eq!(
            file.hi.as_deref(),
            Some(&[f64::INFINITY, f64::INFINITY, 4.0][..])
        );
        let LcpProblem::Box(problem) = file.clone().into_problem().unwrap() else {
            panic!("a file with bounds is a box LCP");
        };
        assert_eq!(problem.couplings().len(), 1);
        let back = ProblemFile::from_box(&problem);
        assert_eq!(back, file);
        let written = serde_json::to_string(&back).unwrap();
        assert!(
            written.contains(r#""lo":[0.0,"-inf","-inf"],"hi":["inf","inf",4.0]"#),
            "{written}"
        );
        assert_eq!(parse(&written).unwrap(), file);
        // Closed form of the PGS doc example (rows 0 and 1), row 2 free:
        // z_0 = 8/9, z_1 = z_0 / 2, z_2 = -1.
        let sol = ProjectedGaussSeidel::default()
            .solve(&problem, None)
            .unwrap();
        assert!((sol.z[0] - 8.0 / 9.0).abs() < 1e-8, "{:?}", sol.z);
        assert!((sol.z[2] + 1.0).abs() < 1e-8, "{:?}", sol.z);
    }

    #[test]
    fn partial_bounds_default_to_those_of_a_plain_lcp() {
        let text = r#"{"M": [[1, 0], [0, 1]], "q": [1, -1], "hi": [1, 0.5]}"#;
        let LcpProblem::Box(p) = load(text).unwrap() else {
            panic!("hi alone makes a box LCP");
        };
        assert_eq!(p.lo(), &[0.0, 0.0]);
        assert_eq!(p.hi(), &[1.0, 0.5]);
        assert!(p.couplings().is_empty());
        let text = r#"{"M": [[1]], "q": [1], "lo": null, "hi": null}"#;
        assert!(matches!(load(text).unwrap(), LcpProblem::Plain(_)));
        let empty = load(r#"{"M": [], "q": []}"#).unwrap();
        assert_eq!(empty.dim(), 0);
    }

    #[test]
    fn every_bad_field_is_named() {
        let cases: &[(&str, &str)] = &[
            (r#"{"q": [1]}"#, "missing field `M`"),
            (r#"{"M": [[1]]}"#, "missing field `q`"),
            (
                r#"{"M": [[1]], "q": [1], "bounds": []}"#,
                "unknown field `bounds`",
            ),
            (r#"{"M": 3, "q": [1]}"#, "M is 3: expected an array"),
            (
                r#"{"M": [[1]], "q": {}}"#,
                "q is an object: expected an array",
            ),
            (r#"{"M": [1], "q": [1]}"#, "M[0] is 1: expected an array"),
            (
                r#"{"M": [[1, 0], [0, "x"]], "q": [1, 1]}"#,
                r#"M[1][1] is "x": expected a number"#,
            ),
            (
                r#"{"M": [[1]], "q": [null]}"#,
                "q[0] is null: expected a number",
            ),
            (
                r#"{"M": [[1]], "q": ["inf"]}"#,
                r#"q[0] is "inf": expected a number"#,
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1, 1]}"#,
                "M has 2 rows, expected 3 (the length of q)",
            ),
            (
                r#"{"M": [[1, 0], [0, 1, 2]], "q": [1, 1]}"#,
                "M[1] has 3 entries, expected 2",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "lo": [0, "infinity"]}"#,
                r#"lo[1] is "infinity": expected a number, "inf" or "-inf""#,
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "hi": [true, 1]}"#,
                r#"hi[0] is true: expected a number, "inf" or "-inf""#,
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "lo": [0]}"#,
                "lo has 1 entries, expected 2",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "hi": [1, 2, 3]}"#,
                "hi has 3 entries, expected 2",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "lo": [0, 1]}"#,
                "lo[1] is 1: a lower bound must be <= 0",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "hi": [1, -1]}"#,
                "hi[1] is -1: an upper bound must be >= 0",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "hi": ["-inf", 1]}"#,
                "hi[0] is -inf: an upper bound must be >= 0",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "coupling": {}}"#,
                "coupling is an object: expected an array",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "coupling": [3]}"#,
                "coupling[0] is 3: expected an object",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1],
                    "coupling": [{"row": 1, "normal_row": 0}]}"#,
                "coupling[0].mu is missing",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1],
                    "coupling": [{"row": 1, "normal_row": 0, "mu": 1, "nu": 2}]}"#,
                "coupling[0].nu is not a field of a coupling",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1],
                    "coupling": [{"row": -1, "normal_row": 0, "mu": 1}]}"#,
                "coupling[0].row is -1: expected a non-negative integer",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1],
                    "coupling": [{"row": 0.5, "normal_row": 0, "mu": 1}]}"#,
                "coupling[0].row is 0.5: expected a non-negative integer",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1],
                    "coupling": [{"row": 1, "normal_row": 0, "mu": "a"}]}"#,
                r#"coupling[0].mu is "a": expected a number"#,
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1],
                    "coupling": [{"row": 2, "normal_row": 0, "mu": 1}]}"#,
                "coupling[0].row out of range: 2, the problem has 2 rows",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "lo": [0, "-inf"],
                    "coupling": [{"row": 1, "normal_row": 0, "mu": 1},
                                 {"row": 0, "normal_row": 7, "mu": 1}]}"#,
                "coupling[1].normal_row out of range: 7, the problem has 2 rows",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1],
                    "coupling": [{"row": 1, "normal_row": 0, "mu": -1}]}"#,
                "coupling[0].mu is -1: must be finite and >= 0",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1], "hi": [4, "inf"],
                    "coupling": [{"row": 1, "normal_row": 0, "mu": 1}]}"#,
                "coupling[0].normal_row is row 0, whose bounds are [0, 4]",
            ),
            (
                r#"{"M": [[1, 0], [0, 1]], "q": [1, 1],
                    "coupling": [{"row": 1, "normal_row": 1, "mu": 1}]}"#,
                "coupling[0] (row 1, normal_row 1) is invalid: row coupled to itself",
            ),
            (
                r#"{"M": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "q": [1, 1, 1],
                    "coupling": [{"row": 1, "normal_row": 0, "mu": 1},
                                 {"row": 2, "normal_row": 1, "mu": 1}]}"#,
                "coupling[1].normal_row is row 1, which is itself a coupled friction row",
            ),
        ];
        for (text, expected) in cases {
            assert_error(text, expected);
        }
    }

    #[test]
    fn non_finite_entries_built_in_code_are_named() {
        let file = ProblemFile {
            m: vec![vec![1.0, 0.0], vec![f64::NAN, 1.0]],
            q: vec![0.0; 2],
            ..ProblemFile::default()
        };
        let error = file.into_problem().unwrap_err();
        assert_eq!(
            error,
            LcpError::InvalidField {
                field: "M[1][0]".into(),
                reason: "is not finite".into()
            }
        );
        assert_eq!(error.to_string(), "M[1][0] is not finite");
        let file = ProblemFile {
            m: vec![vec![1.0]],
            q: vec![f64::INFINITY],
            ..ProblemFile::default()
        };
        assert_eq!(
            file.into_problem().unwrap_err().to_string(),
            "q[0] is not finite"
        );
    }

    #[test]
    fn solution_lines_have_the_documented_fields() {
        let lcp = Lcp::from_row_major(2, &[2.0, 1.0, 1.0, 2.0], &[-1.0, 1.0]).unwrap();
        let sol = Lemke::default().solve(&lcp).unwrap();
        let line = SolutionLine::solved(&sol, 1.5e-6);
        let text = serde_json::to_string(&line).unwrap();
        for key in [
            "\"z\":",
            "\"w\":",
            "\"method\":\"Lemke\"",
            "\"pivots\":",
            "\"iterations\":",
            "\"residual\":0.0",
            "\"complementarity\":0.0",
            "\"status\":\"solved\"",
            "\"seconds\":1.5e-6",
        ] {
            assert!(text.contains(key), "{key} missing from {text}");
        }
        assert!(!text.contains("reason"), "{text}");
        let back: SolutionLine = serde_json::from_str(&text).unwrap();
        assert_eq!(back, line);

        // No iterate: null errors, read back as NaN.
        let error = LcpError::SingularBasis { pivots: 3 };
        let line = SolutionLine::failed(&error, Method::Lemke, 0.0);
        let text = serde_json::to_string(&line).unwrap();
        assert!(text.contains("\"residual\":null"), "{text}");
        assert!(text.contains("\"status\":\"singular_basis\""), "{text}");
        assert!(
            text.contains("\"reason\":\"basis matrix became singular"),
            "{text}"
        );
        let back: SolutionLine = serde_json::from_str(&text).unwrap();
        assert!(back.residual.is_nan() && back.z.is_empty());
    }

    #[test]
    fn a_ray_termination_line_carries_the_best_iterate() {
        // w = -z - 1 < 0 for every z >= 0: no solution, Lemke ends on a ray.
        let lcp = Lcp::from_row_major(1, &[-1.0], &[-1.0]).unwrap();
        let error = Lemke::default().solve(&lcp).unwrap_err();
        let line = SolutionLine::failed(&error, Method::Lemke, 0.0);
        assert_eq!(line.status, SolveStatus::RayTermination);
        assert!(line.reason.as_deref().unwrap().contains("secondary ray"));
    }
}
