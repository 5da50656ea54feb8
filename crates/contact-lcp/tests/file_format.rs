//! Guards the problem file format and solution lines (feature `serde`):
//! round trips to the bit, the defaults of partial bounds, an error naming
//! the field for every kind of bad input, and the fields of a solution
//! line. Files written before must keep reading the same.

#![cfg(feature = "serde")]

mod common;

use contact_lcp::{
    Lcp, LcpError, LcpProblem, Lemke, Method, ProblemFile, ProjectedGaussSeidel, SolutionLine,
    SolveStatus,
};

fn parse(text: &str) -> Result<ProblemFile, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

fn load(text: &str) -> Result<LcpProblem, String> {
    parse(text)?.into_problem().map_err(|e| e.to_string())
}

const BOX: &str = r#"{"M": [[2, 0.5, 0], [0.5, 1, 0], [0, 0, 1]], "q": [-2, -3, 1],
    "lo": [0, "-inf", "-inf"], "hi": ["inf", "inf", 4],
    "coupling": [{"row": 1, "normal_row": 0, "mu": 0.5}]}"#;

#[test]
fn plain_file_round_trips_and_solves() {
    // w = M z + q with z = (1/2, 0): w_0 = 2/2 - 1 = 0, w_1 = 1/2 + 1.
    let text = r#"{"M": [[2, 1], [1, 2]], "q": [-1, 1]}"#;
    let file = parse(text).unwrap();
    let LcpProblem::Plain(lcp) = file.clone().into_problem().unwrap() else {
        panic!("a file without bounds is a plain LCP");
    };
    assert_eq!(Lemke::default().solve(&lcp).unwrap().z, [0.5, 0.0]);
    let again = ProblemFile::from_lcp(&lcp);
    assert_eq!(again, file);
    let written = serde_json::to_string(&again).unwrap();
    assert_eq!(written, r#"{"M":[[2.0,1.0],[1.0,2.0]],"q":[-1.0,1.0]}"#);
    assert_eq!(parse(&written).unwrap(), file);
}

/// Every number comes back with its bits: a problem written and read again
/// is the same problem, not one an ulp away (serde_json's default float
/// parser rounds some 17-digit numbers wrongly; the workspace enables its
/// `float_roundtrip`). Numbers from random bit patterns cover every
/// exponent, subnormals included.
#[test]
fn numbers_round_trip_to_the_bit() {
    let mut rng = common::Rng::new(0x5EED_F10A);
    let n = 32;
    let values: Vec<f64> = std::iter::repeat_with(|| f64::from_bits(rng.next_u64()))
        .filter(|x| x.is_finite())
        .take(n * n + n)
        .collect();
    let file = ProblemFile {
        m: values[..n * n].chunks(n).map(<[f64]>::to_vec).collect(),
        q: values[n * n..].to_vec(),
        ..ProblemFile::default()
    };
    let back = parse(&serde_json::to_string(&file).unwrap()).unwrap();
    let bits = |f: &ProblemFile| -> Vec<u64> {
        f.m.iter()
            .flatten()
            .chain(&f.q)
            .map(|x| x.to_bits())
            .collect()
    };
    assert_eq!(bits(&back), bits(&file));
}

#[test]
fn box_file_round_trips_with_infinite_bounds_as_strings() {
    let inf = f64::INFINITY;
    let file = parse(BOX).unwrap();
    assert_eq!(file.lo.as_deref(), Some(&[0.0, -inf, -inf][..]));
    assert_eq!(file.hi.as_deref(), Some(&[inf, inf, 4.0][..]));
    let LcpProblem::Box(problem) = file.clone().into_problem().unwrap() else {
        panic!("a file with bounds is a box LCP");
    };
    assert_eq!(problem.couplings().len(), 1);
    let back = ProblemFile::from_box(&problem);
    assert_eq!(back, file);
    assert_eq!(
        ProblemFile::from_problem(&LcpProblem::Box(problem.clone())),
        file
    );
    let written = serde_json::to_string(&back).unwrap();
    let bounds = r#""lo":[0.0,"-inf","-inf"],"hi":["inf","inf",4.0]"#;
    assert!(written.contains(bounds), "{written}");
    assert_eq!(parse(&written).unwrap(), file);
    // Closed form of the PGS doc example (rows 0 and 1), row 2 free:
    // z_0 = 8/9, z_1 = z_0 / 2, z_2 = -1.
    let sol = ProjectedGaussSeidel::default()
        .solve(&problem, None)
        .unwrap();
    assert!((sol.z[0] - 8.0 / 9.0).abs() < 1e-8, "{:?}", sol.z);
    assert!((sol.z[2] + 1.0).abs() < 1e-8, "{:?}", sol.z);
}

/// The problems stored under `tests/data/` read the same as with the
/// independent reader of `common::data_problem` (plain serde_json).
#[test]
fn stored_files_read_as_before() {
    for name in ["dantzig_psd_box_n11.json", "dantzig_psd_singular_n28.json"] {
        let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
        let file = parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let expected = common::data_problem(name);
        let problem = match file.into_problem().unwrap() {
            LcpProblem::Box(p) => p,
            LcpProblem::Plain(lcp) => contact_lcp::BoxLcp::from_lcp(&lcp),
        };
        let n = expected.dim();
        assert_eq!(problem.dim(), n, "{name}");
        assert_eq!(
            (problem.lo(), problem.hi()),
            (expected.lo(), expected.hi()),
            "{name}"
        );
        assert_eq!(problem.q(), expected.q(), "{name}");
        for i in 0..n {
            for j in 0..n {
                assert_eq!(
                    problem.m()[(i, j)],
                    expected.m()[(i, j)],
                    "{name} M[{i}][{j}]"
                );
            }
        }
    }
}

#[test]
fn partial_bounds_default_to_those_of_a_plain_lcp() {
    let text = r#"{"M": [[1, 0], [0, 1]], "q": [1, -1], "hi": [1, 0.5]}"#;
    let LcpProblem::Box(p) = load(text).unwrap() else {
        panic!("hi alone makes a box LCP");
    };
    assert_eq!((p.lo(), p.hi()), (&[0.0, 0.0][..], &[1.0, 0.5][..]));
    assert!(p.couplings().is_empty());
    let text = r#"{"M": [[1]], "q": [1], "lo": null, "hi": null}"#;
    assert!(matches!(load(text).unwrap(), LcpProblem::Plain(_)));
    assert_eq!(load(r#"{"M": [], "q": []}"#).unwrap().dim(), 0);
}

/// Each line: a file, `=>`, a part of the error it must give. A file
/// starting with `+` is fields added to `{"M": [[1, 0], [0, 1]], "q": [1, 1]}`.
const BAD_FILES: &str = r#"
{"q": [1]} => missing field `M`
{"M": [[1]]} => missing field `q`
{"M": [[1]], "q": [1], "bounds": []} => unknown field `bounds`
{"M": 3, "q": [1]} => M is 3: expected an array
{"M": [[1]], "q": {}} => q is an object: expected an array
{"M": [1], "q": [1]} => M[0] is 1: expected an array
{"M": [[1, 0], [0, "x"]], "q": [1, 1]} => M[1][1] is "x": expected a number
{"M": [[1]], "q": [null]} => q[0] is null: expected a number
{"M": [[1]], "q": ["inf"]} => q[0] is "inf": expected a number
{"M": [[1, 0], [0, 1]], "q": [1, 1, 1]} => M has 2 rows, expected 3 (the length of q)
{"M": [[1, 0], [0, 1, 2]], "q": [1, 1]} => M[1] has 3 entries, expected 2
+ "lo": [0, "infinity"] => lo[1] is "infinity": expected a number, "inf" or "-inf"
+ "hi": [true, 1] => hi[0] is true: expected a number, "inf" or "-inf"
+ "lo": [0] => lo has 1 entries, expected 2
+ "hi": [1, 2, 3] => hi has 3 entries, expected 2
+ "lo": [0, 1] => lo[1] is 1: a lower bound must be <= 0
+ "hi": [1, -1] => hi[1] is -1: an upper bound must be >= 0
+ "hi": ["-inf", 1] => hi[0] is -inf: an upper bound must be >= 0
+ "coupling": {} => coupling is an object: expected an array
+ "coupling": [3] => coupling[0] is 3: expected an object
+ "coupling": [{"row": 1, "normal_row": 0}] => coupling[0].mu is missing
+ "coupling": [{"row": 1, "normal_row": 0, "mu": 1, "nu": 2}] => coupling[0].nu is not a field of a coupling
+ "coupling": [{"row": -1, "normal_row": 0, "mu": 1}] => coupling[0].row is -1: expected a non-negative integer
+ "coupling": [{"row": 0.5, "normal_row": 0, "mu": 1}] => coupling[0].row is 0.5: expected a non-negative integer
+ "coupling": [{"row": 1, "normal_row": 0, "mu": "a"}] => coupling[0].mu is "a": expected a number
+ "coupling": [{"row": 2, "normal_row": 0, "mu": 1}] => coupling[0].row out of range: 2, the problem has 2 rows
+ "lo": [0, "-inf"], "coupling": [{"row": 1, "normal_row": 0, "mu": 1}, {"row": 0, "normal_row": 7, "mu": 1}] => coupling[1].normal_row out of range: 7, the problem has 2 rows
+ "coupling": [{"row": 1, "normal_row": 0, "mu": -1}] => coupling[0].mu is -1: must be finite and >= 0
+ "hi": [4, "inf"], "coupling": [{"row": 1, "normal_row": 0, "mu": 1}] => coupling[0].normal_row is row 0, whose bounds are [0, 4]
+ "coupling": [{"row": 1, "normal_row": 1, "mu": 1}] => coupling[0] (row 1, normal_row 1) is invalid: row coupled to itself
{"M": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "q": [1, 1, 1], "coupling": [{"row": 1, "normal_row": 0, "mu": 1}, {"row": 2, "normal_row": 1, "mu": 1}]} => coupling[1].normal_row is row 1, which is itself a coupled friction row
"#;

#[test]
fn every_bad_field_is_named() {
    let cases = BAD_FILES.lines().filter(|l| !l.is_empty());
    for (file, expected) in cases.map(|l| l.split_once(" => ").unwrap()) {
        let text = match file.strip_prefix('+') {
            Some(fields) => format!(r#"{{"M": [[1, 0], [0, 1]], "q": [1, 1],{fields}}}"#),
            None => file.to_owned(),
        };
        match load(&text) {
            Ok(p) => panic!("{text} was accepted as {p:?}"),
            Err(message) => assert!(
                message.contains(expected),
                "{text}: error `{message}` does not contain `{expected}`"
            ),
        }
    }
    assert_eq!(BAD_FILES.lines().filter(|l| !l.is_empty()).count(), 31);
}

#[test]
fn non_finite_entries_built_in_code_are_named() {
    let file = ProblemFile {
        m: vec![vec![1.0, 0.0], vec![f64::NAN, 1.0]],
        q: vec![0.0; 2],
        ..ProblemFile::default()
    };
    let error = file.into_problem().unwrap_err();
    let named = LcpError::InvalidField {
        field: "M[1][0]".into(),
        reason: "is not finite".into(),
    };
    assert_eq!(error, named);
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
    assert_eq!(serde_json::from_str::<SolutionLine>(&text).unwrap(), line);

    // No iterate: null errors, read back as NaN.
    let error = LcpError::SingularBasis {
        pivots: 3,
        best: None,
    };
    let text = serde_json::to_string(&SolutionLine::failed(&error, Method::Lemke, 0.0)).unwrap();
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
    // The best iterate: z >= 0 of length 1, with its w.
    assert_eq!((line.z.len(), line.w.len()), (1, 1));
}
