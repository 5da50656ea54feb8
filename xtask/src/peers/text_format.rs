//! The plain-text problem form read by the C++ peer drivers
//! (`peers/common/lcp_text.hpp`), so they need no JSON parser:
//! whitespace-separated tokens, numbers as C's `strtod` reads them
//! (`inf`, `-inf`):
//!
//! ```text
//! n
//! M        n rows of n numbers (w = M z + q)
//! q        n numbers
//! lo hi f  one line per row: f = -1 for plain bounds [lo, hi]; f = j for a
//!          friction row coupled to row j, bounds [-hi |z_j|, hi |z_j|]
//!          (ODE's and Bullet's `findex`), written with lo = -mu, hi = mu
//! ```
//!
//! Numbers are written with Rust's shortest round-trip form, so the C++ side
//! reads exactly the matrix of the JSON file.

use std::fmt::Write;

use contact_lcp::LcpProblem;

/// The text form of `problem`.
pub fn write(problem: &LcpProblem) -> String {
    let (lcp, bounds) = match problem {
        LcpProblem::Plain(lcp) => (lcp, None),
        LcpProblem::Box(p) => (p.lcp(), Some(p)),
    };
    let n = lcp.dim();
    let m = lcp.m();
    let mut out = String::with_capacity(24 * (n * n + 4 * n) + 16);
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{n}");
    for i in 0..n {
        let row: Vec<String> = (0..n).map(|j| format!("{:?}", m[(i, j)])).collect();
        let _ = writeln!(out, "{}", row.join(" "));
    }
    let q: Vec<String> = lcp.q().iter().map(|v| format!("{v:?}")).collect();
    let _ = writeln!(out, "{}", q.join(" "));
    for i in 0..n {
        let (lo, hi, findex) = match bounds {
            None => (0.0, f64::INFINITY, -1_i64),
            Some(p) => match p.bounds().coupling_of(i) {
                Some(c) => (-c.mu, c.mu, c.normal_row as i64),
                None => (p.lo()[i], p.hi()[i], -1),
            },
        };
        let _ = writeln!(out, "{lo:?} {hi:?} {findex}");
    }
    out
}

/// Reads the text form back (the inverse of [`write`]; the C++ drivers have
/// their own reader, this one checks the writer).
#[cfg(test)]
pub fn parse(text: &str) -> Result<contact_lcp::LcpProblem, String> {
    use contact_lcp::{BoxBounds, BoxLcp, Coupling, Lcp};
    let mut tokens = text.split_whitespace();
    let mut next = |what: &str| -> Result<f64, String> {
        let token = tokens.next().ok_or(format!("missing {what}"))?;
        token
            .parse::<f64>()
            .map_err(|e| format!("{what}: `{token}`: {e}"))
    };
    let n = next("n")? as usize;
    let mut m = Vec::with_capacity(n * n);
    for _ in 0..n * n {
        m.push(next("M")?);
    }
    let mut q = Vec::with_capacity(n);
    for _ in 0..n {
        q.push(next("q")?);
    }
    let (mut lo, mut hi, mut couplings) = (Vec::new(), Vec::new(), Vec::new());
    for row in 0..n {
        let (l, h, f) = (next("lo")?, next("hi")?, next("findex")?);
        if f >= 0.0 {
            couplings.push(Coupling {
                row,
                normal_row: f as usize,
                mu: h,
            });
            lo.push(f64::NEG_INFINITY);
            hi.push(f64::INFINITY);
        } else {
            lo.push(l);
            hi.push(h);
        }
    }
    let lcp = Lcp::from_row_major(n, &m, &q).map_err(|e| e.to_string())?;
    let plain = couplings.is_empty()
        && lo.iter().all(|&l| l == 0.0)
        && hi.iter().all(|&h| h == f64::INFINITY);
    if plain {
        return Ok(LcpProblem::Plain(lcp));
    }
    let bounds = BoxBounds::new(lo, hi, couplings).map_err(|e| e.to_string())?;
    Ok(LcpProblem::Box(
        BoxLcp::with_bounds(lcp, bounds).map_err(|e| e.to_string())?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use contact_lcp::{BoxBounds, BoxLcp, Coupling, Lcp};

    fn same_matrix(a: &Lcp, b: &Lcp) {
        assert_eq!(a.dim(), b.dim());
        assert_eq!(a.q(), b.q());
        for i in 0..a.dim() {
            for j in 0..a.dim() {
                assert_eq!(
                    a.m()[(i, j)].to_bits(),
                    b.m()[(i, j)].to_bits(),
                    "M[{i}][{j}]"
                );
            }
        }
    }

    #[test]
    fn a_plain_lcp_round_trips_bit_for_bit() {
        // Values with no short decimal form, and tiny and huge magnitudes.
        let m = [0.1 + 0.2, 1.0 / 3.0, -1e-300, 7.5e300];
        let lcp = Lcp::from_row_major(2, &m, &[-std::f64::consts::PI, 2.0_f64.sqrt()]).unwrap();
        let text = write(&LcpProblem::Plain(lcp.clone()));
        assert_eq!(text.lines().nth(4), Some("0.0 inf -1"));
        let LcpProblem::Plain(back) = parse(&text).unwrap() else {
            panic!("a plain LCP reads back as a plain LCP");
        };
        same_matrix(&lcp, &back);
    }

    #[test]
    fn bounds_and_couplings_round_trip_in_findex_form() {
        let lcp = Lcp::from_row_major(
            3,
            &[2.0, 0.5, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 1.0],
            &[-2.0, -3.0, 1.0],
        )
        .unwrap();
        let bounds = BoxBounds::new(
            vec![0.0, f64::NEG_INFINITY, -0.25],
            vec![f64::INFINITY, f64::INFINITY, 1.0],
            vec![Coupling {
                row: 1,
                normal_row: 0,
                mu: 0.5,
            }],
        )
        .unwrap();
        let problem = BoxLcp::with_bounds(lcp.clone(), bounds).unwrap();
        let text = write(&LcpProblem::Box(problem.clone()));
        let rows: Vec<&str> = text.lines().skip(5).collect();
        assert_eq!(rows, ["0.0 inf -1", "-0.5 0.5 0", "-0.25 1.0 -1"]);
        let LcpProblem::Box(back) = parse(&text).unwrap() else {
            panic!("a box LCP reads back as a box LCP");
        };
        same_matrix(&lcp, back.lcp());
        assert_eq!(back.couplings(), problem.couplings());
        assert_eq!(back.lo()[2], -0.25);
        assert_eq!(back.hi()[2], 1.0);
    }
}
