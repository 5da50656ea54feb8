//! `contact view TRAJ.json [--out VIEW.html]`: writes one self-contained
//! HTML page replaying a trajectory in 3D: the bodies (boxes, hulls,
//! spheres, half-spaces), the contact points and forces as arrows, the
//! joints, and a timeline with play, pause and scrubbing. Everything is
//! inlined (the trajectory as JSON, the renderer `viewer.js`, a 2D canvas
//! with its own projection, see [`camera`]), so the page opens with no
//! network.
//!
//! The page's address may end in `#frame=N` (show frame N), `bodies=off`
//! (draw no body: the xtask viewer check compares the two pictures) and
//! `overlays=off` (no joints, contacts or forces) and `play` (start
//! playing), joined by `&`. It
//! reports in the element `#viewer-report` (JSON: `status` `ok` or
//! `error`, `errors`, the canvas's place and size, the viewport's size,
//! the frame, each body's projected centre in canvas pixels, `null` for a
//! half-space), in the `data-status` attribute of its body, and, on an
//! error, in its title (`error: ...`).
//!
//! Exit status: 0 when the page is written; 2 for bad arguments, a
//! malformed trajectory or an output that cannot be written (and then no
//! page, not even a part).

pub mod camera;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use contact_sim::trajectory::Trajectory;
use serde::Serialize;

use crate::atomic_file::AtomicFile;
use crate::trajectory_file;
use camera::Camera;

/// The renderer, inlined in the page.
const VIEWER_JS: &str = include_str!("viewer.js");
/// The page around it.
const PAGE_HTML: &str = include_str!("page.html");

/// The command line of `contact view`.
#[derive(Clone, Debug, PartialEq, clap::Args)]
pub struct ViewOptions {
    /// The trajectory (`contact run SCENE --out TRAJ.json`).
    #[arg(value_name = "TRAJ.json")]
    pub trajectory: PathBuf,
    /// The page to write (default: the trajectory's name with `.html`).
    #[arg(long, value_name = "VIEW.html", value_parser = html_path)]
    pub out: Option<PathBuf>,
}

fn html_path(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    match path.extension().and_then(|e| e.to_str()) {
        Some("html" | "htm") => Ok(path),
        _ => Err("the page must end in .html".into()),
    }
}

/// What the page reads: the trajectory (without velocities, which it does
/// not draw) and the initial camera.
#[derive(Serialize)]
struct PageData<'a> {
    trajectory: &'a Trajectory,
    camera: &'a Camera,
}

/// The page for `trajectory`, with the camera [`Camera::fit`] chooses.
#[must_use]
pub fn page(trajectory: &Trajectory) -> String {
    let mut shown = trajectory.clone();
    for frame in &mut shown.frames {
        frame.velocities = None;
    }
    let camera = Camera::fit(trajectory);
    let data = serde_json::to_string(&PageData {
        trajectory: &shown,
        camera: &camera,
    })
    .unwrap_or_else(|_| unreachable!("the trajectory was read from JSON and is finite"));
    let title = trajectory
        .header
        .scene
        .clone()
        .unwrap_or_else(|| "trajectory".into());
    fill(
        PAGE_HTML,
        &[
            ("{{TITLE}}", &escape_html(&title)),
            ("{{VIEWER_JS}}", VIEWER_JS),
            ("{{DATA}}", &script_safe(&data)),
        ],
    )
}

/// `template` with each placeholder replaced, in one pass (so text put in
/// is never searched for placeholders).
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some((at, (key, value))) = values
        .iter()
        .filter_map(|pair| rest.find(pair.0).map(|at| (at, pair)))
        .min_by_key(|(at, _)| *at)
    {
        out.push_str(&rest[..at]);
        out.push_str(value);
        rest = &rest[at + key.len()..];
    }
    out.push_str(rest);
    out
}

/// JSON that cannot end its `<script>` element: every `<` written as the
/// JSON escape `\u003c` (only inside strings, where JSON allows it).
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page's default name: the trajectory's with `.html`.
#[must_use]
pub fn default_page_path(trajectory: &Path) -> PathBuf {
    trajectory.with_extension("html")
}

/// Runs the command (see the module comment for the exit status).
#[must_use]
pub fn run(options: &ViewOptions) -> ExitCode {
    let fail = |message: String| {
        eprintln!("contact view: {message}");
        ExitCode::from(2)
    };
    let trajectory = match trajectory_file::load(&options.trajectory) {
        Ok(trajectory) => trajectory,
        Err(error) => return fail(error.to_string()),
    };
    let out = options
        .out
        .clone()
        .unwrap_or_else(|| default_page_path(&options.trajectory));
    let html = page(&trajectory);
    let written = AtomicFile::create(&out).and_then(|mut file| {
        file.write_all(html.as_bytes())?;
        file.commit()
    });
    match written {
        Ok(()) => {
            println!(
                "page: {} ({} frames, {} bodies, {:.1} MB; open it in a browser)",
                out.display(),
                trajectory.frames.len(),
                trajectory.header.bodies.len(),
                html.len() as f64 / 1e6
            );
            ExitCode::SUCCESS
        }
        Err(error) => fail(format!("--out {}: {error}", out.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trajectory_file::tests::{edited, sample};

    /// The JSON between the page's data element tags.
    fn embedded(html: &str) -> &str {
        let open = "<script type=\"application/json\" id=\"trajectory-data\">";
        let start = html.find(open).expect("data element") + open.len();
        let end = start + html[start..].find("</script>").expect("its end");
        &html[start..end]
    }

    #[test]
    fn the_page_embeds_the_trajectory_and_the_camera() {
        let trajectory = trajectory_file::parse(&sample()).unwrap();
        let html = page(&trajectory);
        let data: serde_json::Value = serde_json::from_str(embedded(&html)).unwrap();
        let back: Trajectory = serde_json::from_value(data["trajectory"].clone()).unwrap();
        assert_eq!(back, trajectory);
        let camera: Camera = serde_json::from_value(data["camera"].clone()).unwrap();
        assert_eq!(camera, Camera::fit(&trajectory));
        // Inlined: the renderer's code is there and nothing is fetched.
        assert!(html.contains("function project("));
        for remote in ["src=\"http", "href=\"http", "src=\"//", "import "] {
            assert!(!html.contains(remote), "the page loads {remote}");
        }
        assert!(!html.contains("{{"), "a placeholder is left");
    }

    /// A name holding `</script>` neither ends the data element nor
    /// changes on its way through the page.
    #[test]
    fn text_in_the_trajectory_cannot_break_the_page() {
        let text = edited(|v| {
            v["scene"] = "<b>a & b</b>".into();
            v["bodies"][1]["name"] = "</script><script>alert(1)</script>".into();
        });
        let trajectory = trajectory_file::parse(&text).unwrap();
        let html = page(&trajectory);
        assert_eq!(
            html.matches("</script>").count(),
            2,
            "the two script elements"
        );
        let data: serde_json::Value = serde_json::from_str(embedded(&html)).unwrap();
        assert_eq!(
            data["trajectory"]["bodies"][1]["name"],
            "</script><script>alert(1)</script>"
        );
        assert!(html.contains("<title>&lt;b&gt;a &amp; b&lt;/b&gt; - contact view</title>"));
    }

    #[test]
    fn velocities_are_left_out_of_the_page() {
        let text = edited(|v| {
            v["frames"][0]["velocities"] = serde_json::to_value([[0.0; 6]; 4]).unwrap();
        });
        let trajectory = trajectory_file::parse(&text).unwrap();
        assert!(trajectory.frames[0].velocities.is_some());
        let data: serde_json::Value = serde_json::from_str(embedded(&page(&trajectory))).unwrap();
        assert!(data["trajectory"]["frames"][0].get("velocities").is_none());
    }
}
