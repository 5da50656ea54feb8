//! `cargo xtask viewer-check [--out DIR] [--picture PATH.png]`: the page of
//! `contact view` in a real browser. Runs the scene `xtask/viewer-check/
//! scene.json` (every shape kind and a hinge), writes its page, and opens
//! it in headless Chromium (Debian's `chromium`; `scripts/install-chromium.sh`
//! installs it when missing), then checks:
//!
//! 1. the page reported no script error (`#viewer-report`, read back with
//!    `--dump-dom`);
//! 2. the page projected each body's centre where `contact_cli::view::camera`
//!    does (within half a pixel): the two implementations agree;
//! 3. in screenshots of the last frame with and without the bodies drawn
//!    (joints and contacts hidden in both), the pixels differ at each
//!    body's projected centre, and nowhere outside the bodies' projected
//!    bounding circles: the bodies were drawn, and where the scene puts
//!    them;
//! 4. played from the first frame (`#play`, on the browser's virtual
//!    clock), the page reaches the last frame with no error.
//!
//! `--picture PATH.png` also saves a screenshot with everything drawn (the
//! README's picture, `docs/viewer.png`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use contact_cli::view::{self, camera::Camera};
use contact_sim::scene_file::SceneFile;
use contact_sim::simulation::Simulation;
use contact_sim::trajectory::{
    JsonTrajectoryWriter, RunSummary, ShapeGeometry, Trajectory, TrajectoryHeader,
};

/// The scene the check replays.
const SCENE: &str = include_str!("../viewer-check/scene.json");
/// The browser window of the check (CSS pixels, device scale 1).
const WINDOW: (u32, u32) = (800, 600);
/// The README picture's window.
const PICTURE_WINDOW: (u32, u32) = (900, 560);
/// How long one browser run may take.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);

#[derive(Debug)]
struct Options {
    out: PathBuf,
    picture: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        out: PathBuf::from("target/viewer-check"),
        picture: None,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match arg.as_str() {
            "--out" => options.out = PathBuf::from(value("--out")?),
            "--picture" => {
                let path = PathBuf::from(value("--picture")?);
                if path.extension().is_none_or(|e| e != "png") {
                    return Err(format!("--picture {}: must end in .png", path.display()));
                }
                options.picture = Some(path);
            }
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(options)
}

const HELP: &str = "cargo xtask viewer-check [--out DIR] [--picture PATH.png]
  renders the `contact view` page of xtask/viewer-check/scene.json in headless
  Chromium and checks that it reported no error and drew each body where the
  camera projects it. --out: where the page and screenshots go
  (target/viewer-check); --picture: also save a screenshot of the page.";

/// Runs the command.
pub fn run(args: &[String]) -> ExitCode {
    let options = match parse(args) {
        Ok(options) => options,
        Err(message) if message.is_empty() => {
            println!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("viewer-check: {message}\n\n{HELP}");
            return ExitCode::FAILURE;
        }
    };
    let start = Instant::now();
    match check(&options) {
        Ok(summary) => {
            println!(
                "viewer-check: ok ({summary}; {:.1} s)",
                start.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("viewer-check: FAILED: {message}");
            ExitCode::FAILURE
        }
    }
}

fn check(options: &Options) -> Result<String, String> {
    let chromium = find_or_install_chromium()?;
    std::fs::create_dir_all(&options.out).map_err(|e| format!("{}: {e}", options.out.display()))?;
    let trajectory = record_trajectory()?;
    let page = options.out.join("viewer-check.html");
    std::fs::write(&page, view::page(&trajectory))
        .map_err(|e| format!("{}: {e}", page.display()))?;
    let page = std::fs::canonicalize(&page).map_err(|e| e.to_string())?;
    let browser = Browser {
        chromium,
        profile: std::fs::canonicalize(&options.out)
            .map_err(|e| e.to_string())?
            .join("chromium-profile"),
    };
    let last = trajectory.frames.len() - 1;
    let url = |extra: &str| format!("file://{}#frame={last}&overlays=off{extra}", page.display());

    // 1 and 2: the page's own report.
    let dom = browser.dump_dom(&url(""), WINDOW, None)?;
    let report = report_of(&dom)?;
    if report["status"] != "ok" {
        return Err(format!("the page reported errors: {}", report["errors"]));
    }
    if report["frame"] != last {
        return Err(format!(
            "the page shows frame {} instead of {last}",
            report["frame"]
        ));
    }
    let camera = Camera::fit(&trajectory);
    let size = |v: &serde_json::Value| -> Result<(f64, f64), String> {
        match (v["width"].as_f64(), v["height"].as_f64()) {
            (Some(w), Some(h)) => Ok((w, h)),
            _ => Err(format!("the report lacks a size: {v}")),
        }
    };
    let (canvas_w, canvas_h) = size(&report["canvas"])?;
    let (_, viewport_h) = size(&report["viewport"])?;
    let frame = &trajectory.frames[last];
    let bodies = &trajectory.header.bodies;
    let mut largest_gap: f64 = 0.0;
    for (b, body) in bodies.iter().enumerate() {
        let reported = &report["bodies"][b];
        let centre = [frame.poses[b][0], frame.poses[b][1], frame.poses[b][2]];
        let expected = match body.shape {
            ShapeGeometry::HalfSpace { .. } => None,
            _ => camera.project(centre, canvas_w, canvas_h),
        };
        match (expected, reported.as_array()) {
            (None, None) => {}
            (Some([x, y]), Some(xy)) if xy.len() == 2 => {
                let (px, py) = (
                    xy[0].as_f64().unwrap_or(f64::NAN),
                    xy[1].as_f64().unwrap_or(f64::NAN),
                );
                let gap = (px - x).hypot(py - y);
                if gap.is_nan() || gap > 0.5 {
                    return Err(format!(
                        "body {b}: the page projected its centre to ({px:.2}, {py:.2}), the camera to ({x:.2}, {y:.2})"
                    ));
                }
                largest_gap = largest_gap.max(gap);
            }
            _ => {
                return Err(format!(
                    "body {b}: the page reported {reported}, the camera projects {expected:?}"
                ));
            }
        }
    }

    // 4: playing runs to the last frame without an error.
    let duration = trajectory.frames[last].time - trajectory.frames[0].time;
    let budget = Duration::from_secs_f64(duration + 2.0);
    let played = report_of(&browser.dump_dom(
        &format!("file://{}#frame=0&play", page.display()),
        WINDOW,
        Some(budget),
    )?)?;
    if played["status"] != "ok" || played["frame"] != last || played["played"].as_u64() < Some(2) {
        return Err(format!(
            "playing from frame 0 for {:.1} s of browser time ended at frame {} of {last} after {} timer ticks, errors {}",
            budget.as_secs_f64(),
            played["frame"],
            played["played"],
            played["errors"]
        ));
    }

    // 3: where the bodies were drawn.
    let drawn_png = options.out.join("bodies.png");
    let bare_png = options.out.join("no-bodies.png");
    browser.screenshot(&url(""), WINDOW, &drawn_png)?;
    browser.screenshot(&url("&bodies=off"), WINDOW, &bare_png)?;
    let drawn = Picture::read(&drawn_png)?;
    let bare = Picture::read(&bare_png)?;
    if (drawn.width, drawn.height) != WINDOW || (bare.width, bare.height) != WINDOW {
        return Err(format!(
            "screenshots of {}x{} and {}x{} for a {}x{} window",
            drawn.width, drawn.height, bare.width, bare.height, WINDOW.0, WINDOW.1
        ));
    }
    // The canvas fills the window's width, and its height less the
    // controls' bar, as in the report's layout.
    let (w, h) = (
        f64::from(WINDOW.0),
        f64::from(WINDOW.1) - (viewport_h - canvas_h),
    );
    let mut circles = Vec::new();
    for (b, body) in bodies.iter().enumerate() {
        let Some(radius) = view::camera::bounding_radius(&body.shape) else {
            continue;
        };
        let centre = [frame.poses[b][0], frame.poses[b][1], frame.poses[b][2]];
        let name = body.name.clone().unwrap_or_else(|| format!("body {b}"));
        let ([x, y], r) = camera
            .project(centre, w, h)
            .zip(camera.projected_radius(centre, radius, w, h))
            .ok_or_else(|| format!("{name} is behind the camera"))?;
        if !(0.0..w).contains(&x) || !(0.0..h).contains(&y) {
            return Err(format!(
                "{name}: its centre ({x:.0}, {y:.0}) is off the canvas"
            ));
        }
        let (cx, cy) = (x.floor() as i64, y.floor() as i64);
        let differing = (-1..=1)
            .flat_map(|dy| (-1..=1).map(move |dx| (cx + dx, cy + dy)))
            .filter(|&(px, py)| drawn.at(px, py) != bare.at(px, py))
            .count();
        if differing < 7 {
            return Err(format!(
                "{name}: nothing drawn at its centre ({x:.1}, {y:.1}) ({differing} of 9 pixels differ from the picture without bodies)"
            ));
        }
        circles.push((x, y, r * 1.05 + 3.0));
    }
    let mut stray = 0;
    let mut changed = 0;
    for py in 0..WINDOW.1 as i64 {
        for px in 0..WINDOW.0 as i64 {
            if drawn.at(px, py) == bare.at(px, py) {
                continue;
            }
            changed += 1;
            let (fx, fy) = (px as f64 + 0.5, py as f64 + 0.5);
            if !circles.iter().any(|&(x, y, r)| (fx - x).hypot(fy - y) <= r) {
                stray += 1;
            }
        }
    }
    if stray > 0 {
        return Err(format!(
            "{stray} of {changed} pixels changed by drawing the bodies lie outside every body's projected bounding circle"
        ));
    }
    if let Some(picture) = &options.picture {
        let full = format!("file://{}#frame={last}", page.display());
        let absolute = std::env::current_dir()
            .map_err(|e| e.to_string())?
            .join(picture);
        browser.screenshot(&full, PICTURE_WINDOW, &absolute)?;
        println!("viewer-check: picture {}", picture.display());
    }
    Ok(format!(
        "{} bodies drawn where projected, {changed} pixels, page and camera within {largest_gap:.1e} px",
        circles.len()
    ))
}

/// The check scene run and recorded as `contact run --out` would, then read
/// back as `contact view` reads it.
fn record_trajectory() -> Result<Trajectory, String> {
    let scene = SceneFile::parse(SCENE)
        .and_then(|file| file.build())
        .map_err(|e| format!("xtask/viewer-check/scene.json: {e}"))?;
    let steps = scene
        .run
        .steps
        .ok_or("the check scene states no run.steps")?;
    let every = scene.record.every;
    let header = TrajectoryHeader::of(&scene, every);
    let record = scene.record;
    let mut simulation = Simulation::new(scene);
    let io = |e: std::io::Error| e.to_string();
    let mut writer = JsonTrajectoryWriter::new(Vec::new(), &header).map_err(io)?;
    writer.frame(&simulation.frame(&record)).map_err(io)?;
    for step in 1..=steps {
        simulation
            .step()
            .map_err(|e| format!("the check scene's step {step}: {e}"))?;
        if step % every == 0 || step == steps {
            writer.frame(&simulation.frame(&record)).map_err(io)?;
        }
    }
    let summary = RunSummary {
        observations: simulation.observations().clone(),
        events_left_out: 0,
        verdict: Vec::new(),
        wall_seconds: 0.0,
    };
    let bytes = writer.finish(simulation.events(), &summary).map_err(io)?;
    let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
    contact_cli::trajectory_file::parse(&text)
        .map_err(|(at, what)| format!("the recorded trajectory: {at}: {what}"))
}

/// `chromium` on the PATH (or `$CHROMIUM`), installed by
/// `scripts/install-chromium.sh` when missing.
fn find_or_install_chromium() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return Ok(PathBuf::from(path));
    }
    let on_path = || {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("chromium"))
                .find(|candidate| candidate.is_file())
        })
    };
    if let Some(path) = on_path() {
        return Ok(path);
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/install-chromium.sh");
    println!(
        "viewer-check: chromium is missing; running {}",
        script.display()
    );
    let status = Command::new("bash")
        .arg(&script)
        .status()
        .map_err(|e| format!("{}: {e}", script.display()))?;
    match on_path() {
        Some(path) if status.success() => Ok(path),
        _ => Err(format!(
            "no chromium after {} ({status}); install Debian's chromium package or set CHROMIUM",
            script.display()
        )),
    }
}

/// Headless Chromium with its own profile folder.
struct Browser {
    chromium: PathBuf,
    profile: PathBuf,
}

impl Browser {
    fn command(&self, (w, h): (u32, u32)) -> Command {
        let mut command = Command::new(&self.chromium);
        command
            .arg("--headless")
            .arg("--no-sandbox")
            .arg("--disable-gpu")
            .arg("--no-first-run")
            .arg("--hide-scrollbars")
            .arg("--force-device-scale-factor=1")
            .arg(format!("--user-data-dir={}", self.profile.display()))
            .arg(format!("--window-size={w},{h}"))
            .stdin(Stdio::null());
        command
    }

    /// The page's DOM after its scripts ran, and after `budget` of the
    /// browser's virtual time (timers run; no waiting in real time).
    fn dump_dom(
        &self,
        url: &str,
        window: (u32, u32),
        budget: Option<Duration>,
    ) -> Result<String, String> {
        let out = self.profile.with_file_name("dom.html");
        let file = std::fs::File::create(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        let mut command = self.command(window);
        if let Some(budget) = budget {
            command.arg(format!("--virtual-time-budget={}", budget.as_millis()));
        }
        command.arg("--dump-dom").arg(url).stdout(file);
        wait(command, "chromium --dump-dom")?;
        std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))
    }

    fn screenshot(&self, url: &str, window: (u32, u32), to: &Path) -> Result<(), String> {
        let _ = std::fs::remove_file(to);
        let mut command = self.command(window);
        command
            .arg(format!("--screenshot={}", to.display()))
            .arg(url)
            .stdout(Stdio::null());
        wait(command, "chromium --screenshot")?;
        if to.is_file() {
            Ok(())
        } else {
            Err(format!("chromium wrote no screenshot {}", to.display()))
        }
    }
}

/// Runs `command` to its end, killed after [`BROWSER_TIMEOUT`].
fn wait(mut command: Command, what: &str) -> Result<(), String> {
    let stderr = std::env::temp_dir().join(format!("viewer-check-{}.stderr", std::process::id()));
    let log = std::fs::File::create(&stderr).map_err(|e| e.to_string())?;
    let mut child = command
        .stderr(log)
        .spawn()
        .map_err(|e| format!("{what}: {e}"))?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "{what}: no answer in {} s",
                BROWSER_TIMEOUT.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let messages = std::fs::read_to_string(&stderr).unwrap_or_default();
    let _ = std::fs::remove_file(&stderr);
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what}: {status}\n{messages}"))
    }
}

/// The JSON in the page's `#viewer-report` element.
fn report_of(dom: &str) -> Result<serde_json::Value, String> {
    let open = "<pre id=\"viewer-report\">";
    let start = dom
        .find(open)
        .ok_or("the dumped page has no #viewer-report element")?
        + open.len();
    let end = start
        + dom[start..]
            .find("</pre>")
            .ok_or("#viewer-report is not closed")?;
    let text = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    if text.is_empty() {
        return Err("the page wrote no report: its script did not run to the end".into());
    }
    serde_json::from_str(&text).map_err(|e| format!("#viewer-report is not JSON ({e}): {text}"))
}

/// A decoded screenshot.
struct Picture {
    width: u32,
    height: u32,
    /// RGBA or RGB rows.
    pixels: Vec<u8>,
    channels: usize,
}

impl Picture {
    fn read(path: &Path) -> Result<Self, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder
            .read_info()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let mut pixels = vec![0; reader.output_buffer_size()];
        let info = reader
            .next_frame(&mut pixels)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let channels = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => return Err(format!("{}: colour type {other:?}", path.display())),
        };
        pixels.truncate(info.buffer_size());
        Ok(Self {
            width: info.width,
            height: info.height,
            pixels,
            channels,
        })
    }

    /// The RGB of a pixel; black outside.
    fn at(&self, x: i64, y: i64) -> [u8; 3] {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return [0; 3];
        }
        let i = (y as usize * self.width as usize + x as usize) * self.channels;
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strings;

    #[test]
    fn arguments_are_read_and_bad_ones_named() {
        let options = parse(&strings(&["--out", "x", "--picture", "docs/v.png"])).unwrap();
        assert_eq!(options.out, PathBuf::from("x"));
        assert_eq!(options.picture, Some(PathBuf::from("docs/v.png")));
        assert!(
            parse(&strings(&["--picture", "v.jpg"]))
                .unwrap_err()
                .contains("--picture v.jpg")
        );
        assert!(
            parse(&strings(&["--out"]))
                .unwrap_err()
                .contains("--out needs a value")
        );
        assert!(
            parse(&strings(&["--fast"]))
                .unwrap_err()
                .contains("`--fast`")
        );
    }

    #[test]
    fn the_report_is_read_from_the_dumped_page() {
        let dom = "<body><pre id=\"viewer-report\">{\"status\":\"ok\",\"errors\":[\"a &lt; b &amp; c\"]}</pre></body>";
        let report = report_of(dom).unwrap();
        assert_eq!(report["errors"][0], "a < b & c");
        assert!(
            report_of("<pre id=\"viewer-report\"></pre>")
                .unwrap_err()
                .contains("did not run")
        );
        assert!(report_of("<body></body>").is_err());
    }

    /// The check scene runs, and its trajectory reads back with every
    /// shape kind the viewer draws.
    #[test]
    fn the_check_scene_records_every_shape_kind() {
        let trajectory = record_trajectory().unwrap();
        let kinds: Vec<&str> = trajectory
            .header
            .bodies
            .iter()
            .map(|b| match b.shape {
                ShapeGeometry::Box { .. } => "box",
                ShapeGeometry::Sphere { .. } => "sphere",
                ShapeGeometry::ConvexHull { .. } => "hull",
                ShapeGeometry::HalfSpace { .. } => "half-space",
            })
            .collect();
        for kind in ["box", "sphere", "hull", "half-space"] {
            assert!(kinds.contains(&kind), "no {kind}");
        }
        assert_eq!(trajectory.header.joints.len(), 1);
        assert_eq!(trajectory.frames.len(), 11);
    }
}
