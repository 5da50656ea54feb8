//! Times as text and log-log SVG plots of time against size: the reports'
//! shared drawing (the criterion report's groups, the scenes' time per
//! step against bodies).

use std::fmt::Write as _;

/// One line of a plot.
#[derive(Clone, Debug)]
pub struct Series<'a> {
    /// Its legend.
    pub name: &'a str,
    /// `(size, time in ns)`, any order; points that are not positive are
    /// left out (no logarithm).
    pub points: Vec<(f64, f64)>,
}

/// A time in ns with a readable unit.
pub fn format_time(ns: f64) -> String {
    match ns {
        t if t >= 1e9 => format!("{:.3} s", t / 1e9),
        t if t >= 1e6 => format!("{:.3} ms", t / 1e6),
        t if t >= 1e3 => format!("{:.3} us", t / 1e3),
        t => format!("{t:.1} ns"),
    }
}

/// A log-log plot of time against size, one line with dots per series,
/// decades as grid lines, the legend on the right.
pub fn svg(title: &str, x_label: &str, series: &[Series<'_>]) -> String {
    const COLOURS: [&str; 6] = [
        "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
    ];
    let logs: Vec<Vec<(f64, f64)>> = series
        .iter()
        .map(|s| {
            let mut line: Vec<(f64, f64)> = s
                .points
                .iter()
                .filter(|(x, y)| *x > 0.0 && *y > 0.0)
                .map(|(x, y)| (x.log10(), y.log10()))
                .collect();
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            line
        })
        .collect();
    let longest = series.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let right = 40.0 + 7.0 * longest as f64;
    let (w, h, left, top, bottom) = (480.0 + right, 420.0, 70.0, 30.0, 50.0);
    let (x0, x1) = bounds(logs.iter().flatten().map(|p| p.0));
    let (y0, y1) = bounds(logs.iter().flatten().map(|p| p.1));
    let sx = |x: f64| left + (x - x0) / (x1 - x0) * (w - left - right);
    let sy = |y: f64| h - bottom - (y - y0) / (y1 - y0) * (h - top - bottom);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{left}\" y=\"18\">{title}</text>\n"
    );
    let _ = writeln!(
        svg,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>",
        w - left - right,
        h - top - bottom
    );
    for decade in (x0.ceil() as i32)..=(x1.floor() as i32) {
        let x = sx(f64::from(decade));
        let _ = writeln!(
            svg,
            "<line x1=\"{x}\" y1=\"{top}\" x2=\"{x}\" y2=\"{}\" stroke=\"#eee\"/><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            h - bottom,
            h - bottom + 16.0,
            size_decade(decade)
        );
    }
    for decade in (y0.ceil() as i32)..=(y1.floor() as i32) {
        let y = sy(f64::from(decade));
        let _ = writeln!(
            svg,
            "<line x1=\"{left}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#eee\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            w - right,
            left - 4.0,
            y + 4.0,
            time_decade(decade)
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{x_label}</text>",
        left + (w - left - right) / 2.0,
        h - 10.0
    );
    for (k, (series, line)) in series.iter().zip(&logs).enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let line: Vec<(f64, f64)> = line.iter().map(|&(x, y)| (sx(x), sy(y))).collect();
        let path: Vec<String> = line.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        let _ = writeln!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            path.join(" ")
        );
        for (x, y) in &line {
            let _ = writeln!(
                svg,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3\" fill=\"{colour}\"/>"
            );
        }
        let ly = top + 16.0 * (k as f64 + 1.0);
        let _ = writeln!(
            svg,
            "<line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{colour}\" stroke-width=\"2\"/><text x=\"{}\" y=\"{}\">{}</text>",
            w - right + 10.0,
            w - right + 30.0,
            w - right + 36.0,
            ly + 4.0,
            series.name
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The size `10^decade`: an integer from 1 to 10^6, `1e<decade>` beyond.
fn size_decade(decade: i32) -> String {
    if (0..=6).contains(&decade) {
        10u64.pow(decade.unsigned_abs()).to_string()
    } else {
        format!("1e{decade}")
    }
}

/// The time `10^decade` ns with its unit: `1 ns`, `10 ns`, ..., `100 s`.
fn time_decade(decade: i32) -> String {
    const UNITS: [&str; 4] = ["ns", "us", "ms", "s"];
    let unit = decade.div_euclid(3).clamp(0, 3);
    let value = 10f64.powi(decade - 3 * unit);
    format!("{value} {}", UNITS[unit as usize])
}

/// Padded range of values (a zero-width range gets one decade; no values,
/// the decade [0, 1]).
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if lo > hi {
        (0.0, 1.0)
    } else if hi - lo < 1e-9 {
        (lo - 0.5, hi + 0.5)
    } else {
        (lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_land_where_their_logarithms_say() {
        let series = [
            Series {
                name: "a",
                points: vec![(10.0, 1e3), (1000.0, 1e6), (0.0, 5.0)],
            },
            Series {
                name: "b",
                points: vec![(100.0, 1e4)],
            },
        ];
        let svg = svg("t", "bodies", &series);
        assert_eq!(svg.matches("<polyline").count(), 2);
        // The point of size 0 has no logarithm: three dots, not four.
        assert_eq!(svg.matches("<circle").count(), 3);
        // x from log 10 = 1 to log 1000 = 3, padded by 5 %: the decade
        // 1e2 is in the middle of the plot area [70, 70 + 480 - 70].
        let grid = svg
            .lines()
            .find(|line| line.ends_with(">100</text>"))
            .expect("a grid line at 100");
        let x: f64 = grid["<line x1=\"".len()..]
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!((x - (70.0 + 0.5 * 410.0)).abs() < 1e-9, "{grid}");
        assert!(svg.contains(">1 ms</text>") && svg.contains(">bodies</text>"));
        assert!(!svg.contains("NaN"));
        assert!(!super::svg("empty", "n", &[]).contains("NaN"));
    }

    #[test]
    fn decades_read_as_sizes_and_times() {
        assert_eq!(size_decade(0), "1");
        assert_eq!(size_decade(3), "1000");
        assert_eq!(size_decade(7), "1e7");
        assert_eq!(size_decade(-1), "1e-1");
        assert_eq!(time_decade(0), "1 ns");
        assert_eq!(time_decade(5), "100 us");
        assert_eq!(time_decade(9), "1 s");
        assert_eq!(time_decade(11), "100 s");
        assert_eq!(time_decade(13), "10000 s");
        assert_eq!(time_decade(-1), "0.1 ns");
    }
}
