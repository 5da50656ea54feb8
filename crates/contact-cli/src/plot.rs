//! `contact plot TRAJ.json [--out-dir DIR] [--format png|svg|both]`: draws
//! what a run measured against simulated time, as one figure of five
//! panels: the energies, the largest interpenetration, the contact forces
//! (sum of the normal forces and the largest single force), the step sizes,
//! and the contact events (how many began and ended so far). Written as
//! `NAME.plots.png` and `NAME.plots.svg` beside the trajectory (or in
//! `--out-dir`).
//!
//! Drawn with plotters (a well-kept crate rather than a rasteriser of our
//! own), in memory; each file is written under a temporary name and renamed
//! once every figure is drawn, so a failure leaves none.
//!
//! Exit status: 0 when the files are written; 2 for bad arguments, a
//! malformed trajectory or an output that cannot be written.

use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Once;

use contact_sim::simulation::EventKind;
use contact_sim::trajectory::Trajectory;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::atomic_file::AtomicFile;
use crate::trajectory_file;

/// The figure's size in pixels.
const SIZE: (u32, u32) = (1000, 1400);
/// The font family plots are labelled in (registered from
/// `epaint_default_fonts`).
const FONT: &str = "sans-serif";

/// Which files to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// `NAME.plots.png`.
    Png,
    /// `NAME.plots.svg`.
    Svg,
    /// Both.
    Both,
}

/// The command line of `contact plot`.
#[derive(Clone, Debug, PartialEq, clap::Args)]
pub struct PlotOptions {
    /// The trajectory (`contact run SCENE --out TRAJ.json`).
    #[arg(value_name = "TRAJ.json")]
    pub trajectory: PathBuf,
    /// The folder to write into (default: the trajectory's). It must exist.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// The files to write.
    #[arg(long, value_enum, default_value_t = Format::Both)]
    pub format: Format,
}

/// The figures of a trajectory, in memory.
#[derive(Debug)]
pub struct Figures {
    /// The PNG file's bytes, if asked for.
    pub png: Option<Vec<u8>>,
    /// The SVG document, if asked for.
    pub svg: Option<String>,
}

/// Draws the figures `format` asks for.
///
/// # Errors
/// plotters' (text layout, encoding), as a message.
pub fn figures(trajectory: &Trajectory, format: Format) -> Result<Figures, String> {
    register_font()?;
    let png = match format {
        Format::Png | Format::Both => {
            let mut pixels = vec![0u8; (SIZE.0 * SIZE.1 * 3) as usize];
            {
                let root = BitMapBackend::with_buffer(&mut pixels, SIZE).into_drawing_area();
                draw(&root, trajectory)?;
                root.present().map_err(|e| e.to_string())?;
            }
            Some(encode_png(&pixels, SIZE)?)
        }
        Format::Svg => None,
    };
    let svg = match format {
        Format::Svg | Format::Both => {
            let mut text = String::new();
            {
                let root = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
                draw(&root, trajectory)?;
                root.present().map_err(|e| e.to_string())?;
            }
            Some(text)
        }
        Format::Png => None,
    };
    Ok(Figures { png, svg })
}

fn register_font() -> Result<(), String> {
    static REGISTER: Once = Once::new();
    let mut result = Ok(());
    REGISTER.call_once(|| {
        result = plotters::style::register_font(
            FONT,
            FontStyle::Normal,
            epaint_default_fonts::UBUNTU_LIGHT,
        )
        .map_err(|_| "the plot font is not a valid font".to_string());
    });
    result
}

fn encode_png(rgb: &[u8], (width, height): (u32, u32)) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Best);
    encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgb).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// One line of a panel.
struct Line {
    name: &'static str,
    colour: RGBColor,
    points: Vec<(f64, f64)>,
}

/// The five panels, top to bottom.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, t: &Trajectory) -> Result<(), String> {
    let error = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(error)?;
    let title = t.header.scene.as_deref().unwrap_or("trajectory");
    let root = root.titled(title, (FONT, 26)).map_err(error)?;
    let panels = root.split_evenly((5, 1));
    let frames = &t.frames;
    let series = |name, colour, value: &dyn Fn(usize) -> Option<f64>| Line {
        name,
        colour,
        points: (0..frames.len())
            .filter_map(|i| value(i).map(|v| (frames[i].time, v)))
            .collect(),
    };
    let blue = RGBColor(31, 119, 180);
    let red = RGBColor(214, 39, 40);
    let green = RGBColor(44, 160, 44);

    panel(
        &panels[0],
        t,
        "energy (J)",
        &[
            series("total", blue, &|i| Some(frames[i].energy)),
            series("kinetic", red, &|i| Some(frames[i].kinetic_energy)),
            series("potential", green, &|i| Some(frames[i].potential_energy)),
        ],
        None,
    )?;
    panel(
        &panels[1],
        t,
        "largest penetration (m)",
        &[series("penetration", blue, &|i| {
            Some(frames[i].penetration)
        })],
        None,
    )?;
    let recorded = frames.iter().any(|f| f.contacts.is_some());
    let contacts = |i: usize| frames[i].contacts.as_deref();
    panel(
        &panels[2],
        t,
        "contact forces (N)",
        &[
            series("sum of normal forces", blue, &|i| {
                contacts(i).map(|cs| cs.iter().map(|c| dot(c.force, c.normal).max(0.0)).sum())
            }),
            series("largest contact force", red, &|i| {
                contacts(i).map(|cs| cs.iter().map(|c| norm(c.force)).fold(0.0, f64::max))
            }),
        ],
        (!recorded).then_some("contacts not recorded in this trajectory"),
    )?;
    panel(
        &panels[3],
        t,
        "step size h (s)",
        &[series("last step before the frame", blue, &|i| {
            (frames[i].step > 0).then_some(frames[i].h)
        })],
        None,
    )?;
    let counted = |kind: EventKind| {
        let mut points = vec![(frames[0].time, 0.0)];
        let mut count = 0.0;
        for event in t.events.iter().filter(|e| e.kind == kind) {
            points.push((event.time, count));
            count += 1.0;
            points.push((event.time, count));
        }
        points.push((frames[frames.len() - 1].time, count));
        points
    };
    let left_out = t.summary.events_left_out;
    panel(
        &panels[4],
        t,
        "contact events so far",
        &[
            Line {
                name: "contacts begun",
                colour: blue,
                points: counted(EventKind::ContactBegins),
            },
            Line {
                name: "contacts ended",
                colour: red,
                points: counted(EventKind::ContactEnds),
            },
        ],
        (left_out > 0)
            .then_some("the trajectory left some events out: counts stop early")
            .or((t.events.is_empty()).then_some("no contact event")),
    )?;
    Ok(())
}

/// A panel: lines against time, a legend, and `note` written inside.
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &Trajectory,
    caption: &str,
    lines: &[Line],
    note: Option<&str>,
) -> Result<(), String> {
    let error = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let times = t.frames.iter().map(|f| f.time);
    let x = padded(times, 0.0);
    let y = padded(
        lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)),
        0.05,
    );
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 18))
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(80)
        .build_cartesian_2d(x, y)
        .map_err(error)?;
    chart
        .configure_mesh()
        .x_desc("t (s)")
        .max_light_lines(4)
        .light_line_style(RGBColor(235, 235, 235))
        .label_style((FONT, 13))
        .y_label_formatter(&|v| format_value(*v))
        .draw()
        .map_err(error)?;
    for line in lines {
        let colour = line.colour;
        chart
            .draw_series(LineSeries::new(
                line.points.iter().copied(),
                colour.stroke_width(2),
            ))
            .map_err(error)?
            .label(line.name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(error)?;
    if let Some(note) = note {
        let (w, h) = area.dim_in_pixel();
        area.draw(&Text::new(
            note.to_string(),
            (w as i32 / 3, h as i32 / 2),
            (FONT, 16).into_font().color(&RGBColor(120, 120, 120)),
        ))
        .map_err(error)?;
    }
    Ok(())
}

/// The range of `values` with `margin` of its width added on each side;
/// a range of a single value (or none) is widened so an axis can be drawn.
fn padded(values: impl Iterator<Item = f64>, margin: f64) -> Range<f64> {
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    if !low.is_finite() || (low == 0.0 && high == 0.0) {
        return 0.0..1.0;
    }
    let width = high - low;
    if width <= 1e-12 * low.abs().max(high.abs()) {
        let pad = 0.1 * low.abs().max(high.abs());
        return low - pad..high + pad;
    }
    low - margin * width..high + margin * width
}

fn format_value(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if (1e-3..1e5).contains(&v.abs()) {
        format!("{v:.4}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        format!("{v:.2e}")
    }
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// The files `format` asks for, in `folder`, named after the trajectory.
#[must_use]
pub fn output_paths(trajectory: &Path, folder: &Path, format: Format) -> Vec<PathBuf> {
    let stem = trajectory
        .file_stem()
        .map_or_else(|| "trajectory".into(), |s| s.to_string_lossy().into_owned());
    let mut paths = Vec::new();
    if format != Format::Svg {
        paths.push(folder.join(format!("{stem}.plots.png")));
    }
    if format != Format::Png {
        paths.push(folder.join(format!("{stem}.plots.svg")));
    }
    paths
}

/// Runs the command (see the module comment for the exit status).
#[must_use]
pub fn run(options: &PlotOptions) -> ExitCode {
    let fail = |message: String| {
        eprintln!("contact plot: {message}");
        ExitCode::from(2)
    };
    let folder = match &options.out_dir {
        Some(dir) if !dir.is_dir() => {
            return fail(format!(
                "--out-dir {}: not an existing folder",
                dir.display()
            ));
        }
        Some(dir) => dir.clone(),
        None => match options.trajectory.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        },
    };
    let trajectory = match trajectory_file::load(&options.trajectory) {
        Ok(trajectory) => trajectory,
        Err(error) => return fail(error.to_string()),
    };
    let figures = match figures(&trajectory, options.format) {
        Ok(figures) => figures,
        Err(message) => return fail(format!("drawing the plots: {message}")),
    };
    let paths = output_paths(&options.trajectory, &folder, options.format);
    let contents: Vec<&[u8]> = [
        figures.png.as_deref(),
        figures.svg.as_ref().map(String::as_bytes),
    ]
    .into_iter()
    .flatten()
    .collect();
    // Every file under its temporary name first, then the renames.
    let mut files = Vec::new();
    for (path, bytes) in paths.iter().zip(contents) {
        let written = AtomicFile::create(path).and_then(|mut file| {
            file.write_all(bytes)?;
            file.flush()?;
            Ok(file)
        });
        match written {
            Ok(file) => files.push(file),
            Err(error) => return fail(format!("{}: {error}", path.display())),
        }
    }
    for (file, path) in files.into_iter().zip(&paths) {
        if let Err(error) = file.commit() {
            return fail(format!("{}: {error}", path.display()));
        }
    }
    for path in &paths {
        println!("plot: {}", path.display());
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trajectory_file::tests::{edited, sample};

    #[test]
    fn both_figures_are_drawn_and_well_formed() {
        let trajectory = trajectory_file::parse(&sample()).unwrap();
        let figures = figures(&trajectory, Format::Both).unwrap();
        // The PNG decodes to the figure's size and is not one colour.
        let png = figures.png.unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(&png));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut pixels).unwrap();
        assert_eq!((info.width, info.height), SIZE);
        let first = &pixels[..3];
        let differing = pixels.chunks(3).filter(|p| *p != first).count();
        assert!(differing > 10_000, "only {differing} pixels drawn");
        // The SVG is one well-formed element with the panels' captions.
        let svg = figures.svg.unwrap();
        assert_well_formed(&svg);
        for caption in [
            "energy (J)",
            "largest penetration (m)",
            "contact forces (N)",
            "step size h (s)",
            "contact events so far",
        ] {
            assert!(svg.contains(caption), "{caption} missing");
        }
    }

    /// A trajectory of one frame without contacts still plots (flat
    /// ranges widened, the missing forces said).
    #[test]
    fn a_single_frame_without_contacts_plots() {
        let text = edited(|v| {
            let first = v["frames"][0].clone();
            v["frames"] = serde_json::json!([first]);
            v["frames"][0].as_object_mut().unwrap().remove("contacts");
            v["events"] = serde_json::json!([]);
        });
        let trajectory = trajectory_file::parse(&text).unwrap();
        let svg = figures(&trajectory, Format::Svg).unwrap().svg.unwrap();
        assert_well_formed(&svg);
        assert!(svg.contains("contacts not recorded"));
    }

    /// Checks that tags nest and close, and that the text between them has
    /// no bare `<` or `&` (a small XML well-formedness check: no DTD or
    /// CDATA in plotters' output).
    fn assert_well_formed(svg: &str) {
        let mut open: Vec<&str> = Vec::new();
        let mut rest = svg.trim();
        if let Some(after) = rest.strip_prefix("<?xml") {
            rest = &after[after.find("?>").expect("declaration end") + 2..];
        }
        while let Some(start) = rest.find('<') {
            assert_text(&rest[..start]);
            let end = start + rest[start..].find('>').expect("tag end");
            let tag = &rest[start + 1..end];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(open.pop(), Some(name.trim()), "closing tag");
            } else if !tag.ends_with('/') {
                open.push(tag.split_whitespace().next().expect("tag name"));
            }
            assert_eq!(
                tag.matches('"').count() % 2,
                0,
                "attribute quotes in <{tag}>"
            );
            rest = &rest[end + 1..];
            if open.is_empty() {
                break;
            }
        }
        assert!(open.is_empty(), "unclosed {open:?}");
        assert!(rest.trim().is_empty(), "text after the root: {rest}");
        assert!(svg.contains("<svg"), "no svg element");
    }

    fn assert_text(text: &str) {
        assert!(!text.contains('<'));
        for (i, _) in text.match_indices('&') {
            let entity = &text[i..text[i..].find(';').map_or(text.len(), |e| i + e + 1)];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&entity)
                    || entity.starts_with("&#"),
                "bare & in {text}"
            );
        }
    }

    #[test]
    fn output_names_follow_the_trajectory() {
        let paths = output_paths(Path::new("runs/stack.json"), Path::new("out"), Format::Both);
        assert_eq!(
            paths,
            [
                PathBuf::from("out/stack.plots.png"),
                PathBuf::from("out/stack.plots.svg")
            ]
        );
        assert_eq!(
            output_paths(Path::new("a.json"), Path::new("."), Format::Svg).len(),
            1
        );
    }

    #[test]
    fn ranges_are_padded_and_never_empty() {
        let close = |r: Range<f64>, low: f64, high: f64| {
            assert!(
                (r.start - low).abs() < 1e-12 && (r.end - high).abs() < 1e-12,
                "{r:?}"
            );
        };
        close(padded([1.0, 3.0].into_iter(), 0.5), 0.0, 4.0);
        close(padded([0.0].into_iter(), 0.05), 0.0, 1.0);
        close(padded([-3.0].into_iter(), 0.05), -3.3, -2.7);
        close(padded([2.0, 2.0].into_iter(), 0.05), 1.8, 2.2);
        close(padded(std::iter::empty(), 0.05), 0.0, 1.0);
    }
}
