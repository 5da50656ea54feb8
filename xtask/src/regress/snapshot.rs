//! Snapshots of the regression cases: every observable of a case, rounded
//! so that the text is the same on any machine and compiler, kept in
//! `regress/snapshots/<case>.snap` in insta's format.
//!
//! The expectations of a case file say what physics demands (with a
//! tolerance); a snapshot says what the code produced last time it was
//! reviewed, so any change of output shows, intended or not. The insta test
//! in `regress.rs` writes and reviews them (`cargo insta review`);
//! `cargo xtask regress` reads them and fails on a difference.

use std::fmt::Write as _;
use std::path::Path;

use super::{Kind, Observables};

/// Significant digits of a [`Kind::Value`]: positions after a second of
/// simulation agree to about 1e-12 relative between builds (libm's sin
/// and cos may differ in the last bit), so nine digits are stable.
pub const DIGITS: usize = 9;

/// Values below this print as 0: round-off noise, whose digits are not
/// stable.
const NOISE_FLOOR: f64 = 1e-12;

/// Exponent of the lowest bucket of an error measure: round-off errors
/// range over 1e-16..1e-11 with the size of the problem and the order of
/// operations, so they all print as `below 1e-9`.
const ERROR_FLOOR_EXPONENT: i32 = -9;

/// The rounded table of a case's observables, one `name value` line each.
pub fn render(observables: &Observables) -> String {
    let width = observables.keys().map(|k| k.len()).max().unwrap_or(0);
    let mut text = String::new();
    for (name, &(value, kind)) in observables {
        let _ = writeln!(text, "{name:<width$}  {}", round(value, kind));
    }
    text
}

/// One observable as stable text: counts exactly, values to [`DIGITS`]
/// significant digits, error measures as an upper bound from the ladder
/// 1e-9, 1e-6, 1e-3, ... (three decades apart, so that round-off moves
/// them rarely).
fn round(value: f64, kind: Kind) -> String {
    if !value.is_finite() {
        return format!("{value}");
    }
    match kind {
        Kind::Count => format!("{value}"),
        Kind::Value if value.abs() < NOISE_FLOOR => "0".into(),
        Kind::Value => format!("{value:.prec$e}", prec = DIGITS - 1),
        Kind::ErrorMeasure => {
            let mut exponent = ERROR_FLOOR_EXPONENT;
            while value.abs() >= 10f64.powi(exponent) {
                exponent += 3;
            }
            format!("below 1e{exponent}")
        }
    }
}

/// The content of an insta `.snap` file: what follows its `---` header.
/// `None` when the file is missing; `Err` when it has no header.
pub fn read(path: &Path) -> Result<Option<String>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let body = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(_, body)| body)
        .ok_or_else(|| format!("{}: not an insta snapshot (no --- header)", path.display()))?;
    Ok(Some(body.to_string()))
}

/// The lines where `expected` and `actual` differ, as `-`/`+` pairs
/// (line-wise; trailing space and blank lines at the end are ignored, as
/// insta does).
pub fn differences(expected: &str, actual: &str) -> Vec<String> {
    let lines = |text: &str| -> Vec<String> {
        let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines
    };
    let (old, new) = (lines(expected), lines(actual));
    let mut out = Vec::new();
    for i in 0..old.len().max(new.len()) {
        match (old.get(i), new.get(i)) {
            (Some(a), Some(b)) if a == b => {}
            (a, b) => {
                if let Some(a) = a {
                    out.push(format!("-{a}"));
                }
                if let Some(b) = b {
                    out.push(format!("+{b}"));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_keeps_what_is_stable() {
        assert_eq!(round(256.0, Kind::Count), "256");
        assert_eq!(round(0.528_500_000_000_3, Kind::Value), "5.28500000e-1");
        assert_eq!(round(-3e-17, Kind::Value), "0");
        assert_eq!(round(3e-16, Kind::ErrorMeasure), "below 1e-9");
        assert_eq!(round(2e-12, Kind::ErrorMeasure), "below 1e-9");
        assert_eq!(round(0.0, Kind::ErrorMeasure), "below 1e-9");
        assert_eq!(round(2e-7, Kind::ErrorMeasure), "below 1e-6");
        assert_eq!(round(1e-6, Kind::ErrorMeasure), "below 1e-3");
        assert_eq!(round(f64::INFINITY, Kind::Value), "inf");
    }

    #[test]
    fn a_snapshot_file_is_read_past_its_header() {
        let dir = std::env::temp_dir().join(format!("xtask-snap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("case.snap");
        std::fs::write(
            &path,
            "---\nsource: x.rs\nexpression: text\n---\na  1\nb  2\n",
        )
        .unwrap();
        assert_eq!(read(&path).unwrap().as_deref(), Some("a  1\nb  2\n"));
        assert_eq!(read(&dir.join("missing.snap")).unwrap(), None);
        std::fs::write(&path, "a  1\n").unwrap();
        assert!(read(&path).unwrap_err().contains("no --- header"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn differences_are_listed_line_by_line() {
        assert!(differences("a  1\nb  2\n", "a  1\nb  2\n\n").is_empty());
        assert_eq!(
            differences("a  1\nb  2\n", "a  1\nb  3\nc  4\n"),
            ["-b  2", "+b  3", "+c  4"]
        );
    }
}
